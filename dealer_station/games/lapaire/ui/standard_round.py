"""The standard 4-seat round of 9 wagers, and the dealer's touches that place it.

One definition for the tap-count test (tests/test_ui_taps.py) and the UI benchmark
(benchmarks/bench_ui.py): amounts and spots typical of the game. Seat 4 plays its last round
again with a rebet; the others are placed spot by spot, a stack of several chips counted on
the keypad (Count chips is on from the start) just before its spot when that takes fewer
touches than a touch per chip.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget


class Presses(QObject):
    """Every mouse press the application receives, counted once: Qt may hand a press on to
    the widget's parents, the same press (same time, same place) again."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self._last: tuple[int, float, float] | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            where = event.globalPosition()
            press = (event.timestamp(), where.x(), where.y())
            if press != self._last:
                self._last = press
                self.count += 1
        return False


@dataclass(frozen=True)
class Spot:
    seat: int
    bet: str
    values: tuple[str, ...]
    amount: int          # minor units


#: Seat 4's last round (placed before the standard round; the standard round rebets it).
SEAT_4_LAST_ROUND = (Spot(4, "straight", ("Q",), 1000), Spot(4, "black", (), 500))
#: Seats 1 to 3, wager by wager in the order a dealer takes them (a seat's First Card
#: wager before its others).
STANDARD_ROUND = (
    Spot(1, "straight", ("7",), 2500), Spot(1, "red", (), 500),
    Spot(2, "split", ("2", "8"), 1000), Spot(2, "any_pair", (), 500),
    Spot(3, "straight", ("K",), 500), Spot(3, "lapaire", ("9",), 500),
    Spot(3, "poker", (), 500),
)
REBET_SEAT = 4
#: The chip chosen for the round: most of its wagers are of this amount.
CHIP = 500


def intended() -> list[tuple[int, str, tuple[str, ...], int]]:
    """The 9 wagers the round leaves on the table (a seat's chips on a spot summed)."""
    return sorted((s.seat, s.bet, s.values, s.amount)
                  for s in (*STANDARD_ROUND, *SEAT_4_LAST_ROUND))


def on_the_table(wagers: Any) -> list[tuple[int, str, tuple[str, ...], int]]:
    """``wagers`` (the table's wagers, chip by chip) as :func:`intended` says them."""
    spots: dict[tuple[int, str, tuple[str, ...]], int] = {}
    for w in wagers:
        key = (w.seat, w.bet, tuple(w.values))
        spots[key] = spots.get(key, 0) + w.amount
    return sorted((*key, total) for key, total in spots.items())


def play(screen: Any, on_first_wager: Callable[[], None] | None = None, *,
         drag: bool = True) -> None:
    """Place the standard round on the La Pair'e dealer screen ``screen`` by touch, from a
    fresh screen, as a dealer at a table of roulette-style chips would: seat 4's rebet first
    (its plate is there as the round opens, and seat 1 stays selected), then seat by seat,
    each wager the cheaper way (a touch of the spot for each chip in its stack, or the stack
    counted and one touch). The chip is chosen on the way: with ``drag``, the first touch
    that needs it drags it from the chip row onto its spot (chosen and placed in one touch);
    without, it is tapped first. ``on_first_wager`` is called just before the round's first
    touch."""
    from PySide6.QtTest import QTest

    def tap(widget: QWidget, pos: QPoint | None = None) -> None:
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0),
                         pos if pos is not None else widget.rect().center())
        QApplication.processEvents()

    def drag_onto(chip: QWidget, target: QWidget, pos: QPoint) -> None:
        """Press on ``chip``, move onto ``target`` and let go at ``pos`` there: the chip
        button keeps the touch throughout, as a touch screen's press does."""
        there = chip.mapFromGlobal(target.mapToGlobal(pos))
        QTest.mousePress(chip, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0),
                         chip.rect().center())
        QTest.mouseMove(chip, there)
        QTest.mouseRelease(chip, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0), there)
        QApplication.processEvents()

    chip = next(b for b in screen.chip_buttons if b.value == CHIP)
    if on_first_wager is not None:
        on_first_wager()
    tap(screen.rebet_plates[REBET_SEAT])
    if not drag and screen.chip_value != CHIP:
        tap(chip)
    if not screen.pad.counting:
        tap(screen.pad.count_key)
    for s in STANDARD_ROUND:
        if screen.seat != s.seat:
            tap(screen.seat_buttons[s.seat])
        if s.amount % CHIP:
            raise ValueError(f"{s}: not a stack of {CHIP}")
        chips = s.amount // CHIP
        keys = str(chips)
        touches = chips
        if chips > len(keys) + 1:
            for key in keys:
                tap(screen.pad.keys[key])
            touches = 1
        point = screen.layout_view.spot_centre(s.bet, s.values)
        where = QPoint(round(point.x()), round(point.y()))
        for _ in range(touches):
            if screen.chip_value != CHIP:
                drag_onto(chip, screen.layout_view, where)
            else:
                tap(screen.layout_view, where)
