"""Every alert's evidence of one table, read in one pass over each gaming day.

:func:`dealer_station.table.protection_evidence.evidence` reads one alert's evidence: its
test's statistic after each round of its gaming day through the crossing, the monitor run
again from the day's first round. A report of a day with many alerts would run the day again
once per alert (a 300-round day with 14 alerts: 9.5 s of the report's 16). Here the day is run
once, and each alert's test traced the very same way (tests/test_report_game_protection.py
checks that each alert's evidence equals what ``evidence`` reads for it): the same
:class:`~dealer_station.table.protection_evidence.Evidence`, at the cost of one run a day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from dealer_station.events.table import ProtectionAlerted
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.by_day import TableMonitor
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.table.monitor_rounds import RoundReader
from dealer_station.table.protection_evidence import Evidence, TracePoint

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


def round_number(rnd: Any) -> int:
    """A finished round's number (a pot game's hand: its hand number)."""
    number = getattr(rnd, "round_no", None)
    return int(number if number is not None else getattr(rnd, "hand_no", 0))


@dataclass
class _Trace:
    """One test's points so far, and what it had seen before the round being read."""

    points: list[TracePoint]
    looks: int = 0
    hits: int = 0
    was_zero: bool = True


def evidence_by_day(journal: Journal, table: str, alerts: Sequence[ProtectionAlerted],
                    settings: MonitorSettings, calendar: GamingCalendar
                    ) -> dict[int, Evidence]:
    """The evidence of each of ``alerts`` (``monitor.alert`` records of ``table``), by its
    index in ``alerts``; an alert whose round the journal does not hold is left out."""
    from dealer_station.monitor.tray import TRAY
    from dealer_station.table.protection_evidence import tray_evidence

    days: dict[date, list[int]] = {}
    out: dict[int, Evidence] = {}
    for i, alert in enumerate(alerts):
        if alert.rule == TRAY:      # looks over counted days, not a day's rounds
            out[i] = tray_evidence(journal, table, alert, settings, calendar)
            continue
        info = journal.round_info(table, alert.round_no)
        if info is not None:
            day = calendar.day_of(datetime.fromisoformat(info.started_at))
            days.setdefault(day, []).append(i)
    for day, wanted in days.items():
        out.update(_day(journal, table, day, [(i, alerts[i]) for i in wanted], settings,
                        calendar))
    return out


def _day(journal: Journal, table: str, day: date,
         alerts: list[tuple[int, ProtectionAlerted]], settings: MonitorSettings,
         calendar: GamingCalendar) -> dict[int, Evidence]:
    first = journal.first_seq_opened_since(table, calendar.day(day).start)
    monitor = TableMonitor(table, settings, calendar)
    reader = RoundReader(table, journal)
    traces = {a.test: _Trace([]) for _, a in alerts}
    #: Each alert's threshold: the crossing's, as read again (the record's until then).
    thresholds = {i: a.number("threshold") for i, a in alerts}
    left = {i: a for i, a in alerts}
    out: dict[int, Evidence] = {}
    last_round = max(a.round_no for _, a in alerts)
    for r in journal.proven_records(table, from_seq=first or 1):
        read = reader.record(r)
        if read is None:
            continue
        for name, trace in traces.items():
            before = monitor.monitor.test(name)
            trace.looks, trace.hits = (before.looks, before.hits) if before is not None \
                else (0, 0)
            trace.was_zero = before is None or before.statistic == 0.0
        raised = monitor.feed(read.round, read.opened_at)
        if monitor.day != day:
            continue
        round_no = round_number(read.round)
        for name, trace in traces.items():
            crossing = next((a for a in raised if a.test == name), None)
            test = monitor.monitor.test(name)
            if crossing is not None:
                for i, a in left.items():
                    if a.test == name and a.round_no == round_no:
                        thresholds[i] = crossing.threshold
                trace.points.append(TracePoint(
                    round_no, crossing.statistic, True,
                    crossing.hits > (0 if trace.was_zero else trace.hits)))
            elif test is not None:
                looked = test.looks != (0 if trace.was_zero else trace.looks)
                trace.points.append(TracePoint(
                    round_no, test.statistic, looked,
                    test.hits > (0 if trace.was_zero else trace.hits)))
            else:
                trace.points.append(TracePoint(round_no, 0.0, False, False))
        for i, a in list(left.items()):
            if a.round_no == round_no:
                out[i] = Evidence(a, table, day, thresholds[i],
                                  tuple(traces[a.test].points))
                del left[i]
        if round_no >= last_round or not left:
            break
    return out
