"""The round's totals beside its cards: what was wagered, paid and collected, and what is
still in play."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from dealer_station.ui import theme


class RoundTotals(QWidget):
    """A head ("Round 12") and a line a figure: its name on the left, the amount in bold on
    the right in its colour. Drawn by hand: it changes on every card, and a rich-text label
    lays a whole document out again each time it is painted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.head = ""
        self.lines: tuple[tuple[str, str, str], ...] = ()
        # Table text (a style sheet's font size is the one the window's style leaves alone).
        self.setStyleSheet(f"font-size: {theme.TABLE_PX}px;")
        self.ensurePolished()

    def line_height(self) -> float:
        return QFontMetricsF(self.font()).lineSpacing()

    def show_totals(self, head: str, lines: list[tuple[str, str, str]]) -> None:
        """``lines``: (name, amount as shown, colour) each."""
        if head != self.head or tuple(lines) != self.lines:
            self.head, self.lines = head, tuple(lines)
            # What a label would have given a screen reader: the totals in words.
            self.setAccessibleName(", ".join([head] * bool(head) + [f"{name} {value}"
                                                                   for name, value, _ in lines]))
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.head:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        step = self.line_height()
        left, right = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignRight
        middle = Qt.AlignmentFlag.AlignVCenter
        bold = QFont(self.font())
        bold.setBold(True)
        p.setFont(bold)
        p.setPen(QColor(theme.TEXT))
        p.drawText(QRectF(0, 0, self.width(), step), left | middle, self.head)
        for i, (name, value, colour) in enumerate(self.lines, start=1):
            row = QRectF(0, i * step, self.width(), step)
            p.setFont(self.font())
            p.setPen(QColor(theme.TEXT))
            p.drawText(row, left | middle, name)
            p.setFont(bold)
            p.setPen(QColor(colour))
            p.drawText(row, right | middle, value)
