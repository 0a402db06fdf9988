"""Verification (the :class:`JournalVerify` methods of ``Journal``): walk each table's chain
from its genesis, check every record's keyed hash and link and every checkpoint, and report
the first bad record in words (``audit verify``).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from dealer_station.audit import schema
from dealer_station.audit.hashing import table_record_hasher
from dealer_station.audit.journal_base import JournalBase
from dealer_station.audit.journal_common import Checkpoint, VerifyResult, check_table_id

J = schema.journal


class JournalVerify(JournalBase):
    """Verifying chains: mixed into :class:`~dealer_station.audit.journal.Journal`."""

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

        hasher = table_record_hasher(self._secret, table_id)
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
                calc = hasher(seq, ts, actor, kind, round_no, payload, prev_hash)
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
