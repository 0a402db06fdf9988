"""The table keeps device events on its own worker: a driver's reader thread hands each event
over and goes back to the line at once; the worker commits, and only then is the device's
frame acknowledged (``defer_ack``). A frame the database would not take is not acknowledged,
the device sends it again, and it is taken exactly once.

Devices are real pseudo-terminals (a hand-written device, or the simulated device on a
``PtyWire``), opened with the ``serial`` backend as a real shoe is; journals are real SQLite
files. Nothing here sleeps to wait for the station: tests wait on events, on the device's
replies, or on the worker.
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hw_support import EventLog
from sqlalchemy import event
from test_hw_ack_after_commit import no_reply
from test_hw_driver import RawDevice

from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.hardware import protocol as p
from dealer_station.hardware.acks import defer_ack
from dealer_station.hardware.backends import open_device
from dealer_station.hardware.events import (
    CardRead,
    ConnectionState,
    DeviceEvent,
    DeviceStatus,
    FaultKind,
    LinkProblem,
)
from dealer_station.hardware.ptyport import PtyWire
from dealer_station.hardware.simulator import FaultRates, SimulatedDevice, card_stream

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "shoe"


@pytest.fixture
def device(link: Path) -> Iterator[RawDevice]:
    dev = RawDevice(link)
    yield dev
    dev.close()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    yield database
    database.close()


@pytest.fixture
def journal(db: Database, tmp_path: Path) -> Journal:
    return Journal(db, create_key(tmp_path / "journal.key"))


class Handover:
    """The driver's ``on_event``: passes each event to the table, on the reader thread, and
    notes it once ``on_device_event`` has returned (so a test sees that it returned)."""

    def __init__(self, table: LaPaireTable) -> None:
        self.table = table
        self.log = EventLog()

    def __call__(self, event: DeviceEvent) -> None:
        self.table.on_device_event(event)
        self.log(event)


def _table(journal: Journal) -> LaPaireTable:
    table = LaPaireTable(journal, "T1", load_lapaire_config(), dealer="ann/dealer")
    table.startup()
    return table


def _cards(journal: Journal) -> list[tuple[int, str]]:
    return [(r.payload["device_seq"], r.payload["card"])
            for r in journal.records("T1", kinds=["card"])]


def _kinds(journal: Journal, *kinds: str) -> list[Any]:
    return [(r.kind, r.payload) for r in journal.records("T1", kinds=list(kinds))]


def _bad_crc(seq: int, kind: str, *fields: str) -> bytes:
    data = p.encode("SHOE1", seq, kind, *fields)
    return data[:-6] + b"%04X" % (int(data[-6:-2], 16) ^ 0x5A5A) + b"\r\n"


def test_the_reader_hands_over_and_the_ack_waits_for_the_commit(
        device: RawDevice, link: Path, journal: Journal) -> None:
    table = _table(journal)
    handover = Handover(table)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=handover, heartbeat_timeout=1.0)
    table.attach("shoe", handle)
    try:
        assert isinstance(device.reply(), p.Query)
        device.frame(1, p.CARD, "QH")
        ack = device.reply()
        assert isinstance(ack, p.Ack) and ack.acked == 1
        assert _cards(journal) == [(1, "QH")]       # journaled before the ACK was written

        with table.lock:                            # a slow commit: the worker waits here
            device.frame(2, p.CARD, "KD")
            handover.log.wait_cards(2)              # handed over: on_device_event returned
            # The reader thread still answers the line while KD waits for its commit:
            device.frame(1, p.CARD, "QH")           # a repeat of the last accepted frame
            again = device.reply()
            assert isinstance(again, p.Ack) and again.acked == 1
            device.send(_bad_crc(2, p.CARD, "KD"))  # damage: asked again at once
            nak = device.reply()
            assert isinstance(nak, p.Nak) and nak.nakked == 2
            # KD re-sent every 200 ms for longer than the 1 s heartbeat timeout: held (its
            # ACK is owed to the commit), and the device is heard all along.
            for _ in range(6):
                device.frame(2, p.CARD, "KD")
                no_reply(device, 0.2)
            assert _cards(journal) == [(1, "QH")]
            assert handle.driver.last_accepted == 1
            assert handle.state is ConnectionState.CONNECTED
        ack = device.reply()                        # the commit, then the ACK
        assert isinstance(ack, p.Ack) and ack.acked == 2
        assert _cards(journal) == [(1, "QH"), (2, "KD")]
        device.frame(3, p.HB)
        assert device.reply().acked == 3  # type: ignore[attr-defined]
    finally:
        table.shutdown()
    assert [c.card.code for c in handover.log.cards()] == ["QH", "KD"]   # held ones not taken
    held = [e for e in handover.log.problems() if e.kind == "held"]
    assert len(held) == 6 and all(e.seq == 2 and e.action == "wait" for e in held)
    assert _kinds(journal, "device.fault", "halt", "card.held") == []


def _short_busy_timeout(db: Database) -> None:
    """The journal gives up on a locked database after 0.2 s instead of 10 s (keeps the test
    short; the refusal itself is SQLite's own)."""
    @event.listens_for(db.engine, "connect")
    def _short(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.execute("PRAGMA busy_timeout = 200")

    db.engine.dispose()     # connections made from now on get it


def test_a_commit_the_database_refuses_is_not_acked_and_is_taken_once_when_resent(
        link: Path, tmp_path: Path, db: Database, journal: Journal) -> None:
    _short_busy_timeout(db)
    table = _table(journal)
    sim = SimulatedDevice("shoe", cards=["QH", "2D", "9S"], heartbeat=None)
    wire = PtyWire(link)
    sim.attach(wire)
    handover = Handover(table)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=handover)
    table.attach("shoe", handle)
    try:
        handover.log.wait_for(lambda e: isinstance(e, DeviceStatus))
        assert table.worker.drain(10)
        # A round is open, so the driver checks each card against it: the refused QH must
        # not stay counted there, or its re-send would be "a card seen twice".
        table.place_many([Wager(1, "straight", ("Q",), 100)])
        blocker = sqlite3.connect(tmp_path / "j.db", isolation_level=None, timeout=0)
        blocker.execute("BEGIN IMMEDIATE")          # another writer holds the database
        try:
            sim.deal()
            # Refused, not acknowledged, sent again by the device and handed over again.
            cards = handover.log.wait_cards(2, timeout=20)
            assert {(c.seq, c.card.code) for c in cards} == {(cards[0].seq, "QH")}
            assert not sim.wait_idle(0)
            assert _cards(journal) == []
            assert handle.driver.last_accepted != cards[0].seq
        finally:
            blocker.rollback()
            blocker.close()
        assert sim.wait_idle(10)                    # taken at last, then acknowledged
        sim.deal()
        sim.deal()
        assert sim.wait_idle(10)
    finally:
        table.shutdown()
        sim.close()
        wire.close()
    taken = _cards(journal)
    assert [c for _, c in taken] == ["QH", "2D", "9S"]
    assert [s for s, _ in taken] == sorted({s for s, _ in taken})
    assert _kinds(journal, "device.fault", "halt", "card.held") == []
    assert sim.stats.cards_confirmed == 3
    (result,) = journal.verify("T1")
    assert result.ok, str(result)


def test_order_is_kept_over_many_cards(link: Path, journal: Journal) -> None:
    # 150 cards in rounds of three (a shoe is 18 rounds, so no round straddles two shoes);
    # duplicates, lost ACKs and noise on the line along the way.
    order = [c.code for c in itertools.islice(card_stream(LAPAIRE_DECK, 5), 150)]
    table = _table(journal)
    sim = SimulatedDevice("shoe", cards=order, heartbeat=0.2, fault_seed=3,
                          faults=FaultRates(duplicate=0.05, ackdrop=0.03, noise=0.03))
    wire = PtyWire(link)
    sim.attach(wire)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=table.on_device_event)
    table.attach("shoe", handle)
    try:
        for _ in order:
            sim.deal()
        assert sim.wait_idle(90)
    finally:
        table.shutdown()
        sim.close()
        wire.close()
    taken = _cards(journal)
    assert [c for _, c in taken] == order
    seqs = [s for s, _ in taken]
    assert seqs == sorted(set(seqs))                # each frame once, in the device's order
    assert _kinds(journal, "device.fault", "halt", "card.held") == []
    assert len(list(journal.records("T1", kinds=["round.close"]))) == 50
    assert sim.stats.cards_confirmed == 150


