"""Users are what the chain establishes: someone with the database but not the journal key
cannot change who may act. Every test runs on a SQLite file and on the PostgreSQL cluster."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from argon2.exceptions import VerificationError
from sqlalchemy import text

from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.users import (
    AuthError,
    LockedOut,
    PermissionDenied,
    PinResetRequired,
    User,
    UserMismatch,
    Users,
)
from dealer_station.cli.main import main

FAST = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)
# Dearer, so that parallel attempts really overlap in the PIN check.
SLOWER = PasswordHasher(time_cost=1, memory_cost=4096, parallelism=1)


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = open_database(db_url)
    yield database
    database.close()


@pytest.fixture
def key(tmp_path: Path) -> JournalKey:
    return create_key(tmp_path / "journal.key")


@pytest.fixture
def journal(db: Database, key: JournalKey) -> Journal:
    return Journal(db, key)


def setup_users(journal: Journal, hasher: PasswordHasher = FAST, **options: Any
                ) -> tuple[Users, User]:
    users = Users(journal, hasher=hasher, **options)
    users.add("olga", "Olga Operator", "operator", "9753", actor="console:root")
    olga = users.authenticate("olga", "9753")
    users.add("sue", "Sue Supervisor", "supervisor", "2468", actor=olga)
    users.add("ann", "Ann Dealer", "dealer", "1357", actor=olga)
    return users, olga


def sql(db: Database, statement: str, **params: Any) -> None:
    with db.write() as conn:
        conn.execute(text(statement), params)


def events(journal: Journal, kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in journal.events(kinds=[kind])]


def test_a_role_raised_in_the_users_table_is_refused_and_named(db: Database,
                                                                journal: Journal) -> None:
    users, _ = setup_users(journal)
    sql(db, "UPDATE users SET role = 'supervisor' WHERE user_id = 'ann'")
    with pytest.raises(UserMismatch, match="user ann: role is 'supervisor' in the users table "
                                           "but the journal says 'dealer'"):
        users.authenticate("ann", "1357", table_id="T1")
    with pytest.raises(UserMismatch, match="user ann: role"):
        users.get("ann")
    problems = users.check_projection()
    assert len(problems) == 1
    assert problems[0].startswith("user ann: role is 'supervisor' in the users table but the "
                                  "journal says 'dealer' (station record ")
    assert "user.add" in problems[0]
    # Reported as a significant event, and nobody signed in.
    mismatch = events(journal, "user.mismatch")
    assert mismatch and mismatch[0]["user_id"] == "ann" and mismatch[0]["field"] == "role"
    assert not [e for e in journal.events("T1") if e.kind == "login"]
    # The chain itself is intact: the projection is what verify must report (this call).
    assert all(r.ok for r in journal.verify())


def test_a_raised_role_is_repaired_by_an_operator_and_journaled(db: Database,
                                                                journal: Journal) -> None:
    users, olga = setup_users(journal)
    sql(db, "UPDATE users SET role = 'operator', failed_attempts = 7 WHERE user_id = 'ann'")
    users.unlock("ann", actor=olga)
    assert users.check_projection() == []
    repaired = events(journal, "user.mismatch")[-1]
    assert repaired["field"] == "role" and "rewritten" in repaired["action"]
    assert users.authenticate("ann", "1357").role == "dealer"


def test_a_pin_hash_copied_onto_another_user_is_refused_and_named(db: Database,
                                                                  journal: Journal) -> None:
    users, _ = setup_users(journal)
    sql(db, "UPDATE users SET pin_hash = (SELECT pin_hash FROM users WHERE user_id = 'ann') "
            "WHERE user_id = 'sue'")
    with pytest.raises(UserMismatch, match=r"user sue: pin_hash is '.*' in the users table but "
                                           r"the journal says another PIN hash"):
        users.authenticate("sue", "1357")      # ann's PIN, now in sue's row
    problems = users.check_projection()
    assert len(problems) == 1 and problems[0].startswith("user sue: pin_hash")
    assert "station record" in problems[0]
    assert users.authenticate("ann", "1357").user_id == "ann"   # ann is unaffected


def test_rows_inserted_or_deleted_are_refused(db: Database, journal: Journal) -> None:
    users, olga = setup_users(journal)
    sql(db, "INSERT INTO users (user_id, name, role, pin_hash, failed_attempts, locked_until, "
            "active, created_at) SELECT 'mallory', 'M', 'operator', pin_hash, 0, NULL, "
            "active, created_at FROM users WHERE user_id = 'ann'")
    with pytest.raises(UserMismatch, match=r"user mallory: row is present .* no user\.add"):
        users.authenticate("mallory", "1357")
    assert [u.user_id for u in users.list()] == ["ann", "olga", "sue"]
    sql(db, "DELETE FROM users WHERE user_id = 'mallory'")
    sql(db, "DELETE FROM users WHERE user_id = 'sue'")
    with pytest.raises(UserMismatch, match="user sue: row is missing"):
        users.authenticate("sue", "2468")
    assert users.check_projection()[0].startswith("user sue: row is missing")
    with pytest.raises(UserMismatch, match="set their PIN again"):
        users.unlock("sue", actor=olga)
    users.change_pin("sue", "4444", actor=olga)           # restores the row
    assert users.authenticate("sue", "4444").role == "supervisor"
    assert users.check_projection() == []


def test_an_edited_user_record_is_refused(db: Database, journal: Journal) -> None:
    users, _ = setup_users(journal)
    sql(db, "UPDATE journal SET payload = replace(payload, '\"dealer\"', '\"operator\"') "
            "WHERE table_id = 'station' AND kind = 'user.add' AND payload LIKE '%\"ann\"%'")
    sql(db, "UPDATE users SET role = 'operator' WHERE user_id = 'ann'")
    with pytest.raises(UserMismatch, match="does not match its keyed hash"):
        users.authenticate("ann", "1357")
    assert any("does not match its keyed hash" in p for p in users.check_projection())
    assert not all(r.ok for r in journal.verify())
    # Records changed without the key never reopen the first-user exception.
    sql(db, "UPDATE journal SET payload = replace(payload, 'user_id', 'user_xx') "
            "WHERE kind = 'user.add'")
    with pytest.raises(PermissionDenied, match="operator must sign in first"):
        users.add("mallory", "M", "operator", "1234", actor="console:root")


def test_an_offline_search_without_the_pepper_finds_nothing(db: Database,
                                                            journal: Journal) -> None:
    users, _ = setup_users(journal)
    with db.read() as conn:
        stored = conn.execute(text("SELECT pin_hash FROM users WHERE user_id = 'ann'")
                              ).scalar_one()
    plain = PasswordHasher()
    with pytest.raises(VerificationError):
        plain.verify(stored, "1357")        # the right PIN, without the key's pepper
    # Every 4-digit PIN, as someone with the database but not the key would try them.
    found = []
    for n in range(10_000):
        try:
            plain.verify(stored, f"{n:04d}")
            found.append(n)
        except VerificationError:
            pass
    assert found == []
    assert users._verify(stored, "1357")       # with the key's pepper it is the PIN


def test_administration_without_an_operator_sign_in_is_refused(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--db", db_url, "--key", str(tmp_path / "cli.key")]

    def run(*args: str, stdin: str = "") -> int:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        return main(["users", *args, *store, "--pin-stdin"])

    assert run("add", "sam", "--name", "Sam", "--role", "supervisor", stdin="1111\n") == 2
    assert "the first user of a journal must be an operator" in capsys.readouterr().err
    assert run("add", "olga", "--name", "Olga", "--role", "operator", stdin="9753\n") == 0
    assert run("add", "ann", "--name", "Ann", "--role", "dealer", "--as", "olga",
               stdin="9753\n1357\n") == 0
    capsys.readouterr()
    for args in (("add", "otto", "--name", "Otto", "--role", "operator"),
                 ("passwd", "ann"), ("unlock", "ann"), ("deactivate", "ann", "--reason", "x"),
                 ("role", "ann", "--role", "operator", "--reason", "x")):
        assert run(*args, stdin="4321\n4321\n") == 2, args
        err = capsys.readouterr().err
        assert "an operator must sign in first" in err and "--as USER" in err, args
        assert "Traceback" not in err
    # A name over 200 characters is refused before the database sees it.
    assert run("add", "bob", "--name", "N" * 201, "--role", "dealer", "--as", "olga",
               stdin="9753\n1234\n") == 2
    err = capsys.readouterr().err
    assert "at most 200 characters (201 given)" in err and "Traceback" not in err


def test_users_made_before_pins_were_bound_must_have_them_set_again(
        db: Database, journal: Journal) -> None:
    # A journal written before PINs were bound to the key: user.add without pin_mac, and an
    # unpeppered argon2 hash in the row.
    users = Users(journal, hasher=FAST)
    for uid, role in (("olga", "operator"), ("ann", "dealer")):
        def row(conn: Any, uid: str = uid, role: str = role) -> None:
            conn.execute(text("INSERT INTO users (user_id, name, role, pin_hash, "
                              "failed_attempts, locked_until, active, created_at) VALUES "
                              "(:u, :u, :r, :h, 0, NULL, :a, '2026-01-01T00:00:00+00:00')"),
                         {"u": uid, "r": role, "h": FAST.hash("1357"), "a": True})
        journal.append("station", "user.add", {"user_id": uid, "name": uid, "role": role},
                       "console:root", also=row)
    with pytest.raises(PinResetRequired, match="an operator must set it again"):
        users.authenticate("ann", "1357")
    assert any("set before PINs were bound" in p for p in users.check_projection())
    # Not even an operator can sign in; one operator's PIN may be set without a sign-in ...
    with pytest.raises(PermissionDenied, match="an operator's PIN is set first"):
        users.change_pin("ann", "2222", actor="console:root")
    users.change_pin("olga", "9753", actor="console:root")
    olga = users.authenticate("olga", "9753")
    # ... and only once: that operator sets the others.
    with pytest.raises(PermissionDenied, match="operator must sign in first"):
        users.change_pin("ann", "2222", actor="console:root")
    users.change_pin("ann", "2222", actor=olga)
    assert users.authenticate("ann", "2222").role == "dealer"
    assert users.check_projection() == []


def test_a_rehash_at_sign_in_is_bound_to_the_key(db: Database, journal: Journal) -> None:
    setup_users(journal)
    stronger = Users(journal, hasher=PasswordHasher(time_cost=2, memory_cost=128,
                                                    parallelism=1))
    assert stronger.authenticate("ann", "1357").user_id == "ann"
    login = [e for e in journal.events(kinds=["login"]) if e.payload["user_id"] == "ann"][-1]
    assert "pin_mac" in login.payload
    assert stronger.check_projection() == []
    assert stronger.authenticate("ann", "1357").user_id == "ann"


# --- parallel attempts ----------------------------------------------------------------------

def _parallel(db_url: str, key: JournalKey, plan: list[list[str]],
              barrier_between: bool) -> list[list[str]]:
    """Each thread (its own connection pool, journal and Users) tries its PINs for ann in
    turn; returns each thread's outcomes: 'ok', 'locked' or 'refused'."""
    n = len(plan)
    dbs = [open_database(db_url, upgrade=False) for _ in range(n)]
    start = threading.Barrier(n)
    middle = threading.Barrier(n)
    results: list[list[str]] = [[] for _ in range(n)]
    errors: list[BaseException] = []

    def attempt(i: int) -> None:
        try:
            users = Users(Journal(dbs[i], key), max_failures=3, lockout_minutes=10,
                          hasher=SLOWER)
            start.wait()
            for k, pin in enumerate(plan[i]):
                if k == 1 and barrier_between:
                    middle.wait()
                try:
                    users.authenticate("ann", pin, table_id=f"T{i % 3 + 1}")
                    results[i].append("ok")
                except LockedOut:
                    results[i].append("locked")
                except AuthError:
                    results[i].append("refused")
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    for d in dbs:
        d.close()
    assert not errors, errors
    return results


