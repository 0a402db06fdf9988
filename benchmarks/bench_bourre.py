"""How many random complete Bourré hands per second the engine validates and settles.

Random hands (2 to 7 players, random folds, draws and legal play, with about one misplay in fifty
cards) are generated first, untimed. Then two figures, each the best of three runs in one
process:

- engine: each hand replayed through ``BourreHand`` card by card (deal, decisions, draw, plays:
  every card checked, every play's legality decided, the hand settled and its chips checked),
  as the table service drives it;
- JSON contract: the same hands as ``settle`` input lines (already parsed from JSON) through
  ``settle_bourre_record``, which also validates the record's shape and card codes.

Run: ``.venv/bin/python benchmarks/bench_bourre.py [--hands N] [--seed S]``. Target: 5,000 hands/s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from dealer_station.cards import Card, parse_card
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import BourreHand, Phase
from dealer_station.games.bourre.rules.random_play import random_bourre_record
from dealer_station.games.bourre.rules.settle_json import settle_bourre_record

TARGET = 5000

Script = tuple[list[int], int, dict[int, int], dict[int, list[Card]], dict[int, bool],
               dict[int, tuple[list[Card], list[Card]]], list[tuple[int, Card]]]


def to_script(record: dict[str, Any]) -> Script:
    """The record as engine inputs (ints and Card objects), so the engine figure measures the
    engine, not text parsing."""
    seats = list(record["seats"])
    deal = {int(s): [parse_card(c) for c in cs] for s, cs in record["deal"].items()}
    stay = {int(s): v for s, v in record["stay"].items()}
    draws = {int(s): ([parse_card(c) for c in d["discard"]], [parse_card(c) for c in d["receive"]])
             for s, d in record["draws"].items()}
    plays = [(int(s), parse_card(c)) for s, c in record["plays"]]
    chips = {int(s): v for s, v in record["chips"].items()}
    return seats, record["dealer"], chips, deal, stay, draws, plays


def run_engine(profile: BourreProfile, scripts: list[Script]) -> int:
    settled = 0
    for seats, dealer, chips, deal, stay, draws, plays in scripts:
        hand = BourreHand.from_deal(profile, seats, dealer, chips, 0, deal)
        for seat in hand.order:
            if stay[seat]:
                hand.stay(seat)
            else:
                hand.fold(seat)
        for seat in hand.stayers:
            discard, receive = draws.get(seat, ([], []))
            hand.discard(seat, discard)
            for card in receive:
                hand.receive(seat, card)
        for seat, card in plays:
            hand.play(seat, card)
        if hand.phase is Phase.SETTLED:
            settled += 1
    return settled


def run_json(profiles: dict[str, BourreProfile], records: list[dict[str, Any]]) -> int:
    settled = 0
    for record in records:
        if "error" not in settle_bourre_record(record, profiles):
            settled += 1
    return settled


def best_rate(fn: Any, *args: Any, hands: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        done = fn(*args)
        elapsed = time.perf_counter() - start
        if done != hands:
            sys.exit(f"only {done} of {hands} hands settled: the benchmark's hands are wrong")
        best = min(best, elapsed)
    return hands / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    profiles = load_bourre_profiles()
    profile = profiles["tournament"]
    rng = random.Random(args.seed)
    records = [random_bourre_record(rng, profile, misplay_rate=0.02, hand_id=i)
               for i in range(args.hands)]
    scripts = [to_script(r) for r in records]
    cards = sum(15 + len(r["plays"]) + sum(len(d["receive"]) for d in r["draws"].values())
                for r in records)
    print(f"Bourré: {args.hands} random hands (2-7 players), {cards / args.hands:.1f} cards "
          f"read per hand on average")
    engine = best_rate(run_engine, profile, scripts, hands=args.hands)
    contract = best_rate(run_json, profiles, records, hands=args.hands)
    for name, rate in (("engine (BourreHand, card by card)", engine),
                       ("JSON contract (settle_bourre_record)", contract)):
        verdict = "meets" if rate >= TARGET else "BELOW"
        print(f"  {name:40s} {rate:9,.0f} hands/s  ({verdict} the {TARGET:,} hands/s target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
