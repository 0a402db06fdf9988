"""A chip of the table's money on the La Pair'e dealer screen, chosen by a tap or dragged
onto the felt."""

from __future__ import annotations

import math

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetricsF,
    QMouseEvent,
)
from PySide6.QtWidgets import (
    QPushButton,
    QWidget,
)

from dealer_station.ui import theme


class ChipButton(QPushButton):
    """A chip of the table's money. A tap chooses it; dragged onto the felt, it is chosen and
    placed on the spot where it is let go, in one touch (``dropped``, with where it was let
    go; ``dragged`` follows the finger off the chip)."""

    dragged = Signal(QPoint)
    dropped = Signal(int, QPoint)

    def __init__(self, value: int, label: str, parent: QWidget | None = None) -> None:
        super().__init__(label, parent)
        self.value = value
        self.setCheckable(True)
        self.setAccessibleName(f"Chip {label}")
        size = 22 if len(label) <= 2 else 19 if len(label) <= 3 else theme.LEAST_PX
        font = QFont(self.font())
        font.setPixelSize(size)
        font.setBold(True)
        # A long face ("1,000") makes the chip wider, never its text smaller.
        width = max(CHIP_PX, math.ceil(QFontMetricsF(font).horizontalAdvance(label)) + 16)
        self.setFixedSize(width, CHIP_PX)
        self.setStyleSheet(
            f"QPushButton {{ border-radius: {CHIP_PX // 2}px; border: 4px dashed #e9e9e9;"
            f" background: #7b2d26; font-size: {size}px; padding: 0px; min-height: 0px; }}"
            f" QPushButton:checked {{ background: {theme.GOLD}; color: #151515;"
            " border: 4px dashed #3b2b00; }")

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        if event.buttons() & Qt.MouseButton.LeftButton and not self.rect().contains(
                event.position().toPoint()):
            self.dragged.emit(event.globalPosition().toPoint())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        off = not self.rect().contains(event.position().toPoint())
        super().mouseReleaseEvent(event)
        if off and event.button() == Qt.MouseButton.LeftButton:
            self.dropped.emit(self.value, event.globalPosition().toPoint())


#: A chip button's size: the chips and the amount keypad's row under them both fit below
#: the seats and their rebet plates, and leave the felt its size.
CHIP_PX = 52
