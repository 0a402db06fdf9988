"""A tournament's chain is verified before it is read or added to, and on a journal with users
a tournament is changed only by a supervisor or operator who signs in with a PIN."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from dealer_station.app import fast_hasher
from dealer_station.cli.main import main

PIN = "2468"


@pytest.fixture(autouse=True)
def _quick_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("dealer_station.audit.users.default_hasher", fast_hasher)


def _run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, store: list[str],
         *args: str, pins: str = "") -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(pins))
    code = main(["tournament", *args, *store])
    out = capsys.readouterr()
    return code, out.out + out.err


def _count(db: Path, stream: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM journal WHERE table_id = ?",
                                (stream,)).fetchone()[0])


def _tournament(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                monkeypatch: pytest.MonkeyPatch) -> list[str]:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]
    assert _run(capsys, monkeypatch, store, "create", "spring", "--game", "rummy",
                "--seed", "1")[0] == 0
    for p in ("amy", "bea", "cat", "dee", "eve"):
        assert _run(capsys, monkeypatch, store, "register", "spring", p)[0] == 0
    assert _run(capsys, monkeypatch, store, "start", "spring")[0] == 0
    return store


def test_a_tail_cut_tournament_chain_is_neither_read_nor_added_to(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = _tournament(tmp_path, capsys, monkeypatch)
    db = tmp_path / "j.db"
    with sqlite3.connect(db) as conn:
        top = conn.execute("SELECT max(seq) FROM journal WHERE table_id='tournament-spring'"
                           ).fetchone()[0]
        conn.execute("DELETE FROM journal WHERE table_id='tournament-spring' AND seq = ?",
                     (top,))
        conn.execute("DELETE FROM checkpoints")
    before = _count(db, "tournament-spring")
    code, out = _run(capsys, monkeypatch, store, "disqualify", "spring", "amy",
                     "--reason", "foul language")
    assert code == 2 and "cut off" in out, out
    assert _count(db, "tournament-spring") == before


def test_figures_are_never_printed_from_a_record_that_fails_its_hash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = _tournament(tmp_path, capsys, monkeypatch)
    with sqlite3.connect(tmp_path / "j.db") as conn:
        conn.execute("UPDATE journal SET payload = replace(payload, '\"amy\"', '\"ann\"') "
                     "WHERE table_id='tournament-spring'")
    for action in ("status", "standings"):
        code, out = _run(capsys, monkeypatch, store, action, "spring")
        assert code == 2 and "does not verify" in out, out
        assert "ann" not in out


def test_on_a_journal_with_users_a_supervisor_signs_in(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]
    for args, pins in ((["olga", "--name", "Olga", "--role", "operator"], f"{PIN}\n{PIN}\n"),
                       (["sue", "--name", "Sue", "--role", "supervisor", "--as", "olga"],
                        f"{PIN}\n{PIN}\n{PIN}\n"),
                       (["dan", "--name", "Dan", "--role", "dealer", "--as", "olga"],
                        f"{PIN}\n{PIN}\n{PIN}\n")):
        monkeypatch.setattr("sys.stdin", io.StringIO(pins))
        assert main(["users", "add", *args, "--pin-stdin", *store]) == 0
    capsys.readouterr()
    create = ("create", "spring", "--game", "rummy")
    code, out = _run(capsys, monkeypatch, store, *create, "--by", "opal/operator")
    assert code == 2 and "--as USER" in out
    code, out = _run(capsys, monkeypatch, store, *create)
    assert code == 2 and "sign in" in out
    code, out = _run(capsys, monkeypatch, store, *create, "--as", "sue", "--pin-stdin",
                     pins="9999\n")
    assert code == 2 and "Traceback" not in out
    code, out = _run(capsys, monkeypatch, store, *create, "--as", "dan", "--pin-stdin",
                     pins=f"{PIN}\n")
    assert code == 2 and "supervisor or operator" in out
    assert _count(tmp_path / "j.db", "tournament-spring") == 0
    code, out = _run(capsys, monkeypatch, store, *create, "--as", "sue", "--pin-stdin",
                     pins=f"{PIN}\n")
    assert code == 0, out
    with sqlite3.connect(tmp_path / "j.db") as conn:
        actors = {a for (a,) in conn.execute(
            "SELECT actor FROM journal WHERE table_id='tournament-spring'")}
    assert actors == {"sue/supervisor"}
