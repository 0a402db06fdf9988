"""The station's signed checkpoints: each chain's size and Merkle root, signed with the station's
Ed25519 key (``audit/notes.py``), at the moments the station anchors its head.

A checkpoint is signed at every round's (or hand's) close and every ``EVERY`` records, inside
the transaction that commits those records (no commit of its own: the signature costs a
fraction of a millisecond), and at the end of every command that wrote, at a table's clean
shut-down and by ``audit checkpoint``. Each is kept in the database (``signed_checkpoints``) and
beside the key (``<key>.checkpoints``, one JSON object a line), and handed to whoever listens
(the witness pusher) once committed.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, func, select
from sqlalchemy.exc import IntegrityError

from dealer_station.audit import schema
from dealer_station.audit.journal_common import JournalTampered
from dealer_station.audit.notes import Checkpoint, Signer, sign_checkpoint
from dealer_station.audit.origins import origin_of

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal

log = logging.getLogger(__name__)

S = schema.signed_checkpoints
J = schema.journal

#: A checkpoint at least every this many records of a chain, between the anchors.
EVERY = 1000
@dataclass(frozen=True)
class SignedCheckpoint:
    table_id: str
    size: int
    origin: str
    root: bytes
    note: str
    ts: str


class CheckpointSigning:
    """Signs and keeps one journal's checkpoints."""

    def __init__(self, journal: Journal, signer: Signer | None, file: Path | None) -> None:
        self.journal = journal
        self.signer = signer
        self.file = file
        self.listeners: list[Callable[[SignedCheckpoint], None]] = []

    def origin(self, table_id: str) -> str:
        if self.signer is None:
            raise ValueError("this journal has no signing key")
        return origin_of(self.signer.name, table_id)

    # -- signing ---------------------------------------------------------------------------

    def sign_in(self, conn: Connection, table_id: str, size: int, root: bytes, *,
                fresh: bool = False) -> SignedCheckpoint | None:
        """Sign the checkpoint at ``size`` with ``root`` and keep it, in ``conn``'s
        transaction (the one that commits the records up to ``size``); call :meth:`committed`
        with the result once that transaction has committed. ``fresh``: the records up to
        ``size`` are this transaction's own, so no checkpoint of that size can be kept yet
        (one would make the insert fail, and the transaction with it)."""
        if self.signer is None:
            return None
        if not fresh:
            row = conn.execute(select(S).where(S.c.table_id == table_id,
                                               S.c.size == size)).first()
            if row is not None:
                return _from_row(row)
        cp = Checkpoint(self.origin(table_id), size, root)
        note = sign_checkpoint(self.signer, cp).render()
        signed = SignedCheckpoint(table_id, size, cp.origin, root, note, self.journal.now())
        try:
            conn.execute(S.insert().values(table_id=table_id, size=size, origin=cp.origin,
                                           root=root.hex(), note=note, ts=signed.ts))
        except IntegrityError:
            raise JournalTampered(
                f"table {table_id}: a checkpoint of size {size} was already signed, yet the "
                f"records up to it are being written now: the chain was cut and written "
                f"again; nothing was written. Run `dealer-station audit verify`") from None
        return signed

    def committed(self, signed: SignedCheckpoint | None) -> None:
        """A checkpoint is committed: keep it beside the key and tell the listeners."""
        if signed is None:
            return
        self._keep(signed)
        for listener in list(self.listeners):
            listener(signed)

    def sign(self, table_id: str, size: int | None = None) -> SignedCheckpoint | None:
        """Sign the chain's checkpoint at ``size`` (default: its head) in a transaction of its
        own; the one already signed at that size if there is one. None without a signing key
        or records."""
        if self.signer is None:
            return None
        with self.journal.db.write() as conn:
            head = conn.execute(select(func.max(J.c.seq))
                                .where(J.c.table_id == table_id)).scalar() or 0
            size = head if size is None else size
            if size < 1 or size > head:
                return None
            signed = self.sign_in(conn, table_id, size,
                                  self.journal._trees.root(conn, table_id, size))
        self.committed(signed)
        return signed

    def _keep(self, signed: SignedCheckpoint) -> None:
        """Beside the key, outside the database (one JSON object a line)."""
        if self.file is None:
            return
        line = json.dumps({"table": signed.table_id, "size": signed.size,
                           "note": signed.note}, ensure_ascii=True) + "\n"
        try:
            fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("ascii"))
            finally:
                os.close(fd)
        except OSError as e:
            log.error("signed checkpoint %s/%d not kept beside the key (%s): %s",
                      signed.table_id, signed.size, self.file, e.strerror)

    # -- reading ---------------------------------------------------------------------------

    def all(self, table_id: str) -> list[SignedCheckpoint]:
        with self.journal.db.read() as conn:
            return [_from_row(r) for r in conn.execute(
                select(S).where(S.c.table_id == table_id).order_by(S.c.size))]

    def latest(self, table_id: str) -> SignedCheckpoint | None:
        with self.journal.db.read() as conn:
            row = conn.execute(select(S).where(S.c.table_id == table_id)
                               .order_by(S.c.size.desc()).limit(1)).first()
        return None if row is None else _from_row(row)


def _from_row(row: object) -> SignedCheckpoint:
    r = row._mapping  # type: ignore[attr-defined]
    return SignedCheckpoint(r["table_id"], int(r["size"]), r["origin"], bytes.fromhex(r["root"]),
                            r["note"], r["ts"])
