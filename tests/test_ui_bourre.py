"""A Bourré hand through the real window: the simulated shoe deals, the dealer records stays
and discards, the simulated reader reads the plays (one a renege), the hand settles — and no
player's hand is ever on the dealer's screen."""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from touch_support import give_reason, tap_button
from ui_support import WAIT_MS, click, sign_in, station_fixture

from dealer_station.app import Station
from dealer_station.games.bourre.rules.engine import Phase
from dealer_station.ui.card_view import CardView
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.touch_sheet import current_sheet


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
    assert f"Next pot starts with {result['pot']} chips" in text
    assert [r.kind for r in station.journal.records(station.table_id)].count("renege") == 1
    qtbot.waitUntil(screen.hand_button.isEnabled, timeout=WAIT_MS)


def test_the_operator_changes_the_rule_profile_between_sessions(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    t.start_session([1, 2, 3], 3, actor="dealer/dealer")
    sign_in(qtbot, window, "operator", "3333")
    op: Any = window.screens["operator"]
    click(qtbot, op.choice.button("common"))
    assert "A card played against the rules" in op.details.toPlainText()
    click(qtbot, op.apply_button)
    click(qtbot, op.reason_sheet.buttons["approved change"])
    assert "between sessions" in op.message.text() and t.profile.name == "tournament"
    t.end_session(tie_break=[1, 2, 3], actor="dealer/dealer")
    click(qtbot, op.apply_button)
    click(qtbot, op.reason_sheet.buttons["approved change"])
    assert t.profile.name == "common" and "in force" in op.message.text()
    change = [r for r in station.journal.records(station.table_id)
              if r.kind == "config.change"][-1]
    assert change.actor == "operator/operator"
    assert change.payload["reason"] == "approved change"


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


#: A three-seat hand (tests/test_table_bourre.py): seat 3 reneges in trick 1, seat 2 takes
#: no trick, seat 1 takes the pot; the settlement has every kind of line.
RENEGE_DEAL = ["AS", "AH", "4S", "KS", "KH", "5S", "QS", "QH", "6S", "2H", "2C", "7S", "3H",
               "3C", "8D"]
RENEGE_PLAYS = ["AS", "2C", "8D", "4S", "KS", "KH", "5S", "QS", "QH", "6S", "2H", "AH", "8D",
                "7S", "3H", "3C"]


def to_the_play(qtbot: Any, screen: Any, t: Any) -> None:
    """Seats 1 to 3 in a session; the renege hand dealt; all stay; the dealer confirms each
    seat's (empty) discards on the screen."""
    for n, cb in screen.seat_checks.items():
        cb.setChecked(n <= 3)
    click(qtbot, screen.session_button)
    click(qtbot, screen.hand_button)
    for code in RENEGE_DEAL:
        t.card(code, source="shoe", actor="dealer/dealer")
    for seat in (1, 2, 3):
        t.decide(seat, True, actor="dealer/dealer")
    for seat in (1, 2, 3):
        qtbot.waitUntil(lambda seat=seat: screen.view.to_act == seat
                        and screen.discard_button.isEnabled(), timeout=WAIT_MS)
        click(qtbot, screen.discard_button)
    qtbot.waitUntil(lambda: screen.view.phase == "play", timeout=WAIT_MS)


def test_the_whole_settlement_is_on_screen_without_the_stale_renege_or_draw_text(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """e09-settled.png: after a hand with a renege the banner stayed, squeezed the result
    and pushed the bourré, penalty and next-pot lines below the fold; the bar still spoke of
    the draw. At 1280x800 the whole settlement shows, unscrolled."""
    t: Any = station.table
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    to_the_play(qtbot, screen, t)
    # The draw's instruction is gone once the play begins.
    assert "deal" not in screen.message.text() and "discard" not in screen.message.text()
    for code in RENEGE_PLAYS[:3]:
        t.card(code, source="reader", actor="dealer/dealer")
    qtbot.waitUntil(screen.renege_label.isVisible, timeout=WAIT_MS)
    for code in RENEGE_PLAYS[3:]:
        t.card(code, source="reader", actor="dealer/dealer")
    qtbot.waitUntil(lambda: "Next pot" in screen.result.toPlainText(), timeout=WAIT_MS)
    qtbot.wait(50)
    assert window.size().width() == 1280 and window.size().height() == 800
    assert not screen.renege_label.isVisible()
    assert screen.message.text() == ""
    text = screen.result.toPlainText()
    for line in ("Seat 1 takes the pot: 6 chips", "Bourré: seat 2 took no trick",
                 "Renege: seat 3", "Penalties into the next pot: seat 2 pays 6, seat 3 pays 6",
                 "Next pot starts with 12 chips: the penalties, then the antes"):
        assert line in text
    # Nothing to scroll: every line is in the panel, and the panel is in the window.
    assert screen.result.verticalScrollBar().maximum() == 0
    bottom = screen.result.mapTo(window, screen.result.rect().bottomLeft()).y()
    assert bottom <= window.height()


def test_the_settlement_names_the_players_as_their_seats_do_and_what_the_next_pot_holds(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """bou-08-settled.png: "Seat 1 takes the pot" while the seat showed Ada, "seat(s) 2",
    and "Next pot (carry): 20" after the pot was won. The settlement names each player as
    the seat does, says one or several in words, and says what the next pot starts with
    and where those chips come from; the next hand opens with exactly that pot."""
    t: Any = station.table
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    for seat, name in ((1, "Ada"), (2, "Ben"), (3, "Cy")):
        screen.set_name(seat, name)         # what the name pad's Done does
    to_the_play(qtbot, screen, t)
    for code in RENEGE_PLAYS:
        t.card(code, source="reader", actor="dealer/dealer")
    qtbot.waitUntil(lambda: "Next pot" in screen.result.toPlainText(), timeout=WAIT_MS)
    assert "Ada" in screen.seat_boxes[1].info.text()
    text = screen.result.toPlainText()
    for line in ("Tricks — Ada: 3, Ben: 0, Cy: 2",
                 "Ada (seat 1) takes the pot: 6 chips", "Bourré: Ben (seat 2) took no trick",
                 "Renege: Cy (seat 3)", "Penalties into the next pot: Ben pays 6, Cy pays 6",
                 "Next pot starts with 12 chips: the penalties, then the antes"):
        assert line in text, (line, text)
    for stale in ("seat(s)", "Seat 1 takes", "(carry)"):
        assert stale not in text
    # The next hand's pot opens with what the panel said, before its antes.
    click(qtbot, screen.hand_button)
    qtbot.waitUntil(lambda: t.hand is not None, timeout=WAIT_MS)
    assert t.hand.pot_before == 12
    # Two players bourréd and no winner: both named, and the pot said to carry.
    close = [r for r in station.journal.records(station.table_id) if r.kind == "hand.close"]
    tie = dict(close[-1].payload, winner=None, won=0, bourre=["2", "3"], reneges=[],
               penalties={"2": 6, "3": 6}, pot=18)
    screen.show_result(tie)
    text = screen.result.toPlainText()
    assert "No winner: the pot of 6 chips carries" in text
    assert "Bourré: Ben (seat 2) and Cy (seat 3) took no trick" in text
    assert ("Next pot starts with 18 chips: the pot of 6 chips carries, with 12 chips of "
            "penalties, then the antes") in text


def test_the_trick_winner_is_shown_and_no_count_of_legal_cards(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    to_the_play(qtbot, screen, t)
    qtbot.waitUntil(lambda: "seat 1 to play" in screen.status.text(), timeout=WAIT_MS)
    assert "legal" not in screen.status.text()
    t.card("AS", source="reader", actor="dealer/dealer")
    t.card("2C", source="reader", actor="dealer/dealer")
    qtbot.waitUntil(lambda: "winning the trick" in screen.seat_boxes[1].info.text(),
                    timeout=WAIT_MS)
    assert "Seat 1</b> is winning the trick" in screen.pot_label.text()
    assert "winning" not in screen.seat_boxes[2].info.text()
    # Nothing the table can see counts a player's legal cards.
    shown = " ".join(w.text() for w in screen.findChildren(QLabel) if w.isVisible())
    assert "legal" not in shown


def test_players_are_named_at_the_seats_by_touch_and_journaled_with_the_session(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    box = screen.seat_boxes[2]
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    sheet = screen.name_sheet
    assert current_sheet(screen) is sheet and sheet.keyboard is not None
    assert "Seat 2" in sheet.title.text()
    for key in sheet.keyboard.buttons_for("Ada L'O"):
        click(qtbot, key)
    assert sheet.text == "Ada L'O"
    click(qtbot, sheet.keyboard.keys["Delete"])
    click(qtbot, sheet.done_button)
    assert current_sheet(screen) is None
    assert "Ada L'" in unescape(box.info.text())
    # The same name twice is refused at once, on the keyboard, not when the session starts.
    qtbot.mouseClick(screen.seat_boxes[4], Qt.MouseButton.LeftButton)
    sheet = screen.name_sheet
    for key in sheet.keyboard.buttons_for("Ada L'"):
        click(qtbot, key)
    click(qtbot, sheet.done_button)
    assert "already Ada L'" in sheet.message.text() and current_sheet(screen) is sheet
    click(qtbot, sheet.cancel_button)
    click(qtbot, screen.session_button)
    opened = [r for r in station.journal.records(station.table_id)
              if r.kind == "session.open"][-1]
    assert opened.payload["players"] == {"1": "1", "2": "Ada L'", "3": "3", "4": "4",
                                         "5": "5"}
    assert opened.actor == "dealer/dealer"
    qtbot.waitUntil(lambda: screen.view.session_open, timeout=WAIT_MS)
    assert "Ada L'" in unescape(screen.seat_boxes[2].info.text())
    # Once the session is under way the names are its own.
    qtbot.mouseClick(screen.seat_boxes[3], Qt.MouseButton.LeftButton)
    assert current_sheet(screen) is None and "before the session" in screen.message.text()


def test_the_profile_page_reads_in_words(qtbot: Any, window: MainWindow,
                                         station: Station) -> None:
    """The operator's profile page showed raw keys (second_ante) and True/False."""
    sign_in(qtbot, window, "operator", "3333")
    op: Any = window.screens["operator"]
    op.choice.setCurrentText("tournament")
    text = op.details.toPlainText()
    for raw in ("second_ante", "misplay_penalty", "house.", "session.", "True", "False",
                "retraction_and_renege"):
        assert raw not in text
    lines = text.splitlines()
    assert lines[lines.index("Staying costs a stay chip") + 1] == "Yes"
    assert lines[lines.index("The dealer antes for every player") + 1] == "No"
    assert "Retraction and renege" in text and "Winners per table size" in text
    op.choice.setCurrentText("common")
    assert "No cap (the whole pot)" in op.details.toPlainText()


def test_a_supervisor_returns_a_carried_pot_on_screen(qtbot: Any, window: MainWindow,
                                                      station: Station) -> None:
    """Chips a closed session left in the pot: the supervisor's Round tab says so, and gives
    them back to the players with a reason (none: refused, nothing journaled)."""
    import random

    from card_room_support import play_sessions

    t: Any = station.table
    sign_in(qtbot, window, "dealer", "1111")
    rng = random.Random(7)
    for _ in range(20):
        play_sessions(t, rng, 30)
        if t.waiting is not None:
            break
    assert t.waiting is not None, "no session left a pot"
    pot = t.waiting.pot
    sign_in(qtbot, window, "super", "2222")
    sup: Any = window.screens["supervisor"]
    sup.refresh_round()
    qtbot.waitUntil(lambda: sup.pot_button.isVisible(), timeout=WAIT_MS)
    assert f"Pot carried from the last session:</b> {pot:,} chips" in sup.round_state.text()
    click(qtbot, sup.pot_button)                       # it asks why; cancelled
    tap_button(qtbot, window, "Cancel")
    assert t.waiting is not None
    assert not list(station.journal.records(t.table_id, kinds=["pot.return"]))
    click(qtbot, sup.pot_button)
    give_reason(qtbot, window, "the players went home")
    qtbot.waitUntil(lambda: t.waiting is None, timeout=WAIT_MS)
    assert "Pot returned to the players. Recorded as Sam Supervisor" in sup.message.text()
    assert not sup.pot_button.isVisible()
    (ret,) = station.journal.records(t.table_id, kinds=["pot.return"])
    assert ret.actor == "super/supervisor" and ret.payload["reason"] == "the players went home"
    assert sum(ret.payload["shares"].values()) == pot
