"""Pictures drawn once and then copied: what a widget draws the same way card after card.

A card's redraw on the dealer screen repaints the seats, the cards row and the felt. Most of
what they draw looks exactly as it did some cards before: a seat button's styled face, a
7♥ at the size of its slot, a cell of the felt that has won. Drawing those again through the
style sheet engine and the text layout costs milliseconds a card; copying a picture of them
costs microseconds. Each picture is keyed by everything its look depends on, so a copy is
always what drawing it again would have drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QPoint, QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QPainter, QPixmap, QStaticText, QTransform
from PySide6.QtWidgets import QStyle, QStyleOptionButton, QStylePainter, QWidget

#: More pictures than one table ever needs at once (the felt keeps its chips and spots in
#: one store, a few tens of kilobytes each); past it the store starts afresh.
MOST = 1024


class Pictures:
    """Transparent pictures of a widget's parts, at the widget's device pixel ratio."""

    def __init__(self) -> None:
        self._store: dict[Hashable, QPixmap] = {}

    def get(self, key: Hashable, width: float, height: float, ratio: float,
            draw: Callable[[QPainter], None]) -> QPixmap:
        """The picture ``width`` x ``height`` (device-independent pixels) that ``draw``
        paints, drawn now if it is not kept under ``key`` yet."""
        full = (key, width, height, ratio)
        pix = self._store.get(full)
        if pix is None:
            pix = QPixmap(max(1, round(width * ratio)), max(1, round(height * ratio)))
            pix.setDevicePixelRatio(ratio)
            pix.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pix)
            try:
                draw(painter)
            finally:
                painter.end()
            if len(self._store) >= MOST:
                self._store.clear()
            self._store[full] = pix
        return pix

    def has(self, key: Hashable, width: float, height: float, ratio: float) -> bool:
        """Whether the picture is kept (drawing it would cost nothing now)."""
        return (key, width, height, ratio) in self._store

    def clear(self) -> None:
        self._store.clear()


def paint_button_face(widget: QWidget, painter: QStylePainter, pictures: Pictures,
                      opt: QStyleOptionButton) -> None:
    """The push button's face as the style sheet draws it, without its text (which the
    caller draws), copied onto ``painter`` at the origin: kept per state, since a face
    changes only with the button's state."""
    key = ("face", opt.state.value, opt.features.value, widget.styleSheet())

    def draw(face: QPainter) -> None:
        widget.style().drawControl(QStyle.ControlElement.CE_PushButton, opt, face, widget)

    painter.drawPixmap(QPoint(0, 0), pictures.get(key, widget.width(), widget.height(),
                                                  widget.devicePixelRatioF(), draw))


class Texts:
    """Lines of text laid out once per font and then drawn from the layout: a card's payout
    list says "pay", "+ stake 5.00" and the same spot names card after card, and laying a
    line out (shaping it) costs more than drawing it."""

    def __init__(self) -> None:
        # Keyed by the font object itself (the callers keep theirs for good): asking a font
        # for its key costs more than drawing the text. The font is kept with its layouts,
        # so its id cannot pass to another font while they are here.
        self._store: dict[tuple[str, int], tuple[QFont, QStaticText]] = {}

    def draw(self, painter: QPainter, rect: QRectF, text: str, font: QFont,
             right: bool = False, centre: bool = False) -> None:
        """``text`` in ``font`` in ``rect``, centred on its height, at its left edge (its
        right edge if ``right``, its middle if ``centre``), as ``drawText`` with those
        alignments draws it. ``font`` is never changed afterwards (a changed font is a new
        QFont)."""
        key = (text, id(font))
        found = self._store.get(key)
        if found is None:
            st = QStaticText(text)
            st.setTextFormat(Qt.TextFormat.PlainText)
            st.setPerformanceHint(QStaticText.PerformanceHint.AggressiveCaching)
            st.prepare(QTransform(), font)
            if len(self._store) >= MOST:
                self._store.clear()
            self._store[key] = (font, st)
        else:
            st = found[1]
        size = st.size()
        x = (rect.center().x() - size.width() / 2 if centre
             else rect.right() - size.width() if right else rect.left())
        painter.setFont(font)
        painter.drawStaticText(QPointF(x, rect.center().y() - size.height() / 2), st)
