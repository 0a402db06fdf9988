"""A playing card drawn large enough to read across the table, or an empty slot for one."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_station.cards import Card
from dealer_station.ui import theme
from dealer_station.ui.paint_cache import Pictures

#: The word across the Joker's face.
JOKER_WORD = "JOKER"


class CardView(QWidget):
    """Shows ``card`` face up, or a dashed slot with ``placeholder`` when there is none."""

    def __init__(self, placeholder: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card: Card | None = None
        self.placeholder = placeholder
        self.highlight = False
        self._pictures = Pictures()
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
        # A card looks the same every time it is dealt: drawn once per size and then copied.
        key = (self.card, self.highlight, self.placeholder, self.font().key())
        pix = self._pictures.get(key, self.width(), self.height(), self.devicePixelRatioF(),
                                 self._draw)
        QPainter(self).drawPixmap(QPoint(0, 0), pix)

    def _draw(self, p: QPainter) -> None:
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
        if card.is_joker:
            self._paint_joker(p, rect, radius)
            return
        colour = QColor(theme.CARD_RED if card.is_red else theme.CARD_BLACK)
        p.setPen(colour)
        f = QFont(self.font())
        f.setBold(True)
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

    def _paint_joker(self, p: QPainter, rect: QRectF, radius: float) -> None:
        """The Joker as no other card looks: a purple face edge to edge, a large gold star,
        and JOKER across the card in white, as wide as the card allows (it reads from a
        metre, and a glance tells it from every pip card by its colour alone)."""
        # Inside the card's white edge (and the gold frame of a card to pay), as a print.
        inset = max(3.0, rect.width() * 0.05)
        rect = rect.adjusted(inset, inset, -inset, -inset)
        cw, ch = rect.width(), rect.height()
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(theme.JOKER))
        p.drawRoundedRect(rect, radius * 0.7, radius * 0.7)
        f = QFont(self.font())
        f.setBold(True)
        # The word as wide as the card's inside: its size from the width it takes.
        f.setPixelSize(100)
        scale = cw * 0.84 / QFontMetricsF(f).horizontalAdvance(JOKER_WORD)
        f.setPixelSize(max(12, int(100 * scale)))
        p.setFont(f)
        p.setPen(QColor("#ffffff"))
        band = QRectF(rect.left(), rect.top() + ch * 0.06, cw, ch * 0.3)
        p.drawText(band, Qt.AlignmentFlag.AlignCenter, JOKER_WORD)
        star = QFont(f)
        star.setPixelSize(max(18, int(ch * 0.5)))
        p.setFont(star)
        p.setPen(QColor(theme.GOLD))
        p.drawText(QRectF(rect.left(), rect.top() + ch * 0.34, cw, ch * 0.62),
                   Qt.AlignmentFlag.AlignCenter, "★")
