"""A table's rounds as the game-protection monitor reads them (dealer_station/monitor/), from
the journal, in order.

Each record is read as its game's typed event (the registry's ``events`` part: the game's
own codec), never as a raw payload. This module is shared by every game and so names none of
their event classes: it reads the fields the monitor needs by the shape the events declare
(:class:`PlacesWager`, :class:`RemovesWager`, :class:`DealsCard`; an opening's ``dealer``; a
close's ``CLOSES``). A pot game's hands (Bourré's) are read by the hand reader it delegates
to (dealer_station/table/monitor_hands.py), which gives them as
:class:`~dealer_station.monitor.hands.PlayedHand`.

A voided round is read with the cards it dealt; a round still open at the end is left out
(the monitor reads it once it ends).

A banked game's round also carries its money (the dealer and hold rules): the wagered total,
the computed house win and the theoretical win from its closing meters, and the exact law of
its house win given the wagers placed, from the game's ``round_law`` part and the
configuration version the round was opened under (its content from the chain's
``config.change`` records as they are read, else from the journal's configuration versions
when the reader has the journal). A round whose law is not known is read without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from dealer_station import registry as games
from dealer_station.errors import StationError
from dealer_station.events import Codec, Committed
from dealer_station.events.parts import EVENTS
from dealer_station.events.rows import closing_theoretical, opening
from dealer_station.events.table import ConfigChanged
from dealer_station.monitor.hands import PlayedHand
from dealer_station.monitor.rounds import DealtRound, SeatWager, WinLaw
from dealer_station.table.event_shapes import Shapes
from dealer_station.table.monitor_hands import HandReader
from dealer_station.table.parts import ROUND_LAW, RoundLaws, StakedWager, WinLawCounts

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.records import Record


@runtime_checkable
class PlacesWager(Protocol):
    """A wager placed on a spot: ``values`` are the values the spot names."""

    wager_id: int
    seat: int
    bet: str
    values: tuple[str, ...]
    amount: int


@runtime_checkable
class RemovesWager(Protocol):
    """A wager taken back before betting closed."""

    wager_id: int


@runtime_checkable
class DealsCard(Protocol):
    """Card ``n`` of the round (from a device, keyed in, or a supervisor's correction)."""

    n: int
    card: str
    source: str


@dataclass
class _Open:
    round_no: int
    dealer: str
    config_version: str
    ts: str
    codec: Codec
    jokers: int
    laws: RoundLaws | None = None
    wagers: dict[int, SeatWager] = field(default_factory=dict)
    cards: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MonitoredRound:
    """A round for the monitor (a pot game's hand: a PlayedHand), with when it opened and
    its configuration version (the table's money)."""

    round: DealtRound | PlayedHand
    opened: str
    config_version: str

    @property
    def opened_at(self) -> datetime:
        return datetime.fromisoformat(self.opened)


#: What each event class is to the monitor (a wager placed or taken back, a card, a close,
#: or nothing), found once per class: a Protocol's isinstance is slow, and it runs per record.
_PLACES, _REMOVES, _DEALS, _CLOSES, _OTHER = range(5)
_SHAPES = Shapes([(_PLACES, PlacesWager), (_DEALS, DealsCard), (_REMOVES, RemovesWager)],
                 _OTHER)


def _role(event: object) -> int:
    role = _SHAPES.of(event)
    # Every event class has CLOSES (empty unless it closes a round): asked of the class.
    closes = role == _OTHER and bool(getattr(type(event), "CLOSES", ""))
    return _CLOSES if closes else role


class RoundReader:
    """A table's rounds read one record at a time, in the chain's order: each round is given
    back once its close is read. The journal's reader and the live table share it."""

    def __init__(self, table_id: str, journal: Journal | None = None) -> None:
        self.table_id = table_id
        #: Where a configuration version's content is found when the reader has not read
        #: its ``config.change`` (a reading that starts mid-chain).
        self.journal = journal
        self._codecs: dict[str, tuple[Codec, int, RoundLaws | None]] = {}
        self._open: dict[int, _Open] = {}
        self._contents: dict[str, Mapping[str, Any]] = {}
        self._laws: dict[tuple[int, str], Callable[[Sequence[StakedWager], int],
                                                   WinLawCounts | None] | None] = {}
        #: A pot game's hands are read by their own reader.
        self.hands = HandReader(table_id)

    def _opened(self, round_no: int, kind: str, payload: Mapping[str, Any], ts: str) -> bool:
        opened = opening(kind, payload)
        if opened is None:
            return False
        found = self._codecs.get(opened.game)
        if found is None:
            game = games.game(opened.game)
            found = self._codecs[opened.game] = (game.part(EVENTS)(), game.deck.jokers,
                                                 game.supplies(ROUND_LAW))
        self._open[round_no] = _Open(round_no, opened.dealer, opened.config_version, ts,
                                     *found)
        return True

    def record(self, r: Record) -> MonitoredRound | None:
        """A stored record; the round it closes, if it closes one."""
        if r.kind == ConfigChanged.KIND:
            self._config(r.payload.get("version"), r.payload.get("content"))
        if r.round_no is None:
            self.hands.outside_record(r.kind, r.payload)
            return None
        opens = self._opened(r.round_no, r.kind, r.payload, r.ts)
        rnd = self._open.get(r.round_no)
        if rnd is None:
            return None         # a record of a round opened before the reading started
        event = rnd.codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind,
                                    r.payload).event
        if opens:
            self.hands.opened(r.round_no, event)
            return None
        return self._event(rnd, event)

    def committed(self, c: Committed) -> MonitoredRound | None:
        """A live table's committed event; the round it closes, if it closes one."""
        e = c.event
        if isinstance(e, ConfigChanged):
            self._config(e.version, e.content)
        if c.round_no is None:
            self.hands.outside(e)
            return None
        if e.OPENS and self._opened(c.round_no, e.KIND, e.to_payload(), c.ts):
            self.hands.opened(c.round_no, e)
            return None
        rnd = self._open.get(c.round_no)
        return None if rnd is None else self._event(rnd, e)

    def _event(self, rnd: _Open, event: object) -> MonitoredRound | None:
        role = _role(event)
        # The role says the event's shape (an isinstance against a Protocol is slow).
        if role == _PLACES:
            event = cast(PlacesWager, event)
            rnd.wagers[event.wager_id] = SeatWager(event.seat, event.bet, tuple(event.values),
                                                   event.amount)
        elif role == _DEALS:
            event = cast(DealsCard, event)
            rnd.cards[event.n] = event.card
        elif role == _REMOVES:
            event = cast(RemovesWager, event)
            rnd.wagers.pop(event.wager_id, None)
        elif role == _CLOSES:
            del self._open[rnd.round_no]
            hand = self.hands.event(rnd.round_no, event,
                                    closes=getattr(type(event), "CLOSES", ""))
            if hand is not None:
                return MonitoredRound(hand, rnd.ts, rnd.config_version)
            if not (rnd.cards or rnd.wagers):
                return None
            cards = tuple(rnd.cards[n] for n in sorted(rnd.cards))
            wagered, win, theoretical = _money(event)
            law = (self._law(rnd, len(cards)) if win is not None and rnd.laws is not None
                   else None)
            return MonitoredRound(
                DealtRound(self.table_id, rnd.round_no, rnd.dealer or None, cards,
                           tuple(rnd.wagers.values()), rnd.jokers, wagered, win,
                           theoretical, law),
                rnd.ts, rnd.config_version)
        else:
            self.hands.event(rnd.round_no, event)
        return None

    def _config(self, version: object, content: object) -> None:
        if isinstance(version, str) and isinstance(content, Mapping):
            self._contents[version] = content

    def _content(self, version: str) -> Mapping[str, Any] | None:
        found = self._contents.get(version)
        if found is None and self.journal is not None:
            for cv in self.journal.config_versions(self.table_id):
                self._contents.setdefault(cv.version, cv.content)
            found = self._contents.get(version)
        return found

    def _law(self, rnd: _Open, cards: int) -> WinLaw | None:
        """The law of the round's house win (None where it is not known)."""
        assert rnd.laws is not None
        key = (id(rnd.laws), rnd.config_version)
        if key not in self._laws:
            content = self._content(rnd.config_version)
            try:
                self._laws[key] = None if content is None else rnd.laws(content)
            except (StationError, ValueError, KeyError, TypeError):
                self._laws[key] = None      # a content the game cannot read: no law
        laws = self._laws[key]
        if laws is None:
            return None
        counts = laws([(w.kind, w.values, w.amount) for w in rnd.wagers.values()], cards)
        if counts is None:
            return None
        values, numbers, total = counts
        return WinLaw(values, tuple(n / total for n in numbers))


