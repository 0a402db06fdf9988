"""``dealer-station count-room``: the soft count (docs/accounting.md, "The count room").

``count`` enters one table's box of a gaming day (or of a shift, ``--shift``; a card room's
rake box with ``--box rake``): the notes by denomination (``--notes 10000x12,2000x40``, minor
units x number of notes), the markers or counter checks apart (``--markers`` their total,
``--marker-count`` how many), verified by the count team (``--signer`` two to six accounting
users, each asked for a PIN). ``variances`` lists the table-days whose variance (statistical
win - computed win) is beyond the threshold, with their disposition (``--json``: one object
each; exit 1 while one has none). ``dispose`` records what the count room decided about one:
explained, adjusted (``--adjustment``, minor units) or referred, with ``--note``, signed by
two accounting users. ``print`` writes a counted box's count sheet; ``screen`` opens the
count room's touch screen.
"""

from __future__ import annotations

import argparse
import json
from datetime import date
from typing import TYPE_CHECKING, Any

from dealer_station.cli._signers import sign_in, signer_options
from dealer_station.cli.audit import open_store, store_options
from dealer_station.errors import StationError
from dealer_station.events.accounting import DISPOSITIONS, RAKE_BOX, VarianceDisposed

if TYPE_CHECKING:
    from dealer_station.accounting.settings import AccountingSettings
    from dealer_station.audit.journal import Journal
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.table.count_room import CountRoom

