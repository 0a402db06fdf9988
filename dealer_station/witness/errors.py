"""The witness's errors: a person reads them, so each names what and where."""

from __future__ import annotations

from dealer_station.errors import StationError


class WitnessError(StationError):
    """Bad input to the witness or its client (a key file, a folder, an address, an answer)."""


class MalformedRequest(WitnessError):
    """An ``add-checkpoint`` body that is not of the protocol's form (400)."""