def test_an_ack_owed_when_the_link_drops_is_not_sent_on_the_next_link(
        device: RawDevice, link: Path, journal: Journal) -> None:
    """The commit finishes after the cable was pulled and plugged back: no ACK goes to the
    new link for a frame of the old one; the device's re-send is a repeat, ACKed then."""
    table = _table(journal)
    handover = Handover(table)
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1",
                         on_event=handover, reconnect_interval=0.05)
    table.attach("shoe", handle)
    again: RawDevice | None = None
    try:
        assert isinstance(device.reply(), p.Query)
        with table.lock:
            device.frame(5, p.CARD, "QH")
            handover.log.wait_cards(1)
            device.close()                          # cable pulled, the ACK of 5 still owed
            handover.log.wait_for(lambda e: getattr(e, "kind", None) is FaultKind.DISCONNECTED)
            again = RawDevice(link)                 # plugged back
            assert isinstance(again.reply(), p.Query)
        assert table.worker.drain(10)               # QH committed after the link changed
        assert _cards(journal) == [(5, "QH")]
        assert handle.driver.last_accepted == 5
        no_reply(again, 0.3)                        # nothing for the old link's frame
        again.frame(5, p.CARD, "QH")                # the device finishes its frame in flight
        assert again.reply().acked == 5  # type: ignore[attr-defined]
        again.frame(6, p.HB)
        assert again.reply().acked == 6  # type: ignore[attr-defined]
    finally:
        table.shutdown()
        if again is not None:
            again.close()
    assert _cards(journal) == [(5, "QH")]
    dups = [e for e in handover.log.problems() if e.kind == "duplicate"]
    assert [d.seq for d in dups] == [5]


