"""The supervisor's screen: game recall, significant events, meters and journal verification,
all read from the journal after rounds played through the table service."""

from __future__ import annotations

from typing import Any

from touch_support import give_reason
from ui_support import WAIT_MS, click, sign_in

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.ui.events_tab import EventsModel
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.models import MetersModel, RecallModel
from dealer_station.ui.touch_sheet import current_sheet


def play_round(station: Station, cards: list[str]) -> None:
    t: Any = station.table
    t.place_many([Wager(1, "straight", ("K",), 500), Wager(2, "split", ("2", "3"), 100),
                  Wager(2, "red", (), 100)], actor="dealer/dealer")
    for c in cards:
        t.deal(c)
        for n in t.unconfirmed():
            t.confirm_payout(n)


def test_recall_shows_every_detail_of_the_last_rounds(qtbot: Any, window: MainWindow,
                                                      station: Station) -> None:
    play_round(station, ["KH", "2C", "9D"])
    play_round(station, ["3S", "4C", "5D"])
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    sup.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: sup.recall_model.rowCount() == 2, timeout=WAIT_MS)
    model = sup.recall_model
    assert model.data(model.index(0, RecallModel.ROUND)) == "2"      # newest first
    assert model.data(model.index(1, RecallModel.CARDS)) == "KH  2C  9D"
    assert model.data(model.index(1, RecallModel.PAID)) == "61.00"
    html = sup.recall_detail.toPlainText()
    assert "Round 2" in html and "Split 2-3" in html and "dealer/dealer" in html
    sup.recall_view.selectRow(1)
    qtbot.waitUntil(lambda: "Round 1" in sup.recall_detail.toPlainText(), timeout=WAIT_MS)
    text = sup.recall_detail.toPlainText()
    assert "K♥" in text and "Payout confirmed" in text and "Journal records" in text


def test_events_meters_and_verification(qtbot: Any, window: MainWindow,
                                        station: Station) -> None:
    play_round(station, ["KH", "2C", "9D"])
    sign_in(qtbot, window, "dealer", "0000")           # a failure, a significant event
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    sup.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: sup.events_tab.model.rowCount() > 0, timeout=WAIT_MS)
    events = [sup.events_tab.model.data(sup.events_tab.model.index(r, EventsModel.WHAT))
              for r in range(sup.events_tab.model.rowCount())]
    assert "Sign-in refused: wrong PIN" in events and "Signed in" in events
    assert "User added" in events
    sup.tabs.setCurrentIndex(3)
    qtbot.waitUntil(lambda: sup.meters_model.rowCount() > 0, timeout=WAIT_MS)
    m = sup.meters_model
    assert m.data(m.index(0, MetersModel.METER)) == "Total"
    assert m.data(m.index(0, MetersModel.WAGERED)) == "7.00"
    assert m.data(m.index(0, MetersModel.PAID)) == "61.00"
    assert m.data(m.index(0, MetersModel.HOUSE_WIN)) == "-60.00"
    sup.tabs.setCurrentIndex(4)
    click(qtbot, sup.verify_button)
    assert "The journal is intact" in sup.verify_result.text()
    verify = [r for r in station.journal.records(station.table_id) if r.kind == "verify"]
    assert verify and verify[-1].actor == "super/supervisor" and verify[-1].payload["ok"]


def test_tampering_is_reported_by_verify(qtbot: Any, window: MainWindow,
                                         station: Station) -> None:
    play_round(station, ["KH", "2C", "9D"])
    from sqlalchemy import text
    with station.journal.db.write() as conn:
        conn.execute(text("UPDATE journal SET payload = replace(payload, '500', '5000') "
                          "WHERE table_id = 'T1' AND kind = 'wager.place'"))
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    sup.tabs.setCurrentIndex(4)
    click(qtbot, sup.verify_button)
    assert "has been altered" in sup.verify_result.text()
    assert "FAILED" in sup.verify_result.text()


