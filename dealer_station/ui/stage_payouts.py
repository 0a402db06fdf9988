"""What each seat is paid and has taken on the card just settled, a seat a line.

Drawn, not laid out: the list changes with every card, and a rich-text label that did so
made Qt lay out the whole dealer panel again on each card (the slowest part of showing one).
This widget has a fixed height (the card's line and one line for every seat of the table),
so every seat's pay and take is always in sight, and a new card only repaints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_station.ui import theme

#: Points of the list's text (the seats' lines; the card's line is bold).
TEXT_PX = 17


@dataclass(frozen=True, slots=True)
class SeatPayout:
    """One seat's line: what to pay it (and the stake that goes back with the pay), and
    what to take from it, as money text; ``None`` where there is none."""

    seat: int
    pay: str | None = None
    back: str | None = None
    take: str | None = None

    @property
    def text(self) -> str:
        parts = []
        if self.pay is not None:
            parts.append(f"pay {self.pay}" + (f" +{self.back}" if self.back else ""))
        if self.take is not None:
            parts.append(f"take {self.take}")
        return " · ".join(parts)


class StagePayouts(QWidget):
    """The card's line (``head``), then a line for each seat with something to pay or take,
    or a ``note`` when nothing settles on the card."""

    def __init__(self, seats: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seats = seats
        self.head = ""
        self.note = ""
        self.rows: tuple[SeatPayout, ...] = ()
        f = QFont(self.font())
        f.setPixelSize(TEXT_PX)
        self.setFont(f)
        self._line = QFontMetricsF(f).lineSpacing() + 2
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(round(self._line * (seats + 1)) + 4)
        self.setAccessibleName("Payouts for the card")

    def sizeHint(self) -> QSize:
        return QSize(300, self.height())

    def show_stage(self, head: str, rows: Sequence[SeatPayout], note: str = "") -> None:
        rows = tuple(rows)
        if (head, rows, note) == (self.head, self.rows, self.note):
            return
        if len(rows) > self.seats:
            raise ValueError(f"{len(rows)} seats' payouts for a table of {self.seats} seats")
        self.head, self.rows, self.note = head, rows, note
        self.setAccessibleDescription(self.text())
        self.update()

    def clear(self) -> None:
        self.show_stage("", ())

    def text(self) -> str:
        """What the list says, a line each, as a dealer reads it."""
        lines = [self.head] if self.head else []
        if self.note:
            lines.append(self.note)
        lines += [f"Seat {r.seat}: {r.text}" for r in self.rows]
        return "\n".join(lines)

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.head:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        width = float(self.width())
        line = self._line
        plain = self.font()
        bold = QFont(plain)
        bold.setBold(True)
        bold_metrics = QFontMetricsF(bold)
        plain_metrics = QFontMetricsF(plain)
        p.setPen(QColor(theme.TEXT))
        p.setFont(bold)
        # Elided, never wrapped: the card's line keeps its one line (the full text is the
        # widget's accessible description).
        p.drawText(QRectF(0, 0, width, line), Qt.AlignmentFlag.AlignVCenter,
                   bold_metrics.elidedText(self.head, Qt.TextElideMode.ElideRight, width))
        if self.note:
            p.setFont(plain)
            p.drawText(QRectF(0, line, width, line), Qt.AlignmentFlag.AlignVCenter,
                       self.note)
        for i, r in enumerate(self.rows, start=1):
            cell = QRectF(0, i * line, width, line)
            cell.setLeft(self._put(p, cell, "■ ", theme.seat_colour(r.seat).name(), plain))
            cell.setLeft(self._put(p, cell, f"{r.seat}", theme.TEXT, bold))
            # The payouts line up after the widest seat number.
            cell.setLeft(max(cell.left(), plain_metrics.horizontalAdvance("■ 7") + 10))
            if r.pay is not None:
                cell.setLeft(self._put(p, cell, "pay ", theme.GOOD, plain))
                cell.setLeft(self._put(p, cell, r.pay, theme.GOOD, bold))
                if r.back:
                    cell.setLeft(self._put(p, cell, f" +{r.back}", theme.MUTED, plain))
            if r.take is not None:
                if r.pay is not None:
                    cell.setLeft(self._put(p, cell, " · ", theme.TEXT, plain))
                self._put(p, cell, f"take {r.take}", theme.BAD, plain)

    @staticmethod
    def _put(p: QPainter, cell: QRectF, text: str, colour: str, font: QFont) -> float:
        """Draw ``text`` at the left of ``cell``; where the next piece of the line starts."""
        p.setFont(font)
        p.setPen(QColor(colour))
        p.drawText(cell, Qt.AlignmentFlag.AlignVCenter, text)
        return cell.left() + QFontMetricsF(font).horizontalAdvance(text)
