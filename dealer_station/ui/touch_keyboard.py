"""The station's on-screen keyboard and keypads, and the sheet that types with them.

The table has no keyboard: names, reasons typed with "Other…", user ids, counts, amounts and
PINs are typed here, on keys of at least 56x56 px.

- :class:`TouchKeyboard`: letters, digits, space, backspace, Shift (one capital) and Caps
  (capitals until touched again), the marks a name or a reason needs (``' - . , /``), and
  Clear. Emits ``typed(str)``, ``erased()`` and ``cleared()``.
- :class:`DigitPad`: 1 to 9 and 0 on a 3x4 grid; the bottom corners are ⌫ and, for amounts,
  the point, or a button of the caller's (the sign-in's *Sign in*). Emits ``typed`` and
  ``erased``.
- :class:`InputSheet`, opened with :func:`open_keyboard` (text) or :func:`open_keypad`
  (``"count"``, ``"amount"``, ``"pin"``): a sheet over the window (see ``touch_sheet``) with
  the question, what has been typed (a PIN as dots), the keys, *Cancel* and *Done*, and for a
  form of several fields *Next ›*. ``on_done(text)`` runs once Done is touched; Cancel changes
  nothing. ``check(text)`` may refuse an answer in words, shown on the sheet, which stays.

Use::

    from dealer_station.ui.touch_keyboard import open_keyboard, open_keypad

    open_keyboard(button, "The player's name", on_done=set_name, text=old, words=True)
    open_keypad(field, "How many 25.00 chips?", on_done=field.setText, mode="count")

Most screens use the fields of ``touch_fields`` instead, which open these for themselves.
Every key is a QPushButton with an accessible name (``"Key a"``, ``"Key Shift"``,
``"Key 7"``, ``"Key Done"``) so that a test, or a screen reader, finds it by name;
``TouchKeyboard.buttons_for(text)`` lists the keys that type ``text``.

A physical keyboard still works on the sheet: letters and digits type, Backspace erases, Enter
is Done and Escape is Cancel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.ui import theme
from dealer_station.ui.touch_sheet import Sheet, sheet_button

#: Every key is at least this square (px).
KEY_PX = 56
#: The keyboard's keys (a row is a little taller than square: a fingertip lands lower).
KEYBOARD_KEY_PX = 62
#: The keypads' keys.
PAD_KEY_PX = 68
ERASE = "⌫"
POINT = "."
DIGITS = "1234567890"
LETTER_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
#: The marks a name or a reason needs, and where they sit.
MARKS = "'-.,/"
MODES = ("text", "count", "amount", "pin")


def _key(text: str, name: str, px: int, *, size: int = 24, kind: str = "") -> QPushButton:
    b = QPushButton(text)
    b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    b.setAccessibleName(f"Key {name}")
    b.setMinimumSize(max(px, KEY_PX), max(px, KEY_PX))
    b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    b.setAutoRepeat(name == "Delete")
    if kind:
        b.setObjectName(kind)
    # The style sheet's min-height wins over setMinimumSize: the key's own size is set here.
    side = max(px, KEY_PX) - 2
    b.setStyleSheet(f"font-size: {size}px; font-weight: bold; padding: 0px; "
                    f"min-height: {side}px; min-width: {side}px;")
    return b


class TouchKeyboard(QWidget):
    """Letters, digits and marks (see the module). ``keys`` maps each key's name to its
    button: the characters themselves (letters in small), and ``"Shift"``, ``"Caps"``,
    ``"Space"``, ``"Delete"``, ``"Clear"``."""

    typed = Signal(str)
    erased = Signal()
    cleared = Signal()

    def __init__(self, parent: QWidget | None = None, *, key_px: int = KEYBOARD_KEY_PX) -> None:
        super().__init__(parent)
        self.setObjectName("touchKeyboard")
        self.setStyleSheet("QWidget#touchKeyboard { background: transparent; }")
        self.shift = False
        self.caps = False
        self.keys: dict[str, QPushButton] = {}
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(8)

        def row_of(chars: str, *, before: list[QPushButton] | None = None,
                   after: list[QPushButton] | None = None) -> None:
            row = QHBoxLayout()
            row.setSpacing(8)
            for b in before or []:
                row.addWidget(b, 3)
            for ch in chars:
                b = _key(ch, ch, key_px)
                b.clicked.connect(lambda _=False, c=ch: self._press(c))
                self.keys[ch] = b
                row.addWidget(b, 2)
            for b in after or []:
                row.addWidget(b, 3)
            col.addLayout(row)

        erase = _key(f"{ERASE} Delete", "Delete", key_px, size=20)
        erase.clicked.connect(self.erased)
        self.keys["Delete"] = erase
        row_of(DIGITS, after=[erase])
        row_of(LETTER_ROWS[0] + "'")
        row_of(LETTER_ROWS[1] + "-")
        shift = _key("⇧ Shift", "Shift", key_px, size=20)
        shift.setCheckable(True)
        shift.clicked.connect(lambda on: self.set_shift(on))
        self.keys["Shift"] = shift
        row_of(LETTER_ROWS[2] + ",./", before=[shift])
        bottom = QHBoxLayout()
        bottom.setSpacing(8)
        caps = _key("Caps", "Caps", key_px, size=20)
        caps.setCheckable(True)
        caps.clicked.connect(lambda on: self.set_caps(on))
        space = _key("Space", "Space", key_px, size=20)
        space.clicked.connect(lambda: self._press(" "))
        clear = _key("Clear", "Clear", key_px, size=20)
        clear.clicked.connect(self.cleared)
        self.keys.update({"Caps": caps, "Space": space, "Clear": clear})
        bottom.addWidget(caps, 3)
        bottom.addWidget(space, 12)
        bottom.addWidget(clear, 3)
        col.addLayout(bottom)
        self._relabel()

    # -- state -----------------------------------------------------------------------------

    @property
    def capitals(self) -> bool:
        """Whether the next letter is a capital."""
        return self.shift != self.caps

    def set_shift(self, on: bool) -> None:
        self.shift = on
        self.keys["Shift"].setChecked(on)
        self._relabel()

    def set_caps(self, on: bool) -> None:
        self.caps = on
        self.keys["Caps"].setChecked(on)
        if self.shift:
            self.set_shift(False)     # Caps replaces a Shift pending
        self._relabel()

    def _relabel(self) -> None:
        for row in LETTER_ROWS:
            for ch in row:
                self.keys[ch].setText(ch.upper() if self.capitals else ch)

    def _press(self, ch: str) -> None:
        if ch.isalpha():
            ch = ch.upper() if self.capitals else ch
            if self.shift:
                self.set_shift(False)       # Shift is for one letter
        self.typed.emit(ch)

    # -- for tests and scripted use --------------------------------------------------------

    def buttons_for(self, text: str) -> Iterator[QPushButton]:
        """The keys to touch, one after the other, to type ``text``: Shift before a letter
        whose case is not the one the keyboard would type. Lazy: each key is chosen after
        the one before it was touched, so touch each as it comes. ValueError for a character
        the keyboard has no key for."""
        missing = [ch for ch in text if ch != " " and ch.lower() not in self.keys]
        if missing:
            raise ValueError(f"the on-screen keyboard has no key for {missing[0]!r}")
        for ch in text:
            if ch == " ":
                yield self.keys["Space"]
                continue
            if ch.isalpha() and ch.isupper() != self.capitals:
                yield self.keys["Shift"]
            yield self.keys[ch.lower()]


class DigitPad(QWidget):
    """The digits on a 3x4 grid. Bottom row: ⌫ 0 ``corner`` (the caller's button, e.g. Sign
    in), or with ``point`` (amounts): . 0 ⌫. ``keys`` maps ``"0"``-``"9"``, ``"."`` and
    ``"Delete"`` to their buttons."""

    typed = Signal(str)
    erased = Signal()

    def __init__(self, parent: QWidget | None = None, *, point: bool = False,
                 corner: QPushButton | None = None, key_px: int = PAD_KEY_PX) -> None:
        super().__init__(parent)
        self.setObjectName("digitPad")
        self.setStyleSheet("QWidget#digitPad { background: transparent; }")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(8)
        self.keys: dict[str, QPushButton] = {}
        for i, d in enumerate("123456789"):
            grid.addWidget(self._digit(d, key_px), i // 3, i % 3)
        erase = _key(ERASE, "Delete", key_px, size=26)
        erase.setToolTip("Delete a digit")
        erase.clicked.connect(self.erased)
        self.keys["Delete"] = erase
        zero = self._digit("0", key_px)
        if point:
            dot = _key(POINT, POINT, key_px, size=28)
            dot.clicked.connect(lambda: self.typed.emit(POINT))
            self.keys[POINT] = dot
            grid.addWidget(dot, 3, 0)
            grid.addWidget(zero, 3, 1)
            grid.addWidget(erase, 3, 2)
        else:
            grid.addWidget(erase, 3, 0)
            grid.addWidget(zero, 3, 1)
            if corner is not None:
                corner.setMinimumSize(max(key_px, KEY_PX), max(key_px, KEY_PX))
                corner.setStyleSheet(corner.styleSheet() + f" min-height: {key_px - 2}px;")
                corner.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                grid.addWidget(corner, 3, 2)

    def _digit(self, d: str, key_px: int) -> QPushButton:
        b = _key(d, d, key_px, size=28)
        b.clicked.connect(lambda _=False, k=d: self.typed.emit(k))
        self.keys[d] = b
        return b


class InputSheet(Sheet):
    """Type an answer on the keyboard (``mode="text"``) or a keypad (``"count"``,
    ``"amount"``, ``"pin"``); see the module. ``text`` is what has been typed."""

    def __init__(self, anchor: QWidget, title: str, on_done: Callable[[str], Any], *,
                 mode: str = "text", text: str = "", note: str = "", placeholder: str = "",
                 max_length: int = 80, words: bool = False, required: bool = False,
                 check: Callable[[str], str | None] | None = None,
                 next_label: str | None = None,
                 on_next: Callable[[str], Any] | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        keyboard = mode == "text"
        super().__init__(anchor, title, note=note, width=1248 if keyboard else 520,
                         bottom=keyboard, beside=not keyboard)
        self.mode = mode
        self.on_done = on_done
        self.on_next = on_next
        self.max_length = max_length
        self.words = words
        self.required = required
        self.check = check
        self.placeholder = placeholder
        self.text = text[:max_length]

        # What has been typed, large, with Cancel and Done beside it (the keyboard) or
        # under the keypad.
        self.display = QLabel("")
        self.display.setMinimumHeight(KEY_PX + 8)
        self.display.setAccessibleName("Typed")
        self.display.setTextFormat(Qt.TextFormat.PlainText)
        self._display_style = (f"font-size: 30px; background: #0f1317; border: 2px solid "
                               f"{theme.INFO}; border-radius: 8px; padding: 4px 14px;")
        self.display.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"font-size: 20px; font-weight: bold; color: {theme.BAD};")
        self.message.hide()
        self.cancel_button = sheet_button("Cancel")
        self.cancel_button.setAccessibleName("Key Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.done_button = sheet_button("Done", kind="primary")
        self.done_button.setAccessibleName("Key Done")
        self.done_button.clicked.connect(self.done)
        self.next_button: QPushButton | None = None
        if next_label is not None and on_next is not None:
            self.next_button = sheet_button(next_label, kind="primary")
            self.next_button.setAccessibleName("Key Next")
            self.next_button.clicked.connect(self.next)

        self.keyboard: TouchKeyboard | None = None
        self.pad: DigitPad | None = None
        if keyboard:
            top = QHBoxLayout()
            top.setSpacing(10)
            self.cancel_button.setMinimumWidth(150)
            self.done_button.setMinimumWidth(190)
            top.addWidget(self.cancel_button)
            top.addWidget(self.display, 1)
            top.addWidget(self.done_button)
            if self.next_button is not None:
                top.addWidget(self.next_button)
            self.body.addLayout(top)
            self.body.addWidget(self.message)
            self.keyboard = TouchKeyboard()
            self.keyboard.typed.connect(self.type)
            self.keyboard.erased.connect(self.erase)
            self.keyboard.cleared.connect(self.clear)
            self.body.addWidget(self.keyboard)
        else:
            self.body.addWidget(self.display)
            self.body.addWidget(self.message)
            clear = None
            if mode != "amount":
                clear = QPushButton("Clear")
                clear.setAccessibleName("Key Clear")
                clear.setStyleSheet("font-size: 22px; font-weight: bold; padding: 0px;")
                clear.clicked.connect(self.clear)
            self.pad = DigitPad(point=mode == "amount", corner=clear)
            self.pad.typed.connect(self.type)
            self.pad.erased.connect(self.erase)
            self.body.addWidget(self.pad)
            row = QHBoxLayout()
            row.setSpacing(10)
            row.addWidget(self.cancel_button, 1)
            row.addWidget(self.done_button, 1)
            self.body.addLayout(row)
            if self.next_button is not None:
                self.body.addWidget(self.next_button)
        self._show()

    def open(self) -> InputSheet:
        super().open()
        self._show()          # now that the display has its width
        return self

    # -- typing ----------------------------------------------------------------------------

    def _show(self) -> None:
        shown = "●" * len(self.text) if self.mode == "pin" else self.text
        if shown:
            shown += "▏" if self.mode == "text" else ""
            room = self.display.width() - 34
            if room > 100:   # a long answer shows its end, where the typing is
                shown = self.display.fontMetrics().elidedText(
                    shown, Qt.TextElideMode.ElideLeft, room)
            self.display.setStyleSheet(self._display_style)
            self.display.setText(shown)
        else:
            self.display.setStyleSheet(self._display_style + f" color: {theme.MUTED};")
            self.display.setText(self.placeholder or "▏")
        if self.keyboard is not None and self.words:
            # Names are written with a capital at the start of each word.
            starts = not self.text or self.text[-1] in " -'"
            if starts != self.keyboard.shift and not self.keyboard.caps:
                self.keyboard.set_shift(starts)

    def type(self, ch: str) -> None:
        if len(self.text) >= self.max_length:
            self._refuse(f"At most {self.max_length} characters.")
            return
        if ch == POINT and self.mode == "amount" and POINT in self.text:
            return
        self.text += ch
        self.message.hide()
        self._show()

    def erase(self) -> None:
        self.text = self.text[:-1]
        self.message.hide()
        self._show()

    def clear(self) -> None:
        self.text = ""
        self.message.hide()
        self._show()

    def _refuse(self, why: str) -> None:
        self.message.setText(why)
        self.message.show()
        self.refit()

    def answer_text(self) -> str | None:
        """What Done would give (spaces tidied for text), or None with the refusal shown."""
        text = " ".join(self.text.split()) if self.mode == "text" else self.text
        if self.required and not text:
            self._refuse("Nothing typed yet." if self.mode != "pin" else "Type the PIN first.")
            return None
        if self.check is not None:
            problem = self.check(text)
            if problem:
                self._refuse(problem)
                return None
        return text

    def done(self) -> None:
        text = self.answer_text()
        if text is not None:
            self.answer(lambda: self.on_done(text))

    def next(self) -> None:
        text = self.answer_text()
        if text is not None and self.on_next is not None:
            on_next = self.on_next
            self.answer(lambda: on_next(text))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.done()
        elif key == Qt.Key.Key_Backspace:
            self.erase()
        elif key == Qt.Key.Key_Escape:
            self.cancel()
        else:
            ch = event.text()
            allowed = (ch.isprintable() if self.mode == "text" else
                       ch.isdigit() or (self.mode == "amount" and ch == POINT))
            if ch and allowed:
                self.type(ch)
        event.accept()


def open_keyboard(anchor: QWidget, title: str, on_done: Callable[[str], Any], *,
                  text: str = "", note: str = "", placeholder: str = "", max_length: int = 80,
                  words: bool = False, required: bool = False,
                  check: Callable[[str], str | None] | None = None,
                  next_label: str | None = None,
                  on_next: Callable[[str], Any] | None = None) -> InputSheet:
    """Open the keyboard over ``anchor``'s window to type ``title``'s answer, starting from
    ``text``. ``words``: a capital at the start of each word (names). ``required``: Done
    refuses an empty answer. ``on_done(text)`` runs with the answer, spaces tidied.
    ``next_label`` and ``on_next(text)``: a *Next ›* key, as for the keypads."""
    sheet = InputSheet(anchor, title, on_done, mode="text", text=text, note=note,
                       placeholder=placeholder, max_length=max_length, words=words,
                       required=required, check=check, next_label=next_label,
                       on_next=on_next)
    sheet.open()
    return sheet


def open_keypad(anchor: QWidget, title: str, on_done: Callable[[str], Any], *,
                mode: str = "count", text: str = "", note: str = "", placeholder: str = "",
                max_length: int = 9, required: bool = False,
                check: Callable[[str], str | None] | None = None,
                next_label: str | None = None,
                on_next: Callable[[str], Any] | None = None) -> InputSheet:
    """Open a keypad over ``anchor``'s window: ``mode`` ``"count"`` (digits), ``"amount"``
    (digits and one point) or ``"pin"`` (digits shown as dots). ``next_label`` and
    ``on_next(text)``: a *Next ›* key that answers and moves on to the next field."""
    if mode == "text":
        raise ValueError("a keypad types counts, amounts or PINs; use open_keyboard for text")
    sheet = InputSheet(anchor, title, on_done, mode=mode, text=text, note=note,
                       placeholder=placeholder, max_length=max_length, required=required,
                       check=check, next_label=next_label, on_next=on_next)
    sheet.open()
    return sheet


__all__ = [
    "KEY_PX",
    "DigitPad",
    "InputSheet",
    "TouchKeyboard",
    "open_keyboard",
    "open_keypad",
]
