"""Sheets: what the station asks over the whole window, answered by touch alone.

A sheet dims the window it opens over, takes every touch until it is answered, and shows one
panel: a question with large buttons (:func:`choose`), a confirmation (:func:`confirm`), or
the on-screen keyboard and keypads (``touch_keyboard.open_keyboard`` / ``open_keypad``).
Nothing on a sheet needs a key press or a hover; a physical keyboard still works (Escape
cancels, Enter answers where there is one answer).

Use::

    from dealer_station.ui.touch_sheet import choose, confirm

    choose(button, "Who counts with you?", [("Dana Dealer", "dealer"), ...],
           on_chosen=lambda user_id: ...)
    confirm(button, "Record the closer?", "It closes gaming day 2026-11-26.",
            "Record the closer", on_yes=self._record, danger=True)

The first argument is the widget the question belongs to (the anchor): the sheet covers the
anchor's window, and is cancelled, answering nothing, if the anchor is hidden (the screen
changed, the station locked). One sheet at a time per window: opening one cancels the one
before. ``current_sheet(widget)`` is the sheet open over ``widget``'s window, if any.

The callbacks run after the sheet has closed, so a callback may open the next sheet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QRegion
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

from dealer_station.ui import theme

T = TypeVar("T")

#: A sheet's buttons: a fingertip's size at least (theme.TOUCH_PX is 56).
BUTTON_PX = theme.TOUCH_PX
#: The sheet's title and its answer buttons' text.
TITLE_PX = 26
TEXT_PX = 20
_OPEN = "_touch_sheet"


def current_sheet(widget: QWidget) -> Sheet | None:
    """The sheet open over ``widget``'s window (None: none)."""
    found = widget.window().property(_OPEN)
    return found if isinstance(found, Sheet) and found.isVisible() else None


def close_sheets(widget: QWidget) -> None:
    """Cancel the sheet open over ``widget``'s window, if any."""
    sheet = current_sheet(widget)
    if sheet is not None:
        sheet.cancel()


def sheet_button(text: str, *, kind: str = "", px: int = BUTTON_PX) -> QPushButton:
    """A large button for a sheet (``kind``: "", "primary" or "danger")."""
    b = QPushButton(text)
    b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    b.setMinimumHeight(px)
    b.setMinimumWidth(px)
    if kind:
        b.setObjectName(kind)
    b.setStyleSheet(f"font-size: {TEXT_PX}px; font-weight: bold; padding: 4px 14px; "
                    f"min-height: {px - 10}px;")
    return b


