"""A playing card drawn large enough to read across the table, or an empty slot for one."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_station.cards import Card
from dealer_station.ui import theme


class CardView(QWidget):
    """Shows ``card`` face up, or a dashed slot with ``placeholder`` when there is none."""

    def __init__(self, placeholder: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card: Card | None = None
        self.placeholder = placeholder
        self.highlight = False
        self.setMinimumSize(70, 98)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(110, 150)

    def set_card(self, card: Card | None, *, highlight: bool = False) -> None:
        if card != self.card or highlight != self.highlight:
            self.card = card
            self.highlight = highlight
            self.setAccessibleName(card.label if card else self.placeholder)
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        # Keep a card's proportions (5:7) inside whatever room the layout gives.
        ch = min(h - 4, (w - 4) * 7 / 5)
        cw = ch * 5 / 7
        rect = QRectF((w - cw) / 2, (h - ch) / 2, cw, ch)
        radius = cw * 0.08
        if self.card is None:
            pen = QPen(QColor(theme.BORDER), 2, Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(QColor(theme.PANEL))
            p.drawRoundedRect(rect, radius, radius)
            f = QFont(self.font())
            f.setPixelSize(max(12, int(cw * 0.14)))
            p.setFont(f)
            p.setPen(QColor(theme.MUTED))
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                       self.placeholder)
            return
        card = self.card
        edge = QColor(theme.GOLD) if self.highlight else QColor("#c9c9c9")
        p.setPen(QPen(edge, 4 if self.highlight else 1.5))
        p.setBrush(QColor("#fbfbf8"))
        p.drawRoundedRect(rect, radius, radius)
        colour = QColor(theme.CARD_RED if card.is_red else theme.CARD_BLACK)
        if card.is_joker:
            colour = QColor("#6a1b9a")
        p.setPen(colour)
        f = QFont(self.font())
        f.setBold(True)
        if card.is_joker:
            f.setPixelSize(max(14, int(cw * 0.2)))
            p.setFont(f)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, "JOKER\n★")
            return
        assert card.suit is not None
        symbol = card.suit.symbol
        # Corner index, then the big rank and suit in the middle.
        f.setPixelSize(max(12, int(cw * 0.2)))
        p.setFont(f)
        corner = QRectF(rect.left() + cw * 0.07, rect.top() + ch * 0.04, cw * 0.4, ch * 0.3)
        p.drawText(corner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                   f"{card.rank}\n{symbol}")
        f.setPixelSize(max(18, int(cw * (0.42 if len(card.rank) == 1 else 0.34))))
        p.setFont(f)
        middle = QRectF(rect.left(), rect.top() + ch * 0.2, cw, ch * 0.45)
        p.drawText(middle, Qt.AlignmentFlag.AlignCenter, card.rank)
        f.setPixelSize(max(16, int(cw * 0.34)))
        p.setFont(f)
        lower = QRectF(rect.left(), rect.top() + ch * 0.58, cw, ch * 0.38)
        p.drawText(lower, Qt.AlignmentFlag.AlignCenter, symbol)
