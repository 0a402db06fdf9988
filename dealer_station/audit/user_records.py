"""A user's state as the journal's chain establishes it: their records read and checked against
their keyed hashes, folded, compared with the users row and written back in one transaction."""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from dealer_station.audit import schema
from dealer_station.audit.journal import Copied, Entry, JournalError, Record, table_ids
from dealer_station.audit.pins import PinHashing
from dealer_station.audit.user_model import User, UserMismatch
from dealer_station.events.base import Codec
from dealer_station.events.rows import user_named
from dealer_station.events.station import (
    LockedOut,
    PinSet,
    RoleChanged,
    SignedIn,
    SignInFailed,
    UserAdded,
    UserDeactivated,
    UserRowMismatch,
    UserUnlocked,
)

U = schema.users
J = schema.journal

USER_EVENTS = (UserAdded, PinSet, RoleChanged, UserDeactivated, UserUnlocked, SignedIn,
               SignInFailed, LockedOut)
USER_CODEC = Codec(USER_EVENTS)
USER_KINDS = tuple(e.KIND for e in USER_EVENTS)
"""The record kinds that establish a user's state (their payload names the ``user_id``)."""

_COLUMNS = (J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
            J.c.prev_hash, J.c.hash)
_LOCK_PREFIX = "dealer-station/user/"


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
    """Fold a user's authentic records (in order) into the state they establish, each read as
    its typed event (events/station.py)."""
    state: _State | None = None
    for rec in records:
        e = USER_CODEC.decode(rec.kind, rec.payload)
        src = _Source(rec.table_id, rec.seq, rec.kind)
        if isinstance(e, UserAdded):
            if state is None:
                state = _State(user_id, e.name, e.role, True, rec.ts, e.pin_mac)
                state.sources = dict.fromkeys(
                    ("row", "name", "role", "active", "created_at", "pin_hash",
                     "failed_attempts", "locked_until"), src)
            continue
        if state is None:
            continue  # e.g. a failed sign-in under this id before the user was added
        if isinstance(e, PinSet):
            state.pin_mac = e.pin_mac
            state.sources["pin_hash"] = src
        elif isinstance(e, RoleChanged):
            state.role = e.role
            state.sources["role"] = src
        elif isinstance(e, UserDeactivated):
            state.active = False
            state.sources["active"] = src
        elif isinstance(e, UserUnlocked | SignedIn):
            state.failures = 0
            state.locked_until = None
            state.sources["failed_attempts"] = state.sources["locked_until"] = src
            if isinstance(e, SignedIn) and "pin_mac" in e.more:
                # A PIN bound to the key at this sign-in (hashed again at the station's cost).
                state.pin_mac = _opt_str(e.more["pin_mac"])
                state.sources["pin_hash"] = src
        elif isinstance(e, SignInFailed):
            if e.reason == "wrong PIN":
                state.failures += 1
                state.sources["failed_attempts"] = src
        elif isinstance(e, LockedOut):
            state.locked_until = e.until
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


#: What a user's change writes: typed events, and records adopted as the floor holds them.
Facts = list[Entry | Copied]
Users_ = list[User]
StateList = list[_State | None]
Strings = list[str]
GroupedRecords = tuple[dict[str, list[Record]], list[_Forged]]


class UserRecords(PinHashing):
    """``Users``' reading of the chain and its transactions, shared by sign-in and
    administration."""

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
            uid = user_named(rec.payload)
            if uid is None or (user_id is not None and uid != user_id):
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

        self.journal.write(table_id, facts, also=also)
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
            event = UserRowMismatch(problem.payload())
            self.journal.write(table_id, [Entry(event, actor)])


def _refusal(problem: Problem | _Forged) -> str:
    return (f"{problem}. The station will not act on this user until it is resolved: run "
            f"`dealer-station audit verify`")


class _Retry(Exception):
    """The user's records or row changed under us; abandon this write and decide again."""
