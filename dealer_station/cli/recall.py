"""``dealer-station recall``: the last rounds of a table, every detail, from the journal."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from dealer_station import registry as games
from dealer_station.cli.audit import local_time, open_store, store_options
from dealer_station.table.parts import RECALL_TEXT

if TYPE_CHECKING:
    from dealer_station.table.recall_model import Recall, RecordLine


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("recall", parents=[store_options()],
                       help="game recall: the last rounds or hands of a table",
                       description="Show the last rounds of a table as the journal records "
                                   "them: wagers per seat, cards in order, each stage's "
                                   "settlement, payouts, the dealer, voids and corrections.")
    p.add_argument("--table", help="table id (may be left out when the journal holds one)")
    p.add_argument("--last", type=int, default=10, metavar="N",
                   help="how many rounds (default 10)")
    p.add_argument("--round", type=int, metavar="N", help="only round N")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--records", action="store_true",
                   help="also list each round's journal records and hashes")
    p.set_defaults(func=run)


def pick_table(journal: Any, table: str | None) -> str:
    from dealer_station.errors import StationError

    tables = journal.tables()
    if table:
        if table not in tables:
            raise StationError(f"table {table!r} has no records in this journal"
                               + (f" (tables: {', '.join(tables)})" if tables else ""))
        return table
    if len(tables) == 1:
        return str(tables[0])
    if not tables:
        raise StationError("the journal holds no tables yet")
    raise StationError(f"the journal holds several tables ({', '.join(tables)}): choose one "
                       f"with --table")


def run(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError
    from dealer_station.table.recall import recall, recall_round

    if args.last < 1:
        raise StationError(f"--last must be at least 1, got {args.last}")
    with open_store(args, write=False) as store:
        table = pick_table(store.journal, args.table)
        if args.round is not None:
            info = store.journal.round_info(table, args.round)
            if info is None:
                raise StationError(f"table {table} has no round {args.round}")
            rounds = [recall_round(store.journal, info)]
        else:
            rounds = recall(store.journal, table, args.last)
    if args.json:
        # The JSON is a contract other tools read: exactly what recall has always printed.
        print(json.dumps([r.to_json() for r in rounds], indent=2, ensure_ascii=False))
        return 0
    if not rounds:
        print(f"table {table}: no rounds recorded")
    for r in rounds:
        print(format_round(r, records=args.records))
    return 0


def format_round(r: Recall, *, records: bool = False) -> str:
    """A recalled round or hand as text (the registry's ``recall_text`` part of its game)."""
    text: str = games.game(r.header.game).part(RECALL_TEXT)(r, records=records)
    return text


# --- what every game's text shows alike -------------------------------------------------------

def when(ts: str | None) -> str:
    return local_time(ts) if ts else "-"


def exception_text(r: Recall) -> list[str]:
    """The void, the exceptions and the replay differences, with the recall model's words."""
    from dealer_station.table.recall_model import DIFFERENCE_LABEL

    lines = []
    if r.void_reason:
        lines.append(f"{r.status_label}: {r.void_reason}")
    for e in r.exceptions:
        detail = r.exception_detail(e)
        lines.append(f"  ! {e.label} by {e.actor} at {when(e.ts)}"
                     + (f": {e.why}" if e.why else "") + (f" [{detail}]" if detail else ""))
    for d in r.differences:
        lines.append(f"  !! {DIFFERENCE_LABEL}: {d}")
    return lines


def records_text(records: tuple[RecordLine, ...]) -> list[str]:
    """Each journal record of the round: its number, what it is, who, its hash."""
    return [f"  [{rec.seq}] {rec.label:<26} {rec.actor:<22} {rec.hash[:16]}" for rec in records]
