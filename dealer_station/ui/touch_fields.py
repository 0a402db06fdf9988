"""Fields that type by touch: each looks like a field and, touched, opens the on-screen
keyboard or a keypad for itself (``touch_keyboard``), so a form can be filled with no
physical key at all.

- :class:`TouchLineEdit`: text (a name, a user id, a note), on the keyboard;
- :class:`TouchNumberField`: a count (how many chips), on the digit keypad;
- :class:`TouchAmountField`: money ("25", "12.50"), on the keypad with a point;
- :class:`TouchPinField`: a PIN, on the keypad, shown as dots.

Each is a ``QLineEdit``: ``text()``, ``setText()``, ``clear()`` and ``textChanged`` work as
usual, and a physical keyboard still types into it. ``prompt`` is the question the sheet asks
("How many 25.00 chips?"). Done puts the answer in the field and emits ``done(text)``; Cancel
leaves the field as it was. ``open_input()`` is what a touch does. Setting ``next_field``
adds a *Next ›* key that moves on to that field's pad (counts by denomination, user id then
PIN).

Use::

    from dealer_station.ui.touch_fields import TouchLineEdit, TouchNumberField

    name = TouchLineEdit("The player's name", words=True, max_length=24)
    count = TouchNumberField("How many 25.00 chips?")
    count.done.connect(lambda _text: self.update_total())
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLineEdit, QWidget

from dealer_station.ui import theme
from dealer_station.ui.touch_keyboard import InputSheet, open_keyboard, open_keypad


class TouchField(QLineEdit):
    """The common part of the touch fields (see the module); ``mode`` says which keys."""

    mode = "text"
    #: The answer, once Done (or Next) has put it in the field.
    done = Signal(str)

    def __init__(self, prompt: str, parent: QWidget | None = None, *, placeholder: str = "",
                 max_length: int = 80, note: str = "") -> None:
        super().__init__(parent)
        self.prompt = prompt
        self.note = note
        self.next_field: TouchField | None = None
        self.sheet: InputSheet | None = None
        self.setMaxLength(max_length)
        self.setPlaceholderText(placeholder)
        self.setAccessibleName(prompt)
        self.setMinimumHeight(theme.TOUCH_PX - 4)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        if (event.button() == Qt.MouseButton.LeftButton and self.isEnabled()
                and not self.isReadOnly() and self.rect().contains(event.position().toPoint())):
            self.open_input()

    def _next_label(self) -> str | None:
        nxt = self.next_field
        return f"Next: {nxt.prompt} ›" if nxt is not None and nxt.isVisible() else None

    def _put(self, text: str) -> None:
        self.setText(text)
        self.done.emit(text)

    def _next(self, text: str) -> None:
        self._put(text)
        if self.next_field is not None:
            self.next_field.open_input()

    def open_input(self) -> InputSheet:
        """Open the keyboard or keypad for this field (what a touch does)."""
        raise NotImplementedError


class TouchLineEdit(TouchField):
    """Text typed on the on-screen keyboard. ``words``: names, a capital at each word's
    start."""

    def __init__(self, prompt: str, parent: QWidget | None = None, *, placeholder: str = "",
                 max_length: int = 80, note: str = "", words: bool = False) -> None:
        super().__init__(prompt, parent, placeholder=placeholder, max_length=max_length,
                         note=note)
        self.words = words

    def open_input(self) -> InputSheet:
        label = self._next_label()
        self.sheet = open_keyboard(self, self.prompt, self._put, text=self.text(),
                                   note=self.note, placeholder=self.placeholderText(),
                                   max_length=self.maxLength(), words=self.words,
                                   next_label=label, on_next=self._next if label else None)
        return self.sheet


class _PadField(TouchField):
    def open_input(self) -> InputSheet:
        label = self._next_label()
        self.sheet = open_keypad(self, self.prompt, self._put, mode=self.mode,
                                 text="" if self.mode == "pin" else self.text(),
                                 note=self.note, placeholder=self.placeholderText(),
                                 max_length=self.maxLength(), next_label=label,
                                 on_next=self._next if label else None)
        return self.sheet


class TouchNumberField(_PadField):
    """A whole number (a count) typed on the digit keypad."""

    mode = "count"

    def __init__(self, prompt: str, parent: QWidget | None = None, *, placeholder: str = "",
                 max_length: int = 6, note: str = "") -> None:
        super().__init__(prompt, parent, placeholder=placeholder, max_length=max_length,
                         note=note)
        self.setInputMethodHints(Qt.InputMethodHint.ImhDigitsOnly)


class TouchAmountField(_PadField):
    """Money typed on the keypad with a point ("25", "12.50"); the caller parses it
    (``amount_pad.parse_amount``)."""

    mode = "amount"

    def __init__(self, prompt: str, parent: QWidget | None = None, *, placeholder: str = "",
                 max_length: int = 12, note: str = "") -> None:
        super().__init__(prompt, parent, placeholder=placeholder, max_length=max_length,
                         note=note)
        self.setInputMethodHints(Qt.InputMethodHint.ImhFormattedNumbersOnly)


class TouchPinField(_PadField):
    """A PIN typed on the keypad; shown as dots, on the sheet and in the field. The pad
    starts empty: a PIN is typed whole each time."""

    mode = "pin"

    def __init__(self, prompt: str = "PIN", parent: QWidget | None = None, *,
                 placeholder: str = "PIN", max_length: int = 12, note: str = "") -> None:
        super().__init__(prompt, parent, placeholder=placeholder, max_length=max_length,
                         note=note)
        self.setEchoMode(QLineEdit.EchoMode.Password)
        self.setInputMethodHints(Qt.InputMethodHint.ImhDigitsOnly
                                 | Qt.InputMethodHint.ImhSensitiveData)


__all__ = ["TouchAmountField", "TouchField", "TouchLineEdit", "TouchNumberField",
           "TouchPinField"]
