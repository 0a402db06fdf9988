"""The tournament's one exception: a person's request the rules refuse, with the reason."""

from __future__ import annotations

from dealer_station.errors import StationError


class TournamentError(StationError, ValueError):
    """An action the tournament refuses; the message names what, where, and what to do."""
