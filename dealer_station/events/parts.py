"""The game's parts that say its records (registry.py's ``events`` and ``wager_labels``): below
the tables, the floor and the reports alike, so each of them may ask for them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from dealer_station.events.base import Codec
from dealer_station.registry import Part


class Codecs(Protocol):
    """The game's codec: its own kinds over the common ones."""

    def __call__(self) -> Codec: ...


class WagerLabels(Protocol):
    """The game's wager kinds (the ``bet`` of its records, the kinds of its meters) in the
    felt's order, each with its name on the felt."""

    def __call__(self) -> Mapping[str, str]: ...


EVENTS: Part[Codecs] = Part("events")
WAGER_LABELS: Part[WagerLabels] = Part("wager_labels", optional=True)
