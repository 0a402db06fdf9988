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
"""

from __future__ import annotations

import hmac
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, bindparam, func, or_, select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.sql.elements import ColumnElement

from dealer_station.audit import merkle_store, schema
from dealer_station.audit.anchors import (
    ANCHOR_DOMAIN,
    Anchor,
    AnchorProblem,
    append_line,
    applies,
    format_line,
    journal_location,
    parse_line,
)
from dealer_station.audit.checkpoint_signing import EVERY, CheckpointSigning, SignedCheckpoint
from dealer_station.audit.db import Database, db_reason
from dealer_station.audit.hashing import (
    CanonicalJsonError,
    canonical_json,
    config_version,
    derived_secret,
    genesis_hash,
    keyed_mac,
    record_hash,
)
from dealer_station.audit.keys import JournalKey, load_signing_key
from dealer_station.audit.merkle_store import Trees, leaf_of
from dealer_station.audit.notes import Signer
from dealer_station.audit.projections import (
    CLOSING_KINDS,
    CONFIG_KIND,
    OPENING_KINDS,
    Disagreement,
    ProjectionError,
    add_meter_sums,
    config_from_record,
    group_rounds,
    meter_disagreements,
    meters_from_closings,
    round_disagreement,
    round_from_records,
)
from dealer_station.audit.records import (
    ConfigVersion,
    Fact,
    JournalError,
    Meter,
    MeterDelta,
    Record,
    RoundInfo,
)

J = schema.journal
R = schema.rounds
M = schema.meters

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
_IN_ROUND = (J.c.table_id == bindparam("t"), J.c.round_no == bindparam("r"))
_THE_ROUND = (R.c.table_id == bindparam("t"), R.c.round_no == bindparam("r"))
# The round's span in the journal and its current row, in one round trip.
_SPAN_AND_STATE = select(
    select(func.min(J.c.seq)).where(*_IN_ROUND).scalar_subquery(),
    select(func.max(J.c.seq)).where(*_IN_ROUND).scalar_subquery(),
    select(R.c.config_version).where(*_THE_ROUND).scalar_subquery(),
    select(R.c.status).where(*_THE_ROUND).scalar_subquery())
_FIRST_TS = select(J.c.ts).where(J.c.table_id == bindparam("t"), J.c.seq == bindparam("s"))
_CLOSING = (select(J.c.kind, J.c.ts, J.c.payload)
            .where(*_IN_ROUND, J.c.kind.in_(bindparam("k", expanding=True)))
            .order_by(J.c.seq).limit(1))
_ROUND_FIELDS = ("game", "status", "dealer", "started_at", "ended_at", "summary")
# Only given fields change: COALESCE(:new, old) keeps the rest.
_ROUND_UPDATE = (update(R).where(*_THE_ROUND)
                 .values(first_seq=bindparam("first_seq"), last_seq=bindparam("last_seq"),
                         **{f: func.coalesce(bindparam(f"new_{f}", type_=R.c[f].type), R.c[f])
                            for f in _ROUND_FIELDS}))
_METER_UPSERT: dict[str, Any] = {}

# Significant events (AGCO / NIGC 543 / GLI style): the kinds `events()` returns by default.
SIGNIFICANT_KINDS: frozenset[str] = frozenset({
    "startup", "shutdown",
    "misread", "void", "correction",
    # A halt (who or what stopped play, and why), its resolution (who resumed or entered the
    # card, and why) and a card read but not taken are what a supervisor and a regulator look
    # for first.
    "halt", "resolve", "card.held",
    "config.change",
    "login", "login.failed", "lockout", "logout",
    "verify", "checkpoint",
    "clock.jump",
    "projection.mismatch",
    "alert.ack",
    # Chips leaving a Bourré pot other than to its winner: a supervisor's return, with why.
    "pot.return",
    # A tournament's rulings: a player or team put out, a result changed after the fact.
    "tournament.disqualify", "tournament.correct", "tournament.match.correct",
    # Accounting exceptions: an opener that differs from the previous closer, a voided slip.
    "tray.difference", "slip.void",
})
# ...and every kind starting with one of these (device.connected, device.lost, device.status,
# device.fault, user.add, user.pin, user.deactivate, user.unlock, ...; integrity.ok,
# integrity.mismatch, integrity.ack: the software check at start, see dealer_station/integrity.py;
# floor.lost, floor.restored, floor.refused: the link to the floor, see dealer_station/floor).
SIGNIFICANT_PREFIXES: tuple[str, ...] = ("device.", "user.", "integrity.", "floor.",
                                         "witness.")

_TABLE_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_KIND_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789._-")


class JournalConflict(JournalError):
    """Another writer extended the same table's chain at the same moment; nothing was written."""


class JournalTampered(JournalError):
    """A record the station was about to act on does not match its keyed hash, or a table
    beside the chain disagrees with it: the database was changed without the key."""


