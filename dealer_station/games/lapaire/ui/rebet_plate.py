"""The rebet plate under a seat's button: the seat's wagers from its last round, placed again
with one touch, shown while the seat has nothing on the layout yet this round.

The plate is a button of its own beside the seat's, never over it: the seat row gives each
seat a column, and while the plate is offered the seat's button takes the column's top and
the plate its foot (each at least a fingertip high). A touch on the seat's button always
selects the seat; only a touch on the plate places a rebet.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPaintEvent
from PySide6.QtWidgets import QPushButton, QStyleOptionButton, QStylePainter, QWidget

from dealer_station.ui import theme
from dealer_station.ui.paint_cache import Pictures, paint_button_face

#: The plate's height at the foot of the seat's column.
PLATE_PX = theme.TARGET_PX


class RebetPlate(QPushButton):
    """``↻ 15.00``: one touch places the seat's last round again. ``offered_changed`` is
    emitted as the plate comes and goes (the seat row then gives the seat's button its
    room)."""

    offered_changed = Signal(bool)

    def __init__(self, seat: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pictures = Pictures()
        self.seat = seat
        self.setAccessibleName(f"Rebet seat {seat}")
        self.setStyleSheet(
            f"QPushButton {{ background: #20553a; color: #e8f7ee; font-weight: bold;"
            f" border: 2px solid {theme.GOOD}; border-radius: 8px; padding: 0px;"
            f" min-height: 0px; }}")
        self.hide()

    @property
    def offered(self) -> bool:
        return not self.isHidden()

    def offer(self, total: str | None) -> None:
        """Show the plate with the total a rebet places, or (None) hide it."""
        if total is None:
            if not self.isHidden():
                self.hide()
                self.offered_changed.emit(False)
            return
        text = f"↻ {total}"
        if self.text() != text:
            self.setText(text)
            self.update()
        if self.isHidden():
            self.show()
            self.offered_changed.emit(True)

    def paintEvent(self, event: QPaintEvent) -> None:
        """The plate as styled, its text at table size or as large as its width allows,
        never under the least size read from a metre."""
        p = QStylePainter(self)
        opt = QStyleOptionButton()
        self.initStyleOption(opt)
        opt.text = ""
        paint_button_face(self, p, self._pictures, opt)
        box = QRectF(self.rect()).adjusted(3, 0, -3, 0)
        p.setFont(theme.fit_font(self.font(), self.text(), box.width(), True, theme.TABLE_PX))
        p.setPen(QColor("#e8f7ee"))
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, self.text())
