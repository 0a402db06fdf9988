"""One entry point for every report, for the command line and the supervisor screen.

    build_report("shift", journal, "T1", Period(since, until), out="shift.pdf")
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.reports.source import Period
from dealer_station.reports.template import BuiltReport

#: Report names as the command line takes them, with what each is.
REPORT_KINDS: dict[str, str] = {
    "shift": "table shift report: rounds, wagered/paid/won per wager kind, hold, charts, "
             "meters, dealers, exceptions",
    "recall": "game recall / dispute report of one round or hand (--round, default the last)",
    "events": "significant events of the period",
    "bourre-session": "Bourré sessions: chips over the session, pots, bourrés and reneges, "
                      "eliminations and tags, house collection",
    "card-room": "Bourré card room per gaming day: hands, sessions, house collection (money "
                 "in a cash game), pots carried and returned, chip reconciliation",
    "config": "configuration history: every change with who, when, what and why, and each "
              "version's par sheet",
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
    if kind == "card-room":
        from dealer_station.games.bourre.reports.card_room_pdf import build_card_room_report
        return build_card_room_report
    if kind == "bourre-session":
        from dealer_station.games.bourre.reports.session import build_bourre_session_report
        return build_bourre_session_report
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
    return _builder(kind)(journal, table, period, out=out, paper=paper, **options)
