"""The floor's side of "one operator, many tables": groups of tables and configuration
versions published to them, each a record in the floor's own chained journal.

The floor database holds, beside the tables' forwarded streams, two streams of its own
written under the floor's key (the key the floor's tables share):

* ``station``: the floor's central users (``audit/users.py``, as at any station); the tables'
  followers copy them into each table's local users (``floor/follower.py``).
* ``floor``: ``floor.group`` (a named group of tables: a pit, or a list) and ``floor.publish``
  (a configuration version published to a group's tables, with the operator's reason).

A publication names its tables as resolved when it was published, so a group changed later
does not move what was published before. Every record read here is checked against its
keyed hash and its link to the one before: a record edited in the floor's database is
refused (:class:`FloorChainBroken`), never acted on.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from dealer_station import registry as games
from dealer_station.audit import schema
from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Entry, Journal, Record, check_table_id
from dealer_station.audit.users import PermissionDenied, User, Users
from dealer_station.errors import StationError
from dealer_station.events import Codec
from dealer_station.events.station import FloorGroupDefined, FloorPublished
from dealer_station.events.table import ConfigChanged

J = schema.journal
FLOOR_STREAM = "floor"
_FLOOR = Codec((FloorGroupDefined, FloorPublished))
MAX_REASON = 500
_COLUMNS = (J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
            J.c.prev_hash, J.c.hash)


class PublishError(StationError):
    """A group or a publication was refused (no reason, unknown group, bad tables)."""


class FloorChainBroken(StationError):
    """A record of the floor's own streams fails its keyed hash or its link: nothing from
    that point on is acted on."""


@dataclass(frozen=True)
class Group:
    name: str
    tables: tuple[str, ...]
    seq: int
    actor: str
    ts: str


@dataclass(frozen=True)
class Publication:
    """A configuration version published at the floor to some tables."""

    seq: int                 # the floor.publish record's seq in the floor stream
    hash: str                # ... and its hash
    ts: str
    actor: str               # the publishing operator (user/role)
    group: str | None
    tables: tuple[str, ...]
    game: str
    version: str
    content: dict[str, Any]
    reason: str

    def what(self) -> dict[str, Any]:
        """What a table's ``config.change`` says of the publication it adopts."""
        return {"floor": {"seq": self.seq, "hash": self.hash, "version": self.version,
                          "publisher": self.actor, "reason": self.reason,
                          "group": self.group, "published_at": self.ts}}


def read_stream(journal: Journal, conn: Connection, stream: str, *, after: int = 0,
                prev_hash: str | None = None, kinds: Sequence[str] | None = None
                ) -> list[Record]:
    """The records of ``stream`` after ``after`` (``prev_hash``: the hash of record
    ``after``), each checked against the key's hash and its link to the one before.
    ``kinds``: keep only these (every record is still checked). Raises
    :class:`FloorChainBroken`."""
    stmt = select(*_COLUMNS).where(J.c.table_id == stream, J.c.seq > after).order_by(J.c.seq)
    prev = prev_hash if after else journal.genesis(stream)
    expected = after + 1
    out: list[Record] = []
    for row in conn.execute(stmt):
        rec = Record(row[0], int(row[1]), row[2], row[3], row[4], row[5], json.loads(row[6]),
                     row[7], row[8])
        if rec.seq != expected or not isinstance(rec.payload, dict):
            raise FloorChainBroken(f"the floor's {stream} stream has no record {expected}")
        if not journal.is_authentic(rec):
            raise FloorChainBroken(f"the floor's {stream} record {rec.seq} fails its keyed "
                                   f"hash (edited in the floor's database, or another key)")
        if prev is not None and rec.prev_hash != prev:
            raise FloorChainBroken(f"the floor's {stream} record {rec.seq} does not link to "
                                   f"the record before it")
        prev = rec.hash
        expected += 1
        if kinds is None or rec.kind in kinds:
            out.append(rec)
    return out


def _groups(records: Iterable[Record]) -> dict[str, Group]:
    out: dict[str, Group] = {}
    for r in records:
        e = _FLOOR.decode(r.kind, r.payload)
        if not isinstance(e, FloorGroupDefined):
            continue
        if e.tables:
            out[e.group] = Group(e.group, e.tables, r.seq, r.actor, r.ts)
        else:
            out.pop(e.group, None)
    return out


