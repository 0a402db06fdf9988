"""The director's typing by touch: numbers on the keypad (chips, scores that may be less than
nothing) and the reasons for a correction or a disqualification.

- :class:`NumberBox`: a whole number in a range, typed on the station's keypad; a score that
  may be negative has a large ± key beside it (the keypad types digits only).
- :func:`ask_director_reason`: why a result is corrected or an entry disqualified, chosen
  from a short list of large buttons, or typed with *Other…* on the keyboard. Where the
  station's ``[reasons]`` (``config/station.toml``) knows the action, its list is the one
  offered, as for every other action that takes a reason; until then, the list below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from dealer_station.reasons import ACTIONS, OTHER
from dealer_station.ui import theme
from dealer_station.ui.reasons import MAX_TYPED, ask_reason
from dealer_station.ui.touch_fields import TouchNumberField
from dealer_station.ui.touch_keyboard import InputSheet, open_keyboard, open_keypad
from dealer_station.ui.touch_sheet import ChoiceSheet, Sheet

#: The reasons offered for the director's actions, where the station's list has none.
DIRECTOR_REASONS: dict[str, tuple[str, ...]] = {
    "result_correction": ("chips miscounted", "wrong player's row", "forfeit missed",
                          "score sheet misread"),
    "disqualify": ("unsportsmanlike conduct", "collusion", "left the tournament",
                   "did not return after the break"),
}
#: What each of them is, in the words of the sheet.
DIRECTOR_ACTIONS: dict[str, str] = {
    "result_correction": "correcting a result",
    "disqualify": "disqualifying an entry",
}
MINUS = "−"


class _PadNumber(TouchNumberField):
    """The digits of a :class:`NumberBox`: the keypad starts empty, the number now in its
    place, and refuses one out of range on the keypad itself."""

    def __init__(self, prompt: str, box: NumberBox) -> None:
        super().__init__(prompt, max_length=7)
        self.box = box
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def open_input(self) -> InputSheet:
        box = self.box
        sign = "less than nothing (−) " if box.negative else ""
        self.sheet = open_keypad(
            self, self.prompt, self._put, mode="count", placeholder=self.text() or "0",
            max_length=self.maxLength(), required=True,
            note=f"Now {box.value()}. Type the number {sign}from {box.low} to {box.high}.",
            check=box.problem)
        return self.sheet


class NumberBox(QWidget):
    """A whole number from ``low`` to ``high`` by touch (see the module); it reads like a
    spin box: ``value()``, ``setValue()``, ``valueChanged``."""

    valueChanged = Signal(int)

    def __init__(self, prompt: str, low: int, high: int, *, px: int = 22,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.low, self.high = low, high
        self._value = max(low, min(0, high)) if low <= 0 <= high else low
        #: ± touched at 0: the digits typed next are less than nothing.
        self._minus_next = False
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(4)
        self.sign: QPushButton | None = None
        if low < 0:
            self.sign = QPushButton("±")
            self.sign.setCheckable(True)
            self.sign.setAccessibleName(f"{prompt}: less than nothing")
            self.sign.setFixedWidth(56)
            self.sign.setStyleSheet(f"font-size: {px}px; min-height: {theme.TOUCH_PX - 10}px;"
                                    f" padding: 0px;")
            self.sign.toggled.connect(self._signed)
            row.addWidget(self.sign)
        self.field = _PadNumber(prompt, self)
        self.field.setStyleSheet(f"font-size: {px}px;")
        self.field.done.connect(self._typed)
        self.field.editingFinished.connect(lambda: self._typed(self.field.text()))
        row.addWidget(self.field, 1)
        self._show()

    @property
    def negative(self) -> bool:
        """Whether the digits typed next make a negative number (± on)."""
        return self._value < 0 or self._minus_next

    def value(self) -> int:
        return self._value

    def setValue(self, value: int) -> None:
        value = max(self.low, min(self.high, value))
        changed = value != self._value
        self._value = value
        self._minus_next = False
        self._show()
        if changed:
            self.valueChanged.emit(value)

    def setAccessibleName(self, name: str) -> None:
        super().setAccessibleName(name)
        self.field.setAccessibleName(name)

    def problem(self, digits: str) -> str | None:
        """Why ``digits`` (with the sign as set) is not a number in range, or None."""
        if not digits.isdigit():
            return "Type the number."
        value = -int(digits) if self.negative else int(digits)
        if not self.low <= value <= self.high:
            return f"From {self.low} to {self.high}."
        return None

    def _show(self) -> None:
        if self.sign is not None:
            self.sign.blockSignals(True)
            self.sign.setChecked(self.negative)
            self.sign.blockSignals(False)
        self.field.setText(f"{MINUS if self._value < 0 else ''}{abs(self._value)}")

    def _typed(self, text: str) -> None:
        digits = text.strip().lstrip("-" + MINUS)
        if self.problem(digits) is None:
            self.setValue(-int(digits) if self.negative else int(digits))
        else:
            self._show()

    def _signed(self, negative: bool) -> None:
        if self._value == 0:
            self._minus_next = negative     # the sign waits for its digits
            return
        self.setValue(-abs(self._value) if negative else abs(self._value))


class DirectorReasonSheet(ChoiceSheet[str]):
    """The reasons for one of the director's actions and *Other…* (see the module);
    ``other_sheet`` is the keyboard once *Other…* opened it."""

    def __init__(self, anchor: QWidget, action: str, title: str,
                 on_chosen: Callable[[str], Any], *, note: str = "") -> None:
        words = (note + "\n" if note else "") + "The reason is recorded with your name."
        super().__init__(anchor, title, [(r, r) for r in DIRECTOR_REASONS[action]], on_chosen,
                         note=words, columns=2)
        self.action = action
        self.other_sheet: InputSheet | None = None
        self.other_button = self.add_extra(OTHER, self._other)
        self.other_button.setAccessibleName("Other reason")

    def _other(self) -> None:
        self.other_sheet = open_keyboard(
            self.anchor, self.title.text(), self.on_chosen,
            note=f"Type the reason for {DIRECTOR_ACTIONS[self.action]}; it is recorded with "
                 f"your name.", placeholder="the reason", max_length=MAX_TYPED,
            required=True)


def ask_director_reason(anchor: QWidget, action: str, title: str,
                        on_chosen: Callable[[str], Any], *, note: str = "") -> Sheet:
    """Ask why, for ``action`` (``"result_correction"`` or ``"disqualify"``);
    ``on_chosen(reason)`` runs with the reason's text once one is chosen or typed. Cancel
    runs nothing."""
    if action in ACTIONS:       # the station's own list of reasons has this action
        return ask_reason(anchor, action, title, on_chosen, note=note)
    sheet = DirectorReasonSheet(anchor, action, title, on_chosen, note=note)
    sheet.open()
    return sheet


__all__ = ["DIRECTOR_REASONS", "DirectorReasonSheet", "NumberBox", "ask_director_reason"]
