"""Entering a card by touch (a value, then a suit) or by typing its code (KH, 10S, JK)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from dealer_station.cards import JOKER, RANKS, CardError, Suit, parse_card


class CardPicker(QWidget):
    """``code`` is the card entered so far; ``changed(code)`` follows every edit."""

    changed = Signal(str)

    def __init__(self, jokers: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(6)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("card, e.g. KH, 10S" + (", JK" if jokers else ""))
        self.edit.setAccessibleName("Card")
        self.edit.textChanged.connect(lambda t: self.changed.emit(t.strip().upper()))
        col.addWidget(self.edit)
        grid = QGridLayout()
        grid.setSpacing(4)
        values = list(RANKS) + ([JOKER] if jokers else [])
        self.rank = ""
        for i, v in enumerate(values):
            b = QPushButton(v)
            b.setObjectName("nav")
            b.setMinimumWidth(44)
            b.clicked.connect(lambda _=False, v=v: self._value(v))
            grid.addWidget(b, 0 if i < 7 else 1, i % 7)
        for i, suit in enumerate(Suit):
            b = QPushButton(suit.symbol)
            b.setObjectName("nav")
            colour = "#ff6b5b" if suit.is_red else "#f2f4f6"
            b.setStyleSheet(f"color: {colour}; font-size: 22px;")
            b.setAccessibleName(suit.name.title())
            b.clicked.connect(lambda _=False, s=suit: self._suit(s))
            grid.addWidget(b, 2, i)
        col.addLayout(grid)

    @property
    def code(self) -> str:
        return self.edit.text().strip().upper()

    def card_error(self) -> str | None:
        """Why the entry is not a card (None when it is one)."""
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