def test_a_handle_taken_by_a_consumer_that_then_raises_does_not_hold_the_frame(
        device: RawDevice, link: Path) -> None:
    """The driver side alone: an event kept on another thread, and a consumer that takes a
    handle and then fails, which must count as not kept (or every later frame is held)."""
    answers: list[Any] = []
    log = EventLog()
    fail = {"QH"}

    def consumer(event: DeviceEvent) -> None:
        ack = defer_ack()
        log(event)
        if isinstance(event, CardRead) and event.card.code in fail:
            fail.discard(event.card.code)
            raise RuntimeError("consumer bug after taking the handle")
        if ack is not None:
            answers.append(ack)
            threading.Thread(target=ack.done).start()     # kept elsewhere, later

    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=consumer):
        assert isinstance(device.reply(), p.Query)
        device.frame(1, p.CARD, "QH")
        no_reply(device, 0.3)                        # not kept: not acknowledged
        device.frame(1, p.CARD, "QH")                # re-sent, taken now, ACKed from the thread
        assert device.reply().acked == 1  # type: ignore[attr-defined]
        device.frame(2, p.CARD, "KS")
        assert device.reply().acked == 2  # type: ignore[attr-defined]
        answers[0].done(False)                       # a second answer is ignored
    assert [c.card.code for c in log.cards()] == ["QH", "QH", "KS"]
    assert [a.seq for a in answers] == [1, 2]
    assert not any(isinstance(e, LinkProblem) and e.kind == "held" for e in log.snapshot())
