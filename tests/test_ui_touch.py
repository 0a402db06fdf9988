"""A touch screen read from a metre: every button and checkbox of every screen is at least
44x44 px, and the text of the header and the dealer's controls (the role under the user's
name, the header's buttons, the devices, the seats' nets, the chips, Count chips, the rebet
plates) is 18 px or larger."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF, QPainter
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QTabWidget, QWidget
from ui_support import WAIT_MS, open_window, sign_in, station_fixture

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.ui.main_window import MainWindow

LEAST_PX = 18
TARGET_PX = 44


def settle(qtbot: Any) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(20)


def small_targets(w: MainWindow, where: str) -> list[str]:
    out = []
    for b in w.findChildren(QAbstractButton):
        if b.isVisible() and (b.width() < TARGET_PX or b.height() < TARGET_PX):
            out.append(f"{where}: {type(b).__name__} {b.text() or b.accessibleName()!r} is "
                       f"{b.width()}x{b.height()}")
    return out


def every_tab(qtbot: Any, w: MainWindow, where: str) -> Iterator[str]:
    """Each tab of each tab widget on the screen in view, in turn (or the screen itself)."""
    screen = w.stack.currentWidget()
    tabs = [t for t in screen.findChildren(QTabWidget) if t.isVisible()]
    if not tabs:
        settle(qtbot)
        yield where
        return
    for t in tabs:
        for i in range(t.count()):
            t.setCurrentIndex(i)
            settle(qtbot)
            yield f"{where} / {t.tabText(i)}"


def visit_every_screen(qtbot: Any, w: MainWindow) -> list[str]:
    problems = small_targets(w, "sign-in")
    sign_in(qtbot, w, "operator", "3333")
    for name in ("dealer", "supervisor", "operator"):
        w.show_screen(name)
        for where in every_tab(qtbot, w, name):
            problems += small_targets(w, where)
    return problems


def test_every_button_and_checkbox_of_every_la_paire_screen_is_a_fingertip_wide(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    # Seats with a last round (their rebet plates offered), and a round stopped (the stop
    # banner's Supervisor button), on top of every screen and tab.
    t.place_many([Wager(seat, "straight", ("5",), 500) for seat in (1, 3, 6)],
                 actor="super/supervisor")
    for card in ("2C", "3D", "4S"):
        t.deal(card, actor="super/supervisor")
        for stage in t.unconfirmed():
            t.confirm_payout(stage, actor="super/supervisor")
    problems = visit_every_screen(qtbot, window)
    screen: Any = window.screens["dealer"]
    window.show_screen("dealer")
    qtbot.waitUntil(lambda: screen.rebet_plates[3].isVisible(), timeout=WAIT_MS)
    problems += small_targets(window, "dealer with rebet plates")
    t.place_many([Wager(2, "straight", ("K",), 500)], actor="super/supervisor")
    station.simulator("shoe").set_status("JAM")
    station.simulator("shoe").send_card("KH")
    qtbot.waitUntil(lambda: window.banner.isVisible(), timeout=WAIT_MS)
    settle(qtbot)
    problems += small_targets(window, "dealer, round stopped")
    assert not problems, "\n".join(problems)


@pytest.fixture
def bourre_station(tmp_path: Path) -> Iterator[Station]:
    yield from station_fixture(tmp_path, game="bourre")


def test_every_button_and_checkbox_of_every_bourre_screen_is_a_fingertip_wide(
        qtbot: Any, bourre_station: Station) -> None:
    w = open_window(qtbot, bourre_station)
    try:
        problems = visit_every_screen(qtbot, w)
        assert not problems, "\n".join(problems)
    finally:
        w.shutdown()


def sizes(w: QWidget) -> list[int]:
    """Every text size a widget shows: its font's, and any a rich text sets."""
    w.ensurePolished()
    out = [w.font().pixelSize()]
    if isinstance(w, QLabel):
        out += [int(px) for px in re.findall(r"font-size:\s*(\d+)px", w.text())]
    return out


def painted(widget: QWidget, monkeypatch: Any) -> list[tuple[str, int, float, float]]:
    """What ``widget`` paints as text: (text, pixel size, width, room)."""
    drawn: list[tuple[str, int, float, float]] = []
    original = QPainter.drawText

    def spy(p: QPainter, *args: Any) -> Any:
        if len(args) == 3 and isinstance(args[2], str) and args[2]:
            rect, _, text = args
            drawn.append((text, p.font().pixelSize(),
                          QFontMetricsF(p.font()).horizontalAdvance(text),
                          QRectF(rect).width()))
        return original(p, *args)

    monkeypatch.setattr(QPainter, "drawText", spy)
    widget.grab()
    monkeypatch.undo()
    return drawn


def test_the_header_and_the_dealers_controls_are_read_from_a_metre(
        qtbot: Any, window: MainWindow, station: Station, monkeypatch: Any) -> None:
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    settle(qtbot)
    small = []
    header = window.devices_bar.parentWidget()
    assert header is not None
    texts: list[QWidget] = [w for w in header.findChildren(QWidget)
                            if isinstance(w, QLabel | QAbstractButton) and w.isVisible()]
    texts += [screen.pad.count_key, *screen.pad.keys.values(), *screen.chip_buttons,
              screen.remove_button, screen.next_amount]
    for w in texts:
        name = w.text() if isinstance(w, QLabel | QAbstractButton) else ""
        for px in sizes(w):
            if px < LEAST_PX:
                small.append(f"{type(w).__name__} {name!r}: {px} px")
    assert any("dealer" in (w.text() if isinstance(w, QLabel) else "") for w in texts
               if isinstance(w, QLabel)), "the role is not in the header"
    # The seats' lines as painted, the longest net a seat shows among them, and a rebet
    # plate's amount.
    seat = screen.seat_buttons[3]
    seat.set_total("2,450.00\n+10,000.00")
    plate = screen.rebet_plates[3]
    plate.offer("1,250.00")
    settle(qtbot)
    for widget in (seat, plate):
        for text, px, width, room in painted(widget, monkeypatch):
            if px < LEAST_PX:
                small.append(f"{widget.accessibleName()} {text!r}: {px} px")
            assert width <= room + 0.5, f"{text!r} does not fit ({width:.0f} in {room:.0f})"
    assert not small, "\n".join(small)
