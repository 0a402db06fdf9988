"""Tables forwarding their journals to the floor's PostgreSQL (dealer_station/floor): the copy
equals the table's, re-sends change nothing, a table deals on through hard floor outages and
catches up, and a local journal cut short or edited after forwarding is refused at the floor
and reported by ``audit verify --floor``. Against a real PostgreSQL server throughout."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from waiting import wait_until

from dealer_station import registry as games
from dealer_station.audit import schema
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.pgcluster import PgCluster, find_bindir
from dealer_station.cli.main import main
from dealer_station.floor.forwarder import FloorUnreachable, Forwarder
from dealer_station.floor.receiver import ChainRefused, floor_head
from dealer_station.floor.status import table_statuses
from dealer_station.table.parts import SIMULATE

pytestmark = pytest.mark.postgres

NO_FLOOR = "postgresql+psycopg://postgres@127.0.0.1:9/nowhere"   # nothing listens on port 9


def play(journal: Journal, table: str, rounds: int, seed: int, game: str = "lapaire") -> None:
    games.game(game).part(SIMULATE)(journal, table, rounds, seed=seed, config_path=None,
                                      quiet=True)


class Table:
    """One table: its own SQLite journal under a key shared by the floor's tables."""

    def __init__(self, tmp: Path, table_id: str, key: JournalKey) -> None:
        self.table_id = table_id
        self.url = f"sqlite:///{tmp / f'{table_id}.db'}"
        self.db = open_database(self.url)
        self.journal = Journal(self.db, key)

    def head(self) -> tuple[int, str | None]:
        last = self.journal.last(self.table_id)
        return (0, None) if last is None else (last.seq, last.hash)


@pytest.fixture
def key(tmp_path: Path) -> JournalKey:
    return create_key(tmp_path / "floor.key")


@pytest.fixture
def floor(pg_db_url: str) -> Iterator[Database]:
    db = open_database(pg_db_url)
    yield db
    db.close()


def floor_url(floor: Database) -> str:
    return floor.engine.url.render_as_string(hide_password=False)


def heads_equal(table: Table, floor: Database) -> bool:
    with floor.read() as conn:
        head = floor_head(conn, table.table_id)
    return (head.seq, head.hash) == table.head()


def test_the_floor_copy_is_the_tables_and_a_resend_changes_nothing(
        tmp_path: Path, key: JournalKey, floor: Database) -> None:
    t1, t2 = Table(tmp_path, "T1", key), Table(tmp_path, "T2", key)
    play(t1.journal, "T1", 12, seed=1)
    play(t2.journal, "T2", 6, seed=2, game="bourre")
    for t in (t1, t2):
        Forwarder(t.journal, floor_url(floor), t.table_id).sync()
        assert heads_equal(t, floor)
    with floor.read() as conn:
        before = conn.execute(text("SELECT count(*) FROM journal")).scalar()
    # Sent again, from the start: the floor already holds each record and takes none twice.
    fwd = Forwarder(t1.journal, floor_url(floor), "T1")
    with floor.write() as conn:
        from dealer_station.floor.receiver import LocalState, receive
        rows = fwd._pending(0, 10_000)
        receive(conn, "T1", rows, LocalState(t1.head()[0], t1.head()[1], None))
    with floor.read() as conn:
        assert conn.execute(text("SELECT count(*) FROM journal")).scalar() == before
    # Every field and hash as the table wrote it; the chain verifies on the floor with the
    # key, and the floor's rounds and meters are what the chain says.
    floor_journal = Journal(floor, key)
    for t in (t1, t2):
        assert [r.hash for r in floor_journal.records(t.table_id)] == [
            r.hash for r in t.journal.records(t.table_id)]
        result = floor_journal.verify_table(t.table_id)
        assert result.ok, str(result)
        assert floor_journal.check_projections(t.table_id) == []
        assert floor_journal.meters(t.table_id) == t.journal.meters(t.table_id)
        assert floor_journal.recent_rounds(t.table_id, 100) == t.journal.recent_rounds(
            t.table_id, 100)


