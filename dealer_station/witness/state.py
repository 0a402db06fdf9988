"""The witness's state: one SQLite file.

- ``origins``: per origin, the latest cosigned checkpoint (size, root, the note with the
  station's signature and the cosignature, the cosignature line, the trusted key the origin is
  bound to, the time);
- ``cosigned``: every checkpoint cosigned, per origin and size, in order;
- ``refused``: every refused request kept whole (origin, size, time, status, reason, body);
- ``meta``: the schema's version and the witness's public key, so that a state is never served
  under another witness's key.

Deciding a request and persisting what was decided happen in one transaction taken with
``BEGIN IMMEDIATE`` (the write lock before the first read), committed (WAL,
``synchronous=FULL``) before the answer is sent. Two requests for one origin therefore cannot
both check against the same stored size, and a smaller size can never overwrite a larger one;
a trigger refuses that too, whatever the code above it does.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dealer_station.witness.checks import Latest
from dealer_station.witness.errors import WitnessError
from dealer_station.witness.wire import HistoryEntry, RefusalEntry

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE origins (
    origin TEXT PRIMARY KEY,
    size INTEGER NOT NULL CHECK (size >= 0),
    root BLOB NOT NULL CHECK (length(root) = 32),
    note TEXT NOT NULL,
    cosignature TEXT NOT NULL,
    key TEXT NOT NULL,
    time INTEGER NOT NULL
);
CREATE TABLE cosigned (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    size INTEGER NOT NULL,
    root BLOB NOT NULL,
    note TEXT NOT NULL,
    time INTEGER NOT NULL,
    UNIQUE (origin, size)
);
CREATE TABLE refused (
    id INTEGER PRIMARY KEY,
    origin TEXT,
    size INTEGER,
    time INTEGER NOT NULL,
    status INTEGER NOT NULL,
    reason TEXT NOT NULL,
    body BLOB NOT NULL
);
CREATE INDEX refused_by_origin ON refused (origin, id);
CREATE TRIGGER origins_never_shrink BEFORE UPDATE OF size ON origins
WHEN NEW.size < OLD.size
BEGIN
    SELECT RAISE(ABORT, 'a witness never rolls an origin back to a smaller size');
END;
CREATE TRIGGER origins_keep_their_root BEFORE UPDATE OF root ON origins
WHEN NEW.size = OLD.size AND NEW.root != OLD.root
BEGIN
    SELECT RAISE(ABORT, 'a witness never cosigns two roots for one size');
END;
"""


@dataclass(frozen=True)
class Refusal:
    """A refused request as kept: the evidence."""

    id: int
    origin: str | None
    size: int | None
    time: int
    status: int
    reason: str
    body: bytes

    def entry(self) -> RefusalEntry:
        return RefusalEntry(self.time, self.status, self.size, self.reason)


