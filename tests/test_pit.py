"""The pit podium (dealer-station pit) against a real PostgreSQL floor with real tables
forwarded to it: a shoe jam halts a La Pair'e round and a supervisor voids it, a Bourré table
reneges, a table's local journal is cut short and refused at the floor, a table deals on while
the floor copy falls behind. The window's grid and alert queue show them; a supervisor signed
in at the pit acknowledges an alert with a reason, chained in the pit's own journal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, time, timedelta
from fractions import Fraction
from pathlib import Path
from time import monotonic as time_now
from typing import Any

import psycopg
import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QTableWidget, QWidget
from sqlalchemy import text
from touch_support import give_reason, tap_button
from ui_support import WAIT_MS, click

from dealer_station.app import fast_hasher
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey, create_key, load_key
from dealer_station.audit.pgcluster import PgCluster
from dealer_station.audit.users import PermissionDenied, Users
from dealer_station.cli.main import main
from dealer_station.floor.alerts import (
    ACK_KIND,
    AlertError,
    Pit,
    PitSettings,
    PitView,
    load_settings,
)
from dealer_station.floor.central import Floor
from dealer_station.tomlconfig import ConfigError
from dealer_station.ui import theme
from dealer_station.ui.pit_demo import PIN, demo_pit
from dealer_station.ui.pit_window import GRID_HEADERS, GRID_PX, PitWindow

pytestmark = pytest.mark.postgres

SCREEN = QRect(0, 0, *theme.WINDOW_SIZE)


def settings(**options: Any) -> PitSettings:
    """The pit's settings with a gaming day that began two hours ago (the demo tables dealt
    in the last hour), so that the tests do not depend on the time of day they run at."""
    began = (datetime.now().astimezone() - timedelta(hours=2)).time().replace(
        second=0, microsecond=0)
    return PitSettings(gaming_day_starts=began, **options)


class DemoFloor:
    """The demo pit (five tables dealt and forwarded to a PostgreSQL floor: seconds of work),
    built once a module and given to each test afresh: the floor from a template database, the
    tables' folder from a copy, both at the same name and path as they were built at, so that
    every URL and anchor in them stays true. The tables dealt within the last hour of when it
    was built; past ``FRESH`` it is built again rather than let that hour run out."""

    FRESH = timedelta(minutes=4)

    def __init__(self, root: Path, cluster: PgCluster) -> None:
        self.cluster = cluster
        self.work, self.pristine = root / "work", root / "pristine"
        self.name = f"pit_floor_{os.getpid()}"
        self.template = f"{self.name}_built"
        self.url = cluster.url(self.name)
        self.built: datetime | None = None

    def _build(self) -> None:
        for name in (self.name, self.template):
            self.cluster.drop_database(name)
        shutil.rmtree(self.work, ignore_errors=True)
        shutil.rmtree(self.pristine, ignore_errors=True)
        self.work.mkdir(parents=True)
        self.cluster.create_database(self.name)
        key = create_key(self.work / "floor.key")
        with demo_pit(self.work, self.url, key, hasher=fast_hasher()):
            pass
        # Built under the name each test's copy has; kept under another (the connections a
        # test or the build left idle in their pools are let go first).
        with psycopg.connect(self.cluster.libpq(), autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = %s AND pid <> pg_backend_pid()", (self.name,))
            deadline = time_now() + 10
            while conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                               (self.name,)).fetchone() != (0,):
                assert time_now() < deadline, "connections to the built floor did not end"
            conn.execute(f'ALTER DATABASE "{self.name}" RENAME TO "{self.template}"')
        shutil.copytree(self.work, self.pristine)
        self.built = datetime.now()

    def fresh(self) -> str:
        """The floor and the tables as built, for one test; the floor's URL."""
        if self.built is None or datetime.now() - self.built > self.FRESH:
            self._build()
        shutil.rmtree(self.work)
        shutil.copytree(self.pristine, self.work)
        self.cluster.drop_database(self.name)
        with psycopg.connect(self.cluster.libpq(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.name}" TEMPLATE "{self.template}"')
        return self.url

    def close(self) -> None:
        for name in (self.name, self.template):
            self.cluster.drop_database(name)


@pytest.fixture(scope="module")
def demo_floor(tmp_path_factory: pytest.TempPathFactory,
               pg_cluster: PgCluster) -> Iterator[DemoFloor]:
    demo = DemoFloor(tmp_path_factory.mktemp("pit"), pg_cluster)
    yield demo
    demo.close()


@pytest.fixture
def floor(demo_floor: DemoFloor) -> Iterator[Database]:
    db = open_database(demo_floor.fresh())
    yield db
    db.close()


@pytest.fixture
def key(floor: Database, demo_floor: DemoFloor) -> JournalKey:
    return load_key(demo_floor.work / "floor.key")


def window(qtbot: Any, pit: Pit, reports: Path | None = None) -> PitWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = PitWindow(pit, hasher=fast_hasher(), reports_dir=reports, auto_refresh=False)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def cell(table: QTableWidget, row: int, col: int) -> str:
    item = table.item(row, col)
    return item.text() if item is not None else ""


def view_of(w: PitWindow) -> PitView:
    assert w.view is not None
    return w.view


def queue_rows(w: PitWindow) -> list[tuple[str, str, str]]:
    return [(cell(w.queue, r, 1), cell(w.queue, r, 2), cell(w.queue, r, 3))
            for r in range(w.queue.rowCount())]


def grid_row(w: PitWindow, table: str) -> dict[str, str]:
    for r in range(w.grid.rowCount()):
        if cell(w.grid, r, 0) == table:
            return {h: cell(w.grid, r, c) for c, h in enumerate(GRID_HEADERS)}
    raise AssertionError(f"table {table} not in the grid")


def inside(w: QWidget, widget: QWidget) -> bool:
    rect = QRect(widget.mapTo(w, QPoint(0, 0)), widget.size())
    return widget.isVisible() and SCREEN.contains(rect)


def sign_in(qtbot: Any, w: PitWindow, user: str, pin: str) -> None:
    w.sign.user_id.clear()
    qtbot.keyClicks(w.sign.user_id, user)
    qtbot.keyClicks(w.sign.pin, pin)
    click(qtbot, w.sign.sign_in_button)


def test_a_supervisor_acknowledges_a_halt_with_a_reason_and_it_stays_acknowledged(
        qtbot: Any, floor: Database, key: JournalKey) -> None:
    pit = Pit(Journal(floor, key), "east")
    w = window(qtbot, pit)
    rows = queue_rows(w)
    halt = next(r for r in rows if r[0] == "T3" and r[1] == "Halt" and "jammed" in r[2])
    assert halt[2].startswith("Round 1: play stopped: the shoe is jammed")
    assert "(since voided by sue/supervisor)" in halt[2]
    still = next(r for r in rows if r[0] == "T3" and r[1] == "Halt" and "jammed" not in r[2])
    assert still[2].startswith("Round 2: ") and "the shoe reports an error" in still[2]
    assert "(not resolved yet)" in still[2]
    assert any(r[0] == "T3" and r[1] == "Void" for r in rows)
    halt_alert = next(a for a in view_of(w).alerts if a.table == "T3"
                      and a.category == "halt" and a.round_no == 1)
    # Nobody signed in: nothing can be acknowledged.
    assert w.select_alert(halt_alert.id)
    assert not w.ack_button.isEnabled()
    # A dealer of the floor may not sign in at the pit.
    users = Users(pit.journal, hasher=fast_hasher())
    admin = users.authenticate("setup", "2468")
    users.add("dan", "Dan Deal", "dealer", "1357", actor=admin)
    sign_in(qtbot, w, "dan", "1357")
    assert w.sign.user is None and "only a supervisor or operator" in w.message.text()
    sign_in(qtbot, w, "sue", "2468")
    assert w.sign.user is not None and w.sign.user.actor == "sue/supervisor"
    # Acknowledge asks why: cancelled, or an empty reason, and nothing is journaled.
    assert w.select_alert(halt_alert.id)
    click(qtbot, w.ack_button)
    tap_button(qtbot, w, "Cancel")
    w.acknowledge("   ")
    assert "give a reason" in w.message.text()
    assert any(a.id == halt_alert.id for a in view_of(w).alerts)
    assert list(pit.journal.records(pit.stream, kinds=[ACK_KIND])) == []
    # With a reason it is acknowledged, journaled and leaves the queue; the void stays.
    click(qtbot, w.ack_button)
    give_reason(qtbot, w, "shoe swapped by the technician, dealer briefed")
    assert "acknowledged" in w.message.text()
    assert all(a.id != halt_alert.id for a in view_of(w).alerts)
    assert not any(r[0] == "T3" and r[1] == "Halt" and "jammed" in r[2]
                   for r in queue_rows(w))
    assert any(r[0] == "T3" and r[1] == "Halt" and "jammed" not in r[2]
               for r in queue_rows(w))
    assert any(r[0] == "T3" and r[1] == "Void" for r in queue_rows(w))
    (ack,) = pit.journal.records("pit-east", kinds=[ACK_KIND])
    assert ack.actor == "sue/supervisor"
    assert ack.payload["alert"] == halt_alert.id == f"T3:{halt_alert.seq}"
    assert ack.payload["reason"] == "shoe swapped by the technician, dealer briefed"
    result = pit.journal.verify_table("pit-east")
    assert result.ok and result.records >= 2, str(result)     # the sign-in and the ack
    # A restart (a new pit on the same floor) keeps it acknowledged; another pit does not.
    again = Pit(Journal(floor, key), "east").view()
    assert halt_alert.id in again.acknowledged
    assert all(a.id != halt_alert.id for a in again.alerts)
    other = Pit(Journal(floor, key), "west").view()
    assert any(a.id == halt_alert.id for a in other.alerts)
    # Acknowledging it twice, or as a dealer, is refused.
    with pytest.raises(AlertError, match="already acknowledged"):
        pit.acknowledge(halt_alert, w.sign.user, "again")
    dan = users.authenticate("dan", "1357")
    void = next(a for a in again.alerts if a.category == "void")
    with pytest.raises(PermissionDenied):
        pit.acknowledge(void, dan, "not mine to acknowledge")


def test_the_grid_shows_each_tables_state_devices_and_lag_and_their_alerts(
        qtbot: Any, floor: Database, key: JournalKey) -> None:
    pit = Pit(Journal(floor, key), "east", settings(payout_above=100))
    w = window(qtbot, pit)
    assert w.grid.rowCount() == 6
    t1, t2, t3, t4, t5, t6 = (grid_row(w, t) for t in ("T1", "T2", "T3", "T4", "T5", "T6"))
    assert t6["State"] == "between rounds" and t6["Round"] == "Round 45"
    # Five tables in sight; the sixth a scroll away, so that the requests and the alerts
    # keep their room at 1280x800.
    assert w.grid.verticalScrollBar().maximum() > 0
    assert t1["State"] == "between rounds" and t1["Round"] == "Round 40"
    assert t1["Game"] == "La Pair'e" and t1["Floor behind"] == "up to date"
    assert t1["Rounds/h"] == "40" and t1["Win today"].endswith("USD")
    assert t2["Game"] == "Bourré" and t2["Round"] == "Hand 14"
    # T3's first halt was voided; its second round is halted by the shoe's error.
    assert t3["State"] == "halted" and t3["Round"] == "Round 2"
    assert "shoe DEVICE ERROR" in t3["Devices"]
    assert t3["Dealer"] == "Dee Dealer"
    assert t4["State"] == "refused"
    assert t5["State"] == "between rounds" and t5["Floor behind"].endswith("rec")
    assert "min" in t5["Floor behind"]
    kinds = {(a.table, a.category) for a in view_of(w).alerts}
    assert ("T4", "refused") in kinds and ("T5", "lag") in kinds
    assert ("T2", "renege") in kinds and ("T1", "hold") in kinds
    assert ("T1", "payout") in kinds
    fault = next(a for a in view_of(w).alerts if a.category == "device.fault")
    assert fault.table == "T3" and "the shoe reports an error" in fault.what
    assert "card path sensor dirty" in fault.what
    assert ("T1", "lag") not in kinds and ("T4", "lag") not in kinds
    refused = next(a for a in view_of(w).alerts if a.category == "refused")
    assert "cut short" in refused.what
    renege = next(a for a in view_of(w).alerts if a.category == "renege")
    assert renege.what.startswith("Hand ") and "seat" in renege.what
    # The grid's text is read from a step away.
    assert w.grid.font().pixelSize() == GRID_PX >= 20
    # Refreshing in the background thread delivers the same grid.
    with qtbot.waitSignal(w.reader.ready, timeout=WAIT_MS):
        w.reader.start()
    assert w.grid.rowCount() == 6


def test_thresholds_come_from_the_config(tmp_path: Path, floor: Database,
                                         key: JournalKey) -> None:
    default = Pit(Journal(floor, key), settings=settings()).view()
    assert not any(a.category == "payout" for a in default.alerts)   # none above 1,000 USD
    cfg = tmp_path / "pit.toml"
    began = settings().gaming_day_starts
    cfg.write_text(f'[pit]\npayout_above = 100\nlag_seconds = 100000\nhold_low = "-90%"\n'
                   f'hold_high = "90%"\ngaming_day_starts = "{began:%H:%M}"\n')
    loaded = load_settings(cfg)
    assert loaded.payout_above == 100 and loaded.gaming_day_starts == began
    assert loaded.hold_low == Fraction(-9, 10) and loaded.lag_seconds == 100000
    assert load_settings(None) == PitSettings()
    assert PitSettings().gaming_day_starts == time(6, 0)
    view = Pit(Journal(floor, key), settings=loaded).view()
    cats = {a.category for a in view.alerts}
    assert "payout" in cats and "lag" not in cats and "hold" not in cats
    payout = next(a for a in view.alerts if a.category == "payout")
    assert "USD" in payout.what and "above 100.00 USD" in payout.what
    bad = tmp_path / "bad.toml"
    bad.write_text('[pit]\nhold_low = "high"\n')
    with pytest.raises(ConfigError, match="hold_low"):
        load_settings(bad)
    bad.write_text('[pit]\npayout_abve = 10\n')
    with pytest.raises(ConfigError, match="payout_abve"):
        load_settings(bad)


def test_a_floor_record_changed_without_the_key_is_said(floor: Database,
                                                        key: JournalKey) -> None:
    with floor.write() as conn:
        conn.execute(text("UPDATE journal SET payload = replace(payload, 'jammed', 'fine') "
                          "WHERE table_id = 'T3' AND kind = 'void'"))
    view = Pit(Journal(floor, key)).view()
    assert view.problems and "does not match its hash" in view.problems[0]
    assert any(a.id == "T3:tampered" for a in view.alerts)


def test_drill_down_recalls_verifies_and_makes_the_reports(
        qtbot: Any, tmp_path: Path, floor: Database, key: JournalKey) -> None:
    pit = Pit(Journal(floor, key), "east")
    w = window(qtbot, pit, tmp_path / "reports")
    row = next(r for r in range(w.grid.rowCount()) if cell(w.grid, r, 0) == "T3")
    w.grid.selectRow(row)
    click(qtbot, w.open_button)
    assert w.stack.currentWidget() is w.drill and w.drill.table_id == "T3"
    items = [w.drill.rounds.item(i) for i in range(w.drill.rounds.count())]
    assert [i.text() if i else "" for i in items] == [
        "Round 2 · open", "Round 1 · voided"]
    assert "Round 2" in w.drill.recall.toPlainText()      # the newest, shown first
    w.drill.rounds.setCurrentRow(1)
    recall = w.drill.recall.toPlainText()
    assert "Round 1" in recall and "Voided" in recall and "Straight-up K" in recall
    m = w.drill.events.model
    events = [m.data(m.index(r, m.WHAT)) for r in range(m.rowCount())]
    assert "Halt (play stopped)" in events
    # T3 settled nothing (its one round was voided); T1's meters are the floor's.
    assert cell(w.drill.meters, 0, 0) == "no round settled yet"
    w.drill.open("T1")
    meters = {cell(w.drill.meters, r, 0): cell(w.drill.meters, r, 1)
              for r in range(w.drill.meters.rowCount())}
    assert meters["Total"] == "40" and "3rd Card Poker" in meters
    w.drill.open("T3")
    chain = w.drill.verify_button.parentWidget()
    assert chain is not None
    w.drill.tabs.setCurrentIndex(w.drill.tabs.indexOf(chain))
    click(qtbot, w.drill.verify_button)
    assert "Chain intact" in w.drill.verify_result.text()
    held = len(list(pit.journal.records("T3")))
    assert held > 10 and f"{held} records" in w.drill.verify_result.text()
    for kind in ("events", "recall"):
        path = w.drill.make_report(kind)
        assert path is not None and path.read_bytes().startswith(b"%PDF")
    # A chain edited at the floor is shown as failed.
    with floor.write() as conn:
        conn.execute(text("UPDATE journal SET actor = 'someone/else' "
                          "WHERE table_id = 'T3' AND seq = 5"))
    click(qtbot, w.drill.verify_button)
    assert "FAILED at record 5" in w.drill.verify_result.text()
    click(qtbot, w.drill.back_button)
    assert w.stack.currentWidget() is w.main


def test_the_window_fits_1280x800(qtbot: Any, floor: Database, key: JournalKey) -> None:
    pit = Pit(Journal(floor, key), "east", settings(payout_above=10))
    w = window(qtbot, pit)
    sign_in(qtbot, w, "sue", "2468")
    w.select_alert(view_of(w).alerts[0].id)
    qtbot.wait(50)
    assert (w.width(), w.height()) == theme.WINDOW_SIZE
    for widget in (w.ack_button, w.open_button, w.sign.sign_out_button, w.grid, w.queue):
        assert inside(w, widget), widget
    assert w.ack_button.isEnabled()
    w.open_table(0)
    qtbot.wait(50)
    assert (w.width(), w.height()) == theme.WINDOW_SIZE
    assert inside(w, w.drill.back_button) and inside(w, w.drill.verify_button) is False
    w.drill.tabs.setCurrentIndex(3)
    qtbot.wait(50)
    assert inside(w, w.drill.verify_button)


def test_the_pit_command_lists_alerts_and_refuses_without_a_floor(
        floor: Database, key: JournalKey, capsys: pytest.CaptureFixture[str]) -> None:
    url = floor.engine.url.render_as_string(hide_password=False)
    assert main(["pit", "--floor", url, "--key", str(key.path), "--alerts"]) == 1
    out = capsys.readouterr().out
    lines = [line.split("\t") for line in out.splitlines()]
    assert any(f[2] == "T3" and f[3] == "Halt" for f in lines)
    assert any(f[2] == "T4" and f[3] == "Chain refused" for f in lines)
    # The window opens on the floor and closes (the command's own loop), in a process of its
    # own as at the podium: the command's event loop ends the application it runs.
    done = subprocess.run(
        [sys.executable, "-m", "dealer_station", "pit", "--floor", url, "--key",
         str(key.path), "--pit", "east", "--exit-after", "0.5"],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, capture_output=True, text=True,
        timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert main(["pit", "--key", str(key.path)]) == 2
    assert "--floor" in capsys.readouterr().err


def test_a_pit_of_a_group_and_its_pit_report_for_a_gaming_day(
        qtbot: Any, tmp_path: Path, floor: Database, key: JournalKey,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pypdf import PdfReader

    from dealer_station.reports.shift import gather
    from dealer_station.reports.source import Period

    journal = Journal(floor, key)
    url = floor.engine.url.render_as_string(hide_password=False)
    # A floor group is the pit's tables: the grid and the alerts keep to them.
    setup = Users(journal, hasher=fast_hasher()).authenticate("setup", PIN)
    Floor(journal).define_group("east", ["T1", "T2"], actor=setup, reason="the east pit")
    pit = Pit(journal, "east", settings(), tables=["T1", "T2"])
    view = pit.view()
    assert [r.status.table for r in view.rows] == ["T1", "T2"]
    assert {a.table for a in view.alerts} <= {"T1", "T2"}
    w = window(qtbot, pit, tmp_path / "reports")
    w.refresh_now()
    qtbot.waitUntil(lambda: w.grid.rowCount() == 2, timeout=WAIT_MS)
    w.open_table(0)
    drill = w.drill
    assert drill.report_buttons["pit"].text() == "Pit report: every table of pit east"
    # Everything recorded: each table's row is its shift report's figures.
    drill.span.setCurrentText("Everything recorded")
    path = drill.make_report("pit")
    assert path is not None
    text_ = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    def row(data: Any) -> str:
        t = data.total
        return "\n".join([data.table, "La Pair'e", str(data.rounds_played),
                          str(data.rounds_voided), f"{t.wagered / 100:,.2f}",
                          f"{t.paid / 100:,.2f}", f"{t.house_win / 100:,.2f}"])

    t1 = gather(journal, "T1", Period())
    assert t1.rounds_settled == 40 and row(t1) in text_
    assert "T3" not in text_.split("Journal verification")[0]     # not this pit's table
    assert "Journals of 2 table(s) verified intact" in text_
    # Today's gaming day: the same figures as the shift report for that day.
    drill.span.setCurrentText("Whole gaming day")
    period, name = drill.period()
    assert name.startswith("gaming day ") and period.until is not None
    path = drill.make_report("pit")
    assert path is not None
    day_text = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    assert name in day_text
    assert row(gather(journal, "T1", period)) in day_text
    # The command line makes the same report, for a named shift of a gaming day too.
    out = tmp_path / "pit.pdf"
    assert main(["report", "pit", "--db", url, "--key", str(key.path), "--tables", "T1,T2",
                 "--gaming-day", name.split()[-1], "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    capsys.readouterr()
    assert main(["report", "pit", "--db", url, "--key", str(key.path), "--gaming-day",
                 name.split()[-1], "--shift", "Brunch"]) == 2
    assert "no shift 'Brunch'" in capsys.readouterr().err
    assert main(["pit", "--floor", url, "--key", str(key.path), "--group", "west",
                 "--alerts"]) == 2
    assert "no group 'west' (groups: east)" in capsys.readouterr().err
    assert main(["pit", "--floor", url, "--key", str(key.path), "--group", "east",
                 "--alerts"]) == 1
    listed = {line.split("\t")[2] for line in capsys.readouterr().out.splitlines()}
    assert listed and listed <= {"T1", "T2"}


def test_a_hold_band_is_for_banked_games_only(floor: Database, key: JournalKey) -> None:
    """Bourré is a pot game: what players put in is not the house's handle, so its table never
    raises a hold alert, however narrow the band (La Pair'e's does)."""
    narrow = settings(hold_low=Fraction(-1, 1000), hold_high=Fraction(1, 1000),
                      hold_min_wagered=0)
    view = Pit(Journal(floor, key), settings=narrow).view()
    held = {a.table for a in view.alerts if a.category == "hold"}
    games_of = {r.status.table: r.status.game for r in view.rows}
    assert "T1" in held and games_of["T2"] == "bourre" and "T2" not in held


def test_the_pit_names_its_dealers_and_its_events_speak_in_words(
        qtbot: Any, floor: Database, key: JournalKey) -> None:
    """The grid's Dealer column names the dealer as the floor's users do; the drill-down's
    events say kinds, people and faults in words (never ``device_error``), and a touch on a
    row opens its whole detail."""
    pit = Pit(Journal(floor, key), "east", settings())
    w = window(qtbot, pit)
    assert grid_row(w, "T3")["Dealer"] == "Dee Dealer"
    assert grid_row(w, "T1")["Dealer"] == "Simulated Dealer"
    w.open_table(next(r for r in range(w.grid.rowCount()) if cell(w.grid, r, 0) == "T3"))
    events = w.drill.events
    w.drill.tabs.setCurrentWidget(events)
    m = events.model
    rows = [[str(m.data(m.index(r, c))) for c in range(m.columnCount())]
            for r in range(m.rowCount())]
    assert rows, "the drill-down lists T3's events"
    shown = "\n".join(" | ".join(r) for r in rows)
    for key_word in ("device_error", "device:shoe", "sue/supervisor", "config.change",
                     "login"):
        assert key_word not in shown, (key_word, shown)
    fault = next(r for r in rows if "E17" in r[m.DETAIL])
    assert fault[m.WHAT] == "The shoe reports an error" and fault[m.WHO] == "the shoe"
    assert fault[m.DETAIL] == "the shoe reports E17: card path sensor dirty"
    void = next(r for r in rows if r[m.WHAT] == "Round 1 voided")
    assert void[m.WHO] == "Sue Pit (supervisor)"
    assert any(r[m.WHAT] == "Signed in" and r[m.DETAIL] == "Sue Pit signed in as supervisor"
               for r in rows)
    # A touch on the void's row opens every word of it; the large Close goes back.
    row = next(i for i, r in enumerate(rows) if r is void)
    view = events.view
    rect = view.visualRect(m.index(row, m.DETAIL))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert events.showing_detail
    text = events.detail.detail.text()
    assert text.startswith("reason: shoe jammed mid-deal; wagers returned, shoe replaced")
    assert events.detail.close_button.height() >= 56
    click(qtbot, events.detail.close_button)
    assert not events.showing_detail


def test_an_acknowledged_alert_leaves_the_selection_on_its_table_not_on_another_alert(
        qtbot: Any, floor: Database, key: JournalKey) -> None:
    pit = Pit(Journal(floor, key), "east", settings(payout_above=100))
    w = window(qtbot, pit)
    sign_in(qtbot, w, "sue", "2468")
    t3 = next(r for r in range(w.grid.rowCount()) if cell(w.grid, r, 0) == "T3")
    w.grid.selectRow(t3)
    halt = next(a for a in view_of(w).alerts if a.table == "T3" and a.category == "halt"
                and a.round_no == 1)
    assert w.select_alert(halt.id)
    click(qtbot, w.ack_button)
    give_reason(qtbot, w, "shoe swapped by the technician")
    assert "acknowledged" in w.message.text()
    # No other alert was picked for the next touch of Acknowledge; the grid keeps T3.
    assert w.selected_alert() is None
    assert not w.queue.selectionModel().selectedRows()
    assert w.selected_table() == "T3"
    # An alert selected stays selected while the queue moves under it (another pit
    # acknowledged the alert above it).
    alerts = view_of(w).alerts
    chosen = alerts[2]
    assert w.select_alert(chosen.id)
    other = Pit(Journal(floor, key), "east", settings(payout_above=100))
    setup = Users(other.journal, hasher=fast_hasher()).authenticate("sue", "2468")
    other.acknowledge(alerts[0], setup, "seen on the other podium")
    w.refresh_now()
    picked = w.selected_alert()
    assert picked is not None and picked.id == chosen.id
    assert w.selected_table() == "T3"


def test_a_game_protection_alert_on_the_podium_opens_its_evidence_and_is_acknowledged(
        qtbot: Any, floor: Database, key: JournalKey) -> None:
    """T6 dealt with a biased shoe and a seat that knew the card: the alerts its monitor
    journaled live reach the floor with its chain, stand in the pit's queue as Game protection
    (the most urgent kind), open to their evidence page, and are acknowledged with a reason."""
    pit = Pit(Journal(floor, key), "east", settings())
    w = window(qtbot, pit)
    found = [a for a in view_of(w).alerts if a.category == "protection"]
    assert {a.table for a in found} == {"T6"} and all(a.severity == 2 for a in found)
    shoe = next(a for a in found if "Shoe out of pattern" in a.what)
    assert "the First Card was a 7" in shoe.what and "p-value" in shoe.what
    seat = next(a for a in found if "Card knowledge" in a.what)
    assert ", seat 4: Card knowledge: seat 4's First Card spots named the First Card" \
        in seat.what
    # Another alert's selection leaves the Evidence button off; this one's turns it on.
    halt = next(a for a in view_of(w).alerts if a.category == "halt")
    assert w.select_alert(halt.id) and not w.evidence_button.isEnabled()
    assert w.select_alert(shoe.id) and w.evidence_button.isEnabled()
    click(qtbot, w.evidence_button)
    assert w.stack.currentWidget() is w.evidence
    ev = w.evidence.evidence
    assert ev is not None and ev.table == "T6"
    assert ev.points[-1].statistic >= ev.threshold and ev.rounds and set(ev.hits) <= set(
        ev.rounds)
    assert w.evidence.rounds.count() == len(ev.rounds)
    assert "Round" in w.evidence.recall.toPlainText()
    assert "Simulated Dealer" in w.evidence.title.text()
    click(qtbot, w.evidence.back_button)
    assert w.stack.currentWidget() is w.main
    # Acknowledged with a reason, by a supervisor signed in at the pit.
    sign_in(qtbot, w, "sue", "2468")
    assert w.select_alert(shoe.id)
    click(qtbot, w.ack_button)
    give_reason(qtbot, w, "shoe pulled and sent to the shuffler technician")
    assert "acknowledged" in w.message.text()
    assert all(a.id != shoe.id for a in view_of(w).alerts)
    assert any(a.id == seat.id for a in view_of(w).alerts)
    acks = pit.acknowledgements()
    assert acks[shoe.id].reason == "shoe pulled and sent to the shuffler technician"
    assert acks[shoe.id].actor == "sue/supervisor"
