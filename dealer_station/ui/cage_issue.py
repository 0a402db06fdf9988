"""The cage's issue form: the cashier counts the chips of a request out by denomination and
issues its slip.

One large field per configured denomination, empty at first (touched, it opens the keypad;
*Next ›* goes on to the next chip), the request's count beside each, and the amount each
count makes as money; a count that matches the request's is ticked, one that differs says
the request's count in the colour of what is wrong. Under them the total counted and the
total requested. *Issue the slip* hands the counts to the window, which asks the cage
cashier's signature (name, then PIN) and the cage's desk decides: counts that differ from
the request are refused there, in words.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.chips import Chips, ChipsError, chips_from_counts
from dealer_station.accounting.requests import Request
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.ui import theme
from dealer_station.ui.page_top import back_and_title
from dealer_station.ui.touch_fields import TouchNumberField

#: A count's field: a fingertip high, wide enough for five digits read at a metre.
FIELD_PX = 56
FIELD_W = 190
TEXT_PX = 22
#: The request's story beside the counts.
STORY_W = 470


def counted_chips(chips: Chips) -> Chips:
    """The chips counted, without the denominations counted 0 (as a slip stores them)."""
    return Chips.of({d: n for d, n in chips.counts if n})


class IssueForm(QWidget):
    """The issue form (see the module). ``back`` and ``issue`` are the window's to act on."""

    back = Signal()
    issue = Signal()

    def __init__(self, settings: AccountingSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.request: Request | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 8, 12, 8)
        col.setSpacing(10)
        top, self.back_button, self.title = back_and_title("Requests", self.back.emit,
                                                           width=170)
        col.addLayout(top)
        body = QHBoxLayout()
        body.setSpacing(24)
        col.addLayout(body, 1)
        body.addLayout(self._build_counts(), 1)
        body.addLayout(self._build_side())

    def _build_counts(self) -> QVBoxLayout:
        left = QVBoxLayout()
        left.setSpacing(8)
        how = QLabel("Count the chips out by denomination: touch a field, type how many on "
                     "the keypad, Next › for the next chip.")
        how.setWordWrap(True)
        how.setObjectName("muted")
        how.setStyleSheet("font-size: 19px;")
        left.addWidget(how)
        grid = QGridLayout()
        grid.setHorizontalSpacing(16)
        grid.setVerticalSpacing(8)
        # The request's count stands left of the field: the keypad, opened beside the field,
        # leaves it in sight.
        for c, words in enumerate(("Chip", "Requested", "Counted out", "Amount")):
            head = QLabel(words)
            head.setStyleSheet(f"color: {theme.MUTED}; font-size: 17px; font-weight: bold;")
            grid.addWidget(head, 0, c, alignment=Qt.AlignmentFlag.AlignRight if c < 2
                           else Qt.AlignmentFlag.AlignLeft)
        self.fields: dict[int, TouchNumberField] = {}
        self.wanted: dict[int, QLabel] = {}
        self.values: dict[int, QLabel] = {}
        number = self.settings.money.number
        for i, denom in enumerate(self.settings.denominations, start=1):
            chip = QLabel(number(denom))
            chip.setStyleSheet(f"font-size: {TEXT_PX + 2}px; font-weight: bold; "
                               f"color: {theme.GOLD};")
            grid.addWidget(chip, i, 0, alignment=Qt.AlignmentFlag.AlignRight)
            field = TouchNumberField(f"How many {number(denom)} chips?", max_length=5)
            field.setAccessibleName(f"Chips of {number(denom)} counted out")
            field.setFixedWidth(FIELD_W)
            field.setMinimumHeight(FIELD_PX)
            field.setStyleSheet(f"font-size: {TEXT_PX + 4}px; min-height: {FIELD_PX - 6}px; "
                                f"padding: 2px 12px;")
            field.textChanged.connect(lambda _t: self.update_total())
            if self.fields:
                list(self.fields.values())[-1].next_field = field
            grid.addWidget(field, i, 2)
            wanted = QLabel("")
            wanted.setStyleSheet(f"font-size: {TEXT_PX}px;")
            wanted.setMinimumWidth(130)
            wanted.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            grid.addWidget(wanted, i, 1, alignment=Qt.AlignmentFlag.AlignRight)
            value = QLabel("")
            value.setStyleSheet(f"font-size: {TEXT_PX}px;")
            grid.addWidget(value, i, 3)
            self.fields[denom], self.wanted[denom], self.values[denom] = field, wanted, value
        grid.setColumnStretch(3, 1)
        left.addLayout(grid)
        self.total = QLabel("")
        self.total.setWordWrap(True)
        self.total.setTextFormat(Qt.TextFormat.RichText)
        self.total.setStyleSheet(f"font-size: {TEXT_PX + 2}px;")
        left.addWidget(self.total)
        left.addStretch(1)
        return left

    def _build_side(self) -> QVBoxLayout:
        side = QVBoxLayout()
        side.setSpacing(10)
        self.story = QLabel("")
        self.story.setWordWrap(True)
        self.story.setFixedWidth(STORY_W)
        self.story.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.story.setStyleSheet(f"font-size: 19px; background: {theme.PANEL}; "
                                 f"border: 1px solid {theme.BORDER}; border-radius: 10px; "
                                 f"padding: 10px 14px;")
        side.addWidget(self.story)
        self.sign_words = QLabel("")
        self.sign_words.setWordWrap(True)
        self.sign_words.setFixedWidth(STORY_W)
        self.sign_words.setStyleSheet("font-size: 19px;")
        side.addWidget(self.sign_words)
        side.addStretch(1)
        self.clear_button = QPushButton("Clear the counts")
        self.clear_button.setMinimumHeight(theme.TOUCH_PX)
        self.clear_button.clicked.connect(self.clear)
        side.addWidget(self.clear_button)
        self.issue_button = QPushButton("Issue the slip")
        self.issue_button.setObjectName("primary")
        self.issue_button.setMinimumHeight(theme.TOUCH_PX + 16)
        self.issue_button.setStyleSheet("font-size: 24px;")
        self.issue_button.clicked.connect(self.issue.emit)
        side.addWidget(self.issue_button)
        return side

    # -- showing -------------------------------------------------------------------------------

    def show_request(self, req: Request, story: list[str], signers: str) -> None:
        """Count out ``req``'s chips: the fields empty, the request's counts beside them."""
        self.request = req
        words = "fill" if req.kind == "fill" else "credit"
        self.title.setText(f"Issue the {words} slip · {req.label} · table {req.table}")
        self.story.setText("\n".join(story))
        self.sign_words.setText(f"When the count is right, touch Issue the slip: {signers} "
                                f"signs, touching their name, then typing their PIN.")
        for d, f in self.fields.items():
            want = req.chips.count(d)
            f.note = (f"Counted out for {req.label}: {want} requested" if want else
                      f"Counted out for {req.label}: none requested")
        self.clear()

    def clear(self) -> None:
        for f in self.fields.values():
            f.clear()
        self.update_total()

    def counts(self) -> Chips:
        """The chips typed (ChipsError, in words, for a count that is not whole chips)."""
        chips = chips_from_counts({d: f.text() for d, f in self.fields.items()},
                                  self.settings.denominations, what="the chips counted out",
                                  allow_empty=True, shown=self.settings.money.number)
        return counted_chips(chips)

    def update_total(self) -> None:
        money = self.settings.money.text
        req = self.request
        asked = req.chips if req is not None else Chips()
        for d, f in self.fields.items():
            typed = f.text().strip()
            whole = typed.isascii() and typed.isdigit()
            want = asked.count(d)
            self.values[d].setText(money(d * int(typed)) if whole and typed else
                                   ("not whole chips" if typed else ""))
            if not typed:
                text, colour = (f"{want}" if want else "—"), theme.TEXT
            elif whole and int(typed) == want:
                text, colour = f"✓ {want}", theme.GOOD
            else:
                text, colour = f"≠ {want}", theme.BAD
            self.wanted[d].setText(text)
            self.wanted[d].setStyleSheet(f"font-size: {TEXT_PX}px; color: {colour};")
            self.values[d].setStyleSheet(f"font-size: {TEXT_PX}px; color: "
                                         f"{theme.TEXT if whole or not typed else theme.BAD};")
        want_text = f"requested {money(asked.total)} ({asked.chip_count:,} chips)"
        try:
            chips = self.counts()
        except ChipsError as exc:
            self.total.setText(f"<span style='color:{theme.BAD}'>{exc}</span>")
            return
        colour = theme.GOOD if chips == asked else theme.GOLD
        self.total.setText(f"<b style='color:{colour}'>Counted out {money(chips.total)} "
                           f"({chips.chip_count:,} chips)</b> · {want_text}")


__all__ = ["IssueForm", "counted_chips"]
