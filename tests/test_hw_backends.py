"""Backends chosen by name, their refusals, the devices config, and the simulator's API."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hw_support import EventLog

from dealer_station.cards import BOURRE_DECK, LAPAIRE_DECK, parse_cards
from dealer_station.hardware.backends import BACKENDS, open_device
from dealer_station.hardware.config import open_configured, parse_devices
from dealer_station.hardware.errors import (
    DeviceError,
    DeviceInitError,
    DeviceOperationError,
    DeviceTimeout,
)
from dealer_station.hardware.events import DeviceStatus
from dealer_station.hardware.simulator import FaultRates, SimulatedDevice, card_stream
from dealer_station.tomlconfig import ConfigError, Section

pytestmark = pytest.mark.timeout(30)


def noop(event: object) -> None:
    pass


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"role": "dealer", "backend": "simulated"}, "unknown device role 'dealer'"),
    ({"role": "shoe", "backend": "usb"}, "unknown device backend 'usb': expected one of "
                                         "serial, simulated"),
    ({"role": "shoe", "backend": "serial"}, "needs a url"),
    ({"role": "shoe", "backend": "serial", "url": "bogus://x"}, "'bogus://x' cannot be used"),
    ({"role": "shoe", "backend": "serial", "url": "loop://", "baudrate": 9601},
     "baud rate 9601 for the shoe is not one of"),
    ({"role": "shoe", "backend": "serial", "url": "loop://", "seed": 1},
     "unknown option 'seed' for the serial backend"),
    ({"role": "shoe", "backend": "simulated", "faults": "rain=0.1"}, "unknown fault 'rain'"),
])
def test_open_device_refusals_name_the_problem(kwargs: dict[str, object], match: str) -> None:
    role = kwargs.pop("role")
    backend = kwargs.pop("backend")
    with pytest.raises(DeviceInitError, match=match) as info:
        open_device(role, backend, on_event=noop, **kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, DeviceError)


def test_backends_are_imported_only_when_chosen() -> None:
    code = (
        "import sys\n"
        "from dealer_station.hardware.backends import open_device\n"
        "assert 'serial' not in sys.modules\n"
        "h = open_device('shoe', 'simulated', on_event=lambda e: None)\n"
        "h.close()\n"
        "print('serial' in sys.modules, 'dealer_station.hardware.serial_backend' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=30)
    assert out.stdout.split() == ["False", "False"]
    assert set(BACKENDS) == {"serial", "simulated"}


def test_handle_is_a_context_manager_and_exposes_the_simulator() -> None:
    log = EventLog()
    with open_device("reader", "simulated", deck=BOURRE_DECK, on_event=log, seed=3) as h:
        assert h.simulator is not None and h.backend == "simulated"
        card = h.simulator.deal(position=2)
        got = log.wait_cards(1)[0]
        assert (got.card, got.position, got.device) == (card, 2, "reader")
        assert "simulated" in repr(h)
    assert not h.driver.running


def _devices(text: str, tmp_path: Path) -> Section:
    import tomllib

    return Section(tomllib.loads(text), str(tmp_path / "station.toml"))


def test_devices_config_is_parsed(tmp_path: Path) -> None:
    cfg = parse_devices(_devices(
        """
        [devices.shoe]
        backend = "serial"
        url = "/dev/dealer-shoe"
        baudrate = 9600
        device_id = "SHOE1"

        [devices.reader]
        backend = "simulated"
        seed = 4
        cards = ["AS", "KH"]
        faults = "drop=0.01,noise"
        interval = 0.5
        heartbeat_timeout = 2
        """, tmp_path))
    shoe, reader = cfg["shoe"], cfg["reader"]
    assert (shoe.backend, shoe.url, shoe.baudrate, shoe.device_id) == (
        "serial", "/dev/dealer-shoe", 9600, "SHOE1")
    assert reader.device_id == "READER1" and reader.heartbeat_timeout == 2.0
    assert reader.options["cards"] == parse_cards(["AS", "KH"])
    assert reader.options["faults"] == FaultRates(drop=0.01, noise=0.02)
    log = EventLog()
    with open_configured(reader, deck=BOURRE_DECK, on_event=log) as h:
        assert h.simulator is not None
        h.simulator.deal()
        assert log.wait_cards(1)[0].card.code == "AS"


@pytest.mark.parametrize(("text", "where"), [
    ('[devices.shoe]\nbackend = "serial"\n', "devices.shoe.url: is required"),
    ('[devices.shoe]\nbackend = "usb"\n', "devices.shoe.backend: must be one of"),
    ('[devices.shoe]\nbackend = "serial"\nurl = "loop://"\nbaudrate = 9601\n',
     "devices.shoe.baudrate: must be one of"),
    ('[devices.shoe]\nbackend = "serial"\nurl = "loop://"\nseed = 3\n',
     'devices.shoe.seed: is only for backend = "simulated"'),
    ('[devices.shoe]\nbackend = "simulated"\nspeed = 3\n', "devices.shoe.speed: unknown key"),
    ('[devices.shoe]\nbackend = "simulated"\ndevice_id = "SHOE,1"\n', "devices.shoe.device_id"),
    ('[devices.shoe]\nbackend = "simulated"\ncards = ["AS", "ZZ"]\n',
     "devices.shoe.cards: unknown card code 'ZZ'"),
    ('[devices.shoe]\nbackend = "simulated"\nheartbeat_timeout = 0\n',
     "devices.shoe.heartbeat_timeout: must be a number of seconds above 0"),
    ('[devices.printer]\nbackend = "simulated"\n', "devices.printer: unknown device 'printer'"),
])
def test_devices_config_errors_name_file_key_and_reason(text: str, where: str,
                                                        tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        parse_devices(_devices(text, tmp_path))
    assert str(info.value).startswith(str(tmp_path / "station.toml"))
    assert where in str(info.value)


def test_fault_rates_parse() -> None:
    assert FaultRates.parse("") == FaultRates()
    assert FaultRates.parse(" noise=0.01, drop=0.5 ,misread") == FaultRates(
        noise=0.01, drop=0.5, misread=0.02)
    with pytest.raises(DeviceInitError, match=r"'drop=x' .* is not a number"):
        FaultRates.parse("drop=x")
    with pytest.raises(DeviceInitError, match="from 0 to 1"):
        FaultRates.parse("drop=2")


def test_simulator_order_and_shoes() -> None:
    sim = SimulatedDevice("shoe", deck=LAPAIRE_DECK, seed=9)
    first = sim.peek(54)
    assert sorted(c.code for c in first) == sorted(c.code for c in LAPAIRE_DECK.cards())
    stream = card_stream(LAPAIRE_DECK, 9)
    assert first == [next(stream) for _ in range(54)]
    assert [sim.deal() for _ in range(3)] == first[:3]
    sim.set_order(["AS", "JK"])
    assert [sim.deal().code, sim.deal().code] == ["AS", "JK"]
    with pytest.raises(DeviceOperationError, match="empty: call new_shoe"):
        sim.deal()
    sim.new_shoe(seed=9)
    assert sim.peek(54) == first and sim.remaining == 54
    with pytest.raises(DeviceOperationError, match="unknown status"):
        sim.set_status("ASLEEP")
    with pytest.raises(DeviceOperationError, match="unknown fault"):
        sim.inject("rain")
    sim.close()


def test_empty_shoe_reports_status_and_auto_new_shoe_continues() -> None:
    log = EventLog()
    with open_device("shoe", "simulated", deck=BOURRE_DECK, on_event=log, cards=["AS"]) as h:
        sim = h.simulator
        assert sim is not None
        sim.deal()
        log.wait_for(lambda e: isinstance(e, DeviceStatus) and e.state == "EMPTY")
        sim.new_shoe(seed=1)
        log.wait_for(lambda e: isinstance(e, DeviceStatus) and e.state == "READY")
        assert sim.wait_idle(2.0)
    auto = SimulatedDevice("shoe", deck=BOURRE_DECK, seed=5, auto_new_shoe=True)
    stream = card_stream(BOURRE_DECK, 5)
    assert [auto.deal() for _ in range(120)] == [next(stream) for _ in range(120)]
    auto.close()


def test_wait_connected(tmp_path: Path) -> None:
    with open_device("shoe", "simulated", on_event=noop) as sim:
        sim.wait_connected(5.0)
    missing = tmp_path / "no-such-port"
    with open_device("shoe", "serial", url=str(missing), on_event=noop,
                     reconnect_interval=0.05) as h, pytest.raises(DeviceTimeout) as info:
        h.wait_connected(0.3)
    assert "not connected after 0.3 s (disconnected: cannot open" in str(info.value)
    assert str(missing) in str(info.value)
