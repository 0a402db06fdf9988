"""The parts of a game only the command line calls through the registry (registry.py), typed as
it calls them (see table/parts.py for the tables' own)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from dealer_station.registry import Part


class LoadsSettler(Protocol):
    """The ``settle`` command's settler for the game's file (``path``; None: the default):
    an input record in, its result out. A bad file raises."""

    def __call__(self, path: Path | str | None, /
                 ) -> Callable[[dict[str, Any]], dict[str, Any]]: ...


class Publishes(Protocol):
    """What ``floor publish`` sends for the file (and rule profile), after printing what the
    operator must see first."""

    def __call__(self, config_path: str, profile: str | None, /) -> dict[str, Any]: ...


SETTLER: Part[LoadsSettler] = Part("settler")
PUBLISH: Part[Publishes] = Part("publish")
