"""The stop banner says everything, and the felt does not move for it: the whole remedy
wrapped at 18 px or larger, never cut; the device's own error text (``E42 ...``); nothing
only in a tooltip; the felt the same size and in the same place with a banner as without;
its *Supervisor* button gone while the supervisor is on screen; a device's fault that stops
nothing said in the device's words; a device's pill touched says all it knows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from ui_support import WAIT_MS, click, sign_in

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.ui.main_window import MainWindow

E42 = ("E42", "card jammed at the reader head; feed motor stalled twice")


def settle(qtbot: Any) -> None:
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(20)


def dealer_mid_round(qtbot: Any, w: MainWindow, station: Station) -> Any:
    """The dealer signed in, seven seats' wagers on the felt and card 1 dealt."""
    sign_in(qtbot, w, "dealer", "1111")
    screen = w.screens["dealer"]
    t: Any = station.table
    t.place_many([Wager(seat, bet, values, 500) for seat in range(1, 8)
                  for bet, values in (("straight", ("JK",)), ("split", ("2", "8")),
                                      ("red", ()), ("lapaire", ("JK",)))],
                 actor="dealer/dealer")
    station.simulator("shoe").send_card("KH")
    qtbot.waitUntil(lambda: screen.card_views[0].card is not None, timeout=WAIT_MS)
    settle(qtbot)
    return screen


def halted(qtbot: Any, w: MainWindow) -> None:
    qtbot.waitUntil(lambda: w.table.halt is not None and w.banner.isVisible()
                    and w.banner.halt is not None, timeout=WAIT_MS)
    settle(qtbot)


def shown_words(w: MainWindow) -> str:
    """What the banner's labels show on screen now, as plain text (rich text read as a
    person reads it)."""
    out = []
    for label in w.banner.findChildren(QLabel):
        if not label.isVisible():
            continue
        if label.textFormat() == Qt.TextFormat.RichText:
            doc = QTextDocument()
            doc.setHtml(label.text())
            out.append(doc.toPlainText())
        else:
            out.append(label.text())
    return " ".join(out)


def words_in_sight(qtbot: Any, w: MainWindow) -> None:
    """Every label of the banner is shown whole: wrapped, at 18 px or larger, as tall as its
    words need, inside the banner and the window, and the banner's words do not scroll."""
    settle(qtbot)
    bar = w.banner.words_box.verticalScrollBar()
    assert bar.maximum() == 0 and not bar.isVisible(), "the banner's words scroll"
    window = QRect(0, 0, w.width(), w.height())
    banner = QRect(w.banner.mapTo(w, QPoint(0, 0)), w.banner.size())
    assert window.contains(banner), (banner, window)
    for label in w.banner.findChildren(QLabel):
        if not label.isVisible() or not label.text():
            continue
        label.ensurePolished()
        assert label.font().pixelSize() >= 18, (label.objectName(), label.font().pixelSize())
        assert label.wordWrap(), label.objectName()
        assert label.height() >= label.heightForWidth(label.width()), (
            f"{label.objectName()} is {label.height()} px high, its words need "
            f"{label.heightForWidth(label.width())}")
        where = QRect(label.mapTo(w, QPoint(0, 0)), label.size())
        assert banner.contains(where), (label.objectName(), where, banner)


def felt_geometry(w: MainWindow) -> tuple[Any, ...]:
    view = w.screens["dealer"].layout_view
    return (view.mapTo(w, QPoint(0, 0)), view.size(), view._transform())


def jam(station: Station) -> None:
    station.simulator("shoe").set_status("JAM")


def device_error(station: Station) -> None:
    station.simulator("shoe").report_error(*E42)


def misread(station: Station) -> None:
    shoe = station.simulator("shoe")
    shoe.inject("misread")
    shoe.deal()


def unplugged(station: Station) -> None:
    station.simulator("shoe").inject("disconnect", duration=30)


HALTS: dict[str, Callable[[Station], None]] = {
    "jam": jam, "device error": device_error, "misread": misread, "unplugged": unplugged}


@pytest.mark.parametrize("halt", list(HALTS))
def test_the_felt_keeps_its_size_and_place_when_a_banner_shows(
        qtbot: Any, window: MainWindow, station: Station, halt: str) -> None:
    dealer_mid_round(qtbot, window, station)
    before = felt_geometry(window)
    HALTS[halt](station)
    halted(qtbot, window)
    assert felt_geometry(window) == before
    # A notice between halts (a card read and held) leaves it where it is too.
    window.banner.show_halt(None)
    window.banner.show_notice("Card JS was read but not taken (held, not dealt). " * 3)
    settle(qtbot)
    assert felt_geometry(window) == before


