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
from typing import Any

from dealer_station.cli.audit import open_store, store_options


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
    register_central(fsub)
    p.set_defaults(func=lambda _a: (p.print_help(), 2)[1])


def run_sync(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError
    from dealer_station.floor.forwarder import Forwarder, forwarded_tables
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


# --- one operator, many tables: groups and publications (floor/central.py) ------------------

def _floor_key_options(p: argparse.ArgumentParser) -> None:
    floor_option(p, required=True)
    p.add_argument("--key", metavar="FILE", required=True,
                   help="the floor's journal key file (the key its tables share)")


def register_central(fsub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    pub = fsub.add_parser(
        "publish", help="publish a configuration version to a group of tables",
        description="Print the configuration's par sheet, then journal it at the floor "
                    "(floor.publish) for a group's tables or a list of tables. Each table "
                    "adopts it between rounds, never mid-round. Needs a reason. Exit 0 once "
                    "published, 2 with a message when refused.")
    _floor_key_options(pub)
    target = pub.add_mutually_exclusive_group(required=True)
    target.add_argument("--group", metavar="NAME", help="a group defined with floor groups")
    target.add_argument("--tables", metavar="T1,T2", help="tables, comma-separated")
    pub.add_argument("--config", metavar="FILE", required=True,
                     help="the configuration file (La Pair'e table file, or Bourré profiles)")
    pub.add_argument("--game", default="lapaire", choices=("lapaire", "bourre"),
                     help="the tables' game (default: lapaire)")
    pub.add_argument("--profile", metavar="NAME", help="Bourré: the profile to publish")
    pub.add_argument("--reason", metavar="TEXT", help="why (required; journaled)")
    pub.add_argument("--actor", metavar="USER", required=True,
                     help="the publishing operator, one of the floor's users")
    pub.set_defaults(func=run_publish)

    grp = fsub.add_parser(
        "groups", help="the floor's groups of tables; define one with --define",
        description="List the floor's groups, or define (or redefine) one: --define NAME "
                    "--tables T1,T2 --actor USER (an empty --tables removes it).")
    _floor_key_options(grp)
    grp.add_argument("--define", metavar="NAME", help="the group to define")
    grp.add_argument("--tables", metavar="T1,T2", help="its tables, comma-separated")
    grp.add_argument("--actor", metavar="USER", help="the operator defining it")
    grp.add_argument("--reason", metavar="TEXT", default="", help="why (journaled)")
    grp.set_defaults(func=run_groups)

    ver = fsub.add_parser(
        "versions", help="the versions published, and which version each table runs",
        description="Each publication (floor record, version, game, group, tables, "
                    "publisher, reason), then each table's last configuration change as "
                    "forwarded: its version and the publication it adopted, if any.")
    _floor_key_options(ver)
    ver.add_argument("--json", action="store_true", help="JSON, for scripts")
    ver.set_defaults(func=run_versions)


def _floor_journal(args: argparse.Namespace) -> Any:
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import load_key

    key = load_key(args.key)
    db = open_database(args.floor)
    return Journal(db, key)


def _table_list(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _content(args: argparse.Namespace) -> dict[str, Any]:
    """The configuration's content as a table journals it (La Pair'e's par sheet printed)."""
    from dealer_station import registry as games
    from dealer_station.cli._parts import PUBLISH

    return games.game(args.game).part(PUBLISH)(args.config, args.profile)


def run_publish(args: argparse.Namespace) -> int:
    from dealer_station.audit.hashing import canonical_json, config_version
    from dealer_station.floor.central import Floor, check_reason

    reason = check_reason(args.reason)       # before anything is read or printed
    content = _content(args)
    journal = _floor_journal(args)
    try:
        floor = Floor(journal)
        operator = floor.operator(args.actor)
        pub = floor.publish(game=args.game, content=content, reason=reason, actor=operator,
                            group=args.group, tables=_table_list(args.tables))
    finally:
        journal.db.close()
    assert pub.version == config_version(canonical_json(content))
    print(f"published {args.game} configuration {pub.version} as floor record {pub.seq} "
          f"to {', '.join(pub.tables)}" + (f" (group {pub.group})" if pub.group else ""))
    print("each table adopts it between rounds")
    return 0


def run_groups(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError
    from dealer_station.floor.central import Floor

    journal = _floor_journal(args)
    try:
        floor = Floor(journal)
        if args.define:
            if not args.actor:
                raise StationError("defining a group needs --actor USER (an operator)")
            g = floor.define_group(args.define, _table_list(args.tables),
                                   actor=floor.operator(args.actor), reason=args.reason)
            print(f"group {g.name}: {', '.join(g.tables) or 'removed'} (floor record {g.seq})")
            return 0
        groups = floor.groups()
    finally:
        journal.db.close()
    if not groups:
        print("no groups defined at the floor")
    for g in sorted(groups.values(), key=lambda g: g.name):
        print(f"{g.name:<16} {', '.join(g.tables)}   (record {g.seq}, {g.actor}, {g.ts})")
    return 0


def run_versions(args: argparse.Namespace) -> int:
    from dealer_station.floor.central import Floor, adoptions

    journal = _floor_journal(args)
    try:
        pubs = Floor(journal).publications()
        with journal.db.read() as conn:
            tables = adoptions(conn)
    finally:
        journal.db.close()
    if args.json:
        json.dump({"publications": [
            {"seq": p.seq, "hash": p.hash, "ts": p.ts, "actor": p.actor, "group": p.group,
             "tables": list(p.tables), "game": p.game, "version": p.version,
             "reason": p.reason} for p in pubs],
            "tables": [{"table": a.table, "version": a.version, "seq": a.seq, "ts": a.ts,
                        "publication": a.publication} for a in tables.values()]},
            sys.stdout, indent=1)
        print()
        return 0
    print("publications:" if pubs else "no configuration published at the floor")
    for p in pubs:
        print(f"  record {p.seq:<5} {p.version[:12]}  {p.game:<8} "
              f"{p.group or '-':<10} {','.join(p.tables):<20} {p.actor}: {p.reason}")
    print("tables:" if tables else "no table has forwarded a configuration")
    for a in tables.values():
        how = f"adopted record {a.publication}" if a.publication else "set at the table"
        print(f"  {a.table:<10} {a.version[:12]}  {how}  ({a.ts})")
    return 0