def test_records_that_do_not_link_are_refused_and_nothing_is_written(
        tmp_path: Path, key: JournalKey, floor: Database) -> None:
    from dealer_station.floor.receiver import LocalState, receive

    t = Table(tmp_path, "T1", key)
    play(t.journal, "T1", 3, seed=3)
    fwd = Forwarder(t.journal, floor_url(floor), "T1")
    rows = fwd._pending(0, 10_000)
    with floor.write() as conn:
        receive(conn, "T1", rows[:10], LocalState(10, rows[9]["hash"], None))
    cases = {
        "a gap": (rows[11:20], "are missing"),
        "a broken link": ([{**rows[10], "prev_hash": "0" * 64}], "does not link"),
        "a different record 5": ([{**rows[4], "hash": "f" * 64}], "differs"),
    }
    for name, (bad, says) in cases.items():
        with pytest.raises(ChainRefused, match=says), floor.write() as conn:
            receive(conn, "T1", bad, LocalState(len(rows), rows[-1]["hash"], None))
        with floor.read() as conn:
            assert floor_head(conn, "T1").seq == 10, name


def crash(cluster: PgCluster) -> None:
    """The server stopped hard (no shutdown checkpoint: as if its machine lost power)."""
    cluster._run(str(cluster.bindir / "pg_ctl"), "stop", "-D", str(cluster.root / "data"),
                 "-m", "immediate", "-w")


def restart(cluster: PgCluster) -> None:
    cluster._run(str(cluster.bindir / "pg_ctl"), "start", "-D", str(cluster.root / "data"),
                 "-w", "-t", "60", "-l", str(cluster.root / "server.log"), "-o",
                 f"-c listen_addresses=127.0.0.1 -c unix_socket_directories={cluster.root} "
                 f"-c fsync=off -p {cluster.port}")


def test_tables_deal_on_through_hard_floor_outages_and_catch_up(
        tmp_path: Path, key: JournalKey) -> None:
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries")
    cluster = PgCluster(bindir).start()
    try:
        url = cluster.create_database("floor")
        tables = [Table(tmp_path, f"T{n}", key) for n in (1, 2, 3)]
        forwarders = [Forwarder(t.journal, url, t.table_id, poll_s=0.05, backoff_s=(0.1, 0.5))
                      for t in tables]
        for f in forwarders:
            f.start()
        stop = threading.Event()
        played = {t.table_id: 0 for t in tables}
        errors: list[BaseException] = []

        def deal(t: Table, seed: int) -> None:
            try:
                while not stop.is_set():
                    play(t.journal, t.table_id, 2, seed=seed + played[t.table_id])
                    played[t.table_id] += 2
            except BaseException as e:      # the test fails below, naming it
                errors.append(e)

        threads = [threading.Thread(target=deal, args=(t, 100 * n))
                   for n, t in enumerate(tables)]
        for th in threads:
            th.start()
        def dealt_since(before: dict[str, int]) -> bool:
            return all(played[k] > before[k] for k in played) or bool(errors)

        for _outage in range(3):
            # Some play reaches the floor, then the floor dies: every table goes on dealing
            # (waited for in rounds dealt, not seconds: a loaded machine only takes longer).
            wait_until(lambda: dealt_since(dict.fromkeys(played, 0)), "every table dealing")
            before = dict(played)
            crash(cluster)
            wait_until(lambda b=before: dealt_since(b), "every table dealing with the floor down")
            assert not errors, errors
            wait_until(lambda: all(f.link.state == "offline" for f in forwarders),
                       "every forwarder to see the floor down")
            before = dict(played)
            wait_until(lambda b=before: dealt_since(b), "more play with the floor down")
            restart(cluster)
            # Each outage ends for every table before the next begins.
            wait_until(lambda: all(f.link.state == "online" for f in forwarders),
                       "every forwarder back online")
        before = dict(played)
        wait_until(lambda: dealt_since(before), "play after the last outage")
        stop.set()
        for th in threads:
            th.join(60)
        assert not errors, errors
        floor = open_database(url)
        try:
            wait_until(lambda: all(heads_equal(t, floor) for t in tables),
                       "the floor to catch up with every table", poll=0.2)
            for f in forwarders:
                f.stop()
            floor_journal = Journal(floor, key)
            for t in tables:
                assert heads_equal(t, floor), t.table_id
                result = floor_journal.verify_table(t.table_id)
                assert result.ok, str(result)
                assert floor_journal.check_projections(t.table_id) == []
                kinds = [r.kind for r in t.journal.records(t.table_id,
                                                           kinds=["floor.*"])]
                # Each outage journaled once, and its end, in the table's own chain; and
                # forwarded like any record.
                assert kinds.count("floor.lost") == 3 and kinds.count("floor.restored") == 3
                assert [r.kind for r in floor_journal.records(
                    t.table_id, kinds=["floor.*"])] == kinds
        finally:
            floor.close()
    finally:
        cluster.stop()


