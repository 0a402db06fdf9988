"""Taps a round takes at the La Pair'e dealer screen: the standard 4-seat round of 9 wagers
(dealer_station/games/lapaire/ui/standard_round.py) in 12 touches from a fresh screen, choosing
the chip included (one of them the chip dragged onto its first spot; 13 when the chip is tapped
first), with a rebet that leaves the seat selected as it was, a stack counted on the keypad
(Count chips on from the start), and a chip that stays chosen."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QApplication
from ui_support import WAIT_MS, click, sign_in, tap_spot

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.ui import standard_round
from dealer_station.ui.amount_pad import AmountError, parse_amount, parse_count
from dealer_station.ui.main_window import MainWindow


def dealer_screen(qtbot: Any, w: MainWindow) -> Any:
    sign_in(qtbot, w, "dealer", "1111")
    return w.screens["dealer"]


def seat_4_played_last_round(station: Station) -> None:
    t: Any = station.table
    t.place_many([Wager(s.seat, s.bet, s.values, s.amount)
                  for s in standard_round.SEAT_4_LAST_ROUND], actor="dealer/dealer")
    for card in ("2C", "3D", "4S"):
        t.deal(card, actor="dealer/dealer")
        for stage in t.unconfirmed():
            t.confirm_payout(stage, actor="dealer/dealer")
    assert t.current is None


def count_presses(qtbot: Any, window: MainWindow, station: Station, drag: bool) -> int:
    """The presses the standard round takes from a fresh screen (the dealer signed in, seat
    4's last round played), checked to have placed the round as intended."""
    screen = dealer_screen(qtbot, window)
    seat_4_played_last_round(station)
    qtbot.waitUntil(lambda: screen.rebet_plates[4].isVisible(), timeout=WAIT_MS)
    assert screen.rebet_plates[4].text() == "↻ 15.00"
    assert screen.chip_value != standard_round.CHIP     # fresh: the chip is still to choose
    presses = standard_round.Presses()
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(presses)
    marks: list[int] = []
    try:
        standard_round.play(screen, on_first_wager=lambda: marks.append(presses.count),
                            drag=drag)
    finally:
        app.removeEventFilter(presses)
    t: Any = station.table
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 10, timeout=WAIT_MS)   # 10.00: 2 chips
    with t.lock:
        on_table = standard_round.on_the_table(t.current.engine.wagers.values())
    assert on_table == standard_round.intended()
    assert marks == [0]          # nothing was touched before the round's first touch
    # Nothing else was needed: the rebet plate went once seat 4 had its wagers.
    qtbot.waitUntil(lambda: not screen.rebet_plates[4].isVisible(), timeout=WAIT_MS)
    return presses.count


