"""``dealer-station report master-game`` (JSON or PDF) and ``report discrepancies`` (PDF)."""

from __future__ import annotations

import argparse
import json
from datetime import date

from dealer_station.errors import StationError
from dealer_station.gaming_day import GamingCalendar


def run(args: argparse.Namespace) -> int:
    from dealer_station.cli.audit import open_store
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.reports.master_game import check_tables, gather, row_json

    day: date | None = args.gaming_day     # parsed by the report command
    if args.since or args.until or args.round is not None or args.tables:
        raise StationError(f"the {args.kind} report takes --gaming-day (or every gaming day), "
                           f"--shift or --by-shift, and --table, not --from/--to/--round/"
                           f"--tables: the tray is counted by gaming day and shift")
    settings = load_accounting_settings(args.accounting_config)
    calendar = load_gaming_calendar(args.station_config)
    shift = _shift_name(calendar, args.shift) if args.shift else None
    # The discrepancy report always looks shift by shift (a variance can hide in a day).
    by_shift = bool(args.by_shift or shift or args.kind == "discrepancies")
    with open_store(args, write=False) as store:
        report = gather(store.journal, settings, calendar,
                        tables=check_tables(store.journal, args.table), first=day, last=day,
                        by_shift=by_shift,
                        known_shifts_only=not (args.by_shift or shift or args.json))
        if shift is not None:
            report.shifts = [s for s in report.shifts if s.shift == shift]
        if args.json and args.kind == "master-game":
            rows = report.shifts if args.by_shift or shift else report.days
            for row in rows:
                print(json.dumps(row_json(row, settings), ensure_ascii=False, sort_keys=True))
            return 0
        if args.json:
            raise StationError("--json applies to the master-game report only")
        from dealer_station.reports.accounting_pdf import (
            build_discrepancy_pdf,
            build_master_game_pdf,
        )

        build = build_master_game_pdf if args.kind == "master-game" else build_discrepancy_pdf
        out = args.out or f"{args.kind}-{day or 'all'}.pdf"
        if not str(out).lower().endswith(".pdf"):
            raise StationError(f"--out {out}: give a file name ending in .pdf")
        built = build(store.journal, report, out=out, paper=args.paper or "A4",
                      by_shift=by_shift)
        print(f"wrote the {built.title.lower()} ({built.pages} page"
              f"{'s' if built.pages != 1 else ''}) to {built.path}")
    return 0


def _shift_name(calendar: GamingCalendar, name: str) -> str:
    for s in calendar.shifts:
        if s.name.casefold() == name.strip().casefold():
            return s.name
    raise StationError(f"--shift: no shift {name!r}; the shifts are "
                       f"{', '.join(s.name for s in calendar.shifts)} ([gaming_day] of "
                       f"station.toml)")
