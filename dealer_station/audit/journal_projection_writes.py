"""Projection writes done inside ``append``'s transaction: a round's row, a table's meters and
its configuration versions (:func:`upsert_round`, :func:`add_meters`,
:func:`record_config_version`, called from an append's ``also``), and their statements.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, func, select, update

from dealer_station.audit import schema
from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal_common import iso_utc, utc_now
from dealer_station.audit.records import JournalError, MeterDelta
from dealer_station.events.kinds import closing_statuses

J = schema.journal
R = schema.rounds
M = schema.meters

# Built once, like the append's statements in journal.py: these run in every committed stage of
# a round.
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
        closing = conn.execute(_CLOSING, {**key, "k": list(closing_statuses())}).first()
        if closing is None or closing_statuses()[closing.kind] != status:
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

