"""The operator's Bourré screen: the table's rule profile, changed between sessions with a
reason."""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dealer_station.errors import StationError
from dealer_station.ui import theme
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents


class BourreOperatorScreen(QWidget):
    """The rule profile of a Bourré table, changed between sessions with a reason."""

    def __init__(self, table: Any, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from dealer_station.gameconfig import load_bourre_profiles

        self.table = table
        self.session = session
        self.profiles = load_bourre_profiles()
        col = QVBoxLayout(self)
        col.setContentsMargins(14, 10, 14, 10)
        self.current = QLabel("")
        self.current.setWordWrap(True)
        col.addWidget(self.current)
        self.choice = QComboBox()
        self.choice.addItems(list(self.profiles))
        self.choice.currentTextChanged.connect(self.preview)
        col.addWidget(self.choice)
        self.details = QTextBrowser()
        col.addWidget(self.details, 1)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason for the change (required)")
        col.addWidget(self.reason)
        self.apply_button = QPushButton("Apply the rule profile")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply)
        col.addWidget(self.apply_button)
        self.message = QLabel("")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.hide()
        col.addWidget(self.message)
        events.listen(lambda _c: self._show_current())
        self._show_current()
        self.preview(self.choice.currentText())

    def _show_current(self) -> None:
        p = self.table.profile
        note = (" A session is under way: the profile can change once it ends."
                if self.table.session is not None else "")
        self.current.setText(f"In force: profile <b>{escape(p.name)}</b> ({escape(p.description)}"
                             f"), configuration {self.table.version[:12]}.{note}")

    def preview(self, name: str) -> None:
        p = self.profiles.get(name)
        if p is None:
            return
        rows = "".join(f"<tr><td style='padding-right:18px'>{escape(str(k))}</td>"
                       f"<td><b>{escape(str(v))}</b></td></tr>"
                       for k, v in p.to_data().items() if not isinstance(v, dict))
        subs = "".join(f"<tr><td style='padding-right:18px'>{escape(str(k))}.{escape(str(k2))}"
                       f"</td><td><b>{escape(str(v2))}</b></td></tr>"
                       for k, v in p.to_data().items() if isinstance(v, dict)
                       for k2, v2 in v.items())
        self.details.setHtml(f"<h3>{escape(p.name)}: {escape(p.description)}</h3>"
                             f"<table>{rows}{subs}</table>")

    def apply(self) -> None:
        user = self.session.user
        if user is None:
            return
        p = self.profiles[self.choice.currentText()]
        try:
            version = self.table.change_profile(user, p, self.reason.text())
        except StationError as exc:
            self._say(f"Not applied: {exc}", "bad")
            return
        self.reason.clear()
        self._say(f"Profile {p.name} in force (configuration {version[:12]}), recorded by "
                  f"{user.actor}.", "good")

    def _say(self, text: str, tone: str) -> None:
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self.message.show()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._show_current()
