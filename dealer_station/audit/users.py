"""Users, roles and PIN sign-in, established by the journal's chain.

Who a user is, their role, whether they are active, which PIN is theirs and whether they are
locked out is what the chained records say (``user.add``, ``user.pin``, ``user.role``,
``user.deactivate``, ``user.unlock``, ``login``, ``login.failed``, ``lockout``), each checked
against its keyed hash as it is read. The ``users`` table is a projection: it is written in the
same transaction as the records, and a row that disagrees with them is refused (and journaled as
``user.mismatch``) before anything is acted on.

PINs are stored as argon2id hashes of HMAC-SHA-256(pepper, PIN), the pepper being a secret
derived from the journal key, so the stored hashes cannot be searched offline without the key.
The records carry ``pin_mac``, a MAC under the journal key of (user id, PIN hash), never the
hash itself: a hash copied onto another user, or written by someone without the key, is refused.

After ``max_failures`` wrong PINs in a row a user is locked out for ``lockout_minutes``; the
failures count from the last successful sign-in or unlock (a lockout does not reset it). The
decision is taken inside the write transaction, after the slow PIN check, against the chain as
it stands then, so parallel attempts cannot get past the limit.

This module is the public face: ``User``, the roles and errors are in ``user_model``, PIN
hashing in ``pins``, the chain's records and state in ``user_records``, sign-in and lockout in
``sign_in`` and administration in ``user_admin``; ``Users`` combines them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from argon2 import PasswordHasher

from dealer_station.audit.journal import Journal, JournalError
from dealer_station.audit.pins import PEPPER_PURPOSE, PIN_MAC_DOMAIN, default_hasher
from dealer_station.audit.sign_in import SignIn
from dealer_station.audit.user_admin import ADOPT_ACTOR, UserAdmin
from dealer_station.audit.user_model import (
    MAX_NAME_LENGTH,
    MAX_PIN_LENGTH,
    MAX_REASON_LENGTH,
    MIN_PIN_LENGTH,
    PRIVILEGED,
    ROLES,
    STATION_STREAM,
    AuthError,
    LockedOut,
    PermissionDenied,
    PinResetRequired,
    User,
    UserError,
    UserMismatch,
    WrongPin,
    attempts_left_text,
    require_role,
)
from dealer_station.audit.user_records import USER_KINDS, Problem
from dealer_station.gaming_day import local_time

# --- Users ----------------------------------------------------------------------------------

class Users(UserAdmin, SignIn):
    """The station's users, as the journal's chain establishes them."""

    def __init__(self, journal: Journal, *, max_failures: int = 5, lockout_minutes: int = 15,
                 hasher: PasswordHasher | None = None,
                 clock: Callable[[], datetime] | None = None) -> None:
        if max_failures < 1 or lockout_minutes < 1:
            raise UserError("max_failures and lockout_minutes must be at least 1")
        self.journal = journal
        self.db = journal.db
        self.max_failures = max_failures
        self.lockout = timedelta(minutes=lockout_minutes)
        self.lockout_minutes = lockout_minutes
        self.hasher = hasher or default_hasher()
        self.clock = clock or journal.clock
        self._pepper = journal.derived_secret(PEPPER_PURPOSE)
        self._dummy: str | None = None


__all__ = [
    "ADOPT_ACTOR", "MAX_NAME_LENGTH", "MAX_PIN_LENGTH", "MAX_REASON_LENGTH", "MIN_PIN_LENGTH",
    "PEPPER_PURPOSE", "PIN_MAC_DOMAIN", "PRIVILEGED", "ROLES", "STATION_STREAM", "USER_KINDS",
    "AuthError", "JournalError", "LockedOut", "PermissionDenied", "PinResetRequired", "Problem",
    "User", "UserError", "UserMismatch", "Users", "WrongPin", "attempts_left_text",
    "default_hasher", "local_time", "require_role",
]