def test_the_standard_round_takes_twelve_touches_from_a_fresh_screen(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """The chip chosen as it is placed (dragged from the chip row onto Straight 7), Count
    chips on from the start, and seat 1 still selected after seat 4's rebet."""
    assert count_presses(qtbot, window, station, drag=True) == 12


def test_the_standard_round_takes_thirteen_taps_with_the_chip_tapped_first(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    assert count_presses(qtbot, window, station, drag=False) == 13


def test_a_rebet_leaves_the_seat_selected_as_it_was(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """Seat 4's rebet with seat 1 selected: seat 1 stays selected, and the next touch on the
    felt places seat 1's chip, with no touch of seat 1 again."""
    screen = dealer_screen(qtbot, window)
    seat_4_played_last_round(station)
    assert screen.seat == 1
    click(qtbot, screen.rebet_plates[4])
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 2, timeout=WAIT_MS)
    assert screen.seat == 1 and screen.seat_buttons[1].isChecked()
    tap_spot(qtbot, screen, "straight", ("7",))
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 3, timeout=WAIT_MS)
    assert sorted(w.seat for w in screen.view.wagers.values()) == [1, 4, 4]


def test_a_chip_dragged_onto_the_felt_is_chosen_and_placed(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """The 25.00 chip pressed, moved onto Straight K and let go there: 25.00 on Straight K for
    the selected seat, and 25.00 is the chip from then on (a count typed before counts it)."""
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    screen = dealer_screen(qtbot, window)
    chip = screen.chip_buttons[2]
    assert chip.value == 2500 and screen.chip_value != 2500
    click(qtbot, screen.pad.keys["2"])                     # a stack of two
    point = screen.layout_view.spot_centre("straight", ("K",))
    there = chip.mapFromGlobal(screen.layout_view.mapToGlobal(
        QPoint(round(point.x()), round(point.y()))))
    qtbot.mousePress(chip, Qt.MouseButton.LeftButton, pos=chip.rect().center())
    QTest.mouseMove(chip, there)
    assert screen.layout_view._hover == ("straight", ("K",))     # lit under the finger
    qtbot.mouseRelease(chip, Qt.MouseButton.LeftButton, pos=there)
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 1, timeout=WAIT_MS)
    (w,) = screen.view.wagers.values()
    assert (w.seat, w.bet, w.values, w.amount) == (1, "straight", ("K",), 5000)
    assert screen.chip_value == 2500 and chip.isChecked()
    assert screen.layout_view._hover is None


def test_a_typed_amount_is_for_the_next_wager_and_the_chip_stays_chosen(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    assert screen.pad.counting                           # on from the start
    click(qtbot, screen.pad.count_key)                   # off: the digits type money
    click(qtbot, screen.chip_buttons[1])                 # 5.00
    for key in "12.5":
        click(qtbot, screen.pad.keys[key])
    assert "12.50 typed" in screen.next_amount.text()
    click(qtbot, screen.seat_buttons[2])                 # survives a change of seat
    tap_spot(qtbot, screen, "straight", ("7",))
    tap_spot(qtbot, screen, "red")                        # the chip again
    click(qtbot, screen.seat_buttons[3])
    tap_spot(qtbot, screen, "straight", ("K",))           # still the chip after a seat change
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 3, timeout=WAIT_MS)
    assert sorted((w.seat, w.bet, w.amount) for w in screen.view.wagers.values()) == [
        (2, "red", 500), (2, "straight", 1250), (3, "straight", 500)]
    assert screen.chip_value == 500 and screen.chip_buttons[1].isChecked()
    assert "chip 5.00" in screen.next_amount.text()
    # Bad input says what is wrong and places nothing.
    for key in "1.2.":
        click(qtbot, screen.pad.keys[key])
    tap_spot(qtbot, screen, "straight", ("9",))
    assert "not an amount" in screen.message.text()
    assert len(screen.view.wagers) == 3


def test_a_rebet_refused_says_why_and_places_nothing(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    seat_4_played_last_round(station)
    qtbot.waitUntil(lambda: screen.rebet_plates[4].isVisible(), timeout=WAIT_MS)
    click(qtbot, screen.rebet_plates[4])
    qtbot.waitUntil(lambda: screen.view.status == "open", timeout=WAIT_MS)
    assert "Seat 4: rebet 2 wagers, 15.00" in screen.message.text()
    assert screen.seat == 1                  # the seat selected stays so
    # Once the seat has wagers the plate is gone; the keyboard's R is refused by the table.
    assert not screen.rebet_plates[4].isVisible()
    screen.rebet(4)
    assert "already has wagers in this round" in screen.message.text()
    assert len(screen.view.wagers) == 2


def test_amounts_are_typed_in_money() -> None:
    from dealer_station.games.lapaire.config_file import load_lapaire_config

    money = load_lapaire_config().money
    assert parse_amount("25", money) == 2500
    assert parse_amount("12.50", money) == 1250
    assert parse_amount("12.5", money) == 1250
    assert parse_amount(".5", money) == 50
    for bad, says in (("", "no amount"), ("1.2.3", "not an amount"),
                      ("1.234", "more than 2 digits"), ("0", "more than 0"),
                      ("abc", "not an amount")):
        try:
            parse_amount(bad, money)
        except AmountError as exc:
            assert says in str(exc), (bad, str(exc))
        else:
            raise AssertionError(f"{bad!r} was taken")


def test_counted_chips_make_a_stack_and_counting_stays_on(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    click(qtbot, screen.chip_buttons[1])                 # 5.00
    assert screen.pad.counting and not screen.pad.keys["."].isEnabled()    # from the start
    assert "1 chip of 5.00" in screen.next_amount.text()
    click(qtbot, screen.pad.keys["5"])
    assert screen.next_amount.text() == "Next: 5 × 5.00\n= 25.00"
    tap_spot(qtbot, screen, "straight", ("7",))           # a stack of five: one wager of 25.00
    tap_spot(qtbot, screen, "red")                        # the chip again, one of them
    click(qtbot, screen.chip_buttons[2])                 # 25.00
    click(qtbot, screen.pad.keys["2"])
    click(qtbot, screen.seat_buttons[2])
    tap_spot(qtbot, screen, "straight", ("K",))           # 2 x 25.00, still counting
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 3, timeout=WAIT_MS)
    assert sorted((w.seat, w.bet, w.amount) for w in screen.view.wagers.values()) == [
        (1, "red", 500), (1, "straight", 2500), (2, "straight", 5000)]
    assert screen.pad.counting
    # A count that is no stack says so and places nothing.
    click(qtbot, screen.pad.keys["0"])
    tap_spot(qtbot, screen, "poker")
    assert "no stack" in screen.message.text()
    assert len(screen.view.wagers) == 3
    # Off again: what was typed is dropped (it meant chips), and digits are money once more.
    click(qtbot, screen.pad.count_key)
    assert not screen.pad.counting and screen.pad.typed == ""
    for key in "7.5":
        click(qtbot, screen.pad.keys[key])
    assert "7.50 typed" in screen.next_amount.text()


def test_a_count_is_a_whole_number_of_chips() -> None:
    assert parse_count("5") == 5
    assert parse_count("99") == 99
    for bad, says in (("", "no count"), ("0", "no stack"), ("2.5", "whole number"),
                      ("100", "more than a stack of 99")):
        try:
            parse_count(bad)
        except AmountError as exc:
            assert says in str(exc), (bad, str(exc))
        else:
            raise AssertionError(f"{bad!r} was taken")


def test_a_touch_on_the_lower_half_of_a_seat_selects_it_and_places_no_rebet(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """Seat 3 played last round and has its rebet plate: the plate is under the seat's
    button, never over it, and a touch on the lower half of "Seat 3" selects seat 3."""
    from PySide6.QtCore import QPoint, QRect, Qt

    screen = dealer_screen(qtbot, window)
    t: Any = station.table
    t.place_many([Wager(3, "straight", ("5",), 500)], actor="dealer/dealer")
    for card in ("2C", "3D", "4S"):
        t.deal(card, actor="dealer/dealer")
        for stage in t.unconfirmed():
            t.confirm_payout(stage, actor="dealer/dealer")
    plate, seat = screen.rebet_plates[3], screen.seat_buttons[3]
    qtbot.waitUntil(lambda: plate.isVisible(), timeout=WAIT_MS)
    where = QRect(seat.mapTo(window, QPoint(0, 0)), seat.size())
    plate_at = QRect(plate.mapTo(window, QPoint(0, 0)), plate.size())
    assert not where.intersects(plate_at), (where, plate_at)
    for b in (seat, plate):
        assert b.width() >= 44 and b.height() >= 44, (b.accessibleName(), b.size())
    qtbot.mouseClick(seat, Qt.MouseButton.LeftButton,
                     pos=QPoint(seat.width() // 2, seat.height() * 3 // 4))
    assert screen.seat == 3
    qtbot.wait(50)
    assert t.current is None and plate.isVisible(), "the touch placed the rebet"
