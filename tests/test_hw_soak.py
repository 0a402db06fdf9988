"""Soak: 10,000 cards from the real emulator over a pseudo-terminal with noise, drops,
duplicates and bad CRCs switched on. Every card must arrive exactly once, in order."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hw_support import EventLog, drain, start_emulator, stop_emulator

from dealer_station.cards import LAPAIRE_DECK
from dealer_station.hardware.backends import open_device
from dealer_station.hardware.events import CardRead, DeviceEvent, DeviceFault, LinkProblem
from dealer_station.hardware.simulator import card_stream

CARDS = 10_000
SEED = 11


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_ten_thousand_cards_through_a_faulty_line_arrive_once_in_order(tmp_path: Path) -> None:
    link = tmp_path / "soak-shoe"
    emu = start_emulator(
        "shoe", "--seed", str(SEED), "--interval", "0", "--count", str(CARDS),
        "--baud", "115200", "--faults", "noise=0.01,drop=0.01,duplicate=0.01,badcrc=0.01",
        "--fault-seed", "5", "--link", str(link), "--no-input", "--quiet")
    output = drain(emu)
    log = EventLog()
    seen: list[DeviceEvent] = []
    try:
        with open_device("shoe", "serial", url=str(link), device_id="SHOE1", baudrate=115200,
                         on_event=log):
            # Counted in progress, not time: it fails only if the line stalls (no 500 more
            # cards for a minute), however slowly a loaded machine moves them.
            got = 0
            while got < CARDS:
                got = len(log.wait_cards(min(got + 500, CARDS), timeout=60))
            cards = log.wait_cards(CARDS)
            events = log.snapshot()
            assert emu.wait(30) == 0
        seen = events
    finally:
        stop_emulator(emu)
    expected = [c.code for c in itertools.islice(card_stream(LAPAIRE_DECK, SEED), CARDS)]
    assert [c.card.code for c in cards] == expected
    assert len(cards) == CARDS
    # in order on the wire too: card seqs climb (modulo the wrap at 9999)
    steps = [(b.seq - a.seq) % 10000 for a, b in itertools.pairwise(cards)]
    assert all(0 < s < 100 for s in steps)
    # nothing was lost, so nothing may be reported lost
    last = events.index(cards[-1])
    assert [e for e in seen[:last] if isinstance(e, DeviceFault)] == []
    # and the faults really were on: the driver NAKed bad CRCs and dropped duplicates
    problems = [e for e in seen if isinstance(e, LinkProblem)]
    kinds = {p.kind for p in problems}
    assert {"bad_crc", "duplicate", "noise"} <= kinds
    assert sum(p.kind == "bad_crc" and p.action == "nak" for p in problems) > 50
    assert sum(p.kind == "duplicate" for p in problems) > 50
    summary = output[-1]
    # Every card acknowledged: one the device held (its re-sends all went unanswered while a
    # loaded machine was slow to read them) was asked for again and taken once, in order.
    assert f"{CARDS} cards dealt, {CARDS} acknowledged" in summary
    assert not any(isinstance(e, CardRead) and e.card.code not in expected for e in seen)
