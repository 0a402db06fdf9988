"""One operator, many tables (dealer_station/floor/central.py and follower.py): a version
published at the floor for a group is adopted by the group's tables between rounds only
(also by a table that was offline when it was published), never by a table outside the
group; the floor's users, lockouts and deactivations reach every table's own users within
seconds. Against a real PostgreSQL floor throughout."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from dealer_station.app import fast_hasher
from dealer_station.audit import schema
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Copied, Journal, Record
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.users import AuthError, LockedOut, User, UserMismatch, Users, WrongPin
from dealer_station.cli.main import main
from dealer_station.floor.central import Floor, FloorChainBroken, PublishError, adoptions
from dealer_station.floor.follower import Follower
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.table.live import LaPaireTable

pytestmark = pytest.mark.postgres

NO_FLOOR = "postgresql+psycopg://postgres@127.0.0.1:9/x"      # nothing listens on port 9
RED = Wager(1, "red", (), 200)
K_STRAIGHT = Wager(1, "straight", ("K",), 100)
PIN = "2468"


def wait_for(check: Callable[[], bool], timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


class Table:
    """A La Pair'e table: its own SQLite journal under the key the floor's tables share."""

    def __init__(self, tmp: Path, table_id: str, key: JournalKey | bytes) -> None:
        self.table_id = table_id
        self.db = open_database(f"sqlite:///{tmp / f'{table_id}.db'}")
        self.journal = Journal(self.db, key)
        self.users = Users(self.journal, hasher=fast_hasher(), max_failures=3)
        self.table = LaPaireTable(self.journal, table_id, load_lapaire_config(),
                                  dealer="station/dealer")
        self.followers: list[Follower] = []

    def follower(self, url: str, *, start: bool = True) -> Follower:
        f = Follower(self.journal, url, self.table, self.users, poll_s=0.2,
                     backoff_s=(0.1, 0.5))
        self.followers.append(f)
        if start:
            f.start()
        return f

    def floor_changes(self) -> list[Record]:
        """The table's config.change records that adopted a floor publication."""
        return [r for r in self.journal.records(self.table_id)
                if r.kind == "config.change" and "floor" in r.payload.get("changes", {})]

    def close(self) -> None:
        for f in self.followers:
            f.stop()
        self.table.shutdown()
        self.db.close()


@pytest.fixture
def key(tmp_path: Path) -> JournalKey:
    return create_key(tmp_path / "floor.key")


@pytest.fixture
def floor(pg_db_url: str, key: JournalKey) -> Iterator[Journal]:
    db = open_database(pg_db_url)
    journal = Journal(db, key)
    Users(journal, hasher=fast_hasher(), max_failures=3).seed(
        [("olive", "Olive Operator", "operator", PIN), ("dana", "Dana Dealer", "dealer", PIN),
         ("sam", "Sam Supervisor", "supervisor", PIN)], actor="setup/console")
    yield journal
    db.close()


@pytest.fixture
def tables(tmp_path: Path, key: JournalKey) -> Iterator[Callable[[str], Table]]:
    made: list[Table] = []

    def make(table_id: str) -> Table:
        made.append(Table(tmp_path, table_id, key))
        return made[-1]

    yield make
    for t in made:
        t.close()


def url_of(journal: Journal) -> str:
    db: Database = journal.db
    return db.engine.url.render_as_string(hide_password=False)


def operator(floor: Journal) -> User:
    return Floor(floor).operator("olive")


def no_red(t: LaPaireTable) -> dict[str, object]:
    return t.config.with_changes(offered={"red": False}).to_data()


