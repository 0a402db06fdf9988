"""Every state of every screen fits the station's 1280x800 screen.

Real halts are driven through the simulated devices and the table (a misread, a card that
cannot be in the shoe, a jam, an open door, tampering, a device lost with a long id and a long
detail, a clock jump, a card read while stopped), for La Pair'e and for Bourré; after each,
the window must still be 1280x800 (a label that does not wrap makes Qt grow it past the
screen), and the controls a dealer or supervisor needs (Confirm, Take back, seat 7, Lock, the
banner's Supervisor button, every rank and suit of the supervisor's card picker) must lie
inside it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from ui_support import WAIT_MS, sign_in, station_fixture

from dealer_station.app import Station
from dealer_station.cards import parse_card
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.hardware.events import (
    CardRead,
    ConnectionChanged,
    ConnectionState,
    DeviceFault,
    FaultKind,
)
from dealer_station.ui import theme
from dealer_station.ui.main_window import MainWindow

SCREEN = QRect(0, 0, *theme.WINDOW_SIZE)
LONG_ID = "SHUFFLE-MASTER-DECKMATE-2-SERIAL-0042-7731-BRANCH-WEST-WING-TABLE-ELEVEN"
LONG_DETAIL = ("lost /dev/serial/by-id/usb-Shuffle_Master_DeckMate_2_Card_Shoe_with_Reader_"
               "0042-7731-if00-port0 (device reports a read error: [Errno 5] Input/output "
               "error); anything the shoe sent meanwhile is lost; reconnecting by itself every "
               "2 s until it answers again")


def settle(qtbot: Any) -> None:
    """Let queued updates and layouts run (the screens follow the table one turn later)."""
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(30)


def outside(w: MainWindow, widget: QWidget, name: str) -> str | None:
    """Why ``widget`` is not fully on the 1280x800 window, or None."""
    if not widget.isVisible():
        return f"{name} is not shown"
    top_left = widget.mapTo(w, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    if not SCREEN.contains(rect):
        return f"{name} at {rect.getRect()} lies outside the 1280x800 window"
    return None


def check_fits(qtbot: Any, w: MainWindow, controls: dict[str, QWidget]) -> None:
    settle(qtbot)
    problems = []
    if (w.width(), w.height()) != theme.WINDOW_SIZE:
        problems.append(f"the window is {w.width()}x{w.height()}")
    hint = w.minimumSizeHint()
    if hint.width() > SCREEN.width() or hint.height() > SCREEN.height():
        problems.append(f"the window needs at least {hint.width()}x{hint.height()}")
    for name, widget in controls.items():
        why = outside(w, widget, name)
        if why:
            problems.append(why)
    assert not problems, f"[{w.banner.text}] " + "; ".join(problems)


def header_controls(w: MainWindow) -> dict[str, QWidget]:
    out: dict[str, QWidget] = {"Lock": w.lock_button}
    if w.banner.halt is not None and w.current_screen in ("dealer", "operator"):
        out["the banner's Supervisor button"] = w.banner.button
    return out


def picker_controls(w: MainWindow) -> dict[str, QWidget]:
    sup: Any = w.screens["supervisor"]
    buttons = sup.picker.findChildren(QPushButton)
    out: dict[str, QWidget] = {f"picker {b.accessibleName() or b.text()}": b for b in buttons}
    assert len(out) >= 17       # 13 ranks (and the joker) and 4 suits
    out.update({"Resume": sup.resume_button, "Void": sup.void_button,
                "Enter the card": sup.correct_button, "the supervisor's message": sup.message})
    return out


def lapaire_controls(w: MainWindow) -> dict[str, QWidget]:
    screen: Any = w.screens["dealer"]
    out = {"Confirm": screen.confirm_button, "Take back": screen.remove_button,
           "seat 7": screen.seat_buttons[7]}
    if screen.payouts.isVisibleTo(screen):
        out["the payouts"] = screen.payouts
    out.update({f"card {n + 1}": cv for n, cv in enumerate(screen.card_views)})
    return out


def bourre_controls(w: MainWindow) -> dict[str, QWidget]:
    screen: Any = w.screens["dealer"]
    return {f"seat {n}": box for n, box in screen.seat_boxes.items() if box.isVisibleTo(screen)}


def both_screens(qtbot: Any, w: MainWindow, game_controls: Callable[[MainWindow], dict[str,
                 QWidget]]) -> None:
    """The dealer's screen, then the supervisor's (with a refused resume's message)."""
    w.show_screen("dealer")
    check_fits(qtbot, w, header_controls(w) | game_controls(w))
    w.show_screen("supervisor")
    # The supervisor is on screen: the banner's button that calls one is not.
    assert w.banner.button.isHidden()
    sup: Any = w.screens["supervisor"]
    sup.tabs.setCurrentIndex(0)
    sup.resume("")      # refused (no reason given): the message shows under the buttons
    assert "Not done" in sup.message.text()
    check_fits(qtbot, w, header_controls(w) | picker_controls(w))
    with w.table.lock:
        blockers = w.table.resume_blockers()
    sup._say("Not done: cannot resume yet: " + "; ".join(blockers or [LONG_DETAIL]) + ". "
             + LONG_DETAIL, "bad")          # as long as a refusal gets
    check_fits(qtbot, w, header_controls(w) | picker_controls(w))
    sup.tabs.setCurrentIndex(2)     # the events tab, halts in words
    check_fits(qtbot, w, header_controls(w))
    sup.tabs.setCurrentIndex(0)


def halted(qtbot: Any, w: MainWindow) -> None:
    qtbot.waitUntil(lambda: w.table.halt is not None and w.banner.isVisible()
                    and w.banner.halt is not None, timeout=WAIT_MS)


# -- the halts -----------------------------------------------------------------------------

def misread(station: Station) -> None:
    shoe = station.simulator("shoe")
    shoe.inject("misread")
    shoe.deal()


def impossible_card(station: Station) -> None:
    shoe = station.simulator("shoe")
    shoe.send_card("QH")
    shoe.send_card("QH")     # the same card again in the round: it cannot be in this shoe


def status(state: str) -> Callable[[Station], None]:
    def go(station: Station) -> None:
        station.simulator("shoe").set_status(state)
    return go


def device_lost(station: Station) -> None:
    """A shoe with a long id lost with a long detail, as a serial driver reports it."""
    t = station.table
    t.on_device_event(DeviceFault(device="shoe", device_id=LONG_ID, at=time.monotonic(),
                                  kind=FaultKind.DISCONNECTED, detail=LONG_DETAIL))
    t.on_device_event(ConnectionChanged(device="shoe", device_id=LONG_ID, at=time.monotonic(),
                                        state=ConnectionState.DISCONNECTED,
                                        detail=LONG_DETAIL))


def device_fault_alone(station: Station) -> None:
    """The driver's fault with its long detail, before its connection change: what the
    screens show in between when the GUI thread takes the two updates one at a time."""
    station.table.on_device_event(DeviceFault(
        device="shoe", device_id=LONG_ID, at=time.monotonic(), kind=FaultKind.DISCONNECTED,
        detail=LONG_DETAIL))


def unplugged(station: Station) -> None:
    station.simulator("shoe").inject("disconnect", duration=30)


def unknown_fault(station: Station) -> None:
    station.table.on_device_event(DeviceFault(
        device="reader", device_id=LONG_ID, at=time.monotonic(), kind=FaultKind.DEVICE_ERROR,
        detail="the reader reports E_OPTICAL_SENSOR_CONTAMINATED: " + LONG_DETAIL))


HALTS: dict[str, Callable[[Station], None]] = {
    "misread": misread, "impossible card": impossible_card, "jam": status("JAM"),
    "door open": status("DOOR_OPEN"), "tamper": status("TAMPER"),
    "device lost": device_lost, "device fault alone": device_fault_alone,
    "unplugged": unplugged, "device error": unknown_fault,
}


# -- La Pair'e -----------------------------------------------------------------------------

def a_full_round(station: Station) -> None:
    """Every seat on several spots: the payouts and the wagers list are as long as they get."""
    t: Any = station.table
    wagers = []
    for seat in range(1, 8):
        wagers += [Wager(seat, "straight", ("K",), 2500), Wager(seat, "any_pair", (), 1000),
                   Wager(seat, "lapaire", ("K",), 500), Wager(seat, "poker", (), 500)]
    t.place_many(wagers, actor="super/supervisor")


@pytest.mark.parametrize("halt", list(HALTS))
def test_lapaire_fits_through_every_halt(qtbot: Any, window: MainWindow, station: Station,
                                         halt: str) -> None:
    sign_in(qtbot, window, "super", "2222")
    a_full_round(station)
    station.simulator("shoe").send_card("KH")
    qtbot.waitUntil(lambda: window.screens["dealer"].card_views[0].card is not None,
                    timeout=WAIT_MS)
    both_screens(qtbot, window, lapaire_controls)
    HALTS[halt](station)
    halted(qtbot, window)
    both_screens(qtbot, window, lapaire_controls)
    # A card read while stopped is held and said on screen.
    station.table.on_device_event(CardRead(device="shoe", device_id=LONG_ID,
                                           at=time.monotonic(), seq=9000,
                                           card=parse_card("JS")))
    qtbot.waitUntil(lambda: "J♠" in window.banner.text, timeout=WAIT_MS)
    both_screens(qtbot, window, lapaire_controls)


def test_lapaire_fits_with_a_clock_jump_and_a_long_problem(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    sign_in(qtbot, window, "super", "2222")
    a_full_round(station)
    t: Any = station.table
    with t.lock:
        t._clock_mark = (time.time() - 7200, time.monotonic())
        assert t.check_clock() is not None
    qtbot.waitUntil(lambda: "clock jumped" in window.banner.text, timeout=WAIT_MS)
    both_screens(qtbot, window, lapaire_controls)
    window.banner.show_notice("could not process " + LONG_DETAIL + ": " + LONG_DETAIL)
    both_screens(qtbot, window, lapaire_controls)


def test_the_window_shrinks_back_after_a_halt_is_resolved(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    sign_in(qtbot, window, "super", "2222")
    a_full_round(station)
    device_lost(station)
    station.simulator("shoe").send_card("KH")
    qtbot.waitUntil(lambda: window.table.halt is not None, timeout=WAIT_MS)
    both_screens(qtbot, window, lapaire_controls)
    sup: Any = window.screens["supervisor"]
    window.show_screen("supervisor")
    sup.void("shoe replaced")
    qtbot.waitUntil(lambda: window.table.halt is None and not window.banner.isVisible(),
                    timeout=WAIT_MS)
    both_screens(qtbot, window, lapaire_controls)


# -- Bourré --------------------------------------------------------------------------------

@pytest.fixture
def bourre_station(tmp_path: Path) -> Iterator[Station]:
    yield from station_fixture(tmp_path, game="bourre")


BOURRE_HALTS = ("misread", "jam", "door open", "tamper", "device lost", "device fault alone",
                "device error")


@pytest.mark.parametrize("halt", BOURRE_HALTS)
def test_bourre_fits_through_every_halt(qtbot: Any, bourre_station: Station,
                                        halt: str) -> None:
    from ui_support import open_window

    station = bourre_station
    window = open_window(qtbot, station)
    try:
        sign_in(qtbot, window, "super", "2222")
        t: Any = station.table
        t.start_session(list(range(1, 8)), actor="super/supervisor")
        t.start_hand(actor="super/supervisor")
        station.simulator("shoe").deal()
        qtbot.waitUntil(lambda: t.hand is not None and any(t.hand.held(s) for s in t.hand.seats),
                        timeout=WAIT_MS)
        both_screens(qtbot, window, bourre_controls)
        assert "seat 7" in bourre_controls(window)
        HALTS[halt](station)
        halted(qtbot, window)
        both_screens(qtbot, window, bourre_controls)
        station.table.on_device_event(CardRead(device="shoe", device_id=LONG_ID,
                                               at=time.monotonic(), seq=9000,
                                               card=parse_card("JS")))
        qtbot.waitUntil(lambda: "J♠" in window.banner.text, timeout=WAIT_MS)
        both_screens(qtbot, window, bourre_controls)
    finally:
        window.shutdown()
