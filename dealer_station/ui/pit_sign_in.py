"""The pit's sign-in: the floor's own users (a supervisor or operator), each field opening
the on-screen keyboard or the PIN pad when touched; once signed in, who and *Sign out*."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from dealer_station.audit.users import PRIVILEGED, User, Users, require_role
from dealer_station.errors import StationError
from dealer_station.ui import theme
from dealer_station.ui.touch_fields import TouchLineEdit, TouchPinField


class SignInBar(QWidget):
    """User id, PIN and Sign in; once signed in, who and Sign out."""

    changed = Signal()

    def __init__(self, users: Users, stream: str, say: Callable[[str, str], None]) -> None:
        super().__init__()
        self.users = users
        self.stream = stream
        self.say = say
        self.user: User | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        # Touched, each opens the on-screen keyboard or the PIN pad (ui/touch_fields.py).
        self.user_id = TouchLineEdit("Your user id", placeholder="supervisor id",
                                     max_length=40)
        self.user_id.setAccessibleName("User id")
        self.user_id.setFixedWidth(170)
        self.pin = TouchPinField("Your PIN")
        self.pin.setAccessibleName("PIN")
        self.pin.setFixedWidth(110)
        self.user_id.next_field = self.pin
        self.pin.returnPressed.connect(self.sign_in)
        self.sign_in_button = QPushButton("Sign in")
        self.sign_in_button.clicked.connect(self.sign_in)
        self.who = QLabel("")
        self.who.setStyleSheet(f"font-size: 19px; font-weight: bold; color: {theme.GOLD};")
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.clicked.connect(self.sign_out)
        for w in (self.user_id, self.pin, self.sign_in_button, self.who,
                  self.sign_out_button):
            row.addWidget(w)
        self._show()

    def _show(self) -> None:
        signed = self.user is not None
        for w in (self.user_id, self.pin, self.sign_in_button):
            w.setVisible(not signed)
        self.who.setVisible(signed)
        self.sign_out_button.setVisible(signed)
        if self.user is not None:
            self.who.setText(f"{self.user.name} ({self.user.role})")

    def sign_in(self) -> None:
        try:
            user = self.users.authenticate(self.user_id.text().strip(), self.pin.text(),
                                           table_id=self.stream)
            require_role(user, *PRIVILEGED, action="sign in at the pit")
        except StationError as exc:
            self.pin.clear()
            self.say(str(exc), "bad")
            return
        self.user = user
        self.pin.clear()
        self.say(f"{user.name} signed in: select an alert, give a reason, Acknowledge", "good")
        self._show()
        self.changed.emit()

    def sign_out(self) -> None:
        if self.user is not None:
            try:
                self.users.sign_out(self.user, "signed out at the pit", table_id=self.stream)
            except StationError as exc:
                self.say(str(exc), "bad")
        self.user = None
        self._show()
        self.say("signed out", "info")
        self.changed.emit()