def test_a_version_published_to_a_group_is_adopted_between_rounds_only(
        floor: Journal, tables: Callable[[str], Table]) -> None:
    t1, t2, t3 = tables("T1"), tables("T2"), tables("T3")
    central = Floor(floor)
    central.define_group("pit1", ["T1", "T2"], actor=operator(floor), reason="north pit")
    first = t1.table.version
    # T2 is offline: its follower cannot reach the floor, and says so.
    offline = t2.follower(NO_FLOOR)
    assert wait_for(lambda: offline.status.state == "offline")
    f1, f3 = t1.follower(url_of(floor)), t3.follower(url_of(floor))
    assert wait_for(lambda: f1.status.state == "online" and f3.status.state == "online")

    t1.table.place_many([K_STRAIGHT, RED])    # a round is open at T1
    assert t1.table.in_round()
    pub = central.publish(game="lapaire", content=no_red(t1.table), reason="no red tonight",
                          actor=operator(floor), group="pit1")
    assert pub.tables == ("T1", "T2") and pub.version != first
    # Seen, but not adopted mid-round: T1 waits for the round to close.
    assert wait_for(lambda: f1.status.waiting_for == pub)
    seen = f1.status.cycles
    assert wait_for(lambda: f1.status.cycles >= seen + 2)   # two more looks, still waiting
    assert t1.floor_changes() == []
    assert t1.table.upcoming_config_version() == first

    # The round closes (voided by the floor's operator, signed in at the table).
    assert wait_for(lambda: t1.users.get("olive") is not None)
    olive = t1.users.authenticate("olive", PIN, table_id="T1")
    t1.table.void(olive, "the player left")
    assert not t1.table.in_round()
    assert wait_for(lambda: len(t1.floor_changes()) == 1)
    rec = t1.floor_changes()[0]
    assert rec.actor == "station/floor"
    assert rec.payload["version"] == pub.version
    floor_said = rec.payload["changes"]["floor"]
    assert (floor_said["seq"], floor_said["hash"]) == (pub.seq, pub.hash)
    assert floor_said["publisher"] == "olive/operator"
    assert floor_said["reason"] == "no red tonight"
    assert rec.payload["content"] == pub.content
    # The next round is played under it (red is no longer offered).
    assert t1.table.upcoming_config_version() == pub.version
    assert t1.table.place_refusal(RED) is not None
    t1.table.place(K_STRAIGHT)
    assert t1.table.current is not None
    round_no = t1.table.round_no
    assert round_no is not None
    info = t1.journal.round_info(t1.table_id, round_no)
    assert info is not None and info.config_version == pub.version

    # T3 is outside the group: it never adopts (two full looks at the floor after the
    # publication was there to see).
    seen = f3.status.cycles
    assert wait_for(lambda: f3.status.cycles >= seen + 2)
    assert t3.floor_changes() == []
    assert t3.table.upcoming_config_version() == first

    # T2 was offline: nothing adopted yet; pointed at the real floor it adopts.
    assert t2.floor_changes() == []
    offline.stop()
    t2.follower(url_of(floor))
    assert wait_for(lambda: len(t2.floor_changes()) == 1)
    assert t2.floor_changes()[0].payload["changes"]["floor"]["hash"] == pub.hash
    assert t2.table.upcoming_config_version() == pub.version
    # Adopted once: a follower started again does not journal it a second time.
    again = t2.follower(url_of(floor), start=False)
    again.follow_once()
    assert len(t2.floor_changes()) == 1


def test_the_floor_shows_which_version_each_table_adopted(
        floor: Journal, tables: Callable[[str], Table]) -> None:
    from dealer_station.floor.forwarder import Forwarder

    t1 = tables("T1")
    pub = Floor(floor).publish(game="lapaire", content=no_red(t1.table), reason="pit change",
                               actor=operator(floor), tables=["T1"])
    t1.follower(url_of(floor))
    assert wait_for(lambda: len(t1.floor_changes()) == 1)
    fwd = Forwarder(t1.journal, url_of(floor), "T1", journal_outages=False)
    try:
        fwd.sync(timeout_s=20)
    finally:
        fwd.stop()
    with floor.db.read() as conn:
        seen = adoptions(conn)
    assert seen["T1"].version == pub.version and seen["T1"].publication == pub.seq


