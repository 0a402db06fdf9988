"""Shared pieces for the hardware tests: an event log to wait on, and one 'rig' per backend.

A rig is a device under test plus the driver listening to it; every rig offers the same
operations, so the contract suite is written once and run against each:

- ``simulated``: the ``simulated`` backend (in-memory cable);
- ``loop``: the ``serial`` backend on pyserial's ``loop://`` with a simulated device writing
  into the loop (no return path: the device never sees ACKs);
- ``pty``: the ``serial`` backend on a real pseudo-terminal, device in this process;
- ``emulator``: the ``serial`` backend on the pseudo-terminal of a real
  ``dealer-station emulate`` subprocess, driven through its stdin.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dealer_station.cards import LAPAIRE_DECK, Card
from dealer_station.hardware.backends import DeviceHandle, open_device
from dealer_station.hardware.events import (
    CardRead,
    ConnectionChanged,
    ConnectionState,
    DeviceEvent,
    DeviceFault,
    FaultKind,
    LinkProblem,
)
from dealer_station.hardware.links import PortWire
from dealer_station.hardware.ptyport import PtyWire
from dealer_station.hardware.simulator import SimulatedDevice, card_stream

ROOT = Path(__file__).resolve().parents[1]
ORDER: list[Card] = list(itertools.islice(card_stream(LAPAIRE_DECK, 7), 54))
HEARTBEAT = 0.1            # the rigs' devices beat fast so that a lost heartbeat shows fast
HEARTBEAT_TIMEOUT = 1.0
DRIVER_OPTIONS: dict[str, Any] = {"heartbeat_timeout": HEARTBEAT_TIMEOUT,
                                  "reconnect_interval": 0.05}


class EventLog:
    """Collects events from the reader thread; tests wait on it (never sleep)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.events: list[DeviceEvent] = []

    def __call__(self, event: DeviceEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def snapshot(self) -> list[DeviceEvent]:
        with self._cond:
            return list(self.events)

    def mark(self) -> int:
        with self._cond:
            return len(self.events)

    def wait_for(self, pred: Callable[[DeviceEvent], bool], timeout: float = 5.0,
                 start: int = 0) -> DeviceEvent:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events[start:]:
                    if pred(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    shown = "\n  ".join(e.describe() for e in self.events[start:][-40:])
                    raise AssertionError(f"no matching event within {timeout} s; saw:\n  {shown}")
                self._cond.wait(left)

    def wait_cards(self, n: int, timeout: float = 60.0, start: int = 0) -> list[CardRead]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                cards = [e for e in self.events[start:] if isinstance(e, CardRead)]
                if len(cards) >= n:
                    return cards
                left = deadline - time.monotonic()
                if left <= 0:
                    shown = "\n  ".join(e.describe() for e in self.events[start:][-40:])
                    raise AssertionError(f"{len(cards)} of {n} cards within {timeout} s; saw:"
                                         f"\n  {shown}")
                self._cond.wait(left)

    def cards(self, start: int = 0) -> list[CardRead]:
        return [e for e in self.snapshot()[start:] if isinstance(e, CardRead)]

    def faults(self, start: int = 0) -> list[DeviceFault]:
        return [e for e in self.snapshot()[start:] if isinstance(e, DeviceFault)]

    def problems(self, start: int = 0) -> list[LinkProblem]:
        return [e for e in self.snapshot()[start:] if isinstance(e, LinkProblem)]


def is_fault(kind: FaultKind) -> Callable[[DeviceEvent], bool]:
    return lambda e: isinstance(e, DeviceFault) and e.kind is kind


def is_state(state: ConnectionState) -> Callable[[DeviceEvent], bool]:
    return lambda e: isinstance(e, ConnectionChanged) and e.state is state


class Rig:
    """A device and the driver listening to it."""

    name = ""
    return_path = True
    can_disconnect = True

    def __init__(self, role: str) -> None:
        self.role = role
        self.events = EventLog()
        self.handle: DeviceHandle

    def deal(self) -> Card:
        raise NotImplementedError

    def send_card(self, code: str, position: int | None = None) -> None:
        raise NotImplementedError

    def inject(self, fault: str) -> None:
        raise NotImplementedError

    def set_status(self, state: str) -> None:
        raise NotImplementedError

    def set_silent(self, silent: bool) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def wait_ready(self) -> None:
        """Until the device has introduced itself (so later frames are in sequence)."""
        from dealer_station.hardware.events import DeviceIdentified

        self.events.wait_for(lambda e: isinstance(e, DeviceIdentified), 5.0)


class SimRig(Rig):
    """A SimulatedDevice in this process; subclasses choose the transport."""

    def __init__(self, role: str, **sim_options: Any) -> None:
        super().__init__(role)
        self.sim_options = {"cards": ORDER, "heartbeat": HEARTBEAT, "fault_seed": 1,
                            **sim_options}
        self.sim: SimulatedDevice

    def deal(self) -> Card:
        return self.sim.deal()

    def send_card(self, code: str, position: int | None = None) -> None:
        self.sim.send_card(code, position)

    def inject(self, fault: str) -> None:
        self.sim.inject(fault)

    def set_status(self, state: str) -> None:
        self.sim.set_status(state)

    def set_silent(self, silent: bool) -> None:
        self.sim.set_silent(silent)

    def close(self) -> None:
        self.handle.close()
        self.sim.close()


class SimulatedRig(SimRig):
    name = "simulated"

    def __init__(self, role: str, tmp_path: Path, **sim_options: Any) -> None:
        super().__init__(role, **sim_options)
        self.handle = open_device(role, "simulated", deck=LAPAIRE_DECK, on_event=self.events,
                                  **DRIVER_OPTIONS, **self.sim_options)
        assert self.handle.simulator is not None
        self.sim = self.handle.simulator


class LoopRig(SimRig):
    name = "loop"
    return_path = False
    can_disconnect = False

    def __init__(self, role: str, tmp_path: Path, **sim_options: Any) -> None:
        super().__init__(role, retries=0, **sim_options)
        self.handle = open_device(role, "serial", url="loop://", device_id=_default_id(role),
                                  deck=LAPAIRE_DECK, on_event=self.events, **DRIVER_OPTIONS)
        self.events.wait_for(is_state(ConnectionState.CONNECTED))
        self.sim = SimulatedDevice(role, **self.sim_options)
        self.sim.attach(PortWire(self.handle.driver.port))


class PtyRig(SimRig):
    name = "pty"

    def __init__(self, role: str, tmp_path: Path, **sim_options: Any) -> None:
        super().__init__(role, **sim_options)
        link = tmp_path / f"{role}-pty"
        self.sim = SimulatedDevice(role, replug=lambda: PtyWire(link), **self.sim_options)
        self.sim.attach(PtyWire(link))
        self.handle = open_device(role, "serial", url=str(link), device_id=self.sim.device_id,
                                  baudrate=115200, deck=LAPAIRE_DECK, on_event=self.events,
                                  **DRIVER_OPTIONS)


class EmulatorRig(Rig):
    """The real ``dealer-station emulate`` command in a subprocess, on a pseudo-terminal."""

    name = "emulator"

    def __init__(self, role: str, tmp_path: Path, first_seq: int = 0) -> None:
        super().__init__(role)
        self.order = deque(ORDER)
        link = tmp_path / f"{role}-emu"
        self.proc = start_emulator(
            role, "--cards", ",".join(c.code for c in ORDER), "--link", str(link),
            "--heartbeat", str(HEARTBEAT), "--first-seq", str(first_seq), "--fault-seed", "1")
        self.output = drain(self.proc)
        self.handle = open_device(role, "serial", url=str(link), device_id=_default_id(role),
                                  baudrate=115200, deck=LAPAIRE_DECK, on_event=self.events,
                                  **DRIVER_OPTIONS)

    def _type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def deal(self) -> Card:
        self._type("")
        return self.order.popleft()

    def send_card(self, code: str, position: int | None = None) -> None:
        self._type(f"card {code}" + (f" {position}" if position is not None else ""))

    def inject(self, fault: str) -> None:
        self._type(fault)

    def set_status(self, state: str) -> None:
        self._type(f"status {state}")

    def set_silent(self, silent: bool) -> None:
        self._type("silent" if silent else "wake")

    def close(self) -> None:
        self.handle.close()
        stop_emulator(self.proc)


RIGS: dict[str, type[Rig]] = {"simulated": SimulatedRig, "loop": LoopRig, "pty": PtyRig,
                              "emulator": EmulatorRig}


def _default_id(role: str) -> str:
    return "SHOE1" if role == "shoe" else "READER1"


#: Every emulator a test started: conftest kills what is still running when its file ends.
STARTED: list[subprocess.Popen[str]] = []


def kill_leftovers() -> None:
    """Kill the emulators a test left running (it failed before it stopped them)."""
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def start_emulator(role: str, *args: str) -> subprocess.Popen[str]:
    """Start ``dealer-station emulate`` and wait until it has printed its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "emulate", role, *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        cwd=ROOT, bufsize=1)
    STARTED.append(proc)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    if " on /dev/" not in first:
        proc.kill()
        rest = proc.stdout.read()
        raise AssertionError(f"the emulator did not start: {first}{rest}")
    proc.first_line = first  # type: ignore[attr-defined]
    return proc


class Output(list[str]):
    """What a process said, line by line, still growing; ``ended`` is set at its end."""

    def __init__(self) -> None:
        super().__init__()
        self.ended = threading.Event()


def drain(proc: subprocess.Popen[str]) -> Output:
    """Read the emulator's output on a thread so that its pipe never fills."""
    lines = Output()
    assert proc.stdout is not None
    out = proc.stdout

    def pump() -> None:
        for line in out:
            lines.append(line)
        lines.ended.set()

    threading.Thread(target=pump, daemon=True, name="emulator-output").start()
    return lines


def stop_emulator(proc: subprocess.Popen[str]) -> None:
    if proc.stdin is not None and not proc.stdin.closed:
        try:
            proc.stdin.write("q\n")
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
