"""The rebet plate on a seat's button: the seat's wagers from its last round, placed again
with one touch, shown on the seat while it has nothing on the layout yet this round."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QPushButton, QWidget

from dealer_station.ui import theme

#: The plate's height at the foot of the seat's button (the seat's name stays in sight).
PLATE_PX = 40
#: The seat's colour stripe on the button's left is left uncovered.
STRIPE_PX = 8


class RebetPlate(QPushButton):
    """A child of the seat's button, kept at its foot as the button is sized."""

    def __init__(self, seat: int, seat_button: QWidget) -> None:
        super().__init__(seat_button)
        self.seat = seat
        self.setAccessibleName(f"Rebet seat {seat}")
        self.setStyleSheet(
            f"QPushButton {{ background: #20553a; color: #e8f7ee; font-size: 17px;"
            f" font-weight: bold; border: 2px solid {theme.GOOD}; border-radius: 6px;"
            f" padding: 0px; }}")
        self.hide()
        seat_button.installEventFilter(self)
        self._place(seat_button)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and isinstance(watched, QWidget):
            self._place(watched)
        return False

    def _place(self, button: QWidget) -> None:
        self.setGeometry(STRIPE_PX, button.height() - PLATE_PX, button.width() - STRIPE_PX,
                         PLATE_PX)

    def offer(self, total: str | None) -> None:
        """Show the plate with the total a rebet places, or (None) hide it."""
        if total is None:
            if self.isVisible():
                self.hide()
            return
        text = f"↻ {total}"
        if self.text() != text:
            self.setText(text)
            self.setToolTip(f"Rebet: place seat {self.seat}'s wagers from its last round "
                            f"again ({total})")
        if not self.isVisible():
            self.show()
