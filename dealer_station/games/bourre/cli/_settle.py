"""Bourré's settler for the ``settle`` command: its own module, named in the game registry
(``settler`` part), so the configuration loader imports no settlement of a game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def bourre_settler(path: Path | str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The registry's ``settler`` part: settles hands on the profiles of ``path`` (default
    config/bourre.toml); a file that cannot be read raises at once."""
    from dealer_station.games.bourre.config_file import load_bourre_profiles
    from dealer_station.games.bourre.rules.settle_json import settle_bourre_record

    profiles = load_bourre_profiles(path)
    return lambda record: settle_bourre_record(record, profiles)
