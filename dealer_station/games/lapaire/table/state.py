"""A La Pair'e table's state as its journal's events build it: the configuration in force (and
an operator's change waiting for the next round), the round under way, the round just closed.

:meth:`LaPaireState.apply` is the only code that changes it: the live table applies each event
it has just committed, recovery applies an open round's records, and a test can apply a whole
journal to a fresh state and find the live one (tests/test_apply_rebuilds.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dealer_station.events import Committed
from dealer_station.events.table import ConfigChanged
from dealer_station.games.lapaire.events import RoundClosed, RoundOpened, RoundVoided
from dealer_station.games.lapaire.rules.config import LaPaireConfig, parse_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.table.rounds import (
    GAME,
    RebuiltRound,
    apply_round,
    open_round,
    results_payload,
)

#: Finds a configuration version the events do not carry (journals from before the content
#: was chained): the journal's configuration table, checked against its hash.
ConfigLookup = Callable[[str], LaPaireConfig]


class LaPaireState:
    def __init__(self, config: LaPaireConfig, version: str, lookup: ConfigLookup) -> None:
        self.config = config
        self.version = version
        self.pending: tuple[LaPaireConfig, str] | None = None
        self.current: RebuiltRound | None = None
        self.last_closed: RebuiltRound | None = None
        self.last_round_no: int | None = None
        #: Each seat's wagers from the last round it played (what a rebet places again).
        self.seat_last: dict[int, tuple[Wager, ...]] = {}
        self._known: dict[str, LaPaireConfig] = {version: config} if version else {}
        self._lookup = lookup

    def config_for(self, version: str) -> LaPaireConfig:
        found = self._known.get(version)
        if found is None:
            found = self._known[version] = self._lookup(version)
        return found

    def apply(self, c: Committed) -> None:
        e = c.event
        if isinstance(e, ConfigChanged):
            if e.game != GAME:
                return
            config = (parse_lapaire_config(dict(e.content), "<journal>")
                      if e.content is not None else self.config_for(e.version))
            self._known[e.version] = config
            if e.version == self.version:
                self.pending = None
            elif self.current is None:
                self.config, self.version, self.pending = config, e.version, None
            else:
                self.pending = (config, e.version)      # in force from the next round
        elif isinstance(e, RoundOpened):
            if self.pending is not None and self.pending[1] == e.config_version:
                self.config, self.version = self.pending
                self.pending = None
            self.current = open_round(c, self.config_for(e.config_version))
            self.last_round_no = self.current.round_no
            apply_round(self.current, c)
        elif self.current is not None and c.round_no == self.current.round_no:
            apply_round(self.current, c)
            if isinstance(e, RoundClosed | RoundVoided):
                self.remember_seats(self.current)
                self.current, self.last_closed = None, self.current

    def remember_seats(self, rb: RebuiltRound) -> None:
        """The wagers each seat had when round ``rb`` ended become its last round's: First
        Card wagers first (an optional wager needs one), each in the order it was placed."""
        by_seat: dict[int, list[tuple[bool, int, Wager]]] = {}
        for wager_id, w in rb.engine.wagers.items():
            by_seat.setdefault(w.seat, []).append((not w.is_first_card, wager_id, w))
        for seat, rows in by_seat.items():
            self.seat_last[seat] = tuple(w for _, _, w in sorted(rows))

    def snapshot(self) -> dict[str, Any]:
        """Everything the state holds, as plain data (to compare two states)."""
        return {"version": self.version, "pending": self.pending[1] if self.pending else None,
                "last_round_no": self.last_round_no,
                "seat_last": {seat: [(w.bet, w.values, w.amount) for w in ws]
                              for seat, ws in sorted(self.seat_last.items())},
                "current": _round(self.current), "last_closed": _round(self.last_closed)}


def _round(rb: RebuiltRound | None) -> dict[str, Any] | None:
    if rb is None:
        return None
    engine = rb.engine
    return {
        "round_no": rb.round_no, "config_version": rb.config_version, "dealer": rb.dealer,
        "status": rb.status, "betting_open": engine.betting_open,
        "wagers": {i: (w.seat, w.bet, w.values, w.amount) for i, w in engine.wagers.items()},
        "results": results_payload(engine.results),
        "cards": [c.code for c in engine.cards], "recorded_cards": rb.cards,
        "stages": {n: results_payload(s.results) for n, s in rb.stages.items()},
        "recorded": rb.recorded, "confirmed": sorted(rb.confirmed),
        "void_reason": rb.void_reason, "close": rb.close,
        "halted": rb.halted.seq if rb.halted else None, "actors": rb.wager_actors,
        "differences": rb.differences,
    }
