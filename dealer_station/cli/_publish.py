"""What ``floor publish`` sends for each game: the configuration's content as a table journals
it, with what an operator must see first (La Pair'e's par sheet). Named in the game registry
(``publish`` part)."""

from __future__ import annotations

import argparse
from typing import Any

from dealer_station.errors import StationError


def lapaire_content(config_path: str, profile: str | None) -> dict[str, Any]:
    from dealer_station.cli import parsheet
    from dealer_station.gameconfig import load_lapaire_config

    if profile is not None:
        raise StationError("--profile is for Bourré profiles; a La Pair'e table file has none")
    config = load_lapaire_config(config_path)
    parsheet.run(argparse.Namespace(config=config_path, json=False))
    print()
    return config.to_data()


def bourre_content(config_path: str, profile: str | None) -> dict[str, Any]:
    from dealer_station.gameconfig import load_bourre_profiles
    from dealer_station.table.bourre_rounds import profile_content

    profiles = load_bourre_profiles(config_path)
    name = profile or (next(iter(profiles)) if len(profiles) == 1 else None)
    if name is None or name not in profiles:
        raise StationError(f"name the Bourré profile to publish (--profile: "
                           f"{', '.join(profiles)})")
    return profile_content(profiles[name])
