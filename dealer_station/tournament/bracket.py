"""A double-elimination bracket for 2 to any number of teams (Pedro, Euchre).

The shape, for ``P`` the power of two at or above the number of teams (``P = 2**k``):

- **Winners' side**: ``k`` rounds. Seeds meet in the standard order (1 v P, P/2 v P/2+1, ...
  so 1 and 2 can meet only in the last round). A seed above the number of teams is a bye, so
  the top seeds get the byes, one each; every match of round 2 on has two teams.
- **Losers' side**: ``2k - 2`` rounds. Round 1 pairs the losers of winners' round 1; then
  each even round sets the survivors against the losers of the next winners' round (in
  reverse order on alternate rounds, so a rematch comes as late as it can), and each odd
  round pairs the survivors. With ``k == 1`` (two teams) the winners' final's loser is the
  losers' side.
- **Final**: the winners' side's winner against the losers' side's winner; if the losers'
  side's team wins it, both have lost once, and a second final decides.

A bye or a disqualified team is *absent*: a match with one absent team is won by the other
without play (a bye, or a forfeit), and a match of two absent teams sends an absent team on.
Byes are fixed by the number of teams alone, so every match has a *wave*: the round of play
in which it can be played at the earliest, once every match it depends on has been played.
Playing wave by wave, every match's teams are known when it is played.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from dealer_station.tournament.errors import TournamentError

#: The team in a slot that no team fills.
BYE = ""
FINAL = "F1"
SECOND_FINAL = "F2"


class Side(StrEnum):
    WINNERS = "winners"
    LOSERS = "losers"
    FINAL = "final"


class Status(StrEnum):
    WAITING = "waiting"     # a team is not known yet
    READY = "ready"         # both teams known: to be played
    PLAYED = "played"
    BYE = "bye"             # one team (or none) is a bye: no play
    FORFEIT = "forfeit"     # a disqualified team: the other wins without play
    VOID = "void"           # the second final, when the first final's favourite won it


@dataclass(frozen=True, slots=True)
class Source:
    kind: Literal["seed", "winner", "loser"]
    ref: str                 # a seed number as text, or a match id


@dataclass(frozen=True, slots=True)
class MatchSpec:
    id: str                  # W1-1, L2-3, F1, F2
    side: Side
    round: int               # the round of its side
    a: Source
    b: Source


@dataclass(frozen=True, slots=True)
class MatchView:
    """A match as the director's screen and the printed bracket show it."""

    id: str
    side: Side
    round: int
    wave: int
    teams: tuple[str | None, str | None]   # None: not known yet; BYE: nobody
    status: Status
    winner: str | None
    loser: str | None


def seed_positions(size: int) -> list[int]:
    """Seeds in bracket order: 1, 8, 4, 5, 2, 7, 3, 6 for 8."""
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def bracket_size(teams: int) -> int:
    size = 1
    while size < teams:
        size *= 2
    return max(size, 2)


