"""The floor's side of forwarding: accept a table's records only where they extend the chain
the floor already holds for that table, and keep the floor's projections with them.

Runs inside one transaction on the floor database, under the same per-table advisory lock
as the journal's own writers, so that two forwarders of one table (the station's and a
``floor sync``) queue rather than interleave. The floor holds no journal key: it checks the
links (``seq`` with no gap, ``prev_hash`` equal to the hash it holds before it) and that a
record sent again is the very record it holds; the keyed hashes are checked by the station
before it sends and by ``audit verify`` with the key.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select, text

from dealer_station.audit import schema
from dealer_station.audit.hashing import canonical_json
from dealer_station.audit.journal import add_meters, iso_utc, utc_now
from dealer_station.audit.projections import (
    ProjectionError,
    config_from_record,
    meters_from_closings,
    round_from_records,
)
from dealer_station.audit.records import MeterDelta, Record
from dealer_station.errors import StationError
from dealer_station.events import Codec, EventError
from dealer_station.events.kinds import closing_statuses
from dealer_station.events.table import ConfigChanged

J = schema.journal
FT = schema.floor_tables
FR = schema.floor_refusals

#: The columns of a record as stored, in the order a forwarded row carries them.
COLUMNS = ("table_id", "seq", "ts", "actor", "kind", "round_no", "payload", "prev_hash", "hash")
_CONFIG = Codec((ConfigChanged,))


class ChainRefused(StationError):
    """The floor will not take a table's records: they do not extend the chain it holds (a
    local journal rewritten, truncated or edited). ``seq`` is the first record concerned."""

    def __init__(self, table_id: str, reason: str, seq: int | None = None) -> None:
        super().__init__(f"table {table_id}: {reason}")
        self.table_id = table_id
        self.reason = reason
        self.seq = seq


@dataclass(frozen=True)
class Head:
    """The last record the floor holds for a table (seq 0 and no hash: none yet)."""

    seq: int
    hash: str | None
    ts: str | None


@dataclass(frozen=True)
class LocalState:
    """What the forwarder says of its table's local journal as it sends."""

    head_seq: int
    head_hash: str | None
    pending_since: str | None     # the time of its oldest record the floor lacks


def lock_table(conn: Connection, table_id: str) -> None:
    """The journal writers' own per-table lock (audit/journal.py)."""
    conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:t, 0))"), {"t": table_id})


def floor_head(conn: Connection, table_id: str) -> Head:
    row = conn.execute(select(J.c.seq, J.c.hash, J.c.ts).where(J.c.table_id == table_id)
                       .order_by(J.c.seq.desc()).limit(1)).first()
    return Head(0, None, None) if row is None else Head(int(row[0]), row[1], row[2])


def held_hashes(conn: Connection, table_id: str, first: int, last: int) -> dict[int, str]:
    rows = conn.execute(select(J.c.seq, J.c.hash).where(
        J.c.table_id == table_id, J.c.seq >= first, J.c.seq <= last))
    return {int(s): h for s, h in rows}


def receive(conn: Connection, table_id: str, rows: Sequence[Mapping[str, Any]],
            local: LocalState | Callable[[], LocalState]) -> Head:
    """Take ``rows`` (records as stored, consecutive, in seq order) for ``table_id``.

    Rows the floor already holds must be those very records (a re-send is a no-op); the
    first new one must follow the floor's head. Raises :class:`ChainRefused` (and writes
    nothing) otherwise, and when the table says its journal is shorter than what the floor
    holds. Returns the floor's new head. Call inside a write transaction on the floor.

    ``local`` may be a function: it is then asked once the table's lock is held, so that the
    table's head it reads is not older than what another forwarder of the table sent."""
    lock_table(conn, table_id)
    head = floor_head(conn, table_id)
    if callable(local):
        local = local()
    if local.head_seq < head.seq:
        raise ChainRefused(table_id, f"the table's journal ends at record {local.head_seq} but "
                                     f"the floor already holds {head.seq} records of it "
                                     f"(the local journal was cut short or replaced)",
                           local.head_seq + 1)
    if local.head_seq == head.seq and head.hash is not None and local.head_hash != head.hash:
        raise ChainRefused(table_id, f"the table's record {head.seq} is not the one the floor "
                                     f"holds (the local journal was rewritten)", head.seq)
    for i, row in enumerate(rows):
        if row["table_id"] != table_id:
            raise ChainRefused(table_id, f"a record of table {row['table_id']!r} sent as this "
                                         f"table's", int(row["seq"]))
        if i and int(row["seq"]) != int(rows[i - 1]["seq"]) + 1:
            raise ChainRefused(table_id, f"records sent out of order at {row['seq']}",
                               int(row["seq"]))
    old = [r for r in rows if int(r["seq"]) <= head.seq]
    new = [r for r in rows if int(r["seq"]) > head.seq]
    if old:
        held = held_hashes(conn, table_id, int(old[0]["seq"]), int(old[-1]["seq"]))
        for r in old:
            if held.get(int(r["seq"])) != r["hash"]:
                raise ChainRefused(table_id, f"record {r['seq']} differs from the one the "
                                             f"floor holds (the local journal was rewritten)",
                                   int(r["seq"]))
    if new:
        first = new[0]
        if int(first["seq"]) != head.seq + 1:
            raise ChainRefused(table_id, f"record {first['seq']} sent but the floor's copy "
                                         f"ends at {head.seq}: records {head.seq + 1} to "
                                         f"{int(first['seq']) - 1} are missing",
                               head.seq + 1)
        prev = head.hash
        for r in new:
            if prev is not None and r["prev_hash"] != prev:
                raise ChainRefused(table_id, f"record {r['seq']} does not link to record "
                                             f"{int(r['seq']) - 1} the floor holds (the "
                                             f"local journal was rewritten)", int(r["seq"]))
            prev = r["hash"]
        conn.execute(J.insert(), [{c: r[c] for c in COLUMNS} for r in new])
        _project(conn, table_id, new)
        last = new[-1]
        head = Head(int(last["seq"]), str(last["hash"]), str(last["ts"]))
    _note_contact(conn, table_id, head, local, accepted=bool(new))
    return head


