"""A Bourré seat as the dealer sees it, and the words the Bourré screens share."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

from dealer_station.cards import Card
from dealer_station.ui import theme
from dealer_station.ui.card_view import CardView

MAX_SEATS = 7
DEFAULT_SEATS = (1, 2, 3, 4, 5)
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


class SeatBox(QFrame):
    """One seat as the dealer sees it: never the cards in the player's hand."""

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

    def show_seat(self, *, name: str, chips: int | None, status: str, dealer: bool,
                  to_act: bool, tricks: int | None, played: Card | None,
                  renege: bool) -> None:
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
        self.info.setText("<br>".join(lines))
        border = theme.GOLD if to_act else theme.BORDER
        self.setStyleSheet(f"QFrame#panel {{ border: {4 if to_act else 1}px solid {border};"
                           f" border-radius: 10px; background: {theme.PANEL}; }}")
        self.played.set_card(played)
        self.played.placeholder = "" if played is None else self.played.placeholder
