"""A table's shifts as the tray rule reads them (dealer_station/monitor/tray.py): each shift's
dealers (the rounds each dealt) and its variance, the count room's statistical win less the
computed win of the rounds that closed in it (the master game report's figures, from the same
pure accounting: :func:`~dealer_station.accounting.shifts.shift_rows`); and the rule run over
them, live when the count room counts a day's last shift, or over a whole journal.

A shift whose statistical win is not known yet (its drop not counted, the tray not closed) or
in which no round closed is left out. A game without a ``wins`` part (a pot game) gives none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from dealer_station.accounting.figures import Play
from dealer_station.accounting.shifts import shift_rows
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.tray import ShiftTally, TrayPoint, TrayRule
from dealer_station.table.accounting import table_ledger, table_wins

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal
    from dealer_station.events.table import ProtectionAlerted
    from dealer_station.monitor.alerts import Alert
    from dealer_station.monitor.settings import MonitorSettings


@dataclass(frozen=True)
class Shifts:
    """The table's shifts with a known variance, and the gaming days whose every shift with
    rounds is counted (the days the tray rule looks at), with when the last of their counts
    was journaled."""

    tallies: list[ShiftTally]
    counted: list[date]
    counted_at: dict[date, str] = field(default_factory=dict)


def read_shifts(journal: Journal, table: str, calendar: GamingCalendar,
                days: tuple[date, date] | None = None) -> Shifts:
    """The table's shifts (of the gaming days ``days``, both included; None: every day its
    tray was counted), in order."""
    wins = table_wins(journal, table)
    if wins is None:
        return Shifts([], [])
    ledger = table_ledger(journal, table)
    out: list[ShiftTally] = []
    counted: list[date] = []
    counted_at: dict[date, str] = {}
    for d in sorted(ledger.days):
        if days is not None and not days[0] <= d <= days[1]:
            continue
        span = calendar.day(d)
        computed: dict[str, int] = {}
        dealt: dict[str, dict[str, int]] = {}
        rounds: dict[str, list[int]] = {}
        for w in wins(journal, table, span.start, span.end):
            day, shift = calendar.shift_of(datetime.fromisoformat(w.closed))
            if day != d:
                continue
            computed[shift.name] = computed.get(shift.name, 0) + w.computed_win
            by_dealer = dealt.setdefault(shift.name, {})
            by_dealer[w.dealer] = by_dealer.get(w.dealer, 0) + 1
            rounds.setdefault(shift.name, []).append(w.round_no)
        known = 0
        for row in shift_rows(table, ledger, d, calendar):
            name = row.shift or ""
            if name not in dealt:
                continue
            row.play = Play(computed_win=computed[name])
            variance = row.variance
            if variance is not None:
                known += 1
                out.append(ShiftTally(d, name, dealt[name], variance, min(rounds[name]),
                                      max(rounds[name])))
        if dealt and known == len(dealt):
            counted.append(d)
            book = ledger.days[d]
            counts = [c for c in (book.drop, book.closer, *book.shift_drops.values())
                      if c is not None]
            counted_at[d] = max(c.ts for c in counts)
    return Shifts(out, counted, counted_at)


def shift_tallies(journal: Journal, table: str, calendar: GamingCalendar,
                  days: tuple[date, date] | None = None) -> list[ShiftTally]:
    """The table's shifts with a known variance (see :func:`read_shifts`)."""
    return read_shifts(journal, table, calendar, days).tallies


def tray_alerts(journal: Journal, table: str, calendar: GamingCalendar,
                settings: MonitorSettings, days: tuple[date, date] | None = None, *,
                counted: Callable[[str], bool] | None = None) -> list[Alert]:
    """The tray rule's alerts at the table, look by look (each counted gaming day), as the
    count room raised them live; ``days``: only the looks at those gaming days; ``counted``:
    only those whose day's last count was journaled at a time it accepts."""
    rule = TrayRule(table, settings)
    if settings.tray.share <= 0:
        return []
    read = None
    if days is not None:
        # A look reads its window, and whether it crossed reads the look before it.
        read = (days[0] - timedelta(days=2 * rule.days), days[1])
    shifts = read_shifts(journal, table, calendar, read)
    alerts = rule.looks(shifts.tallies, shifts.counted)
    if counted is not None:
        alerts = [a for a in alerts if a.last_day is not None
                  and counted(shifts.counted_at[date.fromisoformat(a.last_day)])]
    if days is None:
        return alerts
    return [a for a in alerts if a.last_day is not None
            and days[0] <= date.fromisoformat(a.last_day) <= days[1]]


def tray_look(journal: Journal, table: str, calendar: GamingCalendar,
              settings: MonitorSettings, day: date) -> list[ProtectionAlerted]:
    """After a count of gaming day ``day``: the alerts of the looks at it and at the counted
    day before it that the chain does not hold yet (the caller journals them)."""
    from dealer_station.events import Codec
    from dealer_station.events.table import ProtectionAlerted

    if settings.tray.share <= 0 or day not in read_shifts(journal, table, calendar,
                                                           (day, day)).counted:
        return []       # the day's other shifts are still to be counted: no look yet
    alerts = tray_alerts(journal, table, calendar, settings, (day - timedelta(days=1), day))
    if not alerts:
        return []
    codec = Codec((ProtectionAlerted,))
    held = set()
    for r in journal.events(table, kinds=[ProtectionAlerted.KIND]):
        e = codec.decode(r.kind, r.payload)
        if isinstance(e, ProtectionAlerted) and e.rule == TrayRule.RULE:
            held.add((e.dealer, e.round_no))
    return [a.to_event() for a in alerts if (a.dealer, a.round_no) not in held]


def tray_trace(journal: Journal, table: str, calendar: GamingCalendar,
               settings: MonitorSettings, alert: ProtectionAlerted) -> list[TrayPoint]:
    """The looks at a tray alert's dealer over the window of its look (its evidence)."""
    rule = TrayRule(table, settings)
    last = alert.evidence.get("last_day")
    if not isinstance(last, str) or alert.dealer is None:
        return []
    day = date.fromisoformat(last)
    shifts = read_shifts(journal, table, calendar,
                         (day - timedelta(days=2 * rule.days), day))
    return rule.trace(shifts.tallies, shifts.counted, alert.dealer, day)
