"""``dealer-station audit``: verify the journal, checkpoint it, list significant events.

Adding a sub-command (e.g. ``audit replay``): write a function that takes the ``audit``
sub-parsers object, adds a parser with ``parents=[store_options()]`` (for ``--db``/``--key``)
and ``set_defaults(func=...)``, and decorate it with ``@audit_command``. In the ``func``, use
``with open_store(args) as store:`` to get the database, key and journal.

``audit verify`` only reads: it never creates or upgrades a database or a key, so it can be
pointed at a copy made for a regulator. ``--record`` additionally journals a ``verify`` event
with each table's result (the station records its own start-up verification).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_station.audit.journal import Entry
from dealer_station.errors import StationError
from dealer_station.events.station import Verified

if TYPE_CHECKING:
    from dealer_station.audit.db import Database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import JournalKey
    from dealer_station.money import Money

AuditCommand = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]
AUDIT_COMMANDS: list[AuditCommand] = []


def audit_command(add: AuditCommand) -> AuditCommand:
    """Register a function that adds one ``audit`` sub-command."""
    AUDIT_COMMANDS.append(add)
    return add


def store_options() -> argparse.ArgumentParser:
    """A parent parser with ``--db`` and ``--key`` (for every command that opens the journal)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--db", metavar="URL",
                   help="journal database URL (default: $DEALER_STATION_DB or the SQLite file "
                        "in the station's data folder), e.g. sqlite:////path/journal.db or "
                        "postgresql+psycopg://user@host/db")
    p.add_argument("--key", metavar="FILE",
                   help="journal key file (default: $DEALER_STATION_KEY or journal.key in the "
                        "station's config folder)")
    return p


def default_actor() -> str:
    """Who ran a command from the console, for the journal's actor field."""
    try:
        name = getpass.getuser()
    except Exception:
        name = str(os.getuid())
    return f"console:{name}"


@dataclass
class Store:
    db: Database
    key: JournalKey
    journal: Journal


@contextmanager
def open_store(args: argparse.Namespace, *, write: bool = True) -> Iterator[Store]:
    """Open the journal named by ``--db``/``--key``.

    ``write=False``: change nothing (no schema upgrade, no key creation; both must exist).
    ``write=True``: upgrade the schema and create the key if this is a first start.
    """
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import default_key_path, load_key

    key_path = Path(args.key) if args.key else default_key_path()
    if not write:
        key = load_key(key_path)
        db = open_database(args.db, upgrade=False)
    else:
        db = open_database(args.db, upgrade=True)
        try:
            key = key_for_journal(db, key_path)
        except BaseException:
            db.close()
            raise
    journal = Journal(db, key)
    try:
        yield Store(db, key, journal)
        if write:
            journal.anchor_written()
    finally:
        db.close()


def key_for_journal(db: Database, key_path: Path) -> JournalKey:
    """The key of a journal about to be written: made only for a journal with no records.

    A missing key file for a journal that already has records is a mistyped --key (or a lost
    key), never a reason to start a second key: records written under it could never be
    verified together with the earlier ones.
    """
    from dealer_station.audit.journal import has_records
    from dealer_station.audit.keys import KeyFileError, load_key, load_or_create_key

    if key_path.exists() or not has_records(db):
        return load_or_create_key(key_path)
    try:
        return load_key(key_path)  # created meanwhile by another process?
    except KeyFileError:
        raise KeyFileError(
            f"journal key file {key_path} does not exist, but the journal at {db.url} already "
            f"has records written under a key: pass --key with that journal's key file (or "
            f"set $DEALER_STATION_KEY). A new key is made only for a new journal, or with "
            f"`dealer-station audit new-key`") from None


