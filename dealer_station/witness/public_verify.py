"""Verifying a journal with public keys alone: the station's signing key and a witness's.

No journal key is needed, so whoever verifies cannot forge. For each chain:

1. its records are read in order: numbered 1, 2, 3... with no gap, each linked to the one
   before by ``prev_hash``; each becomes a leaf of the chain's Merkle tree (its content and its
   keyed hash, ``hashing.record_leaf``), and the tree is rebuilt from them;
2. every checkpoint the station signed (kept in the database) must carry a valid signature by
   the station's key, name the chain's origin, and have the rebuilt tree's root at its size;
   the tree rebuilt from the records makes consecutive checkpoints consistent;
3. the witness's latest cosigned checkpoint of the chain must carry the witness's valid
   cosignature and the station's signature, and the rebuilt tree must have its root at its
   size: every record up to that size is then the one the witness saw. Records after it are
   "not yet witnessed".

When the journal and the witness disagree, the witness's history of cosigned sizes names the
first size where they do. The keyed hash of each record (which needs the journal key) is not
checked here: what is checked is that the records are the ones signed and cosigned.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer_station.audit import merkle
from dealer_station.audit.hashing import record_leaf
from dealer_station.audit.notes import Checkpoint, Note, NoteError, Verifier, cosigned_at
from dealer_station.audit.origins import origin_of
from dealer_station.witness import client
from dealer_station.witness.errors import WitnessError

#: A stored row: (seq, ts, actor, kind, round_no, payload, prev_hash, hash).
Row = Sequence[Any]


@dataclass
class ChainVerdict:
    """What was proven of one chain, and the first thing that failed."""

    table_id: str
    origin: str
    records: int = 0
    checkpoints: int = 0
    witnessed: int | None = None        # the witness's latest cosigned size
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def not_witnessed(self) -> int:
        return self.records - (self.witnessed or 0)

    def lines(self) -> list[str]:
        head = f"table {self.table_id} ({self.origin}): "
        if self.problems:
            return [head + "FAILED: " + p for p in self.problems] + \
                   [head + n for n in self.notes]
        out = [head + f"ok, {self.records:,} records linked and in the tree, "
                      f"{self.checkpoints:,} signed checkpoint(s) proven"]
        if self.witnessed is not None:
            out.append(head + f"witnessed up to record {self.witnessed:,}; "
                              f"{self.not_witnessed:,} record(s) not yet witnessed")
        return out + [head + n for n in self.notes]


class _Tree:
    """The tree rebuilt from the records, with the roots at the sizes asked for."""

    def __init__(self, wanted: set[int]) -> None:
        self.frontier = merkle.Frontier()
        self.wanted = wanted
        self.roots: dict[int, bytes] = {0: merkle.EMPTY_ROOT}

    def add(self, leaf: bytes) -> None:
        self.frontier.append(leaf)
        if self.frontier.size in self.wanted:
            self.roots[self.frontier.size] = self.frontier.root()


def read_chain(verdict: ChainVerdict, rows: Iterable[Row], wanted: set[int]) -> _Tree:
    """Walk the records: numbering and links, and the tree of their leaves."""
    tree = _Tree(wanted)
    prev: str | None = None
    expected = 1
    for seq, ts, actor, kind, round_no, payload, prev_hash, h in rows:
        if seq != expected:
            verdict.problems.append(
                f"record {expected} is missing (the chain jumps to {seq})" if seq > expected
                else f"record {seq} appears where {expected} was expected")
            break
        if prev is not None and prev_hash != prev:
            verdict.problems.append(f"record {seq} is not linked to record {seq - 1} (its "
                                    f"prev_hash differs): the chain was changed")
            break
        hkind = kind if round_no is None else f"{kind}#{round_no}"
        tree.add(merkle.leaf_hash(record_leaf(
            table_id=verdict.table_id, seq=int(seq), ts=ts, actor=actor, kind=hkind,
            payload=payload, prev_hash=prev_hash, hash_=h)))
        prev = h
        expected += 1
    verdict.records = tree.frontier.size
    return tree


def check_signed(verdict: ChainVerdict, station: Verifier, notes: Sequence[str],
                 tree: _Tree) -> None:
    """Each signed checkpoint kept in the database, against the rebuilt tree."""
    for text in notes:
        try:
            note = Note.parse(text)
            cp = Checkpoint.parse(note.text)
        except NoteError as exc:
            verdict.problems.append(f"a stored checkpoint cannot be read: {exc}")
            return
        if note.signed_by(station) is None:
            verdict.problems.append(f"the checkpoint at size {cp.size} carries no valid "
                                    f"signature by the station's key {station.name}")
            return
        if cp.origin != verdict.origin:
            verdict.problems.append(f"the checkpoint at size {cp.size} names {cp.origin}, "
                                    f"not this chain's origin")
            return
        if cp.size > verdict.records:
            verdict.problems.append(
                f"the checkpoint signed at size {cp.size} is past the journal's "
                f"{verdict.records} records: records {verdict.records + 1} to {cp.size} were "
                f"cut off")
            return
        if tree.roots.get(cp.size) != cp.root:
            verdict.problems.append(f"the checkpoint signed at size {cp.size} has another "
                                    f"root than the records give: records up to {cp.size} "
                                    f"were changed after it was signed")
            return
        verdict.checkpoints += 1


def witness_checkpoint(verdict: ChainVerdict, station: Verifier, witness: Verifier,
                       url: str) -> Checkpoint | None:
    """The witness's latest cosigned checkpoint of the chain, its signatures checked."""
    try:
        text = client.latest(url, verdict.origin)
    except WitnessError as exc:
        verdict.problems.append(str(exc))
        return None
    if text is None:
        verdict.notes.append(f"the witness {witness.name} has cosigned nothing of "
                             f"{verdict.origin} yet")
        return None
    note = Note.parse(text)
    cp = Checkpoint.parse(note.text)
    if cosigned_at(note, witness) is None:
        verdict.problems.append(f"the witness's checkpoint at size {cp.size} carries no valid "
                                f"cosignature by {witness.name}")
        return None
    if note.signed_by(station) is None:
        verdict.problems.append(f"the witness's checkpoint at size {cp.size} carries no valid "
                                f"signature by the station's key {station.name}")
        return None
    return cp


