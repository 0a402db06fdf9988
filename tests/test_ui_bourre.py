"""A Bourré hand through the real window: the simulated shoe deals, the dealer records stays
and discards, the simulated reader reads the plays (one a renege), the hand settles — and no
player's hand is ever on the dealer's screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_support import WAIT_MS, click, sign_in, station_fixture

from dealer_station.settlement.bourre import Phase
from dealer_station.ui.card_view import CardView
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.station import Station


@pytest.fixture
def station(tmp_path: Path) -> Iterator[Station]:
    yield from station_fixture(tmp_path, game="bourre")


def caught_up(screen: Any, t: Any) -> bool:
    """Whether the dealer's screen shows where the hand is (it is drawn from the table's
    view after each commit, one turn of the event loop later): a dealer acts on what she
    sees."""
    return t.hand is None or (screen.view.to_act == t.hand.to_act
                              and screen.view.phase == t.hand.phase.value)


def shown_cards(screen: Any) -> set[str]:
    return {cv.card.code for cv in screen.findChildren(CardView)
            if cv.card is not None and cv.isVisible()}


def test_a_hand_with_a_renege_played_through_the_window(qtbot: Any, window: MainWindow,
                                                        station: Station) -> None:
    t: Any = station.table
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    demo: Any = window.demo
    click(qtbot, screen.session_button)
    assert t.session is not None and list(t.session.seats) == [1, 2, 3, 4, 5]
    click(qtbot, screen.hand_button)
    assert t.hand is not None and t.hand.phase is Phase.DEAL
    for n in range(1, 26):
        click(qtbot, demo.buttons["deal"])
        qtbot.waitUntil(lambda n=n: sum(len(t.hand.held(s)) for s in t.hand.seats) == n,
                        timeout=WAIT_MS)
        # Dealt cards are in the players' hands: none of them is on the dealer's screen
        # (the last card dealt is the dealer's, turned up for trump).
        qtbot.waitUntil(lambda: screen.status.text() != "", timeout=WAIT_MS)
        assert shown_cards(screen) <= ({t.hand.trump_card.code} if t.hand.trump_card
                                       else set())
    qtbot.waitUntil(lambda: "stay or fold" in screen.status.text(), timeout=WAIT_MS)
    assert screen.trump_view.card == t.hand.trump_card
    for _ in range(5):
        seat = t.hand.to_act
        qtbot.waitUntil(lambda: caught_up(screen, t), timeout=WAIT_MS)
        click(qtbot, screen.stay_button)
        qtbot.waitUntil(lambda seat=seat: t.hand.to_act != seat, timeout=WAIT_MS)
    assert t.hand.phase is Phase.DRAW
    # The first seat to draw changes one card; the others keep theirs.
    first = t.hand.to_act
    click(qtbot, demo.buttons["discard"])
    qtbot.waitUntil(lambda: len(t.current.discards.get(first, [])) == 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: caught_up(screen, t), timeout=WAIT_MS)
    click(qtbot, screen.discard_button)
    assert "deal 1 from the shoe" in screen.message.text()
    click(qtbot, demo.buttons["deal"])
    qtbot.waitUntil(lambda: t.hand.to_act != first, timeout=WAIT_MS)
    while t.hand.phase is Phase.DRAW:
        seat = t.hand.to_act
        qtbot.waitUntil(lambda: caught_up(screen, t) and screen.discard_button.isEnabled(),
                        timeout=WAIT_MS)
        click(qtbot, screen.discard_button)
        qtbot.waitUntil(lambda seat=seat: t.hand.phase is not Phase.DRAW
                        or t.hand.to_act != seat, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "to play" in screen.status.text(), timeout=WAIT_MS)

    reneged = False
    for _ in range(60):
        if t.hand is None or t.hand.phase is not Phase.PLAY:
            break
        seat = t.hand.to_act
        played = len(t.current.plays)
        held = t.hand.held(seat)
        legal = t.hand.legal_cards(seat)
        if not reneged and len(legal) < len(held):
            click(qtbot, demo.buttons["renege"])
            qtbot.waitUntil(screen.renege_label.isVisible, timeout=WAIT_MS)
            assert f"RENEGE — seat {seat}" in screen.renege_label.text()
            assert "plays again" in screen.renege_label.text()
            assert t.hand.to_act == seat               # the rectification is awaited
            assert "RENEGE" in screen.seat_boxes[seat].info.text()
            reneged = True
            continue
        click(qtbot, demo.buttons["play"])
        qtbot.waitUntil(lambda p=played: t.current is None or len(t.current.plays) > p
                        or t.hand.phase is not Phase.PLAY, timeout=WAIT_MS)
        if t.hand is not None and t.hand.phase is Phase.PLAY:
            # The trick on the table is what the reader reported, and nothing more.
            trick = {c.code for _s, c in t.hand.current_trick}
            trump = {t.hand.trump_card.code}
            qtbot.waitUntil(lambda trick=trick, trump=trump: shown_cards(screen) - trump
                            == trick - trump, timeout=WAIT_MS)
    assert reneged, "the deal gave no chance to renege: change the demo's seed"
    qtbot.waitUntil(lambda: "Hand settled" in screen.result.toPlainText(), timeout=WAIT_MS)
    close = [r for r in station.journal.records(station.table_id) if r.kind == "hand.close"]
    assert len(close) == 1
    result = close[0].payload
    text = screen.result.toPlainText()
    assert "Renege: seat" in text
    if result["winner"]:
        assert f"Seat {result['winner']} takes the pot: {result['won']} chips" in text
    else:
        assert "the pot of" in text and "carries" in text
    assert f"Next pot (carry): {result['pot']}" in text
    assert [r.kind for r in station.journal.records(station.table_id)].count("renege") == 1
    qtbot.waitUntil(screen.hand_button.isEnabled, timeout=WAIT_MS)


def test_the_operator_changes_the_rule_profile_between_sessions(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    t.start_session([1, 2, 3], 3, actor="dealer/dealer")
    sign_in(qtbot, window, "operator", "3333")
    op: Any = window.screens["operator"]
    op.choice.setCurrentText("common")
    assert "misplay_penalty" in op.details.toPlainText()
    qtbot.keyClicks(op.reason, "casino rules tonight")
    click(qtbot, op.apply_button)
    assert "between sessions" in op.message.text() and t.profile.name == "tournament"
    t.end_session(tie_break=[1, 2, 3], actor="dealer/dealer")
    qtbot.keyClicks(op.reason, "casino rules tonight")
    click(qtbot, op.apply_button)
    assert t.profile.name == "common" and "in force" in op.message.text()
    change = [r for r in station.journal.records(station.table_id)
              if r.kind == "config.change"][-1]
    assert change.actor == "operator/operator"


def test_the_supervisor_panel_follows_a_bourre_hand(qtbot: Any, window: MainWindow,
                                                    station: Station) -> None:
    """The supervisor's round panel says where the hand is at every step (it once said
    "in play" for a whole hand, and went stale: it missed hand.opened and hand.closed)."""
    t: Any = station.table
    sup: Any = window.screens["supervisor"]
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    demo: Any = window.demo
    click(qtbot, screen.session_button)
    click(qtbot, screen.hand_button)
    hand_no = t.round_no
    qtbot.waitUntil(lambda: f"Hand {hand_no}</b> · dealing" in sup.round_state.text(),
                    timeout=WAIT_MS)
    assert "pot" in sup.round_state.text() and "in play" not in sup.round_state.text()
    for n in range(1, 26):
        click(qtbot, demo.buttons["deal"])
        qtbot.waitUntil(lambda n=n: sum(len(t.hand.held(s)) for s in t.hand.seats) == n,
                        timeout=WAIT_MS)
    qtbot.waitUntil(lambda: t.hand.phase is Phase.DECISIONS, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: f"stay or fold · seat {t.hand.to_act} to act"
                    in sup.round_state.text(), timeout=WAIT_MS)
    for _ in range(5):
        seat = t.hand.to_act
        qtbot.waitUntil(lambda: caught_up(screen, t), timeout=WAIT_MS)
        click(qtbot, screen.stay_button)
        qtbot.waitUntil(lambda seat=seat: t.hand.to_act != seat, timeout=WAIT_MS)
        if t.hand.phase is Phase.DECISIONS:
            qtbot.waitUntil(lambda: f"seat {t.hand.to_act} to act" in sup.round_state.text(),
                            timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "drawing" in sup.round_state.text(), timeout=WAIT_MS)
    while t.hand.phase is Phase.DRAW:
        seat = t.hand.to_act
        qtbot.waitUntil(lambda: caught_up(screen, t) and screen.discard_button.isEnabled(),
                        timeout=WAIT_MS)
        click(qtbot, screen.discard_button)
        qtbot.waitUntil(lambda seat=seat: t.hand.phase is not Phase.DRAW
                        or t.hand.to_act != seat, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "playing · trick 1 of 5" in sup.round_state.text(),
                    timeout=WAIT_MS)
    while t.hand is not None and t.hand.phase is Phase.PLAY:
        played = len(t.current.plays)
        click(qtbot, demo.buttons["play"])
        qtbot.waitUntil(lambda p=played: t.current is None or len(t.current.plays) > p
                        or t.hand.phase is not Phase.PLAY, timeout=WAIT_MS)
        if t.hand is not None and t.hand.phase is Phase.PLAY:
            qtbot.waitUntil(lambda: f"trick {t.hand.trick_number} of 5"
                            in sup.round_state.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "No hand is open." in sup.round_state.text(), timeout=WAIT_MS)
