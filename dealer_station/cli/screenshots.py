"""``dealer-station screenshots``: PNGs of the station's main screens at 1280x800.

The real window is driven offscreen (no display needed) into each main state: sign-in,
La Pair'e betting and results, a fault banner, the supervisor's recall, the operator's par
sheet and a Bourré hand in play.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from dealer_station import registry as games


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("screenshots", help="save PNGs of the station's main screens",
                       description=__doc__)
    p.add_argument("--out", default="docs/screens", metavar="DIR",
                   help="folder for the PNG files (default docs/screens)")
    p.add_argument("--game", choices=(*games.names(), "all"), default="all",
                   help="which game's screens (default all)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Offscreen unless told otherwise: the screenshots never need (or disturb) a display.
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from dealer_station.ui.screenshots import take_screenshots

    chosen = games.names() if args.game == "all" else (args.game,)
    for path in take_screenshots(Path(args.out), chosen):
        print(path)
    return 0
