"""A table's rounds as the game-protection monitor reads them (dealer_station/monitor/), from
the journal, in order.

Each record is read as its game's typed event (the registry's ``events`` part: the game's
own codec), never as a raw payload. This module is shared by every game and so names none of
their event classes: it reads the fields the monitor needs by the shape the events declare
(:class:`PlacesWager`, :class:`RemovesWager`, :class:`DealsCard`; an opening's ``dealer``; a
close's ``CLOSES``). A game whose rounds have no numbered cards or spot wagers (Bourré's
hands) gives the monitor nothing to read and is passed over.

A voided round is read with the cards it dealt; a round still open at the end is left out
(the monitor reads it once it ends).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from dealer_station import registry as games
from dealer_station.events import Codec
from dealer_station.events.parts import EVENTS
from dealer_station.events.rows import opening
from dealer_station.monitor.rounds import DealtRound, SeatWager

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


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
    wagers: dict[int, SeatWager] = field(default_factory=dict)
    cards: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MonitoredRound:
    """A round for the monitor, with when it opened and its configuration version (the
    table's money)."""

    round: DealtRound
    opened: str
    config_version: str


def monitor_rounds(journal: Journal, table_id: str, *, since: datetime | None = None,
                   until: datetime | None = None) -> Iterator[MonitoredRound]:
    """The table's finished rounds in the order they ended, each read from its records;
    with ``since``/``until`` only those opened in ``[since, until)``."""
    codecs: dict[str, tuple[Codec, int]] = {}
    open_rounds: dict[int, _Open] = {}
    for r in journal.records(table_id):
        if r.round_no is None:
            continue
        opened = opening(r.kind, r.payload)
        if opened is not None:
            found = codecs.get(opened.game)
            if found is None:
                game = games.game(opened.game)
                found = codecs[opened.game] = (game.part(EVENTS)(), game.deck.jokers)
            open_rounds[r.round_no] = _Open(r.round_no, opened.dealer, opened.config_version,
                                            r.ts, *found)
            continue
        rnd = open_rounds.get(r.round_no)
        if rnd is None:
            continue            # a record of a round opened before the journal's start
        event = rnd.codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind,
                                    r.payload).event
        if isinstance(event, PlacesWager):
            rnd.wagers[event.wager_id] = SeatWager(event.seat, event.bet, tuple(event.values),
                                                   event.amount)
        elif isinstance(event, DealsCard):
            rnd.cards[event.n] = event.card
        elif isinstance(event, RemovesWager):
            rnd.wagers.pop(event.wager_id, None)
        elif type(event).CLOSES:
            del open_rounds[r.round_no]
            if not (rnd.cards or rnd.wagers) or not _within(rnd.ts, since, until):
                continue
            cards = tuple(rnd.cards[n] for n in sorted(rnd.cards))
            yield MonitoredRound(
                DealtRound(table_id, rnd.round_no, rnd.dealer or None, cards,
                           tuple(rnd.wagers.values()), rnd.jokers),
                rnd.ts, rnd.config_version)


def _within(ts: str, since: datetime | None, until: datetime | None) -> bool:
    if since is None and until is None:
        return True
    moment = datetime.fromisoformat(ts)
    return (since is None or moment >= since) and (until is None or moment < until)
