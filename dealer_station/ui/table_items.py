"""Read-only cells for the podium's and the director's tables (QTableWidget)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidgetItem


def read_only_item(text: str, colour: str | None = None, *, right: bool = False,
                   bold: bool = False) -> QTableWidgetItem:
    """A cell that can be selected but not edited: coloured, right-aligned (numbers) or bold
    as asked."""
    it = QTableWidgetItem(text)
    it.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if colour:
        it.setForeground(QColor(colour))
    if right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if bold:
        f = it.font()
        f.setBold(True)
        it.setFont(f)
    return it