def _ann_records(journal: Journal) -> list[tuple[str, str]]:
    users = Users(journal, hasher=FAST)
    with journal.db.read() as conn:
        grouped, forged = users._read(conn, "ann")
    assert not forged
    return [(r.kind, str(r.payload.get("reason", ""))) for r in grouped["ann"]]


def test_parallel_wrong_pins_then_right_ones_stay_locked_out(db: Database, db_url: str,
                                                             key: JournalKey,
                                                             journal: Journal) -> None:
    users, olga = setup_users(journal, SLOWER, max_failures=3, lockout_minutes=10)
    results = _parallel(db_url, key, [["0000", "1357"] for _ in range(24)],
                        barrier_between=True)
    outcomes = Counter(r for rs in results for r in rs)
    # 3 wrong PINs counted (the third locks), everything after refused, the right PIN too.
    assert outcomes == Counter({"locked": 46, "refused": 2})
    recs = _ann_records(journal)
    failed = Counter(reason for kind, reason in recs if kind == "login.failed")
    assert failed == Counter({"wrong PIN": 3, "locked out": 45})
    assert [k for k, _ in recs].count("lockout") == 1
    assert [k for k, _ in recs].count("login") == 0
    ann = users.get("ann")
    assert ann is not None and ann.failed_attempts == 3 and ann.locked_until is not None
    assert users.check_projection() == []
    users.unlock("ann", actor=olga)
    assert users.authenticate("ann", "1357").failed_attempts == 0


