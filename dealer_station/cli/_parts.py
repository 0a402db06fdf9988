"""The parts of a game only the command line calls through the registry (registry.py), typed as
it calls them (see table/parts.py for the tables' own)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from dealer_station.registry import Part

if TYPE_CHECKING:
    from dealer_station.reports.source import Period


class LoadsSettler(Protocol):
    """The ``settle`` command's settler for the game's file (``path``; None: the default):
    an input record in, its result out. A bad file raises."""

    def __call__(self, path: Path | str | None, /
                 ) -> Callable[[dict[str, Any]], dict[str, Any]]: ...


class Publishes(Protocol):
    """What ``floor publish`` sends for the file (and rule profile), after printing what the
    operator must see first."""

    def __call__(self, config_path: str, profile: str | None, /) -> dict[str, Any]: ...


class ChecksConfig(Protocol):
    """``doctor``'s check of the game's file in the configuration folder: what it holds, in a
    few words. A bad file raises, naming the file and the setting."""

    def __call__(self, path: Path, /) -> str: ...


class PrintsReportJson(Protocol):
    """``dealer-station report KIND --json``: print the game's own report ``kind`` as JSON for
    ``period`` (the command line's options, already checked); the exit status."""

    def __call__(self, kind: str, args: argparse.Namespace, period: Period, /) -> int: ...


SETTLER: Part[LoadsSettler] = Part("settler")

REPORT_JSON: Part[PrintsReportJson] = Part("report_json", optional=True)
CONFIG_CHECK: Part[ChecksConfig] = Part("config_check")
PUBLISH: Part[Publishes] = Part("publish")
