"""Bourré's own reports, as the station's report catalog asks for them by name (the registry's
``report`` part): its sessions and its card room."""

from __future__ import annotations

from pathlib import Path

from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.gaming_day import GamingCalendar
from dealer_station.reports.source import Period
from dealer_station.reports.template import BuiltReport


def build(kind: str, journal: Journal, table: str, period: Period | None, /, *,
          out: Path | str, paper: str = "A4", calendar: GamingCalendar | None = None,
          settings: AccountingSettings | None = None) -> BuiltReport:
    """Write Bourré's report ``kind`` (``bourre-session`` or ``card-room``; the card room's
    gaming days from ``calendar`` and its money and threshold from ``settings``, where
    given)."""
    if kind == "bourre-session":
        from dealer_station.games.bourre.reports.session import build_bourre_session_report

        return build_bourre_session_report(journal, table, period, out=out, paper=paper)
    if kind == "card-room":
        from dealer_station.games.bourre.reports.card_room_pdf import build_card_room_report

        return build_card_room_report(journal, table, period, out=out, paper=paper,
                                      calendar=calendar, settings=settings)
    raise StationError(f"Bourré has no report {kind!r}")