def _publication(r: Record, e: FloorPublished) -> Publication:
    return Publication(r.seq, r.hash, r.ts, r.actor, e.group, e.tables, e.game, e.version,
                       dict(e.content), e.reason)


def publication_from(r: Record) -> Publication:
    e = _FLOOR.decode_as(FloorPublished, r.seq, r.kind, r.payload)
    return _publication(r, e)


def publications_in(records: Iterable[Record]) -> list[Publication]:
    """The publications among ``records`` (of the floor stream), in their order."""
    out: list[Publication] = []
    for r in records:
        e = _FLOOR.decode(r.kind, r.payload)
        if isinstance(e, FloorPublished):
            out.append(_publication(r, e))
    return out


class Floor:
    """The floor's groups and publications, on the floor's journal (PostgreSQL, the floor's
    key)."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def _records(self) -> list[Record]:
        with self.journal.db.read() as conn:
            return read_stream(self.journal, conn, FLOOR_STREAM)

    def groups(self) -> dict[str, Group]:
        return _groups(self._records())

    def publications(self) -> list[Publication]:
        return publications_in(self._records())

    def operator(self, user_id: str) -> User:
        """The floor's user ``user_id``, who must be an active operator, not locked out."""
        users = Users(self.journal)
        user = users.get(user_id)
        if user is None:
            raise PermissionDenied(f"{user_id!r} is not one of the floor's users")
        if user.role != "operator":
            raise PermissionDenied(f"{user_id} is a {user.role}; only an operator publishes "
                                   f"to the floor")
        if not user.active:
            raise PermissionDenied(f"{user_id} has been deactivated")
        if user.locked_until is not None and \
                datetime.fromisoformat(user.locked_until) > self.journal.clock():
            raise PermissionDenied(f"{user_id} is locked out until {user.locked_until}")
        return user

    def define_group(self, name: str, tables: Sequence[str], *, actor: User,
                     reason: str = "") -> Group:
        """Name a group of tables (``floor.group``); an empty list removes it."""
        if not name or not name.strip() or len(name) > 64:
            raise PublishError("a group needs a name (at most 64 characters)")
        tables = _tables(tables)
        said = FloorGroupDefined(name.strip(), tuple(tables), reason.strip())
        rec = self.journal.write(FLOOR_STREAM, [Entry(said, actor.actor)])[0]
        return Group(name.strip(), tuple(tables), rec.seq, rec.actor, rec.ts)

    def publish(self, *, game: str, content: Mapping[str, Any], reason: str, actor: User,
                group: str | None = None, tables: Sequence[str] = ()) -> Publication:
        """Publish ``content`` (a ``game`` configuration, validated by the caller) to a
        group's tables or to ``tables``: a ``floor.publish`` record. Needs a reason."""
        reason = check_reason(reason)
        if (group is None) == (not tables):
            raise PublishError("publish to a group (--group) or to tables (--tables), not "
                               "both or neither")
        if group is not None:
            g = self.groups().get(group)
            if g is None:
                known = ", ".join(sorted(self.groups())) or "none defined"
                raise PublishError(f"no group {group!r} at the floor (groups: {known})")
            names = list(g.tables)
        else:
            names = _tables(tables)
        content = json.loads(canonical_json(dict(content)))
        version = config_version(canonical_json(content))
        said = FloorPublished(group, tuple(names), game, version, content, reason)
        rec = self.journal.write(FLOOR_STREAM, [Entry(said, actor.actor)])[0]
        return publication_from(rec)


def check_reason(reason: str | None) -> str:
    if reason is None or not reason.strip():
        raise PublishError("publishing needs a reason (--reason TEXT): it is journaled with "
                           "the publication and with each table's adoption")
    reason = reason.strip()
    if len(reason) > MAX_REASON or "\n" in reason or "\r" in reason:
        raise PublishError(f"the reason must be one line of at most {MAX_REASON} characters")
    return reason


def _tables(tables: Sequence[str]) -> list[str]:
    out: list[str] = []
    for t in tables:
        t = t.strip()
        if not t:
            continue
        if t in ("floor", "station"):
            raise PublishError(f"{t!r} is one of the floor's own streams, not a table")
        check_table_id(t)
        if t not in out:
            out.append(t)
    return out


