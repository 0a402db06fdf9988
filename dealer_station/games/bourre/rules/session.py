"""A Bourré session at one table, its ranking, and the tournament's record of game tags.

Pure: there is no clock here. The caller says how long the session has run (``elapsed_seconds``)
or calls time (``call_time()``); a hand already under way when time runs out is completed.

- Every player starts with the profile's ``session_chips`` (100). The pot carries from hand to
  hand; the deal passes to the left (the next seat clockwise that still has chips).
- A player left with no chips is out of the session and has lost it.
- At the end players are ranked by chips. The number of winners follows the table size at the
  start of the session (the profile's ``winners``; by default a table of five has 2 winners and
  3 losers, three or fewer have 1 winner, and in general fewer than half the table wins:
  4 -> 1, 6 -> 2, 7 -> 3). Players tied on chips across the winners' line are reported as a
  tie for the judge to break (an extra game); pass the order she decides as ``tie_break``.
- The tournament keeps a record per player across sessions: each lost session is a game tag,
  and three tags (the profile's ``tags_to_eliminate``) eliminate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import (
    BourreError,
    BourreHand,
    ConservationError,
    HandResult,
    IllegalActionError,
    Phase,
)


class Outcome(StrEnum):
    WIN = "win"
    LOSS = "loss"
    #: Tied on chips across the winners' line: the judge breaks the tie.
    TIE = "tie"


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    player: str
    chips: int
    #: 1 is first; players level on chips share a place (1, 2, 2, 4).
    place: int
    outcome: Outcome
    #: Out of chips before the end.
    out: bool


@dataclass(frozen=True, slots=True)
class SessionResult:
    session_id: str | None
    standings: tuple[Standing, ...]
    #: Winners the table size allows (fewer if fewer players kept chips).
    winners_allowed: int
    hands: int
    #: Chips left in the pot when the session ended (they belong to no player).
    pot: int
    #: The house collection over the session.
    house: int

    @property
    def decided(self) -> bool:
        """No tie across the winners' line is left for the judge to break."""
        return all(s.outcome is not Outcome.TIE for s in self.standings)

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.standings if s.outcome is Outcome.WIN)

    @property
    def losers(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.standings if s.outcome is Outcome.LOSS)

    @property
    def tied(self) -> tuple[str, ...]:
        return tuple(s.player for s in self.standings if s.outcome is Outcome.TIE)


class SessionError(BourreError):
    """An action the session refuses (time is up, a hand is under way, the session is over)."""


