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
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Connection, and_, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from dealer_station.audit import schema
from dealer_station.audit.journal import Fact, Journal, JournalError, Record, iso_utc, table_ids
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
PIN_MAC_DOMAIN = "pin/v1"
PEPPER_PURPOSE = "pin-pepper/v1"

U = schema.users
J = schema.journal

USER_KINDS = ("user.add", "user.pin", "user.role", "user.deactivate", "user.unlock", "login",
              "login.failed", "lockout")
"""The record kinds that establish a user's state (their payload names the ``user_id``)."""

_COLUMNS = (J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
            J.c.prev_hash, J.c.hash)
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
_LOCK_PREFIX = "dealer-station/user/"
ADOPT_ACTOR = "station/floor"
"""Who journals a user's facts copied from the floor's users at a table."""
_BOOTSTRAP_LOCK = "dealer-station/users"


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


def local_time(iso: str, now: datetime | None = None) -> str:
    """A journaled moment (UTC, ISO 8601) as the station's clock on the wall shows it:
    ``14:05``, with the day when it is not today (``Sun 1 Mar 14:05``)."""
    moment = datetime.fromisoformat(iso).astimezone()
    today = (now or datetime.now(moment.tzinfo)).astimezone().date()
    if moment.date() == today:
        return moment.strftime("%H:%M")
    return f"{moment:%a} {moment.day} {moment:%b %H:%M}"


def require_role(user: User, *roles: str, action: str = "do this") -> User:
    """Refuse unless ``user`` holds one of ``roles`` (default: supervisor or operator)."""
    allowed = roles or PRIVILEGED
    if user.role not in allowed:
        article = "an" if allowed[0][:1] in ("a", "e", "i", "o", "u") else "a"
        raise PermissionDenied(f"{user.user_id} is a {user.role}; only {article} "
                               f"{' or '.join(allowed)} may {action}")
    return user


def default_hasher() -> PasswordHasher:
    """argon2id with the library's defaults (RFC 9106 low-memory profile: 64 MiB, t=3)."""
    return PasswordHasher()


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


# --- the state the chain establishes --------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Source:
    table_id: str
    seq: int
    kind: str

    def __str__(self) -> str:
        return f"{self.table_id} record {self.seq}, {self.kind}"


@dataclass(frozen=True, slots=True)
class Problem:
    """A users row (or a user's record) that the chain does not establish."""

    user_id: str
    field: str
    row: str
    chain: str
    source: _Source | None = None

    def __str__(self) -> str:
        where = f" ({self.source})" if self.source is not None else ""
        return (f"user {self.user_id}: {self.field} is {self.row} in the users table but the "
                f"journal says {self.chain}{where}")

    def payload(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "field": self.field, "row": self.row[:200],
                "chain": self.chain[:200],
                "source": "" if self.source is None else str(self.source)}


@dataclass(frozen=True, slots=True)
class _Forged:
    user_id: str
    record: _Source

    def __str__(self) -> str:
        return (f"user {self.user_id}: {self.record} does not match its keyed hash (changed "
                f"without the journal key)")

    def payload(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "field": "record", "row": "",
                "chain": "does not match its keyed hash", "source": str(self.record)}


@dataclass
class _State:
    user_id: str
    name: str
    role: str
    active: bool
    created_at: str
    pin_mac: str | None
    failures: int = 0
    locked_until: str | None = None
    sources: dict[str, _Source] = field(default_factory=dict)

    def user(self) -> User:
        return User(self.user_id, self.name, self.role, self.active, self.failures,
                    self.locked_until, self.created_at)

    def locked(self, now: datetime) -> bool:
        return self.locked_until is not None and datetime.fromisoformat(self.locked_until) > now


