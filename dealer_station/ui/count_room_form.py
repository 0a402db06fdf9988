"""The count room's count form: one box counted by note denomination, the markers apart.

One large field per note the casino counts (``currency_denominations``), empty at first:
touched, it opens the keypad beside it (*Next ›* goes on to the next note, then to the
markers); the value of each count shows as money as it is typed, and the cash's running
total under them. The markers or counter checks are apart: how many, and their total (money,
on the keypad with a point). The box's total is cash plus markers.

*Record the count…* hands the counts to the window, which asks every member of the signed-in
count team to verify them by PIN, one after the other; the count room's core decides
(``table.count_room.CountRoom``) and its refusal, in words, is said on the screen.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.chips import Chips, ChipsError
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.errors import StationError
from dealer_station.ui import theme
from dealer_station.ui.amount_pad import AmountError, parse_amount
from dealer_station.ui.count_room_rows import Box
from dealer_station.ui.page_top import back_and_title
from dealer_station.ui.touch_fields import TouchAmountField, TouchNumberField

#: A count's field: a fingertip high, wide enough for five digits read at a metre.
FIELD_PX = 58
FIELD_W = 170
TEXT_PX = 22
#: The right-hand column: the markers, the box's total, who verifies.
SIDE_W = 500


def note_face(settings: AccountingSettings, denom: int) -> str:
    """A note as people name it: "100", "20", "0.50"."""
    return settings.money.chip_face(denom)


def whole_count(text: str, what: str) -> int:
    """A count typed in a field ("" is 0), or a refusal in words."""
    typed = (text or "").strip()
    if not typed:
        return 0
    if not typed.isascii() or not typed.isdigit():
        raise StationError(f"{what}: {typed!r} is not a whole number (type how many, e.g. 12)")
    return int(typed)


def markers_amount(text: str, settings: AccountingSettings) -> int:
    """The markers' total typed in money ("" or 0 is none), or a refusal in words."""
    typed = (text or "").strip()
    if not typed or (set(typed) <= set("0.") and any(c == "0" for c in typed)):
        return 0
    try:
        return parse_amount(typed, settings.money)
    except AmountError as exc:
        raise StationError(f"the markers' total: {exc}") from None


