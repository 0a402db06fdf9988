"""The answer a consumer owes for a device frame: a frame is ACKed only once every event it
produced is kept (see ``defer_ack`` and the guarantees in ``driver.py``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dealer_station.hardware.driver import DeviceDriver, Port

#: The frame whose events the reader thread is delivering now (see ``defer_ack``).
delivery = threading.local()


class AckHandle:
    """The answer a consumer owes for one device frame (see ``defer_ack``)."""

    __slots__ = ("_answered", "_ticket")

    def __init__(self, ticket: Ticket) -> None:
        self._ticket = ticket
        self._answered = False      # guarded by the ticket's lock

    @property
    def seq(self) -> int:
        """The device's seq of the frame this handle answers."""
        return self._ticket.seq

    def done(self, ok: bool = True) -> None:
        """``ok``: the event is kept (committed); the frame may be ACKed. False: nothing was
        kept; the frame is not ACKed and the device sends it again. Any thread; once."""
        self._ticket.answer(self, ok)


def defer_ack() -> AckHandle | None:
    """Called inside ``on_event``: take over answering the frame behind the event being
    delivered. The driver ACKs the frame only once ``done(True)`` was called on every handle
    taken for its events. None when no frame waits on the event, or when not called from a
    driver's ``on_event``."""
    ticket: Ticket | None = getattr(delivery, "ticket", None)
    if ticket is None:
        return None
    handle = ticket.defer()
    delivery.taken.append(handle)
    return handle


class Ticket:
    """One device frame given to the consumer: answered once every event it produced is kept.

    The reader thread creates it, delivers the frame's events and seals it; the frame is
    settled (ACKed, or put back) by whichever thread brings the last outcome in."""

    def __init__(self, driver: DeviceDriver, port: Port, link: int, device_id: str, seq: int,
                 key: tuple[str, ...], *, accept: bool) -> None:
        self.driver = driver
        self.port = port
        self.link = link                 # the connection it arrived on (see DeviceDriver._ack)
        self.device_id = device_id
        self.seq = seq
        self.key = key
        self.accept = accept             # kept: becomes the last accepted frame
        #: What to put back if the frame is not kept (run before re-sends are taken).
        self.undo: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._owed = 0
        self._refused = False
        self._sealed = False
        self._settled = False

    @property
    def kept(self) -> bool:
        return not self._refused

    def defer(self) -> AckHandle:
        with self._lock:
            self._owed += 1
        return AckHandle(self)

    def refuse(self) -> None:
        with self._lock:
            self._refused = True

    def answer(self, handle: AckHandle, ok: bool) -> None:
        with self._lock:
            if handle._answered:
                return
            handle._answered = True
            self._owed -= 1
            self._refused = self._refused or not ok
            ready = self._ready_locked()
        if ready:
            self.driver._settle(self)

    def seal(self) -> bool:
        """Every event is delivered. True if the outcome is in: the caller settles now."""
        with self._lock:
            self._sealed = True
            return self._ready_locked()

    def _ready_locked(self) -> bool:
        if self._sealed and self._owed == 0 and not self._settled:
            self._settled = True
            return True
        return False


__all__ = ["AckHandle", "Ticket", "defer_ack", "delivery"]