class WrongKey(JournalTampered):
    """The key given did not write this journal. Raised wherever tampering would be, since
    nothing may be written or acted on either way; the message tells the two apart."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso_utc(moment: datetime) -> str:
    """The stored time form: UTC, ISO-8601, microseconds, ``+00:00``."""
    if moment.tzinfo is None:
        raise ValueError("times must carry a time zone (naive datetime given)")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def hashed_kind(kind: str, round_no: int | None) -> str:
    """The ``kind`` field as it enters the hash: ``kind`` or ``kind#round_no``.

    Kinds cannot contain ``#``, so this is unambiguous; it binds the round number column into
    the record's hash without changing the shared encoding in ``hashing.py``.
    """
    return kind if round_no is None else f"{kind}#{round_no}"


def check_table_id(table_id: str) -> str:
    if (not isinstance(table_id, str) or not 1 <= len(table_id) <= 64
            or not set(table_id) <= _TABLE_ID_CHARS or table_id[0] in "._-"):
        raise JournalError(f"bad table id {table_id!r}: use 1-64 letters, digits, '.', '_' or "
                           f"'-', starting with a letter or digit")
    return table_id


def _check_kind(kind: str) -> None:
    if (not isinstance(kind, str) or not 1 <= len(kind) <= 100 or not set(kind) <= _KIND_CHARS
            or not kind[0].isalpha()):
        raise JournalError(f"bad record kind {kind!r}: use lower-case letters, digits, '.', '_' "
                           f"or '-', starting with a letter")


def _check_actor(actor: str) -> None:
    if (not isinstance(actor, str) or not actor.strip() or len(actor) > 200
            or any(c in actor for c in "\r\n\t")):
        raise JournalError(f"bad actor {actor!r}: every record needs who did it (a user id and "
                           f"role, or a device), on one line, at most 200 characters")


def _check_round_no(round_no: int | None) -> None:
    if round_no is not None and (type(round_no) is not int or round_no < 0):
        raise JournalError(f"bad round number {round_no!r}: a whole number >= 0 or None")


@dataclass(frozen=True, slots=True)
class Checkpoint:
    table_id: str
    seq: int
    hash: str
    ts: str
    source: str = "database"


@dataclass(frozen=True, slots=True)
class ProvenState:
    """What the chain proves of a table's meters, and from where it was summed."""

    meters: dict[str, Meter]
    last_round_checked: int
    """Rounds up to this one were proven before the checkpoint the sums start from."""
    from_seq: int

    def payload(self, last_round: int) -> dict[str, Any]:
        """A checkpoint payload that lets the next start sum from here."""
        return {"last_round": last_round,
                "meters": {k: {"rounds": m.rounds, "wagered": m.wagered, "paid": m.paid,
                               "house_win": m.house_win} for k, m in self.meters.items()}}


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """The outcome of verifying one table's chain."""

    table_id: str
    ok: bool
    records: int
    last_seq: int
    last_hash: str | None
    checkpoints: int
    bad_seq: int | None = None
    problem: str | None = None

    def __str__(self) -> str:
        if self.ok:
            tip = f" ({self.last_hash[:16]}...)" if self.last_hash else ""
            return (f"table {self.table_id}: ok, {self.records} records, chain intact to seq "
                    f"{self.last_seq}{tip}, {self.checkpoints} checkpoint(s) confirmed")
        return f"table {self.table_id}: FAILED at record {self.bad_seq}: {self.problem}"


# --- projections, written inside append's transaction --------------------------------------

