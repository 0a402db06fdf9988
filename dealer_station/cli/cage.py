"""``dealer-station cage``: fills and credits through the cage (docs/accounting.md, "The cage").

``request`` (the table's supervisor), ``issue`` (the cage cashier, against the request: the
chips must be those requested), ``carry`` (security), ``receive`` (the table: the dealer and
the supervisor; the chips must be those issued) and ``void`` (two signers and a reason, at
any step). Each ``--signer`` is asked for a PIN (or reads it with ``--pin-stdin``, one line
per signer in the order given); the signers are named in the order of the jurisdiction's
signatures (``[cage]`` of the accounting settings). ``list`` shows the requests of one table
or every table, with their states and which are overdue (``--json``: one object per request);
``screen`` opens the cage's touch screen. Bad input is refused before anyone signs in, and
nothing is journaled.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from dealer_station.cli._signers import sign_in, signer_options
from dealer_station.cli.accounting import CHIPS_HELP
from dealer_station.cli.audit import open_store, store_options
from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.accounting.chips import Chips
    from dealer_station.accounting.requests import Request
    from dealer_station.audit.journal import Journal
    from dealer_station.table.accounting import TableAccounting
    from dealer_station.table.cage import CageDesk

#: The JSON keys of ``cage list --json`` (a contract: tools read them).
LIST_KEYS = ("table", "request", "year", "label", "slip", "state", "chips", "total",
             "requested_at", "requested_by", "slip_number", "slip_year", "slip_label",
             "steps", "overdue", "waited_minutes")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("cage", help="fills and credits through the cage: request, issue, "
                                    "carry, receive, void; list; the cage's screen",
                       description=__doc__)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = store_options()
    common.add_argument("--accounting-config", metavar="FILE",
                        help="accounting settings with [cage] (default config/accounting.toml)")
    common.add_argument("--station-config", metavar="FILE",
                        help="station settings with [gaming_day] (default config/station.toml)")
    table = argparse.ArgumentParser(add_help=False)
    table.add_argument("--table", required=True, help="the table id, e.g. T1")
    signed = signer_options("a person signing, in the order of the jurisdiction's signatures")
    which = argparse.ArgumentParser(add_help=False)
    which.add_argument("--request", type=int, required=True, metavar="N",
                       help="the request's number (T1-R-2026-00007 is 7)")
    which.add_argument("--year", type=int, help="the request's year (default: this gaming "
                                                "day's)")
    chips = argparse.ArgumentParser(add_help=False)
    chips.add_argument("--chips", required=True, help=CHIPS_HELP)

    r = actions.add_parser("request", parents=[common, table, signed, chips],
                           help="a fill or credit requested at the table (the supervisor)")
    r.add_argument("--slip", required=True, choices=["fill", "credit"])
    r.add_argument("--note", help="why, printed on the request and slip (optional)")
    actions.add_parser("issue", parents=[common, table, signed, which, chips],
                       help="the cage's slip against a request (the cage cashier); the chips "
                            "must be those requested")
    actions.add_parser("carry", parents=[common, table, signed, which],
                       help="security takes the issued slip and its chips to the table")
    actions.add_parser("receive", parents=[common, table, signed, which, chips],
                       help="the table signs for the slip (the dealer and the supervisor); "
                            "the chips must be those issued")
    v = actions.add_parser("void", parents=[common, table, signed, which],
                           help="void a request at any step, or its received slip (two "
                                "signers)")
    v.add_argument("--reason", required=True, help="why (journaled with the signers' names)")
    ls = actions.add_parser("list", parents=[common],
                            help="the requests and their states (every table, or --table)")
    ls.add_argument("--table", help="only this table")
    ls.add_argument("--open", action="store_true", help="only those not received or voided")
    ls.add_argument("--json", action="store_true", help="one JSON object per request")
    sc = actions.add_parser("screen", parents=[common], help="the cage's touch screen")
    sc.add_argument("--tables", metavar="T1,T2", help="only these tables (default: every one)")
    sc.add_argument("--fullscreen", action="store_true", help="fill the screen")
    sc.add_argument("--slips", metavar="DIR",
                    help="where printed slips are saved when no printer is set (default: "
                         "~/cage-slips)")
    sc.add_argument("--screenshots", metavar="DIR",
                    help="write the screen's screenshots from a demo journal of seven "
                         "tables, and exit")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.action == "screen" and args.screenshots:
        from pathlib import Path

        from dealer_station.ui.cage_demo import cage_screenshots

        for path in cage_screenshots(Path(args.screenshots)):
            print(path)
        return 0
    if args.action == "screen":
        from dealer_station.ui.cage_window import run_screen

        return int(run_screen(args))
    table = getattr(args, "table", None)
    if args.action != "list" and (not table or not table.strip()):
        raise StationError("--table: give a table id, e.g. --table T1")
    with open_store(args, write=args.action != "list") as store:
        if args.action == "list":
            return _list(args, store.journal)
        desk = _desk(store.journal, args)
        return _ACTIONS[args.action](args, store.journal, desk)


def _desk(journal: Journal, args: argparse.Namespace) -> CageDesk:
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.table.accounting import TableAccounting
    from dealer_station.table.cage import CageDesk

    book = TableAccounting(journal, args.table, load_accounting_settings(args.accounting_config),
                           load_gaming_calendar(args.station_config))
    return CageDesk(book)


def _chips(book: TableAccounting, text: str, what: str) -> Chips:
    from dealer_station.accounting.chips import parse_chips

    return parse_chips(text, book.settings.denominations, what=what)


def _request_of(desk: CageDesk, args: argparse.Namespace) -> Request:
    year = args.year or desk.book.today().year
    return desk.ledger().request(year, args.request)


def _request(args: argparse.Namespace, journal: Journal, desk: CageDesk) -> int:
    from dealer_station.events.accounting import SlipRequested
    from dealer_station.table.accounting import accounting_event

    action = f"a {args.slip} request"
    if not desk.rules.through_cage:
        raise StationError(f"{action}: this jurisdiction's fills and credits are signed at "
                           f"the table in one step (dealer-station accounting {args.slip})")
    chips = _chips(desk.book, args.chips, action)
    book = desk.book
    book.ledger().check_open_shift(book.today(), book.shift_now(), action)
    (sup,) = sign_in(args, journal, action, slots=("supervisor",))
    asked = accounting_event(desk.request(args.slip, chips, sup, note=args.note),
                             SlipRequested)
    money = desk.book.settings.money.text
    print(f"{args.slip} request {desk.ledger().request(asked.year, asked.request).label}: "
          f"{chips} = {money(chips.total)}, requested by {sup.actor}")
    return 0


def _issue(args: argparse.Namespace, journal: Journal, desk: CageDesk) -> int:
    req = _request_of(desk, args)
    chips = _chips(desk.book, args.chips, f"issuing {req.label}")
    users = sign_in(args, journal, f"issuing {req.label}", slots=desk.rules.issue)
    desk.issue(req.event.year, req.event.request, chips, users)
    done = desk.ledger().request(req.event.year, req.event.request)
    print(f"{done.kind} slip {done.slip_label} issued against {done.label}: "
          f"{desk.book.settings.money.text(chips.total)}, signed "
          f"{', '.join(u.actor for u in users)}")
    return 0


def _carry(args: argparse.Namespace, journal: Journal, desk: CageDesk) -> int:
    req = _request_of(desk, args)
    users = sign_in(args, journal, f"carrying {req.label}", slots=desk.rules.runner)
    desk.carry(req.event.year, req.event.request, users)
    print(f"{req.kind} slip {req.slip_label} ({req.label}) in transit, carried by "
          f"{', '.join(u.actor for u in users)}")
    return 0


def _receive(args: argparse.Namespace, journal: Journal, desk: CageDesk) -> int:
    req = _request_of(desk, args)
    chips = _chips(desk.book, args.chips, f"receiving {req.label}")
    users = sign_in(args, journal, f"receiving {req.label}", slots=desk.rules.receipt)
    desk.receive(req.event.year, req.event.request, chips, users)
    print(f"{req.kind} slip {req.slip_label} ({req.label}) received at table {args.table}: "
          f"{desk.book.settings.money.text(chips.total)}, signed "
          f"{', '.join(u.actor for u in users)}")
    return 0


def _void(args: argparse.Namespace, journal: Journal, desk: CageDesk) -> int:
    req = _request_of(desk, args)
    if not args.reason.strip():
        raise StationError("--reason: a void needs a reason")
    if req.state == "voided":
        raise StationError(f"{req.label} is already voided")
    users = sign_in(args, journal, f"voiding {req.label}", slots=desk.rules.void)
    desk.void(req.event.year, req.event.request, args.reason, users)
    print(f"{req.label} ({req.state}) voided by {' and '.join(u.actor for u in users)}: "
          f"{args.reason.strip()}")
    return 0


def request_row(r: Request, now: datetime, alert_minutes: int) -> dict[str, Any]:
    """One request as ``cage list --json`` prints it (the keys of LIST_KEYS)."""
    from dealer_station.accounting.requests import requested_at

    e = r.event
    issue = r.issue
    waited = (now - requested_at(r)).total_seconds() / 60
    return {"table": r.table, "request": e.request, "year": e.year, "label": r.label,
            "slip": e.slip, "state": r.state, "chips": dict(e.chips), "total": e.total,
            "requested_at": r.requested.ts, "requested_by": e.signers[0],
            "slip_number": issue.number if issue else None,
            "slip_year": issue.year if issue else None, "slip_label": r.slip_label,
            "steps": [{"step": name, "seq": c.seq, "ts": c.ts, "by": c.actor}
                      for name, c in r.steps()],
            "overdue": r.overdue(now, alert_minutes),
            "waited_minutes": round(waited, 1) if r.open else None}


def _list(args: argparse.Namespace, journal: Journal) -> int:
    from dealer_station.accounting.requests import STATE_WORDS
    from dealer_station.gameconfig import load_accounting_settings
    from dealer_station.table.cage import table_requests

    settings = load_accounting_settings(args.accounting_config)
    now = journal.clock()
    tables = [args.table] if args.table else journal.tables()
    money = settings.money.text
    for t in tables:
        for r in sorted(table_requests(journal, t), key=lambda r: r.requested.seq):
            if args.open and not r.open:
                continue
            row = request_row(r, now, settings.cage.alert_minutes)
            if args.json:
                print(json.dumps(row, ensure_ascii=False, sort_keys=True))
                continue
            late = (f"  OVERDUE: waiting {row['waited_minutes']:.0f} min"
                    if row["overdue"] else "")
            print(f"{r.label}  {r.kind:<6} {money(r.event.total):>16}  "
                  f"{STATE_WORDS[r.state]:<22} {r.slip_label or '':<18}{late}")
    return 0


_ACTIONS = {"request": _request, "issue": _issue, "carry": _carry, "receive": _receive,
            "void": _void}
