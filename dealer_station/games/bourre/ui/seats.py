"""A Bourré seat as the dealer sees it, and the words the Bourré screens share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.cards import Card
from dealer_station.ui import theme
from dealer_station.ui.card_view import CardView

MAX_SEATS = 7
DEFAULT_SEATS = (1, 2, 3, 4, 5)
#: The longest player's name the seat box and the reports have room for.
MAX_NAME = 24
RULE_NAMES = {
    "lead_highest_trump": "must lead the highest trump (holding A, K and Q of trumps)",
    "follow_suit": "must follow suit",
    "beat_led_suit": "must beat the winning card of the led suit",
    "must_trump": "must trump (no card of the led suit)",
    "beat_trump": "must beat the highest trump in the trick",
}


def seat_list(values: Any) -> str:
    items = [str(v) for v in values]
    return ", ".join(items) if items else "none"


def seat_who(seat: object, players: Mapping[int, str]) -> str:
    """A seat as the dealer sees it on the felt: ``Ada (seat 1)`` when the player is named,
    ``seat 1`` when not (a session seats an unnamed player under the seat's number)."""
    name = players.get(int(str(seat))) if str(seat).isdigit() else None
    return f"{name} (seat {seat})" if name and name != str(seat) else f"seat {seat}"


def seat_name(seat: object, players: Mapping[int, str]) -> str:
    """The player's name alone (``Ada``), or ``seat 1`` for an unnamed player."""
    name = players.get(int(str(seat))) if str(seat).isdigit() else None
    return name if name and name != str(seat) else f"seat {seat}"


def and_list(items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def capital(text: str) -> str:
    """The first letter up, the rest as it is (``seat 1 takes`` -> ``Seat 1 takes``)."""
    return text[:1].upper() + text[1:]


class SeatBox(QFrame):
    """One seat as the dealer sees it: never the cards in the player's hand. A touch on it
    emits ``tapped`` (the screen lets the dealer name the player before a session)."""

    tapped = Signal(int)

    def __init__(self, seat: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seat = seat
        self.setObjectName("panel")
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 6, 8, 6)
        col.setSpacing(2)
        self.title = QLabel(f"Seat {seat}")
        self.title.setStyleSheet("font-size: 19px; font-weight: bold;")
        col.addWidget(self.title)
        self.info = QLabel("")
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.info.setWordWrap(True)
        col.addWidget(self.info)
        self.played = CardView("")
        self.played.setMinimumHeight(84)
        col.addWidget(self.played, 1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(
                event.position().toPoint()):
            self.tapped.emit(self.seat)

    def show_seat(self, *, name: str, chips: int | None, status: str, dealer: bool,
                  to_act: bool, tricks: int | None, played: Card | None,
                  renege: bool, winning: bool = False, hint: str = "") -> None:
        colour = theme.seat_colour(self.seat).name()
        button = " <span style='background:#f2f4f6; color:#111; border-radius:8px'>" \
                 "&nbsp;D&nbsp;</span>" if dealer else ""
        self.title.setText(f"<span style='color:{colour}'>■</span> Seat {self.seat}"
                           f"{button}")
        lines = [f"<span style='color:{theme.MUTED}'>{escape(name)}</span>"]
        if chips is not None:
            lines.append(f"<b>{chips}</b> chips")
        if status:
            lines.append(status)
        if tricks is not None:
            lines.append(f"tricks: <b>{tricks}</b>")
        if renege:
            lines.append(f"<span style='color:{theme.BAD}'><b>RENEGE</b></span>")
        if winning:
            lines.append(f"<span style='color:{theme.GOLD}'><b>winning the trick</b></span>")
        if hint:
            lines.append(f"<span style='color:{theme.MUTED}'>{escape(hint)}</span>")
        self.info.setText("<br>".join(lines))
        border = theme.GOLD if to_act else theme.BORDER
        self.setStyleSheet(f"QFrame#panel {{ border: {4 if to_act else 1}px solid {border};"
                           f" border-radius: 10px; background: {theme.PANEL}; }}")
        self.played.set_card(played)
        self.played.placeholder = "" if played is None else self.played.placeholder


class NamePad(QFrame):
    """A player's name typed by touch: a keyboard of letters big enough for a fingertip.
    ``done`` gives (seat, name); ``cancelled`` leaves the name as it was."""

    done = Signal(int, str)
    cancelled = Signal()
    ROWS = ("QWERTYUIOP", "ASDFGHJKL'", "ZXCVBNM-.")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        self.seat = 0
        col = QVBoxLayout(self)
        col.setContentsMargins(14, 10, 14, 10)
        col.setSpacing(8)
        self.title = QLabel("")
        self.title.setStyleSheet("font-size: 22px; font-weight: bold;")
        col.addWidget(self.title)
        self.edit = QLineEdit()
        self.edit.setMaxLength(MAX_NAME)
        self.edit.setPlaceholderText("Player's name")
        self.edit.setAccessibleName("Player's name")
        self.edit.setStyleSheet("font-size: 26px;")
        self.edit.returnPressed.connect(self._done)
        col.addWidget(self.edit)
        self.keys: dict[str, QPushButton] = {}
        grid = QGridLayout()
        grid.setSpacing(6)
        for r, row in enumerate(self.ROWS):
            for c, key in enumerate(row):
                b = QPushButton(key)
                b.setObjectName("nav")
                b.clicked.connect(lambda _=False, k=key: self._type(k))
                self.keys[key] = b
                grid.addWidget(b, r, c)
        col.addLayout(grid)
        bottom = QHBoxLayout()
        for key, text, slot, name in (
                ("space", "Space", lambda: self._type(" "), "nav"),
                ("back", "⌫", lambda: self.edit.backspace(), "nav"),
                ("clear", "Clear", lambda: self.edit.clear(), "nav"),
                ("cancel", "Cancel", lambda: self.cancelled.emit(), "nav"),
                ("done", "Done", lambda: self._done(), "primary")):
            b = QPushButton(text)
            b.setObjectName(name)
            b.clicked.connect(slot)
            self.keys[key] = b
            bottom.addWidget(b, 2 if key == "space" else 1)
        col.addLayout(bottom)
        col.addStretch(1)

    def open_for(self, seat: int, name: str) -> None:
        self.seat = seat
        self.title.setText(f"Seat {seat}: the player's name")
        self.edit.setText(name)
        self.show()
        self.edit.setFocus()

    def _type(self, key: str) -> None:
        # Typed as a name is written: a capital first, then small letters.
        text = self.edit.text()
        starts_word = not text or text[-1] in " -'"
        self.edit.insert(key if starts_word else key.lower())

    def _done(self) -> None:
        self.done.emit(self.seat, " ".join(self.edit.text().split()))
