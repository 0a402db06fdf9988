"""Driving the screens by touch alone, for the tests: a watch on every key event of the
application, and taps that land only where a finger could (the widget under the point
touched is the one tapped, not something a sheet covers).

- ``KeyWatch``: an event filter on the QApplication counting KeyPress and KeyRelease events;
- ``tap(qtbot, widget)``: touch a widget once it is shown, enabled and not covered;
- ``tap_button(qtbot, window, words)``: touch the uncovered button that says ``words``
  (its text or its accessible name);
- ``tap_keys(qtbot, window, text)``: type ``text`` on the on-screen keyboard, key by key
  (the keys are named ``Key a``, ``Key Shift``, ``Key Space``...);
- ``tap_digits(qtbot, window, digits)``: the same on a keypad.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QPushButton, QWidget

WAIT_MS = 5000
KEY_EVENTS = (QEvent.Type.KeyPress, QEvent.Type.KeyRelease)


class KeyWatch(QObject):
    """Counts the key events the application delivers (``count``; ``seen``: to whom)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.seen: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in KEY_EVENTS:
            self.count += 1
            self.seen.append(f"{event.type().name} to {type(watched).__name__} "
                             f"{watched.objectName() or ''}".strip())
        return False

    def install(self) -> KeyWatch:
        app = QApplication.instance()
        assert app is not None
        app.installEventFilter(self)
        return self

    def remove(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)


def reachable(widget: QWidget) -> bool:
    """Whether a touch at the widget's centre lands on it (nothing covers it)."""
    window = widget.window()
    centre = widget.mapTo(window, QPoint(widget.width() // 2, widget.height() // 2))
    hit = window.childAt(centre)
    while hit is not None:
        if hit is widget:
            return True
        hit = hit.parentWidget()
    return False


def tap(qtbot: Any, widget: QWidget) -> None:
    """Touch ``widget`` once it is shown, enabled and uncovered."""
    qtbot.waitUntil(lambda: widget.isVisible() and widget.isEnabled() and reachable(widget),
                    timeout=WAIT_MS)
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def _says(b: QAbstractButton, words: str) -> bool:
    text = " ".join(b.text().split())
    return text == words or b.accessibleName() == words


def find_button(window: QWidget, words: str) -> QAbstractButton | None:
    """The shown, uncovered button of ``window`` saying ``words`` (None: there is none)."""
    for b in window.window().findChildren(QAbstractButton):
        if b.isVisible() and _says(b, words) and reachable(b):
            return b
    return None


def tap_button(qtbot: Any, window: QWidget, words: str) -> QAbstractButton:
    """Touch the shown, uncovered button saying ``words`` (waits for it to appear)."""
    found: list[QAbstractButton] = []

    def there() -> bool:
        b = find_button(window, words)
        if b is not None and b.isEnabled():
            found[:] = [b]
            return True
        return False

    qtbot.waitUntil(there, timeout=WAIT_MS)
    qtbot.mouseClick(found[0], Qt.MouseButton.LeftButton)
    return found[0]


def _key(window: QWidget, name: str) -> QPushButton:
    """The uncovered key named ``Key <name>`` (a keypad's digit may just say it)."""
    for b in window.window().findChildren(QPushButton):
        if (b.accessibleName() == f"Key {name}" or (name.isdigit() and b.text() == name)) \
                and b.isVisible() and reachable(b):
            return b
    raise AssertionError(f"no key {name!r} on screen")


def tap_keys(qtbot: Any, window: QWidget, text: str) -> None:
    """Type ``text`` on the on-screen keyboard, key by key, Shift for a capital."""
    for ch in text:
        if ch == " ":
            tap(qtbot, _key(window, "Space"))
            continue
        key = _key(window, ch.lower())
        if ch.isalpha() and key.text() != ch:
            tap(qtbot, _key(window, "Shift"))
            assert key.text() == ch, f"Shift did not make {ch!r}"
        tap(qtbot, key)


def tap_digits(qtbot: Any, window: QWidget, digits: str) -> None:
    """Type ``digits`` on the keypad on screen."""
    for d in digits:
        tap(qtbot, _key(window, d))


def give_reason(qtbot: Any, window: QWidget, reason: str) -> None:
    """Answer the reason sheet on screen: touch ``reason`` if it is offered, else *Other…*
    and type it on the keyboard, then *Done*."""
    qtbot.waitUntil(lambda: find_button(window, "Other…") is not None, timeout=WAIT_MS)
    offered = find_button(window, reason)
    if offered is not None:
        tap(qtbot, offered)
        return
    tap_button(qtbot, window, "Other…")
    tap_keys(qtbot, window, reason)
    tap_button(qtbot, window, "Done")
