"""The amount keypad under the felt: type an amount, touch a spot, and that wager is placed
at the amount typed, in one touch rather than chip after chip.

The amount typed is for the next wager only; after it the chosen chip applies again (the
chip stays chosen throughout, and a typed amount waits through seat changes until it is
placed). Amounts are typed in money ("25", "12.50") and kept in minor units.

La Pair'e is played with roulette-style chips: a dealer reads a stack, not a sum. So *Count
chips* is on from the start (it stays as the dealer leaves it): the digits count chips of the
chosen chip, "5" with the 5.00 chip chosen places 25.00. Turned off, they type money.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from dealer_station.errors import StationError
from dealer_station.money import Money
from dealer_station.ui import theme

KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0", ".")
CLEAR = "Clear"
COUNT = "Count chips"
#: Longest amount the pad takes (digits and point): beyond any table's maximum.
MAX_CHARS = 9
#: The tallest stack counted: a bigger wager is typed in money.
MAX_COUNT = 99
#: The keys' height: a fingertip (the felt keeps the rest of the screen).
KEY_PX = theme.TARGET_PX


class AmountError(StationError, ValueError):
    """An amount that cannot be a wager; the message says what is wrong with it."""


def parse_amount(text: str, money: Money) -> int:
    """``"25"`` -> ``2500`` and ``"12.50"`` -> ``1250`` (minor units) for a table whose minor
    units are cents; AmountError saying what is wrong otherwise."""
    t = text.strip()
    if not t:
        raise AmountError("no amount typed")
    # Minor units that are not a power of ten have no decimal form: they are typed whole.
    digits = money.decimals or 0
    whole, point, frac = t.partition(".")
    if not (whole or frac) or not (whole.isdigit() or whole == "") or (
            frac and not frac.isdigit()) or "." in frac:
        raise AmountError(f"{t!r} is not an amount: type digits and at most one point, "
                          f"such as 25 or 12.50")
    if point and digits == 0:
        raise AmountError(f"{t!r}: amounts at this table are whole {money.label}")
    if len(frac) > digits:
        raise AmountError(f"{t!r} has more than {digits} digit{'s' if digits > 1 else ''} "
                          f"after the point")
    value = int(whole or "0") * (money.minor_units if digits else 1) + (
        int(frac.ljust(digits, "0")) if digits else 0)
    if value <= 0:
        raise AmountError(f"{t!r} is no amount: a wager is more than 0")
    return value


def parse_count(text: str) -> int:
    """``"5"`` -> 5 chips; AmountError saying what is wrong otherwise."""
    t = text.strip()
    if not t:
        raise AmountError("no count typed")
    if not t.isdigit():
        raise AmountError(f"{t!r} is not a count of chips: type a whole number, such as 5")
    n = int(t)
    if n < 1:
        raise AmountError(f"{t!r} chips is no stack: count 1 chip or more")
    if n > MAX_COUNT:
        raise AmountError(f"{n} chips is more than a stack of {MAX_COUNT}: turn Count chips "
                          f"off and type the amount in money")
    return n


class AmountPad(QWidget):
    """A row of keys: *Count chips*, the digits, the point, and Clear. ``typed`` is what has
    been typed, ``counting`` whether it counts chips (else it is money; counting from the
    start); ``changed`` is emitted after every key."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.typed = ""
        self.counting = False
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.count_key = QPushButton("Count\nchips")
        self.count_key.setCheckable(True)
        self.count_key.setAccessibleName(COUNT)
        self.count_key.setMinimumWidth(84)
        # Two lines at the least size read from a metre, in a key a fingertip high (set in
        # the style sheet, which would otherwise set a least height of its own).
        self.count_key.setStyleSheet(
            f"font-size: {theme.LEAST_PX}px; font-weight: bold; padding: 0px;"
            f" min-height: {KEY_PX - 2}px; max-height: {KEY_PX - 2}px;")
        self.count_key.toggled.connect(self.set_counting)
        row.addWidget(self.count_key, 2)
        self.keys: dict[str, QPushButton] = {}
        for key in (*KEYS, CLEAR):
            b = QPushButton(key)
            b.setAccessibleName(f"Amount key {key}")
            b.setMinimumWidth(theme.TARGET_PX)
            b.setStyleSheet(f"font-size: 22px; font-weight: bold; padding: 0px;"
                            f" min-height: {KEY_PX - 2}px; max-height: {KEY_PX - 2}px;")
            b.clicked.connect(lambda _=False, k=key: self.press(k))
            self.keys[key] = b
            row.addWidget(b, 2 if key == CLEAR else 1)
        self.set_counting(True)

    def set_counting(self, on: bool) -> None:
        """Digits count chips (``on``) or type money; what was typed is dropped, since it
        meant the other."""
        if self.count_key.isChecked() != on:
            self.count_key.setChecked(on)          # calls back here once
            return
        self.counting = on
        self.keys["."].setEnabled(not on)
        self.typed = ""
        self.changed.emit()

    def press(self, key: str) -> None:
        if key == CLEAR:
            self.typed = ""
        elif key == "." and self.counting:
            return
        elif len(self.typed) < MAX_CHARS:
            self.typed += key
        self.changed.emit()

    def clear(self) -> None:
        if self.typed:
            self.typed = ""
            self.changed.emit()
