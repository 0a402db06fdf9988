"""A table flooded with cards read while it is stopped (a shoe reading on while nobody is signed
in): the supervisor's panel lists every card held, and reads each from the journal once, not
all of them again for every new one (a flood of held cards once kept a station so busy it
never reached its ``--exit-after``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from ui_support import WAIT_MS

from dealer_station.app import Station
from dealer_station.audit.journal import Journal, Record
from dealer_station.ui.formatting import read_card_text
from dealer_station.ui.main_window import MainWindow

HELD = 240


def test_the_supervisor_lists_every_held_card_of_a_flood_reading_each_once(
        qtbot: Any, window: MainWindow, station: Station, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = window
    sup = w.screens["supervisor"]
    w.show_screen("supervisor")        # in view: it draws what it is told at once
    journal: Journal = station.journal
    read: Counter[str] = Counter()
    records = journal.records

    def counted(*args: Any, **kwargs: Any) -> Iterator[Record]:
        """The journal's own reads, each record handed out counted by its kind."""
        for r in records(*args, **kwargs):
            read[r.kind] += 1
            yield r

    monkeypatch.setattr(journal, "records", counted)
    shoe = station.simulator("shoe")
    # Nobody is signed in: the first card read stops the table (the panel names it as the
    # card read), and the cards read after it are held. The screen takes each card's update
    # before the next card is read (as it does when a shoe reads on at its own pace), so a
    # panel that read every held card again for each new one would read HELD * HELD / 2.
    for n in range(1, HELD + 2):
        if shoe.remaining == 0:
            shoe.new_shoe(seed=n)
        shoe.deal()
        qtbot.waitUntil(lambda n=n: len(w.banner.held) == n, timeout=WAIT_MS)
    halt = w.table.halt
    assert halt is not None and halt.fault == "unattended_card"
    held = [read_card_text(r.payload["card"])
            for r in records(station.table_id, from_seq=halt.seq, kinds=["card.held"])]
    assert len(held) == HELD
    shown = f"<b>Read while stopped, not taken:</b> {', '.join(held)}<br>"
    qtbot.waitUntil(lambda: shown in sup.round_state.text(), timeout=WAIT_MS)
    # Each held card was read from the journal once at most (the panel reads them once for
    # the halt, then keeps those the updates bring), whoever else on the station reads.
    assert read["card.held"] <= HELD + 1, read