def latest_for(publications: Sequence[Publication], table_id: str,
               game: str) -> Publication | None:
    """The last publication naming ``table_id`` for its ``game`` (None: none)."""
    for p in reversed(publications):
        if table_id in p.tables and p.game == game:
            return p
    return None


@dataclass(frozen=True)
class Adoption:
    """A table's last configuration change as forwarded to the floor."""

    table: str
    version: str
    seq: int                 # the table's config.change record
    ts: str
    publication: int | None  # the floor.publish record it adopted (None: a change made at
                             # the table, or loaded from its file)


def adoptions(conn: Connection) -> dict[str, Adoption]:
    """Each forwarded table's configuration in force or pending, by its last ``config.change``
    the floor holds (which tables run which version)."""
    out: dict[str, Adoption] = {}
    stmt = (select(J.c.table_id, J.c.seq, J.c.ts, J.c.payload)
            .where(J.c.kind == ConfigChanged.KIND,
                   J.c.table_id.not_in((FLOOR_STREAM, "station")))
            .order_by(J.c.table_id, J.c.seq))
    for table_id, seq, ts, payload in conn.execute(stmt):
        try:
            e = ConfigChanged.from_payload(json.loads(payload))
        except ValueError:      # not JSON, or not a config.change's (EventError): passed over
            continue
        floor = e.changes.get("floor")
        pub = int(floor["seq"]) if isinstance(floor, dict) and "seq" in floor else None
        out[str(table_id)] = Adoption(str(table_id), e.version, int(seq), str(ts), pub)
    return out


# --- what tables adopted and the floor lost in a failover ------------------------------------

@dataclass(frozen=True)
class LostAdoption:
    """A publication or a user's facts that a table adopted and the floor no longer holds
    (lost in a failover), with where the table's own chained copy is: its config.change
    record (a publication) or its floor.adoption_lost record (a user's facts), as forwarded
    to the floor."""

    what: str                       # "publication" or "user"
    table: str
    table_seq: int                  # the table's record holding the copy
    table_hash: str
    floor_seqs: tuple[int, ...]     # the floor records adopted, as the floor numbered them
    floor_hashes: tuple[str, ...]
    subject: str                    # the version, or the user's id
    game: str | None
    publisher: str                  # who published it (a publication), or "" (a user's facts)
    reason: str
    again: int | None               # the floor record that published it again, if any
    adopted_at: str = ""            # the table's record's time (not in the JSON)

    def as_json(self) -> dict[str, Any]:
        return {"what": self.what, "table": self.table, "table_seq": self.table_seq,
                "table_hash": self.table_hash, "floor_seqs": list(self.floor_seqs),
                "floor_hashes": list(self.floor_hashes), "subject": self.subject,
                "game": self.game, "publisher": self.publisher, "reason": self.reason,
                "published_again": self.again}


def _held(conn: Connection, stream: str, seqs: Sequence[int],
          hashes: Sequence[str]) -> bool:
    held = {int(s): str(h) for s, h in conn.execute(select(J.c.seq, J.c.hash).where(
        J.c.table_id == stream, J.c.seq.in_(list(seqs))))}
    return bool(seqs) and all(held.get(s) == h for s, h in zip(seqs, hashes, strict=True))


