"""The journal's contract, run on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, func, select

from dealer_station.audit import schema
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.hashing import canonical_json, config_version, genesis_hash, record_hash
from dealer_station.audit.journal import (
    Fact,
    Journal,
    JournalConflict,
    JournalError,
    MeterDelta,
    add_meters,
    hashed_kind,
    record_config_version,
    upsert_round,
)
from dealer_station.audit.keys import create_key


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = open_database(db_url)
    yield database
    database.close()


@pytest.fixture
def journal(db: Database, tmp_path: Path) -> Journal:
    return Journal(db, create_key(tmp_path / "keys" / "journal.key"))


def count(db: Database, table: object) -> int:
    with db.read() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


def test_append_numbers_and_chains_records(journal: Journal) -> None:
    a = journal.append("T1", "startup", {"version": "1"}, "station")
    b = journal.append("T1", "wager.place", {"seat": 2, "amount": 500}, "ann/dealer",
                       round_no=7)
    c = journal.append("T2", "startup", {}, "station")
    assert (a.seq, b.seq, c.seq) == (1, 2, 1)
    key = journal._secret
    assert a.prev_hash == genesis_hash(key, "T1")
    assert b.prev_hash == a.hash
    assert c.prev_hash == genesis_hash(key, "T2") != a.prev_hash
    assert b.hash == record_hash(key, table_id="T1", seq=2, ts=b.ts, actor="ann/dealer",
                                 kind=hashed_kind("wager.place", 7),
                                 payload='{"amount":500,"seat":2}', prev_hash=a.hash)
    assert datetime.fromisoformat(b.ts).tzinfo == UTC
    assert list(journal.records("T1")) == [a, b]
    assert journal.last("T1") == b
    assert journal.last("nope") is None
    assert journal.tables() == ["T1", "T2"]


def test_records_filters_and_streams(journal: Journal) -> None:
    for r in range(1, 4):
        journal.append_many("T1", [Fact("round.open", {"r": r}, "ann/dealer", r),
                                   Fact("card", {"code": "AS"}, "shoe", r),
                                   Fact("device.status", {"ok": True}, "shoe")])
    assert [x.seq for x in journal.records("T1", from_seq=4, to_seq=6)] == [4, 5, 6]
    assert [x.payload for x in journal.records("T1", round_no=2)] == [{"r": 2}, {"code": "AS"}]
    assert [x.seq for x in journal.records("T1", kinds=["device.*"])] == [3, 6, 9]
    assert journal.round_records("T1", 3)[0].payload == {"r": 3}
    it = journal.records("T1")
    assert next(it).seq == 1  # a generator: rows arrive before the whole table is read
    it.close()


def test_append_many_is_one_transaction(journal: Journal, db: Database) -> None:
    recs = journal.append_many("T1", [Fact("a", {"i": i}, "x") for i in range(5)])
    assert [r.seq for r in recs] == [1, 2, 3, 4, 5]
    assert len({r.ts for r in recs}) == 1

    def fail(conn: Connection) -> None:
        raise RuntimeError("projection failed")

    with pytest.raises(RuntimeError):
        journal.append_many("T1", [Fact("b", {}, "x"), Fact("c", {}, "x")], also=fail)
    assert count(db, schema.journal) == 5
    assert journal.append("T1", "d", {}, "x").seq == 6


@pytest.mark.parametrize("bad", [
    dict(table_id="T 1", kind="k", payload={}, actor="x"),
    dict(table_id="", kind="k", payload={}, actor="x"),
    dict(table_id="T1", kind="Bad Kind", payload={}, actor="x"),
    dict(table_id="T1", kind="k#1", payload={}, actor="x"),
    dict(table_id="T1", kind="k", payload={"amount": 1.5}, actor="x"),
    dict(table_id="T1", kind="k", payload={1: "non-text key"}, actor="x"),
    dict(table_id="T1", kind="k", payload=["not", "a", "mapping"], actor="x"),
    dict(table_id="T1", kind="k", payload={"x": object()}, actor="x"),
    dict(table_id="T1", kind="k", payload={}, actor=""),
    dict(table_id="T1", kind="k", payload={}, actor="two\nlines"),
])
def test_bad_input_is_refused_and_writes_nothing(journal: Journal, db: Database,
                                                 bad: dict[str, object]) -> None:
    journal.append("T1", "startup", {}, "station")
    with pytest.raises(JournalError) as err:
        journal.append(**bad)  # type: ignore[arg-type]
    assert str(err.value)
    assert count(db, schema.journal) == 1


def test_bad_round_number_is_refused(journal: Journal) -> None:
    with pytest.raises(JournalError, match="round number"):
        journal.append("T1", "k", {}, "x", round_no=-1)


def test_rounds_meters_and_config_projection(journal: Journal, db: Database) -> None:
    v1 = {"paytable": {"first_card": 11}}
    version = config_version(canonical_json(v1))
    journal.append("T1", "config.change", {"version": version, "game": "lapaire",
                                           "reason": "initial", "content": v1}, "ops/operator",
                   also=lambda c: record_config_version(
                       c, table_id="T1", game="lapaire", content=v1, created_by="ops/operator",
                       reason="initial"))
    assert [cv.version for cv in journal.config_versions("T1")] == [version]
    assert journal.config("T1", version).content == v1  # type: ignore[union-attr]

    journal.append("T1", "round.open", {"game": "lapaire", "config_version": version,
                                        "dealer": "ann/dealer"}, "ann/dealer", round_no=1,
                   also=lambda c: upsert_round(c, "T1", 1, game="lapaire",
                                               config_version=version, dealer="ann/dealer"))
    opened = journal.open_rounds("T1")
    assert [r.round_no for r in opened] == [1]
    assert (opened[0].first_seq, opened[0].last_seq) == (2, 2)

    def settle(c: Connection) -> None:
        upsert_round(c, "T1", 1, status="settled")
        add_meters(c, "T1", {"total": MeterDelta(rounds=1, wagered=1000, paid=300),
                             "first_card": MeterDelta(rounds=1, wagered=1000, paid=300)})

    meters = {"total": {"wagered": 1000, "paid": 300, "house_win": 700},
              "first_card": {"wagered": 1000, "paid": 300, "house_win": 700}}
    journal.append_many("T1", [Fact("card", {"c": "AS"}, "shoe", 1),
                               Fact("round.close", {"paid": 300, "meters": meters},
                                    "ann/dealer", 1)], also=settle)
    info = journal.round_info("T1", 1)
    assert info is not None
    closing = journal.last("T1")
    assert (info.status, info.first_seq, info.last_seq, info.summary, info.ended_at) == (
        "settled", 2, 4, {"paid": 300}, closing.ts)  # type: ignore[union-attr]
    assert journal.open_rounds("T1") == []
    assert journal.check_projections("T1") == []
    total = journal.meters("T1")["total"]
    assert (total.rounds, total.wagered, total.paid, total.house_win) == (1, 1000, 300, 700)
    assert journal.meters_from_chain("T1") == journal.meters("T1")
    assert journal.meters("T2") == {}


def test_a_round_is_settled_only_by_its_closing_record(journal: Journal) -> None:
    journal.append("T1", "round.open", {"game": "g", "config_version": "v", "dealer": "d"},
                   "ann", round_no=1,
                   also=lambda c: upsert_round(c, "T1", 1, game="g", config_version="v",
                                               dealer="d"))
    with pytest.raises(JournalError, match="closing record"):
        journal.append("T1", "card", {}, "ann", round_no=1,
                       also=lambda c: upsert_round(c, "T1", 1, status="settled"))
    assert journal.round_info("T1", 1).status == "open"  # type: ignore[union-attr]


def test_a_round_never_mixes_configuration_versions(journal: Journal, db: Database) -> None:
    journal.append("T1", "round.open", {}, "ann/dealer", round_no=1,
                   also=lambda c: upsert_round(c, "T1", 1, game="bourre",
                                               config_version="a" * 64, dealer="ann"))
    with pytest.raises(JournalError, match="never mixes"):
        journal.append("T1", "round.settle", {}, "ann/dealer", round_no=1,
                       also=lambda c: upsert_round(c, "T1", 1, config_version="b" * 64))
    assert journal.last("T1").seq == 1  # type: ignore[union-attr]
    with pytest.raises(JournalError, match="no journal records"):
        journal.append("T1", "x", {}, "ann", round_no=1,
                       also=lambda c: upsert_round(c, "T1", 99, game="g",
                                                   config_version="c", dealer="d"))


def test_recent_rounds_newest_first(journal: Journal) -> None:
    for n in range(1, 15):
        journal.append("T1", "round.open", {"game": "lapaire", "config_version": "v",
                                            "dealer": "ann"}, "ann", round_no=n,
                       also=lambda c, n=n: upsert_round(c, "T1", n, game="lapaire",
                                                        config_version="v", dealer="ann"))
    assert [r.round_no for r in journal.recent_rounds("T1")] == list(range(14, 4, -1))
    assert [r.round_no for r in journal.recent_rounds("T1", last=3)] == [14, 13, 12]


def test_meter_delta_refuses_floats() -> None:
    with pytest.raises(JournalError, match="integer"):
        MeterDelta(wagered=1.5)  # type: ignore[arg-type]


def test_significant_events(journal: Journal) -> None:
    clock = [datetime(2026, 1, 1, 12, 0, tzinfo=UTC)]
    journal.clock = lambda: clock[0]
    for kind in ("startup", "wager.place", "device.lost", "login.failed", "card", "void"):
        journal.append("T1", kind, {}, "x")
        clock[0] += timedelta(minutes=1)
    journal.append("T2", "lockout", {}, "x")
    assert [e.kind for e in journal.events("T1")] == [
        "startup", "device.lost", "login.failed", "void"]
    assert [e.kind for e in journal.events()] == [
        "startup", "device.lost", "login.failed", "void", "lockout"]
    start = datetime(2026, 1, 1, 12, 1, tzinfo=UTC)
    assert [e.kind for e in journal.events("T1", since=start,
                                           until=start + timedelta(minutes=3))] == [
        "device.lost", "login.failed"]
    assert [e.kind for e in journal.events("T1", kinds=["card"])] == ["card"]


def test_checkpoint_writes_database_and_anchor(journal: Journal, db: Database) -> None:
    journal.append("T1", "startup", {}, "station")
    cp = journal.checkpoint("T1", "sue/supervisor")
    assert cp.seq == 2
    assert journal.last("T1").kind == "checkpoint"  # type: ignore[union-attr]
    assert journal.anchor_path is not None
    line = journal.anchor_path.read_text().split()
    assert line[:3] == ["T1", "2", cp.hash]
    assert [c.seq for c in journal.db_checkpoints("T1")] == [2]
    [result] = journal.verify()
    assert result.ok and result.checkpoints == 1 and result.records == 2


def test_verify_good_chains(journal: Journal) -> None:
    for i in range(50):
        journal.append_many(f"T{i % 3}", [Fact("x", {"i": i}, "d", i)])
    results = journal.verify()
    assert [r.table_id for r in results] == ["T0", "T1", "T2"]
    assert all(r.ok for r in results), results
    assert sum(r.records for r in results) == 50
    assert "ok, 17 records" in str(results[0])


def test_verify_with_another_key_fails_at_record_one(journal: Journal, db: Database,
                                                     tmp_path: Path) -> None:
    journal.append("T1", "startup", {}, "station")
    other = Journal(db, create_key(tmp_path / "other.key"))
    [result] = other.verify()
    assert not result.ok and result.bad_seq == 1
    assert "wrong journal key" in str(result)


def test_concurrent_writers_queue_and_chain_stays_whole(db_url: str, tmp_path: Path) -> None:
    key = create_key(tmp_path / "journal.key")
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        database = open_database(db_url)
        j = Journal(database, key)
        try:
            for i in range(25):
                j.append("T1", "w", {"writer": n, "i": i}, f"w{n}")
        except BaseException as e:  # collected and asserted below
            errors.append(e)
        finally:
            database.close()

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    database = open_database(db_url)
    j = Journal(database, key)
    assert [r.seq for r in j.records("T1")] == list(range(1, 101))
    assert j.verify()[0].ok
    database.close()


@pytest.mark.postgres
def test_unique_violation_is_a_clear_conflict(pg_db_url: str, tmp_path: Path) -> None:
    """A writer that bypasses the per-table lock takes seq 2 while append is deciding on it."""
    import psycopg

    db = open_database(pg_db_url)
    journal = Journal(db, create_key(tmp_path / "journal.key"))
    journal.append("T1", "startup", {}, "station")
    libpq = pg_db_url.replace("postgresql+psycopg://", "postgresql://")
    rogue = psycopg.connect(libpq)
    rogue.execute("INSERT INTO journal (table_id, seq, ts, actor, kind, payload, prev_hash, "
                  "hash) VALUES ('T1', 2, 't', 'a', 'k', '{}', 'p', 'h')")
    outcome: list[BaseException | None] = []
    projections: list[int] = []

    def append() -> None:
        try:
            journal.append("T1", "wager", {}, "ann", also=lambda c: projections.append(1))
            outcome.append(None)
        except BaseException as e:  # asserted below
            outcome.append(e)

    t = threading.Thread(target=append)
    t.start()
    # Wait until the append is blocked on the rogue row's uncommitted key, then commit it.
    probe = psycopg.connect(libpq, autocommit=True)
    for _ in range(500):
        waiting = probe.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                                "'Lock' AND datname = current_database()").fetchone()
        if waiting and waiting[0]:
            break
        threading.Event().wait(0.01)
    rogue.commit()
    t.join(30)
    assert isinstance(outcome[0], JournalConflict), outcome
    assert "nothing was written" in str(outcome[0])
    assert projections == []
    assert [r.seq for r in journal.records("T1")] == [1, 2]
    assert journal.last("T1").kind == "k"  # type: ignore[union-attr]
    rogue.close()
    probe.close()
    db.close()
