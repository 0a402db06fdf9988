"""The floor's failover (issue 26), against a real primary and a streaming standby
(dealer_station/audit/pgcluster.PgPair) reached through one multi-host URL
(``target_session_attrs=read-write``): a table deals on through a hard failover and its whole
chain ends up on the new primary; with asynchronous replication a standby that missed
records the floor had acknowledged is said in the table's own chain (``floor.behind``, with
the right count) and the records are sent again; with synchronous replication nothing is
lost and nothing is said. A publication and a user change a table adopted and the floor
lost in a failover: the table keeps them, says so, and ``floor versions`` lists them with
the table's own chained copy for the operator to publish again.

Each test fails if the table loses a record, reverts what it adopted or stays silent. Every
wait is on a condition (tests/waiting.py), never on the clock."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from waiting import wait_until

from dealer_station import registry as games
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.pgcluster import PgPair, find_bindir
from dealer_station.cli.main import main
from dealer_station.floor.forwarder import Forwarder
from dealer_station.table.parts import SIMULATE

pytestmark = pytest.mark.postgres


def play(journal: Journal, table: str, rounds: int, seed: int) -> None:
    games.game("lapaire").part(SIMULATE)(journal, table, rounds, seed=seed, config_path=None,
                                         quiet=True)


class Table:
    """One table: its own SQLite journal under the key the floor's tables share."""

    def __init__(self, tmp: Path, table_id: str, key: JournalKey) -> None:
        self.table_id = table_id
        self.url = f"sqlite:///{tmp / f'{table_id}.db'}"
        self.db = open_database(self.url)
        self.journal = Journal(self.db, key)

    def head(self) -> int:
        last = self.journal.last(self.table_id)
        return 0 if last is None else last.seq

    def kinds(self, kind: str) -> list[dict[str, object]]:
        return [r.payload for r in self.journal.records(self.table_id) if r.kind == kind]


class Dealer:
    """A table dealing two rounds at a time in a thread of its own, until stopped."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rounds = 0
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._deal, daemon=True)
        self._thread.start()

    def _deal(self) -> None:
        try:
            while not self._stop.is_set():
                play(self.table.journal, self.table.table_id, 2, seed=1000 + self.rounds)
                self.rounds += 2
        except BaseException as e:      # the test fails, naming it
            self.errors.append(e)

    def deals_on(self) -> None:
        """Return once two more rounds were dealt (waited for in rounds, not seconds)."""
        before = self.rounds
        wait_until(lambda: self.rounds >= before + 2 or bool(self.errors), "more rounds dealt")
        assert not self.errors, self.errors

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(120)
        assert not self.errors, self.errors


@pytest.fixture
def bindir() -> Path:
    found = find_bindir()
    if found is None:
        pytest.skip("no PostgreSQL server binaries")
    return found


@pytest.fixture
def key(tmp_path: Path) -> JournalKey:
    return create_key(tmp_path / "floor.key")


def standby_head(pair: PgPair, table_id: str) -> int:
    """The table's last record on the standby (read-only, as it stands)."""
    rows = pair.standby.sql(f"SELECT coalesce(max(seq), 0) FROM journal "
                            f"WHERE table_id = '{table_id}'", "floor")
    return int(str(rows[0][0]))


def floor_hashes(url: str, key: JournalKey, table_id: str) -> list[str]:
    db = open_database(url)
    try:
        return [r.hash for r in Journal(db, key).records(table_id)]
    finally:
        db.close()


def run_through_failover(tmp_path: Path, key: JournalKey, pair: PgPair, *,
                         standby_misses: bool) -> tuple[Table, Forwarder, int, int]:
    """A table forwarding through the multi-host URL while it deals; the primary killed
    mid-run (after the standby was stopped, if it is to miss records), the standby promoted;
    returns once the floor holds the whole chain again: the table, its forwarder, the last
    record the floor had acknowledged before the primary died and the standby's head then."""
    url = pair.create_database("floor")
    t = Table(tmp_path, "T1", key)
    acked: list[int] = [0]

    def forwarded(_first: int, last: int, _at: float) -> None:
        acked[0] = max(acked[0], last)

    fwd = Forwarder(t.journal, url, "T1", poll_s=0.05, backoff_s=(0.1, 0.5),
                    on_forwarded=forwarded)
    fwd.start()
    dealer = Dealer(t)
    try:
        wait_until(lambda: acked[0] >= 40, "the floor to take the table's first records")
        if standby_misses:
            pair.cut_standby()
            cut_at = t.head()
            # The primary acknowledges records the standby never receives.
            wait_until(lambda: acked[0] > cut_at, "records the standby misses")
        else:
            wait_until(pair.caught_up, "the standby to stream what was sent")
            dealer.deals_on()
        pair.primary.crash()
        wait_until(lambda: fwd.link.state == "offline", "the forwarder to see the floor gone")
        sent = acked[0]           # no acknowledgement can come while no primary is up
        dealer.deals_on()         # the table deals on with no floor
        wait_until(pair.standby_replayed, "the standby to replay what it received")
        held = standby_head(pair, "T1")
        pair.promote()
        dealer.deals_on()         # ... and on, through the promotion
        assert fwd.link.state in ("online", "offline")
    finally:
        dealer.stop()
    wait_until(lambda: fwd.link.state == "online" and fwd.link.waiting == 0
               and fwd.link.floor_seq == t.head(), "the new primary to hold the whole chain")
    fwd.stop()
    return t, fwd, sent, held


def test_a_hard_failover_that_lost_acknowledged_records_is_told_and_mended(
        tmp_path: Path, key: JournalKey, bindir: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    pair = PgPair.start(bindir, synchronous=False)
    try:
        t, fwd, sent, held = run_through_failover(tmp_path, key, pair, standby_misses=True)
        assert held < sent, "the standby was meant to miss acknowledged records"
        url = pair.url("floor")
        # Told once, in the table's own chain, with the floor's head, the head it had
        # acknowledged and the count.
        said = t.kinds("floor.behind")
        assert said == [{"floor": fwd.shown_url, "floor_seq": held, "sent_seq": sent,
                         "lost": sent - held}]
        # The whole chain, record for record, on the new primary; verified with the key.
        assert floor_hashes(url, key, "T1") == [r.hash for r in t.journal.records("T1")]
        assert main(["audit", "verify", "--db", t.url, "--key", str(key.path),
                     "--floor", url]) == 0
        assert "FAILED" not in capsys.readouterr().out
        # The floor's copy carries what the table said.
        assert main(["audit", "events", "--db", url, "--key", str(key.path),
                     "--table", "T1"]) == 0
        out = capsys.readouterr().out
        assert "floor.behind" in out and f'"lost": {sent - held}' in out
    finally:
        pair.stop()


def test_a_synchronous_standby_loses_nothing_and_nothing_is_said(
        tmp_path: Path, key: JournalKey, bindir: Path) -> None:
    pair = PgPair.start(bindir, synchronous=True)
    try:
        t, fwd, sent, held = run_through_failover(tmp_path, key, pair, standby_misses=False)
        assert held >= sent, "a synchronous standby holds every acknowledged record"
        assert t.kinds("floor.behind") == [] and fwd.behind == []
        assert floor_hashes(pair.url("floor"), key, "T1") == [
            r.hash for r in t.journal.records("T1")]
        assert main(["audit", "verify", "--db", t.url, "--key", str(key.path),
                     "--floor", pair.url("floor")]) == 0
    finally:
        pair.stop()