def build(size: int) -> tuple[MatchSpec, ...]:
    """Every match of a bracket of ``size`` (a power of two), each after those it needs."""
    k = size.bit_length() - 1
    specs: list[MatchSpec] = []
    positions = seed_positions(size)
    wb: list[list[str]] = []
    current = []
    for i in range(size // 2):
        mid = f"W1-{i + 1}"
        specs.append(MatchSpec(mid, Side.WINNERS, 1, Source("seed", str(positions[2 * i])),
                               Source("seed", str(positions[2 * i + 1]))))
        current.append(mid)
    wb.append(current)
    for r in range(2, k + 1):
        prev = wb[-1]
        current = []
        for i in range(len(prev) // 2):
            mid = f"W{r}-{i + 1}"
            specs.append(MatchSpec(mid, Side.WINNERS, r, Source("winner", prev[2 * i]),
                                   Source("winner", prev[2 * i + 1])))
            current.append(mid)
        wb.append(current)
    wb_final = wb[-1][0]
    if k == 1:
        lb_champion = Source("loser", wb_final)
    else:
        lr = 1
        survivors: list[Source] = []
        for i in range(len(wb[0]) // 2):
            mid = f"L1-{i + 1}"
            specs.append(MatchSpec(mid, Side.LOSERS, 1, Source("loser", wb[0][2 * i]),
                                   Source("loser", wb[0][2 * i + 1])))
            survivors.append(Source("winner", mid))
        for j in range(2, k + 1):
            lr += 1
            dropping = [Source("loser", m) for m in wb[j - 1]]
            if j % 2 == 0:
                dropping.reverse()
            nxt = []
            for i, (s, d) in enumerate(zip(survivors, dropping, strict=True)):
                mid = f"L{lr}-{i + 1}"
                specs.append(MatchSpec(mid, Side.LOSERS, lr, d, s))
                nxt.append(Source("winner", mid))
            survivors = nxt
            if j < k:
                lr += 1
                nxt = []
                for i in range(len(survivors) // 2):
                    mid = f"L{lr}-{i + 1}"
                    specs.append(MatchSpec(mid, Side.LOSERS, lr, survivors[2 * i],
                                           survivors[2 * i + 1]))
                    nxt.append(Source("winner", mid))
                survivors = nxt
        (lb_champion,) = survivors
    specs.append(MatchSpec(FINAL, Side.FINAL, 1, Source("winner", wb_final), lb_champion))
    specs.append(MatchSpec(SECOND_FINAL, Side.FINAL, 2, Source("winner", wb_final),
                           lb_champion))
    return tuple(specs)


class Bracket:
    """The bracket of ``teams`` (seed 1 first) and the results played so far."""

    def __init__(self, teams: Sequence[str]) -> None:
        if len(teams) < 2:
            raise TournamentError(f"a double-elimination bracket needs at least 2 teams, "
                                  f"got {len(teams)}")
        if len(set(teams)) != len(teams) or BYE in teams:
            raise TournamentError("every team in the bracket needs its own non-empty name")
        self.teams = tuple(teams)
        self.size = bracket_size(len(teams))
        self.specs = build(self.size)
        self.by_id: Mapping[str, MatchSpec] = {s.id: s for s in self.specs}
        self.results: dict[str, str] = {}        # match -> winner, for matches played
        self.out: set[str] = set()               # disqualified teams
        self._waves = self._compute_waves()
        # Resolved slots and winners, cleared on every change (a deep losers' match asks
        # the same earlier matches many times).
        self._teams: dict[str, tuple[str | None, str | None]] = {}
        self._winners: dict[str, str | None] = {}

    def record(self, mid: str, winner: str) -> None:
        """A match's result (new or corrected); the caller has verified it."""
        self.results[mid] = winner
        self._changed()

    def disqualify(self, team: str) -> None:
        self.out.add(team)
        self._changed()

    def _changed(self) -> None:
        self._teams.clear()
        self._winners.clear()

    # -- resolving slots ---------------------------------------------------------------------

    def absent(self, team: str) -> bool:
        return team == BYE or team in self.out

    def _slot(self, source: Source) -> str | None:
        if source.kind == "seed":
            seed = int(source.ref)
            return self.teams[seed - 1] if seed <= len(self.teams) else BYE
        if source.kind == "winner":
            return self.winner(source.ref)
        return self.loser(source.ref)

    def teams_of(self, mid: str) -> tuple[str | None, str | None]:
        known = self._teams.get(mid)
        if known is None:
            spec = self.spec(mid)
            if mid == SECOND_FINAL and not self.second_final_needed():
                known = (None, None)
            else:
                known = (self._slot(spec.a), self._slot(spec.b))
            self._teams[mid] = known
        return known

    def second_final_needed(self) -> bool:
        """The losers' side's team won the first final: both have lost once."""
        a, b = self._slot(self.by_id[FINAL].a), self._slot(self.by_id[FINAL].b)
        w = self.winner(FINAL)
        return w is not None and w != BYE and w == b and a is not None and not self.absent(a)

    def winner(self, mid: str) -> str | None:
        if mid not in self._winners:
            self._winners[mid] = self._winner(mid)
        return self._winners[mid]

    def _winner(self, mid: str) -> str | None:
        if mid in self.results:
            return self.results[mid]
        if mid == SECOND_FINAL and self.winner(FINAL) is not None \
                and not self.second_final_needed():
            return self.winner(FINAL)
        a, b = self.teams_of(mid)
        if a is None or b is None:
            return None
        if self.absent(a) and self.absent(b):
            return BYE
        if self.absent(a):
            return b
        if self.absent(b):
            return a
        return None

    def loser(self, mid: str) -> str | None:
        w = self.winner(mid)
        if w is None:
            return None
        a, b = self.teams_of(mid)
        if w == BYE or a is None or b is None:
            return BYE
        return b if w == a else a

    def status(self, mid: str) -> Status:
        if mid in self.results:
            return Status.PLAYED
        if mid == SECOND_FINAL and self.winner(FINAL) is not None \
                and not self.second_final_needed():
            return Status.VOID
        a, b = self.teams_of(mid)
        if a is None or b is None:
            return Status.WAITING
        if a == BYE or b == BYE:
            return Status.BYE
        if self.absent(a) or self.absent(b):
            return Status.FORFEIT
        return Status.READY

    def champion(self) -> str | None:
        """The tournament's winner once it is decided (BYE if every finalist was
        disqualified)."""
        return self.winner(SECOND_FINAL)

    # -- playing -----------------------------------------------------------------------------

    def spec(self, mid: str) -> MatchSpec:
        spec = self.by_id.get(mid)
        if spec is None:
            raise TournamentError(f"there is no match {mid!r} in this bracket (matches are "
                                  f"named like W1-1, L2-1, F1, F2)")
        return spec

    def verify_play(self, mid: str, winner: str) -> None:
        status = self.status(mid)
        if status is Status.PLAYED:
            raise TournamentError(f"match {mid} already has its result: enter a correction "
                                  f"to change it")
        if status is not Status.READY:
            raise TournamentError(f"match {mid} cannot be played: it is {status.value}")
        if winner not in self.teams_of(mid):
            a, b = self.teams_of(mid)
            raise TournamentError(f"{winner} does not play in match {mid} ({a} v {b})")

    def dependents(self, mid: str) -> Iterator[str]:
        for s in self.specs:
            if mid in (s.a.ref, s.b.ref) and s.a.kind != "seed":
                yield s.id
        if mid == FINAL:
            yield SECOND_FINAL

    def verify_correct(self, mid: str, winner: str) -> None:
        if mid not in self.results:
            raise TournamentError(f"match {mid} has no result to correct")
        played = [d for d in self.dependents(mid) if d in self.results]
        if played:
            raise TournamentError(f"match {mid} cannot be corrected: match {played[0]} that "
                                  f"follows from it has been played")
        if winner not in self.teams_of(mid):
            raise TournamentError(f"{winner} did not play in match {mid}")

    # -- waves: the order of play ------------------------------------------------------------

    def _structural_bye(self, source: Source, memo: dict[str, bool]) -> bool:
        """Whether a slot holds a bye whatever the results (byes depend on the count only)."""
        if source.kind == "seed":
            return int(source.ref) > len(self.teams)
        a, b = (self._structural_bye(s, memo) for s in (self.by_id[source.ref].a,
                                                          self.by_id[source.ref].b))
        return (a and b) if source.kind == "winner" else (a or b)

    def _compute_waves(self) -> dict[str, int]:
        memo: dict[str, bool] = {}
        waves: dict[str, int] = {}
        for s in self.specs:
            if s.id == SECOND_FINAL:
                waves[s.id] = waves[FINAL] + 1
                continue
            before = [waves[src.ref] for src in (s.a, s.b) if src.kind != "seed"]
            if self._structural_bye(s.a, memo) or self._structural_bye(s.b, memo):
                # Not played: its team is known once the match it comes from is.
                waves[s.id] = max(before, default=0)
                continue
            waves[s.id] = 1 + max(before, default=0)
        return waves

    def wave(self, mid: str) -> int:
        """The round of play a match belongs to (for a bye, never played: the round after
        which its team is known; 0 for a bye of winners' round 1)."""
        return self._waves[mid]

    def views(self) -> tuple[MatchView, ...]:
        out = []
        for s in self.specs:
            out.append(MatchView(s.id, s.side, s.round, self._waves[s.id], self.teams_of(s.id),
                                 self.status(s.id), self.winner(s.id), self.loser(s.id)))
        return tuple(out)

    def ready(self) -> tuple[str, ...]:
        """Matches to play now, earliest wave first."""
        ids = [s.id for s in self.specs if self.status(s.id) is Status.READY]
        return tuple(sorted(ids, key=lambda m: (self._waves[m], self.specs.index(
            self.by_id[m]))))

    def byes(self, team: str, sides: Collection[Side] = tuple(Side)) -> int:
        """How many byes ``team`` received (on the given sides)."""
        return sum(1 for v in self.views() if v.status is Status.BYE and v.side in sides
                   and team in v.teams)
