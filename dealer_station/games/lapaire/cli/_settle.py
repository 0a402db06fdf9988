"""La Pair'e's settler for the ``settle`` command: its own module, named in the game registry
(``settler`` part), so the configuration loader imports no settlement of a game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def lapaire_settler(path: Path | str | None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The registry's ``settler`` part: settles records on the table file ``path`` (default
    config/lapaire.toml); a file that cannot be read raises at once."""
    from dealer_station.games.lapaire.config_file import load_lapaire_config
    from dealer_station.games.lapaire.rules.settle_json import settle_lapaire_record

    config = load_lapaire_config(path)
    return lambda record: settle_lapaire_record(record, config)
