"""The user model: the ``User`` type, roles and ``PRIVILEGED``, ``require_role``, the errors
sign-in and administration raise, and the checks on ids, names, roles, PINs and reasons."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from dealer_station.audit import schema
from dealer_station.errors import StationError

ROLES = schema.ROLES
STATION_STREAM = "station"
"""The chain for station-wide events that belong to no table (user administration)."""

PRIVILEGED = ("supervisor", "operator")
"""Roles that may void rounds, correct cards and change configuration."""

MIN_PIN_LENGTH = 4
MAX_PIN_LENGTH = 64
MAX_NAME_LENGTH = 200
MAX_REASON_LENGTH = 500
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


class UserError(StationError):
    """A user-administration request was refused."""


class AuthError(StationError):
    """Sign-in refused: unknown user, wrong PIN or inactive user."""


class WrongPin(AuthError):
    """Sign-in refused: a known user gave a wrong PIN; says how many attempts are left before
    the lockout (the policy's own numbers), so the person at the station is warned."""

    def __init__(self, user_id: str, attempts_left: int, lockout_minutes: int) -> None:
        self.user_id = user_id
        self.attempts_left = attempts_left
        self.lockout_minutes = lockout_minutes
        super().__init__(f"wrong PIN for {user_id}: {attempts_left_text(attempts_left)} "
                         f"before a {lockout_minutes}-minute lockout")


class LockedOut(AuthError):
    """Sign-in refused because the user is locked out after repeated failures. ``until`` is
    the lockout's end as journaled (UTC, ISO 8601); the message gives it in local time."""

    def __init__(self, message: str, *, user_id: str = "", until: str | None = None) -> None:
        super().__init__(message)
        self.user_id = user_id
        self.until = until


class PinResetRequired(AuthError):
    """Sign-in refused: the user's PIN was set before PINs were bound to the journal key."""


class UserMismatch(AuthError):
    """The users table (or a user's record) disagrees with the chain: nothing is acted on."""


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


def attempts_left_text(left: int) -> str:
    """``2`` -> "2 attempts left"; ``1`` -> "1 attempt left"."""
    return f"{left} attempt{'' if left == 1 else 's'} left"


def require_role(user: User, *roles: str, action: str = "do this") -> User:
    """Refuse unless ``user`` holds one of ``roles`` (default: supervisor or operator)."""
    allowed = roles or PRIVILEGED
    if user.role not in allowed:
        article = "an" if allowed[0][:1] in ("a", "e", "i", "o", "u") else "a"
        raise PermissionDenied(f"{user.user_id} is a {user.role}; only {article} "
                               f"{' or '.join(allowed)} may {action}")
    return user


# --- validation (before the database sees anything) ----------------------------------------

def _one_line(value: str) -> bool:
    """No control, format or line/paragraph separator characters (so: one line, no NUL)."""
    return not any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in value)


def _check_pin(pin: str) -> None:
    if (not isinstance(pin, str) or not MIN_PIN_LENGTH <= len(pin) <= MAX_PIN_LENGTH
            or pin.strip() != pin or not _one_line(pin)):
        raise UserError(f"a PIN needs {MIN_PIN_LENGTH} to {MAX_PIN_LENGTH} characters, on one "
                        f"line, and no leading or trailing spaces")


def _valid_user_id(user_id: object) -> bool:
    return (isinstance(user_id, str) and 1 <= len(user_id) <= 64 and set(user_id) <= _ID_CHARS
            and user_id[0].isalnum())


def _check_user_id(user_id: str) -> None:
    if not _valid_user_id(user_id):
        raise UserError(f"bad user id {str(user_id)[:80]!r}: 1-64 letters, digits, '.', '_' "
                        f"or '-', starting with a letter or digit")


def _check_name(name: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise UserError("a user needs a name")
    name = name.strip()
    if len(name) > MAX_NAME_LENGTH or not _one_line(name):
        raise UserError(f"bad name {name[:40]!r}{'...' if len(name) > 40 else ''}: at most "
                        f"{MAX_NAME_LENGTH} characters ({len(name)} given), on one line")
    return name


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise UserError(f"bad role {str(role)[:40]!r}: one of {', '.join(ROLES)}")


def _check_reason(reason: str, what: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise UserError(f"{what} needs a reason")
    reason = reason.strip()
    if len(reason) > MAX_REASON_LENGTH or not _one_line(reason):
        raise UserError(f"the reason must be at most {MAX_REASON_LENGTH} characters, on one "
                        f"line")
    return reason
