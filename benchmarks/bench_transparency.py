"""Signed checkpoints and public verification: what the Merkle tree and the signing cost at the
table, how fast a journal is verified with public keys alone, and how large the proofs are.

    .venv/bin/python benchmarks/bench_transparency.py [--records N]
        [--backend sqlite|postgresql|both]

1. The tree at the table, per record: a record's leaf hashed and appended to its chain's
   frontier (in memory), and the nodes it completes (2 a record on average) inserted in the
   record's own transaction; measured as 12-record rounds appended (one durable commit a
   round) with the tree, and again with the tree's work taken out of the same code path.
2. Signing, per checkpoint: the note and its Ed25519 signature, which a round's closing commit
   adds (the root comes from the frontier in memory, the row goes in the same commit); and a
   checkpoint signed in a durable commit of its own, as a command does at its end.
3. Public verification (``audit verify --public-key``, no witness): records read, links
   checked, leaves hashed and the tree rebuilt, every signed checkpoint checked, in records/s.
4. Proof sizes: an inclusion proof and a consistency proof, in hashes and bytes, by tree size;
   and what a proof adds to each record a report attaches.

The witness's cosignatures per second: ``benchmarks/bench_witness.py``.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import time
from pathlib import Path

from databases import BACKENDS, on_databases
from sqlalchemy import select

from dealer_station.audit import merkle, schema
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Fact, Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.merkle_store import leaf_of, node_source
from dealer_station.witness.public_verify import verify_chain

ROUND = ["round.open", "wager", "wager", "wager", "wager", "betting.closed", "card", "card",
         "card", "settle", "payout", "round.close"]


def facts(n: int) -> list[Fact]:
    return [Fact(k, {"n": n, "i": i, "seat": i % 7 + 1, "amount": 500 * (i + 1)},
                 "ann/dealer", n) for i, k in enumerate(ROUND)]


def tree_in_memory(records: int) -> float:
    """µs per record: leaf hash and frontier append, nothing else."""
    frontier = merkle.Frontier()
    start = time.perf_counter()
    for seq in range(1, records + 1):
        frontier.append(leaf_of("T1", seq, "2026-11-26T12:00:00.000000+00:00", "ann/dealer",
                                "wager#7", '{"amount":500,"seat":3}', "a" * 64, "b" * 64))
    return (time.perf_counter() - start) / records * 1e6


def appends(url: str, key: JournalKey, rounds: int) -> tuple[float, Journal]:
    """µs per record of 12-record rounds, one durable commit each, with the tree."""
    journal = Journal(open_database(url), key)
    start = time.perf_counter()
    for n in range(1, rounds + 1):
        journal.append_many("T1", facts(n))
    took = time.perf_counter() - start
    return took / (rounds * len(ROUND)) * 1e6, journal


def without_tree(url: str, key: JournalKey, rounds: int) -> float:
    """µs per record of the same rounds on the same code path with the tree's work (leaf,
    frontier, node rows) taken out: what the tree adds is the difference."""
    from dealer_station.audit import journal as journal_module

    class NoTree(merkle.Frontier):
        def append(self, leaf: bytes) -> list[tuple[int, int, bytes]]:
            return []

    saved = (journal_module.leaf_of, journal_module.Trees.frontier)
    journal_module.leaf_of = lambda *a: b""   # type: ignore[assignment]
    journal_module.Trees.frontier = lambda self, conn, t, size: NoTree()  # type: ignore
    try:
        journal = Journal(open_database(url), key)
        start = time.perf_counter()
        for n in range(1, rounds + 1):
            journal.append_many("T2", facts(n))
        took = time.perf_counter() - start
        journal.db.close()
    finally:
        journal_module.leaf_of, journal_module.Trees.frontier = saved  # type: ignore
    return took / (rounds * len(ROUND)) * 1e6


def signature_alone(journal: Journal, times: int) -> float:
    """µs of what a round's closing commit adds to sign its checkpoint: the note and its
    Ed25519 signature (the root comes from the frontier in memory)."""
    from dealer_station.audit.notes import Checkpoint, sign_checkpoint

    assert journal.signer is not None
    cp = Checkpoint("bench.example/T1", 123_456, b"r" * 32)
    start = time.perf_counter()
    for _ in range(times):
        sign_checkpoint(journal.signer, cp).render()
    return (time.perf_counter() - start) / times * 1e6


def signing(journal: Journal, times: int) -> float:
    """ms per checkpoint signed in a durable transaction of its own (a command's end)."""
    head = journal.last("T1")
    assert head is not None
    took = []
    for k in range(times):
        journal.append_many("T1", facts(10_000 + k))
        start = time.perf_counter()
        journal.signing.sign("T1")
        took.append(time.perf_counter() - start)
    return statistics.median(took) * 1e3


def public_verification(journal: Journal) -> tuple[float, int, int]:
    """Records/s of verifying the T1 chain with the station's public key alone."""
    assert journal.signer is not None
    J, S = schema.journal, schema.signed_checkpoints
    with journal.db.read() as conn:
        notes = list(conn.execute(select(S.c.note).where(S.c.table_id == "T1")).scalars())
    stmt = (select(J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
                   J.c.prev_hash, J.c.hash).where(J.c.table_id == "T1").order_by(J.c.seq))
    start = time.perf_counter()
    with journal.db.engine.connect() as conn:
        verdict = verify_chain("T1", conn.execution_options(yield_per=5000).execute(stmt),
                               notes, journal.signer.verifier, [])
    took = time.perf_counter() - start
    assert verdict.ok, verdict.problems
    return verdict.records / took, verdict.records, verdict.checkpoints


def proof_sizes(journal: Journal, size: int) -> list[str]:
    out = []
    with journal.db.read() as conn:
        node = node_source(conn, "T1")
        for n in (1_000, 10_000, 100_000, 1_000_000):
            if n > size:
                break
            inc = merkle.inclusion_proof(node, n // 3, n)
            con = merkle.consistency_proof(node, n - 37, n)
            per_record = len(', "proof": {"checkpoint": , "index": , "path": []}') + \
                len(str(n)) * 2 + sum(len(base64.b64encode(h)) + 4 for h in inc)
            out.append(f"  tree of {n:>9,}: inclusion {len(inc)} hashes ({len(inc) * 32} "
                       f"bytes), consistency from {n - 37:,}: {len(con)} hashes "
                       f"({len(con) * 32} bytes); a report's record carries ~{per_record} "
                       f"more bytes")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=120_000)
    ap.add_argument("--backend", choices=BACKENDS, default="both")
    args = ap.parse_args()
    rounds = args.records // len(ROUND)
    print(f"tree in memory: {tree_in_memory(100_000):.1f} µs a record (leaf hash and "
          f"frontier append)")

    def bench(url: str, root: Path, label: str) -> None:
        key = create_key(root / label / "journal.key", "bench.example/t1")
        sample = min(rounds, 2_000)
        bare = without_tree(url, key, sample)
        per, journal = appends(url, key, rounds)
        first = per
        print(f"{label}: {rounds * 12:,} records in 12-record rounds, one durable commit a "
              f"round: {per:.0f} µs a record with the tree; {bare:.0f} µs without it "
              f"({sample * 12:,} records): the tree adds about {first - bare:.0f} µs a "
              f"record, {(first - bare) * 12 / 1000:.2f} ms a 12-record round")
        for n in range(1, rounds + 1, max(1, rounds // 400)):   # about 400 checkpoints
            journal.signing.sign("T1", n * 12)
        print(f"{label}: signing a checkpoint: {signature_alone(journal, 2000):.0f} µs for "
              f"the note and its signature, added to a round's closing commit; "
              f"{signing(journal, 50):.2f} ms in a durable commit of its own (median of 50)")
        rate, records, checkpoints = public_verification(journal)
        print(f"{label}: public verification: {rate:,.0f} records/s ({records:,} records, "
              f"{checkpoints} signed checkpoints, no key)")
        for line in proof_sizes(journal, records):
            print(f"{label}:{line}")
        journal.db.close()

    on_databases(args.backend, bench)


if __name__ == "__main__":
    main()
