"""Sign-in and sign-out: a PIN checked, each attempt journaled, failed attempts counted and a
user locked out after too many (``Users``' ``SignIn`` mixin)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from dealer_station.audit.db import Database
from dealer_station.audit.journal import Entry, Record, iso_utc
from dealer_station.audit.user_model import (
    STATION_STREAM,
    AuthError,
    LockedOut,
    PinResetRequired,
    User,
    UserMismatch,
    WrongPin,
    _one_line,
    _valid_user_id,
)
from dealer_station.audit.user_records import Facts, UserRecords, _refusal, _Retry, _Snapshot
from dealer_station.events.station import LockedOut as LockedOutEvent
from dealer_station.events.station import (
    SignedIn,
    SignedOut,
    SignInFailed,
    UserRowMismatch,
)
from dealer_station.gaming_day import local_time


class SignIn(UserRecords):
    """``Users``' sign-in. ``Users.__init__`` sets the attributes named here."""

    db: Database
    clock: Callable[[], datetime]
    max_failures: int
    lockout: timedelta
    lockout_minutes: int

    # -- sign-in --

    def sign_out(self, user: User, why: str, *, table_id: str = STATION_STREAM) -> Record:
        """A person signed out (or was signed out when idle): journaled, like the sign-in
        it ends, on the chain the sign-in went to. Returns the record."""
        event = SignedOut(user.user_id, why)
        return self.journal.write(table_id, [Entry(event, user.actor)])[0]

    def authenticate(self, user_id: str, pin: str, *, table_id: str = STATION_STREAM,
                     over: str | None = None) -> User:
        """Check a PIN; journal the attempt (``login``, ``login.failed``, ``lockout``).

        ``over``: the user id of the dealer whose session this sign-in is layered over (a
        supervisor called to the dealer's station); the ``login`` record names them.

        Raises :class:`LockedOut` while locked out (even with the right PIN),
        :class:`UserMismatch` when the users table disagrees with the chain,
        :class:`PinResetRequired` for a PIN set before PINs were bound to the key, and
        :class:`WrongPin` (with the attempts left before a lockout) for a known user's wrong
        PIN, and :class:`AuthError` for an unknown user or an inactive user.
        """
        if not isinstance(pin, str):
            pin = ""
        if not _valid_user_id(user_id):
            shown = "".join(c for c in str(user_id)[:64] if _one_line(c)) or "?"
            self._verify(self._dummy_hash, pin)
            refused = SignInFailed(shown, "unknown user")
            self.journal.write(table_id, [Entry(refused, "unknown/unknown")])
            raise AuthError(f"unknown user {shown!r} or wrong PIN")
        verified: dict[str, bool] = {}
        # Who may act is read from the chains: first make sure none was cut back past what
        # the anchor file and the checkpoints name (deleting the station chain's user records
        # must not make an old journal look like one with no users yet).
        self.journal.check_heads()
        while True:
            with self.db.read() as conn:
                before = self._snapshot(conn, user_id)
            facts, error, pin_hash, write_row = self._sign_in_plan(before, pin, verified,
                                                                   over)
            try:
                state = self._commit(table_id, before, facts, write_row=write_row,
                                     pin_hash=pin_hash)
            except _Retry:
                continue
            if error is not None:
                raise error
            assert state is not None
            return state.user()

    def _locked_out(self, user_id: str, role: str, until: str, failures: int, now: datetime,
                    verb: str) -> LockedOut:
        who = "an operator" if role != "dealer" else "a supervisor or an operator"
        return LockedOut(f"{user_id} {verb} locked out until {local_time(until, now)} after "
                         f"{failures} wrong PINs; {who} can unlock them on the Supervisor "
                         f"screen (Lockouts)", user_id=user_id, until=until)

    def _sign_in_plan(self, before: _Snapshot, pin: str, verified: dict[str, bool],
                      over: str | None = None
                      ) -> tuple[Facts, AuthError | None, str | None, bool]:
        """The records a sign-in attempt writes, the refusal (if any), a new PIN hash (a
        rehash) and whether the row is rewritten."""
        user_id, state, row = before.user_id, before.state, before.row
        actor = f"{user_id}/{state.role if state is not None else 'unknown'}"

        def failed(reason: str, **extra: Any) -> Entry:
            return Entry(SignInFailed(user_id, reason, dict(extra)), actor)

        if state is None and row is None and not before.forged:
            if "" not in verified:
                verified[""] = self._verify(self._dummy_hash, pin)
            return ([failed("unknown user")],
                    AuthError(f"unknown user {user_id!r} or wrong PIN"), None, False)
        if state is not None and state.pin_mac is None and not before.forged:
            return ([failed("PIN not bound to the journal key")], PinResetRequired(
                f"{user_id}'s PIN was set before PINs were bound to the journal key: an "
                f"operator must set it again (dealer-station users passwd {user_id} --as "
                f"OPERATOR)"), None, False)
        problem = self._problem(before)
        if problem is not None or state is None or row is None:
            assert problem is not None
            return ([failed("the users table disagrees with the journal"),
                     Entry(UserRowMismatch(problem.payload()), actor)],
                    UserMismatch(_refusal(problem)), None, False)
        pin_hash = str(row.pin_hash)
        if pin_hash not in verified:
            verified[pin_hash] = self._verify(pin_hash, pin)
        ok = verified[pin_hash]
        now = self.clock()
        # The lock check: on the state confirmed inside the write (see _commit).
        if state.locked(now):
            assert state.locked_until is not None
            return ([failed("locked out")],
                    self._locked_out(user_id, state.role, state.locked_until, state.failures,
                                     now, "is"), None, True)
        if not ok:
            failures = state.failures + 1
            facts: Facts = [failed("wrong PIN", failures=failures)]
            if failures >= self.max_failures:
                until = iso_utc(now + self.lockout)
                facts.append(Entry(LockedOutEvent(user_id, failures, until), actor))
                return (facts, self._locked_out(user_id, state.role, until, failures, now,
                                                "is now"), None, True)
            return (facts, WrongPin(user_id, self.max_failures - failures,
                                    self.lockout_minutes), None, True)
        if not state.active:
            return ([failed("inactive")], AuthError(f"user {user_id!r} has been deactivated"),
                    None, True)
        more: dict[str, Any] = {}
        new_hash: str | None = None
        if over is not None:
            more["over"] = over
        if self.hasher.check_needs_rehash(pin_hash):
            new_hash = self.hash_pin(pin)
            more["pin_mac"] = self.pin_mac(user_id, new_hash)
        return [Entry(SignedIn(user_id, state.role, more), actor)], None, new_hash, True