class Sheet(QWidget):
    """The overlay: the window dimmed, and a panel (``body``) subclasses fill.

    ``answered`` is emitted once the sheet closed with an answer, ``cancelled`` once it closed
    without one; either way ``finished`` follows.
    """

    answered = Signal()
    cancelled = Signal()
    finished = Signal()

    def __init__(self, anchor: QWidget, title: str, *, note: str = "", width: int = 760,
                 bottom: bool = False, beside: bool = False) -> None:
        window = anchor.window()
        super().__init__(window)
        self.anchor = anchor
        self._window = window
        self._done = False
        self._panel_width = width
        self._bottom = bottom
        self._beside = beside
        self.setObjectName("touchSheet")
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.panel = QFrame(self)
        self.panel.setObjectName("panel")
        self.panel.setStyleSheet(f"QFrame#panel {{ background: {theme.PANEL}; border: 2px "
                                 f"solid {theme.GOLD}; border-radius: 14px; }}")
        self.body = QVBoxLayout(self.panel)
        self.body.setContentsMargins(22, 16, 22, 18)
        self.body.setSpacing(12)
        self.title = QLabel(title)
        self.title.setWordWrap(True)
        self.title.setStyleSheet(f"font-size: {TITLE_PX}px; font-weight: bold; "
                                 f"color: {theme.GOLD};")
        self.body.addWidget(self.title)
        self.note = QLabel(note)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"font-size: {TEXT_PX - 1}px; color: {theme.TEXT};")
        self.note.setVisible(bool(note))
        self.body.addWidget(self.note)

    # -- showing ---------------------------------------------------------------------------

    def open(self) -> Sheet:
        """Show the sheet over the anchor's window (cancelling any other sheet there)."""
        before = current_sheet(self._window)
        if before is not None and before is not self:
            before.cancel()
        self._window.setProperty(_OPEN, self)
        self._window.installEventFilter(self)
        self.anchor.installEventFilter(self)
        self._place()
        self.show()
        self.raise_()
        self.setFocus(Qt.FocusReason.OtherFocusReason)
        return self

    def _place(self) -> None:
        self.setGeometry(self._window.rect())
        margin = 16
        width = min(self._panel_width, self.width() - 2 * margin)
        self.panel.setFixedWidth(width)
        wanted = self.panel.heightForWidth(width)
        if wanted < 0:
            wanted = self.panel.sizeHint().height()
        self.panel.setFixedHeight(min(wanted, self.height() - 2 * margin))
        x = (self.width() - width) // 2
        y = (self.height() - self.panel.height() - margin if self._bottom
             else max(margin, (self.height() - self.panel.height()) // 2))
        spot = self._anchor_rect()
        if self._beside and spot is not None:
            # Beside the field it types into, which stays in sight (with its neighbours).
            if spot.center().x() < self.width() // 2:
                x = min(spot.right() + 3 * margin, self.width() - width - margin)
            else:
                x = max(spot.left() - 3 * margin - width, margin)
        self.panel.move(x, y)

    def _anchor_rect(self) -> QRect | None:
        """Where the anchor is, in the sheet (None: not shown, or the whole window)."""
        if self.anchor is self._window or not self.anchor.isVisible():
            return None
        return QRect(self.anchor.mapTo(self._window, QPoint(0, 0)), self.anchor.size())

    def refit(self) -> None:
        """Lay the panel out again after its content changed."""
        if self.isVisible():
            self._place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Resize:
            self._place()
        elif watched is self.anchor and event.type() == QEvent.Type.Hide and not self._done:
            # The screen the question belongs to went away (another screen, the lock).
            self.cancel()
        return False

    def paintEvent(self, event: QPaintEvent) -> None:
        # The window dimmed, except what the question is about (the field typed into, the
        # button touched), which is framed in gold.
        p = QPainter(self)
        spot = self._anchor_rect()
        shade = QRegion(self.rect())
        if spot is not None:
            shade = shade.subtracted(QRegion(spot))
        p.setClipRegion(shade)
        p.fillRect(self.rect(), QColor(0, 0, 0, 165))
        if spot is not None:
            p.setClipping(False)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setPen(QPen(QColor(theme.GOLD), 3))
            p.drawRoundedRect(spot.adjusted(-3, -3, 3, 3), 8, 8)
        p.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        event.accept()       # a touch beside the panel reaches nothing underneath

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.cancel()
            return
        event.accept()

    # -- closing ---------------------------------------------------------------------------

    def _close(self) -> None:
        self._done = True
        self._window.removeEventFilter(self)
        self.anchor.removeEventFilter(self)
        if self._window.property(_OPEN) is self:
            self._window.setProperty(_OPEN, None)
        self.hide()
        self.deleteLater()

    def answer(self, then: Callable[[], Any] | None = None) -> None:
        """Close with an answer, then run ``then`` (which may open the next sheet)."""
        if self._done:
            return
        self._close()
        self.answered.emit()
        self.finished.emit()
        if then is not None:
            then()

    def cancel(self) -> None:
        """Close without an answer."""
        if self._done:
            return
        self._close()
        self.cancelled.emit()
        self.finished.emit()


class ChoiceSheet(Sheet, Generic[T]):
    """A question answered by one of a few large buttons, in ``columns`` columns; Cancel
    answers nothing. ``buttons`` maps each option's words to its button; ``extra`` buttons
    (e.g. "Other…") come after the options."""

    def __init__(self, anchor: QWidget, title: str, options: Sequence[tuple[str, T]],
                 on_chosen: Callable[[T], Any], *, note: str = "", columns: int = 2,
                 cancel: str = "Cancel", width: int = 820) -> None:
        super().__init__(anchor, title, note=note, width=width)
        self.on_chosen = on_chosen
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(12)
        self.columns = max(1, columns)
        self.buttons: dict[str, QPushButton] = {}
        for text, value in options:
            b = sheet_button(text)
            b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            b.setMinimumHeight(BUTTON_PX + 8)
            b.clicked.connect(lambda _=False, v=value: self.choose(v))
            self._add(b)
            self.buttons[text] = b
        self.body.addLayout(self.grid)
        self.empty = QLabel("")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"font-size: {TEXT_PX}px; color: {theme.MUTED};")
        self.empty.hide()
        self.body.addWidget(self.empty)
        row = QHBoxLayout()
        row.addStretch(1)
        self.cancel_button = sheet_button(cancel)
        self.cancel_button.setMinimumWidth(200)
        self.cancel_button.clicked.connect(self.cancel)
        row.addWidget(self.cancel_button)
        self.body.addLayout(row)

    def _add(self, b: QPushButton) -> None:
        n = self.grid.count()
        self.grid.addWidget(b, n // self.columns, n % self.columns)

    def add_extra(self, text: str, then: Callable[[], Any]) -> QPushButton:
        """One more button after the options: closes the sheet, then runs ``then``."""
        b = sheet_button(text)
        b.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        b.setMinimumHeight(BUTTON_PX + 8)
        b.clicked.connect(lambda: self.answer(then))
        self._add(b)
        self.buttons[text] = b
        self.refit()
        return b

    def choose(self, value: T) -> None:
        self.answer(lambda: self.on_chosen(value))


class ConfirmSheet(Sheet):
    """Are you sure? One large button that does it, one that does not."""

    def __init__(self, anchor: QWidget, title: str, text: str, yes: str,
                 on_yes: Callable[[], Any], *, danger: bool = False, no: str = "Cancel",
                 width: int = 760) -> None:
        super().__init__(anchor, title, note=text, width=width)
        self.on_yes = on_yes
        row = QHBoxLayout()
        row.setSpacing(14)
        self.no_button = sheet_button(no)
        self.no_button.clicked.connect(self.cancel)
        self.yes_button = sheet_button(yes, kind="danger" if danger else "primary")
        self.yes_button.clicked.connect(lambda: self.answer(self.on_yes))
        row.addWidget(self.no_button, 1)
        row.addWidget(self.yes_button, 2)
        self.body.addLayout(row)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.answer(self.on_yes)
            return
        super().keyPressEvent(event)


def choose(anchor: QWidget, title: str, options: Sequence[tuple[str, T]],
           on_chosen: Callable[[T], Any], *, note: str = "", columns: int = 2,
           empty: str = "") -> ChoiceSheet[T]:
    """Ask ``title`` with a large button per ``(words, value)`` option; ``on_chosen(value)``
    runs once one is touched. ``empty``: what to say when there are no options."""
    sheet: ChoiceSheet[T] = ChoiceSheet(anchor, title, options, on_chosen, note=note,
                                        columns=columns)
    if not options and empty:
        sheet.empty.setText(empty)
        sheet.empty.show()
    sheet.open()
    return sheet


def confirm(anchor: QWidget, title: str, text: str, yes: str, on_yes: Callable[[], Any], *,
            danger: bool = False) -> ConfirmSheet:
    """Ask for a confirmation; ``on_yes()`` runs only if ``yes`` is touched."""
    sheet = ConfirmSheet(anchor, title, text, yes, on_yes, danger=danger)
    sheet.open()
    return sheet


__all__ = ["BUTTON_PX", "ChoiceSheet", "ConfirmSheet", "Sheet", "choose", "close_sheets",
           "confirm", "current_sheet", "sheet_button"]