def _derive(user_id: str, records: Iterable[Record]) -> _State | None:
    """Fold a user's authentic records (in order) into the state they establish."""
    state: _State | None = None
    for rec in records:
        p = rec.payload
        src = _Source(rec.table_id, rec.seq, rec.kind)
        if rec.kind == "user.add":
            if state is None:
                state = _State(user_id, str(p.get("name", "")), str(p.get("role", "")), True,
                               rec.ts, _opt_str(p.get("pin_mac")))
                state.sources = dict.fromkeys(
                    ("row", "name", "role", "active", "created_at", "pin_hash",
                     "failed_attempts", "locked_until"), src)
            continue
        if state is None:
            continue  # e.g. a failed sign-in under this id before the user was added
        if rec.kind == "user.pin":
            state.pin_mac = _opt_str(p.get("pin_mac"))
            state.sources["pin_hash"] = src
        elif rec.kind == "user.role":
            state.role = str(p.get("role", ""))
            state.sources["role"] = src
        elif rec.kind == "user.deactivate":
            state.active = False
            state.sources["active"] = src
        elif rec.kind in ("user.unlock", "login"):
            state.failures = 0
            state.locked_until = None
            state.sources["failed_attempts"] = state.sources["locked_until"] = src
            if rec.kind == "login" and "pin_mac" in p:
                state.pin_mac = _opt_str(p.get("pin_mac"))
                state.sources["pin_hash"] = src
        elif rec.kind == "login.failed":
            if p.get("reason") == "wrong PIN":
                state.failures += 1
                state.sources["failed_attempts"] = src
        elif rec.kind == "lockout":
            state.locked_until = _opt_str(p.get("until"))
            state.sources["locked_until"] = src
    return state


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _short(value: str | None, limit: int = 24) -> str:
    if value is None:
        return "empty"
    return repr(value if len(value) <= limit else value[:limit] + "...")


@dataclass
class _Snapshot:
    """A user's records (checked), forged records, derived state and row, read together."""

    user_id: str
    records: list[Record]
    forged: list[_Forged]
    state: _State | None
    row: Any | None

    def key(self) -> tuple[Any, ...]:
        row = None if self.row is None else tuple(self.row)
        return (tuple((r.table_id, r.seq) for r in self.records),
                tuple((f.record.table_id, f.record.seq) for f in self.forged), row)


Facts = list[Fact]
Users_ = list[User]
StateList = list[_State | None]
Strings = list[str]
GroupedRecords = tuple[dict[str, list[Record]], list[_Forged]]


# --- Users ----------------------------------------------------------------------------------

