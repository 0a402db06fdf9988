"""A screen's message line: what an action came to, in its tone (good, bad, info).

Hidden until there is something to say; wraps, so a long refusal is read whole.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from dealer_station.ui import theme


class MessageLabel(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("message")
        self.setWordWrap(True)
        self.hide()

    def say(self, text: str, tone: str = "info") -> None:
        self.setText(text)
        theme.set_tone(self, tone)
        self.show()