def test_verify_on_screen_names_an_edited_round_row_and_a_raised_role(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """The screen proves what `audit verify` proves: the rounds projection and the users."""
    play_round(station, ["KH", "2C", "9D"])
    from sqlalchemy import text
    with station.journal.db.write() as conn:
        conn.execute(text("UPDATE rounds SET dealer = 'mallory/dealer' WHERE table_id = 'T1'"))
        conn.execute(text("UPDATE users SET role = 'operator' WHERE user_id = 'dealer'"))
        conn.execute(text("UPDATE meters SET paid = 0, house_win = wagered "
                          "WHERE table_id = 'T1'"))
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    sup.tabs.setCurrentIndex(3)     # the meters shown are the chain's, not the edited table's
    qtbot.waitUntil(lambda: sup.meters_model.rowCount() > 0, timeout=WAIT_MS)
    m = sup.meters_model
    assert m.data(m.index(0, MetersModel.METER)) == "Total"
    assert m.data(m.index(0, MetersModel.PAID)) != "0.00"
    paid = station.journal.meters_from_chain("T1")["total"].paid
    assert paid > 0 and m.data(m.index(0, MetersModel.PAID)) == f"{paid / 100:,.2f}"
    sup.tabs.setCurrentIndex(4)
    click(qtbot, sup.verify_button)
    shown = sup.verify_result.text()
    assert "has been altered" in shown
    assert "table T1: projection FAILED: " in shown and "mallory/dealer" in shown
    assert "users: projection FAILED: user dealer: role is &#x27;operator&#x27;" in shown
    verify = [r for r in station.journal.records(station.table_id) if r.kind == "verify"]
    assert verify[-1].payload["ok"] and verify[-1].payload["projections_ok"] is False


def test_recall_shows_who_confirmed_each_payout_and_the_wagers_taken_back(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    _kept, gone = t.place_many([Wager(1, "straight", ("K",), 500),
                                Wager(2, "split", ("2", "3"), 100)], actor="dealer/dealer")
    t.remove(gone.wager_id, actor="dealer/dealer")
    for c in ("KH", "2C", "9D"):
        t.deal(c)
        for n in t.unconfirmed():
            t.confirm_payout(n, actor="dealer/dealer")
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    sup.tabs.setCurrentIndex(1)
    qtbot.waitUntil(lambda: sup.recall_model.rowCount() == 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Round 1" in sup.recall_detail.toPlainText(), timeout=WAIT_MS)
    text = " ".join(sup.recall_detail.toPlainText().split())
    # Card 1 paid the straight-up K: the dealer confirmed it.
    assert "Payout confirmed by dealer/dealer" in text
    assert "Wagers taken back" in text
    assert f"2 #{gone.wager_id} Split 2-3 1.00 dealer/dealer dealer/dealer" in text


def test_resume_is_refused_on_screen_while_the_shoe_is_jammed_and_halts_are_in_the_events(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    t.place_many([Wager(1, "straight", ("K",), 500)], actor="dealer/dealer")
    station.simulator("shoe").set_status("JAM")
    qtbot.waitUntil(lambda: t.halt is not None and window.banner.isVisible(), timeout=WAIT_MS)
    assert "the shoe is jammed" in window.banner.text and "Waiting" in window.banner.text
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    assert "Before resuming" in sup.round_state.text()
    click(qtbot, sup.resume_button)          # refused at once: no reason is asked
    assert current_sheet(window) is None
    shown = sup.message.text()
    assert "Not done: cannot resume yet: the shoe still reports JAM" in shown
    assert "clear the jam" in shown and t.halt is not None
    station.simulator("shoe").set_status("READY")
    qtbot.waitUntil(lambda: "a supervisor can now resume" in window.banner.text,
                    timeout=WAIT_MS)
    click(qtbot, sup.resume_button)
    give_reason(qtbot, window, "looked at it")
    qtbot.waitUntil(lambda: t.halt is None, timeout=WAIT_MS)
    sup.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: sup.events_tab.model.rowCount() > 0, timeout=WAIT_MS)
    m = sup.events_tab.model
    rows = [(m.data(m.index(r, EventsModel.WHAT)), m.data(m.index(r, EventsModel.DETAIL)))
            for r in range(m.rowCount())]
    assert ("Halt resolved: resumed",
            f"resumed by Sam Supervisor (supervisor) (the halt at record "
            f"{next(r.seq for r in station.journal.records('T1') if r.kind == 'halt')}); "
            f"reason: looked at it") in rows
    assert any(e == "Halt (play stopped)" and d.startswith("the shoe is jammed")
               and "stopped by the shoe" in d for e, d in rows)


def test_resume_and_void_wait_for_something_to_act_on(qtbot: Any, window: MainWindow,
                                                      station: Station) -> None:
    """Nothing stopped and no round open: neither can be touched. An open round may be
    voided (a dispute); only a stopped one resumed; a card entered only for a misread."""
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    assert "Not stopped" in sup.round_state.text()
    assert not sup.resume_button.isEnabled() and not sup.void_button.isEnabled()
    assert not sup.correct_button.isEnabled()
    t: Any = station.table
    t.place_many([Wager(1, "straight", ("K",), 500)], actor="dealer/dealer")
    qtbot.waitUntil(lambda: sup.void_button.isEnabled(), timeout=WAIT_MS)
    assert not sup.resume_button.isEnabled()
    station.simulator("shoe").set_status("JAM")
    qtbot.waitUntil(lambda: sup.resume_button.isEnabled(), timeout=WAIT_MS)
    assert sup.void_button.isEnabled() and not sup.correct_button.isEnabled()


def test_the_round_tabs_words_are_read_from_a_metre(qtbot: Any, window: MainWindow,
                                                    station: Station) -> None:
    """The device line under a halt (which device, its id, what it said) is no smaller than
    18 px, like the rest of the tab."""
    import re

    t: Any = station.table
    t.place_many([Wager(1, "straight", ("K",), 500)], actor="dealer/dealer")
    station.simulator("shoe").report_error("E42", "card jammed at the reader head")
    qtbot.waitUntil(lambda: t.halt is not None, timeout=WAIT_MS)
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    html = sup.round_state.text()
    assert "id SIMSHOE" in html and "E42" in html
    sizes = [int(px) for px in re.findall(r"font-size:\s*(\d+)px", html)]
    assert sizes and min(sizes) >= 18, sizes
    assert "font-size: 18px" in sup.round_state.styleSheet()
