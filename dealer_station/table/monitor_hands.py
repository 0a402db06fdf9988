"""A pot game's hands as the game-protection monitor reads them (Bourré's: who sat in, the
deal by seat, who stayed and who folded in order, who took the pot, who was bourréd, who
reneged): :class:`~dealer_station.monitor.hands.PlayedHand`.

:class:`~dealer_station.table.monitor_rounds.RoundReader` hands this reader every typed
event of a table, read by its game's own codec, in the chain's order. Shared by every game,
it names none of their event classes: it reads the fields it needs by the shape the events
declare (the Protocols below). A round whose opening is not a hand's (:class:`OpensHand`: a
dealer's seat, the seats dealt in, a session) is none of its business.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from dealer_station import registry as games
from dealer_station.errors import StationError
from dealer_station.events import Codec
from dealer_station.events.parts import EVENTS
from dealer_station.monitor.hands import PlayedHand
from dealer_station.table.event_shapes import Shapes


@runtime_checkable
class SeatsPlayers(Protocol):
    """A session's opening: who sits at each seat (seat as text -> player)."""

    session_id: str
    players: Mapping[str, Any]
    first_dealer: int


@runtime_checkable
class OpensHand(Protocol):
    """A hand's opening: the dealer, the seat that deals, the seats dealt in."""

    dealer: str
    dealer_seat: int
    seats: tuple[int, ...]
    session_id: str


@runtime_checkable
class DealsToSeat(Protocol):
    """A card to a seat: ``phase`` ``deal`` (the first five) or the draw."""

    seat: int
    card: str
    phase: str


@runtime_checkable
class Decides(Protocol):
    """A player stays or folds."""

    seat: int
    stay: bool


@runtime_checkable
class RenegesAt(Protocol):
    """A renege by the player at ``seat``."""

    seat: int
    trick: int
    penalised: bool
    stands: bool


@runtime_checkable
class ClosesHand(Protocol):
    """A hand's close: who stayed, who took the pot (a seat as text, or None), who was
    bourréd, the trump suit, the pot played for."""

    stayers: tuple[str, ...]
    winner: str | None
    bourre: tuple[str, ...]
    trump: str | None
    pot_end: int
    dead: bool


#: What each event class is to the hand reader, found once per class (a Protocol's
#: isinstance is slow, and it runs per record).
_DEAL, _DECIDE, _RENEGE, _CLOSE, _OTHER = range(5)
_SHAPES = Shapes([(_DEAL, DealsToSeat), (_DECIDE, Decides), (_RENEGE, RenegesAt),
                  (_CLOSE, ClosesHand)], _OTHER)


@dataclass
class _Hand:
    round_no: int
    dealer: str
    dealer_seat: int
    seats: tuple[int, ...]
    session: str
    deal: list[tuple[int, str]] = field(default_factory=list)
    decisions: list[tuple[int, bool]] = field(default_factory=list)
    reneges: list[int] = field(default_factory=list)


def _seat(text: str | None) -> int | None:
    return int(text) if text is not None and str(text).isdigit() else None


class HandReader:
    """A table's hands, read one typed event at a time (RoundReader delegates to it)."""

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self._open: dict[int, _Hand] = {}
        #: Each session's players, by seat, as its opening said.
        self._players: dict[str, tuple[tuple[int, str], ...]] = {}
        self._codecs: dict[str, Codec] = {}

    def outside(self, event: object) -> None:
        """An event outside any round (a session's opening says who sits where)."""
        if isinstance(event, SeatsPlayers):
            self._players[event.session_id] = tuple(sorted(
                (int(s), str(p)) for s, p in event.players.items() if str(s).isdigit()))

    def outside_record(self, kind: str, payload: Mapping[str, Any]) -> None:
        """A stored record outside any round: read by its game's codec when it names its
        game (a session's opening does), else passed over."""
        game = payload.get("game")
        if not isinstance(game, str) or not game:
            return
        codec = self._codecs.get(game)
        if codec is None:
            try:
                codec = self._codecs[game] = games.game(game).part(EVENTS)()
            except StationError:    # not a game this station plays: nothing to read
                return
        self.outside(codec.decode(kind, payload))

    def opened(self, round_no: int, event: object) -> None:
        """A round's opening; a hand's is kept until its close."""
        if isinstance(event, OpensHand):
            self._open[round_no] = _Hand(round_no, event.dealer, event.dealer_seat,
                                         tuple(event.seats), event.session_id)

    def event(self, round_no: int, event: object, closes: str = "") -> PlayedHand | None:
        """An event of round ``round_no`` (``closes``: the status it closes the round with,
        if it does); the hand it ends, if it ends one."""
        hand = self._open.get(round_no)
        if hand is None:
            return None
        role = _SHAPES.of(event)
        if role == _DEAL:
            assert isinstance(event, DealsToSeat)
            if event.phase == "deal":
                hand.deal.append((event.seat, event.card))
        elif role == _DECIDE:
            assert isinstance(event, Decides)
            hand.decisions.append((event.seat, event.stay))
        elif role == _RENEGE:
            assert isinstance(event, RenegesAt)
            hand.reneges.append(event.seat)
        if not closes:
            return None
        del self._open[round_no]
        close = event if role == _CLOSE else None
        assert close is None or isinstance(close, ClosesHand)
        done = len(hand.deal) == 5 * len(hand.seats)
        return PlayedHand(
            table=self.table_id, hand_no=round_no, dealer=hand.dealer or None,
            dealer_seat=hand.dealer_seat, session=hand.session, seats=hand.seats,
            players=self._players.get(hand.session, ()), deal=tuple(hand.deal),
            trump_card=hand.deal[-1][1] if done else None,
            trump=close.trump if close is not None else None,
            decisions=tuple(hand.decisions),
            winner=_seat(close.winner) if close is not None and not close.dead else None,
            pot=close.pot_end if close is not None else 0,
            bourre=tuple(s for s in (_seat(b) for b in (close.bourre if close else ()))
                         if s is not None),
            reneges=tuple(hand.reneges), voided=close is None)
