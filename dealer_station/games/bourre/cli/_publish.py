"""What ``floor publish`` sends for a Bourré file: one rule profile's content as a table
journals it. Named in the game registry (``publish`` part)."""

from __future__ import annotations

from typing import Any

from dealer_station.errors import StationError


def bourre_content(config_path: str, profile: str | None) -> dict[str, Any]:
    from dealer_station.games.bourre.config_file import load_bourre_profiles
    from dealer_station.games.bourre.table.rounds import profile_content

    profiles = load_bourre_profiles(config_path)
    name = profile or (next(iter(profiles)) if len(profiles) == 1 else None)
    if name is None or name not in profiles:
        raise StationError(f"name the Bourré profile to publish (--profile: "
                           f"{', '.join(profiles)})")
    return profile_content(profiles[name])
