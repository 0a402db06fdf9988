"""The table's side of "one operator, many tables": follow the floor, adopt what was
published for this table between rounds, and copy the floor's users into the table's own.

A :class:`Follower` runs in a thread of the station beside the forwarder. Every ``poll_s``
it reads what is new in the floor's own streams (``floor``: groups and publications;
``station``: the floor's central users), each record checked against the key's hash and its
link (the floor's tables share its key), and:

* **Configuration.** When the last publication naming this table (for its game) is not yet
  adopted and names a version other than the one the table's next round would use, the
  table adopts it through its service (``adopt_published_config``): under the table's lock,
  only when no round or hand is open (it waits otherwise, and tries again as soon as the
  table commits), journaled as the table's own ``config.change`` with actor
  ``station/floor`` and ``changes.floor`` naming the publication (its floor seq and hash,
  version, publisher, reason). The table's chain alone then proves what it paid under.
* **Users.** The floor's user facts (``user.add``, ``user.pin``, ``user.role``,
  ``user.deactivate``, ``user.unlock``, ``lockout``; a sign-in that rehashed a PIN, as
  ``user.pin``) that the table has not adopted are journaled in the table's local
  ``station`` chain through :meth:`Users.adopt`, each followed by a ``user.adopted`` record
  naming the floor records copied. PIN hashes are copied from the floor's users table only
  when the copied ``pin_mac`` binds them under the table's key. The table keeps working
  offline with its last copy.

When the floor cannot be reached the follower backs off (as the forwarder does) and catches
up when it comes back; a table that was offline at publishing adopts on reconnecting.

**A floor that lost records** (a failover to a standby that lacked them): the follower finds
its place in the floor's streams gone (the record it read last is no longer there, or is
another) and reads them again from the start. Whatever this table adopted that the floor no
longer holds (a publication, a user's facts) is kept, never reverted, and said once in the
table's own chain (``floor.adoption_lost``, with the table's copy: the config.change record
that adopted the publication, or the user's facts as copied), for the operator to publish
again (``floor versions``, ``floor publish --again``). Publications older than the one the
table adopted are never adopted after it: newer means after it in the floor's stream, or,
once the floor lost it, published after it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from sqlalchemy import exc as sa_exc
from sqlalchemy import select

from dealer_station.audit import schema
from dealer_station.audit.db import Database, DatabaseError, db_reason, mask_url, open_database
from dealer_station.audit.journal import Copied, Entry, Journal, Record
from dealer_station.audit.users import ADOPT_ACTOR, STATION_STREAM, UserError, UserMismatch, Users
from dealer_station.errors import StationError
from dealer_station.events import Codec
from dealer_station.events.station import (
    FloorAdoptionLost,
    LockedOut,
    PinSet,
    RoleChanged,
    SignedIn,
    UserAdded,
    UserAdopted,
    UserDeactivated,
    UserUnlocked,
)
from dealer_station.events.table import ConfigChanged
from dealer_station.floor.central import (
    FLOOR_STREAM,
    FloorChainBroken,
    Publication,
    latest_for,
    publications_in,
    read_stream,
)

log = logging.getLogger(__name__)
J = schema.journal
U = schema.users
ACTOR = ADOPT_ACTOR
#: The floor's user facts a table copies (a sign-in that rehashed a PIN becomes a user.pin).
USER_FACTS = (UserAdded, PinSet, RoleChanged, UserDeactivated, UserUnlocked, LockedOut,
              SignedIn)
UserFact: TypeAlias = (UserAdded | PinSet | RoleChanged | UserDeactivated | UserUnlocked
                       | LockedOut | SignedIn)
_USERS = Codec(USER_FACTS)


class TableLike(Protocol):
    """What the follower needs of a table service (dealer_station/table/base.py)."""

    table_id: str
    game: str

    def upcoming_config_version(self) -> str: ...

    def adopt_published_config(self, version: str, content: Mapping[str, Any], reason: str,
                               what: Mapping[str, Any], actor: str) -> bool: ...


@dataclass(frozen=True)
class _Copied:
    """A floor user fact waiting to be adopted: its record (copied as stored) and its event."""

    record: Record
    event: UserFact


@dataclass
class FollowState:
    """What the follower last knew, for the device bar and tests."""

    state: str = "starting"          # "starting", "online", "offline", "refused"
    detail: str = ""
    waiting_for: Publication | None = None     # adopted once the round closes
    adopted: list[str] = field(default_factory=list)   # versions adopted, in order
    #: Rounds of reading the floor and adopting finished so far (a test waits on it).
    cycles: int = 0


def _is_outage(e: BaseException) -> bool:
    return isinstance(e, DatabaseError | sa_exc.DBAPIError | sa_exc.InterfaceError | OSError)


def _reason(e: BaseException) -> str:
    return db_reason(e) if isinstance(e, sa_exc.DBAPIError) else str(e) or type(e).__name__


@dataclass
class _Adoption:
    """Floor records this table adopted, as its chain says (a publication, or one user's
    facts copied together), with the table's copy of them."""

    what: str                       # "publication" or "user"
    stream: str                     # the floor stream they were in
    floor_seqs: tuple[int, ...]
    floor_hashes: tuple[str, ...]
    subject: str                    # the version, or the user's id
    said: dict[str, Any]
    at: str = ""                    # a publication's time at the floor

    def copy(self) -> dict[str, Any]:
        return dict(self.said)


