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

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


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


def primary_head(pair: PgPair, table_id: str) -> int:
    """The table's last record on the (new) primary."""
    rows = pair.primary.sql(f"SELECT coalesce(max(seq), 0) FROM journal "
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
            # The standby first holds what it has streamed so far (the floor's tables
            # included: asynchronous, it could lag even the schema), then streams no more.
            wait_until(pair.caught_up, "the standby to stream what was sent")
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
        # Promoted fenced (read-only to the tables) while the test reads what it holds.
        pair.promote(fenced=True)
        held = primary_head(pair, "T1")
        pair.unfence()
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


# --- what a table adopted and the floor lost in a failover ----------------------------------

PIN = "2468"


class FollowingTable:
    """A La Pair'e table following the floor (publications, users) and forwarding to it."""

    def __init__(self, tmp: Path, table_id: str, key: JournalKey) -> None:
        from dealer_station.app import fast_hasher
        from dealer_station.audit.users import Users
        from dealer_station.games.lapaire.config_file import load_lapaire_config
        from dealer_station.games.lapaire.table.live import LaPaireTable

        self.table_id = table_id
        self.url = f"sqlite:///{tmp / f'{table_id}.db'}"
        self.db = open_database(self.url)
        self.journal = Journal(self.db, key)
        self.users = Users(self.journal, hasher=fast_hasher(), max_failures=3)
        self.table = LaPaireTable(self.journal, table_id, load_lapaire_config(),
                                  dealer="station/dealer")

    def follower(self, url: str) -> Any:
        from dealer_station.floor.follower import Follower

        f = Follower(self.journal, url, self.table, self.users, poll_s=0.1, backoff_s=(0.1, 0.5))
        f.start()
        return f

    def records(self, kind: str) -> list[Any]:
        return [r for r in self.journal.records(self.table_id) if r.kind == kind]


@dataclass
class Lost:
    """One failover that lost a publication and a user change a table had adopted."""

    t: FollowingTable
    pair: PgPair
    url: str
    key: JournalKey
    first: Any             # the publication the new primary still holds (never adopted)
    adopted: Any           # the publication the table adopted and the floor lost
    followers: list[Any]
    forwarder: Forwarder

    def passes(self, n: int = 2) -> None:
        """Wait for ``n`` more full passes of the running follower (read, adopt)."""
        f = self.followers[-1]
        seen = f.status.cycles
        wait_until(lambda: f.status.cycles >= seen + n and f.status.state == "online",
                   "the follower to read the new primary")

    def synced(self) -> None:
        fwd = self.forwarder
        wait_until(lambda: fwd.link.state == "online" and fwd.link.waiting == 0
                   and fwd.link.floor_seq == (self.t.journal.last(self.t.table_id).seq
                                              if self.t.journal.last(self.t.table_id) else 0),
                   "the floor to hold the table's whole chain")


def active(t: FollowingTable, user_id: str) -> bool:
    user = t.users.get(user_id)
    return user is not None and user.active


@pytest.fixture(scope="module")
def lost(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lost]:
    """An asynchronous pair; the floor's users seeded and copied by table T1; publication A
    for T1 (replicated), then the standby's link cut; publication B for T1 and Dana's
    deactivation at the floor; T1 (its follower started only now) adopts B, never A, and
    Dana's deactivation; the primary dies and the standby is promoted: the new primary holds
    A but neither B nor the deactivation."""
    from dealer_station.app import fast_hasher
    from dealer_station.audit.users import Users
    from dealer_station.floor.central import Floor

    found = find_bindir()
    if found is None:
        pytest.skip("no PostgreSQL server binaries")
    tmp = tmp_path_factory.mktemp("lost")
    key = create_key(tmp / "floor.key")
    pair = PgPair.start(found, synchronous=False)
    followers: list[Any] = []
    t: FollowingTable | None = None
    fwd: Forwarder | None = None
    try:
        url = pair.create_database("floor")
        db = open_database(url)
        floor = Journal(db, key)
        floor_users = Users(floor, hasher=fast_hasher(), max_failures=3)
        floor_users.seed([("olive", "Olive Operator", "operator", PIN),
                          ("dana", "Dana Dealer", "dealer", PIN)], actor="setup/console")
        t = FollowingTable(tmp, "T1", key)
        fwd = Forwarder(t.journal, url, "T1", poll_s=0.05, backoff_s=(0.1, 0.5))
        fwd.start()
        first_follower = t.follower(url)
        copied = t
        wait_until(lambda: {u.user_id for u in copied.users.list()} == {"olive", "dana"},
                   "the table to copy the floor's users")
        first_follower.stop()
        central = Floor(floor)
        olive = central.operator("olive")
        base = t.table.config
        first = central.publish(game="lapaire", content=base.with_changes(
            offered={"red": False}).to_data(), reason="no red", actor=olive, tables=["T1"])
        wait_until(pair.caught_up, "the standby to hold publication A")
        pair.cut_standby()
        adopted = central.publish(game="lapaire", content=base.with_changes(
            offered={"black": False}).to_data(), reason="no black tonight", actor=olive,
            tables=["T1"])
        floor_users.deactivate("dana", actor=floor_users.authenticate("olive", PIN),
                               reason="left the company")
        db.close()
        followers.append(t.follower(url))
        table = t
        wait_until(lambda: table.table.upcoming_config_version() == adopted.version,
                   "the table to adopt publication B")
        wait_until(lambda: not active(table, "dana"), "Dana deactivated at the table")
        pair.primary.crash()
        pair.promote()
        yield Lost(t, pair, url, key, first, adopted, followers, fwd)
    finally:
        for f in followers:
            f.stop()
        if fwd is not None:
            fwd.stop()
        if t is not None:
            t.table.shutdown()
            t.db.close()
        pair.stop()


def versions(lost: Lost, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["floor", "versions", "--floor", lost.url, "--key", str(lost.key.path),
                 "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_a_publication_lost_in_a_failover_is_kept_told_listed_and_published_again(
        lost: Lost, capsys: pytest.CaptureFixture[str]) -> None:
    t = lost.t
    lost.passes()
    # The table keeps what it adopted: never publication A, which the new primary still
    # holds and which is older than B.
    assert t.table.upcoming_config_version() == lost.adopted.version
    changes = [r for r in t.records("config.change") if "floor" in r.payload["changes"]]
    assert [r.payload["version"] for r in changes] == [lost.adopted.version]
    # ... and says so, once, in its own chain.
    said = [r.payload for r in t.records("floor.adoption_lost")
            if r.payload["what"] == "publication"]
    assert len(said) == 1 and said[0]["subject"] == lost.adopted.version
    assert said[0]["floor_hashes"] == [lost.adopted.hash]
    assert said[0]["copy"]["table_seq"] == changes[0].seq
    # A follower started again (a station restarted) neither reverts nor says it twice.
    lost.followers[-1].stop()
    lost.followers.append(t.follower(lost.url))
    lost.passes()
    assert t.table.upcoming_config_version() == lost.adopted.version
    assert len([r for r in t.records("floor.adoption_lost")
                if r.payload["what"] == "publication"]) == 1
    # floor versions lists it with the table's own chained copy (its config.change).
    lost.synced()
    listed = [x for x in versions(lost, capsys)["lost"] if x["what"] == "publication"]
    assert listed == [{
        "what": "publication", "table": "T1", "table_seq": changes[0].seq,
        "table_hash": changes[0].hash, "floor_seqs": [lost.adopted.seq],
        "floor_hashes": [lost.adopted.hash], "subject": lost.adopted.version,
        "game": "lapaire", "publisher": "olive/operator", "reason": "no black tonight",
        "published_again": None}]
    assert main(["floor", "versions", "--floor", lost.url, "--key", str(lost.key.path)]) == 0
    assert f"floor publish --again T1:{changes[0].seq}" in capsys.readouterr().out
    # The operator publishes it again from there: the same version, to the table that
    # adopted it; the table, which runs it already, journals no second change.
    assert main(["floor", "publish", "--floor", lost.url, "--key", str(lost.key.path),
                 "--again", f"T1:{changes[0].seq}", "--reason", "lost in the failover",
                 "--actor", "olive"]) == 0
    assert "again as floor record" in capsys.readouterr().out
    lost.passes()
    assert [r.payload["version"] for r in t.records("config.change")
            if "floor" in r.payload["changes"]] == [lost.adopted.version]
    again = [x for x in versions(lost, capsys)["lost"] if x["what"] == "publication"]
    assert again[0]["published_again"] is not None
    pubs = versions(lost, capsys)["publications"]
    assert pubs[-1]["version"] == lost.adopted.version and pubs[-1]["tables"] == ["T1"]
    # Asked again of the same copy, or of a record that adopted nothing: a clear refusal.
    bad = ["floor", "publish", "--floor", lost.url, "--key", str(lost.key.path),
           "--reason", "x", "--actor", "olive", "--again"]
    assert main([*bad, "T1:1"]) == 2
    assert "did not adopt a publication" in capsys.readouterr().err
    assert main([*bad, "T1"]) == 2
    assert "expected TABLE:SEQ" in capsys.readouterr().err


def test_a_user_change_lost_in_a_failover_is_kept_told_listed_and_published_again(
        lost: Lost, capsys: pytest.CaptureFixture[str]) -> None:
    from dealer_station.audit.users import Users

    t = lost.t
    lost.passes()
    # The new primary lost Dana's deactivation; the table keeps it.
    floor_db = open_database(lost.url)
    try:
        assert Users(Journal(floor_db, lost.key)).get("dana").active  # type: ignore[union-attr]
    finally:
        floor_db.close()
    assert not active(t, "dana") and active(t, "olive")
    said = [r for r in t.records("floor.adoption_lost") if r.payload["what"] == "user"]
    assert len(said) == 1 and said[0].payload["subject"] == "dana"
    facts = said[0].payload["copy"]["facts"]
    assert [f["kind"] for f in facts] == ["user.deactivate"]
    lost.synced()
    listed = [x for x in versions(lost, capsys)["lost"] if x["what"] == "user"]
    assert [(x["table"], x["table_seq"], x["subject"], x["published_again"])
            for x in listed] == [("T1", said[0].seq, "dana", None)]
    assert main(["floor", "publish", "--floor", lost.url, "--key", str(lost.key.path),
                 "--again", f"T1:{said[0].seq}", "--actor", "olive"]) == 0
    assert "dana's records journaled again" in capsys.readouterr().out
    floor_db = open_database(lost.url)
    try:
        assert not Users(Journal(floor_db, lost.key)).get("dana").active  # type: ignore[union-attr]
    finally:
        floor_db.close()
    listed = [x for x in versions(lost, capsys)["lost"] if x["what"] == "user"]
    assert listed[0]["published_again"] is not None
    lost.passes()
    assert not active(t, "dana")
