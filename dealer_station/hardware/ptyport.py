"""A pseudo-terminal that a host opens exactly like a serial port (POSIX only).

``PtyWire`` holds the master side and is a device ``Wire`` (see links.py); the slave side's
path (``/dev/pts/N``) is what a station's config or ``serial.serial_for_url`` opens. An optional
``link`` is a symlink kept pointing at the current slave, the way udev gives a real shoe a
stable ``/dev/dealer-shoe``: after a simulated disconnect the emulator opens a new
pseudo-terminal and moves the link, and the driver reconnects through it.

The slave is put in raw mode at once (no echo, no line editing), and the emulator keeps its
own slave descriptor open, so that the master never reads EIO while no host has the port
open and so that nothing the device writes is echoed back to it. Writes are non-blocking:
when nobody reads and the buffer fills, bytes are lost, as on a real line with nobody
listening.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import termios
import threading
import tty
from pathlib import Path


class PtyWire:
    """The device (master) end of one pseudo-terminal."""

    has_return_path = True

    def __init__(self, link: str | Path | None = None, *, baudrate: int | None = None) -> None:
        self.link = Path(link) if link is not None else None
        if self.link is not None and self.link.exists() and not self.link.is_symlink():
            raise FileExistsError(f"{self.link} exists and is not a symlink: choose another "
                                  "link path (it would be replaced)")
        master, slave = os.openpty()
        tty.setraw(slave)
        if baudrate is not None:
            _set_speed(slave, baudrate)
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.path = os.ttyname(slave)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._lock = threading.Lock()
        self._closed = False
        if self.link is not None:
            _point_link(self.link, self.path)

    @property
    def url(self) -> str:
        """What a host should open: the link if there is one, else the slave path."""
        return str(self.link) if self.link is not None else self.path

    def read(self, timeout: float) -> bytes:
        if self._closed:
            raise ConnectionAbortedError(f"{self.path} is closed")
        ready, _, _ = select.select([self.master, self._wake_r], [], [], max(0.0, timeout))
        if self._wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 512)
        if self.master in ready:
            try:
                return os.read(self.master, 4096)
            except BlockingIOError:
                return b""
        return b""

    def write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionAbortedError(f"{self.path} is closed")
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except BlockingIOError:
                return  # nobody is reading and the buffer is full: the rest is lost
            except OSError as exc:
                if exc.errno == errno.EIO:
                    return
                raise
            view = view[n:]

    def wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"!")

    def close(self) -> None:
        """Hang up: a host with the port open reads EIO, as when a cable is pulled."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self.link is not None:
            with contextlib.suppress(OSError):
                if os.readlink(self.link) == self.path:
                    self.link.unlink()
        for fd in (self.master, self.slave, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> PtyWire:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _set_speed(fd: int, baudrate: int) -> None:
    """Record the speed on the terminal (cosmetic: a pseudo-terminal carries bytes at once)."""
    speed = getattr(termios, f"B{baudrate}", None)
    if speed is None:
        return
    attrs = termios.tcgetattr(fd)
    attrs[4] = attrs[5] = speed
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def _point_link(link: Path, target: str) -> None:
    """Point ``link`` at ``target`` atomically (a host never sees it missing or half-made)."""
    tmp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    os.symlink(target, tmp)
    os.replace(tmp, link)
