"""One ``add-checkpoint``, decided and persisted in one transaction.

The request is read and its signatures checked first (pure work, no lock held). Then, inside
``BEGIN IMMEDIATE``, the origin's latest cosigned checkpoint is read, the request judged
against it (``checks.judge``), and the new checkpoint or the refusal written; the commit ends
the block, and only then is the outcome returned to be answered.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from dealer_station.audit.notes import Checkpoint, Note, NoteError, Signer, Verifier, cosign
from dealer_station.witness.checks import Accept, Refuse, SizeMismatch, judge, trusted_signers
from dealer_station.witness.errors import MalformedRequest
from dealer_station.witness.state import WitnessState
from dealer_station.witness.wire import SIZE_TYPE, TEXT_TYPE, one_line, origin_of, parse_request

Kind = Literal["cosigned", "size", "refused"]


@dataclass(frozen=True)
class Outcome:
    """What was decided, and the answer to send."""

    kind: Kind
    status: int
    origin: str | None
    size: int | None
    reason: str          # a refusal's reason; for "size", what the witness holds
    body: str
    content_type: str

    def line(self) -> str:
        """The service's log line for it."""
        origin = self.origin if self.origin is not None else "(origin unreadable)"
        size = f" size {self.size}" if self.size is not None else ""
        if self.kind == "cosigned":
            return f"cosigned {origin}{size}"
        if self.kind == "size":
            return f"asked {origin}{size}: {self.reason}"
        return f"refused {origin}{size} ({self.status}): {self.reason}"


def _now() -> int:
    return int(_time.time())


class Witness:
    """The witness: its key, the keys it trusts, its state."""

    def __init__(self, signer: Signer, trusted: Sequence[Verifier], state: WitnessState,
                 clock: Callable[[], int] = _now) -> None:
        self.signer = signer
        self.trusted = list(trusted)
        self.state = state
        self.clock = clock

    @property
    def name(self) -> str:
        return self.signer.name

    def add_checkpoint(self, body: bytes) -> Outcome:
        try:
            req = parse_request(body)
            note = Note.parse(req.note)
            cp = Checkpoint.parse(note.text)
        except (MalformedRequest, NoteError) as exc:
            return self._refuse(origin_of(body), None, body, 400, str(exc))
        signed_by = trusted_signers(note, self.trusted)
        if not signed_by:
            return self._refuse(cp.origin, cp.size, body, 403,
                                f"checkpoint {cp.origin} at size {cp.size} carries no valid "
                                f"signature by a key this witness trusts")
        with self.state.transaction() as tx:
            latest = tx.latest(cp.origin)
            verdict = judge(req, cp, signed_by, latest)
            now = self.clock()
            if isinstance(verdict, Refuse):
                tx.refused(cp.origin, cp.size, now, verdict.status, one_line(verdict.reason),
                           body)
                return self._refusal(cp.origin, cp.size, verdict.status, verdict.reason)
            if isinstance(verdict, SizeMismatch):
                return Outcome("size", 409, cp.origin, cp.size,
                               f"old size {req.old_size}, the witness holds size "
                               f"{verdict.size}", f"{verdict.size}\n", SIZE_TYPE)
            assert isinstance(verdict, Accept)
            station = note.signed_by(verdict.key)
            assert station is not None
            cosig = cosign(self.signer, note.text, now)
            kept = Note(note.text, (station, cosig)).render()
            tx.cosigned(cp.origin, cp.size, cp.root, kept, cosig.line(), verdict.key.vkey(),
                        now)
        # Committed: only now may the cosignature leave the witness.
        return Outcome("cosigned", 200, cp.origin, cp.size, "", cosig.line(), TEXT_TYPE)

    def _refuse(self, origin: str | None, size: int | None, body: bytes, status: int,
                reason: str) -> Outcome:
        with self.state.transaction() as tx:
            tx.refused(origin, size, self.clock(), status, one_line(reason), body)
        return self._refusal(origin, size, status, reason)

    @staticmethod
    def _refusal(origin: str | None, size: int | None, status: int, reason: str) -> Outcome:
        text = one_line(reason)
        return Outcome("refused", status, origin, size, text, text + "\n", TEXT_TYPE)
