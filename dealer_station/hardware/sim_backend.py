"""The ``simulated`` backend: the real driver over an in-memory cable to a SimulatedDevice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dealer_station.cards import LAPAIRE_DECK, DeckSpec
from dealer_station.hardware.backends import DeviceHandle, split_options
from dealer_station.hardware.driver import DRIVERS
from dealer_station.hardware.events import DeviceEvent
from dealer_station.hardware.simulator import FaultRates, SimulatedDevice

SIM_OPTIONS = frozenset({
    "seed", "cards", "faults", "interval", "count", "auto_new_shoe", "heartbeat",
    "ack_timeout", "retries", "first_seq", "down_time", "hold_interval", "fault_seed", "model",
    "firmware", "serial_no",
})


def open_simulated(role: str, *, url: str | None, device_id: str | None, baudrate: int,
                   deck: DeckSpec | None, on_event: Callable[[DeviceEvent], None],
                   **options: Any) -> DeviceHandle:
    """``url`` and ``baudrate`` are accepted and unused (a config can switch backend alone)."""
    driver_options, sim_options = split_options(options, SIM_OPTIONS, "simulated")
    faults = sim_options.get("faults")
    if isinstance(faults, str):
        sim_options["faults"] = FaultRates.parse(faults)
    sim = SimulatedDevice(role, device_id=device_id, deck=deck or LAPAIRE_DECK, **sim_options)
    driver = DRIVERS[role](sim.connect, on_event=on_event, device_id=sim.device_id, deck=deck,
                           where=f"the simulated {role} {sim.device_id}", **driver_options)
    driver.start()
    return DeviceHandle(driver, backend="simulated", url=None, simulator=sim,
                        cleanup=(sim.close,))
