"""The regulator's journal: append-only, hash-chained, keyed records per table.

Each table has its own chain. A record is (table_id, seq, ts, actor, kind, round_no, payload,
prev_hash, hash); ``seq`` counts 1, 2, 3... with no gaps, the database refuses a second record
with the same (table_id, seq), and ``hash`` is the HMAC-SHA-256 computed by
:func:`dealer_station.audit.hashing.record_hash` over the record and the previous record's hash.
The round number is bound into the hash through the hashed kind (``kind#round_no``, see
:func:`hashed_kind`), so it cannot be edited either. ``docs/journal.md`` states the encoding
exactly so that a regulator can re-implement :meth:`Journal.verify`.

Projections (rounds, meters, configuration versions, users) are written by callbacks that run
inside the same transaction as the records they follow from (``append(..., also=...)``): either
both are committed or neither.

This module holds :class:`Journal` (its state, its key and the writing path) and is the public
face: the rest lives in modules of one job each, whose public names are re-exported here.
``journal_common.py`` holds the errors, checks, result types and significant kinds;
``journal_projection_writes.py`` the projection writes done inside an append;
``journal_reads.py``, ``journal_projection_proof.py``, ``journal_checkpoints.py`` and
``journal_verify.py`` the method groups :class:`Journal` inherits (reading; proving and
rebuilding projections; checkpoints, anchors and head checks; verification), and
``journal_base.py`` what those groups declare of one another.
"""

from __future__ import annotations

import hmac
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, text
from sqlalchemy.exc import IntegrityError, OperationalError

from dealer_station.audit import merkle_store, schema
from dealer_station.audit.anchors import AnchorProblem, journal_location
from dealer_station.audit.checkpoint_signing import EVERY, CheckpointSigning, SignedCheckpoint
from dealer_station.audit.db import Database, db_reason
from dealer_station.audit.hashing import (
    CanonicalJsonError,
    canonical_json,
    derived_secret,
    genesis_hash,
    keyed_mac,
    record_hash,
)
from dealer_station.audit.journal_checkpoints import JournalCheckpoints
from dealer_station.audit.journal_common import (
    _RECORD_COLUMNS,
    Checkpoint,
    JournalConflict,
    JournalTampered,
    VerifyResult,
    WrongKey,
    _check_actor,
    _check_kind,
    _check_round_no,
    check_table_id,
    has_records,
    hashed_kind,
    is_significant,
    iso_utc,
    significant_kinds,
    table_ids,
    utc_now,
)
from dealer_station.audit.journal_projection_proof import JournalProjectionProof
from dealer_station.audit.journal_projection_writes import (
    add_meters,
    record_config_version,
    upsert_round,
)
from dealer_station.audit.journal_reads import JournalReads
from dealer_station.audit.journal_verify import JournalVerify
from dealer_station.audit.keys import JournalKey, load_signing_key
from dealer_station.audit.merkle_store import Trees, leaf_of
from dealer_station.audit.notes import Signer
from dealer_station.audit.records import (
    ConfigVersion,
    Copied,
    Entry,
    Fact,
    JournalError,
    Meter,
    MeterDelta,
    Record,
    RoundInfo,
)

J = schema.journal

# Statements built once: building and cache-keying a Core statement per call costs more than
# running it on SQLite, and these run several times in every committed stage of a round.
_COLS = ("table_id", "seq", "ts", "actor", "kind", "round_no", "payload", "prev_hash", "hash")
# On SQLite the two statements of every append go to the driver as plain SQL: compiling and
# cache-keying Core constructs costs more than running them (see benchmarks/bench_table.py).
_HEAD_SQLITE = "SELECT seq, hash FROM journal WHERE table_id = ? ORDER BY seq DESC LIMIT 1"
_INSERT_SQLITE = (f"INSERT INTO journal ({', '.join(_COLS)}) "
                  f"VALUES ({', '.join('?' for _ in _COLS)})")
_NODES_SQLITE = "INSERT INTO merkle_nodes (table_id, level, idx, hash) VALUES (?, ?, ?, ?)"
_HEAD = (select(J.c.seq, J.c.hash).where(J.c.table_id == bindparam("t"))
         .order_by(J.c.seq.desc()).limit(1))


# --- the journal ----------------------------------------------------------------------------