def _money(event: object) -> tuple[int, int | None, float | None]:
    """A closing event's total meter: (wagered, computed house win, theoretical win); the
    win None where the close carries no meters (a game the house does not bank)."""
    meters = getattr(event, "meters", None)
    total = meters.get("total") if isinstance(meters, Mapping) else None
    if not isinstance(total, Mapping):
        return 0, None, None
    wagered, win = total.get("wagered"), total.get("house_win")
    if type(wagered) is not int or type(win) is not int:
        return 0, None, None
    theo = closing_theoretical(total)
    return wagered, win, None if theo is None else theo[0] / theo[1]


def monitor_rounds(journal: Journal, table_id: str, *, since: datetime | None = None,
                   until: datetime | None = None, from_seq: int = 1
                   ) -> Iterator[MonitoredRound]:
    """The table's finished rounds in the order they ended, each read from its records;
    with ``since``/``until`` only those opened in ``[since, until)``; from record
    ``from_seq`` on (a round opened before it is passed over)."""
    reader = RoundReader(table_id, journal)
    for r in journal.records(table_id, from_seq=from_seq):
        read = reader.record(r)
        if read is not None and _within(read.opened, since, until):
            yield read


def _within(ts: str, since: datetime | None, until: datetime | None) -> bool:
    if since is None and until is None:
        return True
    moment = datetime.fromisoformat(ts)
    return (since is None or moment >= since) and (until is None or moment < until)
