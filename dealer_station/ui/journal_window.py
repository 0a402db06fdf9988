"""Opening an accounting screen on an existing journal (the cage's, the count room's): they
write to the tables' chains and never start a journal, so the database is not upgraded and
the key is not created; the station's accounting settings, gaming day and printer are read
once, and the checkpoint anchors written when the window closes."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QWidget

from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.gaming_day import GamingCalendar


@dataclass(frozen=True)
class ScreenContext:
    journal: Journal
    settings: AccountingSettings
    calendar: GamingCalendar
    #: The station's printer (``[printing]`` of station.toml), "" when none is set.
    printer: str


def run_on_journal(args: argparse.Namespace, make: Callable[[ScreenContext], QWidget]) -> int:
    """Open the journal ``args`` name (``db``, ``key``, ``accounting_config``,
    ``station_config``), show the window ``make`` builds (``fullscreen``, ``exit_after``)
    until it is closed, and close the journal."""
    from dealer_station.audit.db import open_database
    from dealer_station.audit.keys import default_key_path, load_key
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.reports.printing import configured_printer
    from dealer_station.ui.app import run_window

    settings = load_accounting_settings(args.accounting_config)
    calendar = load_gaming_calendar(args.station_config)
    printer = configured_printer(args.station_config)
    key = load_key(Path(args.key) if args.key else default_key_path())
    db = open_database(args.db, upgrade=False)
    try:
        context = ScreenContext(Journal(db, key), settings, calendar, printer)
        code = run_window(lambda: make(context), fullscreen=bool(args.fullscreen),
                          exit_after=getattr(args, "exit_after", None))
        context.journal.anchor_written()
        return code
    finally:
        db.close()