def test_a_local_journal_cut_short_after_forwarding_is_refused_and_reported(
        tmp_path: Path, key: JournalKey, floor: Database,
        capsys: pytest.CaptureFixture[str]) -> None:
    t = Table(tmp_path, "T1", key)
    play(t.journal, "T1", 5, seed=5)
    Forwarder(t.journal, floor_url(floor), "T1").sync()
    held = t.head()[0]
    with t.db.write() as conn:                       # someone with the file, not the key
        conn.execute(text("DELETE FROM journal WHERE table_id = 'T1' AND seq > :s"),
                     {"s": held - 7})
    with pytest.raises(ChainRefused, match="cut short"):
        Forwarder(t.journal, floor_url(floor), "T1").sync()
    # The floor keeps its copy and says the table is refused.
    with floor.read() as conn:
        assert floor_head(conn, "T1").seq == held
        reasons = list(conn.execute(select(schema.floor_refusals.c.reason)).scalars())
    assert reasons and "cut short" in reasons[0]
    (row,) = table_statuses(floor)
    assert row.refused and row.state == "refused"
    args = ["audit", "verify", "--db", t.url, "--key", str(key.path), "--floor",
            floor_url(floor)]
    assert main(args) == 1
    out = capsys.readouterr().out
    # (The refused forwarder journaled its refusal in the table's chain, at record
    # held - 6, so that is where the table's journal and the floor's copy now part.)
    assert "FAILED against the floor" in out and f"record {held - 6} differs" in out
    refusal = t.journal.last("T1")
    assert refusal is not None and refusal.kind == "floor.refused"
    # floor sync says so too, with exit 1.
    assert main(["floor", "sync", "--db", t.url, "--key", str(key.path), "--floor",
                 floor_url(floor)]) == 1
    assert "refused by the floor" in capsys.readouterr().out


def test_a_record_edited_after_forwarding_is_refused_at_the_next_start(
        tmp_path: Path, key: JournalKey, floor: Database,
        capsys: pytest.CaptureFixture[str]) -> None:
    t = Table(tmp_path, "T1", key)
    play(t.journal, "T1", 4, seed=6)
    Forwarder(t.journal, floor_url(floor), "T1").sync()
    with t.db.write() as conn:                      # a wager's amount, hash left as it was
        seq = conn.execute(text("SELECT seq FROM journal WHERE kind = 'wager.place' "
                                "ORDER BY seq LIMIT 1")).scalar()
        conn.exec_driver_sql("UPDATE journal SET payload = replace(payload, '\"amount\":', "
                             "'\"amount\":9') WHERE seq = ?", (seq,))
    with pytest.raises(ChainRefused, match=f"record {seq} differs .* payload"):
        Forwarder(t.journal, floor_url(floor), "T1").sync()
    assert main(["audit", "verify", "--db", t.url, "--key", str(key.path), "--floor",
                 floor_url(floor)]) == 1
    assert f"record {seq} differs from the floor's copy in payload" in capsys.readouterr().out


