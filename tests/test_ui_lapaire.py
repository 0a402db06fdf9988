"""La Pair'e through the real window, with the simulated shoe: wagers placed and taken back
by touch and keyboard, refusals explained, staged settlement paid and confirmed, a jam, a
misread corrected, a void — each checked on screen and in the journal."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton
from touch_support import give_reason, tap_button
from ui_support import (
    WAIT_MS,
    button_named,
    click,
    sign_in,
    tap_spot,
)

from dealer_station.app import Station
from dealer_station.games.lapaire.ui.models import WagersModel
from dealer_station.ui.main_window import MainWindow


def kinds(station: Station) -> list[str]:
    return [r.kind for r in station.journal.records(station.table_id)]


def records(station: Station, kind: str) -> list[Any]:
    return [r for r in station.journal.records(station.table_id) if r.kind == kind]


def dealer_screen(qtbot: Any, w: MainWindow) -> Any:
    sign_in(qtbot, w, "dealer", "1111")
    assert w.current_screen == "dealer"
    return w.screens["dealer"]


def choose(qtbot: Any, screen: Any, seat: int, chip_index: int) -> None:
    click(qtbot, screen.seat_buttons[seat])
    click(qtbot, screen.chip_buttons[chip_index])


def deal(qtbot: Any, w: MainWindow, n: int, misread: bool = False) -> None:
    """Press the demo strip's button and wait for the card (or the stop) on screen."""
    assert w.demo is not None
    screen = w.screens["dealer"]
    click(qtbot, w.demo.buttons["misread" if misread else "deal"])
    if misread:
        qtbot.waitUntil(lambda: w.banner.isVisible() and w.table.halt is not None,
                        timeout=WAIT_MS)
    else:
        qtbot.waitUntil(lambda: screen.card_views[n - 1].card is not None, timeout=WAIT_MS)


def test_a_complete_round_placed_removed_settled_and_confirmed(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    station.simulator("shoe").set_order(["KH", "8H", "9H"])
    choose(qtbot, screen, 1, 1)                      # seat 1, 5.00 chips
    tap_spot(qtbot, screen, "straight", ("K",))
    tap_spot(qtbot, screen, "red")
    choose(qtbot, screen, 2, 0)                      # seat 2, 1.00 chips
    tap_spot(qtbot, screen, "split", ("2", "8"))
    tap_spot(qtbot, screen, "split", ("8", "2"))
    tap_spot(qtbot, screen, "poker")
    # A row a spot and seat: seat 2's two chips on the split are one row of 2.00.
    qtbot.waitUntil(lambda: screen.seat_buttons[2].text() == "Seat 2\n3.00", timeout=WAIT_MS)
    assert [(r.seat, r.label, r.amount) for r in screen.model.rows] == [
        (1, "Straight K", 500), (1, "Red", 500), (2, "Split 2-8", 200), (2, "Poker", 100)]
    assert screen.layout_view.chips[("split", ("2", "8"))] == {2: 200}
    # Take one chip back from the split (right button).
    tap_spot(qtbot, screen, "split", ("2", "8"), Qt.MouseButton.RightButton)
    qtbot.waitUntil(lambda: screen.model.rows[2].amount == 100, timeout=WAIT_MS)
    assert screen.layout_view.chips[("split", ("2", "8"))] == {2: 100}
    removed = records(station, "wager.remove")
    assert len(removed) == 1 and removed[0].actor == "dealer/dealer"
    assert all(r.actor == "dealer/dealer" for r in records(station, "wager.place"))
    assert records(station, "round.open")[0].payload["dealer"] == "dealer/dealer"

    deal(qtbot, window, 1)
    assert screen.layout_view.marks == {"K": 1}
    assert screen.layout_view.outcomes[("straight", ("K",))] is True
    assert screen.layout_view.outcomes[("split", ("2", "8"))] is False
    assert "Seat 1: Straight K pay 60.00 + stake 5.00 · Red pay 5.00 + stake 5.00" in \
        screen.payouts.text()
    assert "Seat 2: Split 2-8 take 1.00" in screen.payouts.text()
    # The payouts cover the wagers list; its rows as it comes back:
    wins = [r for r in screen.wager_rows if r.result == "win"]
    assert {(r.label, r.win) for r in wins} == {("Straight K", 6000), ("Red", 500)}
    assert screen.model.data(screen.model.index(0, WagersModel.RESULT)) == "pay 60.00"
    assert "Pay card 1" in screen.status.text()
    # Betting closed with the first card: a new wager is refused and nothing is written.
    before = len(kinds(station))
    tap_spot(qtbot, screen, "straight", ("2",))
    assert "betting is closed" in screen.message.text().lower()
    assert len(kinds(station)) == before

    click(qtbot, screen.confirm_button)
    qtbot.waitUntil(lambda: "Waiting for card 2" in screen.status.text(), timeout=WAIT_MS)
    deal(qtbot, window, 2)
    assert screen.layout_view.pair_mark == "8"
    # Nothing settles on card 2 here: the station confirms it by itself.
    qtbot.waitUntil(lambda: "Waiting for card 3" in screen.status.text(), timeout=WAIT_MS)
    assert not screen.confirm_button.isEnabled()
    deal(qtbot, window, 3)
    assert "Poker card: 9♥ — Flush" in screen.payouts.text()
    assert "pay 2.00" in screen.payouts.text()
    assert screen.layout_view.poker_hand == "Flush"
    click(qtbot, screen.confirm_button)
    qtbot.waitUntil(lambda: "Round 2: place wagers" in screen.status.text(), timeout=WAIT_MS)
    assert "Round 1 complete" in screen.message.text()
    info = station.journal.recent_rounds(station.table_id, 1)[0]
    assert info.status == "settled" and info.summary["total_win"] == 6700
    assert [r.actor for r in records(station, "payout.confirm")] == [
        "dealer/dealer", "station", "dealer/dealer"]
    # The next round starts on a clean felt.
    choose(qtbot, screen, 3, 0)
    tap_spot(qtbot, screen, "corner", ("2", "3", "8", "9"))
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=WAIT_MS)
    assert screen.card_views[0].card is None and screen.layout_view.marks == {}


