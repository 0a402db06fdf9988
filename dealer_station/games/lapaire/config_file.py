"""La Pair'e's table file in the configuration folder, read from disk (the parsing and the
checks are the pure :func:`~dealer_station.games.lapaire.rules.config.parse_lapaire_config`)."""

from __future__ import annotations

from pathlib import Path

from dealer_station.gameconfig import config_dir
from dealer_station.games.lapaire.rules.config import LaPaireConfig, parse_lapaire_config
from dealer_station.tomlconfig import load_toml

LAPAIRE_FILE = "lapaire.toml"


def load_lapaire_config(path: Path | str | None = None) -> LaPaireConfig:
    """The table file ``path`` (None: ``lapaire.toml`` in the configuration folder); a bad
    file raises a ConfigError naming it and the setting."""
    p = Path(path) if path is not None else config_dir() / LAPAIRE_FILE
    return parse_lapaire_config(load_toml(p), str(p))


def check_file(path: Path, /) -> str:
    """``doctor``'s check of the file: what it holds, in a few words (a bad file raises)."""
    load_lapaire_config(path)
    return "La Pair'e"
