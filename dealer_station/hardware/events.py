"""Typed events the device drivers deliver: frozen dataclasses, no Qt, no game rules.

Every event names the ``device`` (its role: ``shoe`` or ``reader``) and carries ``at``, the
``time.monotonic()`` at which the driver produced it. What a consumer must do with each:

- ``CardRead``: a card, delivered exactly once and in order.
- ``DeviceFault``: something was or may have been lost or is impossible (a gap in the sequence,
  a misread, a lost port, a card that cannot be in this deck this round...). The table service
  must stop the round and ask a person; the driver never guesses.
- ``DeviceStatus``, ``DeviceIdentified``: what the device says about itself.
- ``ConnectionChanged``: every change of the link's state, with a reason a person can read.
- ``LinkProblem``: damaged bytes that the protocol recovered from (a NAK made the device
  re-send, a duplicate was dropped, noise was skipped). Nothing was lost; shown by monitors.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from dealer_station.cards import Card


class ConnectionState(StrEnum):
    CONNECTING = "connecting"      # opening the port for the first time
    CONNECTED = "connected"        # port open, device heard (or not yet expected)
    SILENT = "silent"              # port open but no good frame for the heartbeat timeout
    DISCONNECTED = "disconnected"  # port lost or cannot be opened; retrying by itself
    CLOSED = "closed"              # the driver was closed; no more events


class FaultKind(StrEnum):
    GAP = "gap"                          # frames missing from the sequence
    HEARTBEAT_LOST = "heartbeat_lost"    # nothing heard from the device for too long
    DISCONNECTED = "disconnected"        # the open port closed or failed
    MISREAD = "misread"                  # a card left the shoe but was not recognised
    IMPOSSIBLE_CARD = "impossible_card"  # a card that cannot be in this deck this round
    BAD_FRAME = "bad_frame"              # a frame with a correct CRC that makes no sense
    DEVICE_ERROR = "device_error"        # the device reported an ERROR other than MISREAD
    RESTARTED = "restarted"              # the device restarted (HELLO out of sequence)
    WRONG_DEVICE = "wrong_device"        # frames from a device id other than the one configured
    REPEAT_MISMATCH = "repeat_mismatch"  # a seq already accepted, re-sent with another card


#: Faults that are the whole outcome of the device frame ``fault.seq`` (the frame is not
#: delivered otherwise): a consumer that journals which frames it has taken counts these.
#: The others (a gap, a restart...) are found on a frame that is then delivered as usual.
FRAME_FAULTS = frozenset({FaultKind.MISREAD, FaultKind.IMPOSSIBLE_CARD, FaultKind.BAD_FRAME,
                          FaultKind.DEVICE_ERROR, FaultKind.REPEAT_MISMATCH})


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceEvent:
    device: str
    device_id: str | None
    at: float

    def describe(self) -> str:
        """One line for a monitor or a log."""
        return type(self).__name__


@dataclass(frozen=True, slots=True, kw_only=True)
class CardRead(DeviceEvent):
    seq: int
    card: Card
    position: int | None = None

    def describe(self) -> str:
        where = f" at position {self.position}" if self.position is not None else ""
        return f"card {self.card.code}{where} (seq {self.seq})"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceStatus(DeviceEvent):
    seq: int
    state: str

    def describe(self) -> str:
        return f"status {self.state} (seq {self.seq})"


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceIdentified(DeviceEvent):
    seq: int
    model: str
    firmware: str
    serial_no: str
    #: Set on the first identification after ``expect_after(seq)``: where the host resumed.
    resumed_after: int | None = None

    def describe(self) -> str:
        resumed = (f"; resumed after seq {self.resumed_after}"
                   if self.resumed_after is not None else "")
        return (f"identified: model {self.model}, firmware {self.firmware}, "
                f"serial {self.serial_no} (seq {self.seq}{resumed})")


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceFault(DeviceEvent):
    kind: FaultKind
    detail: str
    seq: int | None = None
    card: Card | None = None

    def describe(self) -> str:
        return f"FAULT {self.kind.value}: {self.detail}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConnectionChanged(DeviceEvent):
    state: ConnectionState
    detail: str

    def describe(self) -> str:
        return f"{self.state.value}: {self.detail}"


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkProblem(DeviceEvent):
    """Recovered trouble on the line. ``kind`` is a protocol.Problem value or ``duplicate``."""

    kind: str
    detail: str
    seq: int | None = None
    action: str = "ignored"   # "nak" (asked for a re-send), "ack" (duplicate re-acknowledged)

    def describe(self) -> str:
        seq = f" seq {self.seq}" if self.seq is not None else ""
        return f"line: {self.kind}{seq}, {self.action}: {self.detail}"
