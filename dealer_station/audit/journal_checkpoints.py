"""Checkpoints, anchors and head checks (the :class:`JournalCheckpoints` methods of
``Journal``): checkpoint records, the anchor file outside the database (``audit/anchors.py``),
and the refusal to write after a chain's newest records were cut off.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, func, select

from dealer_station.audit import schema
from dealer_station.audit.anchors import (
    ANCHOR_DOMAIN,
    Anchor,
    AnchorProblem,
    append_line,
    applies,
    format_line,
    parse_line,
)
from dealer_station.audit.journal_base import JournalBase
from dealer_station.audit.journal_common import Checkpoint, JournalTampered, check_table_id
from dealer_station.audit.records import Fact, JournalError, Record
from dealer_station.events.station import CheckpointTaken

J = schema.journal


class JournalCheckpoints(JournalBase):
    """Checkpoints, anchors and head checks: mixed into
    :class:`~dealer_station.audit.journal.Journal`."""

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

        record = self._append(table_id, [Fact.of(CheckpointTaken(dict(payload or {})), actor)],
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