class BourreSession:
    """One session at one table.

    ``seats`` in clockwise order; ``players`` maps seat to the player's id for the tournament
    record (default: the seat number as text); ``chips`` defaults to the profile's starting
    chips for everyone.
    """

    def __init__(self, profile: BourreProfile, seats: Sequence[int], first_dealer: int, *,
                 players: Mapping[int, str] | None = None,
                 chips: Mapping[int, int] | None = None, pot: int = 0,
                 session_id: str | None = None) -> None:
        seats = tuple(seats)
        if len(set(seats)) != len(seats):
            raise SessionError(f"a seat is listed twice in {list(seats)}")
        if not profile.min_players <= len(seats) <= profile.max_players:
            raise SessionError(f"{len(seats)} players seated: the {profile.name} rules need "
                               f"{profile.min_players} to {profile.max_players}")
        if first_dealer not in seats:
            raise SessionError(f"first dealer {first_dealer} is not one of the seats "
                               f"{list(seats)}")
        self.profile = profile
        self.seats = seats
        self.session_id = session_id
        self.players: Mapping[int, str] = MappingProxyType(
            {s: (players[s] if players is not None and s in players else str(s))
             for s in seats})
        if len(set(self.players.values())) != len(seats):
            raise SessionError("two seats have the same player")
        start = chips if chips is not None else {s: profile.session_chips for s in seats}
        self._chips: dict[int, int] = {}
        for s in seats:
            amount = start.get(s)
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
                raise SessionError(f"seat {s} must start with at least 1 chip, got {amount!r}")
            self._chips[s] = amount
        if pot < 0:
            raise SessionError(f"the pot cannot be negative, got {pot}")
        self._pot = pot
        self._house = 0
        self._total = sum(self._chips.values()) + pot
        self._dealer = first_dealer
        self._hand: BourreHand | None = None
        self._results: list[HandResult] = []
        self._time_called = False

    # -- state ----------------------------------------------------------------------------------

    @property
    def chips(self) -> Mapping[int, int]:
        return MappingProxyType(dict(self._chips))

    @property
    def pot(self) -> int:
        return self._pot

    @property
    def house(self) -> int:
        return self._house

    @property
    def dealer(self) -> int:
        """Who deals the next hand (or the hand under way)."""
        return self._dealer

    @property
    def active_seats(self) -> tuple[int, ...]:
        """Seats still holding chips, clockwise."""
        return tuple(s for s in self.seats if self._chips[s] > 0)

    @property
    def out(self) -> tuple[int, ...]:
        """Seats out of chips: they have lost the session."""
        return tuple(s for s in self.seats if self._chips[s] == 0)

    @property
    def hand(self) -> BourreHand | None:
        """The hand under way, if any."""
        return self._hand

    @property
    def hands(self) -> tuple[HandResult, ...]:
        return tuple(self._results)

    def time_up(self, elapsed_seconds: float | None = None) -> bool:
        if self._time_called:
            return True
        return elapsed_seconds is not None and elapsed_seconds >= self.profile.session_minutes * 60

    def call_time(self) -> None:
        """The session's time has run out: no new hand starts; one under way completes."""
        self._time_called = True

    def is_over(self, elapsed_seconds: float | None = None) -> bool:
        """No hand under way, and time is up or too few players have chips to deal a hand."""
        if self._hand is not None:
            return False
        return (self.time_up(elapsed_seconds)
                or len(self.active_seats) < self.profile.min_players)

    # -- hands ----------------------------------------------------------------------------------

    def verify_start_hand(self, elapsed_seconds: float | None = None) -> None:
        if self._hand is not None:
            raise SessionError("a hand is under way: finish it before dealing the next")
        if self.time_up(elapsed_seconds):
            raise SessionError(f"the session's {self.profile.session_minutes} minutes are up: "
                               f"no new hand is dealt")
        active = self.active_seats
        if len(active) < self.profile.min_players:
            raise SessionError(f"only {len(active)} player(s) have chips: the session is over")

    def can_start_hand(self, elapsed_seconds: float | None = None) -> bool:
        try:
            self.verify_start_hand(elapsed_seconds)
        except SessionError:
            return False
        return True

    def start_hand(self, elapsed_seconds: float | None = None) -> BourreHand:
        """A new hand for the seats with chips, dealt by ``dealer``, with the carried pot.
        The caller drives it (ante, deal, decisions, draw, play) and then ``finish_hand``."""
        self.verify_start_hand(elapsed_seconds)
        self._hand = BourreHand(self.profile, self.active_seats, self._dealer,
                                {s: self._chips[s] for s in self.active_seats}, self._pot)
        return self._hand

    def abandon_hand(self) -> None:
        """A voided hand: no chip moved (the hand kept its own), so the session is as it was
        before the deal, and the same dealer deals again."""
        self._hand = None

    def verify_finish_hand(self) -> None:
        if self._hand is None:
            raise SessionError("no hand is under way")
        if self._hand.phase is not Phase.SETTLED or self._hand.result is None:
            raise SessionError(f"the hand is not over: it is in its {self._hand.phase.value} "
                               f"phase")

    def can_finish_hand(self) -> bool:
        try:
            self.verify_finish_hand()
        except SessionError:
            return False
        return True

    def finish_hand(self) -> HandResult:
        """Take the settled hand's chips and pot, and pass the deal to the left."""
        self.verify_finish_hand()
        assert self._hand is not None and self._hand.result is not None
        result = self._hand.result
        for seat, amount in result.chips.items():
            self._chips[seat] = amount
        self._pot = result.pot
        self._house += result.house
        now = sum(self._chips.values()) + self._pot + self._house
        if now != self._total:
            raise ConservationError(
                f"session chip count broken after hand {len(self._results) + 1}: the table, "
                f"pot and house hold {now} chips but the session began with {self._total}. "
                f"Stop the table and call a supervisor.")
        self._results.append(result)
        self._hand = None
        self._dealer = self._next_dealer()
        return result

    def _next_dealer(self) -> int:
        i = self.seats.index(self._dealer)
        n = len(self.seats)
        for step in range(1, n + 1):
            seat = self.seats[(i + step) % n]
            if self._chips[seat] > 0:
                return seat
        return self._dealer  # nobody has chips: the session is over anyway

    # -- the end --------------------------------------------------------------------------------

    def result(self, tie_break: Sequence[int] = ()) -> SessionResult:
        """The ranking. Requires no hand under way. ``tie_break``: seats in the order the
        judge ranked players tied across the winners' line."""
        if self._hand is not None:
            raise SessionError("a hand is under way: the session ends when it is complete")
        allowed = self.profile.winners_for(len(self.seats))
        return rank_players(self.seats, self._chips, self.players, allowed, tie_break,
                            session_id=self.session_id, hands=len(self._results),
                            pot=self._pot, house=self._house)


