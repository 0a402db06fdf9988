"""Finding and reading the game configuration files in ``config/``.

The file I/O lives here; the parsing and validation are pure functions in each game's rules
(``games/lapaire/rules/config.py``, ``games/bourre/rules/config.py``) so that the rules can be
checked without touching a disk.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from dealer_station.tomlconfig import load_toml

if TYPE_CHECKING:
    from dealer_station.accounting.settings import AccountingSettings
    from dealer_station.games.bourre.rules.config import BourreProfile
    from dealer_station.games.lapaire.rules.config import LaPaireConfig
    from dealer_station.gaming_day import GamingCalendar

CONFIG_ENV = "DEALER_STATION_CONFIG"
LAPAIRE_FILE = "lapaire.toml"
BOURRE_FILE = "bourre.toml"
STATION_FILE = "station.toml"
ACCOUNTING_FILE = "accounting.toml"


def config_dir() -> Path:
    """``$DEALER_STATION_CONFIG`` if set, else the ``config/`` folder shipped with the station."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1] / "config"


def load_gaming_calendar(path: Path | str | None = None) -> GamingCalendar:
    """The gaming day and shifts of ``station.toml`` (``[gaming_day]``), or the defaults."""
    from dealer_station.gaming_day import load_calendar

    return load_calendar(path if path is not None else config_dir() / STATION_FILE)


def load_accounting_settings(path: Path | str | None = None) -> AccountingSettings:
    """Chip denominations and exception thresholds of ``accounting.toml`` (or the defaults
    when the file is missing)."""
    from dealer_station.accounting.settings import load_settings

    return load_settings(path if path is not None else config_dir() / ACCOUNTING_FILE)


def load_lapaire_config(path: Path | str | None = None) -> LaPaireConfig:
    from dealer_station.games.lapaire.rules.config import parse_lapaire_config

    p = Path(path) if path is not None else config_dir() / LAPAIRE_FILE
    return parse_lapaire_config(load_toml(p), str(p))


def load_bourre_profiles(path: Path | str | None = None) -> dict[str, BourreProfile]:
    from dealer_station.games.bourre.rules.config import parse_bourre_profiles

    p = Path(path) if path is not None else config_dir() / BOURRE_FILE
    return parse_bourre_profiles(load_toml(p), str(p))
