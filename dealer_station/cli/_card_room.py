"""``dealer-station report card-room``: its period (gaming day, shift or --from/--to) and its
JSON form (one object per table per gaming day, money in minor units)."""

from __future__ import annotations

import argparse
import json
from datetime import datetime

from dealer_station.gameconfig import load_gaming_calendar
from dealer_station.reports.card_room import card_room_tables, gather_card_room, resolve_span


def card_room_period(args: argparse.Namespace) -> tuple[datetime | None, datetime | None]:
    """The report's ``since`` and ``until`` from ``--gaming-day``/``--shift``/``--from/--to``."""
    return resolve_span(load_gaming_calendar(), gaming_day=args.gaming_day, shift=args.shift,
                        since=args.since, until=args.until)


def print_card_room_json(args: argparse.Namespace) -> int:
    from dealer_station.cli.audit import open_store
    from dealer_station.errors import StationError
    from dealer_station.reports.source import Period

    calendar = load_gaming_calendar()
    period = Period(args.since, args.until)     # checks the order of --from and --to
    with open_store(args, write=False) as store:
        tables = card_room_tables(store.journal, args.table)
        if args.table and args.table not in store.journal.tables():
            raise StationError(f"table {args.table!r} has no records in this journal")
        out = []
        for table in tables:
            for day in gather_card_room(store.journal, table, calendar, period.since,
                                        period.until):
                out.append(day.to_json())
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0
