"""ForwarderHost: many tables of one process over one floor connection, batched into shared
floor transactions. Real SQLite journals, a throwaway PostgreSQL floor: every table's floor
copy must be exactly its journal (nothing lost, doubled or reordered), through an outage of the
floor and beside a table whose records are refused."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy import select, text
from test_floor import Table, floor_url, play
from waiting import wait_until

from dealer_station.audit import schema
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.pgcluster import PgCluster, find_bindir
from dealer_station.floor.multiplex import ForwarderHost
from dealer_station.floor.receiver import floor_head

pytestmark = pytest.mark.postgres
J = schema.journal
COLS = [J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload, J.c.prev_hash,
        J.c.hash]


@pytest.fixture
def key(tmp_path: Path) -> JournalKey:
    return create_key(tmp_path / "floor.key")


def rows(db: Database, table_id: str) -> list[tuple[object, ...]]:
    with db.read() as conn:
        return [tuple(r) for r in conn.execute(select(*COLS).where(J.c.table_id == table_id)
                                               .order_by(J.c.seq))]


def assert_exact_copy(t: Table, floor: Database, key: JournalKey) -> None:
    """The floor's copy is the table's journal, record for record, in order, once each."""
    mine, held = rows(t.db, t.table_id), rows(floor, t.table_id)
    assert [r[0] for r in held] == list(range(1, len(held) + 1)), t.table_id
    assert held == mine, t.table_id
    assert Journal(floor, key).verify_table(t.table_id).ok


def test_many_tables_share_one_connection_and_a_refused_table_holds_up_no_other(
        tmp_path: Path, key: JournalKey, pg_db_url: str) -> None:
    floor = open_database(pg_db_url)
    tables = [Table(tmp_path, f"T{n}", key) for n in range(1, 7)]
    for n, t in enumerate(tables):
        play(t.journal, t.table_id, 3, seed=10 + n)
    bad = tables[-1]               # a record edited before it ever left the table
    with bad.db.write() as conn:
        conn.execute(text("UPDATE journal SET actor = 'mallory/dealer' WHERE seq = 5"))
    host = ForwarderHost(floor_url(floor), poll_s=0.05, heartbeat_s=0.5,
                         tables_per_commit=3, batch=7)   # small: many shared transactions
    links = {t.table_id: host.add(t.journal, t.table_id) for t in tables}
    host.start()
    try:
        good = tables[:-1]
        errors: list[BaseException] = []

        def deal(t: Table, seed: int) -> None:
            try:
                play(t.journal, t.table_id, 4, seed=seed)
            except BaseException as e:       # the test fails below, naming it
                errors.append(e)

        threads = [threading.Thread(target=deal, args=(t, 100 + n)) for n, t in enumerate(good)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        assert not errors, errors
        wait_until(lambda: all(len(rows(floor, t.table_id)) == len(rows(t.db, t.table_id))
                               for t in good), "every good table on the floor", poll=0.2)
        wait_until(lambda: links[bad.table_id].link.state == "refused", "the refusal")
        with floor.read() as conn:
            assert floor_head(conn, bad.table_id).seq == 4     # those before it went
            active = conn.execute(text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            )).scalar()
        assert host.commits > 0
    finally:
        host.stop()
    for t in good:
        assert_exact_copy(t, floor, key)
        assert links[t.table_id].link.state == "online"
    # This test's own connection and the host's one.
    assert active == 2
    floor.close()


def test_a_host_of_tables_deals_on_through_a_floor_outage_and_loses_nothing(
        tmp_path: Path, key: JournalKey) -> None:
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries")
    cluster = PgCluster(bindir, durable=True).start()   # a crash loses no commit
    try:
        url = cluster.create_database("floor")
        tables = [Table(tmp_path, f"T{n}", key) for n in range(1, 5)]
        host = ForwarderHost(url, poll_s=0.05, backoff_s=(0.1, 0.5), tables_per_commit=2)
        links = [host.add(t.journal, t.table_id) for t in tables]
        host.start()
        stop = threading.Event()
        played = {t.table_id: 0 for t in tables}
        errors: list[BaseException] = []

        def deal(t: Table, seed: int) -> None:
            try:
                while not stop.is_set():
                    play(t.journal, t.table_id, 1, seed=seed + played[t.table_id])
                    played[t.table_id] += 1
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=deal, args=(t, 100 * n))
                   for n, t in enumerate(tables)]
        for th in threads:
            th.start()
        wait_until(lambda: all(v >= 2 for v in played.values()) or bool(errors), "dealing")
        cluster.crash()
        wait_until(lambda: all(f.link.state == "offline" for f in links), "offline")
        before = dict(played)
        wait_until(lambda: all(played[k] > before[k] for k in played) or bool(errors),
                   "dealing with the floor down")
        cluster.restart()
        wait_until(lambda: all(f.link.state == "online" for f in links), "back online")
        before = dict(played)
        wait_until(lambda: all(played[k] > before[k] for k in played) or bool(errors),
                   "dealing after")
        stop.set()
        for th in threads:
            th.join(60)
        assert not errors, errors
        floor = open_database(url)
        try:
            wait_until(lambda: all(len(rows(floor, t.table_id)) == len(rows(t.db, t.table_id))
                                   for t in tables), "the floor to catch up", poll=0.2)
            host.stop()
            for t in tables:
                assert_exact_copy(t, floor, key)
                kinds = [r.kind for r in t.journal.records(t.table_id, kinds=["floor.*"])]
                assert kinds == ["floor.lost", "floor.restored"], t.table_id
        finally:
            floor.close()
    finally:
        cluster.stop()
