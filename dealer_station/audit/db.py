"""Opening the journal database: SQLite by default, PostgreSQL on a floor.

SQLite runs in WAL mode with ``synchronous=FULL`` (a commit is on disk before it returns),
foreign keys on and a busy timeout; a writing transaction starts with ``BEGIN IMMEDIATE`` so
two writers queue for the lock instead of one failing halfway. The schema is brought to the
newest Alembic revision on open.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import Connection, Engine, create_engine, event, exc, make_url, text
from sqlalchemy.engine import URL

from dealer_station.errors import StationError

DB_ENV = "DEALER_STATION_DB"
DB_FILE_NAME = "journal.db"
SQLITE_BUSY_TIMEOUT_MS = 10_000
_MIGRATIONS = "dealer_station.audit:migrations"


class DatabaseError(StationError):
    """The journal database cannot be opened or used."""


def db_reason(e: exc.DBAPIError) -> str:
    """The driver's one-line reason for a failure, for a person to read."""
    text_ = str(e.orig).strip() if e.orig is not None else str(e)
    return text_.splitlines()[0] if text_ else type(e).__name__


def default_db_url() -> str:
    """``$DEALER_STATION_DB``, else a SQLite file in the platform's per-user data folder."""
    env = os.environ.get(DB_ENV)
    if env:
        return env
    path = Path(platformdirs.user_data_dir("dealer-station")) / DB_FILE_NAME
    return f"sqlite:///{path}"


def mask_url(url: str | URL) -> str:
    """A URL fit to print: any password replaced by ``***``."""
    if isinstance(url, URL):
        return url.render_as_string(hide_password=True)
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # unparseable: mask what looks like user:password@
        return re.sub(r"(//[^:/@]*:)[^@]*@", r"\1***@", url)


@dataclass(frozen=True)
class Database:
    """An open journal database."""

    engine: Engine
    url: str
    """The URL with any password masked: safe to show."""

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @contextmanager
    def write(self) -> Iterator[Connection]:
        """A transaction that will write: commits on success, rolls back on any exception.

        On SQLite it takes the write lock at BEGIN, so reads made inside it (the chain's last
        record) cannot be overtaken by another writer.
        """
        with self.engine.connect() as conn:
            if self.is_sqlite:
                conn = conn.execution_options(sqlite_immediate=True)
            with conn.begin():
                yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction (a consistent snapshot on both databases)."""
        with self.engine.connect() as conn, conn.begin():
            yield conn

    def close(self) -> None:
        self.engine.dispose()


def _sqlite_events(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module (it would otherwise begin lazily
        # and never IMMEDIATE); SQLAlchemy's "begin" event below emits BEGIN itself.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        _set_wal(cur)
        cur.execute("PRAGMA synchronous = FULL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get("sqlite_immediate", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _set_wal(cur: Any) -> None:
    """Switch to WAL. On a new file opened by several connections at once the switch can find
    the file locked without SQLite's busy handler waiting, so it is retried for as long as the
    busy timeout allows."""
    import sqlite3
    import time

    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _prepare_sqlite_file(url: URL, shown: str, *, create: bool) -> None:
    database = url.database
    if not database or database == ":memory:" or url.query.get("mode") == "memory":
        return
    path = Path(database)
    if not path.exists():
        if not create:
            raise DatabaseError(f"no journal database at {shown} (file {path} does not exist)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DatabaseError(f"cannot create the folder for database {shown}: "
                                f"{e.strerror}; choose another place with --db") from None
        if not os.access(path.parent, os.W_OK):
            raise DatabaseError(f"cannot create database {shown}: folder {path.parent} is not "
                                f"writable; choose another place with --db")
        try:
            # Created empty and private before SQLite opens it: SQLite gives its -wal and
            # -shm files the same mode as the database file.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
        except OSError as e:
            raise DatabaseError(f"cannot create database {shown}: {e.strerror}") from None
    elif create and not os.access(path, os.W_OK):
        raise DatabaseError(f"database file {path} is not writable ({shown})")
    if create:
        restrict_modes(path)


def restrict_modes(path: Path) -> None:
    """Make the database file and its -wal and -shm files readable by their owner only
    (PIN hashes and the whole journal are in them), where this process owns them."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        try:
            info = p.stat()
            if info.st_uid == os.getuid() and info.st_mode & 0o077:
                os.chmod(p, info.st_mode & 0o700)
        except OSError:
            continue


