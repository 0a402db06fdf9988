"""Acknowledged only once kept: the driver ACKs a frame after its consumer has committed it,
a device keeps unacknowledged frames and sends them again after the host's QUERY, a re-sent
seq is matched against what was taken (the journal, after a restart), and a device is
identified once per connection.

Devices here are real pseudo-terminals (a hand-written device, or the simulated device on a
``PtyWire``), and the tables write a real SQLite journal.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hw_support import EventLog, drain, is_fault, start_emulator, stop_emulator
from test_hw_driver import RawDevice
from waiting import wait_until

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.hardware import protocol as p
from dealer_station.hardware.backends import open_device
from dealer_station.hardware.events import CardRead, DeviceEvent, DeviceIdentified, FaultKind
from dealer_station.hardware.ptyport import PtyWire
from dealer_station.hardware.simulator import SimulatedDevice

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "shoe"


@pytest.fixture
def device(link: Path) -> Iterator[RawDevice]:
    dev = RawDevice(link)
    yield dev
    dev.close()


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    yield Journal(db, create_key(tmp_path / "journal.key"))
    db.close()


def no_reply(device: RawDevice, wait: float) -> None:
    """Assert the host writes nothing for ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for item in device.deframer.feed(device.wire.read(0.05)):
            raise AssertionError(f"the host wrote {item} too early")


def test_ack_is_sent_only_after_the_callback_returned(device: RawDevice, link: Path) -> None:
    release = threading.Event()
    entered = threading.Event()
    log = EventLog()

    def slow_commit(event: DeviceEvent) -> None:
        if isinstance(event, CardRead):
            entered.set()
            assert release.wait(10)   # the table's journal commit, taking its time
        log(event)

    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=slow_commit):
        assert isinstance(device.reply(), p.Query)
        device.frame(1, p.CARD, "QH")
        assert entered.wait(5)
        no_reply(device, 0.4)            # the card is not committed yet: no ACK
        release.set()
        ack = device.reply()
        assert isinstance(ack, p.Ack) and ack.acked == 1
        assert [c.card.code for c in log.cards()] == ["QH"]


def test_a_repeated_seq_with_another_card_is_a_fault(device: RawDevice, link: Path) -> None:
    log = EventLog()
    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=log):
        device.reply()
        device.frame(4, p.CARD, "QH")
        assert device.reply().acked == 4  # type: ignore[attr-defined]
        device.frame(4, p.CARD, "2C")       # same seq, another card
        assert device.reply().acked == 4  # type: ignore[attr-defined]  # no resend forever
        fault = log.wait_for(is_fault(FaultKind.REPEAT_MISMATCH))
        assert fault.card is not None and fault.card.code == "2C"  # type: ignore[attr-defined]
        assert "QH" in fault.detail and "2C" in fault.detail  # type: ignore[attr-defined]
        device.frame(4, p.CARD, "QH")       # a true repeat is still just a repeat
        device.reply()
        device.frame(5, p.CARD, "3C")
        device.reply()
        log.wait_cards(2)
    assert [c.card.code for c in log.cards()] == ["QH", "3C"]
    assert [f.kind for f in log.faults()] == [FaultKind.REPEAT_MISMATCH]


def test_expect_after_drops_the_journaled_frame_and_takes_the_next(
        device: RawDevice, link: Path) -> None:
    log = EventLog()
    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=log) as h:
        assert h.expect_after(41, "QH")
        device.reply()
        device.frame(41, p.CARD, "QH")       # committed before the host restarted
        assert device.reply().acked == 41  # type: ignore[attr-defined]
        device.frame(45, p.HELLO, "DS-400", "2.1", "SN9")   # 42-44 were heartbeats: no gap
        assert device.reply().acked == 45  # type: ignore[attr-defined]
        device.frame(46, p.CARD, "KS")
        device.reply()
        assert [c.card.code for c in log.wait_cards(1)] == ["KS"]
        ident = log.wait_for(lambda e: isinstance(e, DeviceIdentified))
        assert ident.resumed_after == 41  # type: ignore[attr-defined]
        device.frame(48, p.CARD, "KD")       # and after that, gaps are gaps again
        device.reply()
        log.wait_for(is_fault(FaultKind.GAP))
    assert not h.expect_after(3)             # the live driver knows better than a journal


def test_expect_after_with_another_card_is_a_fault(device: RawDevice, link: Path) -> None:
    log = EventLog()
    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=log) as h:
        h.expect_after(41, "QH")
        device.reply()
        device.frame(41, p.CARD, "JK")
        assert device.reply().acked == 41  # type: ignore[attr-defined]
        log.wait_for(is_fault(FaultKind.REPEAT_MISMATCH))
    assert log.cards() == []


