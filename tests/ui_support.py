"""Shared set-up for the UI tests (a pytest plugin, no tests here): a station on its own SQLite
journal with simulated devices, its real window offscreen, and helpers that click like a person
would. The ``station`` fixture is a La Pair'e table; a module overrides it for another game or
other options, and ``window`` opens whichever station the module has."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QPushButton, QWidget

from dealer_station.app import Station, fast_hasher, open_station
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.ui import theme
from dealer_station.ui.main_window import MainWindow

WAIT_MS = 5000


def make_station(tmp_path: Path, **options: Any) -> Station:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    journal = Journal(db, create_key(tmp_path / "journal.key"))
    options.setdefault("simulate", True)
    options.setdefault("seed", 7)
    station = open_station(journal, hasher=fast_hasher(), **options)
    station.closers.append(db.close)
    return station


def station_fixture(tmp_path: Path, **options: Any) -> Iterator[Station]:
    """For a module's ``station`` fixture: ``yield from station_fixture(tmp_path)``."""
    st = make_station(tmp_path, **options)
    yield st
    st.close()


def open_window(qtbot: Any, station: Station, **options: Any) -> MainWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = MainWindow(station, **options)
    qtbot.addWidget(w, before_close_func=lambda w: w.shutdown())
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def window_fixture(qtbot: Any, station: Station, **options: Any) -> Iterator[MainWindow]:
    """For a module's ``window`` fixture."""
    w = open_window(qtbot, station, **options)
    yield w
    w.shutdown()


@pytest.fixture
def station(tmp_path: Path) -> Iterator[Station]:
    yield from station_fixture(tmp_path)


@pytest.fixture
def window(qtbot: Any, station: Station) -> Iterator[MainWindow]:
    yield from window_fixture(qtbot, station)


def click(qtbot: Any, button: QWidget) -> None:
    """Click ``button`` once it can be clicked (screens update after the change, queued)."""
    qtbot.waitUntil(lambda: button.isVisible() and button.isEnabled(), timeout=WAIT_MS)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def sign_in(qtbot: Any, w: MainWindow, user: str, pin: str) -> None:
    """Type a user id and PIN on the sign-in screen and press Sign in."""
    if w.session.user is not None:
        click(qtbot, w.lock_button)
    assert w.current_screen == "login"
    w.login.user_edit.clear()
    qtbot.keyClicks(w.login.user_edit, user)
    w.login.pin_edit.clear()
    qtbot.keyClicks(w.login.pin_edit, pin)
    assert w.login.sign_in_button is not None
    click(qtbot, w.login.sign_in_button)


def button_named(parent: QWidget, text: str) -> QPushButton:
    for b in parent.findChildren(QPushButton):
        if b.text().startswith(text):
            return b
    raise AssertionError(f"no button {text!r}")


def tap_spot(qtbot: Any, screen: Any, bet: str, values: tuple[str, ...] = (),
             button: Qt.MouseButton = Qt.MouseButton.LeftButton) -> None:
    """Touch a spot on the felt (right button: take a chip back)."""
    view = screen.layout_view
    point = view.spot_centre(bet, values)
    qtbot.mouseClick(view, button, pos=QPoint(round(point.x()), round(point.y())))
