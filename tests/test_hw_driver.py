"""The host driver's obligations, checked byte by byte: the test plays the device on the master
side of a real pseudo-terminal, writes exact frames and reads the driver's exact replies."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hw_support import ROOT, EventLog, is_fault, is_state

from dealer_station.cards import BOURRE_DECK
from dealer_station.hardware import protocol as p
from dealer_station.hardware.backends import DeviceHandle, open_device
from dealer_station.hardware.errors import DeviceOperationError
from dealer_station.hardware.events import (
    CardRead,
    ConnectionChanged,
    ConnectionState,
    DeviceEvent,
    FaultKind,
    LinkProblem,
)
from dealer_station.hardware.ptyport import PtyWire

pytestmark = pytest.mark.timeout(30)


class RawDevice:
    """The test's hand-written device on a pseudo-terminal's master side."""

    def __init__(self, link: Path) -> None:
        self.wire = PtyWire(link)
        self.deframer = p.Deframer()
        self.replies: list[p.Frame] = []

    def send(self, raw: bytes) -> None:
        self.wire.write(raw)

    def frame(self, seq: int, kind: str, *fields: str, dev: str = "SHOE1") -> None:
        self.send(p.encode(dev, seq, kind, *fields))

    def reply(self, timeout: float = 3.0) -> p.Frame:
        """The next frame the host wrote."""
        deadline = time.monotonic() + timeout
        while not self.replies:
            left = deadline - time.monotonic()
            assert left > 0, "the host did not reply"
            for item in self.deframer.feed(self.wire.read(min(left, 0.1))):
                assert isinstance(item, p.Frame), f"the host wrote a damaged frame: {item}"
                self.replies.append(item)
        return self.replies.pop(0)

    def close(self) -> None:
        self.wire.close()


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "shoe"


@pytest.fixture
def device(link: Path) -> Iterator[RawDevice]:
    dev = RawDevice(link)
    yield dev
    dev.close()


@pytest.fixture
def log() -> EventLog:
    return EventLog()


@pytest.fixture
def handle(device: RawDevice, link: Path, log: EventLog) -> Iterator[DeviceHandle]:
    h = open_device("shoe", "serial", url=str(link), device_id="SHOE1", deck=BOURRE_DECK,
                    on_event=log, heartbeat_timeout=5.0, reconnect_interval=0.05)
    query = device.reply()
    assert isinstance(query, p.Query) and query.device_id == "SHOE1"
    yield h
    h.close()


def test_every_accepted_frame_is_acked(device: RawDevice, handle: DeviceHandle,
                                       log: EventLog) -> None:
    device.frame(40, p.HELLO, "DS-400", "2.1", "SN9")
    assert device.reply() == p.Ack("SHOE1", 1, 40)
    device.frame(41, p.CARD, "QH")
    ack = device.reply()
    assert isinstance(ack, p.Ack) and ack.acked == 41 and ack.device_id == "SHOE1"
    card = log.wait_cards(1)[0]
    assert (card.card.code, card.seq, card.position) == ("QH", 41, None)
    device.frame(42, p.HB)
    assert isinstance(device.reply(), p.Ack)


def test_duplicate_is_acked_again_and_dropped(device: RawDevice, handle: DeviceHandle,
                                              log: EventLog) -> None:
    device.frame(7, p.CARD, "AS")
    assert device.reply().acked == 7  # type: ignore[attr-defined]
    device.frame(7, p.CARD, "AS")
    again = device.reply()
    assert isinstance(again, p.Ack) and again.acked == 7
    device.frame(8, p.CARD, "2S")
    device.reply()
    device.frame(9, p.CARD, "3S")
    device.reply()
    cards = log.wait_cards(3)
    assert [c.card.code for c in cards] == ["AS", "2S", "3S"]
    dups = [e for e in log.problems() if e.kind == "duplicate"]
    assert [(d.seq, d.action) for d in dups] == [(7, "ack")]
    assert log.faults() == []


def test_sequence_going_back_is_a_fault_not_a_silent_repeat(
        device: RawDevice, handle: DeviceHandle, log: EventLog) -> None:
    # A device that reset its counter must not have its new frames dropped as repeats.
    device.frame(5, p.CARD, "AS")
    device.reply()
    device.frame(0, p.CARD, "KS")
    assert device.reply().acked == 0  # type: ignore[attr-defined]
    fault = log.wait_for(is_fault(FaultKind.GAP))
    assert "went back from 5 to 0" in fault.detail  # type: ignore[attr-defined]
    device.frame(1, p.CARD, "QS")
    device.reply()
    assert [c.card.code for c in log.wait_cards(3)] == ["AS", "KS", "QS"]
    events = log.snapshot()
    assert events.index(fault) < events.index(log.cards()[1])


def test_bad_crc_is_naked_then_the_resend_accepted(device: RawDevice, handle: DeviceHandle,
                                                    log: EventLog) -> None:
    good = p.encode("SHOE1", 12, p.CARD, "KD")
    device.send(good[:-6] + b"0000\r\n")
    nak = device.reply()
    assert isinstance(nak, p.Nak) and nak.nakked == 12
    device.send(good)
    assert device.reply().acked == 12  # type: ignore[attr-defined]
    assert [c.card.code for c in log.wait_cards(1)] == ["KD"]
    problem = log.wait_for(lambda e: isinstance(e, LinkProblem) and e.kind == "bad_crc")
    assert problem.action == "nak"  # type: ignore[attr-defined]


def test_damage_without_a_readable_seq_is_not_answered(device: RawDevice, handle: DeviceHandle,
                                                        log: EventLog) -> None:
    device.send(b"$SH\xffOE1,1,CARD,QH*0000\r\n")     # unreadable header: nothing to NAK
    device.send(b"\x00\x01 line noise")
    device.frame(2, p.HB)
    assert device.reply() == p.Ack("SHOE1", 1, 2)       # the first reply is for the good frame
    problems = log.problems()
    assert problems[0].kind == "non_ascii" and problems[0].action == "ignored"
    assert {e.kind for e in problems[1:]} == {"noise"}    # noise may arrive in pieces


def test_gap_is_a_fault_and_the_card_still_arrives(device: RawDevice, handle: DeviceHandle,
                                                    log: EventLog) -> None:
    device.frame(5, p.HB)
    device.reply()
    device.frame(8, p.CARD, "5C")
    device.reply()
    gap = log.wait_for(is_fault(FaultKind.GAP))
    assert "2 frame(s) missing between seq 5 and 8" in gap.detail  # type: ignore[attr-defined]
    assert [c.card.code for c in log.wait_cards(1)] == ["5C"]


def test_hello_out_of_sequence_is_a_restart(device: RawDevice, handle: DeviceHandle,
                                             log: EventLog) -> None:
    device.frame(300, p.HB)
    device.reply()
    device.frame(0, p.HELLO, "DS-400", "2.1", "SN9")
    device.reply()
    fault = log.wait_for(is_fault(FaultKind.RESTARTED))
    assert "from 300 to 0" in fault.detail  # type: ignore[attr-defined]
    device.frame(1, p.CARD, "7H")
    device.reply()
    log.wait_cards(1)
    assert [f.kind for f in log.faults()] == [FaultKind.RESTARTED]


def test_frame_that_makes_no_sense_is_taken_and_reported(device: RawDevice, handle: DeviceHandle,
                                                          log: EventLog) -> None:
    device.frame(20, p.HB)
    device.reply()
    device.send(p.wrap(b"SHOE1,21,CARD,ZZ"))
    assert device.reply().acked == 21  # type: ignore[attr-defined]
    fault = log.wait_for(is_fault(FaultKind.BAD_FRAME))
    assert "unknown card code" in fault.detail  # type: ignore[attr-defined]
    device.frame(22, p.CARD, "8H")
    device.reply()
    log.wait_cards(1)
    assert [f.kind for f in log.faults()] == [FaultKind.BAD_FRAME]   # and no gap after it


def test_device_errors_are_faults(device: RawDevice, handle: DeviceHandle, log: EventLog) -> None:
    device.frame(1, p.ERROR, "MISREAD", "sensor 2")
    device.reply()
    device.frame(2, p.ERROR, "JAM", "card stuck at the gate")
    device.reply()
    log.wait_for(is_fault(FaultKind.DEVICE_ERROR))
    faults = log.faults()
    assert [f.kind for f in faults] == [FaultKind.MISREAD, FaultKind.DEVICE_ERROR]
    assert "sensor 2" in faults[0].detail and "JAM: card stuck" in faults[1].detail


def test_wrong_device_is_reported_once_and_not_acked(device: RawDevice, handle: DeviceHandle,
                                                      log: EventLog) -> None:
    device.frame(1, p.CARD, "QH", dev="READER1")
    device.frame(2, p.CARD, "KH", dev="READER1")
    device.frame(3, p.HB)
    assert device.reply() == p.Ack("SHOE1", 1, 3)
    faults = log.faults()
    assert [f.kind for f in faults] == [FaultKind.WRONG_DEVICE]
    assert "'READER1'" in faults[0].detail and "'SHOE1'" in faults[0].detail
    assert log.cards() == []


def test_impossible_card_for_bourre_deck(device: RawDevice, handle: DeviceHandle,
                                         log: EventLog) -> None:
    handle.start_round()                    # the deck given at open: Bourré, no jokers
    device.frame(1, p.CARD, "JK")
    assert device.reply().acked == 1  # type: ignore[attr-defined]   # taken, then refused
    fault = log.wait_for(is_fault(FaultKind.IMPOSSIBLE_CARD))
    assert "has no jokers" in fault.detail  # type: ignore[attr-defined]
    handle.end_round()                      # between rounds nothing is checked
    device.frame(2, p.CARD, "JK")
    device.reply()
    assert [c.card.code for c in log.wait_cards(1)] == ["JK"]


def test_a_failing_event_handler_does_not_stop_the_driver(device: RawDevice, link: Path) -> None:
    # A handler that raises has not kept the card: the frame is not acknowledged (the device
    # sends it again), and the driver carries on with the next one.
    seen: list[DeviceEvent] = []
    fail = {"QH"}

    def handler(event: DeviceEvent) -> None:
        seen.append(event)
        if isinstance(event, CardRead) and event.card.code in fail:
            fail.discard(event.card.code)
            raise RuntimeError("consumer bug")

    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=handler):
        device.reply()
        device.frame(1, p.CARD, "QH")
        device.frame(1, p.CARD, "QH")          # re-sent: the first was not acknowledged
        assert device.reply().acked == 1  # type: ignore[attr-defined]
        device.frame(2, p.CARD, "QS")
        assert device.reply().acked == 2  # type: ignore[attr-defined]
    assert [e.card.code for e in seen if isinstance(e, CardRead)] == ["QH", "QH", "QS"]


def test_port_that_appears_later_is_opened(link: Path, log: EventLog) -> None:
    with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=log,
                     reconnect_interval=0.05) as h:
        waiting = log.wait_for(is_state(ConnectionState.DISCONNECTED))
        assert "cannot open" in waiting.detail and "retrying" in waiting.detail  # type: ignore
        dev = RawDevice(link)
        try:
            assert isinstance(dev.reply(), p.Query)
            log.wait_for(is_state(ConnectionState.CONNECTED))
            dev.frame(1, p.CARD, "4D")
            dev.reply()
            assert [c.card.code for c in log.wait_cards(1)] == ["4D"]
            assert h.state is ConnectionState.CONNECTED
            assert log.faults() == []   # never having had the port is a state, not a lost port
        finally:
            dev.close()


def test_reconnect_keeps_the_sequence_so_a_resend_is_still_a_duplicate(
        device: RawDevice, link: Path, handle: DeviceHandle, log: EventLog) -> None:
    device.frame(5, p.CARD, "QH")
    device.reply()
    device.close()                                      # cable pulled
    log.wait_for(is_fault(FaultKind.DISCONNECTED))
    again = RawDevice(link)
    try:
        assert isinstance(again.reply(), p.Query)
        again.frame(5, p.CARD, "QH")                   # its ACK was lost: the device re-sends
        assert again.reply().acked == 5  # type: ignore[attr-defined]
        again.frame(6, p.CARD, "KH")
        again.reply()
        cards = log.wait_cards(2)
        assert [c.card.code for c in cards] == ["QH", "KH"]
        states = [e.state for e in log.snapshot() if isinstance(e, ConnectionChanged)]
        assert states == [ConnectionState.CONNECTING, ConnectionState.CONNECTED,
                          ConnectionState.DISCONNECTED, ConnectionState.CONNECTED]
    finally:
        again.close()


def test_defaults_and_refusals(link: Path, log: EventLog) -> None:
    h = open_device("reader", "serial", url=str(link), on_event=log)
    try:
        assert h.driver.heartbeat_timeout == 3.0     # the protocol's 3 s
        assert h.role == "reader"
        with pytest.raises(DeviceOperationError, match="needs a deck"):
            h.start_round()
        with pytest.raises(DeviceOperationError, match="not connected"):
            h.query()
    finally:
        h.close()
    assert not any(t.name == "reader-driver" for t in threading.enumerate())


# ------------------------------------------------------------ the documented protocol

DOC = ROOT / "docs" / "protocol.md"


def _transcript() -> list[tuple[str, bytes]]:
    block = DOC.read_text().split("<!-- transcript:begin -->")[1].split(
        "<!-- transcript:end -->")[0]
    rows = []
    for line in block.splitlines():
        m = re.match(r"\s*[\d.]+\s+(host|device)\s+(\$.*?\\r\\n)", line)
        if m:
            rows.append((m.group(1), m.group(2).replace("\\r\\n", "\r\n").encode("ascii")))
    return rows


def test_the_documented_session_is_what_the_driver_does(link: Path, log: EventLog) -> None:
    rows = _transcript()
    assert len(rows) == 19
    dev = PtyWire(link)
    pending = b""
    try:
        with open_device("shoe", "serial", url=str(link), device_id="SHOE1", on_event=log):
            for who, raw in rows:
                if who == "device":
                    dev.write(raw)
                    continue
                deadline = time.monotonic() + 3
                while b"\n" not in pending:
                    assert time.monotonic() < deadline, f"no host line; expected {raw!r}"
                    pending += dev.read(0.1)
                line, _, pending = pending.partition(b"\n")
                assert line + b"\n" == raw                      # byte for byte
            log.wait_for(is_fault(FaultKind.MISREAD))
    finally:
        dev.close()
    assert [c.card.code for c in log.cards()] == ["QH", "10D", "JK"]
    assert [f.kind for f in log.faults()] == [FaultKind.MISREAD]
    assert [e.kind for e in log.problems()] == ["bad_crc", "duplicate"]


def test_every_example_frame_in_the_protocol_doc_is_valid() -> None:
    text = DOC.read_text()
    examples = re.findall(r"\$[^\s`]*?\\r\\n", text)
    assert len(examples) > 25
    for example in examples:
        raw = example.replace("\\r\\n", "\r\n").encode("ascii")
        used, item = p.decode(raw)
        if raw == b"$SHOE1,61,CARD,10D*B38E\r\n":          # the one damaged on purpose
            assert isinstance(item, p.FrameError) and item.kind is p.Problem.BAD_CRC
            continue
        assert used == len(raw) and isinstance(item, p.Frame), example
        assert item.encode() == raw