def lost_adoptions(conn: Connection, tables: Collection[str] | None = None
                   ) -> list[LostAdoption]:
    """Every publication a forwarded table adopted (its config.change naming the floor
    record) that the floor's stream no longer holds, and every user's facts a table said
    lost (``floor.adoption_lost``), each with whether it was published again since.
    ``tables``: only theirs (the pit's tables; read through the journal's table index)."""
    from dealer_station.events.station import FloorAdoptionLost, UserAdopted

    pubs = publications_in(read_stream_unchecked(conn, FLOOR_STREAM))
    again_users: dict[str, int] = {}
    for seq, payload in conn.execute(select(J.c.seq, J.c.payload).where(
            J.c.table_id == "station", J.c.kind == UserAdopted.KIND)):
        source = json.loads(payload)
        of = source.get("again_of") if isinstance(source, dict) else None
        if isinstance(of, dict) and of.get("floor_hashes"):
            again_users[str(of["floor_hashes"][0])] = int(seq)
    out: list[LostAdoption] = []
    stmt = (select(J.c.table_id, J.c.seq, J.c.hash, J.c.kind, J.c.payload, J.c.ts)
            .where(J.c.kind.in_((ConfigChanged.KIND, FloorAdoptionLost.KIND)),
                   J.c.table_id.not_in((FLOOR_STREAM, "station")))
            .order_by(J.c.table_id, J.c.seq))
    if tables is not None:
        stmt = stmt.where(J.c.table_id.in_(sorted(tables)))
    for table_id, seq, h, kind, payload, ts in conn.execute(stmt):
        try:
            data = json.loads(payload)
            if kind == FloorAdoptionLost.KIND:
                lost = FloorAdoptionLost.from_payload(data)
                if lost.what != "user":
                    continue        # a publication's copy is the config.change itself
                out.append(LostAdoption(
                    "user", str(table_id), int(seq), str(h), lost.floor_seqs,
                    lost.floor_hashes, lost.subject, None, "", "",
                    again_users.get(lost.floor_hashes[0]) if lost.floor_hashes else None,
                    str(ts)))
                continue
            change = ConfigChanged.from_payload(data)
        except ValueError:      # not JSON, or not the event's shape: verification says so
            continue
        floor = change.changes.get("floor")
        if not isinstance(floor, dict) or "seq" not in floor or "hash" not in floor:
            continue
        fseq, fhash = int(floor["seq"]), str(floor["hash"])
        if _held(conn, FLOOR_STREAM, [fseq], [fhash]):
            continue
        again = next((p.seq for p in pubs if p.version == change.version
                      and str(table_id) in p.tables), None)
        out.append(LostAdoption(
            "publication", str(table_id), int(seq), str(h), (fseq,), (fhash,), change.version,
            change.game, str(floor.get("publisher") or ""), str(floor.get("reason") or ""),
            again, str(ts)))
    return out


def read_stream_unchecked(conn: Connection, stream: str) -> list[Record]:
    """A floor stream's records as stored (for listing only: nothing read here is acted on
    without :func:`read_stream`'s checks)."""
    return [Record(r[0], int(r[1]), r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8])
            for r in conn.execute(select(*_COLUMNS).where(J.c.table_id == stream)
                                  .order_by(J.c.seq))]


class AgainError(PublishError):
    """A copy a table kept cannot be published again (no such record, not a lost adoption,
    fails its keyed hash, or the floor still holds it)."""


def table_copy(journal: Journal, table_id: str, seq: int) -> Record:
    """The table's record ``seq`` as forwarded to the floor, checked against the key."""
    check_table_id(table_id)
    rec = next(iter(journal.records(table_id, from_seq=seq, to_seq=seq)), None)
    if rec is None:
        raise AgainError(f"the floor holds no record {seq} of table {table_id}")
    if not journal.is_authentic(rec):
        raise AgainError(f"table {table_id}'s record {seq} at the floor fails its keyed hash "
                         f"(edited in the floor's database, or another key): not used")
    return rec


def publish_again(floor: Floor, table_id: str, seq: int, *, reason: str, actor: User,
                  group: str | None = None, tables: Sequence[str] = ()) -> Publication:
    """Publish again, from a table's own chained copy (its config.change record ``seq``),
    a publication the table adopted and the floor lost: the same content, to ``group`` or
    ``tables``, else to every table whose chain adopted that lost publication."""
    journal = floor.journal
    rec = table_copy(journal, table_id, seq)
    if rec.kind != ConfigChanged.KIND:
        raise AgainError(f"table {table_id}'s record {seq} is a {rec.kind}, not the "
                         f"config.change that adopted a publication (see floor versions)")
    change = ConfigChanged.from_payload(rec.payload)
    said = change.changes.get("floor")
    if not isinstance(said, dict) or "hash" not in said or change.content is None:
        raise AgainError(f"table {table_id}'s record {seq} did not adopt a publication from "
                         f"the floor")
    with journal.db.read() as conn:
        lost = [a for a in lost_adoptions(conn) if a.what == "publication"
                and a.floor_hashes == (str(said["hash"]),)]
    if not lost:
        raise AgainError(f"the floor still holds publication {said.get('seq')} that table "
                         f"{table_id}'s record {seq} adopted: nothing to publish again")
    content = dict(change.content)
    if config_version(canonical_json(content)) != change.version:
        raise AgainError(f"table {table_id}'s record {seq}: its content does not hash to "
                         f"version {change.version}")
    if group is None and not tables:
        tables = sorted({a.table for a in lost})
    return floor.publish(game=change.game, content=content, reason=reason, actor=actor,
                         group=group, tables=tables)


