"""A list read in a thread of its own, so that a slow journal never freezes a screen, and the
plain table cell those lists are drawn with (the cage's and the count room's screens)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QTableWidgetItem


class BackgroundReader(QObject):
    """Runs ``read`` in a thread of its own; ``ready`` (what it read) or ``failed`` (why, in
    words, after ``failure``) arrives on the GUI thread. One reading at a time."""

    ready = Signal(object)
    failed = Signal(str)

    def __init__(self, read: Callable[[], Any], *, name: str, failure: str) -> None:
        super().__init__()
        self.read = read
        self.name = name
        self.failure = failure
        self.busy = False

    def start(self) -> None:
        if self.busy:
            return
        self.busy = True
        threading.Thread(target=self._run, name=self.name, daemon=True).start()

    def _run(self) -> None:
        try:
            snap = self.read()
        except Exception as exc:  # said on the screen; tried again next time
            self.busy = False
            self.failed.emit(f"{self.failure}: {exc}")
            return
        self.busy = False
        self.ready.emit(snap)


def cell(text: str, colour: str | None = None, *, bold: bool = False,
         right: bool = False) -> QTableWidgetItem:
    """A read-only cell: its colour, bold, right-aligned (figures)."""
    it = QTableWidgetItem(text)
    it.setFlags(Qt.ItemFlag.ItemIsEnabled)
    if colour:
        it.setForeground(QColor(colour))
    if bold:
        f = QFont(it.font())
        f.setBold(True)
        it.setFont(f)
    if right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return it