def _upsert(conn: Connection, table: Any, values: Mapping[str, Any], keys: Sequence[str],
            set_: Callable[[Any], Mapping[str, Any]] | None) -> None:
    """INSERT ... ON CONFLICT (keys) DO UPDATE/NOTHING on either database."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert
        stmt: Any = pg_insert(table).values(**values)
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert
        stmt = sqlite_insert(table).values(**values)
    if set_ is None:
        stmt = stmt.on_conflict_do_nothing(index_elements=list(keys))
    else:
        stmt = stmt.on_conflict_do_update(index_elements=list(keys), set_=set_(stmt.excluded))
    conn.execute(stmt)


def _meter_upsert(dialect: str) -> Any:
    stmt = _METER_UPSERT.get(dialect)
    if stmt is None:
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert
            ins: Any = pg_insert(M)
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert
            ins = sqlite_insert(M)
        ex = ins.excluded
        stmt = _METER_UPSERT[dialect] = ins.on_conflict_do_update(
            index_elements=["table_id", "meter"],
            set_={"rounds": M.c.rounds + ex.rounds, "wagered": M.c.wagered + ex.wagered,
                  "paid": M.c.paid + ex.paid, "house_win": M.c.house_win + ex.house_win})
    return stmt


def add_meters(conn: Connection, table_id: str, deltas: Mapping[str, MeterDelta]) -> None:
    """Add to a table's meters (creating them at zero). Call inside ``append``'s ``also``.

    Meter keys are wager kinds and ``"total"``; the caller passes ``"total"`` explicitly because
    a round counts once in the total however many wager kinds it held.
    """
    rows = []
    for meter, delta in deltas.items():
        if not isinstance(delta, MeterDelta):
            raise JournalError(f"meter {meter!r}: expected a MeterDelta, got {delta!r}")
        if not isinstance(meter, str) or not 1 <= len(meter) <= 64:
            raise JournalError(f"bad meter key {meter!r}: 1-64 characters")
        rows.append({"table_id": table_id, "meter": meter, "rounds": delta.rounds,
                     "wagered": delta.wagered, "paid": delta.paid,
                     "house_win": delta.house_win})
    stmt = _meter_upsert(conn.dialect.name)
    for row in rows:
        conn.execute(stmt, row)


def upsert_round(conn: Connection, table_id: str, round_no: int, *, game: str | None = None,
                 config_version: str | None = None, status: str | None = None,
                 dealer: str | None = None) -> None:
    """Create or update a round's row. Call inside ``append``'s ``also``.

    ``first_seq``/``last_seq`` are taken from the round's journal records (including the ones
    being appended), so the first call must follow a record with this ``round_no``. Creating
    needs ``game``, ``config_version`` and ``dealer``; ``started_at`` is the round's first
    record's time and ``status`` defaults to ``open``. Settling or voiding takes ``ended_at``
    and the summary from the round's closing record (``round.close``, ``hand.close`` or
    ``void``, see projections.py), which must be among the records being appended. Refused
    (and so the whole append): changing a round's configuration version (a round never mixes
    two versions) and reopening a settled or voided round.
    """
    if status is not None and status not in schema.ROUND_STATUSES:
        raise JournalError(f"bad round status {status!r}: one of "
                           f"{', '.join(schema.ROUND_STATUSES)}")
    key = {"t": table_id, "r": round_no}
    first_seq, last_seq, old_version, old_status = conn.execute(_SPAN_AND_STATE, key).one()
    if first_seq is None:
        raise JournalError(f"round {round_no} at table {table_id} has no journal records: "
                           f"update the round inside the append that records it")
    started_at: str | None = None
    ended_at: str | None = None
    summary_text: str | None = None
    if status in ("settled", "voided"):
        closing = conn.execute(_CLOSING, {**key, "k": list(CLOSING_KINDS)}).first()
        if closing is None or CLOSING_KINDS[closing.kind] != status:
            raise JournalError(f"round {round_no} at table {table_id}: a round is {status} only "
                               f"by its closing record, appended with it")
        ended_at = closing.ts
        summary_text = canonical_json({k: v for k, v in json.loads(closing.payload).items()
                                       if k != "meters"})
    if old_status is None:  # no row yet (status is never NULL in a row)
        missing = [n for n, v in (("game", game), ("config_version", config_version),
                                  ("dealer", dealer)) if v is None]
        if missing:
            raise JournalError(f"round {round_no} at table {table_id} is new: "
                               f"{', '.join(missing)} required")
        started_at = conn.execute(_FIRST_TS, {"t": table_id, "s": first_seq}).scalar_one()
        conn.execute(R.insert(), {
            "table_id": table_id, "round_no": round_no, "game": game,
            "config_version": config_version, "status": status or "open", "dealer": dealer,
            "started_at": started_at, "ended_at": ended_at, "first_seq": first_seq,
            "last_seq": last_seq, "summary": summary_text or "{}"})
        return
    if config_version is not None and config_version != old_version:
        raise JournalError(
            f"round {round_no} at table {table_id} was started under configuration version "
            f"{old_version[:12]}; it cannot continue under {config_version[:12]} (a round never "
            f"mixes two configuration versions)")
    if status == "open" and old_status != "open":
        raise JournalError(f"round {round_no} at table {table_id} is {old_status}; it cannot be "
                           f"reopened")
    conn.execute(_ROUND_UPDATE, {
        **key, "first_seq": first_seq, "last_seq": last_seq, "new_game": game,
        "new_status": status, "new_dealer": dealer, "new_started_at": None,
        "new_ended_at": ended_at, "new_summary": summary_text})


def record_config_version(conn: Connection, *, table_id: str, game: str,
                          content: Mapping[str, Any] | str, created_by: str, reason: str,
                          created_at: str | None = None) -> str:
    """Store a configuration version for a table (once) and return its version hash.

    ``content`` is the configuration as data (or its canonical JSON text); the version is the
    SHA-256 of the canonical JSON. Call inside the ``also`` of the ``config.change`` record that
    says who changed what and why.
    """
    text_ = content if isinstance(content, str) else canonical_json(dict(content))
    if not reason or not reason.strip():
        raise JournalError("a configuration change needs a reason")
    version = config_version(text_)
    _upsert(conn, schema.config_versions,
            {"table_id": table_id, "version": version, "game": game, "content": text_,
             "created_at": created_at or iso_utc(utc_now()), "created_by": created_by,
             "reason": reason},
            ("table_id", "version"), None)
    return version


# --- the journal ----------------------------------------------------------------------------

_RECORD_COLUMNS = (J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
                   J.c.prev_hash, J.c.hash)


#: The distinct table ids by hopping along the index that leads with table_id (one probe per
#: table), where SELECT DISTINCT would read every entry of it.
_TABLE_IDS = text(
    "WITH RECURSIVE t(id) AS (SELECT MIN(table_id) FROM journal UNION ALL "
    "SELECT (SELECT MIN(table_id) FROM journal WHERE table_id > t.id) FROM t "
    "WHERE t.id IS NOT NULL) SELECT id FROM t WHERE id IS NOT NULL ORDER BY id")


def table_ids(conn: Connection) -> list[str]:
    """Tables that have at least one record, in order."""
    return list(conn.execute(_TABLE_IDS).scalars())


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _record(row: Sequence[Any]) -> Record:
    t, seq, ts, actor, kind, round_no, payload, prev_hash, h = row
    # The station writes every payload as a canonical JSON object: anything else (text that
    # is not JSON, NaN or Infinity, a bare number) was put there by someone else.
    try:
        decoded = json.loads(payload, parse_constant=_no_constant)
    except (TypeError, ValueError, RecursionError):
        decoded = None
    if not isinstance(decoded, dict):
        raise JournalTampered(f"table {t} record {seq} ({kind}): its payload is not a JSON "
                              f"object, so the station did not write it; run "
                              f"`dealer-station audit verify`")
    return Record(t, seq, ts, actor, kind, round_no, decoded, prev_hash, h)


def _kind_filter(kinds: Iterable[str]) -> ColumnElement[bool]:
    """``kinds`` may hold exact kinds and prefixes written ``device.*``."""
    exact = [k for k in kinds if not k.endswith("*")]
    prefixes = [k[:-1] for k in kinds if k.endswith("*")]
    terms: list[ColumnElement[bool]] = []
    if exact:
        terms.append(J.c.kind.in_(exact))
    terms.extend(J.c.kind.startswith(p, autoescape=True) for p in prefixes)
    return or_(*terms) if terms else J.c.kind.in_([])


def has_records(db: Database) -> bool:
    """Whether the journal holds any record at all (of any table)."""
    with db.read() as conn:
        return conn.execute(select(J.c.id).limit(1)).first() is not None


def significant_kinds() -> list[str]:
    """The kind filter that selects significant events (exact kinds and ``prefix.*``)."""
    return sorted(SIGNIFICANT_KINDS) + [p + "*" for p in SIGNIFICANT_PREFIXES]


def is_significant(kind: str) -> bool:
    return kind in SIGNIFICANT_KINDS or kind.startswith(SIGNIFICANT_PREFIXES)


@dataclass
class Journal:
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

    def _append(self, table_id: str, facts: Sequence[Fact],
                after: Callable[[Connection, list[Record]], None] | None, *,
                sign: bool = False) -> list[Record]:
        check_table_id(table_id)
        if not facts:
            raise JournalError("nothing to append")
        prepared: list[tuple[str, str, str, int | None, dict[str, Any]]] = []
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
            # Decode what is stored, so the returned record equals what records() will give.
            prepared.append((fact.kind, payload_text, fact.actor, fact.round_no,
                             json.loads(payload_text)))
        try:
            written, signed = self._write(table_id, prepared, after, sign)
        except OperationalError as e:
            raise JournalError(f"table {table_id}: the database refused the write "
                               f"({db_reason(e)}); nothing was written") from None
        self._written[table_id] = written[-1]
        self.signing.committed(signed)
        for listener in self.on_commit:
            listener(table_id)
        return written

    def _write(self, table_id: str,
               prepared: list[tuple[str, str, str, int | None, dict[str, Any]]],
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
                signed = self.signing.sign_in(conn, table_id, records[-1].seq, tree.root())
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

    # -- reading --

    def records(self, table_id: str, *, from_seq: int = 1, to_seq: int | None = None,
                round_no: int | None = None,
                kinds: Iterable[str] | None = None) -> Iterator[Record]:
        """A table's records in seq order, streamed (``kinds`` may hold ``prefix.*``)."""
        conds: list[ColumnElement[bool]] = [J.c.table_id == table_id]
        if from_seq > 1:
            conds.append(J.c.seq >= from_seq)
        if to_seq is not None:
            conds.append(J.c.seq <= to_seq)
        if round_no is not None:
            conds.append(J.c.round_no == round_no)
        if kinds is not None:
            conds.append(_kind_filter(list(kinds)))
        stmt = select(*_RECORD_COLUMNS).where(*conds).order_by(J.c.seq)
        with self.db.engine.connect() as conn:
            result = conn.execution_options(yield_per=2000).execute(stmt)
            for row in result:
                yield _record(row)

    def round_records(self, table_id: str, round_no: int) -> list[Record]:
        """Every record of one round, in order (game recall), each checked against its hash."""
        return self.proven_round_records(table_id, round_no)

    def last(self, table_id: str) -> Record | None:
        with self.db.read() as conn:
            row = conn.execute(select(*_RECORD_COLUMNS).where(J.c.table_id == table_id)
                               .order_by(J.c.seq.desc()).limit(1)).first()
        return None if row is None else _record(row)

    def tables(self) -> list[str]:
        """Tables that have at least one record."""
        with self.db.read() as conn:
            return table_ids(conn)

    def events(self, table_id: str | None = None, since: datetime | None = None,
               until: datetime | None = None,
               kinds: Iterable[str] | None = None) -> list[Record]:
        """Significant events (or the given kinds) of one table or all, oldest first.

        ``since`` is inclusive, ``until`` exclusive.
        """
        conds: list[ColumnElement[bool]] = [
            _kind_filter(significant_kinds() if kinds is None else list(kinds))]
        if table_id is not None:
            conds.append(J.c.table_id == table_id)
        if since is not None:
            conds.append(J.c.ts >= iso_utc(since))
        if until is not None:
            conds.append(J.c.ts < iso_utc(until))
        stmt = select(*_RECORD_COLUMNS).where(*conds).order_by(J.c.ts, J.c.table_id, J.c.seq)
        with self.db.read() as conn:
            return list(self.authentic(conn.execute(stmt)))

    # Rounds, meters and configuration versions are read from chained records whose keyed
    # hash is checked as they are read (projections.py says how); the tables beside the chain
    # are never taken at their word. check_projections() compares those tables with the chain.

    def authentic(self, rows: Iterable[Sequence[Any]]) -> Iterator[Record]:
        """Decode rows into records, refusing any whose keyed hash does not match."""
        key = self._secret
        for row in rows:
            t, seq, ts, actor, kind, round_no, payload, prev_hash, h = row
            # The stored text is what was hashed: no need to re-encode the payload.
            calc = record_hash(key, table_id=t, seq=seq, ts=ts, actor=actor,
                               kind=hashed_kind(kind, round_no), payload=payload,
                               prev_hash=prev_hash)
            try:
                rec = _record(row)
            except ValueError:
                rec = None
            if rec is None or not hmac.compare_digest(calc, h):
                self._refuse_key(t)
                raise JournalTampered(
                    f"table {t} record {seq} ({kind}) does not match its "
                    f"hash: the journal was changed without the key; run "
                    f"`dealer-station audit verify`")
            yield rec

    def _refuse_key(self, table_id: str) -> None:
        """Raise :class:`WrongKey` if ``table_id``'s record 1 is not linked to this key's
        genesis hash (a record that fails its hash under another journal's key is not
        evidence of tampering)."""
        with self.db.read() as conn:
            link = conn.execute(select(J.c.prev_hash).where(J.c.table_id == table_id,
                                                            J.c.seq == 1)).scalar()
        if link is not None and link != self.genesis(table_id):
            where = (f"the key file {self.key.path}" if isinstance(self.key, JournalKey)
                     else "the key given")
            raise WrongKey(
                f"{where} is not the key of the journal at {self.location}: table "
                f"{table_id}'s records were not written under it. Pass --key with the key "
                f"file this journal was written with")

    def _select(self, stmt: Any) -> list[Record]:
        with self.db.read() as conn:
            return list(self.authentic(conn.execute(stmt)))

    def proven_round_records(self, table_id: str, round_no: int) -> list[Record]:
        """A round's records, each checked against its keyed hash."""
        return self._select(select(*_RECORD_COLUMNS)
                            .where(J.c.table_id == table_id, J.c.round_no == round_no)
                            .order_by(J.c.seq))

    def last_round_no(self, table_id: str) -> int:
        """The table's highest round number in the chain (0 when none): a new round takes
        the next, whatever the rounds table says."""
        recs = self._select(select(*_RECORD_COLUMNS)
                            .where(J.c.table_id == table_id, J.c.round_no.is_not(None))
                            .order_by(J.c.round_no.desc(), J.c.seq.desc()).limit(1))
        return int(recs[0].round_no or 0) if recs else 0

    def recent_rounds(self, table_id: str, last: int = 10) -> list[RoundInfo]:
        """The last ``last`` rounds of a table, newest first, as the chain establishes them."""
        with self.db.read() as conn:
            numbers = list(conn.execute(
                select(J.c.round_no).where(J.c.table_id == table_id, J.c.round_no.is_not(None))
                .distinct().order_by(J.c.round_no.desc()).limit(last)).scalars())
        if not numbers:
            return []
        stmt = (select(*_RECORD_COLUMNS)
                .where(J.c.table_id == table_id, J.c.round_no >= min(numbers))
                .order_by(J.c.round_no, J.c.seq))
        with self.db.engine.connect() as conn:
            rows = conn.execution_options(yield_per=5000).execute(stmt)
            infos = [round_from_records(table_id, recs)
                     for recs in group_rounds(self.authentic(rows))]
        return infos[::-1]

    def round_info(self, table_id: str, round_no: int) -> RoundInfo | None:
        records = self.proven_round_records(table_id, round_no)
        return round_from_records(table_id, records) if records else None

    def open_rounds(self, table_id: str) -> list[RoundInfo]:
        """Rounds not yet settled or voided (what crash recovery resumes), oldest first.

        Candidates are the rows the projection says are open and the chain's last round (a
        deleted or edited row cannot hide an open round); each is decided by its records.
        """
        with self.db.read() as conn:
            candidates = set(conn.execute(select(R.c.round_no).where(
                R.c.table_id == table_id, R.c.status == "open")).scalars())
        last = self.last_round_no(table_id)
        if last:
            candidates.add(last)
        infos = [self.round_info(table_id, n) for n in sorted(candidates)]
        return [i for i in infos if i is not None and i.status == "open"]

    def meters(self, table_id: str) -> dict[str, Meter]:
        """The meters projection as stored (see :meth:`meters_from_chain` for the proof)."""
        M = schema.meters
        with self.db.read() as conn:
            rows = conn.execute(select(M).where(M.c.table_id == table_id)
                                .order_by(M.c.meter)).all()
        return {r.meter: Meter(r.table_id, r.meter, r.rounds, r.wagered, r.paid, r.house_win)
                for r in rows}

    def meters_from_chain(self, table_id: str) -> dict[str, Meter]:
        """The meters as the closing records of every round sum them."""
        return self.proven_state(table_id, since_checkpoint=False).meters

    def _config_rows(self, table_id: str) -> dict[str, Any]:
        C = schema.config_versions
        with self.db.read() as conn:
            return {r.version: r for r in conn.execute(select(C).where(C.c.table_id == table_id))}

    def config_versions(self, table_id: str) -> list[ConfigVersion]:
        """A table's configuration versions in the order the chain established them.

        Only versions named by a ``config.change`` record of the table count; a version
        established twice appears where it was last established. Raises
        :class:`JournalTampered` when a version's content cannot be proven.
        """
        records = self._select(select(*_RECORD_COLUMNS)
                               .where(J.c.table_id == table_id, J.c.kind == CONFIG_KIND)
                               .order_by(J.c.seq))
        rows = self._config_rows(table_id)
        out: dict[str, ConfigVersion] = {}
        for rec in records:
            version = str(rec.payload.get("version", ""))
            row = rows.get(version)
            try:
                cv = config_from_record(table_id, rec, row.content if row else None,
                                        row.game if row else None)
            except ProjectionError as e:
                raise JournalTampered(str(e)) from None
            out.pop(version, None)
            out[version] = cv
        return list(out.values())

    def config(self, table_id: str, version: str) -> ConfigVersion | None:
        """One configuration version, if the chain establishes it (replay settles a round
        with exactly this)."""
        for cv in self.config_versions(table_id):
            if cv.version == version:
                return cv
        return None

    # -- projections: proof and repair --

    def check_projections(self, table_id: str, *, since_checkpoint: bool = False,
                          state: ProvenState | None = None) -> list[Disagreement]:
        """Every row of the rounds, meters and configuration tables of one table that is not
        what the chain says (empty when they agree). Records read are hash-checked.

        ``since_checkpoint`` (a table service starting): meters are summed from the newest
        checkpoint record that carries them (a clean shut-down writes one) and rounds rows
        are checked from the round after it; ``audit verify`` checks everything.
        """
        problems: list[Disagreement] = []
        try:
            if state is None:
                state = self.proven_state(table_id, since_checkpoint=since_checkpoint)
        except JournalTampered as e:
            return [Disagreement(table_id, "meters", "-", str(e))]
        after = state.last_round_checked
        if after and self._round_counts_differ(table_id, after):
            after = 0  # rows were deleted or added behind the checkpoint: check them all
        problems += self._check_rounds(table_id, after_round=after)
        problems += meter_disagreements(table_id, state.meters, self.meters(table_id))
        problems += self._check_configs(table_id)
        return problems

    def proven_state(self, table_id: str, *, since_checkpoint: bool = True) -> ProvenState:
        """The table's meters as the chain sums them: from the newest checkpoint record that
        carries meters (when ``since_checkpoint``), plus every closing record after it."""
        base: Record | None = None
        if since_checkpoint:
            for rec in self._select(select(*_RECORD_COLUMNS)
                                    .where(J.c.table_id == table_id, J.c.kind == "checkpoint")
                                    .order_by(J.c.seq.desc()).limit(20)):
                if isinstance(rec.payload.get("meters"), Mapping) and \
                        isinstance(rec.payload.get("last_round"), int):
                    base = rec
                    break
        stmt = (select(*_RECORD_COLUMNS)
                .where(J.c.table_id == table_id, J.c.kind.in_(list(CLOSING_KINDS)),
                       J.c.seq > (base.seq if base is not None else 0))
                .order_by(J.c.seq))
        with self.db.engine.connect() as conn:
            rows = conn.execution_options(yield_per=5000).execute(stmt)
            try:
                meters = meters_from_closings(table_id, self.authentic(rows))
                if base is not None:
                    meters = add_meter_sums(table_id, base.payload["meters"], meters)
            except ProjectionError as e:
                raise JournalTampered(str(e)) from None
        last = int(base.payload["last_round"]) if base is not None else 0
        return ProvenState(meters, last, base.seq if base is not None else 0)

    def _round_counts_differ(self, table_id: str, up_to: int) -> bool:
        """Whether the rounds table holds another number of rows up to a round than the
        chain opened rounds (two counts, no record read)."""
        with self.db.read() as conn:
            chain = conn.execute(select(func.count(func.distinct(J.c.round_no))).where(
                J.c.table_id == table_id, J.c.kind.in_(list(OPENING_KINDS)),
                J.c.round_no <= up_to)).scalar_one()
            rows = conn.execute(select(func.count()).select_from(R).where(
                R.c.table_id == table_id, R.c.round_no <= up_to)).scalar_one()
        return bool(chain != rows)

    def _check_rounds(self, table_id: str, after_round: int = 0) -> list[Disagreement]:
        # Only each round's opening and closing records and its seq span are needed.
        in_scope = (J.c.table_id == table_id, J.c.round_no.is_not(None),
                    J.c.round_no > after_round)
        with self.db.read() as conn:
            spans = {n: (lo, hi) for n, lo, hi in conn.execute(
                select(J.c.round_no, func.min(J.c.seq), func.max(J.c.seq))
                .where(*in_scope).group_by(J.c.round_no))}
            rows = {r.round_no: _round_info(r)
                    for r in conn.execute(select(R).where(R.c.table_id == table_id,
                                                          R.c.round_no > after_round))}
        marks: dict[int, list[Record]] = {}
        stmt = (select(*_RECORD_COLUMNS)
                .where(*in_scope, J.c.kind.in_(list(OPENING_KINDS) + list(CLOSING_KINDS)))
                .order_by(J.c.seq))
        problems: list[Disagreement] = []
        try:
            with self.db.engine.connect() as conn:
                result = conn.execution_options(yield_per=5000).execute(stmt)
                for rec in self.authentic(result):
                    marks.setdefault(int(rec.round_no or 0), []).append(rec)
        except JournalTampered as e:
            return [Disagreement(table_id, "rounds", "-", str(e))]
        for n, (lo, hi) in sorted(spans.items()):
            recs = marks.get(n, [])
            opening = [r for r in recs if r.seq == lo]
            if not opening:
                # Records numbered with a round but no round opened: no row belongs to them.
                if n in rows:
                    problems.append(Disagreement(
                        table_id, "rounds", f"round {n}",
                        f"the journal's first record of this round ({lo}) does not open a "
                        f"round, so no row belongs to it"))
                continue
            closing = [r for r in recs if r.kind in CLOSING_KINDS][:1]
            want = round_from_records(table_id, opening + closing)
            if not closing:
                want = RoundInfo(**{**_fields(want), "last_seq": hi})
            bad = round_disagreement(want, rows.get(n))
            if bad is not None:
                problems.append(bad)
        for n in sorted(set(rows) - set(spans)):
            problems.append(Disagreement(table_id, "rounds", f"round {n}",
                                         "the journal has no record of this round"))
        return problems

    def _check_configs(self, table_id: str) -> list[Disagreement]:
        try:
            established = {cv.version for cv in self.config_versions(table_id)}
        except JournalTampered as e:
            return [Disagreement(table_id, "config_versions", "-", str(e))]
        problems = []
        for version, row in sorted(self._config_rows(table_id).items()):
            if version not in established:
                problems.append(Disagreement(
                    table_id, "config_versions", f"version {version[:12]}",
                    "no config.change record of this table establishes it (inserted)"))
            elif config_version(row.content) != version:
                problems.append(Disagreement(
                    table_id, "config_versions", f"version {version[:12]}",
                    "its content does not hash to its version (edited)"))
        return problems

    def rebuild_projections(self, table_id: str, actor: str, *,
                            since_checkpoint: bool = False) -> list[Disagreement]:
        """Check one table's projections and, if any disagree, journal a significant
        ``projection.mismatch`` record naming them and rewrite the rows from the chain, in
        one transaction. Returns what disagreed (empty: nothing was written)."""
        problems = self.check_projections(table_id, since_checkpoint=since_checkpoint)
        if not problems:
            return []
        rounds = self.recent_rounds(table_id, last=2**62)
        meters = self.meters_from_chain(table_id)
        configs = self.config_versions(table_id)
        C = schema.config_versions

        def rewrite(conn: Connection) -> None:
            for table in (R, M, C):
                conn.execute(table.delete().where(table.c.table_id == table_id))
            for info in rounds:
                conn.execute(R.insert(), {**_fields(info),
                                          "summary": canonical_json(info.summary)})
            for m in meters.values():
                conn.execute(M.insert(), {f.name: getattr(m, f.name)
                                          for f in dataclass_fields(m)})
            for cv in configs:
                conn.execute(C.insert(), {"table_id": table_id, "version": cv.version,
                                          "game": cv.game,
                                          "content": canonical_json(cv.content),
                                          "created_at": cv.created_at,
                                          "created_by": cv.created_by, "reason": cv.reason})

        self.append(table_id, "projection.mismatch",
                    {"count": len(problems), "problems": [str(p) for p in problems[:20]],
                     "action": "rebuilt from the journal"}, actor, also=rewrite)
        return problems

    # -- checkpoints --

    def checkpoint(self, table_id: str, actor: str,
                   payload: Mapping[str, Any] | None = None) -> Checkpoint:
        """Append a ``checkpoint`` record and anchor its seq and hash in the database and in
        the anchor file outside it: records up to it can then not be cut off unnoticed.

        A table service's checkpoint at shut-down carries its proven meters and last round
        (``payload``), so that the next start checks only what came after."""
        if self.anchor_path is None:
            raise JournalError("no anchor file: give the Journal a key file or an anchor_path")
        C = schema.checkpoints

        def after(conn: Connection, records: list[Record]) -> None:
            r = records[0]
            conn.execute(C.insert().values(table_id=table_id, seq=r.seq, hash=r.hash, ts=r.ts,
                                           actor=actor))

        record = self._append(table_id, [Fact("checkpoint", dict(payload or {}), actor)],
                              after, sign=True)[0]
        # The database has committed; now the outside copy. (The other order could leave an
        # anchor for a record that was never committed, which would read as truncation.)
        self.anchor(record, sync=True)
        return Checkpoint(table_id, record.seq, record.hash, record.ts, "database+anchor")

    def anchor_line(self, record: Record) -> str:
        """``<table> <seq> <hash> <time> <mac> <first> <location>``: the MAC (under the
        journal key) makes a line that was forged or damaged in place detectable; the last two
        fields name the journal it anchors (``audit/anchors.py``)."""
        mac = self.mac(ANCHOR_DOMAIN, record.table_id, str(record.seq), record.hash, record.ts)
        return format_line(record.table_id, record.seq, record.hash, record.ts, mac,
                           first=self._first_hash(record), location=self.location)

    def _first_hash(self, record: Record) -> str:
        """The hash of record 1 of ``record``'s table (what names the chain in anchors)."""
        if record.seq == 1:
            return record.hash
        first = self._firsts.get(record.table_id)
        if first is None:
            with self.db.read() as conn:
                first = conn.execute(select(J.c.hash).where(
                    J.c.table_id == record.table_id, J.c.seq == 1)).scalar_one_or_none()
            if first is None:
                raise JournalTampered(f"table {record.table_id}: record 1 is missing from the "
                                      f"chain; run `dealer-station audit verify`")
            self._firsts[record.table_id] = first
        return first

    def anchor(self, record: Record, *, sync: bool = False) -> None:
        """Write a committed record's seq and hash to the anchor file (outside the database).

        ``sync`` also flushes it to disk (at checkpoints; a SIGKILL loses no written line, only
        a power cut can, and a lost anchor only weakens what verification can prove: it never
        makes an honest journal look cut).
        """
        if self.anchor_path is None:
            return
        anchor = self.anchor_path
        line = self.anchor_line(record)
        try:
            append_line(anchor, line, sync=sync)
        except OSError as e:
            raise JournalError(f"record {record.seq} of table {record.table_id} is in the "
                               f"database but the anchor file {anchor} could not be written: "
                               f"{e.strerror}") from None
        with self._anchor_lock:
            self._anchored[record.table_id] = record.seq

    def anchor_written(self) -> None:
        """Anchor the newest record this object appended to each table, if not yet anchored
        (a command that wrote to the journal calls this as it ends)."""
        for table_id, record in list(self._written.items()):
            if self._anchored.get(table_id, 0) < record.seq:
                self.anchor(record, sync=True)
            self.signing.sign(table_id)         # the head, if not yet signed

    def anchor_lines(self) -> list[Anchor]:
        """Every line of the anchor file that carries this key's MAC, whichever journal it
        names (empty when there is no file). Lines that cannot be read (torn, garbled) or whose
        MAC does not match are left out and listed in :attr:`anchor_problems`."""
        self.anchor_problems = []
        if self.anchor_path is None or not self.anchor_path.exists():
            return []
        try:
            data = self.anchor_path.read_bytes()
        except OSError as e:
            self.anchor_problems.append(AnchorProblem(0, f"cannot be read: {e.strerror}",
                                                      forged=False))
            return []

        def valid_table(t: str) -> bool:
            try:
                check_table_id(t)
            except JournalError:
                return False
            return True

        def mac_ok(t: str, seq: str, h: str, ts: str, mac: str) -> bool:
            return hmac.compare_digest(mac, self.mac(ANCHOR_DOMAIN, t, seq, h, ts))

        out: list[Anchor] = []
        for n, raw in enumerate(data.split(b"\n"), 1):
            parsed = parse_line(n, raw, valid_table, mac_ok)
            if isinstance(parsed, AnchorProblem):
                self.anchor_problems.append(parsed)
            elif parsed is not None:
                out.append(parsed)
        return out

    def first_hashes(self) -> dict[str, str]:
        """Each table's record-1 hash as the database holds it now."""
        with self.db.read() as conn:
            return dict(conn.execute(select(J.c.table_id, J.c.hash).where(J.c.seq == 1)).all())

    def own_anchors(self) -> list[Anchor]:
        """The anchor lines that speak of this journal (``audit/anchors.py``: its record 1,
        or its location); lines of other journals under the same key are left out."""
        lines = self.anchor_lines()
        if not lines:
            return []
        firsts = self.first_hashes()
        return [a for a in lines if applies(a, location=self.location, first_hashes=firsts)]

    def anchored_checkpoints(self) -> list[Checkpoint]:
        """Checkpoints listed in the anchor file for this journal (empty when none)."""
        source = f"anchor file {self.anchor_path}"
        return [Checkpoint(a.table_id, a.seq, a.hash, a.ts, source)
                for a in self.own_anchors()]

    def is_new(self) -> bool:
        """A journal with no record, no checkpoint and no anchor of its own: only such a
        journal may take its first operator without a sign-in."""
        with self.db.read() as conn:
            if conn.execute(select(J.c.seq).limit(1)).first() is not None:
                return False
            if conn.execute(select(schema.checkpoints.c.seq).limit(1)).first() is not None:
                return False
        return not self.own_anchors()

    def check_head(self, table_id: str) -> None:
        """Refuse to write after a table's newest records were cut off: its chain must reach
        every record the anchor file and the checkpoints table name, with the same hashes."""
        with self.db.read() as conn:
            count, top_seq = conn.execute(select(func.count(), func.max(J.c.seq))
                                          .where(J.c.table_id == table_id)).one()
        if count and count != top_seq:
            # Two aggregates, no record read: a record taken out of the middle shows as a gap.
            raise JournalTampered(
                f"table {table_id}: the journal holds {count} records numbered up to "
                f"{top_seq}: records were removed from the chain. The station will not "
                f"write to it; run `dealer-station audit verify`")
        anchors = [a for a in self.own_anchors() if a.table_id == table_id]
        wanted = ([Checkpoint(a.table_id, a.seq, a.hash, a.ts,
                              f"anchor file {self.anchor_path}") for a in anchors]
                  + self.db_checkpoints(table_id))
        if not wanted:
            return
        top = max(wanted, key=lambda c: c.seq)
        with self.db.read() as conn:
            row = conn.execute(select(J.c.hash).where(J.c.table_id == table_id,
                                                      J.c.seq == top.seq)).first()
        if row is None or row[0] != top.hash:
            last = self.last(table_id)
            ends = f"ends at record {last.seq}" if last else "has no records"
            what = ("records were cut off the end" if row is None else
                    "its chain was rebuilt")
            whose = next((a for a in anchors if a.seq == top.seq and a.hash == top.hash), None)
            named = ""
            if whose is not None and whose.named:
                named = (f" Those anchors belong to {whose.journal()}: if this database is "
                         f"another journal, give it a key of its own (`dealer-station audit "
                         f"new-key --key NEW.key`, then --key NEW.key); otherwise open that "
                         f"journal.")
            raise JournalTampered(
                f"table {table_id}: the journal at {self.location} {ends} but the "
                f"{top.source} recorded record {top.seq} ({top.hash[:16]}...) at {top.ts}: "
                f"{what}. The station will not write to it; run `dealer-station audit "
                f"verify`.{named}")

    def check_heads(self) -> None:
        """:meth:`check_head` for every table the journal, its checkpoints or its own anchors
        name (user administration acts on records of every chain)."""
        names = set(self.tables()) | {c.table_id for c in self.db_checkpoints()} | \
            {a.table_id for a in self.own_anchors()}
        for t in sorted(names):
            self.check_head(t)

    def db_checkpoints(self, table_id: str | None = None) -> list[Checkpoint]:
        C = schema.checkpoints
        stmt = select(C.c.table_id, C.c.seq, C.c.hash, C.c.ts).order_by(C.c.table_id, C.c.seq)
        if table_id is not None:
            stmt = stmt.where(C.c.table_id == table_id)
        with self.db.read() as conn:
            return [Checkpoint(*r, source="database") for r in conn.execute(stmt)]

    # -- verification --

    def verify(self, table_id: str | None = None) -> list[VerifyResult]:
        """Walk each table's chain (or one table's) and report the first bad record of each.

        Tables are those with records, plus any named by a checkpoint (a table whose records
        were all deleted is still checked).
        """
        anchors = self.anchored_checkpoints()
        in_db = self.db_checkpoints(table_id)
        if table_id is not None:
            check_table_id(table_id)
            names = [table_id]
        else:
            names = sorted(set(self.tables()) | {c.table_id for c in anchors}
                           | {c.table_id for c in in_db})
        return [self.verify_table(t, [c for c in anchors + in_db if c.table_id == t])
                for t in names]

    def verify_table(self, table_id: str,
                     checkpoints: Sequence[Checkpoint] | None = None) -> VerifyResult:
        if checkpoints is None:
            checkpoints = ([c for c in self.anchored_checkpoints() if c.table_id == table_id]
                           + self.db_checkpoints(table_id))
        wanted: dict[int, list[Checkpoint]] = {}
        for c in checkpoints:
            wanted.setdefault(c.seq, []).append(c)
        confirmed: set[int] = set()

        def bad(seq: int, count: int, last_seq: int, last_hash: str | None,
                problem: str) -> VerifyResult:
            return VerifyResult(table_id, False, count, last_seq, last_hash, len(confirmed),
                                seq, problem)

        key = self._secret
        expected = 1
        prev = self.genesis(table_id)
        last_hash: str | None = None
        stmt = (select(J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
                       J.c.prev_hash, J.c.hash)
                .where(J.c.table_id == table_id).order_by(J.c.seq))
        with self.db.engine.connect() as conn:
            rows = conn.execution_options(yield_per=5000).execute(stmt)
            for seq, ts, actor, kind, round_no, payload, prev_hash, h in rows:
                if seq != expected:
                    if seq > expected:
                        gone = (f"record {expected} is missing" if seq == expected + 1 else
                                f"records {expected} to {seq - 1} are missing")
                        return bad(expected, expected - 1, expected - 1, last_hash,
                                   f"{gone}: the chain jumps from {expected - 1} to {seq} "
                                   f"(deleted)")
                    return bad(seq, expected - 1, expected - 1, last_hash,
                               f"a record numbered {seq} appears where {expected} was expected "
                               f"(inserted)")
                calc = record_hash(key, table_id=table_id, seq=seq, ts=ts, actor=actor,
                                   kind=kind if round_no is None else f"{kind}#{round_no}",
                                   payload=payload, prev_hash=prev_hash)
                if calc != h or prev_hash != prev:
                    return bad(seq, expected - 1, expected - 1, last_hash,
                               _describe(seq, content_ok=calc == h, link_ok=prev_hash == prev))
                if seq in wanted:
                    for c in wanted[seq]:
                        if c.hash != h:
                            return bad(seq, expected - 1, expected - 1, last_hash,
                                       f"its hash differs from the one checkpointed at {c.ts} "
                                       f"({c.source}): the chain was rebuilt after the "
                                       f"checkpoint")
                    confirmed.add(seq)
                prev = last_hash = h
                expected += 1
        last_seq = expected - 1
        beyond = sorted(s for s in wanted if s > last_seq)
        if beyond:
            c = max(wanted[beyond[-1]], key=lambda c: c.source != "database")
            return bad(last_seq + 1, last_seq, last_seq, last_hash,
                       f"the journal ends at record {last_seq} but a checkpoint at {c.ts} "
                       f"({c.source}) recorded record {c.seq}: records {last_seq + 1} to "
                       f"{c.seq} or more were cut off (truncated)")
        return VerifyResult(table_id, True, last_seq, last_seq, last_hash, len(confirmed))


