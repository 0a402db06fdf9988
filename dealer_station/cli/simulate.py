"""``dealer-station simulate``: complete rounds through the real table service and journal,
with a simulated shoe (and reader) speaking the wire protocol to the real drivers.

A demo, a load generator and a soak test in one. Run again after a crash and it first
finishes the round the journal left open, exactly where it stopped.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from dealer_station.cli.audit import open_store, store_options
from dealer_station.table.base import DEFAULT_TABLE

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("simulate", parents=[store_options()],
                       help="play N complete rounds through the real table service",
                       description=__doc__)
    p.add_argument("--game", choices=("lapaire", "bourre"), default="lapaire")
    p.add_argument("--rounds", type=int, default=100, metavar="N",
                   help="rounds (La Pair'e) or hands (Bourré) to play (default 100)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seed for repeatable wagers, play and shuffles")
    p.add_argument("--config", metavar="FILE", help="table configuration file")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.add_argument("--table", default=DEFAULT_TABLE, help=f"table id (default {DEFAULT_TABLE})")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError

    if args.rounds < 1:
        raise StationError(f"--rounds must be at least 1, got {args.rounds}")
    with open_store(args) as store:
        return _simulate(args, store.journal)


def _simulate(args: argparse.Namespace, journal: Journal) -> int:
    table = args.table
    start = time.perf_counter()
    if args.game == "lapaire":
        from dealer_station.table.lapaire_sim import simulate_lapaire
        played = simulate_lapaire(journal, table, rounds=args.rounds, seed=args.seed,
                                  config_path=args.config, quiet=args.quiet)
    else:
        from dealer_station.table.bourre_sim import simulate_bourre
        played = simulate_bourre(journal, table, hands=args.rounds, seed=args.seed,
                                 config_path=args.config, quiet=args.quiet)
    took = time.perf_counter() - start
    unit = "rounds" if args.game == "lapaire" else "hands"
    print(f"simulated {played} {unit} at table {table} in {took:.1f} s "
          f"({played / took if took else 0:.0f} {unit}/s); journal: {journal.db.url}")
    return 0