@pytest.mark.parametrize("halt", list(HALTS))
def test_the_banner_says_the_whole_remedy_wrapped_never_cut(
        qtbot: Any, window: MainWindow, station: Station, halt: str) -> None:
    dealer_mid_round(qtbot, window, station)
    HALTS[halt](station)
    halted(qtbot, window)
    remedy = window.table.halt.remedy
    words = shown_words(window)
    assert remedy in words, (remedy, words)
    assert "…" not in words
    words_in_sight(qtbot, window)
    # The same on the supervisor's screen, across its top.
    window.show_screen("supervisor")
    settle(qtbot)
    assert not window.banner_over_screen
    assert remedy in shown_words(window) and "…" not in shown_words(window)
    words_in_sight(qtbot, window)


def test_the_devices_own_error_text_shows(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """The shoe's ERROR frame (code E42 and its text) stops the round: the banner says it as
    the shoe said it, in sight on the dealer's screen."""
    dealer_mid_round(qtbot, window, station)
    device_error(station)
    halted(qtbot, window)
    words = shown_words(window)
    assert "E42" in words and E42[1] in words, words
    words_in_sight(qtbot, window)


def test_nothing_is_only_in_a_tooltip(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """The header, the banner and the dealer's controls hold no tooltip: what one said is
    on screen, or said by a touch."""
    screen = dealer_mid_round(qtbot, window, station)
    device_error(station)
    halted(qtbot, window)
    header = window.devices_bar.parentWidget()
    assert header is not None
    seats = screen.seat_buttons[1].parentWidget()
    parts: list[QWidget] = [header, window.banner, screen.layout_view, seats,
                            screen.pad, *screen.chip_buttons, screen.remove_button,
                            screen.next_amount]
    tipped = []
    for part in parts:
        for w in (part, *part.findChildren(QWidget)):
            if w.toolTip():
                tipped.append(f"{type(w).__name__} {w.objectName()!r}: {w.toolTip()!r}")
    assert not tipped, tipped


def test_the_supervisor_button_goes_while_the_supervisor_is_on_screen(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    dealer_mid_round(qtbot, window, station)
    jam(station)
    halted(qtbot, window)
    assert window.banner.button.isVisible()
    click(qtbot, window.banner.button)                   # the dealer calls a supervisor
    assert window.current_screen != "dealer"
    assert window.banner.button.isHidden()               # the supervisor's sign-in
    window.session.sign_in_over("super", "2222")       # as the supervisor's PIN pad does
    qtbot.waitUntil(lambda: window.current_screen == "supervisor", timeout=WAIT_MS)
    settle(qtbot)
    assert window.banner.isVisible() and window.banner.button.isHidden()
    assert "for Dana Dealer" in window.user_label.text()   # whose session, on screen
    # A card read meanwhile is held and listed, in the felt's words: still all in sight
    # over the supervisor's screen.
    station.simulator("shoe").send_card("QD")
    qtbot.waitUntil(lambda: "Q♦" in shown_words(window), timeout=WAIT_MS)
    words_in_sight(qtbot, window)
    click(qtbot, window.back_button)
    qtbot.waitUntil(lambda: window.current_screen == "dealer", timeout=WAIT_MS)
    assert window.banner.button.isVisible()


def test_a_device_fault_that_stops_nothing_is_said_in_the_devices_words(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """No round in play: the shoe's error stops nothing, and a notice says it as the shoe
    said it, until OK (or a while); a touch on the shoe's pill says it again."""
    sign_in(qtbot, window, "dealer", "1111")
    station.simulator("shoe").report_error("E7", "battery low in the card counter")
    qtbot.waitUntil(lambda: "E7" in shown_words(window) and window.banner.isVisible(),
                    timeout=WAIT_MS)
    assert window.table.halt is None
    assert "battery low in the card counter" in shown_words(window)
    assert window.banner_over_screen                     # the felt keeps its place
    click(qtbot, window.banner.dismiss)
    qtbot.waitUntil(lambda: not window.banner.isVisible(), timeout=WAIT_MS)
    pill = window.devices_bar.pills["shoe"]
    assert "FAULT" in pill.state_text
    qtbot.mouseClick(pill, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.banner.isVisible(), timeout=WAIT_MS)
    assert "battery low in the card counter" in shown_words(window)
