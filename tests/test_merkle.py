"""The Merkle tree against RFC 9162's (Certificate Transparency's) test vectors, and random
appends whose proofs always verify and fail the moment any leaf changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer_station.audit import merkle as m

# The leaves and roots of the CT reference implementation's tests (RFC 6962 / RFC 9162 trees).
LEAVES = [bytes.fromhex(x) for x in (
    "", "00", "10", "2021", "3031", "40414243", "5051525354555657",
    "606162636465666768696a6b6c6d6e6f")]
ROOTS = [bytes.fromhex(x) for x in (
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328")]
CONSISTENCY = {
    (1, 8): ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    (6, 8): ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"],
    (2, 5): ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"],
}
INCLUSION = {
    (0, 8): ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
             "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
             "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"],
    (5, 8): ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
             "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"],
}


class Tree:
    """A tree kept as the journal keeps it: every full subtree's hash, and its frontier."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[int, int], bytes] = {}
        self.frontier = m.Frontier()

    def add(self, data: bytes) -> None:
        for level, index, h in self.frontier.append(m.leaf_hash(data)):
            self.nodes[(level, index)] = h

    def node(self, level: int, index: int) -> bytes:
        return self.nodes[(level, index)]


def vector_tree() -> Tree:
    t = Tree()
    for leaf in LEAVES:
        t.add(leaf)
    return t


def test_roots_of_the_reference_vectors() -> None:
    t = Tree()
    assert t.frontier.root() == m.EMPTY_ROOT == bytes.fromhex(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    for size, leaf in enumerate(LEAVES, 1):
        t.add(leaf)
        assert t.frontier.root() == ROOTS[size - 1]
        assert m.root(t.node, size) == ROOTS[size - 1]
        assert m.Frontier.of(t.node, size).root() == ROOTS[size - 1]
    assert m.root_of_leaves([m.leaf_hash(x) for x in LEAVES]) == ROOTS[-1]


@pytest.mark.parametrize(("old", "new"), sorted(CONSISTENCY))
def test_consistency_proofs_of_the_reference_vectors(old: int, new: int) -> None:
    t = vector_tree()
    proof = m.consistency_proof(t.node, old, new)
    assert [h.hex() for h in proof] == CONSISTENCY[(old, new)]
    m.verify_consistency(old, new, ROOTS[old - 1], ROOTS[new - 1], proof)


@pytest.mark.parametrize(("index", "size"), sorted(INCLUSION))
def test_inclusion_proofs_of_the_reference_vectors(index: int, size: int) -> None:
    t = vector_tree()
    proof = m.inclusion_proof(t.node, index, size)
    assert [h.hex() for h in proof] == INCLUSION[(index, size)]
    m.verify_inclusion(index, size, m.leaf_hash(LEAVES[index]), proof, ROOTS[size - 1])


def test_every_proof_among_the_vectors_and_its_failures() -> None:
    t = vector_tree()
    for new in range(1, 9):
        for old in range(0, new + 1):
            proof = m.consistency_proof(t.node, old, new)
            m.verify_consistency(old, new, m.root(t.node, old), ROOTS[new - 1], proof)
            if 0 < old < new:
                with pytest.raises(m.ProofError):      # another old root
                    m.verify_consistency(old, new, ROOTS[new - 1], ROOTS[new - 1], proof)
                with pytest.raises(m.ProofError):      # a proof cut short
                    m.verify_consistency(old, new, ROOTS[old - 1], ROOTS[new - 1], proof[:-1])
        for i in range(new):
            proof = m.inclusion_proof(t.node, i, new)
            m.verify_inclusion(i, new, m.leaf_hash(LEAVES[i]), proof, ROOTS[new - 1])
            with pytest.raises(m.ProofError):
                m.verify_inclusion(i, new, m.leaf_hash(b"another"), proof, ROOTS[new - 1])
    with pytest.raises(m.ProofError):
        m.verify_consistency(5, 3, ROOTS[4], ROOTS[2], [])       # a log never shrinks
    with pytest.raises(m.ProofError):
        m.verify_consistency(4, 4, ROOTS[3], ROOTS[4], [])       # one size, two roots


@settings(max_examples=60, deadline=None)
@given(leaves=st.lists(st.binary(max_size=12), min_size=1, max_size=70),
       data=st.data())
def test_random_appends_prove_and_any_changed_leaf_fails(leaves: list[bytes],
                                                         data: st.DataObject) -> None:
    t = Tree()
    roots = []
    for leaf in leaves:
        t.add(leaf)
        roots.append(t.frontier.root())
    n = len(leaves)
    assert roots[-1] == m.root_of_leaves([m.leaf_hash(x) for x in leaves])
    old = data.draw(st.integers(0, n), label="old")
    new = data.draw(st.integers(max(old, 1), n), label="new")
    proof = m.consistency_proof(t.node, old, new)
    old_root = roots[old - 1] if old else m.EMPTY_ROOT
    m.verify_consistency(old, new, old_root, roots[new - 1], proof)
    index = data.draw(st.integers(0, new - 1), label="index")
    path = m.inclusion_proof(t.node, index, new)
    m.verify_inclusion(index, new, m.leaf_hash(leaves[index]), path, roots[new - 1])
    # Any one leaf changed: a different tree, which neither proof accepts.
    changed = data.draw(st.integers(0, new - 1), label="changed")
    forged = list(leaves)
    forged[changed] = leaves[changed] + b"!"
    other = Tree()
    for leaf in forged[:new]:
        other.add(leaf)
    assert other.frontier.root() != roots[new - 1]
    with pytest.raises(m.ProofError):
        m.verify_inclusion(changed, new, m.leaf_hash(forged[changed]),
                           m.inclusion_proof(other.node, changed, new), roots[new - 1])
    if 0 < old < new and changed < old:
        with pytest.raises(m.ProofError):
            m.verify_consistency(old, new, old_root, other.frontier.root(),
                                 m.consistency_proof(other.node, old, new))
