"""Sign-in: a user id and a PIN, with a keypad big enough for a fingertip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import AuthError, LockedOut, PinResetRequired, UserMismatch
from dealer_station.errors import StationError
from dealer_station.ui import theme
from dealer_station.ui.session import SignInSession


class LoginPanel(QWidget):
    def __init__(self, session: SignInSession, heading: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        mid = QHBoxLayout()
        outer.addLayout(mid)
        outer.addStretch(1)
        mid.addStretch(1)
        card = QFrame()
        card.setObjectName("panel")
        card.setFixedWidth(560)
        mid.addWidget(card)
        mid.addStretch(1)

        col = QVBoxLayout(card)
        col.setContentsMargins(34, 26, 34, 26)
        col.setSpacing(12)
        title = QLabel(heading)
        title.setObjectName("title")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        col.addWidget(title)
        self.notice = QLabel("Sign in with your user id and PIN")
        self.notice.setObjectName("muted")
        self.notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.notice.setWordWrap(True)
        col.addWidget(self.notice)

        self.user_edit = QLineEdit()
        self.user_edit.setPlaceholderText("User id")
        self.user_edit.setAccessibleName("User id")
        self.pin_edit = QLineEdit()
        self.pin_edit.setPlaceholderText("PIN")
        self.pin_edit.setAccessibleName("PIN")
        self.pin_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.user_edit.returnPressed.connect(self.pin_edit.setFocus)
        self.pin_edit.returnPressed.connect(self.submit)
        for edit in (self.user_edit, self.pin_edit):
            edit.setMinimumHeight(theme.TOUCH_PX)
            edit.setStyleSheet("font-size: 24px;")
            col.addWidget(edit)

        self.message = QLabel("")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.hide()
        col.addWidget(self.message)

        pad = QGridLayout()
        pad.setSpacing(8)
        keys = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "⌫", "0", "Sign in"]
        self.sign_in_button: QPushButton | None = None
        for i, key in enumerate(keys):
            b = QPushButton(key)
            b.setMinimumHeight(64)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            if key == "Sign in":
                b.setObjectName("primary")
                b.clicked.connect(self.submit)
                self.sign_in_button = b
            elif key == "⌫":
                b.setAccessibleName("Delete a digit")
                b.clicked.connect(self._backspace)
            else:
                b.setStyleSheet("font-size: 26px;")
                b.clicked.connect(lambda _=False, k=key: self._type(k))
            pad.addWidget(b, i // 3, i % 3)
        col.addLayout(pad)
        self.setTabOrder(self.user_edit, self.pin_edit)

    def _target(self) -> QLineEdit:
        return self.user_edit if self.user_edit.hasFocus() else self.pin_edit

    def _type(self, digit: str) -> None:
        self._target().insert(digit)

    def _backspace(self) -> None:
        self._target().backspace()

    def reset(self, notice: str = "Sign in with your user id and PIN") -> None:
        """Empty the form for the next person (keeps no PIN on screen)."""
        self.user_edit.clear()
        self.pin_edit.clear()
        self.notice.setText(notice)
        self.message.hide()
        self.user_edit.setFocus()

    def submit(self) -> None:
        user_id = self.user_edit.text().strip()
        pin = self.pin_edit.text()
        self.pin_edit.clear()
        if not user_id:
            self._error("Enter your user id, then your PIN.")
            self.user_edit.setFocus()
            return
        try:
            self.session.sign_in(user_id, pin)
        except LockedOut as exc:
            self._error(f"Locked out: {exc}")
            return
        except UserMismatch as exc:
            self._error(f"Not signed in: the station's user records disagree with its "
                        f"journal. {exc}. Call an operator.")
            return
        except PinResetRequired as exc:
            self._error(f"Not signed in: {exc}.")
            return
        except AuthError as exc:
            self._error(f"Not signed in: {exc}. Check the user id and PIN and try again.")
            self.pin_edit.setFocus()
            return
        except StationError as exc:
            self._error(str(exc))
            return
        self.message.hide()

    def _error(self, text: str) -> None:
        self.message.setText(text)
        theme.set_tone(self.message, "bad")
        self.message.show()
