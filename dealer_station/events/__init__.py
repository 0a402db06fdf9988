"""Typed journal events (see base.py): the common kinds in table.py, each game's in its own
module, each game's codec named by its registry entry (``events`` part)."""

from dealer_station.events.base import (
    Codec,
    Committed,
    Event,
    EventError,
    Payout,
    Unregistered,
)

__all__ = ["Codec", "Committed", "Event", "EventError", "Payout", "Unregistered"]
