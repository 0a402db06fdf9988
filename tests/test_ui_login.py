"""Signing in at the station: a wrong PIN, a lockout, the inactivity lock, who sees what."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QPushButton
from touch_support import give_reason, tap_button
from ui_support import WAIT_MS, click, open_window, sign_in, station_fixture

from dealer_station.app import Station
from dealer_station.ui.main_window import MainWindow


@pytest.fixture
def station(tmp_path: Path) -> Iterator[Station]:
    yield from station_fixture(tmp_path, max_failures=3)


def test_a_wrong_pin_is_refused_and_three_lock_the_user_out(qtbot: Any,
                                                            station: Station) -> None:
    w = open_window(qtbot, station)
    assert w.current_screen == "login"
    assert "nobody signed in" in w.user_label.text()
    sign_in(qtbot, w, "dealer", "9999")
    assert w.current_screen == "login" and w.session.user is None
    # The policy's own numbers: 3 wrong PINs (this station's setting), 15 minutes.
    assert (station.users.max_failures, station.users.lockout_minutes) == (3, 15)
    assert w.login.message.text() == "Wrong PIN: 2 attempts left before a 15-minute lockout."
    assert w.login.message.isVisible()
    assert w.login.pin_edit.text() == ""              # a PIN never stays on screen
    sign_in(qtbot, w, "dealer", "9998")
    assert "Wrong PIN: 1 attempt left before a 15-minute lockout" in w.login.message.text()
    sign_in(qtbot, w, "dealer", "9997")
    assert "Locked out" in w.login.message.text()
    # The lockout's end in local time, to the minute (not UTC, not seconds).
    until = [r for r in station.journal.records(station.table_id) if r.kind == "lockout"]
    local = datetime.fromisoformat(until[0].payload["until"]).astimezone()
    assert f"until {local:%H:%M} after 3 wrong PINs" in w.login.message.text()
    assert "+00:00" not in w.login.message.text() and ":00." not in w.login.message.text()
    assert "a supervisor or an operator can unlock them" in w.login.message.text()
    # Locked out: even the right PIN is refused now.
    sign_in(qtbot, w, "dealer", "1111")
    assert w.session.user is None and "Locked out" in w.login.message.text()
    kinds = [r.kind for r in station.journal.records(station.table_id)]
    assert kinds.count("login.failed") == 4 and kinds.count("lockout") == 1
    # Another user is not affected.
    sign_in(qtbot, w, "super", "2222")
    assert w.session.user is not None and w.session.user.role == "supervisor"


def test_the_keypad_enters_the_pin(qtbot: Any, station: Station) -> None:
    w = open_window(qtbot, station)
    qtbot.keyClicks(w.login.user_edit, "operator")
    w.login.pin_edit.setFocus()
    for digit in "3334":
        click(qtbot, next(b for b in w.login.findChildren(type(w.login.sign_in_button))
                          if b.text() == digit))
    click(qtbot, next(b for b in w.login.findChildren(type(w.login.sign_in_button))
                      if b.accessibleName() == "Delete a digit"))
    click(qtbot, next(b for b in w.login.findChildren(type(w.login.sign_in_button))
                      if b.text() == "3"))
    assert w.login.pin_edit.text() == "3333"
    click(qtbot, w.login.sign_in_button)
    assert w.session.user is not None and w.current_screen == "operator"
    assert "Olive Operator" in w.user_label.text() and "operator" in w.user_label.text()


def test_each_role_sees_its_screens(qtbot: Any, station: Station) -> None:
    w = open_window(qtbot, station)
    sign_in(qtbot, w, "dealer", "1111")
    visible = {n for n, b in w.nav.items() if b.isVisible()}
    assert visible == {"dealer", "supervisor"}     # Supervisor calls a supervisor
    w.show_screen("supervisor")         # F3: a supervisor's sign-in, never their screen
    assert w.current_screen == "supervisor sign-in" and w.session.user.role == "dealer"
    sign_in(qtbot, w, "super", "2222")
    assert {n for n, b in w.nav.items() if b.isVisible()} == {"dealer", "supervisor"}
    sign_in(qtbot, w, "operator", "3333")
    assert {n for n, b in w.nav.items() if b.isVisible()} == {"dealer", "supervisor",
                                                               "operator"}
    click(qtbot, w.lock_button)
    assert w.current_screen == "login" and w.session.user is None


def test_the_station_locks_after_inactivity(qtbot: Any, station: Station) -> None:
    w: MainWindow = open_window(qtbot, station, lock_after=0.4)
    sign_in(qtbot, w, "dealer", "1111")
    assert w.current_screen == "dealer"
    with qtbot.waitSignal(w.session.locked, timeout=WAIT_MS) as blocker:
        pass
    assert blocker.args == ["dealer"]
    assert w.current_screen == "login" and w.session.user is None
    assert "without activity" in w.login.notice.text()
    logout = [r for r in station.journal.records(station.table_id) if r.kind == "logout"]
    assert len(logout) == 1 and logout[0].actor == "dealer/dealer"
    assert "without activity" in logout[0].payload["why"]


def test_a_role_raised_in_the_database_is_refused_on_screen(qtbot: Any,
                                                            station: Station) -> None:
    from sqlalchemy import text

    with station.journal.db.write() as conn:
        conn.execute(text("UPDATE users SET role = 'operator' WHERE user_id = 'dealer'"))
    w = open_window(qtbot, station)
    sign_in(qtbot, w, "dealer", "1111")
    assert w.session.user is None and w.current_screen == "login"
    text_ = w.login.message.text()
    assert "disagree with its journal" in text_ and "user dealer: role" in text_
    assert "Call an operator" in text_
    assert [r.kind for r in station.journal.records(station.table_id)][-1] == "user.mismatch"
    assert station.users.check_projection()[0].startswith("user dealer: role is 'operator'")


def test_a_tap_on_ones_name_then_the_pin_signs_in(qtbot: Any, station: Station) -> None:
    w = open_window(qtbot, station)
    names = w.login.name_buttons
    assert list(names) == ["dealer", "super", "operator"]      # dealers first
    assert names["dealer"].text().startswith("Dana Dealer")
    click(qtbot, names["dealer"])
    assert w.login.user_edit.text() == "dealer"
    assert "Dana Dealer: enter your PIN" in w.login.notice.text()
    for digit in "1111":
        click(qtbot, next(b for b in w.login.findChildren(QPushButton) if b.text() == digit))
    assert w.login.pin_edit.text() == "1111" and w.login.user_edit.text() == "dealer"
    click(qtbot, w.login.sign_in_button)
    assert w.session.user is not None and w.session.user.user_id == "dealer"
    assert w.current_screen == "dealer"


def test_a_supervisor_unlocks_a_locked_out_dealer_on_screen_with_a_reason(
        qtbot: Any, station: Station) -> None:
    w = open_window(qtbot, station)
    for pin in ("9999", "9998", "9997"):
        sign_in(qtbot, w, "dealer", pin)
    assert "Locked out" in w.login.message.text()
    assert "locked until" in w.login.name_buttons["dealer"].text()
    sign_in(qtbot, w, "super", "2222")
    sup = w.screens["supervisor"]
    sup.tabs.setCurrentWidget(sup.lockouts)
    panel = sup.lockouts
    qtbot.waitUntil(lambda: "dealer" in panel.unlock_buttons, timeout=WAIT_MS)
    click(qtbot, panel.unlock_buttons["dealer"])            # it asks why; cancelled...
    tap_button(qtbot, w, "Cancel")
    assert station.users.get("dealer").locked_until is not None  # type: ignore[union-attr]
    click(qtbot, panel.unlock_buttons["dealer"])            # ...nothing was done
    give_reason(qtbot, w, "identity checked, the dealer mistyped")
    assert "Dana Dealer unlocked" in panel.message.text()
    assert "Recorded as Sam Supervisor" in panel.message.text()
    assert "dealer" not in panel.unlock_buttons
    unlock = [r for r in station.journal.records(station.table_id)
              if r.kind == "user.unlock"]
    assert len(unlock) == 1 and unlock[0].actor == "super/supervisor"
    assert unlock[0].payload == {"user_id": "dealer",
                                 "reason": "identity checked, the dealer mistyped"}
    sign_in(qtbot, w, "dealer", "1111")
    assert w.session.user is not None and w.current_screen == "dealer"


def test_only_an_operator_unlocks_a_supervisor(qtbot: Any, station: Station) -> None:
    w = open_window(qtbot, station)
    for pin in ("9999", "9998", "9997"):
        sign_in(qtbot, w, "super", pin)
    sign_in(qtbot, w, "operator", "3333")
    click(qtbot, w.nav["supervisor"])
    sup = w.screens["supervisor"]
    sup.tabs.setCurrentWidget(sup.lockouts)
    panel = sup.lockouts
    qtbot.waitUntil(lambda: "super" in panel.unlock_buttons, timeout=WAIT_MS)
    click(qtbot, panel.unlock_buttons["super"])
    give_reason(qtbot, w, "forgot the new PIN")
    assert "Sam Supervisor unlocked" in panel.message.text()
    unlock = [r for r in station.journal.records(station.table_id)
              if r.kind == "user.unlock"]
    assert unlock[-1].actor == "operator/operator"