def test_parallel_attempts_never_get_past_the_limit(db: Database, db_url: str,
                                                    key: JournalKey,
                                                    journal: Journal) -> None:
    users, _ = setup_users(journal, SLOWER, max_failures=3, lockout_minutes=10)
    results = _parallel(db_url, key, [["0000", "1357"] for _ in range(24)],
                        barrier_between=False)
    outcomes = Counter(r for rs in results for r in rs)
    recs = _ann_records(journal)
    kinds = [k for k, _ in recs]
    # The journal agrees with what the callers were told.
    assert kinds.count("login") == outcomes["ok"]
    assert kinds.count("login.failed") == outcomes["locked"] + outcomes["refused"]
    # In the order the chain establishes: no sign-in after max_failures failures in a row,
    # and none at all once locked out (no unlock, no expiry here).
    failures, locked = 0, False
    for kind, reason in recs:
        if kind == "login":
            assert failures < 3 and not locked
            failures = 0
        elif kind == "login.failed" and reason == "wrong PIN":
            assert not locked
            failures += 1
        elif kind == "lockout":
            assert failures == 3
            locked = True
    assert locked == (kinds.count("lockout") == 1)
    assert users.check_projection() == []


def test_parallel_cli_sign_ins_stay_locked_out(db_url: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The reported case: many `users unlock --as` processes guessing an operator's PIN at
    once; 9 guesses are wrong and one right, and once 5 (the default) wrong ones are in,
    the right one is refused too."""
    store = ["--db", db_url, "--key", str(tmp_path / "cli.key")]
    monkeypatch.setattr("sys.stdin", io.StringIO("9753\n"))
    assert main(["users", "add", "olga", "--name", "Olga", "--role", "operator",
                 "--pin-stdin", *store]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO("9753\n1357\n"))
    assert main(["users", "add", "ann", "--name", "Ann", "--role", "dealer", "--as", "olga",
                 "--pin-stdin", *store]) == 0
    guesses = [f"{n:04d}" for n in range(9)] + ["9753"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    procs = [subprocess.Popen([sys.executable, "-m", "dealer_station.cli.main", "users",
                               "unlock", "ann", "--as", "olga", "--pin-stdin", *store],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
             for _ in guesses]
    codes = []
    for proc, guess in zip(procs, guesses, strict=True):
        proc.stdin.write(guess + "\n")  # type: ignore[union-attr]
        proc.stdin.close()  # type: ignore[union-attr]
    for proc in procs:
        proc.wait(timeout=300)
        err = proc.stderr.read()  # type: ignore[union-attr]
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
        assert "Traceback" not in err, err
        codes.append(proc.returncode)
    db = open_database(db_url, upgrade=False)
    from dealer_station.audit.keys import load_key

    journal = Journal(db, load_key(tmp_path / "cli.key"))
    users = Users(journal)
    with db.read() as conn:
        grouped, _ = users._read(conn, "olga")
    recs = [(r.kind, r.payload.get("reason")) for r in grouped["olga"]]
    kinds = [k for k, _ in recs]
    assert kinds.count("login") - 1 == codes.count(0)       # the first login added ann
    failures, locked = 0, False
    for kind, reason in recs[2:]:
        if kind == "login":
            assert failures < 5 and not locked
            failures = 0
        elif kind == "login.failed" and reason == "wrong PIN":
            failures += 1
        elif kind == "lockout":
            locked = True
    assert locked
    assert users.check_projection() == []
    db.close()


def test_demo_users_are_added_by_the_first_operator(journal: Journal) -> None:
    from dealer_station.app import DEMO_ACTOR, DEMO_USERS, ensure_demo_users

    users = Users(journal, hasher=FAST)
    assert ensure_demo_users(users) == list(DEMO_USERS)
    adds = [(r.payload["role"], r.actor) for r in journal.records("station")
            if r.kind == "user.add"]
    assert adds[0] == ("operator", DEMO_ACTOR)
    assert {a for _, a in adds[1:]} == {"operator/operator"}
    assert ensure_demo_users(users) == []
    assert users.check_projection() == []


def test_seed_adds_the_operator_first_then_the_others(journal: Journal) -> None:
    users = Users(journal, hasher=FAST)
    with pytest.raises(Exception, match="must be an operator: none given"):
        users.seed([("sue", "Sue", "supervisor", "2468")], actor="setup")
    added = users.seed([("sue", "Sue", "supervisor", "2468"), ("olga", "Olga", "operator",
                                                              "9753")], actor="setup")
    assert [u.user_id for u in added] == ["olga", "sue"]
    assert [(r.kind, r.actor) for r in journal.records("station")] == [
        ("user.add", "setup"), ("login", "olga/operator"), ("user.add", "olga/operator")]
    with pytest.raises(PermissionDenied, match="operator must sign in first"):
        users.seed([("otto", "Otto", "operator", "1111")], actor="setup")