#: The JSON keys of ``count-room variances --json`` (a contract: tools read them).
VARIANCE_KEYS = ("table", "gaming_day", "shift", "box", "variance", "threshold", "statistical_win",
                 "computed_win", "disposition", "disposition_note", "disposition_by",
                 "disposition_at", "adjustment", "disposed_variance")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("count-room", help="the soft count: boxes counted by denomination, "
                                          "variances and their dispositions",
                       description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = store_options()
    common.add_argument("--accounting-config", metavar="FILE",
                        help="accounting settings (default config/accounting.toml)")
    common.add_argument("--station-config", metavar="FILE",
                        help="station settings with [gaming_day] (default config/station.toml)")
    signed = signer_options("an accounting user signing")
    which = argparse.ArgumentParser(add_help=False)
    which.add_argument("--table", required=True, help="the table id, e.g. T1")
    which.add_argument("--gaming-day", required=True, metavar="YYYY-MM-DD")
    which.add_argument("--shift", metavar="NAME",
                       help="one shift's box (changed at the shift change)")
    c = actions.add_parser("count", parents=[common, which, signed],
                           help="one box counted by the count team")
    c.add_argument("--notes", required=True,
                   help="the cash by note: DENOMxCOUNT,... in minor units, e.g. "
                        "10000x12,2000x40 (or DENOM=VALUE); 0 for an empty box")
    c.add_argument("--markers", type=int, default=0,
                   help="the markers' or counter checks' total, minor units (default 0)")
    c.add_argument("--marker-count", type=int, default=0,
                   help="how many markers or counter checks (default 0)")
    c.add_argument("--box", choices=["drop", RAKE_BOX], default="drop",
                   help="the drop box (default) or a card room table's rake box")
    d = actions.add_parser("dispose", parents=[common, which, signed],
                           help="the disposition of a variance beyond the threshold")
    d.add_argument("--disposition", required=True, choices=DISPOSITIONS)
    d.add_argument("--note", required=True, help="why (journaled with the signers' names)")
    d.add_argument("--adjustment", type=int,
                   help="an adjusted variance: the adjusting entry, minor units")
    d.add_argument("--box", choices=["drop", RAKE_BOX], default="drop",
                   help="the table's win against its drop (default), or a card room table's "
                        "rake against its counted rake box")
    v = actions.add_parser("variances", parents=[common],
                           help="the variances beyond the threshold, and their dispositions")
    v.add_argument("--table", help="only this table")
    v.add_argument("--from", dest="first", metavar="YYYY-MM-DD")
    v.add_argument("--to", dest="last", metavar="YYYY-MM-DD")
    v.add_argument("--json", action="store_true", help="one JSON object per variance")
    pr = actions.add_parser("print", parents=[common, which],
                            help="a counted box's count sheet as a PDF")
    pr.add_argument("--box", choices=["drop", RAKE_BOX], default="drop",
                    help="the drop box (default) or a card room table's rake box")
    pr.add_argument("--out", metavar="FILE.pdf", required=True)
    pr.add_argument("--paper", choices=("A4", "letter"), default="A4")
    sc = actions.add_parser("screen", parents=[common], help="the count room's touch screen")
    sc.add_argument("--fullscreen", action="store_true", help="fill the screen")
    p.set_defaults(func=run)


def _day(text: str | None, flag: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise StationError(f"{flag}: {text!r} is not a date like 2026-11-25") from None


def run(args: argparse.Namespace) -> int:
    if args.action == "screen":
        from dealer_station.ui.count_room_window import run_screen

        return int(run_screen(args))
    if args.action == "variances":
        first, last = _day(args.first, "--from"), _day(args.last, "--to")
        with open_store(args, write=False) as store:
            return _variances(args, store.journal, first, last)
    if not args.table.strip():
        raise StationError("--table: give a table id, e.g. --table T1")
    day = _day(args.gaming_day, "--gaming-day")
    assert day is not None
    if args.action == "print":
        return _print(args, day)
    with open_store(args) as store:
        room = _room(store.journal, args)
        if args.action == "count":
            return _count(args, store.journal, room, day)
        return _dispose(args, store.journal, room, day)


def _print(args: argparse.Namespace, day: date) -> int:
    from dealer_station.reports.count_sheet import build_count_sheet_pdf

    if not str(args.out).lower().endswith(".pdf"):
        raise StationError(f"--out {args.out}: give a file name ending in .pdf")
    with open_store(args, write=False) as store:
        room = _room(store.journal, args)
        shift = room.book.shift_named(args.shift) if args.shift else None
        built = build_count_sheet_pdf(store.journal, room.book.ledger(), room.book.settings,
                                      day, out=args.out, paper=args.paper, shift=shift,
                                      box=RAKE_BOX if args.box == RAKE_BOX else None)
    print(f"wrote {built.title.lower()} ({built.pages} page{'s' if built.pages != 1 else ''})"
          f" to {built.path}")
    return 0


def _room(journal: Journal, args: argparse.Namespace) -> CountRoom:
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.table.accounting import TableAccounting
    from dealer_station.table.count_room import CountRoom

    return CountRoom(TableAccounting(journal, args.table,
                                     load_accounting_settings(args.accounting_config),
                                     load_gaming_calendar(args.station_config)))


def _count(args: argparse.Namespace, journal: Journal, room: CountRoom, day: date) -> int:
    from dealer_station.accounting.chips import Chips, check_denominations, parse_chips

    settings = room.book.settings
    what = f"the count of table {args.table}'s box"
    notes = (Chips() if args.notes.strip() == "0" else
             parse_chips(args.notes, settings.currency_denominations, what=f"{what}: --notes"))
    check_denominations(notes, settings.currency_denominations, f"{what}: --notes",
                        kind="note")
    team = sign_in(args, journal, what, at_least=2)
    box = RAKE_BOX if args.box == RAKE_BOX else None
    room.count(day, notes, args.markers, args.marker_count, team, shift=args.shift, box=box)
    money = settings.money.text
    print(f"{'rake' if box else 'drop'} box of table {args.table}, gaming day {day}"
          f"{f', {args.shift} shift' if args.shift else ''}: cash {money(notes.total)} in "
          f"{notes.chip_count} notes, markers {money(args.markers)} ({args.marker_count}); "
          f"counted by {', '.join(u.actor for u in team)}")
    return 0


def _dispose(args: argparse.Namespace, journal: Journal, room: CountRoom, day: date) -> int:
    settings = room.book.settings
    box = RAKE_BOX if args.box == RAKE_BOX else None
    where = (f"table {args.table}, gaming day {day}"
             f"{f', {args.shift} shift' if args.shift else ''}")
    if box is not None:
        if args.shift:
            raise StationError("--shift: a rake box is counted for the whole day")
        from dealer_station.reports.rake_variances import rake_variances

        found = {r.gaming_day: r.variance for r in rake_variances(
            journal, args.table, settings, room.book.calendar, day, day)}
        variance = found.get(day)
        why = "the rake box is not counted, or the table keeps no rake in money"
    else:
        from dealer_station.reports.master_game import gather

        report = gather(journal, settings, room.book.calendar, tables=[args.table], first=day,
                        last=day, by_shift=args.shift is not None)
        rows = report.days if args.shift is None else [
            s for s in report.shifts if (s.shift or "").casefold() == args.shift.casefold()]
        variance = rows[0].variance if rows else None
        why = "the drop is not counted, or the tray not opened and closed"
    if variance is None:
        raise StationError(f"{where}: no variance yet ({why})")
    if not args.note.strip():
        raise StationError("--note: a disposition needs a note saying why")
    signers = sign_in(args, journal, "a disposition", at_least=2)
    room.dispose(day, variance, args.disposition, args.note, signers, shift=args.shift,
                 box=box, adjustment=args.adjustment)
    print(f"{where}: {'rake ' if box else ''}variance {settings.money.text(variance)} "
          f"{args.disposition} by {' and '.join(u.actor for u in signers)}")
    return 0


def variance_rows(journal: Journal, args: argparse.Namespace, first: date | None,
                  last: date | None) -> list[dict[str, Any]]:
    """The table-days (and shifts with a box of their own) whose variance is beyond the
    threshold, each as ``variances --json`` prints it."""
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.reports.master_game import check_tables, gather

    settings = load_accounting_settings(args.accounting_config)
    calendar = load_gaming_calendar(args.station_config)
    tables = check_tables(journal, args.table)
    found = gather(journal, settings, calendar, tables=tables, first=first, last=last)
    out = []
    for d in found.days:
        v = d.variance
        if v is None or abs(v) <= settings.variance_threshold:
            continue
        day = found.ledgers[d.table].days[d.gaming_day]
        c = day.disposition()
        e = c.event if c is not None and isinstance(c.event, VarianceDisposed) else None
        out.append({"table": d.table, "gaming_day": d.gaming_day.isoformat(), "shift": None,
                    "box": "drop", "variance": v, "threshold": settings.variance_threshold,
                    "statistical_win": d.win, "computed_win": d.play.computed_win,
                    "disposition": e.disposition if e else None,
                    "disposition_note": e.note if e else None,
                    "disposition_by": list(e.signers) if e else None,
                    "disposition_at": c.ts if c is not None and e else None,
                    "adjustment": e.adjustment if e else None,
                    "disposed_variance": e.variance if e else None})
    out += _rake_rows(journal, args, settings, calendar, first, last)
    return out


def _rake_rows(journal: Journal, args: argparse.Namespace, settings: AccountingSettings,
               calendar: GamingCalendar, first: date | None, last: date | None
               ) -> list[dict[str, Any]]:
    """The card room tables' rake variances beyond the threshold, as ``variance_rows``."""
    from dealer_station.audit.lease import RESERVED_TABLE_IDS
    from dealer_station.reports.rake_variances import rake_variances

    out = []
    names = [args.table] if args.table else [t for t in journal.tables()
                                             if t not in RESERVED_TABLE_IDS]
    for table in names:
        for r in rake_variances(journal, table, settings, calendar, first, last):
            if r.variance is None or abs(r.variance) <= settings.variance_threshold:
                continue
            x = r.disposition
            out.append({"table": table, "gaming_day": r.gaming_day.isoformat(), "shift": None,
                        "box": RAKE_BOX, "variance": r.variance,
                        "threshold": settings.variance_threshold,
                        "statistical_win": r.counted, "computed_win": r.rake,
                        "disposition": x.disposition if x else None,
                        "disposition_note": x.note if x else None,
                        "disposition_by": list(x.signers) if x else None,
                        "disposition_at": x.at if x else None,
                        "adjustment": x.adjustment if x else None,
                        "disposed_variance": x.variance if x else None})
    return out


def _variances(args: argparse.Namespace, journal: Journal, first: date | None,
               last: date | None) -> int:
    from dealer_station.gameconfig import load_accounting_settings

    money = load_accounting_settings(args.accounting_config).money.text
    rows = variance_rows(journal, args, first, last)
    for row in rows:
        if args.json:
            print(json.dumps(row, ensure_ascii=False, sort_keys=True))
            continue
        said = (f"{row['disposition']} ({row['disposition_note']})" if row["disposition"]
                else "NO DISPOSITION YET")
        print(f"{row['table']:<6} {row['gaming_day']}  variance {money(row['variance']):>14}"
              f"  {said}")
    return 1 if any(r["disposition"] is None for r in rows) else 0
