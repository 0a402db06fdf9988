"""The journal's reads (the :class:`JournalReads` methods of ``Journal``): a table's records,
events, rounds, meters and configuration versions, every record checked against its keyed
hash as it is read.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.sql.elements import ColumnElement

from dealer_station.audit import schema
from dealer_station.audit.hashing import record_hash
from dealer_station.audit.journal_base import JournalBase
from dealer_station.audit.journal_common import (
    _RECORD_COLUMNS,
    JournalTampered,
    WrongKey,
    _kind_filter,
    _record,
    hashed_kind,
    iso_utc,
    significant_kinds,
    table_ids,
)
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.projections import (
    ProjectionError,
    config_from_record,
    group_rounds,
    round_from_records,
)
from dealer_station.audit.records import ConfigVersion, Meter, Record, RoundInfo
from dealer_station.events.rows import config_named
from dealer_station.events.table import ConfigChanged

J = schema.journal
R = schema.rounds


class JournalReads(JournalBase):
    """Reading a journal: mixed into :class:`~dealer_station.audit.journal.Journal`."""

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

    def proven_records(self, table_id: str, *, from_seq: int = 1) -> Iterator[Record]:
        """A table's records from ``from_seq`` on, in seq order, streamed, each checked
        against its keyed hash as it is read (a record that fails raises
        :class:`JournalTampered`)."""
        stmt = (select(*_RECORD_COLUMNS).where(J.c.table_id == table_id, J.c.seq >= from_seq)
                .order_by(J.c.seq))
        with self.db.engine.connect() as conn:
            yield from self.authentic(conn.execution_options(yield_per=2000).execute(stmt))

    def first_seq_opened_since(self, table_id: str, moment: datetime) -> int | None:
        """The first record of the table's first round opened at or after ``moment`` (by the
        rounds beside the chain, which a table proves at its start); None when none was."""
        with self.db.read() as conn:
            found = conn.execute(select(func.min(R.c.first_seq)).where(
                R.c.table_id == table_id, R.c.started_at >= iso_utc(moment))).scalar()
        return None if found is None else int(found)

    def fields_of_kinds(self, table_id: str, kinds: Sequence[str], fields: Sequence[str], *,
                        to_seq: int | None = None) -> list[tuple[Any, ...]] | None:
        """For a report that reads a few fields of a few kinds among millions of records and
        verifies the chain on its own (the shift report's opening and closing records):
        ``(seq, ts, actor, kind, round_no, *fields)`` of the table's records of the exact
        ``kinds`` up to record ``to_seq``, in seq order and not checked against their hashes,
        each of the payload's top-level ``fields`` as its JSON text (``null`` where absent),
        picked out by the database rather than decoding every payload here. None where a
        payload is not a JSON object: the caller reads the records as :meth:`records` does,
        which says what is wrong with it."""
        if not kinds:
            return []
        if not all(f.isidentifier() for f in fields):
            raise ValueError(f"not a payload field name: {fields!r}")
        engine = self.db.engine
        postgres = engine.dialect.name == "postgresql"
        mark = "%s" if postgres else "?"
        where = (f"table_id = {mark} AND kind IN ({', '.join([mark] * len(kinds))})"
                 # ``+seq`` keeps SQLite's planner on the kind index rather than walking
                 # every record of the table along the (table, seq) one.
                 + (f" AND {'seq' if postgres else '+seq'} <= {mark}"
                    if to_seq is not None else ""))
        if postgres:
            picked = ", ".join(f"COALESCE((j -> '{f}')::text, 'null')" for f in fields)
            sql = (f"SELECT seq, ts, actor, kind, round_no, jsonb_typeof(j) = 'object'"
                   f"{', ' if fields else ''}{picked} FROM (SELECT seq, ts, actor, kind, "
                   f"round_no, payload::jsonb AS j FROM {J.name} WHERE {where}) AS r")
        else:
            picked = ", ".join(f"json_quote(json_extract(payload, '$.{f}'))" for f in fields)
            sql = (f"SELECT seq, ts, actor, kind, round_no, json_type(payload) = 'object'"
                   f"{', ' if fields else ''}{picked} FROM {J.name} WHERE {where}")
        params = (table_id, *kinds, *(() if to_seq is None else (to_seq,)))
        raw = engine.raw_connection()
        try:
            cur = raw.cursor()
            try:
                cur.execute(sql, params)
                rows = cur.fetchall()
            except engine.dialect.loaded_dbapi.Error:
                return None     # a payload that is not JSON at all
            finally:
                cur.close()
        finally:
            raw.close()
        if not all(row[5] for row in rows):
            return None
        return sorted(((*row[:5], *row[6:]) for row in rows), key=lambda row: row[0])

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read-only transaction that sees one snapshot of the database from its first
        read to its end, on both databases (SQLite's read transaction in WAL mode;
        PostgreSQL's REPEATABLE READ, where a transaction of the default isolation would see
        each statement's own). For a reader whose several queries must read the same rows,
        such as an SQL aggregate beside the walk that checks those rows' keyed hashes."""
        with self.db.engine.connect() as conn:
            if not self.db.is_sqlite:
                conn = conn.execution_options(isolation_level="REPEATABLE READ",
                                              postgresql_readonly=True)
            with conn.begin():
                yield conn

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
        # Sorted here, not by the database: asked to order by seq, SQLite's planner walks the
        # table's whole chain by its seq index instead of the few config.change rows by kind.
        records = sorted(self._select(select(*_RECORD_COLUMNS)
                                      .where(J.c.table_id == table_id,
                                             J.c.kind == ConfigChanged.KIND)),
                         key=lambda r: r.seq)
        rows = self._config_rows(table_id)
        out: dict[str, ConfigVersion] = {}
        for rec in records:
            # Read as stored, not decoded: the journal keeps whatever payload a config.change
            # was given (its own contract tests give only what the rows need).
            version = config_named(rec.payload).version
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
