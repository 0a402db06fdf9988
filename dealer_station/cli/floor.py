"""``dealer-station floor``: forward a table's journal to the floor database, and the floor's
grid of tables for scripts.

``floor sync --db LOCAL --floor URL`` exits 0 once the floor holds every record the table had
when it started, 1 when the floor refused the table's chain (the reason is printed and kept
at the floor), and 2 with a message when the floor cannot be reached.

``floor cluster start|status|switchover|failover|stop --dir D`` runs a throwaway primary
PostgreSQL with a streaming standby on this machine (tests, demos, benchmarks) and prints the
multi-host URL tables forward through; see docs/floor.md.
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
                         description="Which server it reached (the primary and its "
                                     "standbys, or a standby and how far behind), then one "
                                     "line per table the floor has heard from (the pit "
                                     "podium's grid). --json prints a list of objects with "
                                     "table, game, seq, hash, lag_seconds, lag_records, state, "
                                     "round, dealer, config_version, refused, refused_reason "
                                     "and contact_at.")
    floor_option(st, required=True)
    st.add_argument("--json", action="store_true", help="a JSON list, for scripts")
    st.set_defaults(func=run_status)
    register_central(fsub)
    register_cluster(fsub)
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
    from dealer_station.floor.server import read_server, server_words
    from dealer_station.floor.status import table_statuses

    floor = open_database(args.floor, upgrade=False)
    try:
        rows = table_statuses(floor)
        server = read_server(floor)
    finally:
        floor.close()
    if args.json:
        json.dump([r.as_json() for r in rows], sys.stdout, indent=1)
        print()
        return 0
    print(server_words(server))
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
                    "published, 2 with a message when refused. --again TABLE:SEQ publishes "
                    "again what a table adopted and the floor lost in a failover, from the "
                    "table's own chained copy (its record SEQ, as floor versions lists it): a "
                    "configuration (to the tables that adopted it, or --group/--tables), or a "
                    "user's facts (to the floor's users).")
    _floor_key_options(pub)
    target = pub.add_mutually_exclusive_group()
    target.add_argument("--group", metavar="NAME", help="a group defined with floor groups")
    target.add_argument("--tables", metavar="T1,T2", help="tables, comma-separated")
    pub.add_argument("--config", metavar="FILE",
                     help="the configuration file (La Pair'e table file, or Bourré profiles); "
                          "required unless --again")
    pub.add_argument("--again", metavar="TABLE:SEQ",
                     help="publish again what the floor lost, from table TABLE's record SEQ "
                          "(floor versions lists them)")
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


def _again(text: str) -> tuple[str, int]:
    from dealer_station.errors import StationError

    table, _, seq = text.rpartition(":")
    if not table or not seq.isdigit() or int(seq) < 1:
        raise StationError(f"--again {text!r}: expected TABLE:SEQ, a table and one of its "
                           f"record numbers, e.g. T1:57 (floor versions lists them)")
    return table, int(seq)


def run_publish_again(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError
    from dealer_station.floor.central import Floor, check_reason, publish_again, users_again

    table, seq = _again(args.again)
    if args.config or args.profile:
        raise StationError("--again publishes the table's own copy: no --config or --profile")
    journal = _floor_journal(args)
    try:
        floor = Floor(journal)
        operator = floor.operator(args.actor)
        rec = next(iter(journal.records(table, from_seq=seq, to_seq=seq)), None)
        if rec is not None and rec.kind == "floor.adoption_lost":
            if args.group or args.tables:
                raise StationError("a user's facts go back to the floor's users: no --group "
                                   "or --tables")
            user_id, pin_lost = users_again(floor, table, seq, actor=operator)
            print(f"{user_id}'s records journaled again at the floor from table {table}'s "
                  f"record {seq}; every table follows them")
            if pin_lost:
                print(f"{user_id}'s PIN is not in any chain: set it again at the floor")
            return 0
        reason = check_reason(args.reason)
        pub = publish_again(floor, table, seq, reason=reason, actor=operator,
                            group=args.group, tables=_table_list(args.tables))
    finally:
        journal.db.close()
    print(f"published {pub.game} configuration {pub.version} again as floor record {pub.seq} "
          f"to {', '.join(pub.tables)}, from table {table}'s record {seq}")
    print("a table that runs it already journals nothing new; the others adopt it between "
          "rounds")
    return 0


def run_publish(args: argparse.Namespace) -> int:
    from dealer_station.audit.hashing import canonical_json, config_version
    from dealer_station.errors import StationError
    from dealer_station.floor.central import Floor, check_reason

    if args.again:
        return run_publish_again(args)
    if not args.config:
        raise StationError("floor publish needs --config FILE (or --again TABLE:SEQ)")
    if not (args.group or args.tables):
        raise StationError("floor publish needs --group NAME or --tables T1,T2")
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
    from dealer_station.floor.central import Floor, adoptions, lost_adoptions

    journal = _floor_journal(args)
    try:
        pubs = Floor(journal).publications()
        with journal.db.read() as conn:
            tables = adoptions(conn)
            lost = lost_adoptions(conn)
    finally:
        journal.db.close()
    if args.json:
        json.dump({"publications": [
            {"seq": p.seq, "hash": p.hash, "ts": p.ts, "actor": p.actor, "group": p.group,
             "tables": list(p.tables), "game": p.game, "version": p.version,
             "reason": p.reason} for p in pubs],
            "tables": [{"table": a.table, "version": a.version, "seq": a.seq, "ts": a.ts,
                        "publication": a.publication} for a in tables.values()],
            "lost": [a.as_json() for a in lost]},
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
    if lost:
        print("adopted by tables, no longer at the floor (lost in a failover):")
    for x in lost:
        what = (f"configuration {x.subject[:12]} ({x.game}), published as floor record "
                f"{x.floor_seqs[0]} by {x.publisher}: {x.reason}" if x.what == "publication"
                else f"{x.subject}'s user records (floor records "
                     f"{', '.join(str(s) for s in x.floor_seqs)})")
        print(f"  {x.table:<10} {what}")
        if x.again is not None:
            print(f"  {'':<10} published again as floor record {x.again}")
        else:
            print(f"  {'':<10} the table's copy: its record {x.table_seq} ({x.table_hash[:12]}); "
                  f"publish it again: floor publish --again {x.table}:{x.table_seq}"
                  + (" --reason TEXT" if x.what == "publication" else "") + " --actor USER")
    return 0


# --- a throwaway primary and standby on this machine (audit/pgcluster.PgPair) ---------------

STATE_FILE = "cluster.json"


def register_cluster(fsub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    c = fsub.add_parser(
        "cluster", help="a throwaway primary PostgreSQL and streaming standby, for tests",
        description="Run a throwaway floor on this machine: a primary PostgreSQL and a "
                    "streaming standby (pg_basebackup -R) from the installed server binaries, "
                    "its state kept in --dir. 'start' prints the multi-host URL that tables "
                    "forward through (target_session_attrs=read-write: whichever server takes "
                    "writes); 'switchover' stops the primary cleanly, promotes the standby and "
                    "makes the old primary its standby; 'failover' stops the primary at once "
                    "(pg_ctl stop -m immediate) and promotes the standby, leaving no standby; "
                    "'status' says which is which; 'stop' stops both and removes their data. "
                    "Not for a casino's floor: see docs/floor.md for running your own.")
    csub = c.add_subparsers(dest="cluster_command", metavar="ACTION")
    for name, text in (("start", "start a primary and a standby; print the URL"),
                       ("status", "which server is primary, the standby's state, the URL"),
                       ("switchover", "planned: clean stop, promote, old primary follows"),
                       ("failover", "hard: stop the primary at once, promote the standby"),
                       ("stop", "stop both servers and remove their data")):
        a = csub.add_parser(name, help=text, description=text)
        a.add_argument("--dir", metavar="D", required=True,
                       help="the folder keeping the cluster's data and state")
        if name == "start":
            a.add_argument("--sync", action="store_true",
                           help="synchronous replication: a commit waits for the standby")
            a.add_argument("--database", metavar="NAME", default="floor",
                           help="the floor database to create (default: floor)")
            a.add_argument("--max-connections", type=int, default=100, metavar="N",
                           help="each server's max_connections (default: 100)")
        a.set_defaults(func=run_cluster, cluster_action=name)
    c.set_defaults(func=lambda _a: (c.print_help(), 2)[1])


def _cluster_dir(text: str, *, new: bool) -> Any:
    from pathlib import Path

    from dealer_station.errors import StationError

    d = Path(text).expanduser().resolve()
    state = d / STATE_FILE
    if new:
        if state.exists():
            raise StationError(f"a cluster is already kept in {d} ({STATE_FILE}): stop it "
                               f"first (floor cluster stop --dir {d})")
        if d.exists() and not d.is_dir():
            raise StationError(f"--dir {d} is a file, not a folder")
        if not d.exists():
            d.mkdir(parents=True)
            d.chmod(0o755)      # the server runs as 'postgres' when started as root
    elif not state.exists():
        raise StationError(f"no cluster kept in {d} (no {STATE_FILE}): start one with "
                           f"floor cluster start --dir {d}")
    return d


def run_cluster(args: argparse.Namespace) -> int:
    import shutil

    from dealer_station.audit.pgcluster import MISSING_MESSAGE, PgPair, find_bindir
    from dealer_station.errors import StationError

    action = args.cluster_action
    if action == "start" and not 1 <= args.max_connections <= 10_000:
        raise StationError(f"--max-connections {args.max_connections}: give 1 to 10000")
    d = _cluster_dir(args.dir, new=action == "start")
    state = d / STATE_FILE
    if action == "start":
        bindir = find_bindir()
        if bindir is None:
            raise StationError(MISSING_MESSAGE)
        pair = PgPair.start(bindir, synchronous=args.sync, place=d,
                            max_connections=args.max_connections)
        try:
            pair.create_database(args.database)
        except BaseException:
            pair.stop()
            raise
        pair.save(state)
        (d / "database").write_text(args.database + "\n")
        _say_cluster(pair, args.database)
        return 0
    try:
        pair = PgPair.load(state)
        database = (d / "database").read_text().strip()
    except (OSError, ValueError, KeyError) as e:
        raise StationError(f"the cluster's state in {state} cannot be read: {e}") from None
    if action == "stop":
        pair.stop()
        state.unlink()
        (d / "database").unlink(missing_ok=True)
        for node in (pair.primary, pair.standby):
            shutil.rmtree(node.root, ignore_errors=True)
        print(f"stopped the primary (port {pair.primary.port}) and the standby (port "
              f"{pair.standby.port}); their data removed")
        return 0
    if action in ("switchover", "failover"):
        if not pair.standby.running:
            raise StationError("no standby to promote (a failover left none): stop this "
                               "cluster and start a new one")
        old = pair.primary.port
        if action == "switchover":
            pair.switchover()
        else:
            pair.failover()
        pair.save(state)
        print(f"{action}: the standby on port {pair.primary.port} is the primary now; the old "
              f"primary on port {old} " + ("follows it as its standby" if action == "switchover"
                                           else "was stopped at once and is out"))
    _say_cluster(pair, database)
    return 0


def _say_cluster(pair: Any, database: str) -> None:
    sync = "synchronous" if pair.synchronous else "asynchronous"
    print(f"primary: 127.0.0.1:{pair.primary.port}")
    if pair.standby.running:
        print(f"standby: 127.0.0.1:{pair.standby.port} ({sync} streaming replication)")
    else:
        print(f"standby: none (127.0.0.1:{pair.standby.port} is stopped)")
    print(f"url: {pair.url(database)}")
