"""An alert's evidence, read again from the journal: the test's statistic after each round of
the alert's gaming day up to the round where it crossed, its threshold, and the rounds its
evidence is made of (those the test looked at since it last stood at 0). The pit's evidence
page and the game-protection report draw it; the recall of those rounds is the journal's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from dealer_station.errors import StationError
from dealer_station.events.table import ProtectionAlerted
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.by_day import TableMonitor
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.table.monitor_rounds import RoundReader

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


@dataclass(frozen=True)
class TracePoint:
    """The test after one round of the day: its statistic (at the crossing, the value that
    crossed, before the test starts again), and whether it looked at the round and saw a
    hit."""

    round_no: int
    statistic: float
    looked: bool
    hit: bool


@dataclass(frozen=True)
class Evidence:
    alert: ProtectionAlerted
    table: str
    day: date
    threshold: float
    points: tuple[TracePoint, ...]
    #: What the list of the evidence says of each of its rounds, where not "Round N" (the
    #: tray rule's looks: the gaming day counted).
    labels: Mapping[int, str] = field(default_factory=dict)
    #: The round each of its rounds opens in the recall, where another (the tray rule's: the
    #: last round the dealer dealt that day).
    recall: Mapping[int, int] = field(default_factory=dict)

    @property
    def rounds(self) -> tuple[int, ...]:
        """The rounds the evidence is made of: those the test looked at from the segment's
        first round through the crossing."""
        first = int(self.alert.evidence.get("first_round") or self.alert.round_no)
        return tuple(p.round_no for p in self.points
                     if p.looked and first <= p.round_no <= self.alert.round_no)

    @property
    def hits(self) -> tuple[int, ...]:
        rounds = set(self.rounds)
        return tuple(p.round_no for p in self.points if p.hit and p.round_no in rounds)


def tray_evidence(journal: Journal, table_id: str, alert: ProtectionAlerted,
                  settings: MonitorSettings, calendar: GamingCalendar) -> Evidence:
    """A tray alert's evidence: the rule's looks at the dealer over the window of the look
    that alerted, each at the last round of the gaming day counted (a hit: the dealer's
    shift that day was out)."""
    from dealer_station.table.monitor_tray import tray_trace

    trace = tray_trace(journal, table_id, calendar, settings, alert)
    points = tuple(TracePoint(p.round_no, p.statistic, p.dealt, p.dealt and p.variance != 0)
                   for p in trace if p.round_no <= alert.round_no)
    labels = {p.round_no: f"Day {p.day}" + (" · out" if p.variance else "") for p in trace}
    recall = {p.round_no: p.own_round for p in trace if p.own_round}
    last = alert.evidence.get("last_day")
    day = date.fromisoformat(last) if isinstance(last, str) else calendar.day_of(
        journal.clock())
    return Evidence(alert, table_id, day, alert.number("threshold"), points, labels, recall)


def evidence(journal: Journal, table_id: str, alert: ProtectionAlerted,
             settings: MonitorSettings, calendar: GamingCalendar) -> Evidence:
    """The evidence of ``alert`` (a ``monitor.alert`` record of table ``table_id``)."""
    from dealer_station.monitor.tray import TRAY

    if alert.rule == TRAY:
        return tray_evidence(journal, table_id, alert, settings, calendar)
    info = journal.round_info(table_id, alert.round_no)
    if info is None:
        raise StationError(f"table {table_id} has no round {alert.round_no}: the alert's "
                           f"evidence cannot be read")
    from datetime import datetime

    day = calendar.day_of(datetime.fromisoformat(info.started_at))
    first = journal.first_seq_opened_since(table_id, calendar.day(day).start)
    monitor = TableMonitor(table_id, settings, calendar)
    reader = RoundReader(table_id, journal)
    points: list[TracePoint] = []
    threshold = alert.number("threshold")
    for r in journal.proven_records(table_id, from_seq=first or 1):
        read = reader.record(r)
        if read is None:
            continue
        before = monitor.monitor.test(alert.test)
        looks, hits = (before.looks, before.hits) if before is not None else (0, 0)
        was_zero = before is None or before.statistic == 0.0
        raised = monitor.feed(read.round, read.opened_at)
        if monitor.day != day:
            continue
        crossing = next((a for a in raised if a.test == alert.test), None)
        test = monitor.monitor.test(alert.test)
        if crossing is not None:
            threshold = crossing.threshold
            points.append(TracePoint(read.round.round_no, crossing.statistic, True,
                                     crossing.hits > (0 if was_zero else hits)))
        elif test is not None:
            # A look that took the statistic back to 0 leaves no trace on the test: it is
            # outside any evidence segment, and counts as no look here.
            looked = test.looks != (0 if was_zero else looks)
            points.append(TracePoint(read.round.round_no, test.statistic, looked,
                                     test.hits > (0 if was_zero else hits)))
        else:
            points.append(TracePoint(read.round.round_no, 0.0, False, False))
        if read.round.round_no == alert.round_no:
            break
    return Evidence(alert, table_id, day, threshold, tuple(points))

