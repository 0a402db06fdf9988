"""One entry point for every report, for the command line and the supervisor screen.

    build_report("shift", journal, "T1", Period(since, until), out="shift.pdf")
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer_station import registry
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.reports.parts import REPORT
from dealer_station.reports.source import Period
from dealer_station.reports.template import BuiltReport

#: Report names as the command line takes them, with what each is: the station's own, and
#: each game's (``Game.reports`` in the registry) after its events report.
REPORT_KINDS: dict[str, str] = {
    "shift": "table shift report: rounds, wagered/paid/won per wager kind, hold, charts, "
             "meters, dealers, exceptions",
    "recall": "game recall / dispute report of one round or hand (--round, default the last)",
    "events": "significant events of the period",
    **{name: r.about for name, (_, r) in registry.game_reports().items()},
    "config": "configuration history: every change with who, when, what and why, and each "
              "version's par sheet",
    "game-protection": "game protection: the integrity monitor's alerts with their evidence "
                       "and acknowledgements, each rule's state per table and dealer, the "
                       "hold bands",
}


def _builder(kind: str) -> Callable[..., BuiltReport]:
    if kind == "shift":
        from dealer_station.reports.shift import build_shift_report
        return build_shift_report
    if kind == "events":
        from dealer_station.reports.events import build_events_report
        return build_events_report
    if kind == "config":
        from dealer_station.reports.config_history import build_config_history_report
        return build_config_history_report
    if kind == "game-protection":
        from dealer_station.reports.game_protection import build_for_table
        return build_for_table
    raise StationError(f"unknown report {kind!r}: one of {', '.join(REPORT_KINDS)}")


def build_report(kind: str, journal: Journal, table: str, period: Period | None = None, *,
                 out: Path | str, round_no: int | None = None, paper: str = "A4",
                 **options: Any) -> BuiltReport:
    """Write report ``kind`` for ``table``: ``period`` for every report but ``recall``,
    which takes ``round_no`` (default: the latest round) instead."""
    if kind == "recall":
        from dealer_station.reports.recall import build_recall_report
        return build_recall_report(journal, table, round_no, out=out, paper=paper, **options)
    if round_no is not None:
        raise StationError(f"--round applies to the recall report only, not to {kind}")
    own = registry.game_reports().get(kind)
    if own is not None:
        return own[0].part(REPORT)(kind, journal, table, period, out=out, paper=paper,
                                   **options)
    return _builder(kind)(journal, table, period, out=out, paper=paper, **options)
