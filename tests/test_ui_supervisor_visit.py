"""A supervisor called to the dealer's station: signed in over the dealer's session in a few
taps, and back; a dealer never reaches the supervisor's actions without a supervisor's PIN;
who is on duty is told to the table; and what happened while nobody was signed in is shown to
the next person who signs in."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget
from touch_support import give_reason
from ui_support import WAIT_MS, click, open_window, sign_in, tap_spot

from dealer_station.app import Station
from dealer_station.ui.formatting import card_text
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.supervisor_visit import VISIT_SIGN_IN


class Taps:
    """Clicks like a person, counting each touch."""

    def __init__(self, qtbot: Any) -> None:
        self.qtbot = qtbot
        self.count = 0

    def __call__(self, button: QWidget) -> None:
        click(self.qtbot, button)
        self.count += 1


def key(panel: Any, text: str) -> QPushButton:
    return next(b for b in panel.findChildren(QPushButton) if b.text() == text)


def records(station: Station, kind: str) -> list[Any]:
    return [r for r in station.journal.records(station.table_id) if r.kind == kind]


def misread_in_a_round(qtbot: Any, w: MainWindow, station: Station) -> None:
    """The signed-in dealer takes a wager and the shoe misreads the first card: stopped."""
    screen = w.screens["dealer"]
    station.simulator("shoe").set_order(["QS", "3D", "4C"])
    click(qtbot, screen.seat_buttons[4])
    click(qtbot, screen.chip_buttons[1])
    tap_spot(qtbot, screen, "straight", ("Q",))
    assert w.demo is not None
    click(qtbot, w.demo.buttons["misread"])
    qtbot.waitUntil(lambda: w.banner.isVisible() and w.table.halt is not None,
                    timeout=WAIT_MS)


def test_the_supervisor_button_calls_a_supervisor_over_the_dealer_and_back_in_a_few_taps(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    w = window
    sign_in(qtbot, w, "dealer", "1111")
    misread_in_a_round(qtbot, w, station)
    tap = Taps(qtbot)
    visit = w.visit_sign_in

    tap(w.banner.button)                                   # Supervisor (F3)
    assert w.current_screen == VISIT_SIGN_IN
    assert w.session.user is not None and w.session.user.user_id == "dealer"
    assert "Dana Dealer stays signed in" in visit.notice.text()
    tap(visit.name_buttons["super"])                       # a tap on one's name...
    assert visit.user_edit.text() == "super" and visit.pin_edit.hasFocus()
    for digit in "2222":                                   # ...the PIN on the keypad...
        tap(key(visit, digit))
    assert visit.sign_in_button is not None
    tap(visit.sign_in_button)                              # ...and sign in
    assert w.current_screen == "supervisor"
    assert w.session.user is not None and w.session.user.actor == "super/supervisor"
    assert w.session.dealer is not None and w.session.dealer.user_id == "dealer"
    assert w.back_button.isVisible() and not w.nav["dealer"].isVisible()

    # The supervisor's own action (not counted): void the stopped round.
    sup = w.screens["supervisor"]
    click(qtbot, sup.void_button)
    give_reason(qtbot, w, "card damaged, dispute at seat 4")
    qtbot.waitUntil(lambda: w.table.halt is None, timeout=WAIT_MS)

    tap(w.back_button)                                     # Back to dealer
    assert w.current_screen == "dealer"
    assert w.session.user is not None and w.session.user.actor == "dealer/dealer"
    assert not w.session.visiting and not w.back_button.isVisible()
    assert w.lock_button.isVisible() and w.nav["dealer"].isVisible()
    assert tap.count <= 8, f"a supervisor's visit took {tap.count} taps"

    # Journaled: the supervisor's sign-in over the dealer, the action, the hand-back; the
    # dealer never signed out.
    login = records(station, "login")[-1]
    assert login.actor == "super/supervisor" and login.payload["over"] == "dealer"
    assert records(station, "void")[0].actor == "super/supervisor"
    logout = records(station, "logout")
    assert [r.actor for r in logout] == ["super/supervisor"]
    assert "back to the dealer" in logout[0].payload["why"]
    assert "dealer still signed in" in logout[0].payload["why"]
    # The round goes on under the dealer.
    assert w.table.dealer == "dealer/dealer"


def test_a_dealer_never_reaches_the_supervisors_screen_without_a_supervisors_pin(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    w = window
    sign_in(qtbot, w, "dealer", "1111")
    # F3 (and the header's Supervisor button) calls a supervisor: their sign-in, not the
    # supervisor's screen.
    qtbot.keyClick(w, Qt.Key.Key_F3)
    assert w.current_screen == VISIT_SIGN_IN
    visit = w.visit_sign_in
    assert set(visit.name_buttons) == {"super", "operator"}      # no dealer is listed
    # The dealer's own PIN is refused here (journaled, and signed straight out again).
    qtbot.keyClicks(visit.user_edit, "dealer")
    qtbot.keyClicks(visit.pin_edit, "1111")
    click(qtbot, visit.sign_in_button)
    assert w.current_screen == VISIT_SIGN_IN
    assert "only a supervisor or an operator" in visit.message.text()
    assert w.session.user is not None and w.session.user.role == "dealer"
    assert not w.session.visiting
    refused = records(station, "logout")[-1]
    assert refused.actor == "dealer/dealer" and "not a supervisor" in refused.payload["why"]
    # A wrong supervisor PIN is refused, with the attempts left.
    click(qtbot, visit.name_buttons["super"])
    qtbot.keyClicks(visit.pin_edit, "0000")
    click(qtbot, visit.sign_in_button)
    assert "Wrong PIN: 4 attempts left before a 15-minute lockout" in visit.message.text()
    assert w.current_screen == VISIT_SIGN_IN
    # Going straight for the screen does not get past the sign-in either.
    w.show_screen("supervisor")
    assert w.current_screen == VISIT_SIGN_IN
    # Pressed by mistake: back to the dealer, nothing signed.
    click(qtbot, visit.cancel_button)
    assert w.current_screen == "dealer" and w.session.user.user_id == "dealer"
    assert w.nav["supervisor"].isVisible()
    click(qtbot, w.nav["supervisor"])
    assert w.current_screen == VISIT_SIGN_IN


def test_signing_the_supervisor_out_or_walking_away_hands_back_to_the_dealer(
        qtbot: Any, station: Station) -> None:
    w = open_window(qtbot, station, lock_after=1.5)
    sign_in(qtbot, w, "dealer", "1111")

    def visit() -> None:
        click(qtbot, w.nav["supervisor"])
        click(qtbot, w.visit_sign_in.name_buttons["operator"])
        qtbot.keyClicks(w.visit_sign_in.pin_edit, "3333")
        click(qtbot, w.visit_sign_in.sign_in_button)
        assert w.session.visiting and w.current_screen == "operator"

    visit()
    qtbot.keyClick(w, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)   # sign out (Lock)
    assert w.current_screen == "dealer" and w.session.user is not None
    assert w.session.user.user_id == "dealer" and not w.session.visiting
    visit()
    # The operator walks away: the inactivity lock signs them out, and the dealer, still
    # signed in, has the dealer's screen again.
    qtbot.waitUntil(lambda: not w.session.visiting, timeout=WAIT_MS)
    assert w.current_screen == "dealer" and w.session.user is not None
    assert w.session.user.user_id == "dealer"
    whys = [r.payload["why"] for r in records(station, "logout")]
    assert whys[0].startswith("signed out") and "without activity" in whys[1]
    assert all(r.actor == "operator/operator" for r in records(station, "logout"))
    # The dealer's own inactivity lock then signs the dealer out.
    with qtbot.waitSignal(w.session.locked, timeout=WAIT_MS):
        pass
    assert w.current_screen == "login" and w.session.user is None
    assert records(station, "logout")[-1].actor == "dealer/dealer"


def test_the_table_is_told_who_is_on_duty(qtbot: Any, window: MainWindow,
                                          station: Station) -> None:
    w, table = window, station.table
    assert table.on_duty is None
    sign_in(qtbot, w, "dealer", "1111")
    assert table.on_duty == "dealer/dealer"
    click(qtbot, w.nav["supervisor"])
    click(qtbot, w.visit_sign_in.name_buttons["super"])
    qtbot.keyClicks(w.visit_sign_in.pin_edit, "2222")
    click(qtbot, w.visit_sign_in.sign_in_button)
    assert w.session.visiting
    assert table.on_duty == "dealer/dealer"         # the dealer stays on duty underneath
    click(qtbot, w.back_button)
    assert table.on_duty == "dealer/dealer"
    click(qtbot, w.lock_button)
    assert table.on_duty is None
    sign_in(qtbot, w, "super", "2222")
    assert table.on_duty == "super/supervisor"


def test_the_next_person_is_told_what_happened_while_nobody_was_signed_in(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    w = window
    sign_in(qtbot, w, "dealer", "1111")
    assert not w.while_away.isVisible()          # nothing happened before
    click(qtbot, w.lock_button)
    station.simulator("shoe").set_order(["9H", "3D", "4C"])
    assert w.demo is not None
    click(qtbot, w.demo.buttons["deal"])         # a card read with nobody signed in
    qtbot.waitUntil(lambda: bool(records(station, "card.held") or records(station, "card")),
                    timeout=WAIT_MS)
    sign_in(qtbot, w, "dealer", "1111")
    qtbot.waitUntil(w.while_away.isVisible, timeout=WAIT_MS)
    text = w.while_away.text
    assert text.startswith("While nobody was signed in: card 9♥ read"), text
    if w.table.halt is not None:
        assert "read and held" in text and "a supervisor must resolve it" in text
    # One tap dismisses it.
    click(qtbot, w.while_away.ok_button)
    assert not w.while_away.isVisible()
    # Read, never written: the sign-in and the summary added only the sign-in's record.
    assert [r.kind for r in station.journal.records(station.table_id)][-1] == "login"
    # Nothing happened since the last sign-out: no note.
    click(qtbot, w.lock_button)
    sign_in(qtbot, w, "dealer", "1111")
    assert not w.while_away.isVisible()


def test_the_supervisor_sees_the_cards_read_while_the_table_was_stopped(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    w = window
    sign_in(qtbot, w, "dealer", "1111")
    misread_in_a_round(qtbot, w, station)
    assert w.demo is not None
    click(qtbot, w.demo.buttons["deal"])         # the shoe reads on while the table is stopped
    qtbot.waitUntil(lambda: bool(records(station, "card.held")), timeout=WAIT_MS)
    visit = w.visit_sign_in
    click(qtbot, w.banner.button)                # Supervisor, a name and a PIN by touch
    click(qtbot, visit.name_buttons["super"])
    for digit in "2222":
        click(qtbot, key(visit, digit))
    assert visit.sign_in_button is not None
    click(qtbot, visit.sign_in_button)
    sup = w.screens["supervisor"]
    qtbot.waitUntil(lambda: "Read while stopped, not taken" in sup.round_state.text(),
                    timeout=WAIT_MS)
    held = records(station, "card.held")[-1].payload["card"]
    # In the felt's words on the supervisor's panel and in the stop banner, never as a code.
    assert f"not taken:</b> {card_text(held)}" in sup.round_state.text()
    assert f"held (not dealt): {card_text(held)}." in w.banner.text