def parse_time(text: str) -> datetime:
    """An ISO date or date-time; without a zone it is local time (as on screen)."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad time {text!r}: use e.g. 2026-01-31 or "
                           f"2026-01-31T20:15") from None
    if moment.tzinfo is None:
        moment = moment.astimezone()  # interpret as local time
    return moment.astimezone(UTC)


def local_time(ts: str) -> str:
    return datetime.fromisoformat(ts).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


# --- verify ---------------------------------------------------------------------------------

@audit_command
def _add_verify(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("verify", parents=[store_options()],
                       help="check every table's hash chain and checkpoints",
                       description="Walk each table's chain. Exit 0 when all are intact, 1 "
                                   "naming the first bad record of each broken table.")
    p.add_argument("--table", help="verify only this table")
    p.add_argument("--record", action="store_true",
                   help="also journal a 'verify' event with each table's result")
    p.add_argument("--actor", default=None, help="actor for --record (default: console user)")
    p.add_argument("--floor", metavar="URL",
                   help="also compare each table with the floor's copy of it (the floor "
                        "database's URL): a local journal shorter than, or different from, "
                        "what the floor holds fails")
    p.add_argument("--public-key", metavar="FILE",
                   help="verify with public keys alone, no journal key: the station's public "
                        "signing key (audit public-key writes it); each chain's records, its "
                        "signed checkpoints and, with --witness, what the witness cosigned")
    p.add_argument("--witness", action="append", default=[], metavar="URL",
                   help="a witness to check against (with --public-key; repeatable, each with "
                        "its --witness-key)")
    p.add_argument("--witness-key", action="append", default=[], metavar="FILE",
                   help="the witness's public key (its witness.pub), one per --witness")
    p.set_defaults(func=run_verify)


def _read_vkey(path: str, what: str) -> Any:
    from dealer_station.audit.notes import NoteError, Verifier

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) else "not text"
        raise StationError(f"{what} {path}: cannot be read ({reason})") from None
    try:
        return Verifier.parse(text)
    except NoteError as e:
        raise StationError(f"{what} {path}: {e}") from None


def run_public_verify(args: argparse.Namespace) -> int:
    """``audit verify --public-key``: no journal key; exit 0 when everything up to each
    witness's cosigned size is proven, 1 when anything fails."""
    from sqlalchemy import select

    from dealer_station.audit import schema
    from dealer_station.audit.db import open_database
    from dealer_station.audit.notes import COSIGNATURE_KEY, NOTE_KEY
    from dealer_station.witness.client import check_url
    from dealer_station.witness.errors import WitnessError
    from dealer_station.witness.public_verify import verify_chain

    if args.key or args.record or args.floor:
        raise StationError("--public-key verifies without the journal key: give neither "
                            "--key, --record nor --floor with it")
    station = _read_vkey(args.public_key, "--public-key")
    if station.kind != NOTE_KEY:
        raise StationError(f"--public-key {args.public_key}: a witness's key, not a "
                            f"station's (give the station's, from audit public-key)")
    if len(args.witness) != len(args.witness_key):
        raise StationError(f"give one --witness-key for each --witness ({len(args.witness)} "
                            f"witness(es), {len(args.witness_key)} key(s))")
    witnesses = []
    for url, key_file in zip(args.witness, args.witness_key, strict=True):
        w = _read_vkey(key_file, "--witness-key")
        if w.kind != COSIGNATURE_KEY:
            raise StationError(f"--witness-key {key_file}: not a witness's key")
        try:
            witnesses.append((w, check_url(url)))
        except WitnessError as e:
            raise StationError(f"--witness {url}: {e}") from None
    db = open_database(args.db, upgrade=False)
    J, S = schema.journal, schema.signed_checkpoints
    ok = True
    try:
        with db.read() as conn:
            chains = sorted(set(conn.execute(select(J.c.table_id).distinct()).scalars())
                            | set(conn.execute(select(S.c.table_id).distinct()).scalars()))
        if args.table is not None:
            if args.table not in chains:
                raise StationError(f"no table {args.table!r} in the journal at {db.url} "
                                    f"(tables: {', '.join(chains) or 'none'})")
            chains = [args.table]
        if not chains:
            print(f"no tables in the journal at {db.url}")
        for t in chains:
            with db.read() as conn:
                notes = list(conn.execute(select(S.c.note).where(S.c.table_id == t)
                                          .order_by(S.c.size)).scalars())
            rows_stmt = (select(J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no,
                                J.c.payload, J.c.prev_hash, J.c.hash)
                         .where(J.c.table_id == t).order_by(J.c.seq))
            with db.engine.connect() as conn:
                rows = conn.execution_options(yield_per=5000).execute(rows_stmt)
                verdict = verify_chain(t, rows, notes, station, witnesses)
            for line in verdict.lines():
                print(line)
            ok = ok and verdict.ok
    finally:
        db.close()
    return 0 if ok else 1


