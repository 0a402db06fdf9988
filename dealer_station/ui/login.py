"""Sign-in: tap your name (or type your user id), then your PIN on a keypad big enough for a
fingertip.

The names are the station's active users as the journal establishes them; a tap fills the
user id and moves to the PIN. The user id field, touched, opens the on-screen keyboard (a
user the list cannot show); a physical keyboard, or digits on the keypad while the user id
field has the focus, still type it. The keypad is the kit's ``DigitPad``
(``touch_keyboard.py``). Nothing here needs a key press.
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import (
    AuthError,
    LockedOut,
    PinResetRequired,
    User,
    UserMismatch,
    WrongPin,
    attempts_left_text,
    local_time,
)
from dealer_station.errors import StationError
from dealer_station.ui import theme
from dealer_station.ui.session import SignInSession
from dealer_station.ui.touch_fields import TouchLineEdit
from dealer_station.ui.touch_keyboard import DigitPad

NOTICE = "Tap your name (or type your user id), then enter your PIN"
#: The order the names are listed in: the people who deal first.
ROLE_ORDER = {"dealer": 0, "supervisor": 1, "operator": 2}


class LoginPanel(QWidget):
    #: Only users of these roles are listed (None: everyone active).
    roles: tuple[str, ...] | None = None
    notice_text = NOTICE

    def __init__(self, session: SignInSession, heading: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        mid = QHBoxLayout()
        mid.setSpacing(16)
        outer.addLayout(mid)
        outer.addStretch(1)
        mid.addStretch(1)
        mid.addWidget(self._build_names())
        card = QFrame()
        card.setObjectName("panel")
        card.setFixedWidth(560)
        mid.addWidget(card)
        mid.addStretch(1)

        col = QVBoxLayout(card)
        col.setContentsMargins(34, 26, 34, 26)
        col.setSpacing(12)
        self.title = QLabel(heading)
        self.title.setObjectName("title")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        col.addWidget(self.title)
        self.notice = QLabel(self.notice_text)
        self.notice.setObjectName("muted")
        self.notice.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.notice.setWordWrap(True)
        col.addWidget(self.notice)

        # Touched, the user id opens the on-screen keyboard (for a name not listed); the PIN
        # is typed on the keypad below.
        self.user_edit = TouchLineEdit("Your user id", placeholder="User id", max_length=40)
        self.user_edit.setAccessibleName("User id")
        self.user_edit.textEdited.connect(lambda _t: self._pick(None))
        self.user_edit.done.connect(self._id_typed)
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

        # The keypad of the kit (ui/touch_keyboard.py), with Sign in in its corner.
        self.sign_in_button = QPushButton("Sign in")
        self.sign_in_button.setObjectName("primary")
        self.sign_in_button.clicked.connect(self.submit)
        self.pad = DigitPad(corner=self.sign_in_button, key_px=64)
        self.pad.keys["Delete"].setAccessibleName("Delete a digit")
        self.pad.typed.connect(self._type)
        self.pad.erased.connect(self._backspace)
        col.addWidget(self.pad)
        self.setTabOrder(self.user_edit, self.pin_edit)
        self.refresh_names()

    def _extra(self, col: QVBoxLayout) -> None:
        """More buttons under the names (a subclass's): the keypad's column is full."""

    # -- the names ------------------------------------------------------------------------

    def _build_names(self) -> QFrame:
        box = QFrame()
        box.setObjectName("panel")
        box.setFixedWidth(380)
        col = QVBoxLayout(box)
        col.setContentsMargins(16, 18, 16, 18)
        col.setSpacing(10)
        head = QLabel("Tap your name")
        head.setObjectName("title")
        head.setAlignment(Qt.AlignmentFlag.AlignCenter)
        col.addWidget(head)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        self._names_col = QVBoxLayout(inner)
        self._names_col.setContentsMargins(0, 0, 0, 0)
        self._names_col.setSpacing(8)
        self._names_col.addStretch(1)
        scroll.setWidget(inner)
        col.addWidget(scroll, 1)
        self.names_group = QButtonGroup(self)
        self.names_group.setExclusive(True)
        self.name_buttons: dict[str, QPushButton] = {}
        self._names_note = QLabel("")
        self._names_note.setObjectName("muted")
        self._names_note.setWordWrap(True)
        self._names_note.hide()
        col.addWidget(self._names_note)
        self._extra(col)
        return box

    def listed(self) -> list[User]:
        """The users to list, dealers first, by name."""
        users = [u for u in self.session.users.list() if u.active
                 and (self.roles is None or u.role in self.roles)]
        return sorted(users, key=lambda u: (ROLE_ORDER.get(u.role, 9), u.name.lower()))

    def refresh_names(self) -> None:
        """List the users again (one may have been added, deactivated or locked out)."""
        for b in self.name_buttons.values():
            self.names_group.removeButton(b)
            self._names_col.removeWidget(b)
            b.hide()
            b.deleteLater()
        self.name_buttons = {}
        try:
            users = self.listed()
        except StationError as exc:
            # The list is a convenience: typing the user id still works, and the sign-in
            # itself says what is wrong with a user's records.
            self._names_note.setText(f"The list of names cannot be shown ({exc}). Type your "
                                     f"user id instead.")
            self._names_note.show()
            return
        self._names_note.hide()
        now = self.session.users.clock()
        for u in users:
            label = f"{u.name}\n{u.role}"
            if u.locked_until is not None and datetime.fromisoformat(u.locked_until) > now:
                label += f" · locked until {local_time(u.locked_until)}"
            b = QPushButton(label)
            b.setCheckable(True)
            b.setMinimumHeight(66)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.setAccessibleName(f"{u.name} ({u.user_id})")
            b.setToolTip(f"user id {u.user_id}")
            b.setStyleSheet("text-align: left; padding-left: 16px;")
            b.clicked.connect(lambda _=False, user=u: self.choose(user))
            self.names_group.addButton(b)
            self._names_col.insertWidget(self._names_col.count() - 1, b)
            self.name_buttons[u.user_id] = b

    def choose(self, user: User) -> None:
        """A name was tapped: it fills the user id, and the keypad types the PIN."""
        self.user_edit.setText(user.user_id)
        self.pin_edit.clear()
        self._pick(user.user_id)
        self.notice.setText(f"{user.name}: enter your PIN")
        self.message.hide()
        self.pin_edit.setFocus()

    def _id_typed(self, user_id: str) -> None:
        """A user id typed on the on-screen keyboard: its name is marked if listed, and the
        keypad types the PIN."""
        self._pick(user_id.strip() if user_id.strip() in self.name_buttons else None)
        self.pin_edit.clear()
        self.pin_edit.setFocus()

    def _pick(self, user_id: str | None) -> None:
        for uid, b in self.name_buttons.items():
            b.setChecked(uid == user_id)
        if user_id is None:
            # An id typed by hand: no name stays marked.
            self.names_group.setExclusive(False)
            for b in self.name_buttons.values():
                b.setChecked(False)
            self.names_group.setExclusive(True)

    # -- typing ---------------------------------------------------------------------------

    def _target(self) -> QLineEdit:
        return self.user_edit if self.user_edit.hasFocus() else self.pin_edit

    def _type(self, digit: str) -> None:
        target = self._target()
        target.insert(digit)
        if target is self.user_edit:
            self._pick(None)

    def _backspace(self) -> None:
        self._target().backspace()

    def reset(self, notice: str | None = None) -> None:
        """Empty the form for the next person (keeps no PIN on screen)."""
        self.user_edit.clear()
        self.pin_edit.clear()
        self.notice.setText(notice or self.notice_text)
        self.message.hide()
        self.refresh_names()
        self.user_edit.setFocus()

    # -- signing in -----------------------------------------------------------------------

    def attempt(self, user_id: str, pin: str) -> None:
        """Sign in (journaled); raises with the reason."""
        self.session.sign_in(user_id, pin)

    def submit(self) -> None:
        user_id = self.user_edit.text().strip()
        pin = self.pin_edit.text()
        self.pin_edit.clear()
        if not user_id:
            self._error("Tap your name or enter your user id, then your PIN.")
            self.user_edit.setFocus()
            return
        try:
            self.attempt(user_id, pin)
        except LockedOut as exc:
            self._error(f"Locked out — {exc}.")
            self.refresh_names()
            self._pick(user_id)
            return
        except UserMismatch as exc:
            self._error(f"Not signed in: the station's user records disagree with its "
                        f"journal. {exc}. Call an operator.")
            return
        except PinResetRequired as exc:
            self._error(f"Not signed in: {exc}.")
            return
        except WrongPin as exc:
            self._error(f"Wrong PIN: {attempts_left_text(exc.attempts_left)} before a "
                        f"{exc.lockout_minutes}-minute lockout.")
            self.pin_edit.setFocus()
            return
        except AuthError as exc:
            self._error(f"Not signed in: {exc}. Check the user id and PIN and try again.")
            self.pin_edit.setFocus()
            return
        except StationError as exc:
            self._error(f"Not signed in: {exc}.")
            return
        self.message.hide()

    def _error(self, text: str) -> None:
        self.message.setText(text)
        theme.set_tone(self.message, "bad")
        self.message.show()
