"""A playing card drawn large enough to read across the table, or an empty slot for one."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QPoint, QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_station.cards import Card
from dealer_station.ui import theme
from dealer_station.ui.paint_cache import Pictures

#: The word across the Joker's face.
JOKER_WORD = "JOKER"

#: Every face drawn, shared by all card views: a 7♥ looks the same in every slot (and
#: either Joker of a deck the same as the other).
_FACES = Pictures()


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
        # A card looks the same every time it is dealt: drawn once per size and then copied.
        QPainter(self).drawPixmap(QPoint(0, 0), self._picture(self.card, self.highlight))

    def warm(self, cards: Iterable[Card]) -> None:
        """Draw the faces of ``cards`` at this view's size, plain and to pay, before any is
        dealt: a card's first showing then costs a copy, not a drawing."""
        for card in cards:
            for highlight in (False, True):
                self._picture(card, highlight)

    def _picture(self, card: Card | None, highlight: bool) -> QPixmap:
        font = self.font()
        key = (("face", card.rank, card.suit, highlight) if card is not None
               else ("slot", self.placeholder), font.key())

        def draw(p: QPainter) -> None:
            _draw(p, card, highlight, self.placeholder, font, self.width(), self.height())

        return _FACES.get(key, self.width(), self.height(), self.devicePixelRatioF(), draw)


def warm_when_idle(view: CardView, cards: Iterable[Card], per_turn: int = 4) -> None:
    """Draw the faces of ``cards`` at ``view``'s size a few at a time, whenever the event
    loop is otherwise idle, until all are drawn (the dealer's first sight of each card is
    then as quick as every later one)."""
    left = list({(c.rank, c.suit): c for c in cards}.values())
    timer = QTimer(view)     # stops with the view

    def turn() -> None:
        view.warm(left[:per_turn])
        del left[:per_turn]
        if not left:
            timer.stop()
            timer.deleteLater()

    timer.timeout.connect(turn)
    timer.start(0)


def _draw(p: QPainter, card: Card | None, highlight: bool, placeholder: str, font: QFont,
          w: int, h: int) -> None:
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    # Keep a card's proportions (5:7) inside whatever room the layout gives.
    ch = min(h - 4, (w - 4) * 7 / 5)
    cw = ch * 5 / 7
    rect = QRectF((w - cw) / 2, (h - ch) / 2, cw, ch)
    radius = cw * 0.08
    if card is None:
        pen = QPen(QColor(theme.BORDER), 2, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.setBrush(QColor(theme.PANEL))
        p.drawRoundedRect(rect, radius, radius)
        f = QFont(font)
        f.setPixelSize(max(12, int(cw * 0.14)))
        p.setFont(f)
        p.setPen(QColor(theme.MUTED))
        p.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, placeholder)
        return
    edge = QColor(theme.GOLD) if highlight else QColor("#c9c9c9")
    p.setPen(QPen(edge, 4 if highlight else 1.5))
    p.setBrush(QColor("#fbfbf8"))
    p.drawRoundedRect(rect, radius, radius)
    if card.is_joker:
        _paint_joker(p, font, rect, radius)
        return
    colour = QColor(theme.CARD_RED if card.is_red else theme.CARD_BLACK)
    p.setPen(colour)
    f = QFont(font)
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


def _paint_joker(p: QPainter, font: QFont, rect: QRectF, radius: float) -> None:
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
    f = QFont(font)
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