def run_verify(args: argparse.Namespace) -> int:
    from dealer_station.audit.whole_check import check_everything
    from dealer_station.errors import StationError

    if args.public_key:
        return run_public_verify(args)
    if args.witness or args.witness_key:
        raise StationError("--witness and --witness-key go with --public-key (verifying "
                           "without the journal key)")
    with open_store(args, write=False) as store:
        journal = store.journal
        if args.table is not None:
            known = (set(journal.tables()) | {c.table_id for c in journal.anchored_checkpoints()}
                     | {c.table_id for c in journal.db_checkpoints()})
            if args.table not in known:
                raise StationError(f"no table {args.table!r} in the journal at {store.db.url} "
                                   f"(tables: {', '.join(sorted(known)) or 'none'})")
        check = check_everything(journal, args.table)
        results = check.results
        if not results:
            print(f"no tables in the journal at {store.db.url}")
        for finding in check.findings:
            print(finding)
        ok = check.ok
        if args.floor:
            ok = _compare_with_floor(journal, args.floor, args.table) and ok
        if args.record:
            actor = args.actor or default_actor()
            for r in results:
                done = Verified.from_payload(check.record_payload(r))
                store.journal.write(r.table_id, [Entry(done, actor)])
    return 0 if ok else 1


def _compare_with_floor(journal: Journal, floor_url: str, table: str | None) -> bool:
    """Each forwarded table of ``journal`` against the floor's copy; prints a line per table."""
    from dealer_station.audit.db import open_database
    from dealer_station.floor.forwarder import compare, forwarded_tables
    from dealer_station.floor.receiver import floor_head

    floor = open_database(floor_url, upgrade=False)
    ok = True
    try:
        for table_id in [table] if table else forwarded_tables(journal.tables()):
            problems = compare(journal, floor, table_id)
            with floor.read() as conn:
                head = floor_head(conn, table_id)
            local = journal.last(table_id)
            if problems:
                ok = False
                print(f"table {table_id}: FAILED against the floor {floor.url}: "
                      f"{problems[0].reason}")
            elif head.seq == 0:
                print(f"table {table_id}: the floor holds none of its records yet")
            else:
                waiting = (local.seq if local else 0) - head.seq
                print(f"table {table_id}: agrees with the floor's copy (records 1 to "
                      f"{head.seq}" + (f"; {waiting} not forwarded yet)" if waiting else ")"))
    finally:
        floor.close()
    return ok


# --- new-key --------------------------------------------------------------------------------

