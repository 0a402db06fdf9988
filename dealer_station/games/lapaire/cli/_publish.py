"""What ``floor publish`` sends for a La Pair'e table file: the configuration's content as a
table journals it, after printing the par sheet an operator must see first. Named in the game
registry (``publish`` part)."""

from __future__ import annotations

import argparse
from typing import Any

from dealer_station.errors import StationError


def lapaire_content(config_path: str, profile: str | None) -> dict[str, Any]:
    from dealer_station.games.lapaire.cli import parsheet as lapaire_parsheet
    from dealer_station.games.lapaire.config_file import load_lapaire_config

    if profile is not None:
        raise StationError("--profile is for Bourré profiles; a La Pair'e table file has none")
    config = load_lapaire_config(config_path)
    lapaire_parsheet.run(argparse.Namespace(config=config_path, json=False))
    print()
    return config.to_data()
