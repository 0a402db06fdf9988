"""The journal's shared ground: its errors, time and id/kind/actor checks, the hashed kind, the
small result types, significant kinds, and decoding a stored row into a :class:`Record`.

Every other ``journal_*`` module builds on this one; ``journal.py`` re-exports its public names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, or_, select, text
from sqlalchemy.sql.elements import ColumnElement

from dealer_station.audit import schema
from dealer_station.audit.db import Database
from dealer_station.audit.records import JournalError, Meter, Record
from dealer_station.events import kinds as events_kinds

J = schema.journal

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


# --- stored rows: columns, tables, decoding, kind filters ----------------------------------

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
    """The kind filter that selects significant events (exact kinds and ``prefix.*``), as
    the events declare them (``Event.SIGNIFICANT``)."""
    exact, families = events_kinds.significant_kinds()
    return sorted(exact) + [p + "*" for p in families]


def is_significant(kind: str) -> bool:
    exact, families = events_kinds.significant_kinds()
    return kind in exact or kind.startswith(families)