@dataclass
class Journal(JournalReads, JournalProjectionProof, JournalCheckpoints, JournalVerify):
    """The journal of one database under one key.

    ``anchor_path`` (default: beside the key file) receives a line per checkpoint.
    ``clock`` gives the current time (tests pass a fake one).
    """

    db: Database
    key: JournalKey | bytes
    anchor_path: Path | None = None
    clock: Callable[[], datetime] = field(default=utc_now)
    #: Signs each chain's checkpoints (default: the signing key beside the key file, if any).
    signer: Signer | None = None

    def __post_init__(self) -> None:
        if isinstance(self.key, JournalKey):
            if self.anchor_path is None:
                self.anchor_path = self.key.anchor_path
            self._secret = self.key.secret
        else:
            self._secret = bytes(self.key)
        if len(self._secret) < 16:
            raise JournalError("the journal key is too short")
        self._genesis: dict[str, str] = {}
        self._written: dict[str, Record] = {}
        self._anchored: dict[str, int] = {}
        self._firsts: dict[str, str] = {}
        #: Each table's head whose hash this key was proven to make (see :meth:`_prove_key`).
        self._proven: dict[str, str] = {}
        self._trees = Trees()
        signed_file = None
        if isinstance(self.key, JournalKey):
            if self.signer is None:
                self.signer = load_signing_key(self.key.path)
            signed_file = self.key.checkpoints_path
        self.signing = CheckpointSigning(self, self.signer, signed_file)
        self.location = journal_location(self.db.url)
        self._anchor_lock = threading.Lock()
        self.anchor_problems: list[AnchorProblem] = []
        #: Called with the table id after each commit (the floor forwarder's wake-up); must
        #: be quick and must not write to the journal.
        self.on_commit: list[Callable[[str], None]] = []

    # helpers the table service may call inside `also`
    add_meters = staticmethod(add_meters)
    upsert_round = staticmethod(upsert_round)
    record_config_version = staticmethod(record_config_version)

    def genesis(self, table_id: str) -> str:
        g = self._genesis.get(table_id)
        if g is None:
            g = self._genesis[table_id] = genesis_hash(self._secret, table_id)
        return g

    def now(self) -> str:
        return iso_utc(self.clock())

    def mac(self, domain: str, *fields: str) -> str:
        """A keyed MAC under this journal's key (see :func:`hashing.keyed_mac`)."""
        return keyed_mac(self._secret, domain, *fields)

    def derived_secret(self, purpose: str) -> bytes:
        return derived_secret(self._secret, purpose)

    def is_authentic(self, record: Record) -> bool:
        """Whether a record read from the database carries this key's hash of its own
        content (its link to the record before is checked only by :meth:`verify`)."""
        calc = record_hash(self._secret, table_id=record.table_id, seq=record.seq,
                           ts=record.ts, actor=record.actor,
                           kind=hashed_kind(record.kind, record.round_no),
                           payload=canonical_json(record.payload), prev_hash=record.prev_hash)
        return hmac.compare_digest(calc, record.hash)

    def row_is_authentic(self, row: Mapping[str, Any]) -> bool:
        """Whether a row as stored (payload text and all) carries this key's hash of its
        content: what the floor forwarder checks before a record leaves the table."""
        calc = record_hash(self._secret, table_id=str(row["table_id"]), seq=int(row["seq"]),
                           ts=str(row["ts"]), actor=str(row["actor"]),
                           kind=hashed_kind(str(row["kind"]), row["round_no"]),
                           payload=str(row["payload"]), prev_hash=str(row["prev_hash"]))
        return hmac.compare_digest(calc, str(row["hash"]))

    # -- writing --

    def write(self, table_id: str,
              entries: Sequence[Entry | Copied] | Callable[[], Sequence[Entry | Copied]], *,
              also: Callable[[Connection], None] | None = None,
              sign: bool = False) -> list[Record]:
        """The station's one way in: typed events, each with its actor and round (and,
        where a user's facts are adopted from the floor, records copied as the floor's chain
        holds them), appended in one transaction (one durable commit), ``also(conn)`` in the
        same transaction and ``sign`` as for :meth:`append_many`. Everything the station
        writes is written here; the raw :meth:`append` and :meth:`append_many` below are the
        chain's own, which its contract tests drive.

        ``entries`` may be a decision instead: called once the chain's writer lock is held
        (SQLite's write lock, PostgreSQL's lock on the table's chain), it decides against the
        chain as it stands, since nobody else can append to it until this commits. Whatever
        it raises is raised here, and nothing is written."""
        if callable(entries):
            decide = entries
            return self._append(table_id, lambda: _facts(decide()),
                                None if also is None else (lambda conn, _r: also(conn)),
                                sign=sign)
        return self.append_many(table_id, _facts(entries), also=also, sign=sign)

    def append(self, table_id: str, kind: str, payload: Mapping[str, Any], actor: str, *,
               round_no: int | None = None,
               also: Callable[[Connection], None] | None = None) -> Record:
        """Append one record and run ``also(conn)`` in the same transaction; return once
        both are committed (durable). On any error nothing is written."""
        return self.append_many(table_id, [Fact(kind, payload, actor, round_no)], also=also)[0]

    def append_many(self, table_id: str, facts: Sequence[Fact], *,
                    also: Callable[[Connection], None] | None = None,
                    sign: bool = False) -> list[Record]:
        """Append several records in one transaction (one durable commit). ``sign``: also
        sign the chain's checkpoint at the last of them, in the same transaction (a round's
        close)."""
        return self._append(table_id, facts,
                            None if also is None else (lambda conn, _records: also(conn)),
                            sign=sign)

    def _append(self, table_id: str, facts: Sequence[Fact] | Callable[[], Sequence[Fact]],
                after: Callable[[Connection, list[Record]], None] | None, *,
                sign: bool = False) -> list[Record]:
        check_table_id(table_id)
        if callable(facts):
            make = facts

            def prepare() -> list[_Prepared]:
                return _prepare(make())
        else:
            ready = _prepare(facts)     # refused before any transaction begins

            def prepare() -> list[_Prepared]:
                return ready
        try:
            written, signed = self._write(table_id, prepare, after, sign)
        except OperationalError as e:
            raise JournalError(f"table {table_id}: the database refused the write "
                               f"({db_reason(e)}); nothing was written") from None
        self._written[table_id] = written[-1]
        self.signing.committed(signed)
        for listener in self.on_commit:
            listener(table_id)
        return written

    def _write(self, table_id: str, prepare: Callable[[], list[_Prepared]],
               after: Callable[[Connection, list[Record]], None] | None, sign: bool
               ) -> tuple[list[Record], SignedCheckpoint | None]:
        key = self._secret
        with self.db.write() as conn:
            if conn.dialect.name == "postgresql":
                # Writers of one table queue here rather than collide on (table_id, seq).
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:t, 0))"),
                             {"t": table_id})
            if conn.dialect.name == "sqlite":
                head = conn.exec_driver_sql(_HEAD_SQLITE, (table_id,)).first()
            else:
                head = conn.execute(_HEAD, {"t": table_id}).first()
            if head is None or self._proven.get(table_id) != head[1]:
                self._prove_key(conn, table_id, None if head is None else head[0])
            seq, prev = (head[0], head[1]) if head is not None else (0, self.genesis(table_id))
            prepared = prepare()        # a decision is made here, under the writer lock
            # The chain's Merkle tree grows in the same transaction (audit/merkle_store.py).
            tree = self._trees.frontier(conn, table_id, seq)
            made: list[tuple[int, int, bytes]] = []
            ts = self.now()
            rows: list[dict[str, Any]] = []
            records: list[Record] = []
            for kind, payload_text, actor, round_no, payload in prepared:
                seq += 1
                hkind = hashed_kind(kind, round_no)
                h = record_hash(key, table_id=table_id, seq=seq, ts=ts, actor=actor,
                                kind=hkind, payload=payload_text, prev_hash=prev)
                rows.append({"table_id": table_id, "seq": seq, "ts": ts, "actor": actor,
                             "kind": kind, "round_no": round_no, "payload": payload_text,
                             "prev_hash": prev, "hash": h})
                records.append(Record(table_id, seq, ts, actor, kind, round_no, payload, prev, h))
                made += tree.append(leaf_of(table_id, seq, ts, actor, hkind, payload_text,
                                            prev, h))
                prev = h
            try:
                if conn.dialect.name == "sqlite":
                    conn.exec_driver_sql(_INSERT_SQLITE, [tuple(r[c] for c in _COLS)
                                                          for r in rows])
                    if made:
                        conn.exec_driver_sql(_NODES_SQLITE, [(table_id, lv, ix, h.hex())
                                                             for lv, ix, h in made])
                else:
                    conn.execute(J.insert(), rows)
                    merkle_store.insert(conn, table_id, made)
            except IntegrityError:
                raise JournalConflict(
                    f"table {table_id}: another writer appended record {records[0].seq} at the "
                    f"same moment; nothing was written (is a second station running this "
                    f"table?)") from None
            if after is not None:
                after(conn, records)
            signed = None
            # A checkpoint of what this transaction commits: at a round's close, and at least
            # every EVERY records (signed here, it needs no commit of its own).
            if sign or records[-1].seq // EVERY > (records[0].seq - 1) // EVERY:
                signed = self.signing.sign_in(conn, table_id, records[-1].seq, tree.root(),
                                              fresh=True)
        self._proven[table_id] = records[-1].hash
        self._trees.committed(table_id, tree)
        return records, signed

    def _prove_key(self, conn: Connection, table_id: str, seq: int | None) -> None:
        """Refuse to write under a key that did not write this journal: the table's head (or,
        for a table with no records yet, another table's) must carry this key's hash. A record
        hashed under the wrong key could never be verified again under the right one."""
        if seq is None:
            other = conn.execute(select(J.c.table_id).where(J.c.seq == 1).limit(1)).first()
            if other is None:
                return  # a new journal: nothing written yet to prove a key against
            table_id = other[0]
            if table_id in self._proven:
                return
            seq = conn.execute(select(func.max(J.c.seq))
                               .where(J.c.table_id == table_id)).scalar_one()
        row = conn.execute(select(*_RECORD_COLUMNS).where(J.c.table_id == table_id,
                                                          J.c.seq == seq)).one()
        t, seq, ts, actor, kind, round_no, payload, prev_hash, h = row
        calc = record_hash(self._secret, table_id=t, seq=seq, ts=ts, actor=actor,
                           kind=hashed_kind(kind, round_no), payload=payload,
                           prev_hash=prev_hash)
        if hmac.compare_digest(calc, h):
            self._proven[table_id] = h
            return
        self._refuse_key(table_id)
        raise JournalTampered(
            f"table {table_id}: record {seq}, the head of its chain, does not match its "
            f"keyed hash: it was changed without the key. Nothing was written; run "
            f"`dealer-station audit verify`")


