"""Users, roles and PIN sign-in, every step journaled.

PINs are stored only as argon2id hashes (memory-hard). After ``max_failures`` wrong PINs in a
row a user is locked out for ``lockout_minutes``. Every attempt, failure and lockout, and every
change to a user, is a significant event in the journal, written in the same transaction as the
change to the users table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, select, update

from dealer_station.audit import schema
from dealer_station.audit.journal import Fact, Journal, JournalError, iso_utc
from dealer_station.errors import StationError

ROLES = schema.ROLES
STATION_STREAM = "station"
"""The chain for station-wide events that belong to no table (user administration)."""

PRIVILEGED = ("supervisor", "operator")
"""Roles that may void rounds, correct cards and change configuration."""

MIN_PIN_LENGTH = 4
U = schema.users


class UserError(StationError):
    """A user-administration request was refused."""


class AuthError(StationError):
    """Sign-in refused: unknown user, wrong PIN or inactive user."""


class LockedOut(AuthError):
    """Sign-in refused because the user is locked out after repeated failures."""


class PermissionDenied(StationError):
    """The signed-in user's role may not do this."""


@dataclass(frozen=True, slots=True)
class User:
    user_id: str
    name: str
    role: str
    active: bool
    failed_attempts: int
    locked_until: str | None
    created_at: str

    @property
    def actor(self) -> str:
        """How this user appears as a journal record's actor: ``user_id/role``."""
        return f"{self.user_id}/{self.role}"


def require_role(user: User, *roles: str, action: str = "do this") -> User:
    """Refuse unless ``user`` holds one of ``roles`` (default: supervisor or operator)."""
    allowed = roles or PRIVILEGED
    if user.role not in allowed:
        raise PermissionDenied(f"{user.user_id} is a {user.role}; only a "
                               f"{' or '.join(allowed)} may {action}")
    return user


def default_hasher() -> PasswordHasher:
    """argon2id with the library's defaults (RFC 9106 low-memory profile: 64 MiB, t=3)."""
    return PasswordHasher()


def _row_user(r: Any) -> User:
    return User(r.user_id, r.name, r.role, bool(r.active), r.failed_attempts, r.locked_until,
                r.created_at)


def _check_pin(pin: str) -> None:
    if not isinstance(pin, str) or len(pin) < MIN_PIN_LENGTH or pin.strip() != pin:
        raise UserError(f"a PIN needs at least {MIN_PIN_LENGTH} characters and no leading or "
                        f"trailing spaces")


def _check_user_id(user_id: str) -> None:
    ok = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
    if not 1 <= len(user_id) <= 64 or not set(user_id) <= ok or not user_id[0].isalnum():
        raise UserError(f"bad user id {user_id!r}: 1-64 letters, digits, '.', '_' or '-', "
                        f"starting with a letter or digit")


