"""``dealer-station report master-game`` (JSON or PDF) and ``report discrepancies`` (PDF)."""

from __future__ import annotations

import argparse
import json
from datetime import date

from dealer_station.errors import StationError


def run(args: argparse.Namespace) -> int:
    from dealer_station.cli.audit import open_store
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.reports.master_game import check_tables, gather, row_json

    day: date | None = args.gaming_day     # parsed by the report command
    if args.since or args.until or args.round is not None or args.shift or args.tables:
        raise StationError(f"the {args.kind} report takes --gaming-day (or every gaming day) "
                           f"and --table, not --from/--to/--round/--shift/--tables: the tray "
                           f"is counted once a gaming day")
    settings = load_accounting_settings(args.accounting_config)
    calendar = load_gaming_calendar(args.station_config)
    with open_store(args, write=False) as store:
        report = gather(store.journal, settings, calendar,
                        tables=check_tables(store.journal, args.table), first=day, last=day)
        if args.json and args.kind == "master-game":
            for row in report.days:
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
        built = build(store.journal, report, out=out, paper=args.paper or "A4")
        print(f"wrote the {built.title.lower()} ({built.pages} page"
              f"{'s' if built.pages != 1 else ''}) to {built.path}")
    return 0
