"""One writer per table: the table lease.

A table's rounds are numbered and dealt by one station at a time. A second station or
``simulate`` on the same table of the same database is refused, naming who holds it. The lease
is a lock that the operating system or the database server drops by itself when its holder
dies, so a takeover needs no guess about whether the holder crashed: once the lock can be
taken, the holder is proven gone.

- SQLite: an exclusive ``flock`` on ``<database file>.<table>.lock`` beside the database (the
  kernel releases it when the process exits, however it exits). The file names the holder.
- PostgreSQL: a session-level advisory lock held on a connection of its own for the life of
  the table service (the server releases it when that connection or its process dies). The
  connection's ``application_name`` names the holder.

Within one process, a new table service for a table this process already holds takes the
lease over (the earlier object is revoked and refuses to write): a process is one station.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text

from dealer_station.audit.db import Database
from dealer_station.errors import StationError

#: Table ids that name chains of their own and are never a table.
RESERVED_TABLE_IDS = frozenset({"station"})
_PG_APP_PREFIX = "dealer-station table "


class TableInUse(StationError):
    """Another station holds this table's lease."""


class LeaseLost(StationError):
    """This table service no longer holds its table's lease."""


@dataclass
class _Held:
    """The operating-system or server lock behind a lease, shared on a takeover."""

    release: Any
    released: bool = False


@dataclass(eq=False)
class TableLease:
    table_id: str
    holder: str
    _held: _Held = field(repr=False)
    revoked: str | None = None

    @property
    def valid(self) -> bool:
        return self.revoked is None and not self._held.released

    def check(self) -> None:
        if self.revoked is not None:
            raise LeaseLost(f"table {self.table_id}: {self.revoked}; nothing was written")
        if self._held.released:
            raise LeaseLost(f"table {self.table_id}: this station has closed the table; "
                            f"nothing was written")

    def release(self) -> None:
        with _registry_lock:
            if self.revoked is not None or self._held.released:
                return
            self._held.released = True
            for key, lease in list(_registry.items()):
                if lease is self:
                    del _registry[key]
        with contextlib.suppress(Exception):
            self._held.release()


_registry: dict[tuple[str, str], TableLease] = {}
_registry_lock = threading.Lock()


def describe_holder() -> str:
    started = datetime.now(UTC).isoformat(timespec="seconds")
    return f"pid {os.getpid()} on {socket.gethostname()} since {started}"


def acquire_lease(db: Database, table_id: str) -> TableLease:
    """Take the table's lease, or raise :class:`TableInUse` naming who holds it."""
    if table_id in RESERVED_TABLE_IDS:
        raise StationError(f"{table_id!r} is not a table id: it names the chain of "
                           f"station-wide events; choose another table id")
    key = (db.url, table_id)
    holder = describe_holder()
    with _registry_lock:
        mine = _registry.get(key)
        if mine is not None and mine.valid:
            # This process already holds it: the new table service takes it over.
            mine.revoked = ("another table service in this station took the table over")
            lease = TableLease(table_id, holder, mine._held)
            _registry[key] = lease
            return lease
        held = _pg_lock(db, table_id, holder) if db.dialect == "postgresql" else \
            _file_lock(db, table_id, holder)
        lease = TableLease(table_id, holder, held)
        _registry[key] = lease
        return lease


def _file_lock(db: Database, table_id: str, holder: str) -> _Held:
    database = db.engine.url.database
    if not database or database == ":memory:" or db.engine.url.query.get("mode") == "memory":
        return _Held(release=lambda: None)  # a private in-memory database has one writer
    path = Path(f"{database}.{table_id}.lock")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise StationError(f"cannot open the lock file {path} for table {table_id}: "
                           f"{e.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            who = os.read(fd, 400).decode("utf-8", "replace").strip() or "another process"
        finally:
            os.close(fd)
        raise TableInUse(f"table {table_id} is in use by another station ({who}) on "
                         f"{db.url}: one station writes a table at a time. Close that "
                         f"station first; if it crashed, its lock is already gone") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{holder}\n".encode(), 0)

    def release() -> None:
        os.close(fd)  # closing drops the flock

    return _Held(release=release)


def _pg_lock(db: Database, table_id: str, holder: str) -> _Held:
    conn = db.engine.connect()
    try:
        conn.execute(text("SELECT set_config('application_name', :n, false)"),
                     {"n": f"{_PG_APP_PREFIX}{table_id}: {holder}"[:63]})
        got = conn.execute(text("SELECT pg_try_advisory_lock(hashtextextended(:k, 0))"),
                           {"k": f"dealer-station/table/{table_id}"}).scalar_one()
        conn.commit()
        if not got:
            who = conn.execute(text(
                "SELECT application_name, client_addr, backend_start FROM pg_stat_activity "
                "WHERE application_name LIKE :p AND pid <> pg_backend_pid()"),
                {"p": f"{_PG_APP_PREFIX}{table_id}:%"}).first()
            conn.rollback()
            detail = (f"{who[0][len(_PG_APP_PREFIX):]}, from {who[1] or 'local'}"
                      if who is not None else "another session")
            raise TableInUse(f"table {table_id} is in use by another station ({detail}) on "
                             f"{db.url}: one station writes a table at a time. Close that "
                             f"station first; if it crashed, the server has already "
                             f"released its lock")
    except BaseException:
        conn.close()
        raise

    def release() -> None:
        try:
            conn.execute(text("SELECT pg_advisory_unlock(hashtextextended(:k, 0))"),
                         {"k": f"dealer-station/table/{table_id}"})
            conn.commit()
        finally:
            conn.close()

    return _Held(release=release)