def test_device_keeps_its_unacknowledged_card_and_resends_it_after_query(link: Path) -> None:
    """Host 1 never commits the card (it 'crashes'); the device keeps it through every re-send
    and, when host 2 opens the port and QUERYs, sends it again at once with the same seq."""
    sim = SimulatedDevice("shoe", cards=["QH", "2D"], heartbeat=None, hold_interval=30.0)
    wire = PtyWire(link)
    sim.attach(wire)
    crashed = EventLog()

    def never_commits(event: DeviceEvent) -> None:
        crashed(event)
        if isinstance(event, CardRead):
            raise RuntimeError("the station died before its commit")

    try:
        first = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                            on_event=never_commits)
        first.wait_connected()
        crashed.wait_for(lambda e: isinstance(e, DeviceIdentified))
        sim.deal()
        # 6 transmissions, none acknowledged
        wait_until(lambda: sim.stats.held > 0, "the device to hold the card")
        seqs = {c.seq for c in crashed.cards()}
        assert len(seqs) == 1 and len(crashed.cards()) == 6
        last = first.driver.last_accepted
        first.close()
        assert last is not None

        second_log = EventLog()
        second = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                             on_event=second_log)
        try:
            second.expect_after(last)        # the HELLO/STATUS before were taken, the card not
            started = time.monotonic()
            card = second_log.wait_cards(1, timeout=5)[0]
            assert time.monotonic() - started < 15  # after QUERY, not at the 30 s hold pace
            assert (card.card.code, card.seq) == ("QH", seqs.pop())
            assert sim.wait_idle(5)
            sim.deal()
            assert [c.card.code for c in second_log.wait_cards(2)] == ["QH", "2D"]
            assert second_log.faults() == []
            assert sim.wait_idle(5)          # the ACK of 2D reached the device
        finally:
            second.close()
        assert sim.stats.cards_confirmed == 2
    finally:
        sim.close()
        wire.close()


def _table_rig(journal: Journal, link: Path) -> tuple[LaPaireTable, list[str]]:
    table = LaPaireTable(journal, "T1", load_lapaire_config(), dealer="ann/dealer")
    seen: list[str] = []
    table.subscribe(lambda u: seen.extend(c.kind for c in u.events))
    table.startup()
    return table, seen


def _cards(journal: Journal) -> list[tuple[int, str]]:
    return [(r.payload["device_seq"], r.payload["card"])
            for r in journal.records("T1", kinds=["card"])]


def test_table_resumes_from_the_journal_after_a_restart(
        device: RawDevice, link: Path, journal: Journal) -> None:
    table, _ = _table_rig(journal, link)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=table.on_device_event)
    table.attach("shoe", handle)
    device.reply()
    device.frame(10, p.CARD, "QH")
    assert device.reply().acked == 10  # type: ignore[attr-defined]
    device.frame(11, p.CARD, "5C")
    # The station 'crashes' here, after committing 5C but before its ACK is read: the
    # device never sees an ACK for 11 and keeps the frame.
    assert device.reply().acked == 11  # type: ignore[attr-defined]
    table.shutdown()
    assert _cards(journal) == [(10, "QH"), (11, "5C")]

    table, _ = _table_rig(journal, link)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=table.on_device_event)
    table.attach("shoe", handle)
    assert handle.driver.last_accepted == 11
    device.reply()
    device.frame(11, p.CARD, "5C")           # re-sent after QUERY, same seq
    assert device.reply().acked == 11  # type: ignore[attr-defined]
    device.frame(14, p.CARD, "9S")           # 12-13 were heartbeats the old host ACKed
    assert device.reply().acked == 14  # type: ignore[attr-defined]
    table.shutdown()
    assert _cards(journal) == [(10, "QH"), (11, "5C"), (14, "9S")]
    assert list(journal.records("T1", kinds=["halt", "device.fault"])) == []
    (result,) = journal.verify("T1")
    assert result.ok, str(result)


