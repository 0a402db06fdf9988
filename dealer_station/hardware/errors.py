"""One exception tree for the hardware layer (python-can style).

``DeviceError`` is a ``StationError``, so the CLI prints its message instead of a traceback.
Faults that happen while a device is running (a gap, a misread, a lost port) are not
exceptions: they arrive as ``DeviceFault`` events, because they happen on the reader thread
and the table service must see them in order with the cards.
"""

from __future__ import annotations

from dealer_station.errors import StationError


class DeviceError(StationError):
    """Something about a card shoe or card reader that a person must fix."""


class DeviceInitError(DeviceError):
    """A device cannot be set up: unknown backend or role, bad URL, bad baud rate."""


class DeviceOperationError(DeviceError):
    """An operation on a device cannot be done now (port not open, shoe empty, closed)."""


class DeviceTimeout(DeviceError):
    """A device did not answer or finish within the time allowed."""