def open_database(url: str | None = None, *, upgrade: bool = True,
                  schema_checked: bool = False) -> Database:
    """Open (and by default create or upgrade to the newest schema) the journal database.

    ``url`` is a SQLAlchemy URL (``sqlite:////abs/path.db``,
    ``postgresql+psycopg://user:pw@host/db``); ``None`` means :func:`default_db_url`.
    With ``upgrade=False`` nothing is created or changed (for verification of a copy): a
    missing SQLite file is an error and the schema must already be there.
    ``schema_checked``: another process of this station has just opened it (a report's
    verification range): its schema is not looked up again (the migration tool's import alone
    is a tenth of a second).
    """
    raw = url if url is not None else default_db_url()
    shown = mask_url(raw)
    try:
        parsed = make_url(raw)
    except exc.ArgumentError:
        raise DatabaseError(f"not a database URL: {shown!r}; expected e.g. "
                            f"sqlite:////path/to/journal.db or "
                            f"postgresql+psycopg://user:password@host/dbname") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")  # the driver we ship
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise DatabaseError(f"unsupported database {shown!r}: use sqlite or "
                            f"postgresql+psycopg")
    if backend == "sqlite":
        _prepare_sqlite_file(parsed, shown, create=upgrade)
    kwargs: dict[str, Any] = {}
    if backend == "postgresql":
        kwargs["pool_pre_ping"] = True
        # An unreachable server fails in seconds with a clear message instead of hanging.
        kwargs["connect_args"] = {"connect_timeout": 10}
    try:
        engine = create_engine(parsed, **kwargs)
    except (exc.ArgumentError, exc.NoSuchModuleError, ImportError) as e:
        raise DatabaseError(f"cannot use database URL {shown!r}: {e}") from None
    if backend == "sqlite":
        _sqlite_events(engine)
    db = Database(engine=engine, url=shown)
    try:
        if upgrade:
            upgrade_to_head(db)
        elif not schema_checked:
            check_schema(db)
    except exc.DBAPIError as e:
        engine.dispose()
        raise DatabaseError(f"cannot open database {shown}: {db_reason(e)}") from None
    except BaseException:
        engine.dispose()
        raise
    return db


def _alembic_config(conn: Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", _MIGRATIONS)
    config.attributes["connection"] = conn
    return config


def _script_directory() -> Any:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", _MIGRATIONS)
    return ScriptDirectory.from_config(config)


def head_revision() -> str:
    head: str | None = _script_directory().get_current_head()
    if head is None:
        raise DatabaseError("the station's schema migrations are missing (broken install)")
    return head


#: The newest migration's revision (tests/test_journal_db.py holds it to the migrations' head).
#: A database already there is opened without importing the migration tool or reading its
#: scripts: a fifth of a second that every station, command and simulation paid at start.
HEAD_REVISION = "0005_cage_roles"


def current_revision(conn: Connection) -> str | None:
    """The database's schema revision (None: no schema), read as the migration tool keeps it."""
    if conn.dialect.name == "sqlite":
        found = conn.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                                     "AND name = 'alembic_version'").first()
    else:
        found = conn.exec_driver_sql("SELECT to_regclass('alembic_version')").scalar()
    if not found:
        return None
    rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
    if len(rows) == 1:
        return str(rows[0][0])
    from alembic.runtime.migration import MigrationContext  # none or several: its own say

    return MigrationContext.configure(conn).get_current_revision()


def _check_not_newer(db: Database, current: str | None, head: str) -> None:
    if current is None or current == head:
        return
    try:
        _script_directory().get_revision(current)
    except Exception:
        raise DatabaseError(
            f"database {db.url} has schema revision {current}, which this station does not "
            f"know (newest here: {head}); it was written by a newer station: upgrade this "
            f"station's software") from None


def upgrade_to_head(db: Database) -> None:
    """Run the Alembic migrations up to the newest revision; a no-op when already there."""
    with db.read() as conn:
        current = current_revision(conn)
    if current == HEAD_REVISION:
        return
    head = head_revision()
    if current == head:
        return
    _check_not_newer(db, current, head)
    from alembic import command

    with db.write() as conn:
        if db.dialect == "postgresql":
            # Two stations starting at once on a fresh floor database: one migrates, the other
            # waits and then finds the schema at head.
            conn.execute(text("SELECT pg_advisory_xact_lock(7193)"))
        if current_revision(conn) != head:
            command.upgrade(_alembic_config(conn), "head")


def check_schema(db: Database) -> None:
    """Refuse a database that has no journal schema (without creating one)."""
    with db.read() as conn:
        current = current_revision(conn)
    if current is None:
        raise DatabaseError(f"database {db.url} holds no journal (no schema); is this the "
                            f"right --db?")
    if current != HEAD_REVISION:
        _check_not_newer(db, current, head_revision())