@audit_command
def _add_new_key(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("new-key", help="make the journal key file for a new journal",
                       description="Create a new random journal key file (mode 0600). Never "
                                   "replaces an existing file. A station writing a new journal "
                                   "makes its key itself; this is for preparing one beforehand "
                                   "(for example for a floor whose stations share one key).")
    p.add_argument("--key", metavar="FILE", help="where to write it (default: "
                                                 "$DEALER_STATION_KEY or journal.key in the "
                                                 "station's config folder)")
    p.add_argument("--name", metavar="CASINO/STATION",
                   help="the name of the station's signing key, made beside the journal key: "
                        "the casino and this station, e.g. casino.example/pit3-t7 (default: "
                        "casino.local/<host name>); a table's chain is signed as CASINO/TABLE")
    p.set_defaults(func=run_new_key)


def run_new_key(args: argparse.Namespace) -> int:
    from dealer_station.audit.keys import create_key, default_key_path, load_signing_key

    key = create_key(Path(args.key) if args.key else default_key_path(), args.name)
    signer = load_signing_key(key.path)
    print(f"new journal key written to {key.path} (mode 0600); keep a copy somewhere safe")
    if signer is not None:
        print(f"signing key {signer.name} written to {key.signing_path} (mode 0600); give "
              f"its public key to the regulator: dealer-station audit public-key --key "
              f"{key.path} --out station.pub")
    return 0


# --- public-key -----------------------------------------------------------------------------

@audit_command
def _add_public_key(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("public-key",
                       help="write the station's public signing key, for the regulator",
                       description="Write the public half of the station's signing key (made "
                                   "beside the journal key) in the signed-note verifier key "
                                   "format: what a witness trusts and what `audit verify "
                                   "--public-key` verifies with.")
    p.add_argument("--key", metavar="FILE", help="the journal key file (default: "
                                                 "$DEALER_STATION_KEY or journal.key in the "
                                                 "station's config folder)")
    p.add_argument("--out", metavar="FILE", help="where to write it (default: print it)")
    p.set_defaults(func=run_public_key)


def run_public_key(args: argparse.Namespace) -> int:
    from dealer_station.audit.keys import default_key_path, load_signing_key, signing_path_for
    from dealer_station.errors import StationError

    key_path = Path(args.key) if args.key else default_key_path()
    signer = load_signing_key(key_path)
    if signer is None:
        raise StationError(f"there is no signing key beside {key_path} "
                           f"({signing_path_for(key_path)}); the station makes it when it "
                           f"next writes to its journal, or `audit new-key` with a new key")
    vkey = signer.verifier.vkey() + "\n"
    if args.out:
        try:
            Path(args.out).write_text(vkey, encoding="ascii")
        except OSError as e:
            raise StationError(f"--out {args.out}: cannot be written ({e.strerror})") from None
        print(f"public key of {signer.name} written to {args.out}")
    else:
        print(vkey, end="")
    return 0


# --- checkpoint -----------------------------------------------------------------------------

@audit_command
def _add_checkpoint(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("checkpoint", parents=[store_options()],
                       help="anchor each table's chain head outside the database",
                       description="Append a checkpoint record to each table (or one) and write "
                                   "its sequence number and hash to the database and to the "
                                   "anchor file beside the key, so that cutting records off "
                                   "the end of the journal is detected by verify.")
    p.add_argument("--table", help="checkpoint only this table")
    p.add_argument("--actor", default=None, help="who takes the checkpoint (default: console "
                                                 "user)")
    p.set_defaults(func=run_checkpoint)


def run_checkpoint(args: argparse.Namespace) -> int:
    with open_store(args) as store:
        tables = [args.table] if args.table else store.journal.tables()
        if not tables:
            print(f"no tables in the journal at {store.db.url}; nothing to checkpoint")
            return 0
        for t in tables:
            cp = store.journal.checkpoint(t, args.actor or default_actor())
            print(f"table {t}: checkpoint at record {cp.seq} ({cp.hash[:16]}...) written to the "
                  f"database and {store.journal.anchor_path}")
    return 0


# --- events ---------------------------------------------------------------------------------

@audit_command
def _add_events(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("events", parents=[store_options()],
                       help="list significant events (start-ups, devices, voids, logins...)")
    p.add_argument("--table", help="only this table (default: all)")
    p.add_argument("--since", type=parse_time, help="from this time (local unless a zone is "
                                                    "given), inclusive")
    p.add_argument("--until", type=parse_time, help="up to this time, exclusive")
    p.add_argument("--kind", action="append", dest="kinds", metavar="KIND",
                   help="only this kind (repeatable; 'device.*' matches a prefix); default: "
                        "every significant kind")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=run_events)


def run_events(args: argparse.Namespace) -> int:
    from dealer_station.events.table import halt_event_text

    with open_store(args, write=False) as store:
        events = store.journal.events(args.table, args.since, args.until, args.kinds)
    for e in events:
        if args.json:
            row: dict[str, Any] = {"table": e.table_id, "seq": e.seq, "ts": e.ts,
                                   "actor": e.actor, "kind": e.kind, "round": e.round_no,
                                   "payload": e.payload}
            print(json.dumps(row, sort_keys=True, ensure_ascii=False))
        else:
            # A configuration's whole content is in its record; the list names its version.
            shown = {k: v for k, v in e.payload.items() if k != "content"}
            label, detail = e.kind, json.dumps(shown, sort_keys=True, ensure_ascii=False)
            # A halt, its resolution and a held card are said in words, with who and why.
            worded = halt_event_text(e.kind, e.payload, e.actor)
            if worded is not None:
                label, detail = worded
            print(f"{local_time(e.ts)}  {e.table_id:<10} #{e.seq:<7} {label:<16} "
                  f"{e.actor:<24} {detail}")
    if not args.json:
        print(f"{len(events)} event(s)")
    return 0


# --- replay and meters (game-aware: they re-settle rounds through the engines) --------------

@audit_command
def _add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", parents=[store_options()],
                       help="re-settle every recorded round and report differences",
                       description="Re-settle every round from its journaled inputs with the "
                                   "configuration version it was played under, and report "
                                   "every difference from what was recorded as paid. Exit 1 "
                                   "if there is any.")
    p.add_argument("--table", help="only this table")
    p.set_defaults(func=run_replay)


@audit_command
def _add_meters(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("meters", parents=[store_options()],
                       help="show the meters and prove them against the journal",
                       description="Print each table's meters and recompute them from the "
                                   "journal's rounds. Exit 1 if any stored meter differs.")
    p.add_argument("--table", help="only this table")
    p.set_defaults(func=run_meters)


def _tables(store: Store, table: str | None) -> list[str]:
    tables = store.journal.tables()
    if table is not None:
        if table not in tables:
            from dealer_station.errors import StationError
            raise StationError(f"table {table!r} has no records in this journal")
        return [table]
    return [t for t in tables if t != "station"]


def run_replay(args: argparse.Namespace) -> int:
    from dealer_station.table.audit_checks import replay

    ok = True
    with open_store(args, write=False) as store:
        for table in _tables(store, args.table):
            report = replay(store.journal, table)
            counts = ", ".join(f"{n} {s}" for s, n in sorted(report.by_status.items()))
            print(f"table {table}: {report.rounds} rounds replayed ({counts or 'none'}); "
                  f"{len(report.differences)} difference(s)")
            for d in report.differences:
                print(f"  DIFFERENCE: {d}")
            ok = ok and report.ok
    return 0 if ok else 1


def run_meters(args: argparse.Namespace) -> int:
    from dealer_station.reports.shift import kind_label
    from dealer_station.table.audit_checks import meter_differences, replay

    ok = True
    with open_store(args, write=False) as store:
        for table in _tables(store, args.table):
            meters = store.journal.meters(table)
            money, unit = table_money(store.journal, table)
            print(f"table {table}: amounts in {unit}")
            print(f"  {'meter':<18} {'rounds':>8} {'wagered':>16} {'paid':>16} "
                  f"{'house win':>16}")
            for key, m in sorted(meters.items(),
                                 key=lambda km: (km[0] == "total", kind_label(km[0]))):
                print(f"  {kind_label(key):<18} {m.rounds:>8,} {money.number(m.wagered):>16} "
                      f"{money.number(m.paid):>16} {money.number(m.house_win):>16}")
            problems = meter_differences(store.journal, table, replay(store.journal, table))
            if problems:
                ok = False
                for problem in problems:
                    print(f"  MISMATCH: {problem}")
            else:
                print("  meters equal the sums recomputed from the journal")
    return 0 if ok else 1


def table_money(journal: Journal, table: str) -> tuple[Money, str]:
    """How a table's meters are written, and what they are in: its configuration versions'
    money. When versions disagree the meters sum different units, so no decimal form is
    right: they are written as recorded, whole minor units ("minor units of USD/chips"), so
    no figure is ever shown in the wrong unit."""
    from dealer_station.money import CHIPS, Money

    units = {Money.of(v.content) for v in journal.config_versions(table)}
    if len(units) == 1:
        money = units.pop()
        return money, money.label
    if not units:
        return CHIPS, CHIPS.label
    # CHIPS writes whole numbers as they are, thousands separated.
    return CHIPS, "minor units of " + "/".join(sorted({u.currency or "chips" for u in units}))


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("audit", help="verify, checkpoint and inspect the regulator's journal")
    actions = p.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    for add in AUDIT_COMMANDS:
        add(actions)
