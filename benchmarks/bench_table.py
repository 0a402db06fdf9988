"""Table service benchmarks: complete rounds through the real service and journal.

    .venv/bin/python benchmarks/bench_table.py [--rounds N] [--backend sqlite|postgresql|both]

A La Pair'e round here is what a live table does: the wagers placed as one step, three cards
each settled and committed, and a payout confirmation for each stage that paid anything (a
stage with nothing to pay is confirmed with its card; the last confirmation closes the round
and updates the meters): 4 to 7 durable commits. It is driven straight through ``LaPaireTable`` (no
device), so the figure is the service and the journal. ``simulate`` adds the simulated shoe
on top; its figure is printed too. Bourré hands go through the devices, as in ``simulate``.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from databases import BACKENDS, on_databases

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.bourre.table.sim import simulate_bourre
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.table.sim import random_wagers, simulate_lapaire


def bench(url: str, key_dir: Path, rounds: int, label: str) -> None:
    db = open_database(url)
    journal = Journal(db, create_key(key_dir / f"{label}.key"))
    table = LaPaireTable(journal, "BENCH", load_lapaire_config(), dealer="bench/dealer")
    rng = random.Random(1)
    table.place_many(random_wagers(rng, table.config))   # warm up: compile the paytable
    for card in LAPAIRE_DECK.shuffled(rng)[:3]:
        table.deal(card)
        while table.unconfirmed():
            table.confirm_payout(table.unconfirmed()[0])
    plans = [(random_wagers(rng, table.config), LAPAIRE_DECK.shuffled(rng)[:3])
             for _ in range(rounds)]
    before = journal.last("BENCH")
    start = time.perf_counter()
    for wagers, cards in plans:
        table.place_many(wagers)
        for card in cards:
            table.deal(card)
            while table.unconfirmed():   # the dealer confirms what she paid
                table.confirm_payout(table.unconfirmed()[0])
    took = time.perf_counter() - start
    wagers = sum(len(w) for w, _ in plans)
    commits = rounds * 4 + sum(1 for r in journal.records("BENCH", from_seq=before.seq + 1
                                                           if before else 1,
                                                           kinds=["payout.confirm"])
                               if r.actor != "station")
    print(f"{label}: La Pair'e through the table service: {rounds / took:,.0f} rounds/s "
          f"({rounds} rounds, {wagers / rounds:.1f} wagers each, {commits / rounds:.1f} commits "
          f"per round)")
    n = max(50, rounds // 10)
    start = time.perf_counter()
    simulate_lapaire(journal, "SIM", rounds=n, seed=2, quiet=True)
    took = time.perf_counter() - start
    print(f"{label}: simulate, La Pair'e with the simulated shoe: {n / took:,.0f} rounds/s")
    start = time.perf_counter()
    simulate_bourre(journal, "BSIM", hands=n, seed=3, quiet=True)
    took = time.perf_counter() - start
    print(f"{label}: simulate, Bourré with the simulated shoe and reader: {n / took:,.0f} "
          f"hands/s")
    db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--backend", choices=BACKENDS, default="both")
    args = parser.parse_args()
    on_databases(args.backend,
                 lambda url, root, label: bench(url, root, args.rounds, label))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
