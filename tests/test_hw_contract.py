"""The device contract, written once and run against every backend (see hw_support.RIGS):
the simulated device in-process, ``loop://``, a pseudo-terminal, and the real
``dealer-station emulate`` command over a pseudo-terminal."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hw_support import ORDER, RIGS, Rig, is_fault, is_state

from dealer_station.cards import LAPAIRE_DECK
from dealer_station.hardware.events import (
    CardRead,
    ConnectionChanged,
    ConnectionState,
    DeviceFault,
    DeviceIdentified,
    DeviceStatus,
    FaultKind,
    LinkProblem,
)

pytestmark = pytest.mark.timeout(60)

RigFactory = Callable[..., Rig]


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    extra = [t for t in threading.enumerate() if t not in before and t.name != "emulator-output"]
    for t in extra:
        t.join(2.0)
    alive = [t.name for t in extra if t.is_alive()]
    assert alive == [], f"threads left running: {alive}"


@pytest.fixture(params=sorted(RIGS))
def make_rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RigFactory]:
    rigs: list[Rig] = []

    def make(role: str = "shoe", **options: object) -> Rig:
        rig = RIGS[request.param](role, tmp_path, **options)
        rigs.append(rig)
        rig.wait_ready()
        return rig

    yield make
    for rig in rigs:
        rig.close()


@pytest.fixture
def rig(make_rig: RigFactory) -> Rig:
    return make_rig()


def codes(cards: list[CardRead]) -> list[str]:
    return [c.card.code for c in cards]


def test_cards_arrive_once_in_order(rig: Rig) -> None:
    start = rig.events.mark()
    dealt = [rig.deal() for _ in range(20)]
    assert dealt == ORDER[:20]
    cards = rig.events.wait_cards(20, start=start)
    assert codes(cards) == [c.code for c in ORDER[:20]]
    seqs = [c.seq for c in cards]
    assert seqs == sorted(seqs) and len(set(seqs)) == 20
    assert all(c.device == "shoe" and c.device_id == "SHOE1" for c in cards)
    assert rig.events.faults() == []
    with pytest.raises(AssertionError):            # and nothing more turns up
        rig.events.wait_cards(21, timeout=0.3, start=start)


def test_identifies_itself_and_reports_status(rig: Rig) -> None:
    ident = rig.events.wait_for(lambda e: isinstance(e, DeviceIdentified))
    assert isinstance(ident, DeviceIdentified) and ident.model == "SIM-SHOE"
    assert rig.handle.identity is not None
    start = rig.events.mark()
    rig.set_status("JAM")
    status = rig.events.wait_for(lambda e: isinstance(e, DeviceStatus) and e.state == "JAM",
                                 start=start)
    assert status.device_id == "SHOE1"


def test_query_asks_for_hello_and_status(rig: Rig) -> None:
    if not rig.return_path:
        pytest.skip("loop:// carries the host's QUERY back to the host, never to a device")
    start = rig.events.mark()
    rig.handle.query()
    rig.events.wait_for(lambda e: isinstance(e, DeviceIdentified), start=start)
    rig.events.wait_for(lambda e: isinstance(e, DeviceStatus), start=start)


def test_duplicate_frame_is_one_card(rig: Rig) -> None:
    start = rig.events.mark()
    rig.inject("duplicate")
    rig.deal()
    rig.deal()
    cards = rig.events.wait_cards(2, start=start)
    rig.events.wait_for(lambda e: isinstance(e, LinkProblem) and e.kind == "duplicate",
                        start=start)
    assert codes(cards) == [c.code for c in ORDER[:2]]
    rig.deal()
    assert codes(rig.events.wait_cards(3, start=start)) == [c.code for c in ORDER[:3]]
    assert rig.events.faults() == []


def test_bad_crc_is_naked_and_resent(rig: Rig) -> None:
    start = rig.events.mark()
    rig.inject("badcrc")
    rig.deal()
    problem = rig.events.wait_for(lambda e: isinstance(e, LinkProblem) and e.kind == "bad_crc",
                                  start=start)
    if rig.return_path:
        assert isinstance(problem, LinkProblem) and problem.action == "nak"
        assert codes(rig.events.wait_cards(1, start=start)) == [ORDER[0].code]
        assert rig.events.faults() == []
    else:
        # Nobody can ask for a re-send: the loss must surface as a gap, never silently.
        gap = rig.events.wait_for(is_fault(FaultKind.GAP), start=start)
        assert "missing" in gap.detail  # type: ignore[attr-defined]
        assert rig.events.cards(start) == []


def test_dropped_frame_is_resent_or_reported(rig: Rig) -> None:
    start = rig.events.mark()
    rig.inject("drop")
    rig.deal()
    rig.deal()
    if rig.return_path:
        cards = rig.events.wait_cards(2, start=start)
        assert codes(cards) == [c.code for c in ORDER[:2]]
        assert rig.events.faults() == []
    else:
        rig.events.wait_for(is_fault(FaultKind.GAP), start=start)
        assert codes(rig.events.wait_cards(1, start=start)) == [ORDER[1].code]


def test_noise_on_the_line_loses_nothing(rig: Rig) -> None:
    start = rig.events.mark()
    for _ in range(5):
        rig.inject("noise")
        rig.deal()
    assert codes(rig.events.wait_cards(5, start=start)) == [c.code for c in ORDER[:5]]
    assert rig.events.faults() == []


def test_misread_is_a_fault_not_a_card(rig: Rig) -> None:
    start = rig.events.mark()
    rig.inject("misread")
    rig.deal()
    rig.deal()
    fault = rig.events.wait_for(is_fault(FaultKind.MISREAD), start=start)
    assert isinstance(fault, DeviceFault) and fault.seq is not None
    assert "could not be recognised" in fault.detail
    assert codes(rig.events.wait_cards(1, start=start)) == [ORDER[1].code]


def test_gap_in_sequence_is_a_fault_before_the_card(rig: Rig) -> None:
    start = rig.events.mark()
    rig.inject("gap")
    rig.deal()
    card = rig.events.wait_cards(1, start=start)[0]
    events = rig.events.snapshot()
    gap = next(e for e in events[start:] if isinstance(e, DeviceFault))
    assert gap.kind is FaultKind.GAP and "1 frame(s) missing" in gap.detail
    assert events.index(gap) < events.index(card)


def test_card_that_cannot_be_in_this_round_is_a_fault(rig: Rig) -> None:
    rig.handle.start_round(LAPAIRE_DECK)
    start = rig.events.mark()
    for code in ("JK", "JK", "JK", "QH", "QH"):
        rig.send_card(code)
    faults = [rig.events.wait_for(is_fault(FaultKind.IMPOSSIBLE_CARD), start=start)]
    second = rig.events.mark()
    rig.send_card("2C")                                  # a marker: everything before is in
    rig.events.wait_for(lambda e: isinstance(e, CardRead) and e.card.code == "2C", start=second)
    faults = rig.events.faults(start)
    assert [f.kind for f in faults] == [FaultKind.IMPOSSIBLE_CARD] * 2
    assert "only 2 jokers" in faults[0].detail and "already been dealt" in faults[1].detail
    assert [f.card.code for f in faults if f.card] == ["JK", "QH"]
    cards = rig.events.cards(start)
    assert [(c.card.code, c.card.copy) for c in cards] == [("JK", 0), ("JK", 1), ("QH", 0),
                                                            ("2C", 0)]
    rig.handle.start_round()                             # a new round: QH is possible again
    third = rig.events.mark()
    rig.send_card("QH")
    rig.events.wait_for(lambda e: isinstance(e, CardRead) and e.card.code == "QH", start=third)


def test_lost_heartbeat_is_a_fault_and_recovery_is_reported(rig: Rig) -> None:
    start = rig.events.mark()
    rig.set_silent(True)
    fault = rig.events.wait_for(is_fault(FaultKind.HEARTBEAT_LOST), start=start)
    rig.events.wait_for(is_state(ConnectionState.SILENT), start=start)
    assert "nothing heard" in fault.detail  # type: ignore[attr-defined]
    assert rig.handle.state is ConnectionState.SILENT
    rig.set_silent(False)
    rig.events.wait_for(is_state(ConnectionState.CONNECTED), start=start)
    rig.deal()
    assert codes(rig.events.wait_cards(1, start=start)) == [ORDER[0].code]


def test_disconnect_is_a_fault_and_the_driver_reconnects(rig: Rig) -> None:
    if not rig.can_disconnect:
        pytest.skip("loop:// cannot be unplugged")
    rig.deal()
    rig.events.wait_cards(1)
    start = rig.events.mark()
    rig.inject("disconnect")
    fault = rig.events.wait_for(is_fault(FaultKind.DISCONNECTED), start=start)
    assert "reconnecting by itself" in fault.detail  # type: ignore[attr-defined]
    rig.events.wait_for(is_state(ConnectionState.DISCONNECTED), start=start)
    back = rig.events.wait_for(is_state(ConnectionState.CONNECTED), start=start)
    assert "re-opened" in back.detail  # type: ignore[attr-defined]
    rig.deal()
    rig.deal()
    cards = rig.events.wait_cards(3)
    assert codes(cards) == [c.code for c in ORDER[:3]]
    states = [e.state for e in rig.events.snapshot()[start:] if isinstance(e, ConnectionChanged)]
    assert states[:2] == [ConnectionState.DISCONNECTED, ConnectionState.CONNECTED]


def test_reader_reports_positions(make_rig: RigFactory) -> None:
    rig = make_rig("reader")
    start = rig.events.mark()
    rig.send_card("QH", 3)
    rig.send_card("10S", 12)
    cards = rig.events.wait_cards(2, start=start)
    assert [(c.device, c.device_id, c.card.code, c.position) for c in cards] == [
        ("reader", "READER1", "QH", 3), ("reader", "READER1", "10S", 12)]


def test_sequence_wraps_from_9999_to_0(make_rig: RigFactory) -> None:
    rig = make_rig("shoe", first_seq=9990)
    start = rig.events.mark()
    for _ in range(15):
        rig.deal()
    cards = rig.events.wait_cards(15, start=start)
    assert codes(cards) == [c.code for c in ORDER[:15]]
    assert any(c.seq < 100 for c in cards) and any(c.seq > 9990 for c in cards)
    assert rig.events.faults() == []


def test_close_reports_closed(rig: Rig) -> None:
    rig.close()
    last = rig.events.snapshot()[-1]
    assert isinstance(last, ConnectionChanged) and last.state is ConnectionState.CLOSED
    assert not rig.handle.driver.running
    rig.handle.close()                                  # idempotent
