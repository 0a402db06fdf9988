"""``dealer-station parsheet``: the exact game math of a La Pair'e table.

For every offered spot: win probability, payout, return to player, house edge and standard
deviation per unit staked, computed exactly over the 54-card deck. Spots whose house edge is
negative or above the table's ``warn_house_edge_above`` are flagged.

A La Pair'e command, so a module of La Pair'e's own (its file name holds the game's name);
the command is still ``parsheet``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from dealer_station.games.lapaire.rules.layout import spot_label


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("parsheet", help="print the exact par sheet of a La Pair'e table")
    p.add_argument("--config", type=Path, metavar="FILE",
                   help="the La Pair'e table file (default: config/lapaire.toml)")
    p.add_argument("--json", action="store_true",
                   help='print a JSON list of {"bet", "values", "probability", "rtp", '
                        '"house_edge", "stdev"} (ratios as numbers, not percentages)')
    p.set_defaults(func=run)


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def run(args: argparse.Namespace) -> int:
    from dealer_station.games.lapaire.config_file import load_lapaire_config
    from dealer_station.games.lapaire.rules.house_math import par_sheet, percent

    config = load_lapaire_config(args.config)
    rows = par_sheet(config)
    if args.json:
        data: list[dict[str, Any]] = [
            {"bet": r.bet, "values": list(r.values), "probability": float(r.probability),
             "rtp": float(r.rtp), "house_edge": float(r.house_edge), "stdev": float(r.stdev)}
            for r in rows
        ]
        print(json.dumps(data, indent=2))
        return 0
    body = [[r.bet, spot_label(r.values) or "-", f"{float(r.probability):.6f}",
             r.payout if len(r.outcomes) == 1 else "see below",
             percent(r.rtp, 3), percent(r.house_edge, 3), f"{float(r.stdev):.4f}",
             "!" if r.warning else ""]
            for r in rows]
    headers = ["bet", "values", "probability", "payout", "RTP", "house edge", "stdev", ""]
    print(f"Par sheet (exact, per unit staked, 54-card deck); poker paytable "
          f"{config.poker.paytable!r}")
    print()
    for text in _table(headers, body, right={2, 4, 5, 6}):
        print(text)
    for r in rows:
        if len(r.outcomes) > 1:
            print()
            print(f"{r.label}:")
            for o in r.outcomes:
                print(f"  {o.label:<16} {o.odds!s:>10}   probability {float(o.probability):.6f}"
                      f"  ({o.probability})")
    warnings = [r for r in rows if r.warning]
    print()
    if warnings:
        print(f"Warnings (house edge negative or above "
              f"{percent(config.warn_house_edge_above)}):")
        for r in warnings:
            print(f"  ! {r.label}: {r.warning}")
    else:
        print(f"No warnings: every offered spot's house edge is between 0% and "
              f"{percent(config.warn_house_edge_above)}.")
    return 0