def test_refusals_are_explained_on_the_spot_and_leave_no_trace(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    before = kinds(station)
    choose(qtbot, screen, 1, 0)
    tap_spot(qtbot, screen, "red")
    assert "no first card wager" in screen.message.text().lower()
    assert screen.layout_view._callout is not None
    assert screen.layout_view._callout[0] == ("red", ())
    click(qtbot, screen.chip_buttons[4])             # a 500.00 chip
    tap_spot(qtbot, screen, "straight", ("K",))
    assert "over the table maximum" in screen.message.text().lower()
    click(qtbot, screen.chip_buttons[0])
    tap_spot(qtbot, screen, "split", ("7", "JK"))
    assert "not offered" in screen.message.text().lower()
    tap_spot(qtbot, screen, "split", ("7", "JK"), Qt.MouseButton.RightButton)
    assert "seat 1 has no chip on split 7-jk" in screen.message.text().lower()
    assert kinds(station) == before
    assert screen.model.rowCount() == 0


def test_a_jam_stops_the_round_until_a_supervisor_resumes_it(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    shoe = station.simulator("shoe")
    shoe.set_order(["2S", "3S", "4S", "5S"])
    choose(qtbot, screen, 1, 0)
    tap_spot(qtbot, screen, "straight", ("2",))
    deal(qtbot, window, 1)
    click(qtbot, window.demo.buttons["jam"])
    qtbot.waitUntil(lambda: window.banner.isVisible() and window.table.halt is not None,
                    timeout=WAIT_MS)
    assert "JAM" in window.banner.text and "supervisor" in window.banner.text
    qtbot.waitUntil(lambda: window.devices_bar.text("shoe") == "JAM", timeout=WAIT_MS)
    # A card read while stopped is held, not dealt.
    click(qtbot, window.demo.buttons["deal"])
    qtbot.waitUntil(lambda: "card.held" in kinds(station), timeout=WAIT_MS)
    assert screen.card_views[1].card is None
    # The dealer may not resolve it: the banner's button asks for a supervisor's PIN (see
    # test_ui_supervisor_visit.py); the supervisor may, with a reason.
    click(qtbot, window.banner.button)
    assert window.current_screen == "supervisor sign-in"
    click(qtbot, window.visit_sign_in.cancel_button)
    assert window.current_screen == "dealer"
    click(qtbot, window.demo.buttons["ready"])
    qtbot.waitUntil(lambda: window.devices_bar.text("shoe") == "READY", timeout=WAIT_MS)
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    assert window.current_screen == "supervisor"
    assert "reports JAM" in sup.round_state.text()
    click(qtbot, sup.resume_button)                 # it asks why; cancelled, nothing done
    tap_button(qtbot, window, "Cancel")
    assert window.table.halt is not None
    click(qtbot, sup.resume_button)
    give_reason(qtbot, window, "jam cleared, shoe checked")
    qtbot.waitUntil(lambda: not window.banner.isVisible(), timeout=WAIT_MS)
    resolve = records(station, "resolve")[-1]
    assert resolve.actor == "super/supervisor"
    assert resolve.payload["reason"] == "jam cleared, shoe checked"
    # The round goes on: the supervisor may deal too.
    click(qtbot, window.nav["dealer"])
    deal(qtbot, window, 2)
    assert screen.card_views[1].card is not None


def test_a_misread_card_is_corrected_by_the_supervisor(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    station.simulator("shoe").set_order(["QS", "3D", "4C"])
    choose(qtbot, screen, 4, 1)
    tap_spot(qtbot, screen, "straight", ("Q",))
    deal(qtbot, window, 1, misread=True)
    assert "not recognised" in window.banner.text and window.table.halt.fault == "misread"
    assert "QS" in window.demo.last.text()
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    qtbot.keyClicks(sup.picker.edit, "QX")
    click(qtbot, sup.correct_button)
    assert "Not done" in sup.message.text() and window.table.halt is not None
    sup.picker.clear()
    click(qtbot, button_named(sup.picker, "Q"))
    spades = next(b for b in sup.picker.findChildren(QPushButton)
                  if b.accessibleName() == "Spades")
    click(qtbot, spades)
    assert sup.picker.code == "QS"
    click(qtbot, sup.correct_button)
    give_reason(qtbot, window, "card checked by hand")
    qtbot.waitUntil(lambda: not window.banner.isVisible(), timeout=WAIT_MS)
    assert window.table.halt is None
    correction = records(station, "correction")[0]
    assert correction.actor == "super/supervisor" and correction.payload["card"] == "QS"
    click(qtbot, window.nav["dealer"])
    qtbot.waitUntil(lambda: screen.card_views[0].card is not None, timeout=WAIT_MS)
    assert screen.card_views[0].card.code == "QS"
    assert any(r.result == "win" for r in screen.wager_rows)


def test_a_supervisor_voids_the_round(qtbot: Any, window: MainWindow,
                                      station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    station.simulator("shoe").set_order(["AS", "3D", "4C"])
    choose(qtbot, screen, 2, 0)
    tap_spot(qtbot, screen, "three", ("A", "2", "8"))
    tap_spot(qtbot, screen, "any_pair")
    deal(qtbot, window, 1)
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    click(qtbot, sup.void_button)
    give_reason(qtbot, window, "dispute at seat 2")
    qtbot.waitUntil(lambda: window.table.current is None, timeout=WAIT_MS)
    void = records(station, "void")[0]
    assert void.actor == "super/supervisor" and void.payload["returned"] == [2]
    click(qtbot, window.nav["dealer"])
    qtbot.waitUntil(lambda: "voided" in screen.status.text(), timeout=WAIT_MS)
    results = {r.label: r.result for r in screen.model.rows}
    assert results == {"Three A-2-8": "win", "Any Pair'e": "returned"}
    assert station.journal.recent_rounds(station.table_id, 1)[0].status == "voided"


def test_the_dealer_screen_works_from_the_keyboard(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    station.simulator("shoe").set_order(["AH", "5D", "6C"])
    window.activateWindow()
    view = screen.layout_view
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=WAIT_MS)
    qtbot.keyClick(view, Qt.Key.Key_3)
    qtbot.keyClick(view, Qt.Key.Key_F6)
    assert screen.seat == 3 and screen.chip_value == 500
    qtbot.keyClick(view, Qt.Key.Key_Right)           # the cursor starts on the Ace
    assert view.cursor_spot == ("straight", ("A",))
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: screen.model.rowCount() == 2, timeout=WAIT_MS)
    second = view.cursor_spot
    assert second is not None and second != ("straight", ("A",))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=WAIT_MS)
    assert [(w.seat, w.bet, w.values, w.amount) for w in screen.view.wagers.values()] == [
        (3, "straight", ("A",), 500)]
    qtbot.keyClick(view, Qt.Key.Key_N)               # the demo strip deals
    qtbot.waitUntil(lambda: screen.card_views[0].card is not None, timeout=WAIT_MS)
    qtbot.keyClick(view, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: 1 in screen.view.confirmed, timeout=WAIT_MS)


def test_seven_seats_paid_and_taken_all_show_beside_the_cards(qtbot: Any, window: MainWindow,
                                                              station: Station) -> None:
    """Every seat's pay and take after a card, seven seats at once, none cut off or out of
    sight (the pay list once stopped at seat 6 and clipped seats 5 and 6's take); and the
    panel keeps its layout as cards come (the list does not change size)."""
    from dealer_station.games.lapaire.rules.engine import Wager

    screen = dealer_screen(qtbot, window)
    window.resize(1280, 800)
    payouts = screen.payouts
    qtbot.waitUntil(lambda: window.height() == 800, timeout=WAIT_MS)
    height = payouts.height()
    t: Any = station.table
    t.place_many([w for seat in range(1, 8) for w in (
        Wager(seat, "straight", ("JK",), 500), Wager(seat, "split", ("2", "8"), 100),
        Wager(seat, "red", (), 100))], actor="dealer/dealer")
    t.deal("JK", actor="dealer/dealer")
    qtbot.waitUntil(lambda: "First Card: Joker" in payouts.text(), timeout=WAIT_MS)
    lines = payouts.text().splitlines()
    assert [line.split(":")[0] for line in lines[1:]] == [f"Seat {n}" for n in range(1, 8)]
    assert all("Straight JK pay 125.00 + stake 5.00 · Split 2-8 take 1.00 · Red take 1.00"
               in line for line in lines[1:]), lines
    assert payouts.height() == height
    # Inside the window, and every seat's lines drawn: each has its text.
    corner = payouts.mapTo(window, payouts.rect().bottomRight())
    assert window.rect().contains(corner) and payouts.isVisible()
    image = payouts.grab().toImage()
    assert sorted({line.seat for line in payouts.lines}) == list(range(1, 8))
    for line in payouts.lines:
        r = line.rect.toRect()
        background = image.pixelColor(r.right() - 1, r.center().y())
        inked = {(x, y) for y in range(r.top(), r.bottom())
                 for x in range(r.left(), r.right(), 2)
                 if image.pixelColor(x, y) != background}
        assert len(inked) > 50, f"seat {line.seat}'s line {line.text!r} is blank"


def test_a_card_repaints_the_screen_without_laying_it_out_again(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """Every text of the dealer's screen that changes with a card (the status, the payouts,
    the totals, Confirm, the seats' totals) has a fixed size: a card repaints those parts and
    never makes Qt lay the whole screen out again (what once took most of showing a card)."""
    from PySide6.QtCore import QEvent, QObject

    from dealer_station.games.lapaire.rules.engine import Wager

    class LayoutRequests(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.LayoutRequest:
                self.seen.append(type(watched).__name__ + ":" + watched.objectName())
            return False

    screen = dealer_screen(qtbot, window)
    window.resize(1280, 800)
    t: Any = station.table
    t.place_many([w for seat in range(1, 8) for w in (
        Wager(seat, "straight", ("JK",), 500), Wager(seat, "red", (), 100),
        Wager(seat, "lapaire", ("9",), 100), Wager(seat, "poker", (), 100))],
        actor="dealer/dealer")
    qtbot.waitUntil(lambda: screen.model.rowCount() == 28, timeout=WAIT_MS)
    qtbot.wait(50)
    # The betting's own layout, done however long a busy machine took to get to it: a
    # request climbs one parent per turn of the loop, each delivered here in turn.
    for _ in range(20):
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    watch = LayoutRequests()
    watched = [window, screen, screen.confirm_button.parentWidget(), screen.seat_buttons[1]
               .parentWidget(), window.centralWidget(), screen.parentWidget()]
    for w in watched:
        w.installEventFilter(watch)
    for n, card in enumerate(("9H", "9D", "9S"), start=1):
        t.deal(card, actor="dealer/dealer")
        qtbot.waitUntil(lambda n=n: f"Card {n}" in screen.payouts.text(), timeout=WAIT_MS)
        qtbot.wait(20)
        assert screen.seat_buttons[7].text() != "Seat 7\n—"
        assert screen.view.to_confirm == n     # (the round's end is said in the message,
        if n < 3:                               # which may take more room)
            t.confirm_payout(n, actor="dealer/dealer")
    assert watch.seen == []


def test_a_voided_rounds_message_agrees_with_its_status(qtbot: Any, window: MainWindow,
                                                        station: Station) -> None:
    """The status and the message bar both say voided, and the message what was returned
    (never "complete: paid 0.00")."""
    screen = dealer_screen(qtbot, window)
    station.simulator("shoe").set_order(["AS", "3D", "4C"])
    choose(qtbot, screen, 2, 1)                      # 5.00 chips
    tap_spot(qtbot, screen, "straight", ("A",))
    tap_spot(qtbot, screen, "any_pair")
    deal(qtbot, window, 1)
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    click(qtbot, sup.void_button)
    give_reason(qtbot, window, "dispute at seat 2")
    qtbot.waitUntil(lambda: "voided" in screen.status.text(), timeout=WAIT_MS)
    text = screen.message.text()
    assert "Round 1 voided (dispute at seat 2)" in text
    assert "5.00 in wagers not yet settled returned" in text and "complete" not in text
