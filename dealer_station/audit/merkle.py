"""Merkle trees over a chain's records, as RFC 9162 (Certificate Transparency 2.0) defines them.

A leaf's hash is SHA-256(0x00 || leaf), an interior node's SHA-256(0x01 || left || right), and a
tree of n leaves splits at the largest power of two below n (RFC 9162 section 2.1.1). With it:

- an **inclusion proof** shows that a leaf is the i-th of a tree of size n with a given root;
- a **consistency proof** shows that the tree of size m is a prefix of the tree of size n.

Both are checked with the root hashes alone, so whoever holds a signed root (a checkpoint) can
check a record or an older checkpoint against it without any key.

This module is pure: no database, no clock. A tree's nodes come from a ``NodeSource`` (the
journal keeps every full subtree's hash: see ``audit/merkle_store.py``), and appending uses the
*frontier*, the roots of the full subtrees that make up the tree, so that adding a leaf costs
O(log n) hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dealer_station.errors import StationError

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

#: ``node(level, index)``: the hash of the full subtree of 2**level leaves starting at leaf
#: ``index * 2**level`` (level 0: the leaf hashes).
NodeSource = Callable[[int, int], bytes]


class ProofError(StationError, ValueError):
    """A proof that does not prove what it claims, or is malformed."""


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def subtree_root(node: NodeSource, start: int, end: int) -> bytes:
    """The root of leaves ``[start, end)`` (any size), from full subtrees' hashes."""
    size = end - start
    if size <= 0:
        raise ValueError("an empty range has no subtree root")
    if size & (size - 1) == 0 and start % size == 0:
        return node(size.bit_length() - 1, start // size)
    k = _split(size)
    return node_hash(subtree_root(node, start, start + k), subtree_root(node, start + k, end))


def root(node: NodeSource, size: int) -> bytes:
    """The root hash of the tree of ``size`` leaves."""
    return EMPTY_ROOT if size == 0 else subtree_root(node, 0, size)


def root_of_leaves(hashes: Sequence[bytes]) -> bytes:
    """The root of a tree given all its leaf hashes (for tests and small trees)."""
    if not hashes:
        return EMPTY_ROOT
    if len(hashes) == 1:
        return hashes[0]
    k = _split(len(hashes))
    return node_hash(root_of_leaves(hashes[:k]), root_of_leaves(hashes[k:]))


# --- proofs (RFC 9162 2.1.3 and 2.1.4) -------------------------------------------------------

def inclusion_proof(node: NodeSource, index: int, size: int) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``size`` leaves."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of size {size}")
    proof: list[bytes] = []
    start, end = 0, size
    # Walk down from the root, keeping the sibling of the side that holds the leaf.
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            proof.append(subtree_root(node, start + k, end))
            end = start + k
        else:
            proof.append(subtree_root(node, start, start + k))
            start += k
    proof.reverse()
    return proof


def consistency_proof(node: NodeSource, old: int, new: int) -> list[bytes]:
    """The proof that the tree of ``old`` leaves is a prefix of the tree of ``new``."""
    if not 0 <= old <= new:
        raise ValueError(f"no consistency proof from size {old} to {new}")
    if old == 0 or old == new:
        return []
    out: list[bytes] = []

    def sub(m: int, start: int, end: int, whole: bool) -> None:
        n = end - start
        if m == n:
            if not whole:
                out.append(subtree_root(node, start, end))
            return
        k = _split(n)
        if m <= k:
            sub(m, start, start + k, whole)
            out.append(subtree_root(node, start + k, end))
        else:
            sub(m - k, start + k, end, False)
            out.append(subtree_root(node, start, start + k))

    sub(old, 0, new, True)
    return out


def root_from_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes]) -> bytes:
    """The root that ``proof`` gives for ``leaf`` (a leaf hash) at ``index`` of ``size``
    (RFC 9162 2.1.3.2); compare it with a trusted root."""
    if not 0 <= index < size:
        raise ProofError(f"leaf {index} is not in a tree of size {size}")
    fn, sn = index, size - 1
    r = leaf
    for p in proof:
        if sn == 0:
            raise ProofError("the inclusion proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the inclusion proof is shorter than the tree is deep")
    return r


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes],
                     expected_root: bytes) -> None:
    """Raise :class:`ProofError` unless ``leaf`` is leaf ``index`` of the tree of ``size``
    whose root is ``expected_root``."""
    if root_from_inclusion(index, size, leaf, proof) != expected_root:
        raise ProofError(f"leaf {index} is not in the tree of size {size} with that root")


def verify_consistency(old: int, new: int, old_root: bytes, new_root: bytes,
                       proof: Sequence[bytes]) -> None:
    """Raise :class:`ProofError` unless the tree of ``old`` leaves with ``old_root`` is a
    prefix of the tree of ``new`` leaves with ``new_root`` (RFC 9162 2.1.4.2)."""
    if not 0 <= old <= new:
        raise ProofError(f"size {old} is larger than size {new}: a log never shrinks")
    if old == new:
        if proof:
            raise ProofError("a proof between equal sizes must be empty")
        if old_root != new_root:
            raise ProofError(f"two different roots for the same size {old}")
        return
    if old == 0:
        if proof:
            raise ProofError("a proof from the empty tree must be empty")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    path = list(proof)
    if old & (old - 1) == 0:            # old is a power of two: its root is the first node
        path.insert(0, old_root)
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError("the consistency proof is longer than it should be")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ProofError("the consistency proof is shorter than it should be")
    if fr != old_root:
        raise ProofError(f"the proof does not lead to the root of size {old}: the log of "
                         f"size {new} does not extend it")
    if sr != new_root:
        raise ProofError(f"the proof does not lead to the root of size {new}")


# --- appending -------------------------------------------------------------------------------

@dataclass
class Frontier:
    """The right edge of a tree: the roots of its full subtrees, largest first, as
    ``(level, hash)``. Appending a leaf returns the full-subtree nodes it completes, for the
    store."""

    size: int = 0
    nodes: list[tuple[int, bytes]] = field(default_factory=list)

    def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf hash; return every ``(level, index, hash)`` node made full by it."""
        index = self.size
        made = [(0, index, leaf)]
        level, h = 0, leaf
        while self.nodes and self.nodes[-1][0] == level:
            _, left = self.nodes.pop()
            h = node_hash(left, h)
            level += 1
            made.append((level, index >> level, h))
        self.nodes.append((level, h))
        self.size += 1
        return made

    def root(self) -> bytes:
        if not self.nodes:
            return EMPTY_ROOT
        r = self.nodes[-1][1]
        for _, h in reversed(self.nodes[:-1]):
            r = node_hash(h, r)
        return r

    @classmethod
    def of(cls, node: NodeSource, size: int) -> Frontier:
        """The frontier of the tree of ``size`` leaves, read from its stored nodes."""
        nodes: list[tuple[int, bytes]] = []
        start = 0
        for level in range(size.bit_length() - 1, -1, -1):
            if size >> level & 1:
                nodes.append((level, node(level, start >> level)))
                start += 1 << level
        return cls(size, nodes)
