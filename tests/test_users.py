"""Users and roles: argon2 PINs, lockout, and every attempt journaled and attributed."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.audit.users import (
    AuthError,
    LockedOut,
    PermissionDenied,
    User,
    UserError,
    Users,
    WrongPin,
    default_hasher,
    local_time,
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
    u.add("olga", "Olga Operator", "operator", "9753", actor="console:root")
    olga = u.authenticate("olga", "9753")
    u.add("sue", "Sue Supervisor", "supervisor", "2468", actor=olga)
    u.add("ann", "Ann Dealer", "dealer", "1357", actor=olga)
    return u


@pytest.fixture
def olga(users: Users) -> User:
    return users.authenticate("olga", "9753")


@pytest.fixture
def sue(users: Users) -> User:
    return users.authenticate("sue", "2468")


def kinds(journal: Journal, table: str) -> list[tuple[str, str]]:
    return [(r.kind, r.actor) for r in journal.records(table)]


@pytest.mark.real_pin_cost
def test_default_hasher_is_memory_hard_argon2id(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    users = Users(Journal(db, create_key(tmp_path / "k.key")))
    # A PIN long enough that the random hex and base64 of the file's hashes
    # cannot hold it by chance (a four-digit one turned up in a hash once).
    users.add("olga", "Olga", "operator", "97531864", actor="console:root")
    with db.read() as conn:
        stored = conn.exec_driver_sql("SELECT pin_hash FROM users").scalar_one()
    db.close()
    assert stored.startswith("$argon2id$")
    params = dict(p.split("=") for p in stored.split("$")[3].split(","))
    assert int(params["m"]) >= 19 * 1024  # at least OWASP's minimum memory for argon2id
    assert default_hasher().memory_cost >= 19 * 1024
    assert "97531864" not in (tmp_path / "j.db").read_bytes().decode("latin-1")


def test_sign_in_is_journaled_and_attributed(users: Users, journal: Journal) -> None:
    ann = users.authenticate("ann", "1357", table_id="T1")
    assert (ann.user_id, ann.role, ann.actor) == ("ann", "dealer", "ann/dealer")
    assert kinds(journal, "T1") == [("login", "ann/dealer")]
    assert kinds(journal, "station") == [("user.add", "console:root"),
                                         ("login", "olga/operator"),
                                         ("user.add", "olga/operator"),
                                         ("user.add", "olga/operator")]
    # The records carry a MAC binding the PIN hash to the user, never the hash itself.
    add = next(r for r in journal.records("station") if r.payload["user_id"] == "ann")
    assert set(add.payload) == {"user_id", "name", "role", "pin_mac"}
    assert "argon2" not in str(add.payload)


def test_wrong_pins_lock_out_then_time_releases(users: Users, journal: Journal,
                                                clock: Clock) -> None:
    for _ in range(2):
        with pytest.raises(AuthError) as err:
            users.authenticate("ann", "0000", table_id="T1")
        assert not isinstance(err.value, LockedOut)
    assert users.get("ann").failed_attempts == 2  # type: ignore[union-attr]
    # The lockout's end is said in the station's local time, to the minute.
    local = datetime(2026, 3, 1, 18, 10, tzinfo=UTC).astimezone()
    with pytest.raises(LockedOut, match=f"locked out until {local:%H:%M} after 3") as locked:
        users.authenticate("ann", "0000", table_id="T1")
    assert locked.value.until == journal.last("T1").payload["until"]  # type: ignore[union-attr]
    with pytest.raises(LockedOut):  # even the right PIN, while locked
        users.authenticate("ann", "1357", table_id="T1")
    assert [k for k, _ in kinds(journal, "T1")] == [
        "login.failed", "login.failed", "login.failed", "lockout", "login.failed"]
    assert journal.last("T1").payload["reason"] == "locked out"  # type: ignore[union-attr]
    assert {a for _, a in kinds(journal, "T1")} == {"ann/dealer"}
    # The lockout does not reset the count: it counts from the last sign-in or unlock.
    assert users.get("ann").failed_attempts == 3  # type: ignore[union-attr]
    clock.now += timedelta(minutes=10, seconds=1)
    assert users.authenticate("ann", "1357", table_id="T1").failed_attempts == 0
    assert [e.kind for e in journal.events("T1")][-1] == "login"
    assert users.check_projection() == []


def test_after_a_lockout_expires_one_more_wrong_pin_locks_again(users: Users,
                                                                clock: Clock) -> None:
    for _ in range(3):
        with pytest.raises(AuthError):
            users.authenticate("ann", "0000")
    clock.now += timedelta(minutes=11)
    with pytest.raises(LockedOut, match="after 4 wrong PINs"):
        users.authenticate("ann", "0000")


def test_unlock_supervisors_for_dealers_operators_for_all(users: Users, journal: Journal,
                                                          olga: User, sue: User) -> None:
    for _ in range(3):
        with pytest.raises(AuthError):
            users.authenticate("ann", "9999")
    assert users.get("ann").locked_until is not None  # type: ignore[union-attr]
    users.unlock("ann", actor=sue)
    assert users.authenticate("ann", "1357").user_id == "ann"
    assert ("user.unlock", "sue/supervisor") in kinds(journal, "station")
    for _ in range(3):
        with pytest.raises(AuthError):
            users.authenticate("sue", "9999")
    with pytest.raises(PermissionDenied, match="sue is locked out"):
        users.unlock("ann", actor=sue)          # a User taken before the lockout
    users.add("sam", "Sam Supervisor", "supervisor", "8080", actor=olga)
    sam = users.authenticate("sam", "8080")
    with pytest.raises(PermissionDenied, match="only an operator may unlock a supervisor"):
        users.unlock("sue", actor=sam)
    ann = users.authenticate("ann", "1357")
    with pytest.raises(PermissionDenied, match="ann is a dealer"):
        users.unlock("sue", actor=ann)
    users.unlock("sue", actor=olga)
    assert users.authenticate("sue", "2468").role == "supervisor"
    assert users.check_projection() == []


def test_unknown_and_inactive_users(users: Users, journal: Journal, olga: User) -> None:
    with pytest.raises(AuthError, match="unknown user 'bob' or wrong PIN"):
        users.authenticate("bob", "1234", table_id="T1")
    assert kinds(journal, "T1") == [("login.failed", "bob/unknown")]
    users.deactivate("ann", actor=olga, reason="left the casino")
    with pytest.raises(AuthError, match="deactivated"):
        users.authenticate("ann", "1357", table_id="T1")
    assert journal.last("T1").payload == {  # type: ignore[union-attr]
        "reason": "inactive", "user_id": "ann"}
    with pytest.raises(UserError, match="reason"):
        users.deactivate("sue", actor=olga, reason=" ")
    with pytest.raises(PermissionDenied, match="another operator"):
        users.deactivate("olga", actor=olga, reason="bored")
    with pytest.raises(AuthError, match="unknown user"):  # nonsense never reaches the database
        users.authenticate("x" * 300 + "\x00\n", "1234", table_id="T1")


def test_change_pin(users: Users, olga: User, sue: User) -> None:
    users.change_pin("ann", "8642", actor=olga)
    with pytest.raises(AuthError):
        users.authenticate("ann", "1357")
    ann = users.authenticate("ann", "8642")
    assert ann.user_id == "ann"
    with pytest.raises(UserError, match="no user"):
        users.change_pin("zed", "8642", actor=olga)
    # A supervisor may not set a dealer's PIN (they would then know it).
    with pytest.raises(PermissionDenied, match="only an operator may set another user's PIN"):
        users.change_pin("ann", "1111", actor=sue)
    # A user changes their own PIN by giving the current one.
    with pytest.raises(PermissionDenied, match="give the current one"):
        users.change_pin("ann", "1111", actor=ann)
    with pytest.raises(PermissionDenied, match="give the current one"):
        users.change_pin("ann", "1111", actor=ann, current_pin="0000")
    users.change_pin("ann", "1111", actor=ann, current_pin="8642")
    assert users.authenticate("ann", "1111").user_id == "ann"
    assert users.check_projection() == []


def test_role_change_is_journaled(users: Users, journal: Journal, olga: User) -> None:
    assert users.set_role("ann", "supervisor", actor=olga, reason="promoted").role == "supervisor"
    rec = journal.last("station")
    assert users.authenticate("ann", "1357", table_id="T1").role == "supervisor"
    assert rec is not None and (rec.kind, rec.actor) == ("user.role", "olga/operator")
    assert rec.payload == {"user_id": "ann", "role": "supervisor", "was": "dealer",
                           "reason": "promoted"}
    with pytest.raises(PermissionDenied, match="another operator"):
        users.set_role("olga", "dealer", actor=olga, reason="x")
    assert users.check_projection() == []


def test_refused_changes_leave_no_trace(users: Users, journal: Journal, olga: User) -> None:
    before = len(list(journal.records("station")))
    with pytest.raises(UserError, match="taken"):
        users.add("ann", "Another Ann", "dealer", "1111", actor=olga)
    with pytest.raises(UserError, match="role"):
        users.add("bob", "Bob", "pitboss", "1111", actor=olga)
    with pytest.raises(UserError, match="PIN"):
        users.add("bob", "Bob", "dealer", "12", actor=olga)
    with pytest.raises(UserError, match="user id"):
        users.add("bad id", "Bob", "dealer", "1234", actor=olga)
    with pytest.raises(UserError, match="on one line"):
        users.add("bob", "Bob\nSmith", "dealer", "1234", actor=olga)
    with pytest.raises(UserError, match="on one line"):
        users.add("bob", "Bob\x00", "dealer", "1234", actor=olga)
    with pytest.raises(PermissionDenied, match="operator must sign in"):
        users.add("bob", "Bob", "dealer", "1234", actor="console:root")
    assert len(list(journal.records("station"))) == before
    assert [u.user_id for u in users.list()] == ["ann", "olga", "sue"]


def test_name_length_is_checked_before_the_database(users: Users, journal: Journal,
                                                    olga: User) -> None:
    before = len(list(journal.records("station")))
    with pytest.raises(UserError, match="at most 200 characters \\(201 given\\)"):
        users.add("bob", "B" * 201, "dealer", "1234", actor=olga)
    assert len(list(journal.records("station"))) == before
    assert users.get("bob") is None
    assert users.add("bob", "B" * 200, "dealer", "1234", actor=olga).name == "B" * 200
    assert users.check_projection() == []


def test_require_role(users: Users) -> None:
    ann = users.authenticate("ann", "1357")
    sue = users.authenticate("sue", "2468")
    with pytest.raises(PermissionDenied, match="ann is a dealer; only a supervisor or "
                                               "operator may void a round"):
        require_role(ann, action="void a round")
    assert require_role(sue) is sue
    assert require_role(ann, "dealer") is ann


def test_only_an_operator_administers(users: Users, sue: User) -> None:
    with pytest.raises(PermissionDenied, match="sue is a supervisor; only an operator may add"):
        users.add("bob", "Bob", "dealer", "1234", actor=sue)
    calls: list[Callable[[], object]] = [
        lambda: users.unlock("ann", actor="console:root"),
        lambda: users.deactivate("ann", actor="console:root", reason="x"),
        lambda: users.change_pin("ann", "4321", actor="console:root")]
    for call in calls:
        with pytest.raises(PermissionDenied, match="operator must sign in first"):
            call()


def test_first_user_must_be_an_operator(journal: Journal) -> None:
    users = Users(journal, hasher=FAST)
    with pytest.raises(PermissionDenied, match="first user of a journal must be an operator"):
        users.add("sue", "Sue", "supervisor", "2468", actor="console:root")
    assert not users.has_users()
    users.add("olga", "Olga", "operator", "9753", actor="console:root")
    with pytest.raises(PermissionDenied, match="operator must sign in first"):
        users.add("otto", "Otto", "operator", "9753", actor="console:root")


def test_users_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]

    def run(*args: str, stdin: str = "") -> int:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        return main(["users", *args, *store, "--pin-stdin"])

    # The first user of a new journal: an operator, without a sign-in.
    assert run("add", "sue", "--name", "Sue", "--role", "supervisor", stdin="2468\n") == 2
    assert run("add", "olga", "--name", "Olga", "--role", "operator", stdin="9753\n") == 0
    # After that, nothing without an operator's sign-in.
    assert run("add", "sue", "--name", "Sue", "--role", "supervisor", stdin="2468\n") == 2
    err = capsys.readouterr().err
    assert "an operator must sign in first" in err and "--as USER" in err
    assert run("add", "sue", "--name", "Sue", "--role", "supervisor", "--as", "olga",
               stdin="9753\n2468\n") == 0
    assert run("add", "ann", "--name", "Ann", "--role", "dealer", "--as", "olga",
               stdin="9753\n1357\n") == 0
    assert run("passwd", "ann", "--as", "olga", stdin="9753\n9753\n") == 0
    assert run("passwd", "ann", stdin="1111\n") == 2
    assert run("unlock", "ann") == 2
    assert run("deactivate", "ann", "--reason", "x") == 2
    # A user changes their own PIN: the --as PIN is the current one.
    assert run("passwd", "ann", "--as", "ann", stdin="9753\n8642\n") == 0
    # A dealer may not administer users; a wrong PIN is refused: exit 2, no traceback.
    assert run("unlock", "sue", "--as", "ann", stdin="8642\n") == 2
    assert run("deactivate", "ann", "--reason", "x", "--as", "olga", stdin="0000\n") == 2
    assert run("passwd", "ann", "--as", "sue", stdin="2468\n1111\n") == 2
    assert run("role", "ann", "--role", "supervisor", "--reason", "promoted", "--as", "olga",
               stdin="9753\n") == 0
    assert run("deactivate", "ann", "--reason", "moved on", "--as", "olga",
               stdin="9753\n") == 0
    assert run("add", "bob", "--name", "B" * 201, "--role", "dealer", "--as", "olga",
               stdin="9753\n1234\n") == 2
    assert run("list") == 0
    out, err = capsys.readouterr()
    assert "ann              supervisor inactive  Ann" in out
    assert "ann is a dealer; only a supervisor or operator may unlock users" in err
    assert "sue is a supervisor; only an operator may set another user's PIN" in err
    assert "at most 200 characters (201 given)" in err
    assert "operator must sign in first" in err
    assert "Traceback" not in err
    db = open_database(store[1])
    j = Journal(db, load_key(store[3]))
    actions = [(e.kind, e.actor) for e in j.records("station")]
    assert Users(j, hasher=FAST).check_projection() == []
    db.close()
    assert actions[0][0] == "user.add" and actions[0][1].startswith("console:")
    assert ("user.add", "olga/operator") in actions
    assert ("user.pin", "olga/operator") in actions
    assert ("user.pin", "ann/dealer") in actions
    assert ("user.role", "olga/operator") in actions
    assert ("user.deactivate", "olga/operator") in actions
    assert ("login.failed", "olga/operator") in actions


def test_a_wrong_current_pin_counts_and_a_locked_out_operator_cannot_administer(
        users: Users, journal: Journal) -> None:
    ann = users.authenticate("ann", "1357")
    for _ in range(2):
        with pytest.raises(PermissionDenied, match="give the current one"):
            users.change_pin("ann", "1111", actor=ann, current_pin="0000")
    with pytest.raises(LockedOut):
        users.change_pin("ann", "1111", actor=ann, current_pin="0000")
    assert users.get("ann").failed_attempts == 3  # type: ignore[union-attr]
    olga = users.authenticate("olga", "9753")
    for _ in range(3):
        with pytest.raises(AuthError):
            users.authenticate("olga", "0000")
    with pytest.raises(PermissionDenied, match="olga is locked out"):
        users.unlock("ann", actor=olga)


def test_a_wrong_pin_says_the_attempts_left_under_the_policy(users: Users) -> None:
    # This fixture's policy: 3 wrong PINs, then 10 minutes.
    with pytest.raises(WrongPin) as first:
        users.authenticate("ann", "0000")
    assert (first.value.attempts_left, first.value.lockout_minutes) == (2, 10)
    assert str(first.value) == "wrong PIN for ann: 2 attempts left before a 10-minute lockout"
    with pytest.raises(WrongPin, match="1 attempt left before a 10-minute lockout"):
        users.authenticate("ann", "0000")
    with pytest.raises(LockedOut, match=r"ann is now locked out until .* after 3 wrong PINs; "
                                        r"a supervisor or an operator can unlock them"):
        users.authenticate("ann", "0000")
    # An unknown user gets no count (nothing to count against).
    with pytest.raises(AuthError) as unknown:
        users.authenticate("bob", "0000")
    assert not isinstance(unknown.value, WrongPin)


def test_the_lockout_end_is_local_time_with_the_day_when_not_today() -> None:
    now = datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
    same = datetime(2026, 3, 1, 18, 10, tzinfo=UTC)
    assert local_time(same.isoformat(), now) == f"{same.astimezone():%H:%M}"
    later = datetime(2026, 3, 3, 9, 5, tzinfo=UTC)
    shown = local_time(later.isoformat(), now)
    assert shown.endswith(f"{later.astimezone():%H:%M}") and "Mar" in shown


def test_an_unlock_journals_who_unlocked_whom_and_why(users: Users, journal: Journal,
                                                      sue: User) -> None:
    for _ in range(3):
        with pytest.raises(AuthError):
            users.authenticate("ann", "9999")
    with pytest.raises(UserError, match="reason"):
        users.unlock("ann", actor=sue, reason="  ", table_id="T1")
    assert [u.user_id for u in users.locked_out()] == ["ann"]
    ann = users.unlock("ann", actor=sue, reason="identity checked", table_id="T1")
    assert ann.locked_until is None and ann.failed_attempts == 0
    rec = journal.last("T1")
    assert rec is not None and (rec.kind, rec.actor) == ("user.unlock", "sue/supervisor")
    assert rec.payload == {"user_id": "ann", "reason": "identity checked"}
    assert users.locked_out() == []
    assert users.check_projection() == []


def test_a_sign_in_over_a_dealers_session_names_the_dealer(users: Users,
                                                          journal: Journal) -> None:
    users.authenticate("sue", "2468", table_id="T1", over="ann")
    rec = journal.last("T1")
    assert rec is not None and rec.payload == {"user_id": "sue", "role": "supervisor",
                                               "over": "ann"}
    assert users.check_projection() == []
