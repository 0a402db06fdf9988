"""Users and roles: argon2 PINs, lockout, and every attempt journaled and attributed."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import (
    AuthError,
    LockedOut,
    PermissionDenied,
    UserError,
    Users,
    default_hasher,
    require_role,
)
from dealer_station.cli.main import main

# Cheap argon2id parameters so the tests stay fast; the station's default is checked below.
FAST = PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = open_database(db_url)
    yield database
    database.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def journal(db: Database, tmp_path: Path, clock: Clock) -> Journal:
    return Journal(db, create_key(tmp_path / "journal.key"), clock=clock)


@pytest.fixture
def users(journal: Journal) -> Users:
    u = Users(journal, max_failures=3, lockout_minutes=10, hasher=FAST)
    u.add("sue", "Sue Supervisor", "supervisor", "2468", actor="console:root")
    u.add("ann", "Ann Dealer", "dealer", "1357", actor="sue/supervisor")
    return u


def kinds(journal: Journal, table: str) -> list[tuple[str, str]]:
    return [(r.kind, r.actor) for r in journal.records(table)]


def test_default_hasher_is_memory_hard_argon2id(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    users = Users(Journal(db, create_key(tmp_path / "k.key")))
    users.add("ann", "Ann", "dealer", "1357", actor="console:root")
    with db.read() as conn:
        stored = conn.exec_driver_sql("SELECT pin_hash FROM users").scalar_one()
    db.close()
    assert stored.startswith("$argon2id$")
    params = dict(p.split("=") for p in stored.split("$")[3].split(","))
    assert int(params["m"]) >= 19 * 1024  # at least OWASP's minimum memory for argon2id
    assert default_hasher().memory_cost >= 19 * 1024
    assert "1357" not in (tmp_path / "j.db").read_bytes().decode("latin-1")


def test_sign_in_is_journaled_and_attributed(users: Users, journal: Journal) -> None:
    ann = users.authenticate("ann", "1357", table_id="T1")
    assert (ann.user_id, ann.role, ann.actor) == ("ann", "dealer", "ann/dealer")
    assert kinds(journal, "T1") == [("login", "ann/dealer")]
    assert kinds(journal, "station") == [("user.add", "console:root"),
                                         ("user.add", "sue/supervisor")]


def test_wrong_pins_lock_out_then_time_releases(users: Users, journal: Journal,
                                                clock: Clock) -> None:
    for _ in range(2):
        with pytest.raises(AuthError) as err:
            users.authenticate("ann", "0000", table_id="T1")
        assert not isinstance(err.value, LockedOut)
    assert users.get("ann").failed_attempts == 2  # type: ignore[union-attr]
    with pytest.raises(LockedOut, match="locked out until 2026-03-01T18:10"):
        users.authenticate("ann", "0000", table_id="T1")
    with pytest.raises(LockedOut):  # even the right PIN, while locked
        users.authenticate("ann", "1357", table_id="T1")
    assert [k for k, _ in kinds(journal, "T1")] == [
        "login.failed", "login.failed", "login.failed", "lockout", "login.failed"]
    assert journal.last("T1").payload["reason"] == "locked out"  # type: ignore[union-attr]
    assert {a for _, a in kinds(journal, "T1")} == {"ann/dealer"}
    clock.now += timedelta(minutes=10, seconds=1)
    assert users.authenticate("ann", "1357", table_id="T1").failed_attempts == 0
    assert [e.kind for e in journal.events("T1")][-1] == "login"


def test_supervisor_unlocks(users: Users, journal: Journal) -> None:
    for _ in range(3):
        with pytest.raises(AuthError):
            users.authenticate("ann", "9999")
    assert users.get("ann").locked_until is not None  # type: ignore[union-attr]
    users.unlock("ann", actor="sue/supervisor")
    assert users.authenticate("ann", "1357").user_id == "ann"
    assert ("user.unlock", "sue/supervisor") in kinds(journal, "station")


def test_unknown_and_inactive_users(users: Users, journal: Journal) -> None:
    with pytest.raises(AuthError, match="unknown user 'bob' or wrong PIN"):
        users.authenticate("bob", "1234", table_id="T1")
    assert kinds(journal, "T1") == [("login.failed", "bob/unknown")]
    users.deactivate("ann", actor="sue/supervisor", reason="left the casino")
    with pytest.raises(AuthError, match="deactivated"):
        users.authenticate("ann", "1357", table_id="T1")
    assert journal.last("T1").payload == {  # type: ignore[union-attr]
        "reason": "inactive", "user_id": "ann"}
    with pytest.raises(UserError, match="reason"):
        users.deactivate("sue", actor="x", reason=" ")


def test_change_pin(users: Users) -> None:
    users.change_pin("ann", "8642", actor="sue/supervisor")
    with pytest.raises(AuthError):
        users.authenticate("ann", "1357")
    assert users.authenticate("ann", "8642").user_id == "ann"
    with pytest.raises(UserError, match="no user"):
        users.change_pin("zed", "8642", actor="sue/supervisor")


def test_refused_changes_leave_no_trace(users: Users, journal: Journal) -> None:
    before = len(list(journal.records("station")))
    with pytest.raises(UserError, match="taken"):
        users.add("ann", "Another Ann", "dealer", "1111", actor="sue/supervisor")
    with pytest.raises(UserError, match="role"):
        users.add("bob", "Bob", "pitboss", "1111", actor="sue/supervisor")
    with pytest.raises(UserError, match="PIN"):
        users.add("bob", "Bob", "dealer", "12", actor="sue/supervisor")
    with pytest.raises(UserError, match="user id"):
        users.add("bad id", "Bob", "dealer", "1234", actor="sue/supervisor")
    assert len(list(journal.records("station"))) == before
    assert [u.user_id for u in users.list()] == ["ann", "sue"]


def test_require_role(users: Users) -> None:
    ann = users.authenticate("ann", "1357")
    sue = users.authenticate("sue", "2468")
    with pytest.raises(PermissionDenied, match="ann is a dealer; only a supervisor or "
                                               "operator may void a round"):
        require_role(ann, action="void a round")
    assert require_role(sue) is sue
    assert require_role(ann, "dealer") is ann


def test_users_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]

    def run(*args: str, stdin: str = "") -> int:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        return main(["users", *args, *store, "--pin-stdin"])

    assert run("add", "sue", "--name", "Sue", "--role", "supervisor", stdin="2468\n") == 0
    assert run("add", "ann", "--name", "Ann", "--role", "dealer", "--as", "sue",
               stdin="2468\n1357\n") == 0
    assert run("passwd", "ann", "--as", "sue", stdin="2468\n9753\n") == 0
    # A dealer may not administer users; a wrong PIN is refused: exit 2, no traceback.
    assert run("unlock", "sue", "--as", "ann", stdin="9753\n") == 2
    assert run("deactivate", "ann", "--reason", "x", "--as", "sue", stdin="0000\n") == 2
    assert run("deactivate", "ann", "--reason", "moved on", "--as", "sue", stdin="2468\n") == 0
    assert run("list") == 0
    out, err = capsys.readouterr()
    assert "ann              dealer     inactive  Ann" in out
    assert "only a supervisor or operator may administer users" in err
    assert "Traceback" not in err
    db = open_database(store[1])
    from dealer_station.audit.keys import load_key

    j = Journal(db, load_key(store[3]))
    actions = [(e.kind, e.actor) for e in j.records("station")]
    db.close()
    assert ("user.add", "sue/supervisor") in actions
    assert ("user.pin", "sue/supervisor") in actions
    assert ("user.deactivate", "sue/supervisor") in actions
    assert ("login.failed", "sue/supervisor") in actions
    assert actions[0][1].startswith("console:")