def _describe(seq: int, *, content_ok: bool, link_ok: bool) -> str:
    if seq == 1 and not link_ok:
        if content_ok:
            return ("it does not start from this table's genesis under this key (the first "
                    "record was replaced)")
        return ("neither its content nor its start matches this key: wrong journal key (--key), "
                "or the first record was replaced")
    if not content_ok and link_ok:
        return "its content does not match its hash (the record was edited, or the key is wrong)"
    if content_ok and not link_ok:
        return (f"its previous-hash link does not match record {seq - 1} (a record before it "
                f"was replaced)")
    return (f"its content does not match its hash and its previous-hash link does not match "
            f"record {seq - 1} (a record was inserted, moved or replaced here)")


def _fields(info: RoundInfo) -> dict[str, Any]:
    return {f.name: getattr(info, f.name) for f in dataclass_fields(info)}


def _round_info(r: Any) -> RoundInfo:
    return RoundInfo(r.table_id, r.round_no, r.game, r.config_version, r.status, r.dealer,
                     r.started_at, r.ended_at, r.first_seq, r.last_seq, json.loads(r.summary))


__all__ = [
    "SIGNIFICANT_KINDS",
    "SIGNIFICANT_PREFIXES",
    "AnchorProblem",
    "Checkpoint",
    "ConfigVersion",
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
    "add_meters",
    "has_records",
    "hashed_kind",
    "is_significant",
    "iso_utc",
    "record_config_version",
    "significant_kinds",
    "upsert_round",
    "utc_now",
]
