"""Byte links between a simulated device and the host driver.

A *wire* is the device's end of a link (``read(timeout)``, ``write``, ``wake``, ``close``). The
host end is always something the driver opens like a serial port, so the driver's code path
is the one it uses on a real ``/dev/ttyUSB0``:

- ``MemoryLink``: an in-memory cable (two byte pipes). Its host end, ``MemoryPort``, offers the
  part of pyserial's ``Serial`` API the driver uses (``read(size)`` honouring ``timeout``,
  ``in_waiting``, ``write``, ``cancel_read``, ``close``). Fast and portable: this is what the
  ``simulated`` backend uses, for unit tests, ``dealer-station simulate`` and the UI's demo.
- ``PortWire``: a device writing into a pyserial port object the driver also uses, for
  ``loop://``. A loop has no return path, so the device never sees ACKs; see
  ``has_return_path``.
- ``ptyport.FdWire``: the master side of a pseudo-terminal (the emulator).

Closing either end of a ``MemoryLink`` is a pulled cable: both ends then raise
``ConnectionAbortedError`` (an ``OSError``, like pyserial's ``SerialException``).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol


class Wire(Protocol):
    """The device's end of a link."""

    #: False when bytes the host writes never reach the device (``loop://``).
    has_return_path: bool

    def read(self, timeout: float) -> bytes:
        """Bytes from the host, or b"" after ``timeout`` s or ``wake()``; OSError if closed."""
        ...

    def write(self, data: bytes) -> None: ...

    def wake(self) -> None:
        """Make a blocked ``read`` return early (the device has something to send)."""
        ...

    def close(self) -> None: ...


class _Pipe:
    """One direction of a MemoryLink."""

    __slots__ = ("cond", "data", "woken")

    def __init__(self, lock: threading.Lock) -> None:
        self.cond = threading.Condition(lock)
        self.data = bytearray()
        self.woken = False


class MemoryLink:
    """An in-memory cable between a simulated device (``device``) and a driver (``host``)."""

    def __init__(self, name: str = "memory") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._to_host = _Pipe(self._lock)
        self._to_device = _Pipe(self._lock)
        self.closed = False
        self.host = MemoryPort(self)
        self.device = MemoryWire(self)

    def close(self) -> None:
        with self._lock:
            self.closed = True
            self._to_host.cond.notify_all()
            self._to_device.cond.notify_all()

    def _write(self, pipe: _Pipe, data: bytes) -> None:
        with self._lock:
            if self.closed:
                raise ConnectionAbortedError(f"{self.name}: the link is unplugged")
            pipe.data += data
            pipe.cond.notify_all()

    def _read(self, pipe: _Pipe, size: int, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not pipe.data and not self.closed and not pipe.woken:
                if deadline is None:
                    pipe.cond.wait()
                    continue
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                pipe.cond.wait(left)
            pipe.woken = False
            if pipe.data:
                out = bytes(pipe.data[:size])
                del pipe.data[:size]
                return out
            if self.closed:
                raise ConnectionAbortedError(f"{self.name}: the link is unplugged")
            return b""

    def _wake(self, pipe: _Pipe) -> None:
        with self._lock:
            pipe.woken = True
            pipe.cond.notify_all()

    def _waiting(self, pipe: _Pipe) -> int:
        with self._lock:
            if self.closed and not pipe.data:
                raise ConnectionAbortedError(f"{self.name}: the link is unplugged")
            return len(pipe.data)


class MemoryPort:
    """The host end of a MemoryLink, shaped like the subset of ``serial.Serial`` the driver uses."""

    def __init__(self, link: MemoryLink, timeout: float | None = 0.05) -> None:
        self._link = link
        self.timeout = timeout
        self.port = f"memory://{link.name}"
        self.baudrate = 0

    @property
    def is_open(self) -> bool:
        return not self._link.closed

    @property
    def in_waiting(self) -> int:
        return self._link._waiting(self._link._to_host)

    def read(self, size: int = 1) -> bytes:
        return self._link._read(self._link._to_host, size, self.timeout)

    def write(self, data: bytes) -> int:
        self._link._write(self._link._to_device, bytes(data))
        return len(data)

    def cancel_read(self) -> None:
        self._link._wake(self._link._to_host)

    def close(self) -> None:
        self._link.close()

    def __repr__(self) -> str:
        return f"MemoryPort({self.port!r}, open={self.is_open})"


class MemoryWire:
    """The device end of a MemoryLink."""

    has_return_path = True

    def __init__(self, link: MemoryLink) -> None:
        self._link = link

    def read(self, timeout: float) -> bytes:
        return self._link._read(self._link._to_device, 1 << 16, max(0.0, timeout))

    def write(self, data: bytes) -> None:
        self._link._write(self._link._to_host, data)

    def wake(self) -> None:
        self._link._wake(self._link._to_device)

    def close(self) -> None:
        self._link.close()


class PortWire:
    """A device writing into a pyserial port object (``loop://``): no return path.

    The driver reads this same port, so it hears the device; its ACKs loop back to itself
    (it ignores host messages) and never reach the device, which therefore must not wait for
    them: give the device ``retries=0``.
    """

    has_return_path = False

    def __init__(self, port: Any) -> None:
        self._port = port
        self._woken = threading.Event()
        self._closed = False

    def read(self, timeout: float) -> bytes:
        if self._closed:
            raise ConnectionAbortedError("the loop wire is closed")
        self._woken.wait(max(0.0, timeout))
        self._woken.clear()
        return b""

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionAbortedError("the loop wire is closed")
        self._port.write(data)

    def wake(self) -> None:
        self._woken.set()

    def close(self) -> None:
        self._closed = True
        self._woken.set()
