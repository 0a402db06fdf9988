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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

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
