"""Bourré's rule profiles in the configuration folder, read from disk (the parsing and the
checks are the pure :func:`~dealer_station.games.bourre.rules.config.parse_bourre_profiles`)."""

from __future__ import annotations

from pathlib import Path

from dealer_station.gameconfig import config_dir
from dealer_station.games.bourre.rules.config import BourreProfile, parse_bourre_profiles
from dealer_station.tomlconfig import load_toml

BOURRE_FILE = "bourre.toml"


def load_bourre_profiles(path: Path | str | None = None) -> dict[str, BourreProfile]:
    """The profiles of ``path`` (None: ``bourre.toml`` in the configuration folder), by name;
    a bad file raises a ConfigError naming it and the setting."""
    p = Path(path) if path is not None else config_dir() / BOURRE_FILE
    return parse_bourre_profiles(load_toml(p), str(p))


def check_file(path: Path, /) -> str:
    """``doctor``'s check of the file: what it holds, in a few words (a bad file raises)."""
    return f"Bourré profiles: {', '.join(load_bourre_profiles(path))}"