def test_table_halts_on_a_journaled_seq_resent_with_another_card(
        device: RawDevice, link: Path, journal: Journal) -> None:
    table, _ = _table_rig(journal, link)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=table.on_device_event)
    table.attach("shoe", handle)
    device.reply()
    device.frame(10, p.CARD, "QH")
    device.reply()
    table.shutdown()

    table, seen = _table_rig(journal, link)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=table.on_device_event)
    table.attach("shoe", handle)
    device.reply()
    device.frame(10, p.CARD, "KD")           # seq 10 was QH
    assert device.reply().acked == 10  # type: ignore[attr-defined]
    assert table.halt is not None and table.halt.fault == "repeat_mismatch"
    table.shutdown()
    assert _cards(journal) == [(10, "QH")]
    assert "halt" in seen


def test_device_identified_is_journaled_once_per_connection(journal: Journal) -> None:
    table, _ = _table_rig(journal, Path())
    handle = open_device("shoe", "simulated", device_id="SHOE1",
                         on_event=table.on_device_event)
    table.attach("shoe", handle)
    handle.wait_connected()
    wait_until(lambda: bool(list(journal.records("T1", kinds=["device.status"]))),
               "the shoe's status in the journal")
    # A later frame (a heartbeat) proves that a second HELLO, had one come, was dealt with.
    taken = handle.driver.frames_taken
    wait_until(lambda: handle.driver.frames_taken > taken, "another frame from the shoe")
    table.shutdown()
    idents = list(journal.records("T1", kinds=["device.identified"]))
    assert len(idents) == 1
    assert idents[0].payload["device_seq"] == 0


def test_device_identified_once_through_the_emulator(tmp_path: Path, journal: Journal) -> None:
    """The emulator's power-up HELLO and its answer to the host's QUERY: one identification."""
    link = tmp_path / "emu-shoe"
    proc = start_emulator("shoe", "--link", str(link), "--seed", "3")
    drain(proc)
    try:
        table, _ = _table_rig(journal, tmp_path)
        handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                             on_event=table.on_device_event)
        table.attach("shoe", handle)
        wait_until(lambda: bool(list(journal.records("T1", kinds=["device.status"]))),
                   "the shoe's status in the journal")
        taken = handle.driver.frames_taken
        wait_until(lambda: handle.driver.frames_taken > taken, "another frame from the shoe")
        table.shutdown()
    finally:
        stop_emulator(proc)
    assert len(list(journal.records("T1", kinds=["device.identified"]))) == 1


def test_a_frame_resent_before_the_table_attached_is_not_taken_twice(
        device: RawDevice, link: Path, journal: Journal) -> None:
    """The device answers the new station's QUERY at once with the frame it kept. The station
    knows that frame was journaled before the port opens (``resume_after``), not only once
    attach() has read the journal: otherwise, on a slow machine, the frame is taken a second
    time and the round halts on a card dealt twice (seen in CI after a kill -9)."""
    from dealer_station.app import open_station
    from dealer_station.hardware.config import DeviceConfig

    cfg = DeviceConfig("shoe", "serial", str(link), 9600, "SHOE1")
    station = open_station(journal, devices={"shoe": cfg}, on_duty="dealer/dealer")
    device.reply()
    device.frame(10, p.CARD, "QH")
    assert device.reply().acked == 10  # type: ignore[attr-defined]
    device.frame(11, p.CARD, "5C")
    assert device.reply().acked == 11  # type: ignore[attr-defined]
    station.close()
    assert _cards(journal) == [(10, "QH"), (11, "5C")]

    station = open_station(journal, devices={"shoe": cfg}, on_duty="dealer/dealer")
    assert isinstance(device.reply(), p.Query)
    device.frame(11, p.CARD, "5C")    # the kept frame, sent the moment the QUERY arrives
    assert device.reply().acked == 11  # type: ignore[attr-defined]
    assert station.devices["shoe"].driver.last_accepted == 11
    device.frame(12, p.CARD, "9S")
    assert device.reply().acked == 12  # type: ignore[attr-defined]
    station.close()
    assert _cards(journal) == [(10, "QH"), (11, "5C"), (12, "9S")]
    assert list(journal.records("T1", kinds=["halt", "device.fault", "card.held"])) == []


def test_resume_after_is_known_before_the_first_frame_is_read(
        device: RawDevice, link: Path) -> None:
    """The driver option: a frame waiting on the line when the driver starts is dropped."""
    log = EventLog()
    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=log,
                     resume_after=(41, "QH")) as h:
        assert isinstance(device.reply(), p.Query)
        device.frame(41, p.CARD, "QH")
        assert device.reply().acked == 41  # type: ignore[attr-defined]
        device.frame(42, p.CARD, "KS")
        device.reply()
        assert [c.card.code for c in log.wait_cards(1)] == ["KS"]
        assert not h.expect_after(3)
