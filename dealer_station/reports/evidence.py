"""The public evidence a report carries: each attached record's inclusion proof, and the
checkpoint it is proven against (cosigned by the regulator's witness where one was).

With the station's public key and the witness's, anyone can then check the paper's records
without the journal key and without the database: each record's leaf, through its proof, gives
the checkpoint's root, and the checkpoint carries the station's signature and the witness's
cosignature. ``docs/journal.md`` prints a verifier of under 100 lines that does just that.

The checkpoint chosen is the smallest cosigned one that covers the report's last record; failing
that, the latest cosigned one (the records after it are marked as not yet witnessed); failing
that, the station's own signed checkpoint on the same rule (signed, not cosigned).
"""

from __future__ import annotations

import base64
import contextlib
from dataclasses import dataclass

from sqlalchemy import select

from dealer_station.audit import merkle, schema
from dealer_station.audit.journal import Journal
from dealer_station.audit.merkle_store import node_source
from dealer_station.audit.notes import Checkpoint, Note

C = schema.cosignatures
S = schema.signed_checkpoints


@dataclass(frozen=True)
class ProvenAgainst:
    """The checkpoint a report's records are proven against."""

    table_id: str
    size: int
    note: str             # the checkpoint as a signed note (and its cosignature, if any)
    witness: str | None   # the cosigning witness's name; None: signed by the station only

    @property
    def origin(self) -> str:
        return Checkpoint.parse(Note.parse(self.note).text).origin

    def words(self) -> str:
        if self.witness:
            return (f"proven against the checkpoint of {self.size:,} records signed by the "
                    f"station and cosigned by the regulator's witness {self.witness}")
        return (f"proven against the station's signed checkpoint of {self.size:,} records "
                f"(not yet cosigned by a witness)")


def _choose(rows: list[tuple[int, str, str | None]], last_seq: int
            ) -> tuple[int, str, str | None] | None:
    covering = [r for r in rows if r[0] >= last_seq]
    if covering:
        return min(covering, key=lambda r: r[0])
    return max(rows, key=lambda r: r[0]) if rows else None


def proven_against(journal: Journal, table_id: str, last_seq: int) -> ProvenAgainst | None:
    """The checkpoint to prove a report's records (up to ``last_seq``) against, if any."""
    Row = tuple[int, str, str | None]
    with journal.db.read() as conn:
        cosigned: list[Row] = [(int(s), str(n), str(w)) for s, n, w in conn.execute(
            select(C.c.size, C.c.note, C.c.witness).where(C.c.table_id == table_id))]
        signed: list[Row] = [(int(s), str(n), None) for s, n in conn.execute(
            select(S.c.size, S.c.note).where(S.c.table_id == table_id))]
    chosen = _choose(cosigned, last_seq) or _choose(signed, last_seq)
    if chosen is None:
        return None
    return ProvenAgainst(table_id, chosen[0], chosen[1], chosen[2])


class Prover:
    """Inclusion proofs of one chain's records in the tree of the checkpoint's size, one
    record at a time (the nodes read are kept for the next record's proof)."""

    def __init__(self, journal: Journal, against: ProvenAgainst) -> None:
        self.journal = journal
        self.against = against
        self._stack = contextlib.ExitStack()
        conn = self._stack.enter_context(journal.db.read())
        self._node = node_source(conn, against.table_id)

    def proof(self, seq: int) -> dict[str, object] | None:
        """``{"checkpoint": size, "index": seq - 1, "path": [base64, ...]}``, or None for a
        record the checkpoint does not cover."""
        size = self.against.size
        if not 1 <= seq <= size:
            return None
        path = merkle.inclusion_proof(self._node, seq - 1, size)
        return {"checkpoint": size, "index": seq - 1,
                "path": [base64.b64encode(h).decode("ascii") for h in path]}

    def close(self) -> None:
        self._stack.close()