def test_publish_needs_a_reason_and_prints_the_par_sheet(
        floor: Journal, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "lapaire.toml"
    text = (Path(__file__).parents[1] / "config" / "lapaire.toml").read_text()
    cfg.write_text(text.replace("[wagers.red]                                 # card 1 is a "
                                "heart or diamond (a joker is neither)\noffered = true",
                                "[wagers.red]\noffered = false", 1))
    assert "offered = false" in cfg.read_text()
    keyfile = str(tmp_path / "floor.key")
    base = ["floor", "publish", "--floor", url_of(floor), "--key", keyfile, "--tables", "T1,T2",
            "--config", str(cfg), "--actor", "olive"]
    for extra in ([], ["--reason", "   "]):
        assert main(base + extra) == 2
        out = capsys.readouterr()
        assert "publishing needs a reason" in out.err
        assert "Par sheet" not in out.out          # refused before anything else
    assert Floor(floor).publications() == []
    # A dealer may not publish.
    assert main([*base[:-1], "dana", "--reason", "pit change"]) == 2
    assert "only an operator publishes" in capsys.readouterr().err
    assert main([*base, "--reason", "no red in the north pit"]) == 0
    out = capsys.readouterr().out
    assert out.index("Par sheet") < out.index("published lapaire configuration")
    pubs = Floor(floor).publications()
    assert len(pubs) == 1 and pubs[0].tables == ("T1", "T2")
    assert pubs[0].content["wagers"]["red"]["offered"] is False
    assert pubs[0].reason == "no red in the north pit"
    assert main(["floor", "versions", "--floor", url_of(floor), "--key", keyfile,
                 "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["publications"][0]["version"] == pubs[0].version
    # Groups: defined by an operator, then published to.
    assert main(["floor", "groups", "--floor", url_of(floor), "--key", keyfile, "--define",
                 "north", "--tables", "T1,T3", "--actor", "olive"]) == 0
    assert Floor(floor).groups()["north"].tables == ("T1", "T3")
    with pytest.raises(PublishError, match="no group 'south'"):
        Floor(floor).publish(game="lapaire", content=pubs[0].content, reason="x",
                             actor=operator(floor), group="south")


def test_a_lockout_and_a_deactivation_at_the_floor_reach_every_table(
        floor: Journal, tables: Callable[[str], Table]) -> None:
    ts = [tables("T1"), tables("T2")]
    for t in ts:
        t.follower(url_of(floor))
    for t in ts:
        assert wait_for(lambda t=t: {u.user_id for u in t.users.list()}  # type: ignore[misc]
                        == {"olive", "dana", "sam"})
        # The PIN hash was copied bound to the key: the floor's PIN signs in at the table.
        assert t.users.authenticate("dana", PIN).role == "dealer"
        with pytest.raises(WrongPin):
            t.users.authenticate("dana", "0000")
        assert t.users.check_projection() == []
        adopted = [r for r in t.journal.records("station") if r.kind == "user.adopted"]
        assert {u for r in adopted for u in [r.payload["user_id"]]} == {"olive", "dana", "sam"}
        assert adopted and all(r.actor == "station/floor" for r in adopted)

    # Dana is locked out at the floor (three wrong PINs there).
    floor_users = Users(floor, hasher=fast_hasher(), max_failures=3)
    for _ in range(2):
        with pytest.raises(WrongPin):
            floor_users.authenticate("dana", "9999")
    with pytest.raises(LockedOut):
        floor_users.authenticate("dana", "9999")
    start = time.monotonic()

    def refused(t: Table, user_id: str, error: type[Exception]) -> bool:
        try:
            t.users.authenticate(user_id, PIN)
        except error:
            return True
        return False

    for t in ts:
        assert wait_for(lambda t=t: refused(t, "dana", LockedOut), 5.0)  # type: ignore[misc]
        assert t.users.check_projection() == []
    assert time.monotonic() - start < 5.0

    # Sam is deactivated at the floor.
    floor_users.deactivate("sam", actor=floor_users.authenticate("olive", PIN),
                           reason="left the company")
    start = time.monotonic()
    for t in ts:
        assert wait_for(lambda t=t: refused(t, "sam", AuthError), 5.0)  # type: ignore[misc]
        sam = t.users.get("sam")
        assert sam is not None and not sam.active
    assert time.monotonic() - start < 5.0
    # Olive, untouched at the floor, still signs in at every table.
    for t in ts:
        assert t.users.authenticate("olive", PIN).role == "operator"


def test_a_floor_under_another_key_is_refused(
        floor: Journal, tmp_path: Path) -> None:
    other = Table(tmp_path, "T9", b"another key, not the floor's one!")
    try:
        f = other.follower(url_of(floor), start=False)
        with pytest.raises(FloorChainBroken, match="keyed hash"):
            f.follow_once()
        assert other.users.list() == []
        # Users.adopt refuses a PIN hash its key does not bind to the user.
        mac = Users(floor).pin_mac("dana", "somehash")
        with pytest.raises(UserMismatch):
            other.users.adopt("dana", [Copied("user.add", {"user_id": "dana", "name": "Dana",
                                                         "role": "dealer", "pin_mac": mac},
                                            "x")], source={}, pin_hash="somehash")
        with other.db.read() as conn:
            assert conn.execute(select(schema.users)).first() is None
    finally:
        other.close()


def test_a_station_on_the_floor_follows_it_and_stops_following_when_closed(
        floor: Journal, tmp_path: Path, key: JournalKey) -> None:
    from dealer_station.app import open_station

    db = open_database(f"sqlite:///{tmp_path / 'station.db'}")
    journal = Journal(db, key)
    pub = Floor(floor).publish(
        game="lapaire", content=load_lapaire_config().with_changes(
            offered={"red": False}).to_data(),
        reason="station test", actor=operator(floor), tables=["T1"])
    station = open_station(journal, table_id="T1", floor=url_of(floor),
                           hasher=fast_hasher())
    try:
        assert station.follower is not None and station.follower.running
        assert wait_for(lambda: station.table.upcoming_config_version() == pub.version)
        assert wait_for(lambda: station.users.get("dana") is not None)
        assert station.users.authenticate("dana", PIN).role == "dealer"
    finally:
        station.close()
        db.close()
    assert not station.follower.running


def test_bourre_adopts_a_profile_between_sessions_and_bad_content_is_refused(
        floor: Journal, tmp_path: Path, key: JournalKey) -> None:
    from dealer_station.games.bourre.config_file import load_bourre_profiles
    from dealer_station.games.bourre.table.live import open_bourre_table
    from dealer_station.games.bourre.table.rounds import profile_content

    db = open_database(f"sqlite:///{tmp_path / 'B1.db'}")
    journal = Journal(db, key)
    users = Users(journal, hasher=fast_hasher())
    table = open_bourre_table(journal, "B1", dealer="station/dealer")
    try:
        first = table.version
        profiles = load_bourre_profiles()
        other = next(p for p in profiles.values() if p.name != table.profile.name)
        follower = Follower(journal, url_of(floor), table, users)
        # Content a Bourré table cannot play under: refused, never journaled.
        bad = Floor(floor).publish(game="bourre", content={"profiles": {"x": {"nonsense": 1}}},
                                   reason="a typo", actor=operator(floor), tables=["B1"])
        follower.follow_once()
        assert bad.seq in follower.refused_publications
        assert table.version == first
        table.start_session([1, 2, 3])
        pub = Floor(floor).publish(game="bourre", content=profile_content(other),
                                   reason="common rules tonight", actor=operator(floor),
                                   tables=["B1"])
        follower.follow_once()
        assert follower.status.waiting_for == pub     # a session is open
        assert table.version == first
        table.end_session(tie_break=[1, 2, 3])
        follower.follow_once()
        assert table.version == pub.version and table.profile.name == other.name
        last = [r for r in journal.records("B1") if r.kind == "config.change"][-1]
        assert last.payload["changes"]["floor"]["seq"] == pub.seq
        follower.stop()
    finally:
        table.shutdown()
        db.close()