def first_disagreement(url: str, origin: str, roots: dict[int, bytes],
                       records: int) -> str:
    """Where the journal and the witness first part, from the witness's history."""
    try:
        entries = client.history(url, origin)
    except WitnessError:
        return ""
    agreed = 0
    for e in entries:
        if e.size > records:
            return (f"; they agree up to size {agreed}, and the witness cosigned size "
                    f"{e.size}, past the journal's {records} records")
        if roots.get(e.size) != e.root:
            return f"; they agree up to size {agreed} and first disagree at size {e.size}"
        agreed = e.size
    return ""


def verify_chain(table_id: str, rows: Iterable[Row], signed_notes: Sequence[str],
                 station: Verifier, witnesses: Sequence[tuple[Verifier, str]]) -> ChainVerdict:
    verdict = ChainVerdict(table_id, origin_of(station.name, table_id))
    # First what the witnesses hold, so that the walk keeps the roots at their sizes.
    seen: list[tuple[Verifier, str, Checkpoint]] = []
    for witness, url in witnesses:
        cp = witness_checkpoint(verdict, station, witness, url)
        if cp is not None:
            seen.append((witness, url, cp))
    history_sizes: set[int] = set()
    for _w, url, _cp in seen:
        with contextlib.suppress(WitnessError):     # only to name where they part
            history_sizes |= {e.size for e in client.history(url, verdict.origin)}
    sizes = {Checkpoint.parse(Note.parse(t).text).size for t in signed_notes
             if _parses(t)} | {cp.size for _w, _u, cp in seen} | history_sizes
    tree = read_chain(verdict, rows, sizes)
    if verdict.problems:
        return verdict
    check_signed(verdict, station, signed_notes, tree)
    for witness, url, cp in seen:
        if cp.size > verdict.records:
            verdict.problems.append(
                f"the witness {witness.name} cosigned size {cp.size}, but the journal holds "
                f"{verdict.records} records: records {verdict.records + 1} to {cp.size} were "
                f"cut off" + first_disagreement(url, verdict.origin, tree.roots,
                                                verdict.records))
        elif tree.roots.get(cp.size) != cp.root:
            verdict.problems.append(
                f"the journal and the witness {witness.name} disagree: the records up to "
                f"size {cp.size} give another root than the one the witness cosigned"
                + first_disagreement(url, verdict.origin, tree.roots, verdict.records))
        else:
            verdict.witnessed = max(verdict.witnessed or 0, cp.size)
    return verdict


def _parses(text: str) -> bool:
    try:
        Checkpoint.parse(Note.parse(text).text)
    except NoteError:
        return False
    return True