def users_again(floor: Floor, table_id: str, seq: int, *, actor: User,
                reason: str = "") -> tuple[str, bool]:
    """Journal again at the floor, from a table's own chained copy (its floor.adoption_lost
    record ``seq``), a user's facts the table adopted and the floor lost (``Users.adopt``
    under the operator's name, ``again_of`` naming the copy, with ``reason`` when one is
    given, as the pit asks for one). A PIN is never copied into a
    chain: a fact that set one comes back without it. Returns the user's id and whether a
    PIN must be set again at the floor."""
    from dealer_station.audit.journal import Copied
    from dealer_station.events.station import FloorAdoptionLost

    journal = floor.journal
    rec = table_copy(journal, table_id, seq)
    if rec.kind != FloorAdoptionLost.KIND:
        raise AgainError(f"table {table_id}'s record {seq} is a {rec.kind}, not a "
                         f"floor.adoption_lost (see floor versions)")
    lost = FloorAdoptionLost.from_payload(rec.payload)
    if lost.what == "publication":
        raise AgainError(f"table {table_id}'s record {seq} names a publication: publish it "
                         f"again from its config.change record {lost.copy.get('table_seq')}")
    with journal.db.read() as conn:
        if _held(conn, "station", lost.floor_seqs, lost.floor_hashes):
            raise AgainError(f"the floor still holds {lost.subject}'s records "
                             f"{list(lost.floor_seqs)}: nothing to publish again")
    facts: list[Copied] = []
    pin_lost = False
    for f in lost.copy.get("facts", []):
        payload = dict(f["payload"])
        if payload.get("pin_mac") is not None:
            payload["pin_mac"] = None
            pin_lost = True
        if f["kind"] == "login":
            continue            # a sign-in's new PIN: nothing else to copy
        facts.append(Copied(str(f["kind"]), payload, actor.actor))
    if not facts:
        raise AgainError(f"table {table_id}'s record {seq} holds no user facts to publish "
                         f"again")
    Users(journal).adopt(lost.subject, facts, actor=actor.actor, source={
        "again_of": {"table": table_id, "table_seq": seq, "table_hash": rec.hash,
                     "floor_seqs": list(lost.floor_seqs),
                     "floor_hashes": list(lost.floor_hashes)},
        "by": actor.actor, **({"reason": reason} if reason else {})})
    return lost.subject, pin_lost


def lost_words(lost: LostAdoption) -> str:
    """What was lost, in words: ``configuration 0955a1f54a59 (La Pair'e), published by
    olive/operator: no black tonight``; ``dana's user records``."""
    if lost.what == "publication":
        return (f"configuration {lost.subject[:12]} ({games.label(lost.game)}), published by "
                f"{lost.publisher or 'an operator'}" + (f": {lost.reason}" if lost.reason
                                                         else ""))
    return f"{lost.subject}'s user records"


def publish_lost_again(floor: Floor, lost: LostAdoption, user: User | None,
                       reason: str) -> str:
    """Publish again, as ``user`` (who must be an operator) with ``reason``, what a table
    adopted and the floor lost (the pit's *Publish again*); what was done, in words."""
    if user is None:
        raise PermissionDenied("an operator must sign in at the pit to publish again")
    operator = floor.operator(user.user_id)
    if not " ".join((reason or "").split()):
        raise PublishError("give a reason: it is journaled with your name")
    reason = check_reason(" ".join(reason.split()))
    if lost.what == "user":
        user_id, pin_lost = users_again(floor, lost.table, lost.table_seq, actor=operator,
                                        reason=reason)
        return (f"{user_id}'s records journaled again at the floor from table "
                f"{lost.table}'s record {lost.table_seq}; every table follows them"
                + (f". {user_id}'s PIN is in no chain: set it again at the floor"
                   if pin_lost else ""))
    pub = publish_again(floor, lost.table, lost.table_seq, reason=reason, actor=operator)
    return (f"published configuration {pub.version[:12]} again as floor record {pub.seq} to "
            f"{', '.join(pub.tables)}, from table {lost.table}'s record {lost.table_seq}")