class Transaction:
    """The reads and writes of one ``add-checkpoint``, inside ``BEGIN IMMEDIATE``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def latest(self, origin: str) -> Latest | None:
        return _latest(self._conn, origin)

    def cosigned(self, origin: str, size: int, root: bytes, note: str, cosignature: str,
                 key: str, time: int) -> None:
        """Make this the origin's latest checkpoint, and add it to the history the first time
        its size is cosigned."""
        self._conn.execute(
            "INSERT INTO origins (origin, size, root, note, cosignature, key, time) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET size = excluded.size, "
            "root = excluded.root, note = excluded.note, cosignature = excluded.cosignature, "
            "key = excluded.key, time = excluded.time",
            (origin, size, root, note, cosignature, key, time))
        self._conn.execute(
            "INSERT INTO cosigned (origin, size, root, note, time) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (origin, size) DO NOTHING", (origin, size, root, note, time))

    def refused(self, origin: str | None, size: int | None, time: int, status: int,
                reason: str, body: bytes) -> None:
        self._conn.execute(
            "INSERT INTO refused (origin, size, time, status, reason, body) "
            "VALUES (?, ?, ?, ?, ?, ?)", (origin, size, time, status, reason, body))


def _latest(conn: sqlite3.Connection, origin: str) -> Latest | None:
    row = conn.execute("SELECT size, root, note, cosignature, key, time FROM origins "
                       "WHERE origin = ?", (origin,)).fetchone()
    if row is None:
        return None
    return Latest(origin, int(row[0]), bytes(row[1]), str(row[2]), str(row[3]), str(row[4]),
                  int(row[5]))


class WitnessState:
    """The state file, shared by the service's threads (a connection each at a time)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pool: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        # Writers of this process queue here rather than in SQLite's busy handler, whose
        # sleeps grow to 100 ms; BEGIN IMMEDIATE still orders them with any other process.
        self._writer = threading.Lock()
        #: The public key (vkey) of the witness this state belongs to.
        self.witness_key = ""

    # --- opening --------------------------------------------------------------------------

    @classmethod
    def create(cls, path: Path, witness_vkey: str) -> WitnessState:
        """A new state file; refuses to touch one that exists."""
        if path.exists():
            raise WitnessError(f"the witness state {path} already exists; refusing to replace "
                               f"it (it holds what this witness has cosigned)")
        state = cls(path)
        try:
            with state._connection() as conn:
                conn.execute("PRAGMA journal_mode = WAL")
                # One transaction: the script begins it and the meta rows end it.
                conn.executescript("BEGIN IMMEDIATE;\n" + _SCHEMA)
                conn.execute("INSERT INTO meta VALUES ('schema', ?), ('witness_key', ?)",
                             (SCHEMA_VERSION, witness_vkey))
                conn.execute("COMMIT")
        except sqlite3.Error as exc:
            state.close()
            path.unlink(missing_ok=True)
            raise WitnessError(f"cannot create the witness state {path}: {exc}") from None
        state.witness_key = witness_vkey
        return state

    @classmethod
    def open(cls, path: Path) -> WitnessState:
        """An existing state file, checked to be one."""
        if not path.is_file():
            raise WitnessError(f"no witness state at {path} (make one with "
                               f"`dealer-station witness init --state {path.parent}`)")
        state = cls(path)
        try:
            with state._connection() as conn:
                rows = dict(conn.execute("SELECT name, value FROM meta").fetchall())
        except sqlite3.Error as exc:
            state.close()
            raise WitnessError(f"{path} is not a witness state: {exc}") from None
        if rows.get("schema") != SCHEMA_VERSION or "witness_key" not in rows:
            state.close()
            raise WitnessError(f"{path} is not a witness state of this version "
                               f"(schema {rows.get('schema')!r}, expected {SCHEMA_VERSION})")
        state.witness_key = str(rows["witness_key"])
        return state

    # --- connections ----------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        # Autocommit mode: every transaction below is begun and committed explicitly.
        conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                               check_same_thread=False)
        conn.execute("PRAGMA synchronous = FULL")
        return conn

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            conn = self._pool.get_nowait()
        except queue.Empty:
            conn = self._connect()
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._pool.put(conn)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: the write lock is held from the first read, and
        the commit is durable when this block ends."""
        with self._writer, self._connection() as conn:
            conn.execute("BEGIN IMMEDIATE")
            yield Transaction(conn)
            conn.execute("COMMIT")

    def close(self) -> None:
        """Close the idle connections (one a request still holds is left to the process's
        end: what it has not committed is rolled back then)."""
        while True:
            try:
                conn = self._pool.get_nowait()
            except queue.Empty:
                break
            conn.close()

    # --- reading --------------------------------------------------------------------------

    def latest(self, origin: str) -> Latest | None:
        with self._connection() as conn:
            return _latest(conn, origin)

    def origins(self) -> list[str]:
        with self._connection() as conn:
            return [str(r[0]) for r in conn.execute("SELECT origin FROM origins ORDER BY 1")]

    def history(self, origin: str) -> list[HistoryEntry]:
        """Every checkpoint cosigned for the origin, oldest first."""
        with self._connection() as conn:
            rows = conn.execute("SELECT size, root, time FROM cosigned WHERE origin = ? "
                                "ORDER BY id", (origin,)).fetchall()
        return [HistoryEntry(int(s), bytes(r), int(t)) for s, r, t in rows]

    def refusals(self, origin: str | None) -> list[Refusal]:
        """The refused requests naming the origin (None: those whose origin could not be
        read), oldest first, whole."""
        with self._connection() as conn:
            rows = conn.execute("SELECT id, origin, size, time, status, reason, body "
                                "FROM refused WHERE origin IS ? ORDER BY id",
                                (origin,)).fetchall()
        return [Refusal(int(i), o, s, int(t), int(st), str(r), bytes(b))
                for i, o, s, t, st, r, b in rows]
