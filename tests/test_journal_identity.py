"""Who may start a journal's users, which key may write it, and which journal an anchor names.

Run through the command line as a person (or an attacker with the database) would: a
journal whose station chain was deleted is not new; a wrong key file writes nothing; a second
journal under the same default key is not taken for the first one cut short.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import delete, func, select

from dealer_station.app import fast_hasher
from dealer_station.audit import schema
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal, WrongKey
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import STATION_STREAM
from dealer_station.cli.main import main

PIN = "2468"


def _cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
         args: list[str], pins: list[str] | None = None) -> tuple[int, str]:
    if pins is not None:
        import io
        monkeypatch.setattr("sys.stdin", io.StringIO("".join(p + "\n" for p in pins)))
    code = main(args)
    out = capsys.readouterr()
    return code, out.out + out.err


def _count(url: str, table: str | None = None) -> int:
    db = open_database(url, upgrade=False)
    try:
        with db.read() as conn:
            stmt = select(func.count()).select_from(schema.journal)
            if table is not None:
                stmt = stmt.where(schema.journal.c.table_id == table)
            return int(conn.execute(stmt).scalar_one())
    finally:
        db.close()


def _with_users(url: str, key: Path, capsys: pytest.CaptureFixture[str],
                monkeypatch: pytest.MonkeyPatch) -> list[str]:
    store = ["--db", url, "--key", str(key)]
    code, out = _cli(capsys, monkeypatch, ["users", "add", "olga", "--name", "Olga",
                                           "--role", "operator", "--pin-stdin", *store],
                     [PIN, PIN])
    assert code == 0, out
    code, out = _cli(capsys, monkeypatch, ["users", "add", "sue", "--name", "Sue", "--role",
                                           "supervisor", "--as", "olga", "--pin-stdin", *store],
                     [PIN, PIN, PIN])
    assert code == 0, out
    return store


@pytest.fixture(autouse=True)
def _quick_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    # argon2 at its production cost makes each sign-in take a second; the rules are the same.
    monkeypatch.setattr("dealer_station.audit.users.default_hasher", fast_hasher)


def _erase_station_chain(url: str, *, checkpoints: bool) -> None:
    """What someone with the database but not the key does: delete the station chain's
    records and the users rows (and, if asked, the checkpoints rows)."""
    db = open_database(url, upgrade=False)
    try:
        with db.write() as conn:
            conn.execute(delete(schema.journal).where(
                schema.journal.c.table_id == STATION_STREAM))
            conn.execute(delete(schema.users))
            if checkpoints:
                conn.execute(delete(schema.checkpoints))
    finally:
        db.close()


@pytest.mark.parametrize("checkpoints", [False, True])
def test_deleting_the_station_chain_does_not_open_the_first_user_door(
        db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, checkpoints: bool) -> None:
    key = tmp_path / "journal.key"
    store = _with_users(db_url, key, capsys, monkeypatch)
    _erase_station_chain(db_url, checkpoints=checkpoints)
    before = _count(db_url)
    code, out = _cli(capsys, monkeypatch, ["users", "add", "evil", "--name", "Evil",
                                           "--role", "operator", "--pin-stdin", *store],
                     [PIN, PIN])
    assert code == 2, out
    assert "cut off" in out and "Traceback" not in out
    assert _count(db_url) == before  # nothing was written
    code, out = _cli(capsys, monkeypatch, ["users", "list", *store])
    assert "evil" not in out


def test_a_journal_with_records_but_no_users_is_not_new(
        db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = ["--db", db_url, "--key", str(tmp_path / "journal.key")]
    code, out = _cli(capsys, monkeypatch, ["simulate", "--rounds", "2", "--seed", "1", *store])
    assert code == 0, out
    before = _count(db_url)
    code, out = _cli(capsys, monkeypatch, ["users", "add", "evil", "--name", "Evil",
                                           "--role", "operator", "--pin-stdin", *store],
                     [PIN, PIN])
    assert code == 2, out
    assert "not new" in out
    assert _count(db_url) == before


def test_every_record_deleted_is_still_caught_by_the_anchors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'journal.db'}"
    store = _with_users(url, tmp_path / "journal.key", capsys, monkeypatch)
    assert _cli(capsys, monkeypatch, ["simulate", "--rounds", "3", "--seed", "2",
                                      *store])[0] == 0
    conn = sqlite3.connect(tmp_path / "journal.db")
    for table in ("journal", "users", "checkpoints", "rounds", "meters"):
        conn.execute(f"DELETE FROM {table}")
    conn.commit()
    conn.close()
    code, out = _cli(capsys, monkeypatch, ["users", "add", "evil", "--name", "Evil",
                                           "--role", "operator", "--pin-stdin", *store],
                     [PIN, PIN])
    assert code == 2 and "has no records" in out and "cut off" in out, out
    code, out = _cli(capsys, monkeypatch, ["simulate", "--rounds", "1", *store])
    assert code == 2 and "new-key" in out, out
    assert _count(url) == 0


def test_a_wrong_key_file_writes_nothing(
        db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = _with_users(db_url, tmp_path / "journal.key", capsys, monkeypatch)
    assert _cli(capsys, monkeypatch, ["simulate", "--rounds", "2", "--seed", "3",
                                      *store])[0] == 0
    wrong = create_key(tmp_path / "other.key")
    bad = ["--db", db_url, "--key", str(wrong.path)]
    before = _count(db_url)
    code, out = _cli(capsys, monkeypatch, ["audit", "checkpoint", *bad])
    assert code == 2 and "is not the key of the journal" in out, out
    # A sign-in with the wrong key would journal login.failed and user.mismatch under it.
    code, out = _cli(capsys, monkeypatch, ["users", "unlock", "sue", "--as", "olga",
                                           "--reason", "test", "--pin-stdin", *bad], [PIN])
    assert code == 2 and "Traceback" not in out, out
    code, out = _cli(capsys, monkeypatch, ["simulate", "--rounds", "1", *bad])
    assert code == 2 and "is not the key of the journal" in out, out
    assert _count(db_url) == before
    assert not wrong.anchor_path.exists() or wrong.anchor_path.read_text() == ""
    code, out = _cli(capsys, monkeypatch, ["audit", "verify", *store])
    assert code == 0, out


def test_a_new_table_on_a_journal_proves_the_key_against_another_chain(
        sqlite_db_url: str, tmp_path: Path) -> None:
    db = open_database(sqlite_db_url)
    right = create_key(tmp_path / "right.key")
    Journal(db, right).append("T1", "startup", {}, "station")
    wrong = Journal(db, create_key(tmp_path / "wrong.key"))
    with pytest.raises(WrongKey, match="is not the key of the journal"):
        wrong.append("T2", "startup", {}, "station")
    with pytest.raises(WrongKey):
        wrong.checkpoint("T1", "sue/supervisor")
    with db.read() as conn:
        assert conn.execute(select(func.count()).select_from(schema.journal)).scalar() == 1
    db.close()


def test_a_second_journal_under_the_same_key_is_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = ["--key", str(tmp_path / "journal.key")]
    first = f"sqlite:///{tmp_path / 'first.db'}"
    other = f"sqlite:///{tmp_path / 'other.db'}"
    assert _cli(capsys, monkeypatch, ["simulate", "--rounds", "5", "--db", first, *key])[0] == 0
    code, out = _cli(capsys, monkeypatch, ["simulate", "--rounds", "5", "--db", other, *key])
    assert code == 0, out
    for url in (first, other):
        code, out = _cli(capsys, monkeypatch, ["audit", "verify", "--db", url, *key])
        assert code == 0, out
    # The first journal cut back: the anchors still name it.
    conn = sqlite3.connect(tmp_path / "first.db")
    conn.execute("DELETE FROM journal WHERE seq > 3")
    conn.execute("DELETE FROM checkpoints")
    conn.commit()
    conn.close()
    code, out = _cli(capsys, monkeypatch, ["audit", "verify", "--db", first, *key])
    assert code == 1 and "truncated" in out, out
    code, out = _cli(capsys, monkeypatch, ["audit", "verify", "--db", other, *key])
    assert code == 0, out