def test_a_record_edited_before_forwarding_never_leaves_the_table(
        tmp_path: Path, key: JournalKey, floor: Database) -> None:
    t = Table(tmp_path, "T1", key)
    play(t.journal, "T1", 2, seed=8)
    Forwarder(t.journal, floor_url(floor), "T1").sync()
    held = t.head()[0]
    play(t.journal, "T1", 2, seed=9)
    with t.db.write() as conn:
        conn.execute(text("UPDATE journal SET actor = 'mallory/dealer' WHERE seq = :s"),
                     {"s": held + 3})
    with pytest.raises(ChainRefused, match=f"record {held + 3} fails its keyed hash"):
        Forwarder(t.journal, floor_url(floor), "T1").sync()
    with floor.read() as conn:
        assert floor_head(conn, "T1").seq == held + 2     # the two before it went


def test_floor_sync_and_status_keep_their_command_line_contract(
        tmp_path: Path, key: JournalKey, floor: Database,
        capsys: pytest.CaptureFixture[str]) -> None:
    t = Table(tmp_path, "T7", key)
    play(t.journal, "T7", 3, seed=10)
    base = ["--db", t.url, "--key", str(key.path)]
    assert main(["floor", "sync", *base, "--floor", floor_url(floor)]) == 0
    assert "the floor holds all" in capsys.readouterr().out
    assert main(["floor", "sync", *base, "--floor", NO_FLOOR]) == 2
    err = capsys.readouterr().err
    assert "cannot be reached" in err and "Traceback" not in err
    assert main(["floor", "status", "--floor", floor_url(floor), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    for field in ("table", "game", "seq", "hash", "lag_seconds", "state", "config_version",
                  "refused"):
        assert field in row
    assert row["table"] == "T7" and row["game"] == "lapaire" and row["refused"] is False
    assert (row["seq"], row["hash"]) == t.head()
    assert row["state"] == "between rounds" and row["lag_seconds"] == 0.0
    adopted = [r.payload["version"] for r in t.journal.records("T7", kinds=["config.change"])]
    assert row["config_version"] == adopted[-1]
    assert main(["audit", "verify", *base, "--floor", floor_url(floor)]) == 0
    assert "agrees with the floor's copy (records 1 to" in capsys.readouterr().out


def test_simulate_forwards_while_it_plays(tmp_path: Path, key: JournalKey, floor: Database,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'sim.db'}"
    assert main(["simulate", "--db", url, "--key", str(key.path), "--rounds", "5", "--seed",
                 "3", "--quiet", "--table", "T9", "--floor", floor_url(floor)]) == 0
    assert "floor: holds all" in capsys.readouterr().out
    local = Journal(open_database(url), key)
    last = local.last("T9")
    assert last is not None
    with floor.read() as conn:
        assert floor_head(conn, "T9").seq == last.seq
    # With the floor down, play goes on and the records wait.
    assert main(["simulate", "--db", url, "--key", str(key.path), "--rounds", "2", "--seed",
                 "4", "--quiet", "--table", "T9", "--floor", NO_FLOOR]) == 0
    assert "floor: offline" in capsys.readouterr().out
    assert [r.kind for r in local.records("T9", kinds=["floor.*"])] == ["floor.lost"]
    local.db.close()


def test_the_unreachable_floor_is_said_in_the_device_bar(qtbot: Any, tmp_path: Path) -> None:
    from test_ui_fit import check_fits, header_controls, lapaire_controls
    from ui_support import WAIT_MS, make_station, open_window, sign_in

    from dealer_station.floor.forwarder import Link

    station = make_station(tmp_path, floor=NO_FLOOR)
    try:
        w = open_window(qtbot, station)
        pill = w.devices_bar.floor_pill
        qtbot.waitUntil(lambda: pill.isVisible() and pill.state == "offline", timeout=WAIT_MS)
        assert pill.state_text.startswith("OFFLINE · ") and "waiting" in pill.state_text
        # All of it, said by a touch (a touch screen has no tooltips).
        assert "Floor offline, " in pill.full_text() and "records waiting" in pill.full_text()
        assert pill.waiting >= 1
        kinds = [r.kind for r in station.journal.records(station.table_id,
                                                         kinds=["floor.*"])]
        assert kinds == ["floor.lost"]
        # The header still fits 1280x800 with a long wait and the longest role signed in.
        pill.set_link(Link("offline", 1_234_567, 0, "connection refused"))
        sign_in(qtbot, w, "super", "2222")
        check_fits(qtbot, w, header_controls(w) | {"the floor's state": pill})
        w.show_screen("dealer")
        check_fits(qtbot, w, header_controls(w) | lapaire_controls(w))
        w.shutdown()
    finally:
        station.close()


def test_no_floor_unreachable_error_escapes_as_anything_else(
        tmp_path: Path, key: JournalKey) -> None:
    t = Table(tmp_path, "T1", key)
    play(t.journal, "T1", 1, seed=1)
    with pytest.raises(FloorUnreachable, match="cannot be reached"):
        Forwarder(t.journal, NO_FLOOR, "T1").sync()


def test_two_forwarders_of_one_table_queue_and_never_refuse_each_other(
        tmp_path: Path, key: JournalKey, floor: Database) -> None:
    """The station's forwarder and a `floor sync` run by hand, both while the table deals."""
    t = Table(tmp_path, "T1", key)
    station = Forwarder(t.journal, floor_url(floor), "T1", poll_s=0.01)
    station.start()
    stop = threading.Event()
    problems: list[BaseException] = []

    def by_hand() -> None:
        while not stop.is_set():
            try:
                Forwarder(t.journal, floor_url(floor), "T1", journal_outages=False).sync()
            except BaseException as e:
                problems.append(e)
                return

    hand = threading.Thread(target=by_hand)
    hand.start()
    try:
        play(t.journal, "T1", 15, seed=11)
    finally:
        stop.set()
        hand.join(30)
    Forwarder(t.journal, floor_url(floor), "T1").sync()
    station.stop()
    assert not problems, problems
    assert station.link.state == "online", station.link
    assert heads_equal(t, floor)
    with floor.read() as conn:
        assert conn.execute(select(schema.floor_refusals)).first() is None
    result = Journal(floor, key).verify_table("T1")
    assert result.ok, str(result)


def test_the_regulators_commands_work_on_the_floors_copy_table_by_table(
        tmp_path: Path, key: JournalKey, floor: Database,
        capsys: pytest.CaptureFixture[str]) -> None:
    """audit verify|replay|meters and recall, pointed at the floor database, answer for each
    table as they do on the table's own journal."""
    t1, t2 = Table(tmp_path, "T1", key), Table(tmp_path, "T2", key)
    play(t1.journal, "T1", 8, seed=21)
    play(t2.journal, "T2", 4, seed=22, game="bourre")
    for t in (t1, t2):
        Forwarder(t.journal, floor_url(floor), t.table_id).sync()
    at_floor = ["--db", floor_url(floor), "--key", str(key.path)]
    capsys.readouterr()
    assert main(["audit", "verify", *at_floor]) == 0
    out = capsys.readouterr().out
    assert "table T1: ok" in out and "table T2: ok" in out
    for t in (t1, t2):
        local = ["--db", t.url, "--key", str(key.path), "--table", t.table_id]
        answers = []
        for args in (["audit", "replay"], ["audit", "meters"], ["recall", "--last", "3",
                                                                "--json"]):
            assert main([*args, *at_floor, "--table", t.table_id]) == 0
            floor_out = capsys.readouterr().out
            assert main([*args, *local]) == 0
            assert floor_out == capsys.readouterr().out, args
            answers.append(floor_out)
        assert "0 difference" in answers[0] or "no difference" in answers[0].lower()
        assert len(json.loads(answers[2])) == 3
