"""The supervisor's Events tab speaks the pit's words: kinds, people and details in plain
words (never ``device.status``, ``user=super`` or ``device:shoe:SIMSHOE``), and a touch on a
row opens its whole detail on a panel closed by a large button. Played on the real window,
its simulated shoe and a real SQLite journal."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from ui_support import WAIT_MS, click

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.ui.events_tab import EventsModel
from dealer_station.ui.main_window import MainWindow

LONG_REASON = ("player dispute: seat 2 says the queen was exposed before the deal; the video "
               "was checked with the shift manager and every wager returned")
#: What the journal calls things, which no one at the table should have to read.
JOURNAL_WORDS = ("device.status", "device:shoe", "user=", "why=", "super/",
                 "dealer/dealer", "login.failed", "device_error", "user_id", "halt_seq")


def test_the_events_tab_says_who_and_what_in_words_and_opens_a_row_whole(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    session = window.session
    session.sign_in("dealer", "1111")
    t.place_many([Wager(1, "straight", ("K",), 500)], actor="dealer/dealer")
    shoe = station.simulator("shoe")
    shoe.set_status("JAM")
    qtbot.waitUntil(lambda: t.halt is not None, timeout=WAIT_MS)
    shoe.set_status("READY")
    qtbot.waitUntil(lambda: not t.resume_blockers(), timeout=WAIT_MS)
    t.resume(session.sign_in_over("super", "2222"), "shoe jam cleared")
    session.end_visit()                                   # "back to the dealer"
    shoe.report_error("E42", "card jammed at the reader head")
    qtbot.waitUntil(lambda: t.halt is not None, timeout=WAIT_MS)
    sup = session.sign_in_over("super", "2222")
    t.void(sup, LONG_REASON)
    window.show_screen("supervisor")
    screen: Any = window.screens["supervisor"]
    tab = screen.events_tab
    screen.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(lambda: tab.model.rowCount() > 0, timeout=WAIT_MS)
    m = tab.model
    rows = [[str(m.data(m.index(r, c))) for c in range(m.columnCount())]
            for r in range(m.rowCount())]
    shown = "\n".join(" | ".join(r) for r in rows)
    for word in JOURNAL_WORDS:
        assert word not in shown, (word, shown)
    what = [r[EventsModel.WHAT] for r in rows]
    assert "Shoe ready" in what and "Shoe jammed" in what
    assert "Signed out: back to the dealer" in what
    logout = next(r for r in rows if r[EventsModel.WHAT] == "Signed out: back to the dealer")
    assert logout[EventsModel.WHO] == "Sam Supervisor (supervisor)"
    assert logout[EventsModel.DETAIL] == ("Sam Supervisor signed out: back to the dealer "
                                          "(Dana Dealer still signed in)")
    fault = next(r for r in rows if r[EventsModel.WHAT] == "The shoe reports an error")
    assert fault[EventsModel.WHO] == "the shoe"
    assert fault[EventsModel.DETAIL] == "the shoe reports E42: card jammed at the reader head"
    assert any(r[EventsModel.WHO] == "Dana Dealer (dealer)" and r[EventsModel.WHAT] ==
               "Signed in" for r in rows)
    # Read from a metre: the list's text is 18 px or more, each row a touch target.
    view = tab.list.view
    assert view.font().pixelSize() >= 18
    assert view.verticalHeader().defaultSectionSize() >= 44
    # The void's detail does not fit its cell: a touch on the row shows it whole.
    row = next(i for i, r in enumerate(rows) if r[EventsModel.WHAT] == "Round 1 voided")
    rect = view.visualRect(m.index(row, EventsModel.DETAIL))
    detail = rows[row][EventsModel.DETAIL]
    assert LONG_REASON in detail
    assert QFontMetrics(view.font()).horizontalAdvance(detail) > rect.width()
    assert not tab.list.showing_detail
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: tab.list.showing_detail, timeout=WAIT_MS)
    panel = tab.list.detail
    assert panel.detail.text() == detail and panel.what.text() == "Round 1 voided"
    assert "Sam Supervisor (supervisor)" in panel.facts.text()
    assert panel.detail.font().pixelSize() >= 18
    assert panel.close_button.height() >= 56 and panel.close_button.width() >= 300
    click(qtbot, panel.close_button)
    qtbot.waitUntil(lambda: not tab.list.showing_detail, timeout=WAIT_MS)
    # The device's own id is on the panel, not in the list.
    fault_row = next(i for i, r in enumerate(rows) if r is fault)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.visualRect(m.index(fault_row, EventsModel.WHO)).center())
    qtbot.waitUntil(lambda: tab.list.showing_detail, timeout=WAIT_MS)
    assert "the shoe (SIMSHOE)" in panel.facts.text()
