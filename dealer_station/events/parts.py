"""The game's part that gives its record kinds as typed events (games.py's ``events``)."""

from __future__ import annotations

from typing import Protocol

from dealer_station.events.base import Codec
from dealer_station.games import Part


class Codecs(Protocol):
    """The game's codec: its own kinds over the common ones."""

    def __call__(self) -> Codec: ...


EVENTS: Part[Codecs] = Part("events")