class Users:
    """The station's users, stored beside the journal they sign their records into."""

    def __init__(self, journal: Journal, *, max_failures: int = 5, lockout_minutes: int = 15,
                 hasher: PasswordHasher | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        if max_failures < 1 or lockout_minutes < 1:
            raise UserError("max_failures and lockout_minutes must be at least 1")
        self.journal = journal
        self.db = journal.db
        self.max_failures = max_failures
        self.lockout = timedelta(minutes=lockout_minutes)
        self.hasher = hasher or default_hasher()
        self.clock = clock or journal.clock
        # Checked against when the user id is unknown, so both paths cost the same time.
        self._dummy_hash = self.hasher.hash("not-a-pin")

    # -- reading --

    def get(self, user_id: str) -> User | None:
        with self.db.read() as conn:
            row = conn.execute(select(U).where(U.c.user_id == user_id)).first()
        return None if row is None else _row_user(row)

    def list(self) -> list[User]:
        with self.db.read() as conn:
            return [_row_user(r) for r in conn.execute(select(U).order_by(U.c.user_id))]

    def _require(self, conn: Connection, user_id: str) -> Any:
        row = conn.execute(select(U).where(U.c.user_id == user_id)).first()
        if row is None:
            raise UserError(f"no user {user_id!r}")
        return row

    # -- administration (journaled on the station chain unless a table is given) --

    def add(self, user_id: str, name: str, role: str, pin: str, *, actor: str,
            table_id: str = STATION_STREAM) -> User:
        _check_user_id(user_id)
        if role not in ROLES:
            raise UserError(f"bad role {role!r}: one of {', '.join(ROLES)}")
        if not name.strip():
            raise UserError("a user needs a name")
        _check_pin(pin)
        pin_hash = self.hasher.hash(pin)
        now = iso_utc(self.clock())

        def insert(conn: Connection) -> None:
            if conn.execute(select(U.c.user_id).where(U.c.user_id == user_id)).first():
                raise UserError(f"user id {user_id!r} is taken (user ids are unique)")
            conn.execute(U.insert().values(user_id=user_id, name=name, role=role,
                                           pin_hash=pin_hash, failed_attempts=0,
                                           locked_until=None, active=True, created_at=now))

        self.journal.append(table_id, "user.add",
                            {"user_id": user_id, "name": name, "role": role}, actor, also=insert)
        user = self.get(user_id)
        assert user is not None
        return user

    def change_pin(self, user_id: str, new_pin: str, *, actor: str,
                   table_id: str = STATION_STREAM) -> None:
        _check_pin(new_pin)
        pin_hash = self.hasher.hash(new_pin)

        def change(conn: Connection) -> None:
            self._require(conn, user_id)
            conn.execute(update(U).where(U.c.user_id == user_id).values(pin_hash=pin_hash))

        self.journal.append(table_id, "user.pin", {"user_id": user_id}, actor, also=change)

    def deactivate(self, user_id: str, *, actor: str, reason: str,
                   table_id: str = STATION_STREAM) -> None:
        if not reason.strip():
            raise UserError("deactivating a user needs a reason")

        def change(conn: Connection) -> None:
            self._require(conn, user_id)
            conn.execute(update(U).where(U.c.user_id == user_id).values(active=False))

        self.journal.append(table_id, "user.deactivate", {"user_id": user_id, "reason": reason},
                            actor, also=change)

    def unlock(self, user_id: str, *, actor: str, table_id: str = STATION_STREAM) -> None:
        def change(conn: Connection) -> None:
            self._require(conn, user_id)
            conn.execute(update(U).where(U.c.user_id == user_id)
                         .values(failed_attempts=0, locked_until=None))

        self.journal.append(table_id, "user.unlock", {"user_id": user_id}, actor, also=change)

    # -- sign-in --

    def authenticate(self, user_id: str, pin: str, *, table_id: str = STATION_STREAM) -> User:
        """Check a PIN; journal the attempt (``login``, ``login.failed``, ``lockout``).

        Raises :class:`LockedOut` while locked out (even with the right PIN) and
        :class:`AuthError` for an unknown user, a wrong PIN or an inactive user.
        """
        now = self.clock()
        with self.db.read() as conn:
            row = conn.execute(select(U).where(U.c.user_id == user_id)).first()
        actor = f"{user_id}/{row.role}" if row is not None else f"{user_id}/unknown"
        if row is None:
            self._verify(self._dummy_hash, pin)
            self.journal.append(table_id, "login.failed",
                                {"user_id": user_id, "reason": "unknown user"}, actor)
            raise AuthError(f"unknown user {user_id!r} or wrong PIN")
        if row.locked_until is not None and datetime.fromisoformat(row.locked_until) > now:
            self.journal.append(table_id, "login.failed",
                                {"user_id": user_id, "reason": "locked out"}, actor)
            raise LockedOut(f"{user_id} is locked out until {row.locked_until} after "
                            f"{self.max_failures} wrong PINs; a supervisor or operator can "
                            f"unlock them")
        if not self._verify(row.pin_hash, pin):
            return self._failed(user_id, actor, table_id, now)
        if not row.active:
            self.journal.append(table_id, "login.failed",
                                {"user_id": user_id, "reason": "inactive"}, actor)
            raise AuthError(f"user {user_id!r} has been deactivated")
        rehash = self.hasher.check_needs_rehash(row.pin_hash)
        new_hash = self.hasher.hash(pin) if rehash else None

        def success(conn: Connection) -> None:
            values: dict[str, Any] = {"failed_attempts": 0, "locked_until": None}
            if new_hash is not None:
                values["pin_hash"] = new_hash
            conn.execute(update(U).where(U.c.user_id == user_id).values(**values))

        self.journal.append(table_id, "login", {"user_id": user_id, "role": row.role}, actor,
                            also=success)
        user = self.get(user_id)
        assert user is not None
        return user

    def _verify(self, pin_hash: str, pin: str) -> bool:
        try:
            return bool(self.hasher.verify(pin_hash, pin))
        except (VerificationError, InvalidHashError):
            return False

    def _failed(self, user_id: str, actor: str, table_id: str, now: datetime) -> User:
        # The failure and (when it is the last allowed one) the lockout are one transaction.
        # The count is read first and checked again inside the write: if a concurrent attempt
        # changed it meanwhile, the write is abandoned and redone with the new count.
        while True:
            with self.db.read() as conn:
                before = self._require(conn, user_id).failed_attempts
            failures = before + 1
            locks = failures >= self.max_failures
            until = iso_utc(now + self.lockout) if locks else None

            def count(conn: Connection, before: int = before, failures: int = failures,
                      until: str | None = until) -> None:
                if self._require(conn, user_id).failed_attempts != before:
                    raise _Retry
                values: dict[str, Any] = {"failed_attempts": failures}
                if until is not None:
                    values.update(failed_attempts=0, locked_until=until)
                conn.execute(update(U).where(U.c.user_id == user_id).values(**values))

            facts = [Fact("login.failed", {"user_id": user_id, "reason": "wrong PIN",
                                           "failures": failures}, actor)]
            if until is not None:
                facts.append(Fact("lockout", {"user_id": user_id, "failures": failures,
                                              "until": until}, actor))
            try:
                self.journal.append_many(table_id, facts, also=count)
            except _Retry:
                continue
            if until is not None:
                raise LockedOut(f"{user_id} is now locked out until {until} after {failures} "
                                f"wrong PINs; a supervisor or operator can unlock them")
            raise AuthError(f"unknown user {user_id!r} or wrong PIN")


class _Retry(Exception):
    """The failure count changed under us; abandon this write and try again."""


__all__ = [
    "MIN_PIN_LENGTH", "PRIVILEGED", "ROLES", "STATION_STREAM", "AuthError", "JournalError",
    "LockedOut", "PermissionDenied", "User", "UserError", "Users", "default_hasher",
    "require_role",
]
