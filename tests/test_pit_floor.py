"""The pit shows its floor (issue 26), on real widgets over a real primary and streaming
standby (dealer_station/audit/pgcluster.PgPair): the line at the top of the pit names the
server it reads and whether it is the primary; a pit pointed at the standby says so and how
far behind it is (its replay paused, then resumed); after a hard failover, once a table's
forwarder reached the new primary, the pit names the new primary (and the old one), says
the failover once and queues the table's ``floor.behind``; what the table adopted and the
floor lost is listed on the pit, and an operator alone publishes it again, with a reason,
which empties the list.

Every wait is on a condition (tests/waiting.py), never on the clock."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication
from sqlalchemy import text
from touch_support import give_reason
from ui_support import click
from waiting import wait_until

from dealer_station.app import fast_hasher
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key
from dealer_station.audit.pgcluster import PgPair, find_bindir
from dealer_station.audit.users import Users
from dealer_station.cli.main import main
from dealer_station.floor.alerts import Pit
from dealer_station.floor.central import Floor
from dealer_station.floor.forwarder import Forwarder
from dealer_station.floor.server import FloorServer, PrimaryWatch, read_server, server_words
from dealer_station.ui import theme
from dealer_station.ui.pit_window import PitWindow

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

PIN = "2468"


@dataclass
class PairFloor:
    pair: PgPair
    url: str            # the multi-host URL (read-write)
    key: JournalKey
    tmp: Path


@pytest.fixture(scope="module")
def pair_floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PairFloor]:
    """An asynchronous pair; the floor's users: an operator ``olive`` and a supervisor
    ``sue``."""
    found = find_bindir()
    if found is None:
        pytest.skip("no PostgreSQL server binaries")
    tmp = tmp_path_factory.mktemp("pit_floor")
    key = create_key(tmp / "floor.key")
    pair = PgPair.start(found, synchronous=False)
    try:
        url = pair.create_database("floor")
        db = open_database(url)
        Users(Journal(db, key), hasher=fast_hasher()).seed(
            [("olive", "Olive Operator", "operator", PIN),
             ("sue", "Sue Pit", "supervisor", PIN)], actor="setup/console")
        db.close()
        yield PairFloor(pair, url, key, tmp)
    finally:
        pair.stop()


def window(qtbot: Any, db: Database, key: JournalKey) -> PitWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = PitWindow(Pit(Journal(db, key), "east"), hasher=fast_hasher(), auto_refresh=False)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def sign_in(qtbot: Any, w: PitWindow, user: str) -> None:
    if w.sign.user is not None:
        click(qtbot, w.sign.sign_out_button)
    w.sign.user_id.clear()
    qtbot.keyClicks(w.sign.user_id, user)
    qtbot.keyClicks(w.sign.pin, PIN)
    click(qtbot, w.sign.sign_in_button)
    assert w.sign.user is not None and w.sign.user.user_id == user


def behind_s(line: str) -> float:
    found = re.search(r"(\d+\.\d) s behind the primary", line)
    assert found, line
    return float(found.group(1))


def test_the_words_for_an_embedded_floor_and_a_change_of_primary() -> None:
    assert server_words(FloorServer(embedded=True, host="/srv/t1.db")) == \
        "Floor: embedded database /srv/t1.db (no replication)"
    watch = PrimaryWatch()
    a, b = FloorServer(host="floor-a:5432"), FloorServer(host="floor-b:5432")
    assert watch.see(a) is None and watch.see(a) is None
    assert watch.see(FloorServer(host="floor-b:5432", primary=False)) is None   # a standby
    change = watch.see(b)
    assert change is not None and (change.was, change.now) == ("floor-a:5432", "floor-b:5432")
    assert watch.see(b) is None and watch.last_change == change       # said once, kept
    assert "(since " in server_words(b, change) and "was floor-a:5432)" in server_words(
        b, change)
    assert server_words(b, change).endswith("no standby streaming from it")


def test_a_pit_on_the_primary_names_it_and_a_pit_on_the_standby_says_how_far_behind(
        qtbot: Any, pair_floor: PairFloor) -> None:
    pair = pair_floor.pair
    primary = open_database(pair_floor.url, upgrade=False)
    wait_until(pair.caught_up, "the standby to replay the floor's schema")
    standby = open_database(pair.standby.url("floor"), upgrade=False)   # one host only
    try:
        on_primary = window(qtbot, primary, pair_floor.key)
        line = on_primary.floor_line.text()
        assert line.startswith(f"Floor: primary 127.0.0.1:{pair.primary.port} · ")
        assert "1 standby: standby, streaming (asynchronous)" in line
        on_standby = window(qtbot, standby, pair_floor.key)
        wait_until(pair.caught_up, "the standby to replay what the primary wrote")
        on_standby.refresh_now()
        line = on_standby.floor_line.text()
        assert line.startswith(f"Floor: standby 127.0.0.1:{pair.standby.port}, read-only, ")
        assert behind_s(line) == 0.0 and "paused" not in line
        # Its replay paused while the primary writes: received, not replayed, behind.
        pair.standby.sql("SELECT pg_wal_replay_pause()")
        try:
            with primary.write() as conn:
                conn.execute(text("CREATE TABLE scratch AS SELECT generate_series(1, 2000) n"))
            wait_until(lambda: (read_server(standby).lag_bytes or 0) > 0,
                       "the standby to receive what it does not replay")
            on_standby.refresh_now()
            line = on_standby.floor_line.text()
            assert "read-only, replay paused, " in line
            assert behind_s(line) > 0.0
            assert "received, not yet replayed" in line
        finally:
            pair.standby.sql("SELECT pg_wal_replay_resume()")
        wait_until(pair.caught_up, "the standby to replay again")
        on_standby.refresh_now()
        assert behind_s(on_standby.floor_line.text()) == 0.0
        assert "paused" not in on_standby.floor_line.text()
    finally:
        primary.close()
        standby.close()


class FollowingTable:
    """A La Pair'e table following the floor's publications and forwarding its chain, both
    through the multi-host URL."""

    def __init__(self, tmp: Path, key: JournalKey, url: str) -> None:
        from dealer_station.floor.follower import Follower
        from dealer_station.games.lapaire.config_file import load_lapaire_config
        from dealer_station.games.lapaire.table.live import LaPaireTable

        self.db = open_database(f"sqlite:///{tmp / 'T1.db'}")
        self.journal = Journal(self.db, key)
        self.users = Users(self.journal, hasher=fast_hasher(), max_failures=3)
        self.table = LaPaireTable(self.journal, "T1", load_lapaire_config(),
                                  dealer="station/dealer")
        self.forwarder = Forwarder(self.journal, url, "T1", poll_s=0.05, backoff_s=(0.1, 0.5))
        self.forwarder.start()
        self.follower = Follower(self.journal, url, self.table, self.users, poll_s=0.1,
                                 backoff_s=(0.1, 0.5))
        self.follower.start()

    def head(self) -> int:
        last = self.journal.last("T1")
        return 0 if last is None else last.seq

    def forwarded(self) -> bool:
        link = self.forwarder.link
        return link.state == "online" and link.waiting == 0 and link.floor_seq == self.head()

    def said(self, kind: str) -> list[Any]:
        return [r for r in self.journal.records("T1") if r.kind == kind]

    def stop(self) -> None:
        self.follower.stop()
        self.forwarder.stop()
        self.table.shutdown()
        self.db.close()


def test_after_a_failover_the_pit_names_the_new_primary_and_lists_what_the_floor_lost(
        qtbot: Any, pair_floor: PairFloor, capsys: pytest.CaptureFixture[str]) -> None:
    pair, url, key = pair_floor.pair, pair_floor.url, pair_floor.key
    old_port = pair.primary.port
    t = FollowingTable(pair_floor.tmp, key, url)
    floor = open_database(url, upgrade=False)
    try:
        wait_until(lambda: {u.user_id for u in t.users.list()} >= {"olive", "sue"},
                   "the table to copy the floor's users")
        wait_until(t.forwarded, "the floor to hold the table's chain")
        w = window(qtbot, floor, key)
        assert w.floor_line.text().startswith(f"Floor: primary 127.0.0.1:{old_port} · ")
        assert not w.alert_tabs.isTabVisible(1)
        # The standby stops streaming; a publication the table adopts and forwards is on
        # the primary alone when it dies.
        wait_until(pair.caught_up, "the standby to stream what was sent")
        pair.cut_standby()
        central = Floor(Journal(floor, key))
        pub = central.publish(game="lapaire", content=t.table.config.with_changes(
            offered={"black": False}).to_data(), reason="no black tonight",
            actor=central.operator("olive"), tables=["T1"])
        wait_until(lambda: t.table.upcoming_config_version() == pub.version,
                   "the table to adopt the publication")
        wait_until(t.forwarded, "the floor to take the table's adoption")
        adopted = t.said("config.change")[-1]
        pair.failover()
        new_port = pair.primary.port
        assert new_port != old_port
        wait_until(lambda: bool(t.said("floor.behind")) and t.forwarded(),
                   "the table to say the floor lost records and send them again")
        # The pit reads the new primary through the same URL, says so once, and queues the
        # table's floor.behind.
        w.refresh_now()
        line = w.floor_line.text()
        assert line.startswith(f"Floor: primary 127.0.0.1:{new_port} (since ")
        assert f"was 127.0.0.1:{old_port})" in line
        assert line.endswith("no standby streaming from it")
        assert "failed over" in w.message.text() and f"127.0.0.1:{new_port}" in \
            w.message.text()
        queued = [(w.queue.item(r, 1).text(), w.queue.item(r, 2).text(),
                   w.queue.item(r, 3).text()) for r in range(w.queue.rowCount())]
        assert any(q[:2] == ("T1", "Floor lost records") and "the floor lost" in q[2]
                   for q in queued), queued
        # A failover is not a refusal of the table's chain (a pooled connection that reached
        # the new primary is a reconnect: floor/forwarder.py).
        assert t.said("floor.refused") == []
        assert not any(q[1] in ("Floor refused", "Chain refused") for q in queued), queued
        # floor status and pit --alerts say the same line.
        capsys.readouterr()
        assert main(["floor", "status", "--floor", url]) == 0
        assert capsys.readouterr().out.splitlines()[0] == (
            f"Floor: primary 127.0.0.1:{new_port} · no standby streaming from it")
        main(["pit", "--floor", url, "--key", str(key.path), "--alerts"])
        assert capsys.readouterr().err.startswith(f"Floor: primary 127.0.0.1:{new_port} · ")
        w.say("", "info")
        w.refresh_now()
        assert "failed over" not in w.message.text()                  # said once
        assert f"was 127.0.0.1:{old_port})" in w.floor_line.text()   # kept on the line
        # What the table adopted and the floor lost: on the pit, with the table's copy.
        assert w.alert_tabs.isTabVisible(1) and w.lost_panel.table.rowCount() == 1
        assert w.alert_tabs.tabText(1) == "Lost at the floor · 1"
        assert (w.width(), w.height()) == theme.WINDOW_SIZE     # it fits at 1280x800
        w.alert_tabs.setCurrentWidget(w.lost_panel)
        row = [w.lost_panel.table.item(0, c).text() for c in range(5)]
        assert row[0] == "T1" and row[1] == "Configuration"
        assert pub.version[:12] in row[2] and "no black tonight" in row[2]
        assert row[4].startswith(f"record {adopted.seq} ")
        before = len(central.publications())
        # Nobody signed in, then a supervisor: refused, and nothing is asked or published.
        click(qtbot, w.lost_panel.again_button)
        assert "an operator must sign in" in w.message.text()
        sign_in(qtbot, w, "sue")
        click(qtbot, w.lost_panel.again_button)
        assert "only an operator publishes" in w.message.text()
        assert len(central.publications()) == before
        # An operator: an empty reason is refused; with one it is published again, from the
        # table's copy, to the table that adopted it, and the list empties.
        sign_in(qtbot, w, "olive")
        w.publish_again("   ")
        assert "give a reason" in w.message.text()
        assert len(central.publications()) == before
        click(qtbot, w.lost_panel.again_button)
        give_reason(qtbot, w, "lost in the failover")
        assert "published configuration" in w.message.text()
        pubs = central.publications()
        assert len(pubs) == before + 1
        assert (pubs[-1].version, pubs[-1].tables, pubs[-1].reason, pubs[-1].actor) == (
            pub.version, ("T1",), "lost in the failover", "olive/operator")
        assert not w.alert_tabs.isTabVisible(1) and w.lost_panel.table.rowCount() == 0
        assert w.alert_tabs.currentIndex() == 0                    # back on the alerts
    finally:
        floor.close()
        t.stop()
