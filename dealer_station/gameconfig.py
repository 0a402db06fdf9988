"""Finding the configuration folder (``config/``) and reading the station's own files in it:
the gaming day (``station.toml``) and the accounting settings (``accounting.toml``).

Each game reads its own file from here (``games/<game>/config_file.py``, named in the
registry); the parsing and validation are pure functions in the game's rules, so that the
rules can be checked without touching a disk.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dealer_station.accounting.settings import AccountingSettings
    from dealer_station.gaming_day import GamingCalendar

CONFIG_ENV = "DEALER_STATION_CONFIG"
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
