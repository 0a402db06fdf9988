"""The stop banner: what stopped the round and what the supervisor can do about it.

It follows the table's ``halt`` (set by a device fault, a jam, an impossible card...) and
stays until a supervisor resumes, corrects the card or voids the round. Between halts it can
carry a short notice (a card read while stopped, a clock jump) that fades by itself.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from dealer_station.table.base import Halt
from dealer_station.ui import theme

NOTICE_SECONDS = 10.0


class HaltBanner(QFrame):
    supervisor_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.halt: Halt | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(18, 10, 14, 10)
        col = QVBoxLayout()
        self.title = QLabel()
        self.title.setObjectName("bannerTitle")
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setObjectName("bannerDetail")
        col.addWidget(self.title)
        col.addWidget(self.detail)
        row.addLayout(col, 1)
        self.button = QPushButton("Supervisor  (F3)")
        self.button.setObjectName("danger")
        self.button.clicked.connect(self.supervisor_requested)
        row.addWidget(self.button)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self._end_notice)
        self.hide()

    def _style(self, colour: str, background: str) -> None:
        self.setStyleSheet(
            f"QFrame#banner {{ background: {background}; border: 2px solid {colour};"
            f" border-radius: 10px; }}"
            f" QLabel#bannerTitle {{ font-size: 24px; font-weight: bold; color: #ffffff; }}"
            f" QLabel#bannerDetail {{ font-size: 18px; color: #ffe9e6; }}")

    def show_halt(self, halt: Halt | None) -> None:
        """Show ``halt`` (or hide the banner when there is none)."""
        self.halt = halt
        if halt is None:
            if not self._notice_timer.isActive():
                self.hide()
            return
        self._notice_timer.stop()
        self._style(theme.BAD, "#4a1511")
        self.title.setText(f"ROUND STOPPED — {escape(halt.reason)}")
        self.detail.setText(f"<b>What to do:</b> {escape(halt.remedy)}")
        self.button.show()
        self.show()

    def show_notice(self, text: str, seconds: float = NOTICE_SECONDS) -> None:
        if self.halt is not None:
            return
        self._style(theme.WARN, "#47360f")
        self.title.setText(escape(text))
        self.detail.setText("")
        self.button.hide()
        self.show()
        self._notice_timer.start(int(seconds * 1000))

    def _end_notice(self) -> None:
        if self.halt is None:
            self.hide()

    @property
    def text(self) -> str:
        return f"{self.title.text()} {self.detail.text()}"