def _note_contact(conn: Connection, table_id: str, head: Head, local: LocalState, *,
                  accepted: bool) -> None:
    now = iso_utc(utc_now())
    values: dict[str, Any] = {
        "head_seq": head.seq, "head_hash": head.hash, "head_ts": head.ts,
        "local_seq": local.head_seq,
        "pending_since": local.pending_since if local.head_seq > head.seq else None,
        "contact_at": now, "refused": False, "refused_reason": None}
    if accepted:
        values["received_at"] = now
    updated = conn.execute(FT.update().where(FT.c.table_id == table_id).values(**values))
    if updated.rowcount == 0:
        conn.execute(FT.insert().values(**{"received_at": now, "refused_at": None, **values,
                                           "table_id": table_id}))


def note_refusal(conn: Connection, refused: ChainRefused) -> None:
    """Record a refusal (in its own transaction: the refused one wrote nothing). The table
    stays marked refused until its records link again."""
    now = iso_utc(utc_now())
    conn.execute(FR.insert().values(table_id=refused.table_id, at=now, seq=refused.seq,
                                    reason=refused.reason))
    values = {"refused": True, "refused_reason": refused.reason, "refused_at": now,
              "contact_at": now}
    updated = conn.execute(FT.update().where(FT.c.table_id == refused.table_id)
                           .values(**values))
    if updated.rowcount == 0:
        head = floor_head(conn, refused.table_id)
        conn.execute(FT.insert().values(table_id=refused.table_id, head_seq=head.seq,
                                        head_hash=head.hash, head_ts=head.ts, **values))


# --- the floor's projections, by the same rules as the table's (audit/projections.py) ------

_ROUND_RECORDS = (select(*[J.c[c] for c in COLUMNS])
                  .where(J.c.table_id == bindparam("t"), J.c.round_no == bindparam("r"))
                  .order_by(J.c.seq))


def _record(row: Mapping[str, Any]) -> Record:
    return Record(str(row["table_id"]), int(row["seq"]), str(row["ts"]), str(row["actor"]),
                  str(row["kind"]), None if row["round_no"] is None else int(row["round_no"]),
                  json.loads(row["payload"]), str(row["prev_hash"]), str(row["hash"]))


def _project(conn: Connection, table_id: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rounds, meters and configuration versions for the records just taken, so that recall,
    meters and reports read the floor's copy as they read a table's."""
    records = [_record(r) for r in rows]
    touched = sorted({r.round_no for r in records if r.round_no is not None})
    for round_no in touched:
        whole = [_record(dict(r._mapping)) for r in conn.execute(
            _ROUND_RECORDS, {"t": table_id, "r": round_no})]
        info = round_from_records(table_id, whole)
        if not info.game:
            continue            # a round's records without its opening: nothing to show
        values = {"game": info.game, "config_version": info.config_version,
                  "status": info.status, "dealer": info.dealer,
                  "started_at": info.started_at, "ended_at": info.ended_at,
                  "first_seq": info.first_seq, "last_seq": info.last_seq,
                  "summary": canonical_json(info.summary)}
        updated = conn.execute(schema.rounds.update().where(
            schema.rounds.c.table_id == table_id,
            schema.rounds.c.round_no == round_no).values(**values))
        if updated.rowcount == 0:
            conn.execute(schema.rounds.insert().values(table_id=table_id, round_no=round_no,
                                                       **values))
    closings = [r for r in records if r.kind in closing_statuses()]
    sums = meters_from_closings(table_id, closings)
    if sums:
        add_meters(conn, table_id, {k: MeterDelta(m.rounds, m.wagered, m.paid, m.house_win)
                                    for k, m in sums.items()})
    for r in records:
        try:
            e = _CONFIG.decode(r.kind, r.payload)
        except EventError:
            continue            # not a config.change the station wrote: verification says so
        if not isinstance(e, ConfigChanged) or e.content is None:
            continue
        try:
            cv = config_from_record(table_id, r, None)
        except ProjectionError:
            continue            # unproven content: verification names it, the floor keeps on
        exists = conn.execute(select(schema.config_versions.c.version).where(
            schema.config_versions.c.table_id == table_id,
            schema.config_versions.c.version == cv.version)).first()
        if exists is None:
            conn.execute(schema.config_versions.insert().values(
                table_id=table_id, version=cv.version, game=cv.game,
                content=canonical_json(cv.content), created_at=cv.created_at,
                created_by=cv.created_by, reason=cv.reason))
