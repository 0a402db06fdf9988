"""A table's shifts as the dealer-variances test reads them (dealer_station/monitor/tray.py):
each shift's dealers (the rounds each dealt) and its variance, the count room's statistical
win less the computed win of the rounds that closed in it (the master game report's figures,
from the same pure accounting: :func:`~dealer_station.accounting.shifts.shift_rows`).

A shift whose statistical win is not known yet (its drop not counted, the tray not closed) or
in which no round closed is left out. A game without a ``wins`` part (a pot game) gives none.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from dealer_station.accounting.figures import Play
from dealer_station.accounting.shifts import shift_rows
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.tray import ShiftTally
from dealer_station.table.accounting import table_ledger, table_wins

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


def shift_tallies(journal: Journal, table: str, calendar: GamingCalendar,
                  days: tuple[date, date] | None = None) -> list[ShiftTally]:
    """The table's shifts (of the gaming days ``days``, both included; None: every day its
    tray was counted), in order."""
    wins = table_wins(journal, table)
    if wins is None:
        return []
    ledger = table_ledger(journal, table)
    out: list[ShiftTally] = []
    for d in sorted(ledger.days):
        if days is not None and not days[0] <= d <= days[1]:
            continue
        span = calendar.day(d)
        computed: dict[str, int] = {}
        dealt: dict[str, dict[str, int]] = {}
        for w in wins(journal, table, span.start, span.end):
            day, shift = calendar.shift_of(datetime.fromisoformat(w.closed))
            if day != d:
                continue
            computed[shift.name] = computed.get(shift.name, 0) + w.computed_win
            by_dealer = dealt.setdefault(shift.name, {})
            by_dealer[w.dealer] = by_dealer.get(w.dealer, 0) + 1
        for row in shift_rows(table, ledger, d, calendar):
            name = row.shift or ""
            if name not in dealt:
                continue
            row.play = Play(computed_win=computed[name])
            variance = row.variance
            if variance is not None:
                out.append(ShiftTally(d, name, dealt[name], variance))
    return out
