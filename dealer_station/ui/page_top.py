"""The top line of a page that stands in for its list (the cage's issue form, the count
room's count and disposition): a touch-sized button back to the list, and the page's title."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton

from dealer_station.ui import theme


def back_and_title(list_name: str, back: Callable[[], None], *, width: int = 170
                   ) -> tuple[QHBoxLayout, QPushButton, QLabel]:
    """``‹ Requests`` (back to the list called ``list_name``) and an empty title beside it."""
    row = QHBoxLayout()
    button = QPushButton(f"‹ {list_name}")
    button.setAccessibleName(f"Back to the {list_name.lower()}")
    button.setMinimumHeight(theme.TOUCH_PX)
    button.setMinimumWidth(width)
    button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    button.clicked.connect(back)
    title = QLabel("")
    title.setObjectName("title")
    title.setStyleSheet(f"color: {theme.GOLD};")
    title.setWordWrap(True)
    row.addWidget(button)
    row.addSpacing(12)
    row.addWidget(title, 1)
    return row, button, title
