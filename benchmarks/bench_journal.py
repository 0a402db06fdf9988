"""Journal benchmarks: durable appends, committed rounds, verification and recall.

    .venv/bin/python benchmarks/bench_journal.py [--events N] [--backend sqlite|postgresql|both]

SQLite runs in a temporary folder in WAL mode with synchronous=FULL; PostgreSQL is a throwaway
cluster started from the installed server binaries with fsync and synchronous_commit on. Every
figure is for durable commits: append() returns only after the commit.

A "round" is 12 records (open, 4 wagers, close betting, 3 cards, settlement, payouts, close)
with the rounds and meters projections updated in the same transactions. It is measured three
ways: every record its own commit; one commit per stage (4 per round, what a live table needs:
each stage is acknowledged to the dealer only once committed); and one commit per round.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from databases import BACKENDS, on_databases
from sqlalchemy import Connection

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Fact, Journal, MeterDelta, add_meters, upsert_round
from dealer_station.audit.keys import create_key

ROUND_KINDS = ["round.open", "wager", "wager", "wager", "wager", "betting.closed", "card",
               "card", "card", "settle", "payout", "round.close"]
STAGES = [(0, 6), (6, 9), (9, 11), (11, 12)]  # record index ranges committed together


def round_facts(n: int) -> list[Fact]:
    payloads = [{"game": "lapaire", "config_version": "c" * 64, "dealer": "ann"},
                {"seat": 1, "kind": "first_card", "amount": 500},
                {"seat": 2, "kind": "first_card", "amount": 1000},
                {"seat": 3, "kind": "red_black", "amount": 500},
                {"seat": 4, "kind": "any_paire", "amount": 200}, {},
                {"code": "KH"}, {"code": "7S"}, {"code": "JK"},
                {"results": [{"seat": 1, "paid": 5500}, {"seat": 3, "paid": 0}]},
                {"seat": 1, "amount": 5500}, {"paid": 5500}]
    actors = ["ann/dealer"] * 6 + ["device:shoe"] * 3 + ["ann/dealer"] * 3
    return [Fact(k, p, a, n) for k, p, a in zip(ROUND_KINDS, payloads, actors, strict=True)]


def projection(table: str, n: int, stage: int) -> Callable[[Connection], None]:
    def also(conn: Connection) -> None:
        if stage == 0:
            upsert_round(conn, table, n, game="lapaire", config_version="c" * 64, dealer="ann")
        elif stage == 3:
            upsert_round(conn, table, n, status="settled")
            add_meters(conn, table, {"total": MeterDelta(1, 2200, 5500),
                                     "first_card": MeterDelta(1, 1500, 5500)})
        else:
            upsert_round(conn, table, n)
    return also


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s"


def bench(url: str, key_dir: Path, events: int, label: str) -> None:
    print(f"\n== {label}")
    db = open_database(url)
    journal = Journal(db, create_key(key_dir / f"{label}.key"))

    n = 2000 if label == "sqlite" else 1000
    t = time.perf_counter()
    for i in range(n):
        journal.append("single", "wager", {"seat": i % 7, "amount": 500}, "ann/dealer")
    d = time.perf_counter() - t
    print(f"durable appends, one record per commit:    {rate(n, d):>12}  "
          f"({d / n * 1000:.2f} ms per commit)")

    rounds = 200
    t = time.perf_counter()
    for r in range(1, rounds + 1):
        facts = round_facts(r)
        for i, fact in enumerate(facts):
            stage = next(s for s, (a, b) in enumerate(STAGES) if a <= i < b)
            first_of_stage = i == STAGES[stage][0]
            also = (projection("per-record", r, stage) if first_of_stage
                    else projection("per-record", r, 1))  # refreshes the round's last_seq
            journal.append("per-record", fact.kind, fact.payload, fact.actor, round_no=r,
                           also=also)
    d = time.perf_counter() - t
    print(f"rounds, each record its own commit:        {rate(rounds, d):>12}  "
          f"({rate(rounds * 12, d)} records)")

    rounds = 400
    t = time.perf_counter()
    for r in range(1, rounds + 1):
        facts = round_facts(r)
        for s, (a, b) in enumerate(STAGES):
            journal.append_many("per-stage", facts[a:b], also=projection("per-stage", r, s))
    d = time.perf_counter() - t
    print(f"rounds, one commit per stage (4/round):    {rate(rounds, d):>12}  "
          f"({rate(rounds * 12, d)} records)")

    t = time.perf_counter()
    for r in range(1, rounds + 1):

        def whole(conn: Connection, r: int = r) -> None:
            projection("per-round", r, 0)(conn)
            projection("per-round", r, 3)(conn)

        journal.append_many("per-round", round_facts(r), also=whole)
    d = time.perf_counter() - t
    print(f"rounds, one commit per round:              {rate(rounds, d):>12}  "
          f"({rate(rounds * 12, d)} records)")

    # One table with `events` records for verification and recall.
    big = "big"
    t = time.perf_counter()
    stored = 0
    r = 0
    while stored < events:
        batch: list[Fact] = []
        while len(batch) < 1200 and stored + len(batch) < events:
            r += 1
            batch.extend(round_facts(r))
        batch = batch[: events - stored]
        journal.append_many(big, batch)
        stored += len(batch)
    d = time.perf_counter() - t
    print(f"bulk load of {stored:,} records (1,200 per commit): {d:.1f} s, {rate(stored, d)}")

    t = time.perf_counter()
    [result] = journal.verify(big)
    d = time.perf_counter() - t
    assert result.ok, result
    print(f"verification of {result.records:,} records:        {d:.2f} s  "
          f"{rate(result.records, d):>12}")

    rng = random.Random(7)
    times = []
    for _ in range(200):
        n_round = rng.randint(1, r - 1)
        t = time.perf_counter()
        records = journal.round_records(big, n_round)
        times.append((time.perf_counter() - t) * 1000)
        assert len(records) == 12, (n_round, len(records))
    print(f"recall of one round among {stored:,} records: median {statistics.median(times):.2f} "
          f"ms, max {max(times):.2f} ms (200 rounds)")
    t = time.perf_counter()
    journal.recent_rounds("per-stage", 10)
    print(f"last 10 rounds' summaries:                  {(time.perf_counter() - t) * 1000:.2f} ms")
    # What verification does: every projection row against the whole chain.
    t = time.perf_counter()
    journal.check_head(big)
    journal.last_round_no(big)
    problems = journal.check_projections(big)
    d = time.perf_counter() - t
    print(f"full projection check over {r:,} rounds ({stored:,} records): {d:.2f} s "
          f"({len(problems):,} rows found to rewrite: the bulk load writes none)")
    # What a table service does before it writes after a clean shut-down: its head against
    # the anchors, its last round from the chain, and the projections from the checkpoint
    # the shut-down wrote (which carries the proven meters) onwards.
    journal.rebuild_projections(big, "bench")   # the rows a live table would have written
    state = journal.proven_state(big, since_checkpoint=False)
    journal.checkpoint(big, "bench", payload=state.payload(journal.last_round_no(big) or 0))
    t = time.perf_counter()
    journal.check_head(big)
    journal.last_round_no(big)
    journal.check_projections(big, since_checkpoint=True)
    d = time.perf_counter() - t
    print(f"table start-up checks after a clean shut-down ({stored:,} records): "
          f"{d * 1000:.0f} ms")
    # A sign-in: the user's records read from the chain and checked, then the PIN (argon2id
    # at the station's settings, 64 MiB and 3 passes, which is most of the time).
    from dealer_station.audit.users import Users

    users = Users(journal)
    users.seed([("olga", "Olga", "operator", "2468"), ("dan", "Dan", "dealer", "1357")],
               actor="bench")
    times = []
    for _ in range(5):
        t = time.perf_counter()
        users.authenticate("dan", "1357", table_id=big)
        times.append((time.perf_counter() - t) * 1000)
    users_only = []
    for _ in range(20):
        t = time.perf_counter()
        users.get("dan")
        users_only.append((time.perf_counter() - t) * 1000)
    print(f"sign-in among {stored:,} records: median {statistics.median(times):.0f} ms "
          f"(reading and checking the user from the chain: "
          f"{statistics.median(users_only):.1f} ms)")
    db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--backend", choices=BACKENDS, default="both")
    args = parser.parse_args()
    on_databases(args.backend,
                 lambda url, root, label: bench(url, root, args.events, label))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
