"""The ``[devices.shoe]`` / ``[devices.reader]`` tables of a station's config.

```toml
[devices.shoe]
backend = "serial"            # or "simulated"
url = "/dev/dealer-shoe"      # a port, a pseudo-terminal path, or a pyserial URL (loop://)
baudrate = 9600
device_id = "SHOE1"

[devices.reader]
backend = "simulated"
seed = 42                     # simulated only: seed, cards, faults, interval
faults = "drop=0.01"
```

Validated with tomlconfig, so a mistake names the file, the key and the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dealer_station.cards import CardError, DeckSpec, parse_card
from dealer_station.hardware import protocol
from dealer_station.hardware.backends import BACKENDS, BAUD_RATES, ROLES, DeviceHandle, open_device
from dealer_station.hardware.errors import DeviceInitError
from dealer_station.hardware.events import DeviceEvent
from dealer_station.hardware.simulator import FaultRates
from dealer_station.tomlconfig import ConfigError, Section

SIMULATED_ONLY = ("seed", "cards", "faults", "interval")


@dataclass(frozen=True)
class DeviceConfig:
    role: str
    backend: str
    url: str | None
    baudrate: int = 9600
    device_id: str = ""
    heartbeat_timeout: float = 3.0
    options: dict[str, Any] = field(default_factory=dict)


def parse_device_config(section: Section, role: str) -> DeviceConfig:
    """One ``[devices.<role>]`` table; calls ``section.finish()`` (unknown keys refused)."""
    backend = section.str("backend", choices=tuple(sorted(BACKENDS)))
    url = section.str("url", "") or None
    if backend == "serial" and url is None:
        raise section.error("url", "is required for the serial backend (e.g. /dev/ttyUSB0, "
                                   "COM3, a pseudo-terminal path, or loop://)")
    baudrate = section.int("baudrate", 9600)
    if baudrate not in BAUD_RATES:
        raise section.error("baudrate", f"must be one of {', '.join(map(str, BAUD_RATES))}, "
                                        f"got {baudrate}")
    device_id = section.str("device_id", "SHOE1" if role == "shoe" else "READER1")
    try:
        protocol.encode(device_id, 0, protocol.HB)
    except ValueError:
        raise section.error("device_id", f"{device_id!r} must be 1-16 letters, digits, '-' or "
                                         "'_'") from None
    hb = section.raw("heartbeat_timeout", 3.0)
    if isinstance(hb, bool) or not isinstance(hb, int | float) or hb <= 0:
        raise section.error("heartbeat_timeout", f"must be a number of seconds above 0, got "
                                                 f"{hb!r}")
    options: dict[str, Any] = {}
    for key in SIMULATED_ONLY:
        if section.has(key) and backend != "simulated":
            raise section.error(key, "is only for backend = \"simulated\"")
    if section.has("seed"):
        options["seed"] = section.int("seed")
    if section.has("cards"):
        codes = section.list("cards")
        try:
            options["cards"] = [parse_card(c) for c in codes]
        except CardError as exc:
            raise section.error("cards", str(exc)) from None
    if section.has("faults"):
        try:
            options["faults"] = FaultRates.parse(section.str("faults"))
        except DeviceInitError as exc:
            raise section.error("faults", str(exc)) from None
    if section.has("interval"):
        interval = section.raw("interval")
        if isinstance(interval, bool) or not isinstance(interval, int | float) or interval < 0:
            raise section.error("interval", f"must be seconds (0 or more), got {interval!r}")
        options["interval"] = float(interval)
    section.finish()
    return DeviceConfig(role, backend, url, baudrate, device_id, float(hb), options)


def parse_devices(section: Section) -> dict[str, DeviceConfig]:
    """``shoe`` and/or ``reader`` from the ``devices`` table of ``section`` (the file's root)."""
    found: dict[str, DeviceConfig] = {}
    for role, sub in section.sections("devices"):
        if role not in ROLES:
            raise ConfigError(sub.file, sub.path,
                              f"unknown device {role!r}: expected {' or '.join(ROLES)}")
        found[role] = parse_device_config(sub, role)
    return found


def open_configured(cfg: DeviceConfig, *, deck: DeckSpec | None,
                    on_event: Callable[[DeviceEvent], None],
                    resume_after: tuple[int, str | None] | None = None) -> DeviceHandle:
    """Open the device a DeviceConfig describes (events arrive on the reader thread).

    ``resume_after``: the device's last frame already journaled (see
    ``DeviceDriver.expect_after``), known before the port opens."""
    extra = {"resume_after": resume_after} if resume_after is not None else {}
    return open_device(cfg.role, cfg.backend, url=cfg.url, device_id=cfg.device_id,
                       baudrate=cfg.baudrate, deck=deck, on_event=on_event,
                       heartbeat_timeout=cfg.heartbeat_timeout, **cfg.options, **extra)
