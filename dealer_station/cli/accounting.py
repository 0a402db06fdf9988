"""``dealer-station accounting``: the table's chip tray and slips (docs/accounting.md).

``opener``, ``shift-count`` (the tray at a shift change), ``closer``, ``fill`` and ``credit``
are signed by a dealer (``--dealer``) and a
supervisor or operator (``--supervisor``); ``drop`` (the soft count's figure for a gaming day
that has closed) by two different accounting users (``--counter`` twice); ``void`` by a
supervisor with a reason; ``buy-in`` by the dealer. Each signer's PIN is asked for, or read
with ``--pin-stdin`` one per line in the order the signers are named. Chips are written
``500x20,2500x8`` (denomination in minor units x number of chips) or ``500=10000`` (the value
in that denomination). Bad input is refused before anyone signs in, and nothing is journaled.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import TYPE_CHECKING, Any

from dealer_station.cli.audit import open_store, store_options
from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.accounting.chips import Chips
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.users import User
    from dealer_station.table.accounting import TableAccounting

CHIPS_HELP = ("chips by denomination: DENOMxCOUNT,... in minor units, e.g. 500x20,2500x8 (or "
              "DENOM=VALUE, e.g. 500=10000)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("accounting", help="chip trays, fills, credits, buy-ins, drop and "
                                          "voids (two-person slips)",
                       description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = store_options()
    common.add_argument("--table", required=True, help="the table id, e.g. T1")
    common.add_argument("--accounting-config", metavar="FILE",
                        help="accounting settings (default config/accounting.toml)")
    common.add_argument("--station-config", metavar="FILE",
                        help="station settings with [gaming_day] (default config/station.toml)")
    common.add_argument("--pin-stdin", action="store_true",
                        help="read the signers' PINs from standard input, one per line, in "
                             "the order the signers are named (for scripts)")
    pair = argparse.ArgumentParser(add_help=False)
    pair.add_argument("--dealer", metavar="ID", help="the dealer signing (PIN asked for)")
    pair.add_argument("--supervisor", metavar="ID",
                      help="the supervisor (or operator) signing (PIN asked for)")
    counted = argparse.ArgumentParser(add_help=False)
    counted.add_argument("--chips", required=True, help=CHIPS_HELP)

    actions.add_parser("opener", parents=[common, pair, counted],
                       help="the tray counted at the start of the gaming day")
    actions.add_parser("shift-count", parents=[common, pair, counted],
                       help="the tray counted at the shift change, before the next shift "
                            "starts (closes this shift, opens the next; not the last shift: "
                            "the closer counts that)")
    actions.add_parser("closer", parents=[common, pair, counted],
                       help="the tray counted at the end of the gaming day")
    for kind, what in (("fill", "chips brought from the cage to the tray"),
                       ("credit", "chips taken from the tray to the cage")):
        s = actions.add_parser(kind, parents=[common, pair, counted], help=what)
        s.add_argument("--number", type=int, metavar="N",
                       help="the pre-printed slip's number (must be the next in sequence); "
                            "numbered by the station when left out")
        s.add_argument("--note", help="why (e.g. 'tray low on 2500s')")
    b = actions.add_parser("buy-in", parents=[common, counted],
                           help="cash or a marker exchanged for chips (to the drop)")
    b.add_argument("--dealer", metavar="ID", required=True, help="the dealer (PIN asked for)")
    b.add_argument("--amount", type=int, required=True,
                   help="the cash or marker, in minor units")
    b.add_argument("--marker", metavar="NUMBER", help="a marker's number (tender: marker)")
    b.add_argument("--seat", type=int, help="the player's seat")
    d = actions.add_parser("drop", parents=[common],
                           help="the soft count's drop of one gaming day (two accounting users)")
    d.add_argument("--gaming-day", required=True, metavar="YYYY-MM-DD")
    d.add_argument("--shift", metavar="NAME",
                   help="the drop box of this shift only (changed at the shift change; the "
                        "day's drop is then the sum of its shifts')")
    d.add_argument("--cash", type=int, required=True, help="cash counted, minor units")
    d.add_argument("--markers", type=int, default=0, help="markers counted, minor units")
    d.add_argument("--counter", metavar="ID", action="append", default=[],
                   help="an accounting user counting (give two)")
    v = actions.add_parser("void", parents=[common],
                           help="void a fill or credit slip (it keeps its number)")
    v.add_argument("--slip", required=True, choices=["fill", "credit"])
    v.add_argument("--number", type=int, required=True)
    v.add_argument("--year", type=int, help="the slip's year (default: this gaming day's)")
    v.add_argument("--supervisor", metavar="ID", required=True,
                   help="the first signer (the jurisdiction's first void signature, a "
                        "supervisor by default)")
    v.add_argument("--second", metavar="ID", required=True,
                   help="the second signer (the jurisdiction's second void signature: a cage "
                        "cashier by default, a second supervisor or operator where the table "
                        "signs fills in one step)")
    v.add_argument("--reason", required=True, help="why (journaled with the signers' names)")
    pr = actions.add_parser("print", parents=[common],
                            help="write a slip as a PDF: a fill or credit slip, a page per "
                                 "copy (--slip, --number), a fill or credit request "
                                 "(--request) or the table inventory slip (--inventory, "
                                 "--gaming-day)")
    pr.add_argument("--slip", choices=["fill", "credit"])
    pr.add_argument("--number", type=int, help="the slip's number (T1-F-2026-00042: 42)")
    pr.add_argument("--request", type=int, metavar="N",
                    help="the request's number (T1-R-2026-00007: 7)")
    pr.add_argument("--year", type=int,
                    help="the slip's or request's year (default: this gaming day's)")
    pr.add_argument("--inventory", choices=["opener", "shift", "closer"])
    pr.add_argument("--gaming-day", metavar="YYYY-MM-DD")
    pr.add_argument("--shift", metavar="NAME", help="--inventory shift: whose change count")
    pr.add_argument("--out", metavar="FILE.pdf", required=True)
    pr.add_argument("--paper", choices=("A4", "letter"), default="A4")
    s = actions.add_parser("slips", parents=[common], help="list the table's slips")
    s.add_argument("--year", type=int)
    s.add_argument("--json", action="store_true", help="one JSON object per slip")
    p.set_defaults(func=run)


def _book(journal: Journal, args: argparse.Namespace) -> TableAccounting:
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.table.accounting import TableAccounting

    return TableAccounting(journal, args.table, load_accounting_settings(args.accounting_config),
                           load_gaming_calendar(args.station_config))


def _chips(book: TableAccounting, text: str, what: str) -> Chips:
    from dealer_station.accounting.chips import parse_chips

    return parse_chips(text, book.settings.denominations, what=what)


def _signers(args: argparse.Namespace, journal: Journal, ids: list[tuple[str, str | None]],
             ) -> list[User]:
    """Sign each named person in by PIN, at the table (each attempt is journaled)."""
    from dealer_station.accounting.ledger import AccountingRefused
    from dealer_station.audit.users import Users
    from dealer_station.cli.users import _PinSource

    missing = [what for what, uid in ids if not uid]
    if missing:
        raise AccountingRefused(f"{args.action} needs two signatures: {' and '.join(missing)} "
                                f"not given (--{missing[0].split()[0]} ID)")
    named = [uid for _, uid in ids]
    if len(set(named)) != len(named):
        raise AccountingRefused(f"{args.action} needs two different people; {named[0]} cannot "
                                f"sign twice")
    users = Users(journal)
    pins = _PinSource(args.pin_stdin)
    out = []
    for _, uid in ids:
        assert uid is not None
        out.append(users.authenticate(uid, pins.read(f"PIN for {uid}: "), table_id=args.table))
    return out


def run(args: argparse.Namespace) -> int:
    if not args.table or not args.table.strip():
        raise StationError("--table: give a table id, e.g. --table T1")
    with open_store(args, write=args.action not in ("slips", "print")) as store:
        book = _book(store.journal, args)
        return _ACTIONS[args.action](args, store.journal, book)


def _tray(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    from dealer_station.events.accounting import (
        TrayClosed,
        TrayDifference,
        TrayOpened,
        TrayShiftCounted,
    )
    from dealer_station.table.accounting import accounting_event

    money = book.settings.money.text
    chips = _chips(book, args.chips, args.action)
    book.check(args.action, chips=chips)
    dealer, sup = _signers(args, journal, [("dealer", args.dealer),
                                           ("supervisor", args.supervisor)])
    if args.action == "shift-count":
        counted = accounting_event(book.shift_count(chips, dealer, sup), TrayShiftCounted)
        print(f"shift count at the end of the {counted.shift} shift of gaming day "
              f"{counted.gaming_day} at table {args.table}: {chips} = "
              f"{money(chips.total)}, signed {dealer.actor} and {sup.actor}")
    elif args.action == "opener":
        records = book.opener(chips, dealer, sup)
        opener = accounting_event(records[0], TrayOpened)
        print(f"opener of gaming day {opener.gaming_day} at table {args.table}: "
              f"{chips} = {money(chips.total)}, signed {dealer.actor} and {sup.actor}")
        for r in records[1:]:
            print(f"EXCEPTION: the opener differs from the previous closer by "
                  f"{money(accounting_event(r, TrayDifference).difference)} (record {r.seq})")
    else:
        closer = accounting_event(book.closer(chips, dealer, sup), TrayClosed)
        print(f"closer of gaming day {closer.gaming_day} at table {args.table}: {chips} "
              f"= {money(chips.total)}, signed {dealer.actor} and {sup.actor}")
    return 0


def _slip(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    from dealer_station.table.accounting import slip_event

    money = book.settings.money.text
    chips = _chips(book, args.chips, args.action)
    book.check(args.action, chips=chips, number=args.number)
    dealer, sup = _signers(args, journal, [("dealer", args.dealer),
                                           ("supervisor", args.supervisor)])
    r = book.slip(args.action, chips, dealer, sup, number=args.number, note=args.note)
    slip = slip_event(r)
    print(f"{args.action} slip {slip.number} of {slip.year} at table "
          f"{args.table}: {chips} = {money(chips.total)}, signed {dealer.actor} and "
          f"{sup.actor}")
    return 0


def _buy_in(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    from dealer_station.audit.users import Users
    from dealer_station.cli.users import _PinSource

    money = book.settings.money.text
    chips = _chips(book, args.chips, "buy-in")
    book.check("buy-in", chips=chips)
    tender = "marker" if args.marker else "cash"
    if chips.total != args.amount:
        raise StationError(f"buy-in: the chips given are worth {chips.total}, the {tender} is "
                           f"{args.amount}; they must be equal")
    pin = _PinSource(args.pin_stdin).read(f"PIN for {args.dealer}: ")
    dealer = Users(journal).authenticate(args.dealer, pin, table_id=args.table)
    book.buy_in(tender, args.amount, chips, dealer, seat=args.seat, marker=args.marker)
    print(f"buy-in at table {args.table}: {tender} {money(args.amount)} for {chips}")
    return 0


def _drop(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    money = book.settings.money.text
    try:
        day = date.fromisoformat(args.gaming_day)
    except ValueError:
        raise StationError(f"--gaming-day: {args.gaming_day!r} is not a date like "
                           f"2026-11-25") from None
    for name in ("cash", "markers"):
        if getattr(args, name) < 0:
            raise StationError(f"--{name}: must be 0 or more minor units")
    shift = book.shift_named(args.shift) if args.shift else None
    book.check("drop", gaming_day=day, shift=shift)
    counters = list(args.counter) + [None] * (2 - len(args.counter))
    if len(args.counter) > 2:
        raise StationError("--counter: give exactly two accounting users")
    a, b = _signers(args, journal, [("first counter", counters[0]),
                                    ("second counter", counters[1])])
    book.drop(day, args.cash, args.markers, a, b, shift=shift)
    of = f"the {shift} shift of gaming day {day}" if shift else f"gaming day {day}"
    print(f"drop of {of} at table {args.table}: cash "
          f"{money(args.cash)}, markers {money(args.markers)}, counted by "
          f"{a.actor} and {b.actor}")
    return 0


def _void(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    year = args.year or book.today().year
    book.ledger().slip(args.slip, year, args.number)
    if not args.reason.strip():
        raise StationError("--reason: a void needs a reason")
    first, second = _signers(args, journal, [("supervisor", args.supervisor),
                                             ("second signer", args.second)])
    book.void(args.slip, args.number, year, [first, second], args.reason)
    print(f"{args.slip} slip {args.number} of {year} at table {args.table}: voided by "
          f"{first.actor} and {second.actor} ({args.reason.strip()})")
    return 0


def _slips(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    from dealer_station.audit.journal import JournalTampered

    money = book.settings.money.text
    # The list is read from the chain: said loudly, and exit 1, when its newest records were
    # cut off (a slip written after the anchor may be missing from it).
    cut: str | None = None
    try:
        journal.check_head(args.table)
    except JournalTampered as e:
        cut = str(e)
        print(f"WARNING: {cut}", file=sys.stderr)
    ledger = book.ledger()
    for (kind, year, number), s in sorted(ledger.slips.items(), key=lambda kv: kv[1].seq):
        if args.year and year != args.year:
            continue
        row: dict[str, Any] = {"table": args.table, "slip": kind, "year": year,
                               "number": number, "gaming_day": s.event.gaming_day,
                               "chips": s.event.chips, "total": s.event.total,
                               "signers": list(s.event.signers), "seq": s.seq, "ts": s.ts,
                               "voided": s.void is not None,
                               "void_reason": s.void.reason if s.void else None}
        if args.json:
            print(json.dumps(row, ensure_ascii=False, sort_keys=True))
        else:
            state = f"  VOID ({s.void.reason})" if s.void else ""
            print(f"{kind:<6} {year}-{number:05d}  {s.event.gaming_day}  "
                  f"{money(s.event.total):>16}  {' + '.join(s.event.signers)}{state}")
    return 1 if cut else 0


def _print(args: argparse.Namespace, journal: Journal, book: TableAccounting) -> int:
    from dealer_station.reports.accounting_pdf import (
        build_inventory_pdf,
        build_request_pdf,
        build_slip_pdf,
    )

    if not str(args.out).lower().endswith(".pdf"):
        raise StationError(f"--out {args.out}: give a file name ending in .pdf")
    for name in ("number", "request"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise StationError(f"--{name}: give a number of 1 or more")
    ledger = book.ledger()
    if args.request is not None and not (args.slip or args.inventory or args.number):
        built = build_request_pdf(journal, ledger, book.settings,
                                  args.year or book.today().year, args.request, out=args.out,
                                  paper=args.paper)
    elif args.slip and args.number is not None and not (args.inventory or args.request):
        built = build_slip_pdf(journal, ledger, book.settings, args.slip,
                               args.year or book.today().year, args.number, out=args.out,
                               paper=args.paper)
    elif args.inventory and args.gaming_day and not args.slip and args.request is None:
        try:
            date.fromisoformat(args.gaming_day)
        except ValueError:
            raise StationError(f"--gaming-day: {args.gaming_day!r} is not a date like "
                               f"2026-11-25") from None
        if args.inventory == "shift" and not args.shift:
            raise StationError("print --inventory shift: give --shift NAME")
        built = build_inventory_pdf(journal, ledger, book.settings, args.inventory,
                                    args.gaming_day, out=args.out, paper=args.paper,
                                    shift=book.shift_named(args.shift) if args.shift else None)
    else:
        raise StationError("print: give one of --slip fill|credit --number N, --request N, "
                           "or --inventory opener|shift|closer --gaming-day YYYY-MM-DD "
                           "[--shift NAME]")
    pages = f"{built.pages} page{'s' if built.pages != 1 else ''}"
    print(f"wrote {built.title.lower()} ({pages}) to {built.path}")
    return 0


_ACTIONS = {"opener": _tray, "shift-count": _tray, "closer": _tray, "fill": _slip, "credit": _slip,
            "buy-in": _buy_in, "drop": _drop, "void": _void, "slips": _slips, "print": _print}
