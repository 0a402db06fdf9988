"""User administration on the station chain: reading and listing users, adding them, setting
PINs and roles, deactivating and unlocking, and adopting the floor's users (``UserAdmin``)."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, and_, select

from dealer_station.audit.db import Database
from dealer_station.audit.journal import Copied, Entry
from dealer_station.audit.user_model import (
    PRIVILEGED,
    STATION_STREAM,
    AuthError,
    LockedOut,
    PermissionDenied,
    User,
    UserError,
    UserMismatch,
    _check_name,
    _check_pin,
    _check_reason,
    _check_role,
    _check_user_id,
    _valid_user_id,
    require_role,
)
from dealer_station.audit.user_records import (
    Facts,
    J,
    Strings,
    U,
    UserRecords,
    Users_,
    _derive,
    _refusal,
    _Retry,
    _Snapshot,
    _State,
)
from dealer_station.events.base import Codec, Event
from dealer_station.events.station import LockedOut as LockedOutEvent
from dealer_station.events.station import (
    PinSet,
    RoleChanged,
    UserAdded,
    UserAdopted,
    UserDeactivated,
    UserRowMismatch,
    UserUnlocked,
)

ADOPT_ACTOR = "station/floor"
"""Who journals a user's facts copied from the floor's users at a table."""
#: The user records a table copies from the floor's (a sign-in comes as a user.pin).
_ADOPTABLE = (UserAdded, PinSet, RoleChanged, UserDeactivated, UserUnlocked, LockedOutEvent)
_ADOPT_CODEC = Codec(_ADOPTABLE)
_BOOTSTRAP_LOCK = "dealer-station/users"


class UserAdmin(UserRecords):
    """``Users``' administration and reading. ``Users.__init__`` sets the attributes named
    here; ``authenticate`` is ``SignIn``'s."""

    db: Database
    clock: Callable[[], datetime]

    if TYPE_CHECKING:
        def authenticate(self, user_id: str, pin: str, *, table_id: str = STATION_STREAM,
                         over: str | None = None) -> User: ...

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
                facts.append(Entry(UserRowMismatch({**problem.payload(), "action": action}),
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
            return [Entry(UserAdded(user_id, name, role, self.pin_mac(user_id, pin_hash)),
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

    def adopt(self, user_id: str, facts: Sequence[Copied], *, source: dict[str, Any],
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
        # Each fact copied as it is (kind and payload), and read as its typed event.
        copied: list[tuple[Copied, Event]] = []
        mac: str | None = None
        for f in facts:
            e = _ADOPT_CODEC.decode(f.kind, f.payload)
            if not isinstance(e, _ADOPTABLE):
                raise UserError(f"a {f.kind} record cannot be adopted as {user_id}'s")
            if e.user_id != user_id:
                raise UserError(f"{f.kind} for {e.user_id!r} cannot be adopted as "
                                f"{user_id}'s")
            if isinstance(e, UserAdded | PinSet) and e.pin_mac is not None:
                mac = e.pin_mac
            copied.append((Copied(f.kind, dict(f.payload), actor), e))
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
            for f, e in copied:
                if isinstance(e, UserAdded) and role is not None:
                    # Written as it always was: a PIN left out of the user.add is an explicit
                    # null here (PinSet would leave the key out).
                    plan.append(Copied(PinSet.KIND, {"user_id": user_id, "pin_mac": e.pin_mac},
                                     actor))
                    if e.role != role:
                        plan.append(Entry(RoleChanged(user_id, e.role, role,
                                                        "the floor's users"), actor))
                else:
                    plan.append(f)
                if isinstance(e, UserAdded | RoleChanged):
                    role = e.role
            if role is None:
                raise UserError(f"no user {user_id!r} to adopt facts for")
            plan.append(Entry(UserAdopted(user_id, dict(source)), actor))
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
            return [Entry(PinSet(user_id, self.pin_mac(user_id, pin_hash)), actor_name)]

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
            return [Entry(RoleChanged(user_id, role, before.state.role, reason), admin.actor)]

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
            return [Entry(UserDeactivated(user_id, reason), admin.actor)]

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
            return [Entry(UserUnlocked(user_id, reason), admin.actor)]

        return self._administer(user_id, table_id, plan, actor_name=admin.actor).user()

    def locked_out(self) -> Users_:
        """The users locked out now (by the chain), soonest released first."""
        now = self.clock()
        out = [u for u in self.list() if u.active and u.locked_until is not None
               and datetime.fromisoformat(u.locked_until) > now]
        return sorted(out, key=lambda u: (u.locked_until or "", u.user_id))