class CountForm(QWidget):
    """The count form (see the module). ``back``, ``record`` and ``whole_day`` are the
    window's to act on."""

    back = Signal()
    record = Signal()
    whole_day = Signal()

    def __init__(self, settings: AccountingSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.box: Box | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 6, 12, 4)
        col.setSpacing(8)
        top, self.back_button, self.title = back_and_title("Boxes", self.back.emit,
                                                           width=150)
        col.addLayout(top)
        body = QHBoxLayout()
        body.setSpacing(28)
        col.addLayout(body, 1)
        body.addLayout(self._build_notes(), 1)
        body.addLayout(self._build_side())

    # -- building ------------------------------------------------------------------------------

    def _build_notes(self) -> QVBoxLayout:
        left = QVBoxLayout()
        left.setSpacing(6)
        how = QLabel("Count the notes by denomination: touch a field, type how many notes on "
                     "the keypad, Next › for the next note.")
        how.setWordWrap(True)
        how.setObjectName("muted")
        how.setStyleSheet("font-size: 19px;")
        left.addWidget(how)
        grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(6)
        money = self.settings.money
        for c, words in enumerate((f"Note ({money.label})", "Notes counted", "Value")):
            head = QLabel(words)
            head.setStyleSheet(f"color: {theme.MUTED}; font-size: 17px; font-weight: bold;")
            grid.addWidget(head, 0, c, alignment=Qt.AlignmentFlag.AlignRight if c == 0
                           else Qt.AlignmentFlag.AlignLeft)
        self.fields: dict[int, TouchNumberField] = {}
        self.values: dict[int, QLabel] = {}
        for i, denom in enumerate(self.settings.currency_denominations, start=1):
            face = note_face(self.settings, denom)
            note = QLabel(face)
            note.setStyleSheet(f"font-size: {TEXT_PX + 4}px; font-weight: bold; "
                               f"color: {theme.GOLD};")
            grid.addWidget(note, i, 0, alignment=Qt.AlignmentFlag.AlignRight)
            field = TouchNumberField(f"How many {face} {money.label} notes?", max_length=5)
            field.setAccessibleName(f"Notes of {face}")
            self._style(field)
            field.textChanged.connect(lambda _t: self.update_total())
            if self.fields:
                list(self.fields.values())[-1].next_field = field
            grid.addWidget(field, i, 1)
            value = QLabel("")
            value.setStyleSheet(f"font-size: {TEXT_PX}px;")
            grid.addWidget(value, i, 2)
            self.fields[denom], self.values[denom] = field, value
        grid.setColumnStretch(2, 1)
        left.addLayout(grid)
        self.cash = QLabel("")
        self.cash.setWordWrap(True)
        self.cash.setTextFormat(Qt.TextFormat.RichText)
        self.cash.setStyleSheet(f"font-size: {TEXT_PX + 2}px;")
        left.addWidget(self.cash)
        left.addStretch(1)
        return left

    def _style(self, field: QWidget) -> None:
        field.setFixedWidth(FIELD_W)
        field.setMinimumHeight(FIELD_PX)
        field.setStyleSheet(f"font-size: {TEXT_PX + 4}px; min-height: {FIELD_PX - 6}px; "
                            f"padding: 2px 12px;")

    def _build_side(self) -> QVBoxLayout:
        side = QVBoxLayout()
        side.setSpacing(10)
        panel = QFrame()
        panel.setObjectName("panel")
        panel.setFixedWidth(SIDE_W)
        self.markers_panel = panel
        inner = QVBoxLayout(panel)
        inner.setContentsMargins(16, 10, 16, 12)
        inner.setSpacing(8)
        head = QLabel("Markers and counter checks, apart from the cash")
        head.setWordWrap(True)
        head.setStyleSheet(f"font-size: 19px; font-weight: bold; color: {theme.GOLD};")
        inner.addWidget(head)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(6)
        money = self.settings.money
        self.marker_count = TouchNumberField("How many markers or counter checks?",
                                             max_length=4)
        self.marker_count.setAccessibleName("How many markers")
        self.marker_total = TouchAmountField(f"The markers' total ({money.label})",
                                             max_length=12)
        self.marker_total.setAccessibleName("The markers' total")
        for r, (words, field) in enumerate((("How many", self.marker_count),
                                            ("Their total", self.marker_total))):
            label = QLabel(words)
            label.setStyleSheet("font-size: 20px;")
            grid.addWidget(label, r, 0)
            self._style(field)
            field.textChanged.connect(lambda _t: self.update_total())
            grid.addWidget(field, r, 1)
        grid.setColumnStretch(2, 1)
        inner.addLayout(grid)
        if self.fields:
            list(self.fields.values())[-1].next_field = self.marker_count
        self.marker_count.next_field = self.marker_total
        side.addWidget(panel)
        self.total = QLabel("")
        self.total.setWordWrap(True)
        self.total.setFixedWidth(SIDE_W)
        self.total.setTextFormat(Qt.TextFormat.RichText)
        self.total.setStyleSheet(f"font-size: {TEXT_PX + 2}px;")
        side.addWidget(self.total)
        self.verify_words = QLabel("")
        self.verify_words.setWordWrap(True)
        self.verify_words.setFixedWidth(SIDE_W)
        self.verify_words.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.verify_words.setStyleSheet("font-size: 19px;")
        side.addWidget(self.verify_words)
        side.addStretch(1)
        row = QHBoxLayout()
        row.setSpacing(10)
        self.clear_button = QPushButton("Clear the count")
        self.clear_button.setMinimumHeight(theme.TOUCH_PX)
        self.clear_button.clicked.connect(self.clear)
        row.addWidget(self.clear_button)
        self.whole_day_button = QPushButton("One box for the whole day")
        self.whole_day_button.setMinimumHeight(theme.TOUCH_PX)
        self.whole_day_button.clicked.connect(self.whole_day.emit)
        row.addWidget(self.whole_day_button)
        side.addLayout(row)
        self.record_button = QPushButton("Record the count…")
        self.record_button.setObjectName("primary")
        self.record_button.setMinimumHeight(theme.TOUCH_PX + 16)
        self.record_button.setStyleSheet("font-size: 24px;")
        self.record_button.clicked.connect(self.record.emit)
        side.addWidget(self.record_button)
        return side

    # -- showing -------------------------------------------------------------------------------

    def show_box(self, box: Box, team: list[str]) -> None:
        """Count ``box``: the fields empty; ``team``: the names who verify it."""
        self.box = box
        shift = f" · {box.shift} shift" if box.shift else ""
        game = f" ({box.game})" if box.game else ""
        what = "Rake box" if box.box else "Drop box"
        self.title.setText(f"Count · table {box.table}{game} · gaming day "
                           f"{box.gaming_day.isoformat()}{shift} · {what}")
        names = ", ".join(team[:-1]) + f" and {team[-1]}" if len(team) > 1 else "".join(team)
        self.verify_words.setText(f"When the count is right, touch Record the count: the "
                                  f"count team ({names}) verifies it, each typing their PIN.")
        self.whole_day_button.setVisible(box.whole_day_too)
        # A rake box holds the house's rake: no markers go in it.
        self.markers_panel.setVisible(box.box is None)
        self.clear()

    def clear(self) -> None:
        for f in (*self.fields.values(), self.marker_count, self.marker_total):
            f.clear()
        self.update_total()

    def notes(self) -> Chips:
        """The notes typed, by denomination (a refusal in words for a count not whole)."""
        counts = {}
        for d, f in self.fields.items():
            n = whole_count(f.text(), f"the {note_face(self.settings, d)} notes")
            if n:
                counts[d] = n
        return Chips.of(counts)

    def markers(self) -> tuple[int, int]:
        """(the markers' total, how many), or a refusal in words."""
        count = whole_count(self.marker_count.text(), "the number of markers")
        total = markers_amount(self.marker_total.text(), self.settings)
        if (count == 0) != (total == 0):
            money = self.settings.money.text
            raise StationError(f"{count} markers cannot total {money(total)}: give both how "
                               f"many markers or counter checks there are and their total")
        return total, count

    def update_total(self) -> None:
        money = self.settings.money.text
        for d, f in self.fields.items():
            typed = f.text().strip()
            whole = typed.isascii() and typed.isdigit()
            self.values[d].setText(money(d * int(typed)) if whole else
                                   ("not a whole number" if typed else ""))
            self.values[d].setStyleSheet(f"font-size: {TEXT_PX}px; color: "
                                         f"{theme.TEXT if whole or not typed else theme.BAD};")
        try:
            notes = self.notes()
        except (StationError, ChipsError) as exc:
            self.cash.setText(f"<span style='color:{theme.BAD}'>{exc}</span>")
            self.total.setText("")
            return
        n = notes.chip_count
        self.cash.setText(f"<b style='color:{theme.GOLD}'>Cash {money(notes.total)}</b> in "
                          f"{n:,} note{'' if n == 1 else 's'}")
        try:
            markers, count = self.markers()
        except StationError as exc:
            self.total.setText(f"Cash {money(notes.total)} · <span style='color:{theme.BAD}'>"
                               f"{exc}</span>")
            return
        if not self.markers_panel.isVisibleTo(self):
            self.total.setText(f"<b style='color:{theme.GOLD}; font-size: 28px'>Box total "
                               f"{money(notes.total)}</b>")
            return
        self.total.setText(f"Cash {money(notes.total)} + markers {money(markers)} "
                           f"({count})<br><b style='color:{theme.GOLD}; font-size: 28px'>"
                           f"Box total {money(notes.total + markers)}</b>")


__all__ = ["CountForm", "markers_amount", "note_face", "whole_count"]
