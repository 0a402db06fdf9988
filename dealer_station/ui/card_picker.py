"""Entering a card by touch (a value, then a suit) or by typing its code (KH, 10S, JK).

The value and the suit chosen stay marked; the card so far shows above them. A physical
keyboard may still type the code in that field, but nothing needs it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dealer_station.cards import JOKER, RANKS, CardError, Suit, parse_card
from dealer_station.ui import theme

#: A value's or a suit's key: a fingertip's size (the theme's small buttons are 40 px).
KEY_PX = 52


def _key(text: str, size: int = 20, colour: str | None = None) -> QPushButton:
    b = QPushButton(text)
    b.setCheckable(True)
    b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    b.setMinimumSize(KEY_PX, KEY_PX)
    b.setStyleSheet(f"QPushButton {{ min-height: {KEY_PX - 6}px; min-width: {KEY_PX - 10}px; "
                    f"padding: 0px; font-size: {size}px; font-weight: bold;"
                    + (f" color: {colour};" if colour else "") + " }"
                    f" QPushButton:checked {{ color: #1a1a1a; background: {theme.GOLD}; }}")
    return b


class CardPicker(QWidget):
    """``code`` is the card entered so far; ``changed(code)`` follows every edit."""

    changed = Signal(str)

    def __init__(self, jokers: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(6)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("touch a value, then a suit")
        self.edit.setAccessibleName("Card")
        self.edit.setMinimumHeight(KEY_PX)
        self.edit.setStyleSheet("font-size: 24px; font-weight: bold;")
        self.edit.textChanged.connect(self._typed)
        col.addWidget(self.edit)
        grid = QGridLayout()
        grid.setSpacing(4)
        values = list(RANKS) + ([JOKER] if jokers else [])
        self.rank = ""
        self.value_group = QButtonGroup(self)
        self.value_buttons: dict[str, QPushButton] = {}
        for i, v in enumerate(values):
            b = _key(v)
            b.setAccessibleName("Joker" if v == JOKER else f"Value {v}")
            b.clicked.connect(lambda _=False, v=v: self._value(v))
            self.value_group.addButton(b)
            self.value_buttons[v] = b
            grid.addWidget(b, 0 if i < 7 else 1, i % 7)
        self.suit_group = QButtonGroup(self)
        self.suit_buttons: dict[Suit, QPushButton] = {}
        for i, suit in enumerate(Suit):
            b = _key(suit.symbol, 26, "#ff6b5b" if suit.is_red else "#f2f4f6")
            b.setAccessibleName(suit.name.title())
            b.clicked.connect(lambda _=False, s=suit: self._suit(s))
            self.suit_group.addButton(b)
            self.suit_buttons[suit] = b
            grid.addWidget(b, 2, i)
        col.addLayout(grid)

    @property
    def code(self) -> str:
        return self.edit.text().strip().upper()

    def card_error(self) -> str | None:
        """Why the entry is not a card (None when it is one)."""
        if not self.code:
            return "no card entered: touch its value, then its suit"
        try:
            parse_card(self.code)
        except CardError as exc:
            return str(exc)
        return None

    def clear(self) -> None:
        self.rank = ""
        self.edit.clear()

    def _value(self, value: str) -> None:
        self.rank = value
        self.edit.setText(value)

    def _suit(self, suit: Suit) -> None:
        rank = self.rank or self.code.rstrip("SHDC♠♥♦♣")
        if rank and rank != JOKER:
            self.edit.setText(f"{rank}{suit.value}")

    def _typed(self, text: str) -> None:
        """Mark the value and suit of what the field holds (touched or typed)."""
        code = text.strip().upper()
        suit = next((s for s in Suit if code and len(code) > 1 and code.endswith(s.value)),
                    None)
        rank = code[:-1] if suit is not None else code
        for v, b in self.value_buttons.items():
            self._mark(self.value_group, b, v == rank)
        for s, b in self.suit_buttons.items():
            self._mark(self.suit_group, b, s is suit)
        self.changed.emit(code)

    @staticmethod
    def _mark(group: QButtonGroup, button: QPushButton, on: bool) -> None:
        if button.isChecked() != on:
            group.setExclusive(False)
            button.setChecked(on)
            group.setExclusive(True)
