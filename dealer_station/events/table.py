"""The record kinds every table writes alike: its life, its devices, its halts and config.

A game whose payload for one of these differs (La Pair'e's void carries the round's summary)
defines its own class of the same kind in its module; its codec takes that one.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.events.base import Event, JsonObject, optional, rest
from dealer_station.events.station import STATION


@dataclass(frozen=True, slots=True)
class StationStarted(Event):
    KIND = "startup"
    version: str
    game: str
    table: str


@dataclass(frozen=True, slots=True)
class StationStopped(Event):
    KIND = "shutdown"
    version: str


@dataclass(frozen=True, slots=True)
class ConfigChanged(Event):
    """A configuration version for the table; ``content`` is what it settles under (journals
    from before the content was chained hold it only in the config table)."""

    KIND = "config.change"
    version: str
    game: str
    reason: str
    changes: JsonObject
    content: JsonObject | None = optional()


@dataclass(frozen=True, slots=True)
class RoundHalted(Event):
    """The round or hand stops until a supervisor acts. ``detail`` holds what the device said
    (``card``, ``device_seq``) when a device's frame stopped it."""

    KIND = "halt"
    reason: str
    fault: str
    remedy: str
    detail: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class HaltResolved(Event):
    KIND = "resolve"
    action: str
    reason: str
    halt_seq: int | None


@dataclass(frozen=True, slots=True)
class CardHeld(Event):
    """A card read that was not dealt or played (the round stopped, no hand under way...)."""

    KIND = "card.held"
    card: str
    note: str
    device: str | None = optional()
    device_seq: int | None = optional()
    seat: int | None = optional()
    source: str | None = optional()


@dataclass(frozen=True, slots=True)
class TableRecovered(Event):
    """A station restarted with a round or hand under way; ``state`` says where it was."""

    KIND = "recovery"
    round_no: int
    differences: tuple[str, ...]
    state: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class DeviceFaulted(Event):
    KIND = "device.fault"
    device: str
    kind: str
    detail: str
    card: str | None
    device_seq: int | None = optional()


@dataclass(frozen=True, slots=True)
class DeviceStatusReported(Event):
    KIND = "device.status"
    device: str
    state: str
    device_seq: int | None = optional()


@dataclass(frozen=True, slots=True)
class DeviceConnected(Event):
    KIND = "device.connected"
    device: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True)
class DeviceLost(Event):
    KIND = "device.lost"
    device: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True)
class DeviceStateChanged(Event):
    KIND = "device.state"
    device: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True)
class DeviceIdentified(Event):
    KIND = "device.identified"
    device: str
    model: str
    firmware: str
    serial_no: str
    device_seq: int
    resumed_after: int | None = optional()


@dataclass(frozen=True, slots=True)
class ClockJumped(Event):
    KIND = "clock.jump"
    seconds: int
    milliseconds: int


COMMON: tuple[type[Event], ...] = (
    StationStarted, StationStopped, ConfigChanged, RoundHalted, HaltResolved, CardHeld,
    TableRecovered, DeviceFaulted, DeviceStatusReported, DeviceConnected, DeviceLost,
    DeviceStateChanged, DeviceIdentified, ClockJumped, *STATION,
)


def device_kinds() -> frozenset[str]:
    return frozenset(c.KIND for c in COMMON if c.KIND.startswith("device."))

