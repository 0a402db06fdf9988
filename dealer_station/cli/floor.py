"""``dealer-station floor``: forward a table's journal to the floor database, and the floor's
grid of tables for scripts.

``floor sync --db LOCAL --floor URL`` exits 0 once the floor holds every record the table had
when it started, 1 when the floor refused the table's chain (the reason is printed and kept
at the floor), and 2 with a message when the floor cannot be reached.
"""

from __future__ import annotations

import argparse
import json
import sys

from dealer_station.cli.audit import open_store, store_options

#: The station's own stream of users: it has this name at every table, so it stays local.
LOCAL_ONLY = ("station",)


def floor_option(p: argparse.ArgumentParser, *, required: bool) -> None:
    p.add_argument("--floor", metavar="URL", required=required,
                   help="the floor's PostgreSQL database, e.g. "
                        "postgresql+psycopg://table@floor-host/floor")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("floor", help="forward to the floor database; the floor's tables",
                       description=__doc__)
    fsub = p.add_subparsers(dest="floor_command", metavar="COMMAND")
    s = fsub.add_parser("sync", parents=[store_options()],
                        help="forward what the floor lacks and exit once it holds it all",
                        description="Forward every record of the local journal's tables that "
                                    "the floor does not hold yet. Exit 0 when the floor holds "
                                    "them all, 1 if the floor refused a table's chain, 2 if "
                                    "the floor cannot be reached.")
    floor_option(s, required=True)
    s.add_argument("--table", action="append", dest="tables", metavar="ID",
                   help="only this table (repeatable; default: every table in the journal)")
    s.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="give up (exit 2) after this long")
    s.set_defaults(func=run_sync)
    st = fsub.add_parser("status", help="the floor's tables: state, head, lag, configuration",
                         description="One line per table the floor has heard from (the pit "
                                     "podium's grid). --json prints a list of objects with "
                                     "table, game, seq, hash, lag_seconds, lag_records, state, "
                                     "round, dealer, config_version, refused, refused_reason "
                                     "and contact_at.")
    floor_option(st, required=True)
    st.add_argument("--json", action="store_true", help="a JSON list, for scripts")
    st.set_defaults(func=run_status)
    p.set_defaults(func=lambda _a: (p.print_help(), 2)[1])


def forwarded_tables(tables: list[str]) -> list[str]:
    return [t for t in tables if t not in LOCAL_ONLY]


def run_sync(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError
    from dealer_station.floor.forwarder import Forwarder
    from dealer_station.floor.receiver import ChainRefused

    with open_store(args) as store:
        have = forwarded_tables(store.journal.tables())
        tables = args.tables or have
        unknown = [t for t in tables if t not in have]
        if unknown:
            raise StationError(f"no table {unknown[0]!r} to forward in the journal at "
                               f"{store.db.url} (tables: {', '.join(have) or 'none'})")
        status = 0
        for table_id in tables:
            fwd = Forwarder(store.journal, args.floor, table_id, journal_outages=False)
            try:
                link = fwd.sync(timeout_s=args.timeout)
            except ChainRefused as refused:
                print(f"table {table_id}: refused by the floor: {refused.reason}")
                status = 1
                continue
            finally:
                fwd.stop()
            print(f"table {table_id}: the floor holds all {link.floor_seq} records")
        return status


def run_status(args: argparse.Namespace) -> int:
    from dealer_station.audit.db import open_database
    from dealer_station.floor.status import table_statuses

    floor = open_database(args.floor, upgrade=False)
    try:
        rows = table_statuses(floor)
    finally:
        floor.close()
    if args.json:
        json.dump([r.as_json() for r in rows], sys.stdout, indent=1)
        print()
        return 0
    if not rows:
        print(f"no tables have forwarded to the floor at {floor.url}")
        return 0
    print(f"{'table':<10} {'game':<8} {'state':<15} {'round':>6} {'records':>8} "
          f"{'behind':>12} config")
    for r in rows:
        behind = ("refused" if r.refused else "never" if r.lag_seconds is None
                  else f"{r.lag_records} / {r.lag_seconds:.0f} s")
        print(f"{r.table:<10} {r.game or '-':<8} {r.state:<15} "
              f"{r.round if r.round is not None else '-':>6} {r.seq:>8} {behind:>12} "
              f"{(r.config_version or '-')[:12]}")
        if r.refused:
            print(f"{'':<10} refused: {r.refused_reason}")
    return 0
