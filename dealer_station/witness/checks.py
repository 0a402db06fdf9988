"""What a checkpoint must satisfy before the witness cosigns it (pure: the caller reads the
stored state and persists the verdict in one transaction).

In order:

1. a valid signature by a key the witness trusts (else 403); an origin is bound, on the first
   checkpoint cosigned for it, to the trusted key that signed it, and a checkpoint of that
   origin signed only by another trusted key is refused (403);
2. not smaller than the size already cosigned for the origin (else 409, a refusal);
3. at the size already cosigned, the same root hash (else 409, a refusal: a fork);
4. an old size no larger than the checkpoint's (else 400);
5. the old size equal to the size already cosigned (else 409 with that size, so the client can
   send the proof from it: not a refusal);
6. a consistency proof from the root already cosigned to the checkpoint's root (else 409, a
   refusal; plain C2SP answers 422 here, this witness answers every inconsistency with what
   it cosigned with 409).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dealer_station.audit.merkle import ProofError, verify_consistency
from dealer_station.audit.notes import Checkpoint, Note, Verifier
from dealer_station.witness.wire import AddCheckpoint, b64


@dataclass(frozen=True)
class Latest:
    """The latest checkpoint cosigned for an origin, as the state keeps it."""

    origin: str
    size: int
    root: bytes
    note: str           # the checkpoint with the station's signature and the cosignature
    cosignature: str    # the cosignature line
    key: str            # the vkey of the trusted key the origin is bound to
    time: int


@dataclass(frozen=True)
class Accept:
    """Cosign it; ``key`` is the trusted key whose signature is kept with it."""

    key: Verifier


@dataclass(frozen=True)
class SizeMismatch:
    """The client's old size is not what the witness holds: 409 with ``size``."""

    size: int


@dataclass(frozen=True)
class Refuse:
    """A refusal: ``status`` and a one-line reason. Kept as evidence."""

    status: int
    reason: str


Verdict = Accept | SizeMismatch | Refuse


def trusted_signers(note: Note, trusted: Sequence[Verifier]) -> list[Verifier]:
    """The trusted keys whose signature on the note is valid, in the order given; signatures
    by other keys are ignored."""
    return [v for v in trusted if note.signed_by(v) is not None]


def _key_name(vkey: str) -> str:
    return vkey.split("+", 1)[0]


def judge(req: AddCheckpoint, cp: Checkpoint, signed_by: Sequence[Verifier],
          latest: Latest | None) -> Verdict:
    """The verdict on a request whose checkpoint ``cp`` carries valid signatures by
    ``signed_by`` (trusted keys), given what was last cosigned for its origin."""
    what = f"checkpoint {cp.origin} at size {cp.size}"
    if not signed_by:
        return Refuse(403, f"{what} carries no valid signature by a key this witness trusts")
    if latest is None:
        key = signed_by[0]
    else:
        bound = next((v for v in signed_by if v.vkey() == latest.key), None)
        if bound is None:
            names = ", ".join(v.name for v in signed_by)
            return Refuse(403, f"{cp.origin} is bound to the key {_key_name(latest.key)} "
                               f"{latest.key.split('+')[1]} that signed it first here; {what} "
                               f"is signed only by {names}")
        key = bound
    stored = latest.size if latest is not None else 0
    if latest is not None and cp.size < latest.size:
        return Refuse(409, f"{what} is smaller than size {latest.size} already cosigned: "
                           f"a journal never shrinks")
    if latest is not None and cp.size == latest.size and cp.root != latest.root:
        return Refuse(409, f"{what} has root {b64(cp.root)}, but size {latest.size} was "
                           f"cosigned with root {b64(latest.root)}: two different journals")
    if req.old_size > cp.size:
        return Refuse(400, f"old size {req.old_size} is larger than the {what}")
    if req.old_size != stored:
        return SizeMismatch(stored)
    if cp.size == stored:
        if req.proof:
            return Refuse(400, f"the proof from size {stored} to the same size must be empty")
        return Accept(key)
    if stored == 0:
        return Accept(key)          # every tree extends the empty one
    assert latest is not None
    try:
        verify_consistency(stored, cp.size, latest.root, cp.root, req.proof)
    except ProofError as exc:
        return Refuse(409, f"{what} is not consistent with size {stored} already cosigned "
                           f"(root {b64(latest.root)}): {exc}")
    return Accept(key)
