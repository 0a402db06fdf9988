"""The ``serial`` backend: a real port, a pseudo-terminal or ``loop://`` through pyserial."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import serial

from dealer_station.cards import DeckSpec
from dealer_station.hardware.backends import DeviceHandle, split_options
from dealer_station.hardware.driver import DRIVERS, Port
from dealer_station.hardware.errors import DeviceInitError
from dealer_station.hardware.events import DeviceEvent

#: How long one read waits for a first byte. Latency does not depend on it (a read returns as
#: soon as a byte arrives); it bounds how quickly close() and the heartbeat watchdog act.
READ_TIMEOUT = 0.05


def open_serial(role: str, *, url: str | None, device_id: str | None, baudrate: int,
                deck: DeckSpec | None, on_event: Callable[[DeviceEvent], None],
                **options: Any) -> DeviceHandle:
    driver_options, own = split_options(options, frozenset({"read_timeout"}), "serial")
    read_timeout = float(own.get("read_timeout", READ_TIMEOUT))
    if not url:
        raise DeviceInitError(f"the {role} on the serial backend needs a url (a port such as "
                              "/dev/ttyUSB0 or COM3, a pseudo-terminal path, or loop://)")
    try:
        # Checks the URL scheme and the settings now, without opening anything.
        serial.serial_for_url(url, baudrate=baudrate, do_not_open=True)
    except (ValueError, serial.SerialException) as exc:
        raise DeviceInitError(f"the {role}'s url {url!r} cannot be used: {exc}") from None

    def open_port() -> Port:
        port: Port = serial.serial_for_url(url, baudrate=baudrate, timeout=read_timeout)
        return port

    driver = DRIVERS[role](open_port, on_event=on_event, device_id=device_id, deck=deck,
                           where=url, **driver_options)
    driver.start()
    return DeviceHandle(driver, backend="serial", url=url)
