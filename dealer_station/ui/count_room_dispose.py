"""The count room's disposition form: what the count room decided about a variance beyond
the threshold, and why.

Beside the variance's facts (statistical and computed win, the variance, any disposition
already signed), three large choices in the words of MICS:

- **Explained**: the cause is known and the figures stand;
- **Adjusted**: an adjusting entry corrects them: its amount, minus or plus, on the keypad;
- **Referred**: sent on to the compliance officer;

and the note saying why, typed on the on-screen keyboard. *Sign the disposition…* hands them
to the window, which asks two accounting users to sign, each choosing their name and typing
their PIN; the count room's core decides (``table.count_room.CountRoom.dispose``).

It is a page of the window rather than a sheet over it: its note opens the on-screen
keyboard, itself a sheet, and the kit shows one sheet at a time.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.settings import AccountingSettings
from dealer_station.errors import StationError
from dealer_station.table.accounting import MAX_NOTE
from dealer_station.ui import theme
from dealer_station.ui.amount_pad import AmountError, parse_amount
from dealer_station.ui.count_room_rows import DISPOSITION_WORDS, Variance, signed_money
from dealer_station.ui.page_top import back_and_title
from dealer_station.ui.touch_fields import TouchAmountField, TouchLineEdit

#: What each disposition means, under its button.
MEANINGS = {"explained": "The cause is known; the figures stand.",
            "adjusted": "An adjusting entry corrects the figures: its amount, minus or plus.",
            "referred": "Sent on to the compliance officer."}
STORY_W = 430
TEXT_PX = 20


class DisposeForm(QWidget):
    """The disposition form (see the module). ``back`` and ``sign`` are the window's."""

    back = Signal()
    sign = Signal()

    def __init__(self, settings: AccountingSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.variance: Variance | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 6, 12, 4)
        col.setSpacing(10)
        top, self.back_button, self.title = back_and_title("Variances", self.back.emit,
                                                           width=170)
        col.addLayout(top)
        body = QHBoxLayout()
        body.setSpacing(24)
        col.addLayout(body, 1)
        self.story = QLabel("")
        self.story.setWordWrap(True)
        self.story.setFixedWidth(STORY_W)
        self.story.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.story.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.story.setStyleSheet(f"font-size: 19px; background: {theme.PANEL}; "
                                 f"border: 1px solid {theme.BORDER}; border-radius: 10px; "
                                 f"padding: 10px 14px;")
        story_col = QVBoxLayout()
        story_col.addWidget(self.story)
        story_col.addStretch(1)
        body.addLayout(story_col)
        body.addLayout(self._build_choices(), 1)

    def _build_choices(self) -> QVBoxLayout:
        right = QVBoxLayout()
        right.setSpacing(8)
        ask = QLabel("What did the count room decide?")
        ask.setStyleSheet(f"font-size: {TEXT_PX + 2}px; font-weight: bold;")
        right.addWidget(ask)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(2)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.choices: dict[str, QPushButton] = {}
        for c, (key, words) in enumerate(DISPOSITION_WORDS.items()):
            b = QPushButton(words)
            b.setCheckable(True)
            b.setMinimumHeight(theme.TOUCH_PX + 12)
            b.setStyleSheet("font-size: 22px;")
            b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            b.clicked.connect(lambda _=False: self.update_form())
            self.group.addButton(b)
            self.choices[key] = b
            grid.addWidget(b, 0, c)
            meaning = QLabel(MEANINGS[key])
            meaning.setWordWrap(True)
            meaning.setObjectName("muted")
            meaning.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignHCenter)
            meaning.setStyleSheet("font-size: 18px;")
            grid.addWidget(meaning, 1, c)
        right.addLayout(grid)
        # The adjusting entry: its sign, then its amount.
        self.entry = QFrame()
        self.entry.setObjectName("panel")
        entry = QHBoxLayout(self.entry)
        entry.setContentsMargins(14, 8, 14, 8)
        entry.setSpacing(10)
        head = QLabel("Adjusting entry")
        head.setStyleSheet(f"font-size: {TEXT_PX}px; font-weight: bold;")
        entry.addWidget(head)
        self.signs = QButtonGroup(self)
        self.signs.setExclusive(True)
        self.minus = QPushButton("− Minus")
        self.plus = QPushButton("+ Plus")
        for b in (self.minus, self.plus):
            b.setCheckable(True)
            b.setMinimumHeight(theme.TOUCH_PX)
            b.setMinimumWidth(130)
            b.clicked.connect(lambda _=False: self.update_form())
            self.signs.addButton(b)
            entry.addWidget(b)
        self.amount = TouchAmountField("The adjusting entry's amount", placeholder="0.00",
                                       max_length=12)
        self.amount.setAccessibleName("The adjusting entry's amount")
        self.amount.setFixedWidth(190)
        self.amount.setMinimumHeight(theme.TOUCH_PX)
        self.amount.setStyleSheet("font-size: 24px;")
        self.amount.textChanged.connect(lambda _t: self.update_form())
        entry.addWidget(self.amount)
        self.entry_words = QLabel("")
        self.entry_words.setStyleSheet(f"font-size: {TEXT_PX}px; color: {theme.GOLD};")
        entry.addWidget(self.entry_words, 1)
        right.addWidget(self.entry)
        why = QLabel("Why (journaled with the two signers' names)")
        why.setStyleSheet(f"font-size: {TEXT_PX}px; font-weight: bold;")
        right.addWidget(why)
        self.note = TouchLineEdit("Why: the disposition's note", placeholder="Touch to type why",
                                  max_length=MAX_NOTE)
        self.note.setAccessibleName("Why")
        self.note.setMinimumHeight(theme.TOUCH_PX)
        self.note.setStyleSheet("font-size: 21px;")
        right.addWidget(self.note)
        right.addStretch(1)
        self.sign_words = QLabel("Two accounting users sign: each touches their name, then "
                                 "types their PIN.")
        self.sign_words.setWordWrap(True)
        self.sign_words.setObjectName("muted")
        self.sign_words.setStyleSheet("font-size: 18px;")
        right.addWidget(self.sign_words)
        self.sign_button = QPushButton("Sign the disposition…")
        self.sign_button.setObjectName("primary")
        self.sign_button.setMinimumHeight(theme.TOUCH_PX + 16)
        self.sign_button.setStyleSheet("font-size: 24px;")
        self.sign_button.clicked.connect(self.sign.emit)
        right.addWidget(self.sign_button)
        return right

    # -- showing -------------------------------------------------------------------------------

    def show_variance(self, v: Variance, story: list[str]) -> None:
        """Dispose of ``v``: nothing chosen, no note typed."""
        self.variance = v
        money = self.settings.money.text
        self.title.setText(f"Disposition · table {v.table} · gaming day "
                           f"{v.gaming_day.isoformat()} · variance {money(v.variance)}")
        self.story.setText("\n\n".join(story))
        self.group.setExclusive(False)
        self.signs.setExclusive(False)
        for b in (*self.choices.values(), self.minus, self.plus):
            b.setChecked(False)
        self.group.setExclusive(True)
        self.signs.setExclusive(True)
        self.amount.clear()
        self.note.clear()
        self.update_form()

    def chosen(self) -> str | None:
        for key, b in self.choices.items():
            if b.isChecked():
                return key
        return None

    def update_form(self) -> None:
        adjusting = self.chosen() == "adjusted"
        for w in (self.minus, self.plus, self.amount):
            w.setEnabled(adjusting)
        self.entry.setStyleSheet("" if adjusting else "QLabel { color: #66717d; }")
        try:
            entry = self.adjustment() if adjusting else None
        except StationError:
            entry = None
        self.entry_words.setText(signed_money(entry, self.settings.money.text)
                                 if entry is not None else "")

    def adjustment(self) -> int | None:
        """The adjusting entry, signed (None: not an adjustment), or a refusal in words."""
        if self.chosen() != "adjusted":
            return None
        typed = self.amount.text().strip()
        if not typed:
            raise StationError("an adjustment needs its amount: choose minus or plus, then "
                               "type the adjusting entry's amount")
        if set(typed) <= set("0."):
            raise StationError(f"an adjusting entry of {typed} adjusts nothing: type its "
                               f"amount")
        try:
            value = parse_amount(typed, self.settings.money)
        except AmountError as exc:
            raise StationError(f"the adjusting entry: {exc}") from None
        if self.plus.isChecked():
            return value
        if self.minus.isChecked():
            return -value
        raise StationError("an adjustment needs its sign: choose minus or plus")

    def values(self) -> tuple[str, str, int | None]:
        """(the disposition, why, the adjusting entry), or a refusal in words."""
        chosen = self.chosen()
        if chosen is None:
            raise StationError("choose what the count room decided: Explained, Adjusted or "
                               "Referred")
        adjustment = self.adjustment()
        why = " ".join(self.note.text().split())
        if not why:
            raise StationError("a disposition needs a note saying why (it is journaled with "
                               "the signers' names): touch Why and type it")
        return chosen, why, adjustment


__all__ = ["MEANINGS", "DisposeForm"]
