"""``dealer-station report card-room``: its period (gaming day, shift or --from/--to) and its
JSON form (one object per table per gaming day, money in minor units)."""

from __future__ import annotations

import argparse
import json

from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
from dealer_station.games.bourre.reports.card_room import card_room_tables, gather_card_room
from dealer_station.reports.source import Period


def print_json(kind: str, args: argparse.Namespace, period: Period, /) -> int:
    """The registry's ``report_json`` part: the JSON form of Bourré's report ``kind`` (the
    card room's; its sessions report has none)."""
    from dealer_station.errors import StationError

    if kind != "card-room":
        raise StationError(f"the {kind} report has no JSON form")
    return print_card_room_json(args, period)


def print_card_room_json(args: argparse.Namespace, period: Period) -> int:
    """The card-room report's JSON for ``period`` (the command line's, already checked), with
    each day's bank and rake box (``--accounting-config``: the money and the variance
    threshold; ``--station-config``: the gaming day)."""
    from dealer_station.cli.audit import open_store
    from dealer_station.errors import StationError

    calendar = load_gaming_calendar(getattr(args, "station_config", None))
    settings = load_accounting_settings(getattr(args, "accounting_config", None))
    with open_store(args, write=False) as store:
        tables = card_room_tables(store.journal, args.table)
        if args.table and args.table not in store.journal.tables():
            raise StationError(f"table {args.table!r} has no records in this journal")
        out = []
        for table in tables:
            for day in gather_card_room(store.journal, table, calendar, period.since,
                                        period.until, settings=settings):
                out.append(day.to_json())
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0