__all__ = [
    "AnchorProblem",
    "Checkpoint",
    "ConfigVersion",
    "Copied",
    "Entry",
    "Fact",
    "Journal",
    "JournalConflict",
    "JournalError",
    "JournalTampered",
    "Meter",
    "MeterDelta",
    "Record",
    "RoundInfo",
    "VerifyResult",
    "WrongKey",
    "add_meters",
    "check_table_id",
    "has_records",
    "hashed_kind",
    "is_significant",
    "iso_utc",
    "record_config_version",
    "significant_kinds",
    "table_ids",
    "upsert_round",
    "utc_now",
]


_Prepared = tuple[str, str, str, int | None, dict[str, Any]]


def _facts(entries: Sequence[Entry | Copied]) -> list[Fact]:
    return [Fact.of(e.event, e.actor, e.round_no) if isinstance(e, Entry)
            else Fact(e.kind, e.payload, e.actor, e.round_no) for e in entries]


def _prepare(facts: Sequence[Fact]) -> list[_Prepared]:
    """Each fact checked and in its stored form: (kind, canonical JSON, actor, round, the
    payload decoded from that JSON, so the returned record equals what records() gives)."""
    if not facts:
        raise JournalError("nothing to append")
    prepared: list[_Prepared] = []
    for fact in facts:
        _check_kind(fact.kind)
        _check_actor(fact.actor)
        _check_round_no(fact.round_no)
        if not isinstance(fact.payload, Mapping):
            raise JournalError(f"{fact.kind}: payload must be a mapping, got "
                               f"{type(fact.payload).__name__}")
        try:
            payload_text = canonical_json(dict(fact.payload))
        except (CanonicalJsonError, TypeError, ValueError) as e:
            raise JournalError(f"{fact.kind}: payload cannot be journaled: {e}") from None
        prepared.append((fact.kind, payload_text, fact.actor, fact.round_no,
                         json.loads(payload_text)))
    return prepared
