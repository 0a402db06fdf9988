"""La Pair'e settlement throughput and par sheet time.

Run: ``.venv/bin/python benchmarks/bench_lapaire.py [--rounds N]``

Prints rounds settled per second by ``settle_round`` for rounds of 10 random wagers (5 seats,
each a First Card wager and one more on any offered spot, random amounts, three random cards),
the same through the live ``LaPaireRound`` (place, deal, deal, deal), the time to compile a
table's lookups, and the time of the whole default table's exact par sheet.
"""

from __future__ import annotations

import argparse
import random
import time

from dealer_station.cards import LAPAIRE_DECK, Card
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules import poker as lapaire_poker
from dealer_station.games.lapaire.rules.config import FIRST_CARD_KINDS
from dealer_station.games.lapaire.rules.engine import (
    LaPaireRound,
    SettlementTable,
    Wager,
    settle_round,
)
from dealer_station.games.lapaire.rules.house_math import par_sheet

Round = tuple[list[Wager], list[Card]]


def make_rounds(n: int, table: SettlementTable, rng: random.Random) -> list[Round]:
    spots = sorted(table.rules)
    first = [s for s in spots if s[0] in FIRST_CARD_KINDS]
    rounds: list[Round] = []
    for _ in range(n):
        wagers = []
        for seat in range(1, 6):
            bet, values = rng.choice(first)
            wagers.append(Wager(seat, bet, values, rng.randint(1, 50) * 100))
            bet, values = rng.choice(spots)
            wagers.append(Wager(seat, bet, values, rng.randint(1, 10) * 100))
        rounds.append((wagers, LAPAIRE_DECK.shuffled(rng)[:3]))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    args = parser.parse_args()

    config = load_lapaire_config()

    t0 = time.perf_counter()
    sheet = par_sheet(config)
    cold_par = time.perf_counter() - t0
    t0 = time.perf_counter()
    par_sheet(config)
    warm_par = time.perf_counter() - t0

    lapaire_poker.hand_table.cache_clear()
    t0 = time.perf_counter()
    table = SettlementTable(config)
    compile_time = time.perf_counter() - t0

    rounds = make_rounds(args.rounds, table, random.Random(20240601))
    settle_round(config, *rounds[0])  # compile and cache outside the timing
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for wagers, cards in rounds:
            settle_round(config, wagers, cards)
        best = max(best, len(rounds) / (time.perf_counter() - t0))

    live_rounds = rounds[: max(1, len(rounds) // 10)]
    t0 = time.perf_counter()
    for wagers, cards in live_rounds:
        rnd = LaPaireRound(config)
        for w in wagers:
            rnd.place(w)
        for c in cards:
            rnd.deal(c)
    live = len(live_rounds) / (time.perf_counter() - t0)

    print("La Pair'e settlement (default table, rounds of 10 random wagers)")
    print(f"  settle_round:          {best:>10,.0f} rounds/s  ({best * 10:,.0f} wagers/s, "
          f"best of 3 x {len(rounds):,} rounds)")
    print(f"  LaPaireRound (live):   {live:>10,.0f} rounds/s  (place 10, deal 3; "
          f"{len(live_rounds):,} rounds)")
    print(f"  compile table lookups: {compile_time * 1000:>10.1f} ms (once per config)")
    print(f"Par sheet (exact, {len(sheet)} offered spots)")
    print(f"  first call:            {cold_par * 1000:>10.1f} ms (includes the poker hand table)")
    print(f"  again (cached hands):  {warm_par * 1000:>10.1f} ms")


if __name__ == "__main__":
    main()
