"""Choices by touch.

- :class:`ChoiceButtons`: one choice out of a few, as a row of large buttons: a touch picks
  it, no list drops down. It answers as a combo box would (``currentText``,
  ``setCurrentText``, ``currentIndexChanged``) so that a screen reads it the same way; the
  operator's paytable and the Bourré rule profile use it.
- :class:`TouchCheckBox`: a check box that takes a touch anywhere on its row, not only on its
  box and words, at least a fingertip tall.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QPoint, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QWidget,
)

#: A touch target's least height (px).
TOUCH_MIN_PX = 48


class TouchCheckBox(QCheckBox):
    """A check box whose whole row takes a touch (see the module)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        # The style sheet's min-height wins over setMinimumHeight: set it there.
        self.setStyleSheet(f"QCheckBox {{ min-height: {TOUCH_MIN_PX}px; }}")

    def hitButton(self, pos: QPoint) -> bool:
        return self.rect().contains(pos)


class ChoiceButtons(QWidget):
    """Exclusive checkable buttons, one per choice, in one row."""

    currentIndexChanged = Signal(int)
    currentTextChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(8)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.group.idToggled.connect(self._toggled)
        self.buttons: list[QPushButton] = []

    def clear(self) -> None:
        for b in self.buttons:
            self.group.removeButton(b)
            self.row.removeWidget(b)
            b.deleteLater()
        self.buttons = []

    def addItems(self, texts: Iterable[str]) -> None:
        for text in texts:
            b = QPushButton(text)
            b.setCheckable(True)
            b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            self.group.addButton(b, len(self.buttons))
            self.row.addWidget(b)
            self.buttons.append(b)
        if self.currentIndex() < 0 and self.buttons:
            self.setCurrentIndex(0)

    def count(self) -> int:
        return len(self.buttons)

    def itemText(self, index: int) -> str:
        return self.buttons[index].text()

    def currentIndex(self) -> int:
        return self.group.checkedId()

    def currentText(self) -> str:
        i = self.currentIndex()
        return self.buttons[i].text() if i >= 0 else ""

    def setCurrentIndex(self, index: int) -> None:
        if 0 <= index < len(self.buttons):
            self.buttons[index].setChecked(True)

    def setCurrentText(self, text: str) -> None:
        for i, b in enumerate(self.buttons):
            if b.text() == text:
                self.setCurrentIndex(i)

    def button(self, text: str) -> QPushButton:
        """The button of a choice (what a touch lands on)."""
        for b in self.buttons:
            if b.text() == text:
                return b
        raise KeyError(text)

    def _toggled(self, index: int, checked: bool) -> None:
        if checked:
            self.currentIndexChanged.emit(index)
            self.currentTextChanged.emit(self.buttons[index].text())
