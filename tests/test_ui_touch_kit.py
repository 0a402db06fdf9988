"""The touch kit on its own: the on-screen keyboard, the keypads, the touch fields, the
sheets and the reason picker, driven by mouse clicks on the real widgets with a watch on
every key event of the application (none may be needed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QPushButton, QVBoxLayout, QWidget
from touch_support import (
    KeyWatch,
    find_button,
    reachable,
    tap,
    tap_button,
    tap_digits,
    tap_keys,
)

from dealer_station.reasons import DEFAULT_REASONS
from dealer_station.ui import theme
from dealer_station.ui.reasons import ReasonSheet, ask_reason
from dealer_station.ui.touch_fields import (
    TouchAmountField,
    TouchLineEdit,
    TouchNumberField,
    TouchPinField,
)
from dealer_station.ui.touch_keyboard import InputSheet, TouchKeyboard
from dealer_station.ui.touch_sheet import confirm, current_sheet


@pytest.fixture
def keys() -> Iterator[KeyWatch]:
    watch = KeyWatch().install()
    yield watch
    watch.remove()
    assert watch.count == 0, f"key events were sent: {watch.seen[:5]}"


@pytest.fixture
def form(qtbot: Any) -> QWidget:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = QWidget()
    w.setFixedSize(*theme.WINDOW_SIZE)
    col = QVBoxLayout(w)
    w.name = TouchLineEdit("The player's name", words=True, max_length=24)  # type: ignore[attr-defined]
    w.count = TouchNumberField("How many 25.00 chips?")  # type: ignore[attr-defined]
    w.count2 = TouchNumberField("How many 5.00 chips?")  # type: ignore[attr-defined]
    w.amount = TouchAmountField("The amount")  # type: ignore[attr-defined]
    w.pin = TouchPinField("The dealer's PIN")  # type: ignore[attr-defined]
    for f in (w.name, w.count, w.count2, w.amount, w.pin):  # type: ignore[attr-defined]
        col.addWidget(f)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def sheet_of(w: QWidget) -> Any:
    sheet = current_sheet(w)
    assert sheet is not None, "no sheet is open"
    return sheet


def test_a_name_is_typed_on_the_keyboard_with_capitals_and_marks(
        qtbot: Any, form: Any, keys: KeyWatch) -> None:
    tap(qtbot, form.name)
    sheet = sheet_of(form)
    assert isinstance(sheet, InputSheet) and sheet.title.text() == "The player's name"
    # Names: a capital at each word's start by itself, Shift for any other.
    tap_keys(qtbot, form, "Ada O'Neil-Smith Jr.")
    assert sheet.text == "Ada O'Neil-Smith Jr."
    tap(qtbot, sheet.keyboard.keys["Delete"])
    tap(qtbot, sheet.keyboard.keys["Delete"])
    assert sheet.text == "Ada O'Neil-Smith J"
    tap_button(qtbot, form, "Done")
    assert form.name.text() == "Ada O'Neil-Smith J" and current_sheet(form) is None
    # Cancel leaves the field as it was.
    tap(qtbot, form.name)
    tap(qtbot, sheet_of(form).keyboard.keys["Clear"])
    tap_keys(qtbot, form, "Bob")
    tap_button(qtbot, form, "Cancel")
    assert form.name.text() == "Ada O'Neil-Smith J" and current_sheet(form) is None


def test_caps_shift_and_the_longest_answer(qtbot: Any, form: Any, keys: KeyWatch) -> None:
    tap(qtbot, form.name)
    sheet = sheet_of(form)
    kb: TouchKeyboard = sheet.keyboard
    tap(qtbot, kb.keys["Caps"])
    tap(qtbot, kb.keys["Clear"])
    for ch in "ab":
        tap(qtbot, kb.keys[ch])
    tap(qtbot, kb.keys["Shift"])          # Shift under Caps: one small letter
    tap(qtbot, kb.keys["c"])
    tap(qtbot, kb.keys["d"])
    assert sheet.text == "ABcD"
    tap(qtbot, kb.keys["Caps"])
    for _ in range(30):
        tap(qtbot, kb.keys["7"])
    assert len(sheet.text) == 24 and "At most 24 characters" in sheet.message.text()
    assert sheet.message.isVisible()


def test_counts_go_from_field_to_field_with_next_and_a_pin_is_dots(
        qtbot: Any, form: Any, keys: KeyWatch) -> None:
    form.count.next_field = form.count2
    tap(qtbot, form.count)
    sheet = sheet_of(form)
    assert sheet.pad is not None and sheet.keyboard is None
    tap_digits(qtbot, form, "20")
    tap_button(qtbot, form, "Next: How many 5.00 chips? ›")
    assert form.count.text() == "20"
    assert sheet_of(form).title.text() == "How many 5.00 chips?"
    tap_digits(qtbot, form, "4")
    tap_button(qtbot, form, "Done")
    assert form.count2.text() == "4" and current_sheet(form) is None
    # A count has no point; an amount has one, once.
    tap(qtbot, form.count)
    assert find_button(form, "Key .") is None
    tap_button(qtbot, form, "Cancel")
    tap(qtbot, form.amount)
    tap_digits(qtbot, form, "12.5.0")
    assert sheet_of(form).text == "12.50"
    tap_button(qtbot, form, "Done")
    assert form.amount.text() == "12.50"
    # A PIN shows as dots, and the pad starts empty each time.
    form.pin.setText("9")
    tap(qtbot, form.pin)
    pin_sheet = sheet_of(form)
    assert pin_sheet.text == ""
    tap_digits(qtbot, form, "1111")
    assert pin_sheet.display.text() == "●●●●"
    tap_button(qtbot, form, "Done")
    assert form.pin.text() == "1111"


def test_keys_and_sheet_buttons_are_fingertip_sized(qtbot: Any, form: Any) -> None:
    for field in (form.name, form.count, form.amount):
        field.open_input()
        sheet = sheet_of(form)
        QApplication.processEvents()
        buttons = [b for b in sheet.findChildren(QPushButton) if b.isVisible()]
        assert len(buttons) == (48 if field is form.name else 14)
        small = [(b.text(), b.width(), b.height()) for b in buttons
                 if b.width() < 56 or b.height() < 56]
        assert small == []
        # The sheet lies within the 1280x800 screen.
        panel = sheet.panel.geometry()
        assert panel.top() >= 0 and panel.bottom() < 800 and panel.right() < 1280
        sheet.cancel()


def test_the_sheet_goes_when_its_screen_goes(qtbot: Any, form: Any) -> None:
    answered: list[str] = []
    form.name.done.connect(answered.append)
    form.name.open_input()
    assert current_sheet(form) is not None
    form.name.hide()                 # the screen changed or the station locked
    assert current_sheet(form) is None and answered == []


def test_a_confirmation_runs_only_on_yes(qtbot: Any, form: Any, keys: KeyWatch) -> None:
    done: list[int] = []
    confirm(form.name, "Record the closer?", "It closes the gaming day.", "Record the closer",
            lambda: done.append(1), danger=True)
    tap_button(qtbot, form, "Cancel")
    assert done == []
    confirm(form.name, "Record the closer?", "It closes the gaming day.", "Record the closer",
            lambda: done.append(1), danger=True)
    # Under a sheet nothing can be touched.
    assert find_button(form, "Record the closer") is not None
    assert not reachable(form.count) and not reachable(form.name)
    tap_button(qtbot, form, "Record the closer")
    assert done == [1]


def test_a_reason_is_picked_from_the_list_or_typed(qtbot: Any, form: Any,
                                                   keys: KeyWatch) -> None:
    chosen: list[str] = []
    ask_reason(form.name, "resume", "Resume round 3: why?", chosen.append)
    for reason in DEFAULT_REASONS["resume"]:
        assert find_button(form, reason) is not None
    tap_button(qtbot, form, "shoe jam cleared")
    assert chosen == ["shoe jam cleared"] and current_sheet(form) is None
    ask_reason(form.name, "void", "Void round 3: why?", chosen.append)
    assert find_button(form, "shoe jam cleared") is None
    tap_button(qtbot, form, "Other…")
    keyboard = sheet_of(form)
    assert keyboard.title.text() == "Void round 3: why?"
    tap_button(qtbot, form, "Done")                      # nothing typed: refused
    assert "Nothing typed yet" in keyboard.message.text() and current_sheet(form) is keyboard
    tap_keys(qtbot, form, "Seat 4 left, wager returned")
    tap_button(qtbot, form, "Done")
    assert chosen[-1] == "Seat 4 left, wager returned"


def test_the_operators_reasons_and_a_broken_file(qtbot: Any, form: Any,
                                                 tmp_path: Path) -> None:
    good = tmp_path / "station.toml"
    good.write_text('[reasons]\nunlock = ["badge checked by security"]\nvoid = []\n')
    sheet = ask_reason(form.name, "unlock", "Unlock Dana: why?", lambda _r: None, path=good)
    assert list(sheet.buttons) == ["badge checked by security", "Other…"]
    sheet.cancel()
    sheet = ask_reason(form.name, "void", "Void: why?", lambda _r: None, path=good)
    assert list(sheet.buttons) == ["Other…"]
    sheet.cancel()
    bad = tmp_path / "bad.toml"
    bad.write_text('[reasons]\nresume = ["jam cleared", 3]\n')
    sheet = ask_reason(form.name, "resume", "Resume: why?", lambda _r: None, path=bad)
    assert isinstance(sheet, ReasonSheet) and list(sheet.buttons) == ["Other…"]
    assert f"{bad}: reasons.resume[1]: must be text, got 3" in sheet.empty.text()
    assert sheet.empty.isVisible()