def rank_players(seats: Sequence[int], chips: Mapping[int, int], players: Mapping[int, str],
                 winners_allowed: int, tie_break: Sequence[int] = (), *,
                 session_id: str | None = None, hands: int = 0, pot: int = 0,
                 house: int = 0) -> SessionResult:
    """Rank by chips; the top ``winners_allowed`` players with chips win, the rest lose."""
    alive = sorted((s for s in seats if chips[s] > 0), key=lambda s: -chips[s])
    wins = min(winners_allowed, len(alive))
    outcome: dict[int, Outcome] = {s: Outcome.LOSS for s in seats}
    if wins:
        line = chips[alive[wins - 1]]
        above = [s for s in alive if chips[s] > line]
        level = [s for s in alive if chips[s] == line]
        for s in above:
            outcome[s] = Outcome.WIN
        places_left = wins - len(above)
        if len(level) == places_left:
            for s in level:
                outcome[s] = Outcome.WIN
        else:
            order = [s for s in tie_break if s in level]
            if len(order) == len(level) and len(set(order)) == len(level):
                for s in order[:places_left]:
                    outcome[s] = Outcome.WIN
            else:
                for s in level:
                    outcome[s] = Outcome.TIE
    ranked = alive + [s for s in seats if chips[s] <= 0]
    standings: list[Standing] = []
    for i, s in enumerate(ranked):
        place = i + 1
        if i and chips[ranked[i - 1]] == chips[s]:
            place = standings[-1].place
        standings.append(Standing(s, players[s], chips[s], place, outcome[s], chips[s] <= 0))
    return SessionResult(session_id, tuple(standings), wins, hands, pot, house)


class TournamentRecord:
    """Game tags per player across sessions: each lost session is a tag; enough eliminate."""

    def __init__(self, tags_to_eliminate: int = 3,
                 tags: Mapping[str, int] | None = None) -> None:
        if tags_to_eliminate < 1:
            raise ValueError(f"tags_to_eliminate must be at least 1, got {tags_to_eliminate}")
        self.tags_to_eliminate = tags_to_eliminate
        self._tags: dict[str, int] = dict(tags or {})
        self._sessions: list[str | None] = []

    @classmethod
    def for_profile(cls, profile: BourreProfile) -> TournamentRecord:
        return cls(profile.tags_to_eliminate)

    @property
    def tags(self) -> Mapping[str, int]:
        return MappingProxyType(dict(self._tags))

    def tags_of(self, player: str) -> int:
        return self._tags.get(player, 0)

    def is_eliminated(self, player: str) -> bool:
        return self._tags.get(player, 0) >= self.tags_to_eliminate

    @property
    def eliminated(self) -> tuple[str, ...]:
        return tuple(sorted(p for p in self._tags if self.is_eliminated(p)))

    def verify_can_seat(self, players: Sequence[str]) -> None:
        for player in players:
            if self.is_eliminated(player):
                raise IllegalActionError(f"player {player} has {self._tags[player]} game tags "
                                         f"and is eliminated from the tournament")

    def record(self, result: SessionResult) -> tuple[str, ...]:
        """Tag every loser of a decided session; returns the players it eliminates."""
        if not result.decided:
            raise SessionError(f"players {', '.join(result.tied)} are tied across the "
                               f"winners' line: break the tie before recording the session")
        if result.session_id is not None and result.session_id in self._sessions:
            raise SessionError(f"session {result.session_id} is already recorded")
        self.verify_can_seat([s.player for s in result.standings])
        newly: list[str] = []
        for player in result.losers:
            self._tags[player] = self._tags.get(player, 0) + 1
            if self._tags[player] == self.tags_to_eliminate:
                newly.append(player)
        for standing in result.standings:
            self._tags.setdefault(standing.player, 0)
        self._sessions.append(result.session_id)
        return tuple(newly)
