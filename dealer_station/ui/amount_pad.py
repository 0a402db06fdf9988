"""The amount keypad under the felt: type an amount, touch a spot, and that wager is placed
at the amount typed, in one touch rather than chip after chip.

The amount typed is for the next wager only; after it the chosen chip applies again (the
chip stays chosen throughout, and a typed amount waits through seat changes until it is
placed). Amounts are typed in money ("25", "12.50") and kept in minor units.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from dealer_station.errors import StationError
from dealer_station.settlement.lapaire_config import Money

KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0", ".")
CLEAR = "Clear"
#: Longest amount the pad takes (digits and point): beyond any table's maximum.
MAX_CHARS = 9


class AmountError(StationError, ValueError):
    """An amount that cannot be a wager; the message says what is wrong with it."""


def parse_amount(text: str, money: Money) -> int:
    """``"25"`` -> ``2500`` and ``"12.50"`` -> ``1250`` (minor units) for a table whose minor
    units are cents; AmountError saying what is wrong otherwise."""
    t = text.strip()
    if not t:
        raise AmountError("no amount typed")
    digits = len(str(money.minor_units)) - 1
    if money.minor_units != 10**digits:
        digits = 0                      # minor units that are not a power of ten: whole ones
    whole, point, frac = t.partition(".")
    if not (whole or frac) or not (whole.isdigit() or whole == "") or (
            frac and not frac.isdigit()) or "." in frac:
        raise AmountError(f"{t!r} is not an amount: type digits and at most one point, "
                          f"such as 25 or 12.50")
    if point and digits == 0:
        raise AmountError(f"{t!r}: amounts at this table are whole {money.currency}")
    if len(frac) > digits:
        raise AmountError(f"{t!r} has more than {digits} digit{'s' if digits > 1 else ''} "
                          f"after the point")
    value = int(whole or "0") * (10**digits if money.minor_units == 10**digits else 1) + (
        int(frac.ljust(digits, "0")) if digits else 0)
    if value <= 0:
        raise AmountError(f"{t!r} is no amount: a wager is more than 0")
    return value


class AmountPad(QWidget):
    """A row of keys: the digits, the point, and Clear. ``typed`` is what has been typed;
    ``changed`` is emitted after every key."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.typed = ""
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.keys: dict[str, QPushButton] = {}
        for key in (*KEYS, CLEAR):
            b = QPushButton(key)
            b.setAccessibleName(f"Amount key {key}")
            b.setFixedHeight(52)
            b.setMinimumWidth(44)
            b.setStyleSheet("font-size: 22px; font-weight: bold; padding: 0px;")
            b.clicked.connect(lambda _=False, k=key: self.press(k))
            self.keys[key] = b
            row.addWidget(b, 2 if key == CLEAR else 1)

    def press(self, key: str) -> None:
        if key == CLEAR:
            self.typed = ""
        elif len(self.typed) < MAX_CHARS:
            self.typed += key
        self.changed.emit()

    def clear(self) -> None:
        if self.typed:
            self.typed = ""
            self.changed.emit()
