"""``dealer-station table``: see a table's state and resolve a halt from the command line.

A station that stops mid-round (a crash, a power cut, a kill) and comes back stopped needs a
supervisor: on the screen (the Supervisor screen's Resume, Correct card and Void) or here,
when the screen cannot be used. ``status`` only reads the journal; ``resume``, ``void`` and
``correct`` sign a supervisor or operator in (``--as``, their PIN asked for) and act through
the table service, so they take the table's one-writer lease: while a station runs the table
they are refused (resolve it on that station's screen instead).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from dealer_station import registry as games
from dealer_station.cli.audit import open_store, store_options
from dealer_station.cli.users import _PinSource
from dealer_station.errors import StationError
from dealer_station.table.parts import TABLE

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal, Record
    from dealer_station.events.table import RoundHalted
    from dealer_station.table.base import TableService

#: Faults after which the card really dealt can be entered.
CARD_FAULTS = ("misread", "impossible_card")
DESCRIPTION = ("See whether a table is stopped, and resolve the stop: resume, void the round "
               "or hand, or enter the card really dealt. 'status' only reads the journal. The "
               "others sign a supervisor or operator in (--as, PIN asked for) and take the "
               "table's one-writer lease: while a station runs the table they are refused; "
               "resolve it on that station's Supervisor screen instead.")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("table", help="a table's state, and resolving a halt (supervisors)",
                       description=DESCRIPTION)
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    common = store_options()
    common.add_argument("--table", required=True, help="the table id, e.g. T1")

    status = actions.add_parser("status", parents=[common],
                                help="the round under way and whether the table is stopped")
    status.add_argument("--json", action="store_true", help="one JSON object")

    acting = argparse.ArgumentParser(add_help=False)
    acting.add_argument("--reason", required=True, help="why (journaled with your name)")
    acting.add_argument("--as", dest="as_user", metavar="USER", required=True,
                        help="the supervisor or operator acting (their PIN is asked for)")
    acting.add_argument("--pin-stdin", action="store_true",
                        help="read the PIN from standard input (for scripts)")
    actions.add_parser("resume", parents=[common, acting],
                       help="resume a stopped round: the fault is gone")
    actions.add_parser("void", parents=[common, acting],
                       help="void the round or hand under way (wagers or chips go back)")
    correct = actions.add_parser("correct", parents=[common, acting],
                                 help="enter the card really dealt after a misread or an "
                                      "impossible card")
    correct.add_argument("--card", required=True, help="the card's code, e.g. 10H, QS, JK")
    give_back = actions.add_parser(
        "return-pot", parents=[common, acting],
        help="Bourré: give the pot a closed session left back to its players instead of "
             "carrying it into the next session (a supervisor)")
    give_back.add_argument("--shares", metavar="SEAT=CHIPS,...",
                           help="how the pot is shared, e.g. 1=4,3=3 (default: evenly among "
                                "the seats that ended the session with chips)")
    p.set_defaults(func=run)


def parse_shares(text: str | None) -> dict[int, int] | None:
    """``1=4,3=3`` -> {1: 4, 3: 3}; None when not given."""
    if text is None:
        return None
    out: dict[int, int] = {}
    for part in text.split(","):
        seat, eq, chips = part.strip().partition("=")
        if not eq or not seat.strip().isdigit() or not chips.strip().isdigit():
            raise StationError(f"--shares {text!r}: give SEAT=CHIPS pairs, e.g. 1=4,3=3")
        if int(seat) in out:
            raise StationError(f"--shares: seat {int(seat)} is given twice")
        out[int(seat)] = int(chips)
    return out


def run(args: argparse.Namespace) -> int:
    if not args.table or not args.table.strip():
        raise StationError("--table: give a table id, e.g. --table T1")
    with open_store(args, write=args.action != "status") as store:
        journal = store.journal
        game = _game(journal, args.table)
        if args.action == "status":
            return _status(journal, args.table, game, as_json=args.json)
        return _act(args, journal, game)


def _game(journal: Journal, table_id: str) -> str:
    # The game its station last started with, else the one its configuration is for (a table
    # driven without a station, as by a script, journals no start-up).
    from dealer_station.events.base import Codec
    from dealer_station.events.table import ConfigChanged, StationStarted

    said = journal.events(table_id, kinds=[StationStarted.KIND]) or journal.events(
        table_id, kinds=[ConfigChanged.KIND])
    if not said:
        known = [t for t in journal.tables() if t != "station"]
        raise StationError(f"no table {table_id!r} in this journal (tables: "
                           f"{', '.join(known) or 'none'})")
    last = max(said, key=lambda r: r.seq)
    e = Codec((StationStarted, ConfigChanged)).decode(last.kind, last.payload)
    game = e.game if isinstance(e, StationStarted | ConfigChanged) else None
    if game not in games.names():
        raise StationError(f"table {table_id}: its last start-up names no game this station "
                           f"plays ({game!r})")
    return str(game)


def open_halt(journal: Journal, table_id: str, game: str) -> tuple[Record, RoundHalted] | None:
    """The table's halt that nothing has resolved yet (read from the chain), if any, with
    what it says."""
    from dealer_station.events.kinds import closing_statuses, halt_ending_kinds
    from dealer_station.events.parts import EVENTS
    from dealer_station.events.table import RoundHalted

    halts = journal.events(table_id, kinds=[RoundHalted.KIND])
    if not halts:
        return None
    halt = halts[-1]
    codec = games.game(game).part(EVENTS)()
    ending = halt_ending_kinds(codec)     # its resolution, a void of its round
    for r in journal.records(table_id, from_seq=halt.seq + 1):
        if r.kind in ending:
            settled = codec.decode(r.kind, r.payload).halt_settled()
            if settled is not None and settled[0] == halt.seq:
                return None
        if r.round_no == halt.round_no and r.kind in closing_statuses():
            return None
    return halt, RoundHalted.from_payload(halt.payload)


def resolutions(halt: RoundHalted | None, round_open: bool) -> list[str]:
    if halt is None:
        return []
    found = ["resume"]
    if round_open:
        found.append("void")
        if halt.fault in CARD_FAULTS:
            found.append("correct")
    return found


def _status(journal: Journal, table_id: str, game: str, *, as_json: bool) -> int:
    open_rounds = journal.open_rounds(table_id)
    under_way = open_rounds[-1] if open_rounds else None
    stopped = open_halt(journal, table_id, game)
    halt, said = stopped if stopped is not None else (None, None)
    found = resolutions(said, under_way is not None)
    unit = games.game(game).unit
    if as_json:
        out: dict[str, Any] = {
            "table": table_id, "game": game,
            "round": under_way.round_no if under_way else None,
            "halted": halt is not None,
            "halt": None if halt is None or said is None else {
                "seq": halt.seq, "ts": halt.ts, "actor": halt.actor,
                "reason": said.reason, "fault": said.fault, "remedy": said.remedy},
            "resolutions": found}
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"table {table_id}: {games.game(game).label}")
    print(f"{unit} under way: {under_way.round_no if under_way else 'none'}")
    if halt is None or said is None:
        print("not stopped")
        return 0
    print(f"STOPPED since record {halt.seq} ({halt.ts}): {said.reason}")
    print(f"fault: {said.fault}")
    if said.remedy:
        print(f"remedy: {said.remedy}")
    print("a supervisor or operator can:")
    for action in found:
        card = " --card CODE" if action == "correct" else ""
        print(f"  dealer-station table {action} --table {table_id}{card} --reason TEXT "
              f"--as USER")
    return 0


def _act(args: argparse.Namespace, journal: Journal, game: str) -> int:
    from dealer_station.audit.users import PermissionDenied, Users

    users = Users(journal)
    pin = _PinSource(args.pin_stdin).read(f"PIN for {args.as_user}: ")
    user = users.authenticate(args.as_user, pin, table_id=args.table)
    table = _open_table(journal, args.table, game, dealer=user.actor)
    try:
        if args.action == "return-pot":
            return_pot = getattr(table, "return_pot", None)
            if return_pot is None:
                raise StationError(f"{games.game(game).label} has no pot to return")
            try:
                shares = return_pot(user, args.reason, parse_shares(args.shares))
            except PermissionDenied as exc:
                raise StationError(str(exc)) from None
            given = ", ".join(f"seat {seat}: {chips:,}" for seat, chips in sorted(shares.items()))
            print(f"table {args.table}: pot of {sum(shares.values()):,} chips returned by "
                  f"{user.actor} ({given})")
            sys.stdout.flush()
            return 0
        if table.halt is None and args.action != "void":
            raise StationError(f"table {args.table} is not stopped: nothing to {args.action}")
        try:
            if args.action == "resume":
                table.resume(user, args.reason)
                print(f"table {args.table}: resumed by {user.actor}")
            elif args.action == "void":
                voided = table.round_no
                table.void(user, args.reason)
                print(f"table {args.table}: {games.game(game).unit} "
                      f"{voided} voided by {user.actor}")
            else:
                table.correct_card(user, args.card, args.reason)
                print(f"table {args.table}: card corrected to {args.card.upper()} by "
                      f"{user.actor}")
        except PermissionDenied as exc:
            raise StationError(str(exc)) from None
    finally:
        table.lease.release()
    sys.stdout.flush()
    return 0


def _open_table(journal: Journal, table_id: str, game: str, *, dealer: str) -> TableService:
    """The table's service as the journal leaves it (its configuration from the journal), or
    a clear refusal if a station holds the table."""
    table: TableService = games.game(game).part(TABLE)(
        journal, table_id, config_path=None, dealer=dealer)
    return table
