"""Opening the database: migrations, SQLite settings, and clear errors for bad places."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, event, text

from dealer_station.audit import schema
from dealer_station.audit.db import (
    HEAD_REVISION,
    DatabaseError,
    current_revision,
    default_db_url,
    head_revision,
    mask_url,
    open_database,
)
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key


def test_fresh_database_is_at_head_and_matches_the_schema(db_url: str) -> None:
    db = open_database(db_url)
    with db.read() as conn:
        assert current_revision(conn) == head_revision()
        # The migrations build exactly the tables the code declares.
        diff = compare_metadata(MigrationContext.configure(conn), schema.metadata)
    db.close()
    assert diff == []


def test_the_head_revision_named_in_code_is_the_migrations_head() -> None:
    """A new migration must name itself in HEAD_REVISION, or a database at the old head would
    be taken as current and never upgraded."""
    assert head_revision() == HEAD_REVISION


def test_opening_an_existing_database_is_a_no_op(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'j.db'}"
    db = open_database(url)
    j = Journal(db, create_key(tmp_path / "k.key"))
    j.append("T1", "startup", {}, "station")
    db.close()

    def schema_sql() -> list[tuple[str, str]]:
        conn = sqlite3.connect(tmp_path / "j.db")
        try:
            return conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
        finally:
            conn.close()

    before = schema_sql()
    statements: list[str] = []

    def log(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        statements.append(statement)

    # Listen on every engine, so the statements open_database itself runs are seen.
    event.listen(Engine, "before_cursor_execute", log)
    try:
        db = open_database(url)
        assert Journal(db, j.key).last("T1").seq == 1  # type: ignore[union-attr]
        db.close()
    finally:
        event.remove(Engine, "before_cursor_execute", log)
    assert schema_sql() == before
    assert any("alembic_version" in s for s in statements)  # it did look
    assert not any(s.lstrip().upper().startswith(("CREATE", "ALTER", "DROP", "INSERT",
                                                  "UPDATE")) for s in statements)


@pytest.mark.postgres
def test_open_on_existing_postgresql_database_changes_nothing(pg_db_url: str) -> None:
    open_database(pg_db_url).close()
    db = open_database(pg_db_url)
    with db.read() as conn:
        tables = sorted(conn.execute(text(
            "SELECT tablename FROM pg_tables WHERE schemaname='public'")).scalars())
    db.close()
    assert tables == ["alembic_version", "checkpoints", "config_versions", "cosignatures",
                      "floor_refusals", "floor_tables", "journal", "merkle_nodes", "meters",
                      "rounds", "signed_checkpoints", "users"]


def test_sqlite_runs_wal_with_full_synchronous_commits(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    with db.read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 1000
    db.close()


def test_parent_folders_are_created(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "journal.db"
    open_database(f"sqlite:///{path}").close()
    assert path.exists()


def test_default_url(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DEALER_STATION_DB", f"sqlite:///{tmp_path / 'x.db'}")
    assert default_db_url() == f"sqlite:///{tmp_path / 'x.db'}"
    monkeypatch.delenv("DEALER_STATION_DB")
    assert default_db_url().startswith("sqlite:///")
    assert default_db_url().endswith("dealer-station/journal.db")


@pytest.mark.parametrize("url, words", [
    ("not a url", "not a database URL"),
    ("mysql://u:secret@h/db", "unsupported database"),
    ("oracle+nope://u:secret@h/db", "unsupported database"),
])
def test_bad_urls_are_named_with_password_masked(url: str, words: str) -> None:
    with pytest.raises(DatabaseError) as err:
        open_database(url)
    assert words in str(err.value)
    assert "secret" not in str(err.value)


def test_unreachable_server_is_a_clear_error() -> None:
    # Port 1 on loopback: nothing listens, the connection is refused at once.
    with pytest.raises(DatabaseError) as err:
        open_database("postgresql+psycopg://station:hunter2@127.0.0.1:1/journal")
    message = str(err.value)
    assert message.startswith("cannot open database postgresql+psycopg://station:***@127.0.0.1:1")
    assert "hunter2" not in message


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_folder(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(DatabaseError, match="not writable"):
        open_database(f"sqlite:///{locked / 'j.db'}")


def test_a_folder_in_the_way_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(DatabaseError, match="cannot create the folder"):
        open_database(f"sqlite:///{tmp_path / 'file' / 'sub' / 'j.db'}")


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    (tmp_path / "j.db").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatabaseError, match="cannot open database"):
        open_database(f"sqlite:///{tmp_path / 'j.db'}")


def test_read_only_open_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="no journal database"):
        open_database(f"sqlite:///{tmp_path / 'none.db'}", upgrade=False)
    assert not (tmp_path / "none.db").exists()
    sqlite3.connect(tmp_path / "empty.db").close()
    with pytest.raises(DatabaseError, match="holds no journal"):
        open_database(f"sqlite:///{tmp_path / 'empty.db'}", upgrade=False)


def test_a_database_from_a_newer_station_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'j.db'}"
    open_database(url).close()
    conn = sqlite3.connect(tmp_path / "j.db")
    conn.execute("UPDATE alembic_version SET version_num='9999_future'")
    conn.commit()
    conn.close()
    with pytest.raises(DatabaseError, match="newer station"):
        open_database(url)


def test_mask_url() -> None:
    assert mask_url("postgresql+psycopg://u:pw@h:5432/d") == "postgresql+psycopg://u:***@h:5432/d"
    assert "pw" not in mask_url("postgresql+psycopg://u:pw@h:bad-port/d")


def test_plain_postgresql_scheme_uses_psycopg(pg_db_url: str) -> None:
    db = open_database(pg_db_url.replace("postgresql+psycopg://", "postgresql://"))
    assert db.engine.dialect.driver == "psycopg"
    db.close()


def test_acknowledged_records_survive_kill_9(tmp_path: Path) -> None:
    """A writer killed mid-stream loses nothing it had acknowledged and leaves a whole chain."""
    import signal
    import subprocess
    import sys

    url = f"sqlite:///{tmp_path / 'j.db'}"
    key = create_key(tmp_path / "k.key")
    code = (
        "import sys\n"
        "from dealer_station.audit.db import open_database\n"
        "from dealer_station.audit.journal import Journal\n"
        "from dealer_station.audit.keys import load_key\n"
        f"j = Journal(open_database({url!r}), load_key({str(key.path)!r}))\n"
        "while True:\n"
        "    r = j.append('T1', 'wager', {'amount': 500}, 'ann/dealer')\n"
        "    print(r.seq, flush=True)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acknowledged = 0
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged >= 150:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    db = open_database(url)
    j = Journal(db, key)
    [result] = j.verify()
    db.close()
    assert result.ok, result
    assert result.last_seq >= acknowledged
