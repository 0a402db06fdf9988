"""Who is signed in at the station, and the inactivity lock.

Sign-in goes through ``Users.authenticate`` (which journals every attempt, failure and
lockout). Any touch, click or key press restarts the inactivity timer; when it runs out the
station locks: the user is signed out and the sign-in screen comes back.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from dealer_station.audit.users import User, Users

#: Default inactivity before the station locks (seconds).
DEFAULT_LOCK_AFTER = 300.0

_ACTIVITY = frozenset({
    QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress, QEvent.Type.TouchBegin,
    QEvent.Type.Wheel,
})


class SignInSession(QObject):
    """The signed-in user (or None) and the inactivity timer."""

    #: The new user, or None when signed out or locked.
    user_changed = Signal(object)
    #: Emitted with the user id when inactivity locked the station.
    locked = Signal(str)

    def __init__(self, users: Users, table_id: str, *, lock_after: float = DEFAULT_LOCK_AFTER,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.users = users
        self.table_id = table_id
        self.user: User | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._idle)
        self.set_lock_after(lock_after)

    def set_lock_after(self, seconds: float) -> None:
        self.lock_after = seconds
        self._timer.setInterval(max(1, int(seconds * 1000)))

    def sign_in(self, user_id: str, pin: str) -> User:
        """Check the PIN (journaled); raises AuthError / LockedOut with the reason."""
        user = self.users.authenticate(user_id.strip(), pin, table_id=self.table_id)
        self.user = user
        self._timer.start()
        self.user_changed.emit(user)
        return user

    def sign_out(self, why: str = "signed out") -> None:
        self._timer.stop()
        if self.user is not None:
            user, self.user = self.user, None
            self.users.sign_out(user, why, table_id=self.table_id)
            self.user_changed.emit(None)

    def touch(self) -> None:
        """Someone did something: restart the inactivity timer."""
        if self.user is not None:
            self._timer.start()

    def _idle(self) -> None:
        if self.user is not None:
            who = self.user.user_id
            self.sign_out(f"locked after {self.lock_after:.0f} s without activity")
            self.locked.emit(who)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _ACTIVITY:
            self.touch()
        return False
