"""The supervisor's Lockouts tab: who is locked out after wrong PINs, and an unlock.

An unlock needs a reason, asked when *Unlock* is touched: the operator's reasons for an
unlock (``[reasons] unlock`` of ``config/station.toml``) or one typed with *Other…* (see
``ui/reasons.py``). ``Users.unlock`` journals it (``user.unlock``: who unlocked whom and why) on
this table's chain and decides who may: a supervisor unlocks dealers, an operator anyone.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import User, local_time
from dealer_station.errors import StationError
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.reasons import ask_reason
from dealer_station.ui.session import SignInSession


class LockoutsPanel(QWidget):
    def __init__(self, session: SignInSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 12, 12, 12)
        col.setSpacing(12)
        intro = QLabel("Users locked out after wrong PINs. A supervisor unlocks dealers; an "
                       "operator unlocks anyone. Unlock asks why; the unlock, your name and "
                       "the reason are recorded in the journal.")
        intro.setWordWrap(True)
        col.addWidget(intro)
        self.rows = QVBoxLayout()
        self.rows.setSpacing(8)
        col.addLayout(self.rows)
        self.empty = QLabel("Nobody is locked out.")
        self.empty.setObjectName("muted")
        col.addWidget(self.empty)
        self.message = MessageLabel()
        col.addWidget(self.message)
        col.addStretch(1)
        self.unlock_buttons: dict[str, QPushButton] = {}
        self._row_widgets: list[QWidget] = []

    def refresh(self) -> None:
        for w in self._row_widgets:
            self.rows.removeWidget(w)
            w.hide()
            w.deleteLater()
        self._row_widgets = []
        self.unlock_buttons = {}
        try:
            locked = self.session.users.locked_out()
        except StationError as exc:
            self.empty.setText(f"The users cannot be read: {exc}")
            self.empty.show()
            return
        self.empty.setText("Nobody is locked out.")
        self.empty.setVisible(not locked)
        for u in locked:
            self._add_row(u)

    def _add_row(self, user: User) -> None:
        row = QFrame()
        row.setObjectName("panel")
        line = QHBoxLayout(row)
        line.setContentsMargins(14, 6, 8, 6)
        text = QLabel(f"<b>{escape(user.name)}</b> ({user.role}) · "
                      f"locked until <b>{local_time(user.locked_until or '')}</b> after "
                      f"{user.failed_attempts} wrong PINs")
        text.setTextFormat(Qt.TextFormat.RichText)
        text.setStyleSheet("font-size: 19px;")
        line.addWidget(text, 1)
        button = QPushButton(f"Unlock {user.name}")
        button.setObjectName("primary")
        button.setMinimumHeight(56)
        button.clicked.connect(lambda _=False, u=user: self.unlock(u))
        line.addWidget(button)
        self.rows.addWidget(row)
        self._row_widgets.append(row)
        self.unlock_buttons[user.user_id] = button

    def unlock(self, user: User, reason: str | None = None) -> None:
        """Unlock ``user``: asks the reason first (``reason`` given: at once)."""
        admin = self.session.user
        if admin is None:
            self._say("Sign in first.", "bad")
            return
        if reason is None:
            self.message.hide()
            ask_reason(self, "unlock",
                       f"Unlock {user.name}: why?",
                       lambda why: self.unlock(user, why),
                       note=f"{user.name} may sign in again at once.")
            return
        reason = reason.strip()
        if not reason:
            self._say(f"Not done: give the reason for unlocking {user.name} first.", "bad")
            return
        try:
            self.session.users.unlock(user.user_id, actor=admin, reason=reason,
                                      table_id=self.session.table_id)
        except StationError as exc:
            self._say(f"Not done: {exc}", "bad")
            return
        self._say(f"{user.name} unlocked: they may sign in again. Recorded as {admin.name}: "
                  f"{reason}", "good")
        self.refresh()

    def _say(self, text: str, tone: str) -> None:
        self.message.say(text, tone)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
