"""Signing in at the station: a wrong PIN, a lockout, the inactivity lock, who sees what."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_support import WAIT_MS, click, open_window, sign_in, station_fixture

from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.station import Station


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
    assert "wrong PIN" in w.login.message.text() and w.login.message.isVisible()
    assert w.login.pin_edit.text() == ""              # a PIN never stays on screen
    sign_in(qtbot, w, "dealer", "9998")
    sign_in(qtbot, w, "dealer", "9997")
    assert "Locked out" in w.login.message.text()
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
    assert visible == {"dealer"}
    w.show_screen("supervisor")                        # F3 does nothing for a dealer
    assert w.current_screen == "dealer"
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
