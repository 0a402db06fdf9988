"""The La Pair'e dealer screen's seats: a button a seat (its colour, name, stake and net
after settling, in table text), side by side in a row of fixed height."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import (
    QColor,
    QFont,
    QPaintEvent,
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QPushButton,
    QSizePolicy,
    QStyleOptionButton,
    QStylePainter,
    QWidget,
)

from dealer_station.games.lapaire.ui.rebet_plate import PLATE_PX, RebetPlate
from dealer_station.ui import theme
from dealer_station.ui.paint_cache import Pictures, Texts, paint_button_face

#: The seat row's height: a seat's button with its name, the stake and the net after
#: settling (three lines of table text), or, while its rebet plate is offered, the button
#: over the plate, each a fingertip high.
SEAT_LINE_PX = 27
SEAT_STRIPE_PX = 6
SEAT_SPACING = 4
SEAT_ROW_PX = 2 * theme.TARGET_PX + SEAT_SPACING

#: The parts of the screen, and which committed events change each (a halt or a
#: resolution changes only the status line, which is always redrawn).
class SeatButton(QPushButton):
    """A seat: its colour along the top, its name, what it staked and its net after
    settling. Touching it anywhere selects the seat (the rebet plate is a button of its own,
    under it)."""

    def __init__(self, seat: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seat = seat
        self.setCheckable(True)
        self.setAccessibleName(f"Seat {seat}")
        colour = theme.seat_colour(seat).name()
        self._pictures = Pictures()
        self.setStyleSheet(
            f"QPushButton {{ border-top: {SEAT_STRIPE_PX}px solid {colour};"
            f" font-size: {theme.TABLE_PX}px; padding: 0px; min-height: 0px; }}"
            f" QPushButton:checked {{ background: {theme.GOLD}; color: #151515;"
            f" border-top: {SEAT_STRIPE_PX}px solid {colour}; }}")
        self.set_total("")

    def set_total(self, text: str) -> None:
        self.setText(f"Seat {self.seat}\n{text or '—'}")

    def paintEvent(self, event: QPaintEvent) -> None:
        """The button as styled, its lines drawn in table text: the seat (bold), what it
        staked, and its net (green won, red lost), each as large as the button's width
        allows up to table text and never under the least size read from a metre
        (``+10,000.00`` in a seventh of the felt). While the seat's rebet plate takes the
        foot of its column, the button shows the seat's name alone."""
        p = QStylePainter(self)
        opt = QStyleOptionButton()
        self.initStyleOption(opt)
        opt.text = ""
        paint_button_face(self, p, self._pictures, opt)
        box = QRectF(self.rect()).adjusted(1, SEAT_STRIPE_PX, -1, -1)
        lines = self.text().split("\n")[: max(1, int(box.height() // SEAT_LINE_PX))]
        line_h = min(SEAT_LINE_PX, box.height() / len(lines))
        top = box.top() + (box.height() - line_h * len(lines)) / 2
        dark = self.isChecked()
        for i, line in enumerate(lines):
            bold = i != 1
            colour = "#151515" if dark else theme.TEXT
            if i == 2 and not dark:
                colour = theme.BAD if line.startswith("−") else theme.GOOD
            p.setPen(QColor(colour))
            _TEXTS.draw(p, QRectF(box.left(), top + i * line_h, box.width(), line_h), line,
                        _fitted(self.font(), line, box.width(), bold), centre=True)


def _fitted(base: QFont, text: str, width: float, bold: bool) -> QFont:
    """Table text for ``text``, condensed and then smaller only where ``width`` needs it
    (remembered: seven buttons ask again on every card, mostly for the same texts)."""
    key = (base.family(), text, round(width, 1), bold)
    found = _FITTED.get(key)
    if found is None:
        if len(_FITTED) > 1024:
            _FITTED.clear()
        found = _FITTED[key] = theme.fit_font(base, text, width, bold, theme.TABLE_PX)
    return found


_FITTED: dict[tuple[str, str, float, bool], QFont] = {}
#: The seats' lines, laid out once a text and font (a seat's name and stake stay card after
#: card).
_TEXTS = Texts()


class SeatRow(QWidget):
    """The seats side by side in a row of fixed height, so that the felt keeps its size as
    the seats' totals come and go: a column a seat, its button over the whole column, or,
    while its rebet plate is offered, the button in the column's top and the plate at its
    foot (neither ever covers the other). Placed by hand at a fixed size each, not by a
    layout: a seat's total changes with every card, and a button in a layout would have Qt
    lay the whole screen out again each time."""

    SPACING = SEAT_SPACING

    def __init__(self, buttons: list[SeatButton], plates: list[RebetPlate],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.buttons = buttons
        self.plates = plates
        self.setFixedHeight(SEAT_ROW_PX)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumWidth(len(buttons) * (theme.TARGET_PX + self.SPACING))
        for b, plate in zip(buttons, plates, strict=True):
            b.setParent(self)
            plate.setParent(self)
            plate.offered_changed.connect(lambda _=False, b=b, pl=plate: self._place(b, pl))

    def _place(self, b: SeatButton, plate: RebetPlate) -> None:
        x, w = plate.x(), plate.width()
        if plate.offered:
            b.setFixedSize(w, self.height() - PLATE_PX - self.SPACING)
        else:
            b.setFixedSize(w, self.height())
        b.move(x, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        n = len(self.buttons)
        room = self.width() - self.SPACING * (n - 1)
        x = 0
        for i, (b, plate) in enumerate(zip(self.buttons, self.plates, strict=True)):
            w = room * (i + 1) // n - room * i // n
            plate.setGeometry(x, self.height() - PLATE_PX, w, PLATE_PX)
            self._place(b, plate)
            x += w + self.SPACING
        super().resizeEvent(event)
