"""Each chain's Merkle tree, kept in the ``merkle_nodes`` table as the journal grows.

The journal appends a record's leaf in the same transaction as the record (``Trees.extend``),
so the tree always has exactly the chain's records. Every full subtree's hash is stored, which
makes any root, inclusion proof or consistency proof a matter of O(log n) lookups; the
*frontier* (the right edge) is kept in memory per chain, so an append costs O(log n) hashes.

The nodes are a projection: they prove nothing by themselves (a verifier recomputes the tree
from the records), and a journal whose nodes are missing or disagree is rebuilt from its
records (``rebuild``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, delete, select

from dealer_station.audit import merkle, schema
from dealer_station.audit.hashing import record_leaf
from dealer_station.errors import StationError

N = schema.merkle_nodes
J = schema.journal


def leaf_of(table_id: str, seq: int, ts: str, actor: str, hashed_kind: str, payload: str,
            prev_hash: str, hash_: str) -> bytes:
    """A record's leaf hash (RFC 9162: SHA-256 of 0x00 and the record's canonical bytes)."""
    return merkle.leaf_hash(record_leaf(table_id=table_id, seq=seq, ts=ts, actor=actor,
                                        kind=hashed_kind, payload=payload, prev_hash=prev_hash,
                                        hash_=hash_))


def row_leaf(row: Sequence[Any]) -> bytes:
    """The leaf hash of a stored row ``(table_id, seq, ts, actor, kind, round_no, payload,
    prev_hash, hash)``."""
    t, seq, ts, actor, kind, round_no, payload, prev_hash, h = row
    hashed = kind if round_no is None else f"{kind}#{round_no}"
    return leaf_of(t, int(seq), ts, actor, hashed, payload, prev_hash, h)


class MissingNode(StationError, LookupError):
    """A node the tree should hold is not stored."""


def node_source(conn: Connection, table_id: str) -> merkle.NodeSource:
    """Read the stored nodes of one chain's tree (cached for the connection's use)."""
    cache: dict[tuple[int, int], bytes] = {}

    def node(level: int, index: int) -> bytes:
        found = cache.get((level, index))
        if found is None:
            value = conn.execute(select(N.c.hash).where(
                N.c.table_id == table_id, N.c.level == level, N.c.idx == index)).scalar()
            if value is None:
                raise MissingNode(f"table {table_id}: no tree node {level}/{index}")
            found = cache[(level, index)] = bytes.fromhex(value)
        return found
    return node


def insert(conn: Connection, table_id: str, made: Iterable[tuple[int, int, bytes]]) -> None:
    rows = [{"table_id": table_id, "level": level, "idx": index, "hash": h.hex()}
            for level, index, h in made]
    if rows:
        conn.execute(N.insert(), rows)


def rebuild(conn: Connection, table_id: str) -> merkle.Frontier:
    """Recompute a chain's tree from its records (in ``conn``'s transaction)."""
    conn.execute(delete(N).where(N.c.table_id == table_id))
    frontier = merkle.Frontier()
    stmt = (select(J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no,
                   J.c.payload, J.c.prev_hash, J.c.hash)
            .where(J.c.table_id == table_id).order_by(J.c.seq))
    batch: list[tuple[int, int, bytes]] = []
    for row in conn.execute(stmt).all():
        batch += frontier.append(row_leaf(row))
        if len(batch) > 5000:
            insert(conn, table_id, batch)
            batch = []
    insert(conn, table_id, batch)
    return frontier


def drop_beyond(conn: Connection, table_id: str, size: int) -> None:
    """Delete the stored nodes that cover any leaf at or past ``size``."""
    top = size.bit_length() + 1
    for level in range(top):
        conn.execute(delete(N).where(N.c.table_id == table_id, N.c.level == level,
                                     N.c.idx >= size >> level))
    conn.execute(delete(N).where(N.c.table_id == table_id, N.c.level >= top))


class Trees:
    """The frontier of each chain this process writes, kept in step with the database."""

    def __init__(self) -> None:
        self._frontiers: dict[str, merkle.Frontier] = {}
        self._lock = threading.Lock()

    def frontier(self, conn: Connection, table_id: str, size: int) -> merkle.Frontier:
        """A copy of the chain's frontier at ``size`` records (the chain's head as the write
        transaction sees it): the cached one, or read back from the stored nodes, or rebuilt
        from the records when nodes are missing."""
        with self._lock:
            cached = self._frontiers.get(table_id)
        if cached is not None and cached.size == size:
            return merkle.Frontier(cached.size, list(cached.nodes))
        # Nodes past the chain's head (records cut off the end since) are not the tree's.
        drop_beyond(conn, table_id, size)
        try:
            loaded = merkle.Frontier.of(node_source(conn, table_id), size)
        except MissingNode:
            loaded = rebuild(conn, table_id)
        return loaded

    def committed(self, table_id: str, frontier: merkle.Frontier) -> None:
        with self._lock:
            self._frontiers[table_id] = frontier

    def forget(self, table_id: str) -> None:
        with self._lock:
            self._frontiers.pop(table_id, None)

    def root(self, conn: Connection, table_id: str, size: int) -> bytes:
        """The root of the chain's first ``size`` records (``conn`` in a write transaction:
        a tree whose nodes are missing is rebuilt from the records first)."""
        with self._lock:
            cached = self._frontiers.get(table_id)
        if cached is not None and cached.size == size:
            return cached.root()
        try:
            return merkle.root(node_source(conn, table_id), size)
        except MissingNode:
            rebuild(conn, table_id)
            return merkle.root(node_source(conn, table_id), size)