class Users:
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

    # -- PIN hashing --

    def _peppered(self, pin: str) -> bytes:
        return hmac.new(self._pepper, pin.encode("utf-8", "surrogatepass"),
                        hashlib.sha256).digest()

    def hash_pin(self, pin: str) -> str:
        """argon2id over HMAC-SHA-256(pepper, PIN): useless without the journal key."""
        return self.hasher.hash(self._peppered(pin))

    @property
    def _dummy_hash(self) -> str:
        """Checked against when the user id is unknown, so both paths cost the same time."""
        if self._dummy is None:
            self._dummy = self.hasher.hash(self._peppered("not-a-pin"))
        return self._dummy

    def pin_mac(self, user_id: str, pin_hash: str) -> str:
        """Binds a PIN hash to one user under the journal key (what the records carry)."""
        return self.journal.mac(PIN_MAC_DOMAIN, user_id, pin_hash)

    def _verify(self, pin_hash: str, pin: str) -> bool:
        try:
            return bool(self.hasher.verify(pin_hash, self._peppered(pin)))
        except (VerificationError, InvalidHashError):
            return False

    # -- reading the chain --

    def _to_record(self, row: Sequence[Any]) -> Record | None:
        t, seq, ts, actor, kind, round_no, payload, prev_hash, h = row
        try:
            decoded = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(decoded, dict):
            return None
        rec = Record(t, seq, ts, actor, kind, round_no, decoded, prev_hash, h)
        return rec if self.journal.is_authentic(rec) else None

    def _read(self, conn: Connection, user_id: str | None
              ) -> GroupedRecords:
        """Records establishing users (one user's, or everyone's), grouped by user id."""
        # Naming every table lets the database use its (table_id, kind, ts) index instead of
        # reading the whole journal at each sign-in.
        tables = table_ids(conn)
        stmt = select(*_COLUMNS).where(J.c.table_id.in_(tables), J.c.kind.in_(USER_KINDS))
        if user_id is not None:
            # A pre-filter on the stored (canonical JSON) text; the decoded payload decides.
            stmt = stmt.where(J.c.payload.contains(f'"user_id":{json.dumps(user_id)}',
                                                   autoescape=True))
        stmt = stmt.order_by(J.c.ts, J.c.id)
        out: dict[str, list[Record]] = {}
        forged: list[_Forged] = []
        for row in conn.execute(stmt):
            rec = self._to_record(row)
            if rec is None:
                src = _Source(row[0], row[1], row[4])
                forged.append(_Forged(user_id or "?", src))
                continue
            uid = rec.payload.get("user_id")
            if not isinstance(uid, str) or (user_id is not None and uid != user_id):
                continue
            out.setdefault(uid, []).append(rec)
        return out, forged

    def _snapshot(self, conn: Connection, user_id: str) -> _Snapshot:
        grouped, forged = self._read(conn, user_id)
        records = grouped.get(user_id, [])
        row = conn.execute(select(U).where(U.c.user_id == user_id)).first()
        return _Snapshot(user_id, records, forged, _derive(user_id, records), row)

    def _problem(self, snap: _Snapshot, fields: Sequence[str] = (
            "role", "active", "name", "pin_hash", "created_at", "failed_attempts",
            "locked_until")) -> Problem | _Forged | None:
        """The first way the row disagrees with the chain (or a forged record), if any."""
        if snap.forged:
            return snap.forged[0]
        return self._row_problem(snap.user_id, snap.state, snap.row, fields)

    def _row_problem(self, user_id: str, state: _State | None, row: Any | None,
                     fields: Sequence[str]) -> Problem | None:
        if state is None:
            if row is None:
                return None
            return Problem(user_id, "row", "present", "nothing: no user.add record "
                                                      "establishes this user")
        if row is None:
            return Problem(user_id, "row", "missing", f"the user exists (a {state.role})",
                           state.sources["row"])
        chain: dict[str, Any] = {"role": state.role, "active": state.active,
                                 "name": state.name, "created_at": state.created_at,
                                 "failed_attempts": state.failures,
                                 "locked_until": state.locked_until}
        for name in fields:
            src = state.sources.get(name)
            if name == "pin_hash":
                if state.pin_mac is None:
                    return Problem(user_id, "pin_hash", _short(row.pin_hash),
                                   "no PIN bound to the journal key (it was set before PINs "
                                   "were bound: set it again with `dealer-station users "
                                   "passwd`)", src)
                if not hmac.compare_digest(self.pin_mac(user_id, str(row.pin_hash)),
                                           state.pin_mac):
                    return Problem(user_id, "pin_hash", _short(row.pin_hash),
                                   "another PIN hash (its MAC under the journal key differs)",
                                   src)
                continue
            have = bool(row.active) if name == "active" else getattr(row, name)
            if have != chain[name]:
                return Problem(user_id, name, repr(have), repr(chain[name]), src)
        return None

    # -- transactions: decided on a snapshot, confirmed under the user's lock --

    def _lock(self, conn: Connection, *names: str) -> None:
        if conn.dialect.name == "postgresql":
            for name in names:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"),
                             {"k": name})
        # SQLite: every writing transaction is BEGIN IMMEDIATE, so writers are serialized.

    def _commit(self, table_id: str, before: _Snapshot, facts: Facts, *,
                write_row: bool, pin_hash: str | None = None,
                check: Callable[[Connection, int], None] | None = None) -> _State | None:
        """Append ``facts`` and rewrite the user's row from the chain, in one transaction.

        Inside it (after taking the user's lock) the user's records other than these and the
        row are read again; if they differ from ``before`` (a concurrent change), raises
        :class:`_Retry` and nothing is written. Returns the state the chain then establishes.
        """
        user_id = before.user_id
        result: StateList = []

        def also(conn: Connection) -> None:
            self._lock(conn, _LOCK_PREFIX + user_id)
            top = conn.execute(select(J.c.seq).where(J.c.table_id == table_id)
                               .order_by(J.c.seq.desc()).limit(1)).scalar_one()
            floor = top - len(facts) + 1  # this table's writers queue: the top ones are ours
            now = self._snapshot(conn, user_id)
            others = _Snapshot(user_id, [r for r in now.records
                                         if not (r.table_id == table_id and r.seq >= floor)],
                               now.forged, None, now.row)
            if others.key() != before.key():
                raise _Retry
            if check is not None:
                check(conn, floor)
            if write_row and now.state is not None:
                self._write_row(conn, now.state, now.row, pin_hash)
            result.append(now.state)

        self.journal.append_many(table_id, facts, also=also)
        return result[0]

    def _write_row(self, conn: Connection, state: _State, row: Any | None,
                   pin_hash: str | None) -> None:
        values: dict[str, Any] = {"name": state.name, "role": state.role,
                                  "active": state.active, "failed_attempts": state.failures,
                                  "locked_until": state.locked_until,
                                  "created_at": state.created_at}
        if pin_hash is not None:
            values["pin_hash"] = pin_hash
        if row is None:
            if pin_hash is None:
                raise UserMismatch(f"user {state.user_id}: the users table has no row for "
                                   f"this user; set their PIN again (`dealer-station users "
                                   f"passwd`) to restore it")
            conn.execute(U.insert().values(user_id=state.user_id, **values))
        else:
            conn.execute(update(U).where(U.c.user_id == state.user_id).values(**values))

    def _report(self, problem: Problem | _Forged, actor: str, table_id: str) -> None:
        """Journal a ``user.mismatch`` (best effort: a read-only store cannot record it)."""
        with contextlib.suppress(JournalError, SQLAlchemyError):
            self.journal.append(table_id, "user.mismatch", problem.payload(), actor)

    # -- reading --

    def get(self, user_id: str) -> User | None:
        """The user as the chain establishes them (None: no such user).

        Raises :class:`UserMismatch` (and journals ``user.mismatch``) when the users table
        disagrees with the chain on who this is, their role or whether they are active, or a
        record of theirs does not match its keyed hash.
        """
        if not _valid_user_id(user_id):
            return None
        with self.db.read() as conn:
            snap = self._snapshot(conn, user_id)
        problem = self._problem(snap, ("role", "active", "name"))
        if problem is not None:
            self._report(problem, f"{user_id}/unknown", STATION_STREAM)
            raise UserMismatch(_refusal(problem))
        return None if snap.state is None else snap.state.user()

    def list(self) -> Users_:
        """Every user the chain establishes (never the users table's word), by user id."""
        with self.db.read() as conn:
            grouped, forged = self._read(conn, None)
        if forged:
            f = forged[0]
            raise UserMismatch(f"{f.record} does not match its keyed hash (changed without the "
                               f"journal key); run `dealer-station audit verify`")
        states = [_derive(uid, recs) for uid, recs in sorted(grouped.items())]
        return [s.user() for s in states if s is not None]

    def check_projection(self) -> Strings:
        """Each users row that disagrees with the chain (empty: they agree), one line each,
        naming the user, the first disagreeing field, the row's value, what the journal says
        and the record that establishes it. Records are checked against their keyed hash."""
        with self.db.read() as conn:
            grouped, forged = self._read(conn, None)
            rows = {r.user_id: r for r in conn.execute(select(U))}
        out = [f"{f.record} does not match its keyed hash (changed without the journal key)"
               for f in forged]
        states = {uid: _derive(uid, recs) for uid, recs in grouped.items()}
        for uid in sorted(set(rows) | {u for u, s in states.items() if s is not None}):
            problem = self._row_problem(uid, states.get(uid), rows.get(uid), (
                "role", "active", "name", "pin_hash", "created_at", "failed_attempts",
                "locked_until"))
            if problem is not None:
                out.append(str(problem))
        return out

    def _chain_has(self, conn: Connection, kinds: Sequence[str], *, pin_bound: bool = False,
                   excluding: tuple[str, int] | None = None) -> bool:
        """Whether any record of ``kinds`` (carrying a ``pin_mac``) is stored. Its hash is
        not checked: these questions open the first-user exceptions, and a record changed
        without the key must close them, not open them again."""
        stmt = select(J.c.table_id, J.c.seq).where(J.c.kind.in_(kinds))
        if pin_bound:
            stmt = stmt.where(J.c.payload.contains('"pin_mac":', autoescape=True))
        if excluding is None:
            return conn.execute(stmt.limit(1)).first() is not None
        for table_id, seq in conn.execute(stmt):
            if not (table_id == excluding[0] and seq >= excluding[1]):
                return True
        return False

    # -- who may administer --

    def _signed_in(self, actor: User) -> User:
        """The acting user as the chain establishes them now (active, current role)."""
        current = self.get(actor.user_id)
        if current is None:
            raise PermissionDenied(f"{actor.user_id} is not a user of this journal")
        if not current.active:
            raise PermissionDenied(f"{actor.user_id} has been deactivated")
        if current.locked_until is not None and \
                datetime.fromisoformat(current.locked_until) > self.clock():
            raise PermissionDenied(f"{actor.user_id} is locked out until "
                                   f"{current.locked_until}")
        return current

    @staticmethod
    def _need_sign_in(action: str) -> PermissionDenied:
        return PermissionDenied(f"to {action} an operator must sign in first (--as USER); "
                                f"only the first user of a new journal, an operator, is added "
                                f"without one")

    def _administer(self, user_id: str, table_id: str,
                    plan: Callable[[_Snapshot], Facts], *, actor_name: str,
                    pin_hash: str | None = None,
                    check: Callable[[Connection, int], None] | None = None) -> _State:
        """Run an administrative change: ``plan`` decides the records from a snapshot (and
        refuses by raising); a row that disagreed with the chain is rewritten and journaled."""
        # Who may act is read from the chains: first make sure none was cut back past what
        # the anchor file and the checkpoints name (deleting the station chain's user records
        # must not make an old journal look like one with no users yet).
        self.journal.check_heads()
        while True:
            with self.db.read() as conn:
                before = self._snapshot(conn, user_id)
            if before.forged:
                raise UserMismatch(_refusal(before.forged[0]))
            facts = plan(before)
            problem = self._row_problem(user_id, before.state, before.row, (
                "role", "active", "name", "created_at", "failed_attempts", "locked_until")
                + (() if pin_hash is not None else ("pin_hash",)))
            if problem is not None:
                if problem.field == "row" and problem.row == "missing" and pin_hash is None:
                    raise UserMismatch(f"{problem}; set their PIN again (`dealer-station "
                                       f"users passwd`) to restore the row")
                action = ("row rewritten from the journal" if problem.field != "pin_hash" else
                          "row rewritten from the journal; its PIN hash is still refused "
                          "until the PIN is set again")
                facts.append(Fact("user.mismatch", {**problem.payload(), "action": action},
                                  actor_name))
            try:
                state = self._commit(table_id, before, facts, write_row=True,
                                     pin_hash=pin_hash, check=check)
            except _Retry:
                continue
            assert state is not None
            return state

    # -- administration (journaled on the station chain unless a table is given) --

    def add(self, user_id: str, name: str, role: str, pin: str, *, actor: User | str,
            table_id: str = STATION_STREAM) -> User:
        """Add a user. ``actor``: a signed-in operator; a plain string (the console, a set-up
        script) only for the first user of a journal with no users, who must be an operator."""
        _check_user_id(user_id)
        name = _check_name(name)
        _check_role(role)
        _check_pin(pin)
        bootstrap = not isinstance(actor, User)
        if bootstrap:
            actor_name = str(actor)
            if self._any_user():
                raise self._need_sign_in("add users")
            self._require_new_journal()
            if role != "operator":
                raise PermissionDenied(f"the first user of a journal must be an operator (not "
                                       f"a {role}): they sign in and add the others")
        else:
            assert isinstance(actor, User)
            admin = require_role(self._signed_in(actor), "operator", action="add users")
            actor_name = admin.actor
        pin_hash = self.hash_pin(pin)

        def plan(before: _Snapshot) -> Facts:
            if before.state is not None:
                raise UserError(f"user id {user_id!r} is taken (user ids are unique)")
            return [Fact("user.add", {"user_id": user_id, "name": name, "role": role,
                                      "pin_mac": self.pin_mac(user_id, pin_hash)},
                         actor_name)]

        def first_only(conn: Connection, floor: int) -> None:
            self._lock(conn, _BOOTSTRAP_LOCK)
            if self._chain_has(conn, ("user.add",), excluding=(table_id, floor)):
                raise _Retry  # another first user won the race; the plan now refuses
            if conn.execute(select(J.c.seq).where(~and_(J.c.table_id == table_id,
                                                        J.c.seq >= floor)).limit(1)).first():
                raise _Retry  # something else was written first: the journal is not new

        if bootstrap:
            def plan_first(before: _Snapshot) -> Facts:
                if self._any_user():
                    raise self._need_sign_in("add users")
                self._require_new_journal()
                return plan(before)
            state = self._administer(user_id, table_id, plan_first, actor_name=actor_name,
                                     pin_hash=pin_hash, check=first_only)
        else:
            state = self._administer(user_id, table_id, plan, actor_name=actor_name,
                                     pin_hash=pin_hash)
        return state.user()

    # -- facts copied from another journal under the same key (the floor's central users) --

    def adopt(self, user_id: str, facts: Sequence[Fact], *, source: dict[str, Any],
              pin_hash: str | None = None, actor: str = ADOPT_ACTOR,
              table_id: str = STATION_STREAM) -> User | None:
        """Journal a user's facts copied from another journal under this journal's key (the
        floor's users, see floor/follower.py), each as the same kind and payload, then an
        ``user.adopted`` record naming ``source`` (where they came from), and rewrite the user's
        row from the chain, in one transaction.

        ``pin_hash`` is the source's current PIN hash for the user: it is taken only if the
        last ``pin_mac`` among ``facts`` binds it to this user under this journal's key (so a
        source under another key, or a hash not the user's, is refused). A ``user.add`` for a
        user this journal already has becomes a ``user.pin`` (and a ``user.role`` if the role
        differs). Returns the user as the chain then establishes them."""
        _check_user_id(user_id)
        kinds = ("user.add", "user.pin", "user.role", "user.deactivate", "user.unlock",
                 "lockout")
        copied: Facts = []
        mac: str | None = None
        for f in facts:
            if f.kind not in kinds or f.payload.get("user_id") != user_id:
                raise UserError(f"{f.kind} for {f.payload.get('user_id')!r} cannot be "
                                f"adopted as {user_id}'s")
            if "pin_mac" in f.payload:
                mac = _opt_str(f.payload["pin_mac"])
            copied.append(Fact(f.kind, dict(f.payload), actor))
        if mac is not None and (pin_hash is None or not hmac.compare_digest(
                self.pin_mac(user_id, pin_hash), mac)):
            raise UserMismatch(f"user {user_id}: the PIN hash offered is not the one the "
                               f"copied records bind under this journal's key (another key, "
                               f"or the PIN changed since)")
        if mac is None:
            pin_hash = None
        # Who may act is read from the chains: first make sure none was cut back past what
        # the anchor file and the checkpoints name (deleting the station chain's user records
        # must not make an old journal look like one with no users yet).
        self.journal.check_heads()
        while True:
            with self.db.read() as conn:
                before = self._snapshot(conn, user_id)
            if before.forged:
                raise UserMismatch(_refusal(before.forged[0]))
            plan: Facts = []
            role = before.state.role if before.state is not None else None
            for f in copied:
                if f.kind == "user.add" and role is not None:
                    plan.append(Fact("user.pin", {"user_id": user_id,
                                                  "pin_mac": f.payload.get("pin_mac")}, actor))
                    if f.payload.get("role") != role:
                        plan.append(Fact("user.role", {
                            "user_id": user_id, "role": f.payload.get("role"), "was": role,
                            "reason": "the floor's users"}, actor))
                else:
                    plan.append(f)
                if f.kind in ("user.add", "user.role"):
                    role = str(f.payload.get("role"))
            if role is None:
                raise UserError(f"no user {user_id!r} to adopt facts for")
            plan.append(Fact("user.adopted", {"user_id": user_id, **source}, actor))
            try:
                state = self._commit(table_id, before, plan, write_row=True,
                                     pin_hash=pin_hash)
            except _Retry:
                continue
            return None if state is None else state.user()

    def seed(self, specs: Sequence[tuple[str, str, str, str]], *, actor: str,
             table_id: str = STATION_STREAM) -> Users_:
        """The users of a new journal in one go (set-up scripts, samples, tests): the first
        operator among ``specs`` (user id, name, role, PIN) is added without a sign-in and
        attributed to ``actor``, signs in, and adds the others. Refused on a journal that
        already has users."""
        first = next((s for s in specs if s[2] == "operator"), None)
        if first is None:
            raise UserError("the first user of a journal must be an operator: none given")
        added = [self.add(*first, actor=actor, table_id=table_id)]
        operator = self.authenticate(first[0], first[3], table_id=table_id)
        added += [self.add(*s, actor=operator, table_id=table_id) for s in specs
                  if s[0] != first[0]]
        return added

    def _any_user(self) -> bool:
        return self.has_users()

    def _require_new_journal(self) -> None:
        """The first operator is added without a sign-in only on a new journal: no record,
        no checkpoint and no anchor of its own. A journal with any of these had its users
        from its start; finding none now means their records were removed."""
        if self.journal.is_new():
            return
        self.journal.check_heads()  # names what was cut, when the anchors show it
        raise PermissionDenied(
            f"the journal at {self.journal.location} is not new (it has records, checkpoints "
            f"or anchors) but no users: only a new journal's first operator is added without a "
            f"sign-in. If its users' records were removed, run `dealer-station audit verify`; "
            f"a station's first operator is added before its first start")

    def has_users(self) -> bool:
        """Whether the chain establishes any user (if not, the first may be added without a
        sign-in, and must be an operator)."""
        with self.db.read() as conn:
            return self._chain_has(conn, ("user.add",))

    def pins_bound(self) -> bool:
        """Whether any user's PIN is bound to the journal key (if not, the journal predates
        the binding and one operator's PIN may be set without a sign-in)."""
        with self.db.read() as conn:
            return self._chain_has(conn, ("user.add", "user.pin", "login"), pin_bound=True)

    def change_pin(self, user_id: str, new_pin: str, *, actor: User | str,
                   table_id: str = STATION_STREAM, current_pin: str | None = None) -> None:
        """Set a user's PIN. An operator may set anyone's; a user may change their own by
        giving the current one (``current_pin``). Without a sign-in (a plain string actor)
        only on a journal where no user's PIN is bound to the key yet (one made before
        PINs were), and only an operator's: that operator then sets the others."""
        _check_user_id(user_id)
        _check_pin(new_pin)
        upgrade = not isinstance(actor, User)
        if upgrade:
            actor_name = str(actor)
            if self.pins_bound():
                raise self._need_sign_in("set a PIN")
        else:
            assert isinstance(actor, User)
            admin = self._signed_in(actor)
            actor_name = admin.actor
            if admin.user_id == user_id:
                if current_pin is None:
                    raise PermissionDenied(f"{user_id}: to change your own PIN give the "
                                           f"current one")
                # Checked like a sign-in: journaled, counted towards a lockout.
                try:
                    self.authenticate(user_id, current_pin, table_id=table_id)
                except LockedOut:
                    raise
                except AuthError as e:
                    raise PermissionDenied(f"{user_id}: to change your own PIN give the "
                                           f"current one ({e})") from None
            else:
                require_role(admin, "operator", action="set another user's PIN")
        pin_hash = self.hash_pin(new_pin)

        def plan(before: _Snapshot) -> Facts:
            if before.state is None:
                raise UserError(f"no user {user_id!r}")
            if upgrade and before.state.role != "operator":
                raise PermissionDenied(
                    f"{user_id} is a {before.state.role}: on a journal whose PINs were set "
                    f"before they were bound to the key, an operator's PIN is set first "
                    f"(without sign-in), and that operator then sets the others")
            return [Fact("user.pin", {"user_id": user_id,
                                      "pin_mac": self.pin_mac(user_id, pin_hash)}, actor_name)]

        def still_unbound(conn: Connection, floor: int) -> None:
            self._lock(conn, _BOOTSTRAP_LOCK)
            if self._chain_has(conn, ("user.add", "user.pin", "login"), pin_bound=True,
                               excluding=(table_id, floor)):
                raise PermissionDenied(self._need_sign_in("set a PIN").args[0])

        self._administer(user_id, table_id, plan, actor_name=actor_name, pin_hash=pin_hash,
                         check=still_unbound if upgrade else None)

    def _require_admin(self, actor: User | str, action: str) -> User:
        if not isinstance(actor, User):
            raise self._need_sign_in(action)
        return self._signed_in(actor)

    def set_role(self, user_id: str, role: str, *, actor: User | str, reason: str,
                 table_id: str = STATION_STREAM) -> User:
        """Change a user's role (``user.role``); an operator's, never their own."""
        _check_user_id(user_id)
        _check_role(role)
        reason = _check_reason(reason, "changing a role")
        admin = require_role(self._require_admin(actor, "change a role"), "operator",
                             action="change roles")
        if admin.user_id == user_id:
            raise PermissionDenied(f"{user_id}: another operator must change your role")

        def plan(before: _Snapshot) -> Facts:
            if before.state is None:
                raise UserError(f"no user {user_id!r}")
            if before.state.role == role:
                raise UserError(f"{user_id} is already a {role}")
            return [Fact("user.role", {"user_id": user_id, "role": role,
                                       "was": before.state.role, "reason": reason},
                         admin.actor)]

        return self._administer(user_id, table_id, plan, actor_name=admin.actor).user()

    def deactivate(self, user_id: str, *, actor: User | str, reason: str,
                   table_id: str = STATION_STREAM) -> None:
        """Stop a user signing in (an operator's; never their own account)."""
        _check_user_id(user_id)
        reason = _check_reason(reason, "deactivating a user")
        admin = require_role(self._require_admin(actor, "deactivate a user"), "operator",
                             action="deactivate users")
        if admin.user_id == user_id:
            raise PermissionDenied(f"{user_id}: another operator must deactivate you")

        def plan(before: _Snapshot) -> Facts:
            if before.state is None:
                raise UserError(f"no user {user_id!r}")
            if not before.state.active:
                raise UserError(f"{user_id} is already deactivated")
            return [Fact("user.deactivate", {"user_id": user_id, "reason": reason},
                         admin.actor)]

        self._administer(user_id, table_id, plan, actor_name=admin.actor)

    def unlock(self, user_id: str, *, actor: User | str, table_id: str = STATION_STREAM,
               reason: str | None = None) -> User:
        """Clear a lockout and the failure count: an operator (anyone), a supervisor
        (dealers only). ``reason`` (the station's screen requires one) is journaled with who
        unlocked whom. Returns the user as unlocked."""
        _check_user_id(user_id)
        if reason is not None:
            reason = _check_reason(reason, "unlocking a user")
        admin = require_role(self._require_admin(actor, "unlock a user"), *PRIVILEGED,
                             action="unlock users")
        if admin.user_id == user_id:
            # Unreachable while locked out (a locked-out admin is refused above); an admin who
            # is not locked out has nothing to unlock.
            raise PermissionDenied(f"{user_id}: another supervisor or operator must unlock you")

        def plan(before: _Snapshot) -> Facts:
            if before.state is None:
                raise UserError(f"no user {user_id!r}")
            if admin.role == "supervisor" and before.state.role != "dealer":
                role = before.state.role
                article = "an" if role[:1] in ("a", "e", "i", "o", "u") else "a"
                raise PermissionDenied(f"{admin.user_id} is a supervisor: only an operator "
                                       f"may unlock {article} {role}")
            payload: dict[str, Any] = {"user_id": user_id}
            if reason is not None:
                payload["reason"] = reason
            return [Fact("user.unlock", payload, admin.actor)]

        return self._administer(user_id, table_id, plan, actor_name=admin.actor).user()

    def locked_out(self) -> Users_:
        """The users locked out now (by the chain), soonest released first."""
        now = self.clock()
        out = [u for u in self.list() if u.active and u.locked_until is not None
               and datetime.fromisoformat(u.locked_until) > now]
        return sorted(out, key=lambda u: (u.locked_until or "", u.user_id))

    # -- sign-in --

    def sign_out(self, user: User, why: str, *, table_id: str = STATION_STREAM) -> Record:
        """A person signed out (or was signed out when idle): journaled, like the sign-in
        it ends, on the chain the sign-in went to. Returns the record."""
        return self.journal.append(table_id, "logout", {"user": user.user_id, "why": why},
                                   user.actor)

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
            self.journal.append(table_id, "login.failed",
                                {"user_id": shown, "reason": "unknown user"}, "unknown/unknown")
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

        def failed(reason: str, **extra: Any) -> Fact:
            return Fact("login.failed", {"user_id": user_id, "reason": reason, **extra}, actor)

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
                     Fact("user.mismatch", problem.payload(), actor)],
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
            facts = [failed("wrong PIN", failures=failures)]
            if failures >= self.max_failures:
                until = iso_utc(now + self.lockout)
                facts.append(Fact("lockout", {"user_id": user_id, "failures": failures,
                                              "until": until}, actor))
                return (facts, self._locked_out(user_id, state.role, until, failures, now,
                                                "is now"), None, True)
            return (facts, WrongPin(user_id, self.max_failures - failures,
                                    self.lockout_minutes), None, True)
        if not state.active:
            return ([failed("inactive")], AuthError(f"user {user_id!r} has been deactivated"),
                    None, True)
        payload: dict[str, Any] = {"user_id": user_id, "role": state.role}
        new_hash: str | None = None
        if over is not None:
            payload["over"] = over
        if self.hasher.check_needs_rehash(pin_hash):
            new_hash = self.hash_pin(pin)
            payload["pin_mac"] = self.pin_mac(user_id, new_hash)
        return [Fact("login", payload, actor)], None, new_hash, True


def _refusal(problem: Problem | _Forged) -> str:
    return (f"{problem}. The station will not act on this user until it is resolved: run "
            f"`dealer-station audit verify`")


class _Retry(Exception):
    """The user's records or row changed under us; abandon this write and decide again."""


__all__ = [
    "MAX_NAME_LENGTH", "MIN_PIN_LENGTH", "PRIVILEGED", "ROLES", "STATION_STREAM", "USER_KINDS",
    "AuthError", "JournalError", "LockedOut", "PermissionDenied", "PinResetRequired", "Problem",
    "User", "UserError", "UserMismatch", "Users", "WrongPin", "attempts_left_text",
    "default_hasher", "local_time", "require_role",
]
