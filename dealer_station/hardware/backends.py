"""Devices chosen by name, python-can style.

``open_device(role, backend, ...)`` finds ``backend`` in ``BACKENDS`` (name -> "module:func"),
imports that module only now (so a station on simulated devices never imports pyserial), and
returns a started ``DeviceHandle``. Every backend runs the same ``DeviceDriver`` over a port;
only where the port comes from differs:

- ``serial``: ``serial.serial_for_url(url, baudrate=..., timeout=...)``, so ``/dev/ttyUSB0``,
  ``COM3``, a pseudo-terminal path and ``loop://`` all work;
- ``simulated``: an in-memory cable to a ``SimulatedDevice`` (``handle.simulator``).

To add a backend, add a module with ``open_<name>(role, *, url, device_id, baudrate, deck,
on_event, **options) -> DeviceHandle`` and one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dealer_station.cards import Card, DeckSpec
from dealer_station.hardware.errors import DeviceInitError, DeviceTimeout
from dealer_station.hardware.events import ConnectionState, DeviceEvent, DeviceIdentified
from dealer_station.hardware.protocol import valid_device_id

if TYPE_CHECKING:
    from dealer_station.hardware.driver import DeviceDriver
    from dealer_station.hardware.simulator import SimulatedDevice

BACKENDS: dict[str, str] = {
    "serial": "dealer_station.hardware.serial_backend:open_serial",
    "simulated": "dealer_station.hardware.sim_backend:open_simulated",
}
ROLES = ("shoe", "reader")
BAUD_RATES = (1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200)
#: Options every backend passes to the driver.
DRIVER_OPTIONS = frozenset({"heartbeat_timeout", "reconnect_interval", "query_on_connect",
                            "name", "resume_after"})


class DeviceHandle:
    """An open device: its driver (and simulator, when simulated). A context manager."""

    def __init__(self, driver: DeviceDriver, *, backend: str, url: str | None,
                 simulator: SimulatedDevice | None = None,
                 cleanup: tuple[Callable[[], None], ...] = ()) -> None:
        self.driver = driver
        self.backend = backend
        self.url = url
        self.simulator = simulator
        self._cleanup = cleanup
        self._closed = False

    @property
    def role(self) -> str:
        return self.driver.role

    @property
    def name(self) -> str:
        return self.driver.name

    @property
    def state(self) -> ConnectionState:
        return self.driver.state

    @property
    def identity(self) -> DeviceIdentified | None:
        return self.driver.identity

    def wait_connected(self, timeout: float = 5.0) -> None:
        """Wait until the port is open; raises DeviceTimeout saying why it is not."""
        if not self.driver.wait_state(ConnectionState.CONNECTED, timeout):
            raise DeviceTimeout(f"the {self.name} is not connected after {timeout:g} s "
                                f"({self.state.value}: {self.driver.state_detail or 'no detail'})")

    def start_round(self, deck: DeckSpec | None = None) -> None:
        self.driver.start_round(deck)

    def end_round(self) -> None:
        self.driver.end_round()

    def query(self) -> None:
        self.driver.send_query()

    def expect_after(self, seq: int, card: Card | str | None = None) -> bool:
        """Resume after the device's frame ``seq`` (carrying ``card``), already journaled:
        see ``DeviceDriver.expect_after``. Call it right after opening the device."""
        return self.driver.expect_after(seq, card)

    def close(self) -> None:
        """Close the port and join the reader thread (and stop the simulator). Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.driver.close()
        for step in self._cleanup:
            step()

    def __enter__(self) -> DeviceHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = f" {self.url}" if self.url else ""
        return f"<DeviceHandle {self.role} {self.backend}{where} {self.state.value}>"


def _load(backend: str) -> Callable[..., DeviceHandle]:
    try:
        target = BACKENDS[backend]
    except KeyError:
        raise DeviceInitError(f"unknown device backend {backend!r}: expected one of "
                              f"{', '.join(sorted(BACKENDS))}") from None
    module_name, _, func = target.partition(":")
    module = importlib.import_module(module_name)
    opener: Callable[..., DeviceHandle] = getattr(module, func)
    return opener


def open_device(
    role: str,
    backend: str = "serial",
    *,
    url: str | None = None,
    device_id: str | None = None,
    baudrate: int = 9600,
    deck: DeckSpec | None = None,
    on_event: Callable[[DeviceEvent], None],
    **options: Any,
) -> DeviceHandle:
    """Open and start one device; events go to ``on_event`` FROM THE READER THREAD.

    ``device_id`` None accepts any device (a monitor). ``deck`` is what ``start_round()``
    checks cards against (and what a simulated device deals). Raises DeviceInitError for an
    unknown role or backend, a bad baud rate or URL, or an unknown option. A port that is
    merely absent is not an error: the driver reports DISCONNECTED and keeps trying.
    """
    if role not in ROLES:
        raise DeviceInitError(f"unknown device role {role!r}: expected {' or '.join(ROLES)}")
    if isinstance(baudrate, bool) or baudrate not in BAUD_RATES:
        raise DeviceInitError(f"baud rate {baudrate!r} for the {role} is not one of "
                              f"{', '.join(map(str, BAUD_RATES))}")
    if device_id is not None and not valid_device_id(device_id):
        raise DeviceInitError(f"device id {device_id!r} for the {role} must be 1-16 letters, "
                              "digits, '-' or '_' (and not ANY)")
    if not callable(on_event):
        raise DeviceInitError("open_device needs an on_event callback")
    opener = _load(backend)
    return opener(role, url=url, device_id=device_id, baudrate=baudrate, deck=deck,
                  on_event=on_event, **options)


def split_options(options: dict[str, Any], allowed: frozenset[str], backend: str
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(driver options, backend options); refuses anything else by name."""
    unknown = sorted(set(options) - DRIVER_OPTIONS - allowed)
    if unknown:
        raise DeviceInitError(f"unknown option {unknown[0]!r} for the {backend} backend; "
                              f"allowed: {', '.join(sorted(DRIVER_OPTIONS | allowed))}")
    driver = {k: v for k, v in options.items() if k in DRIVER_OPTIONS}
    own = {k: v for k, v in options.items() if k in allowed}
    return driver, own