def _still_holds(conn: Any, stream: str, seq: int, hash_: str | None) -> bool:
    """Whether the floor's ``stream`` still has record ``seq`` with this hash (0: nothing
    read yet, so nothing to lose)."""
    if seq == 0:
        return True
    held = conn.execute(select(J.c.hash).where(J.c.table_id == stream,
                                              J.c.seq == seq)).scalar()
    return held is not None and held == hash_


def _holds_all(conn: Any, a: _Adoption) -> bool:
    held = {int(s): str(h) for s, h in conn.execute(select(J.c.seq, J.c.hash).where(
        J.c.table_id == a.stream, J.c.seq.in_(a.floor_seqs)))}
    return all(held.get(s) == h for s, h in zip(a.floor_seqs, a.floor_hashes, strict=True))


class Follower:
    """Follows the floor at ``floor_url`` for ``table`` (journaled in ``journal``, whose
    users are ``users``). :meth:`start` runs it in a thread; :meth:`follow_once` runs one
    pass (tests, ``floor follow``)."""

    def __init__(self, journal: Journal, floor_url: str, table: TableLike, users: Users, *,
                 poll_s: float = 1.0, backoff_s: tuple[float, float] = (0.5, 5.0),
                 on_change: Callable[[FollowState], None] | None = None) -> None:
        self.journal = journal
        self.floor_url = floor_url
        self.shown_url = mask_url(floor_url)
        self.table = table
        self.users = users
        self.poll_s = poll_s
        self.backoff_s = backoff_s
        self.on_change = on_change
        self.status = FollowState()
        self._floor: Database | None = None
        self._floor_cursor: tuple[int, str | None] = (0, None)
        self._station_cursor: tuple[int, str | None] = (0, None)
        self._publications: list[Publication] = []
        self._user_facts: list[_Copied] = []         # read, not yet adopted
        self._adoptions: list[_Adoption] = []
        self._last_pub: _Adoption | None = None      # the last publication adopted
        self._last_pub_held = True                   # ... and the floor still holds it
        self._lost_said: set[str] = set()            # floor hashes said lost already
        (self._adopted_user_seqs, self._adopted_user_hashes,
         self._adopted_pubs) = self._adopted_locally()
        self._check_adoptions = True                 # at the first read, and after a loss
        #: What this table adopted and the floor lost, as journaled (floor.adoption_lost).
        self.lost: list[FloorAdoptionLost] = []
        self._refused_users: dict[str, str] = {}
        self._pin_hashes: dict[str, str] = {}
        #: Publications this table could not adopt (floor seq: why).
        self.refused_publications: dict[int, str] = {}
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        self.journal.on_commit.append(self._committed)
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"follower-{self.table.table_id}")
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        if self._committed in self.journal.on_commit:
            self.journal.on_commit.remove(self._committed)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_floor()

    @property
    def running(self) -> bool:
        """Whether the follower's thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def _committed(self, table_id: str) -> None:
        # A round may just have closed: a publication waiting for it is adopted now.
        if table_id == self.table.table_id and self.status.waiting_for is not None:
            self._wake.set()

    def _run(self) -> None:
        delay = self.backoff_s[0]
        next_poll = 0.0
        while not self._stop.is_set():
            try:
                if time.monotonic() >= next_poll:
                    self.read_floor()
                    next_poll = time.monotonic() + self.poll_s
                    delay = self.backoff_s[0]
                self.adopt()
                self.status.cycles += 1
                self._wake.wait(max(0.0, next_poll - time.monotonic()))
                self._wake.clear()
            except FloorChainBroken as e:
                self._close_floor()
                self._set("refused", str(e))
                log.error("table %s: %s", self.table.table_id, e)
                self._stop.wait(max(self.backoff_s[1], 5.0))
            except Exception as e:
                if not _is_outage(e):
                    log.exception("table %s: the floor follower failed", self.table.table_id)
                    self._set("offline", _reason(e))
                    self._stop.wait(self.backoff_s[1])
                    continue
                self._close_floor()
                self._set("offline", _reason(e))
                # What was read before the outage is still adopted (between rounds).
                with contextlib.suppress(Exception):
                    self.adopt()
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_s[1])

    def follow_once(self) -> FollowState:
        """Read the floor once and adopt what can be adopted now. Raises on an outage."""
        try:
            self.read_floor()
        except BaseException:
            self._close_floor()
            raise
        self.adopt()
        return self.status

    # -- reading the floor ------------------------------------------------------------------

    def _open_floor(self) -> Database:
        if self._floor is None:
            self._floor = open_database(self.floor_url, upgrade=False)
        return self._floor

    def _close_floor(self) -> None:
        if self._floor is not None:
            with contextlib.suppress(Exception):
                self._floor.close()
            self._floor = None

    def read_floor(self) -> None:
        """What is new in the floor's streams since the last read (checked), and the PIN
        hashes of the users whose facts are waiting."""
        floor = self._open_floor()
        with floor.read() as conn:
            # A floor that lost records (a failover): read its streams again from the start.
            if not _still_holds(conn, FLOOR_STREAM, *self._floor_cursor):
                self._floor_lost("floor", self._floor_cursor[0])
                self._floor_cursor = (0, None)
                self._publications = []
            if not _still_holds(conn, STATION_STREAM, *self._station_cursor):
                self._floor_lost("station", self._station_cursor[0])
                self._station_cursor = (0, None)
                self._user_facts = []
            after, prev = self._floor_cursor
            recs = read_stream(self.journal, conn, FLOOR_STREAM, after=after, prev_hash=prev)
            if recs:
                self._floor_cursor = (recs[-1].seq, recs[-1].hash)
            self._publications += publications_in(recs)
            after, prev = self._station_cursor
            recs = read_stream(self.journal, conn, STATION_STREAM, after=after, prev_hash=prev)
            if recs:
                self._station_cursor = (recs[-1].seq, recs[-1].hash)
            for r in recs:
                e = _USERS.decode(r.kind, r.payload)
                # Only a sign-in that rehashed the PIN (and so bound a new pin_mac) is a fact.
                if (isinstance(e, USER_FACTS) and r.hash not in self._adopted_user_hashes
                        and r.seq not in self._adopted_user_seqs
                        and (not isinstance(e, SignedIn) or "pin_mac" in e.more)):
                    self._user_facts.append(_Copied(r, e))
            waiting = sorted({f.event.user_id for f in self._user_facts})
            self._pin_hashes = ({} if not waiting else {
                str(u): str(h) for u, h in conn.execute(
                    select(U.c.user_id, U.c.pin_hash).where(U.c.user_id.in_(waiting)))})
            lost = self._lost_adoptions(conn) if self._check_adoptions else []
            if self._last_pub is not None:
                self._last_pub_held = _holds_all(conn, self._last_pub)
        for adoption in lost:
            self._say_lost(adoption)     # (a journal that refuses: said at the next read)
        self._check_adoptions = False
        self._set("online", "")

    # -- a floor that lost records ----------------------------------------------------------

    def _floor_lost(self, stream: str, seq: int) -> None:
        log.error("table %s: the floor %s no longer holds record %d of its %s stream, which "
                  "this table read (a failover?): reading it again from the start",
                  self.table.table_id, self.shown_url, seq, stream)
        self._check_adoptions = True

    def _lost_adoptions(self, conn: Any) -> list[_Adoption]:
        """What this table adopted that the floor no longer holds (not said yet)."""
        return [a for a in self._adoptions
                if a.floor_hashes and a.floor_hashes[0] not in self._lost_said
                and not _holds_all(conn, a)]

    def _say_lost(self, a: _Adoption) -> None:
        """Journal, in the table's own chain, that the floor lost what the table adopted."""
        said = FloorAdoptionLost(self.shown_url, a.what, a.floor_seqs, a.floor_hashes,
                                 a.subject, a.copy())
        log.error("table %s: the floor lost %s %s, which this table adopted; kept here",
                  self.table.table_id, a.what, a.subject)
        self.journal.write(self.table.table_id, [Entry(said, ACTOR)])
        self._lost_said.add(a.floor_hashes[0])
        self.lost.append(said)

    # -- adopting ---------------------------------------------------------------------------

    def adopt(self) -> None:
        self._adopt_users()
        self._adopt_config()

    def _adopt_users(self) -> None:
        by_user: dict[str, list[_Copied]] = {}
        for f in self._user_facts:
            by_user.setdefault(f.event.user_id, []).append(f)
        done: set[int] = set()
        for user_id, copied in by_user.items():
            recs = [f.record for f in copied]
            # Each fact is copied with its payload as stored, byte for byte, and a sign-in's
            # new PIN becomes a user.pin that keeps its pin_mac key as the sign-in had it:
            # whether a record carries one is what Users.adopt and its first-user checks
            # read (PinSet would leave out a null one).
            facts = [Copied(PinSet.KIND, {"user_id": user_id, "pin_mac": f.event.more["pin_mac"]},
                          f.record.actor) if isinstance(f.event, SignedIn)
                     else Copied(f.record.kind, f.record.payload, f.record.actor)
                     for f in copied]
            source = {"floor": self.shown_url, "floor_seqs": [r.seq for r in recs],
                      "floor_hashes": [r.hash for r in recs],
                      "by": sorted({r.actor for r in recs})}
            try:
                self.users.adopt(user_id, facts, source=source,
                                 pin_hash=self._pin_hashes.get(user_id))
            except UserMismatch as e:
                # The PIN changed at the floor since these records were read: the next read
                # brings the newer record with it.
                self._refused_users[user_id] = str(e)
                continue
            except UserError as e:
                self._refused_users[user_id] = str(e)
                log.warning("table %s: the floor's facts for %s not adopted: %s",
                            self.table.table_id, user_id, e)
                done.update(r.seq for r in recs)       # never adoptable: not retried
                continue
            self._refused_users.pop(user_id, None)
            done.update(r.seq for r in recs)
            self._adopted_user_hashes.update(r.hash for r in recs)
            self._adoptions.append(_Adoption(
                "user", STATION_STREAM, tuple(r.seq for r in recs), tuple(r.hash for r in recs),
                user_id, {"facts": [{"kind": r.kind, "actor": r.actor, "payload": r.payload}
                                    for r in recs]}))
        self._user_facts = [f for f in self._user_facts if f.record.seq not in done]

    def _candidates(self) -> list[Publication]:
        """The publications newer than the last one this table adopted: after it in the
        floor's stream, or, when the floor lost it, published after it."""
        last = self._last_pub
        if last is None:
            return self._publications
        if self._last_pub_held:
            return [p for p in self._publications if p.seq > last.floor_seqs[0]]
        return [p for p in self._publications if p.ts > last.at]

    def _adopt_config(self) -> None:
        pub = latest_for(self._candidates(), self.table.table_id, self.table.game)
        if pub is None or pub.hash in self._adopted_pubs:
            self._waiting(None)
            return
        if pub.version == self.table.upcoming_config_version():
            self._adopted_pubs.add(pub.hash)     # already the one the table plays next
            self._waiting(None)
            return
        try:
            adopted = self.table.adopt_published_config(pub.version, pub.content, pub.reason,
                                                        pub.what(), ACTOR)
        except StationError as e:
            # Content this table cannot play under (or that does not hash to its version):
            # not adopted, and not tried again; the table keeps its configuration.
            self._adopted_pubs.add(pub.hash)
            self.refused_publications[pub.seq] = str(e)
            self._waiting(None)
            log.error("table %s: configuration %s published at the floor (record %d) not "
                      "adopted: %s", self.table.table_id, pub.version[:12], pub.seq, e)
            return
        if adopted:
            self._adopted_pubs.add(pub.hash)
            self._last_pub = _Adoption("publication", FLOOR_STREAM, (pub.seq,), (pub.hash,),
                                       pub.version, {"publication": pub.what()["floor"],
                                                     **self._last_change()}, at=pub.ts)
            self._last_pub_held = True
            self._adoptions.append(self._last_pub)
            self.status.adopted.append(pub.version)
            self._waiting(None)
            log.info("table %s adopted configuration %s published at the floor (record %d)",
                     self.table.table_id, pub.version[:12], pub.seq)
        else:
            self._waiting(pub)      # a round is open: adopted as soon as it closes

    def _last_change(self) -> dict[str, Any]:
        """The table's last config.change record (the one that just adopted a publication):
        where the table's chained copy of it is."""
        with self.journal.db.read() as conn:
            row = conn.execute(select(J.c.seq, J.c.hash).where(
                J.c.table_id == self.table.table_id, J.c.kind == ConfigChanged.KIND)
                .order_by(J.c.seq.desc()).limit(1)).first()
        return {} if row is None else {"table_seq": int(row[0]), "table_hash": str(row[1])}

    def _adopted_locally(self) -> tuple[set[int], set[str], set[str]]:
        """The floor records this table has adopted, as its own chain says: the floor seqs
        of user facts adopted before their hashes were kept, their hashes since, and the
        publications' hashes. Keeps each adoption (:attr:`_adoptions`), the last
        publication adopted, and the losses already said."""
        seqs: set[int] = set()
        hashes: set[str] = set()
        pubs: set[str] = set()
        with self.journal.db.read() as conn:
            station = [(int(s), str(k), str(a), json.loads(p)) for s, k, a, p in conn.execute(
                select(J.c.seq, J.c.kind, J.c.actor, J.c.payload)
                .where(J.c.table_id == STATION_STREAM).order_by(J.c.seq))]
            for i, (_seq, kind, _actor, payload) in enumerate(station):
                if kind != UserAdopted.KIND:
                    continue
                adopted = UserAdopted.from_payload(payload)
                floor_seqs = tuple(int(s) for s in adopted.source.get("floor_seqs", []))
                floor_hashes = tuple(str(h) for h in adopted.source.get("floor_hashes", []))
                if len(floor_hashes) != len(floor_seqs):
                    seqs.update(floor_seqs)      # adopted before the hashes were kept
                    continue
                hashes.update(floor_hashes)
                facts: list[dict[str, Any]] = []
                for _s, k, a, p in reversed(station[:i]):       # the facts copied with it
                    if a != ACTOR or k == UserAdopted.KIND or p.get("user_id") != \
                            adopted.user_id:
                        break
                    facts.insert(0, {"kind": k, "actor": a, "payload": p})
                self._adoptions.append(_Adoption(
                    "user", STATION_STREAM, floor_seqs, floor_hashes, adopted.user_id,
                    {"facts": facts, "table_stream": STATION_STREAM}))
            for seq, h, payload in conn.execute(select(J.c.seq, J.c.hash, J.c.payload).where(
                    J.c.table_id == self.table.table_id, J.c.kind == ConfigChanged.KIND)
                    .order_by(J.c.seq)):
                change = ConfigChanged.from_payload(json.loads(payload))
                floor = change.changes.get("floor")
                if isinstance(floor, Mapping) and "hash" in floor and "seq" in floor:
                    pubs.add(str(floor["hash"]))
                    self._last_pub = _Adoption(
                        "publication", FLOOR_STREAM, (int(floor["seq"]),), (str(floor["hash"]),),
                        change.version, {"publication": dict(floor), "table_seq": int(seq),
                                         "table_hash": str(h)},
                        at=str(floor.get("published_at") or ""))
                    self._adoptions.append(self._last_pub)
            for (payload,) in conn.execute(select(J.c.payload).where(
                    J.c.table_id == self.table.table_id,
                    J.c.kind == FloorAdoptionLost.KIND)):
                said = FloorAdoptionLost.from_payload(json.loads(payload))
                if said.floor_hashes:
                    self._lost_said.add(said.floor_hashes[0])
        return seqs, hashes, pubs

    # -- state ------------------------------------------------------------------------------

    def _waiting(self, pub: Publication | None) -> None:
        if self.status.waiting_for != pub:
            self.status.waiting_for = pub
            self._changed()

    def _set(self, state: str, detail: str) -> None:
        if (self.status.state, self.status.detail) != (state, detail):
            self.status.state, self.status.detail = state, detail
            self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.status)

    @property
    def refused_users(self) -> dict[str, str]:
        """Users whose floor facts were not adopted, and why."""
        return dict(self._refused_users)

    def text(self) -> str:
        """The device bar's words."""
        if self.status.waiting_for is not None:
            return (f"floor configuration {self.status.waiting_for.version[:12]} waits for "
                    f"the round to close")
        return {"online": "following the floor", "offline": "floor offline (last copy kept)",
                "refused": "floor records refused"}.get(self.status.state, "floor: connecting")
