"""Who is signed in at the station, a supervisor called over the dealer's session, and the
inactivity lock.

Sign-in goes through ``Users.authenticate`` (which journals every attempt, failure and
lockout). Any touch, click or key press restarts the inactivity timer; when it runs out the
station locks: the user is signed out and the sign-in screen comes back.

A supervisor's visit: with a dealer signed in, a supervisor (or operator) signs in *over* the
dealer's session (``sign_in_over``; the ``login`` record names the dealer). The dealer stays
signed in underneath. Signing the supervisor out, "Back to dealer" or the inactivity lock end
the visit (``end_visit``, journaled as the supervisor's ``logout``) and hand the station back
to the dealer. A dealer never reaches the supervisor's screen without a supervisor's PIN.

The session tells the table who is on duty (``TableService.set_on_duty``): the signed-in
user's actor, or None while nobody is signed in (a card read then is held and stops the round).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

from dealer_station import registry as games
from dealer_station.audit.users import PRIVILEGED, PermissionDenied, User, Users
from dealer_station.ui.while_away import nobody_since, what_happened

if TYPE_CHECKING:
    from dealer_station.table.base import TableService

#: Default inactivity before the station locks (seconds).
DEFAULT_LOCK_AFTER = 300.0

_ACTIVITY = frozenset({
    QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress, QEvent.Type.TouchBegin,
    QEvent.Type.Wheel,
})


class SignInSession(QObject):
    """The signed-in user (or None), the dealer under a supervisor's visit, and the
    inactivity timer."""

    #: The new user, or None when signed out or locked. During a visit: the supervisor, then
    #: the dealer again when it ends.
    user_changed = Signal(object)
    #: Emitted with the user id when inactivity locked the station.
    locked = Signal(str)
    #: A supervisor's visit ended: (the supervisor's user id, why).
    visit_ended = Signal(str, str)
    #: After a sign-in: what the journal holds of the table since nobody was signed in
    #: (short lines, see while_away.py; empty: nothing happened).
    while_away = Signal(list)

    def __init__(self, users: Users, table_id: str, *, lock_after: float = DEFAULT_LOCK_AFTER,
                 table: TableService | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.users = users
        self.table_id = table_id
        self.table = table
        self.user: User | None = None
        #: The dealer signed in underneath a supervisor's visit (None: no visit).
        self.dealer: User | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._idle)
        self.set_lock_after(lock_after)
        #: The table's record after which nobody has been signed in here.
        self.nobody_since = nobody_since(users.journal, table_id)
        # From now on this session manages the table: nobody is signed in yet.
        self._on_duty(None)

    def set_lock_after(self, seconds: float) -> None:
        self.lock_after = seconds
        self._timer.setInterval(max(1, int(seconds * 1000)))

    @property
    def visiting(self) -> bool:
        """Whether a supervisor is signed in over a dealer's session."""
        return self.dealer is not None

    def _on_duty(self, user: User | None) -> None:
        if self.table is not None:
            self.table.set_on_duty(None if user is None else user.actor)

    def sign_in(self, user_id: str, pin: str) -> User:
        """Check the PIN (journaled); raises AuthError / LockedOut with the reason."""
        user = self.users.authenticate(user_id.strip(), pin, table_id=self.table_id)
        self.user = user
        self._on_duty(user)
        self._timer.start()
        self.user_changed.emit(user)
        self.while_away.emit(self.what_happened())
        return user

    def what_happened(self) -> list[str]:
        """The table's records since nobody was signed in, as short lines (read only)."""
        unit, halt = "round", None
        if self.table is not None:
            unit = games.game(self.table.game).unit
            halt = self.table.view().halt
        return what_happened(self.users.journal, self.table_id, self.nobody_since,
                             codec=self.table.codec if self.table is not None else None,
                             unit=unit, halt=halt)

    def sign_in_over(self, user_id: str, pin: str) -> User:
        """A supervisor (or operator) signs in over the signed-in dealer's session.

        The attempt is journaled like any sign-in (its ``login`` names the dealer). Someone
        who is not a supervisor or operator is refused (PermissionDenied) and, if their PIN
        was right, signed straight out again (journaled): a dealer never reaches the
        supervisor's screen this way.
        """
        dealer = self.user
        if dealer is None or self.visiting:
            raise PermissionDenied("a supervisor signs in over a dealer's session only while "
                                   "that dealer is signed in")
        user = self.users.authenticate(user_id.strip(), pin, table_id=self.table_id,
                                       over=dealer.user_id)
        if user.role not in PRIVILEGED:
            self.users.sign_out(user, f"not a supervisor: refused over {dealer.user_id}'s "
                                      f"session", table_id=self.table_id)
            raise PermissionDenied(f"{user.user_id} is a {user.role}: only a supervisor or an "
                                   f"operator may sign in here")
        self.dealer, self.user = dealer, user
        # The dealer stays on duty underneath: the cards the dealer's shoe reads during the
        # visit belong to the dealer's round, and the visit (to resolve a halt, look at
        # recall...) must not itself stop the game. The supervisor's own actions carry the
        # supervisor's name in their records.
        self._timer.start()
        self.user_changed.emit(user)
        return user

    def end_visit(self, why: str = "back to the dealer") -> None:
        """The supervisor signs out (journaled) and the dealer, still signed in, has the
        station again."""
        visitor, dealer = self.user, self.dealer
        if visitor is None or dealer is None:
            return
        self.users.sign_out(visitor, f"{why} ({dealer.user_id} still signed in)",
                            table_id=self.table_id)
        self.user, self.dealer = dealer, None
        self._timer.start()
        self.user_changed.emit(dealer)
        self.visit_ended.emit(visitor.user_id, why)

    def sign_out(self, why: str = "signed out") -> None:
        """Sign out whoever is signed in (journaled). During a visit this signs the
        supervisor out and hands the station back to the dealer."""
        if self.visiting:
            self.end_visit(why)
            return
        self._timer.stop()
        if self.user is not None:
            user, self.user = self.user, None
            self._on_duty(None)
            self.nobody_since = self.users.sign_out(user, why, table_id=self.table_id).seq
            self.user_changed.emit(None)

    def touch(self) -> None:
        """Someone did something: restart the inactivity timer."""
        if self.user is not None:
            self._timer.start()

    def _idle(self) -> None:
        if self.user is None:
            return
        why = f"locked after {self.lock_after:.0f} s without activity"
        if self.visiting:
            # The supervisor walked away: the station goes back to the dealer, who stays
            # signed in (their own inactivity lock starts again from now).
            self.end_visit(why)
            return
        who = self.user.user_id
        self.sign_out(why)
        self.locked.emit(who)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _ACTIVITY:
            self.touch()
        return False
