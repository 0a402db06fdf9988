"""The pit and the tables' fill and credit requests, against a real PostgreSQL floor: a table
(its own SQLite journal, under the floor's key) requests fills and credits, the cage issues,
security carries, the table receives or voids, and the real forwarder takes its chain to the
floor. The pit lists every open request with its state; one not received within the alert
time is an alert ("Fill T1-R-2026-00001 requested 30 min ago, not yet received"), gone once
the request is received or voided, and acknowledged like any other. The alert time is the
jurisdiction's ``[cage] alert_minutes`` unless the pit's ``[pit] request_alert_minutes``
says otherwise. Every reading is at a given moment: nothing here depends on the clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from accounting_support import CAL, Setup
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from sqlalchemy import text
from touch_support import give_reason
from ui_support import click

from dealer_station.accounting.cage_settings import CageSettings
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.app import fast_hasher
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal, iso_utc, utc_now
from dealer_station.audit.keys import load_key
from dealer_station.audit.users import Users
from dealer_station.events.accounting import SlipRequested
from dealer_station.floor.alerts import ACK_KIND, Pit, PitSettings, load_settings
from dealer_station.floor.forwarder import Forwarder
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.cage import CageDesk
from dealer_station.tomlconfig import ConfigError
from dealer_station.ui import theme
from dealer_station.ui.pit_demo import PIN as FLOOR_PIN
from dealer_station.ui.pit_demo import add_users
from dealer_station.ui.pit_window import PitWindow

pytestmark = pytest.mark.postgres

MICS = AccountingSettings(variance_threshold=2500)
WANT = Chips.of({2500: 20, 10000: 5})
BACK = Chips.of({500: 40})


class Floor:
    """Table T1 (an SQLite journal on a settable clock, its people, its cage's desk) and the
    floor database it forwards to (with the floor's own supervisor ``sue``)."""

    def __init__(self, tmp: Path, floor_url: str) -> None:
        # The table's clock starts an hour before the test, on a whole minute.
        start = utc_now().replace(second=0, microsecond=0) - timedelta(hours=1)
        self.t1 = Setup(f"sqlite:///{tmp / 't1.db'}", tmp / "floor.key")
        self.t1.clock.moment = start
        self.start = start
        self.book = TableAccounting(self.t1.journal, "T1", MICS, CAL)
        self.desk = CageDesk(self.book)
        self.url = floor_url
        self.db: Database = open_database(floor_url)
        self.key = load_key(tmp / "floor.key")
        self.journal = Journal(self.db, self.key)
        add_users(self.journal, Users(self.journal, hasher=fast_hasher()))

    def at(self, minutes: int) -> datetime:
        """The moment ``minutes`` after the table's start, and the table's clock set to it."""
        self.t1.clock.moment = self.start + timedelta(minutes=minutes)
        return self.t1.clock.moment

    def request(self, kind: str, chips: Chips) -> tuple[int, int]:
        e = accounting_event(self.desk.request(kind, chips, self.t1.who("sue")), SlipRequested)
        return e.year, e.request

    def forward(self) -> None:
        Forwarder(self.t1.journal, self.url, "T1", journal_outages=False).sync(timeout_s=60)

    def pit(self, name: str = "east", **settings: Any) -> Pit:
        began = (self.start - timedelta(hours=1)).astimezone().time().replace(
            second=0, microsecond=0)
        return Pit(self.journal, name, PitSettings(gaming_day_starts=began, **settings),
                   accounting=MICS)

    def close(self) -> None:
        self.t1.close()
        self.db.close()


@pytest.fixture
def floor(tmp_path: Path, pg_db_url: str) -> Iterator[Floor]:
    f = Floor(tmp_path, pg_db_url)
    yield f
    f.close()


def on_way(f: Floor, r: tuple[int, int]) -> str:
    return f"T1-R-{r[0]}-{r[1]:05d}"


def test_every_open_request_is_on_the_pit_and_a_late_one_is_an_alert_until_received(
        floor: Floor) -> None:
    f = floor
    # 0: a fill requested; 5: issued; 8: carried (in transit).
    f.at(0)
    fill = f.request("fill", WANT)
    f.at(5)
    f.desk.issue(*fill, WANT, [f.t1.who("cas")])
    f.at(8)
    f.desk.carry(*fill, [f.t1.who("sec")])
    # 10: a fill received within its time; 12: one voided on the way: neither is on the pit.
    f.at(10)
    quick = f.request("fill", BACK)
    f.desk.issue(*quick, BACK, [f.t1.who("cal")])
    f.desk.carry(*quick, [f.t1.who("sec")])
    f.desk.receive(*quick, BACK, [f.t1.who("dee"), f.t1.who("sue")])
    f.at(12)
    dropped = f.request("credit", BACK)
    f.desk.void(*dropped, "wrong count", [f.t1.who("sue"), f.t1.who("cas")])
    # 20: a credit requested, not yet issued.
    f.at(20)
    credit = f.request("credit", BACK)
    f.forward()
    pit = f.pit()
    view = pit.view(now=f.at(30))
    assert view.request_minutes == 15
    assert [(r.label, r.kind, r.state_words, r.total, r.minutes, r.late, r.slip)
            for r in view.requests] == [
        (on_way(f, fill), "fill", "In transit", "1,000.00 USD", 30, True, "T1-F-2026-00001"),
        (on_way(f, credit), "credit", "Requested", "200.00 USD", 10, False, None)]
    (alert,) = [a for a in view.alerts if a.category == "request"]
    assert alert.id == f"T1:request:{fill[0]}-{fill[1]}" and alert.table == "T1"
    assert alert.label == "Fill or credit late"
    assert alert.what == (f"Fill {on_way(f, fill)} requested 30 min ago, not yet received "
                          f"(in transit, slip T1-F-2026-00001; 1,000.00 USD)")
    assert alert.at == iso_utc(f.start + timedelta(minutes=15))     # when it became late
    # 36: the credit waited 16 minutes: late too.
    later = pit.view(now=f.at(36))
    late = {a.id: a.what for a in later.alerts if a.category == "request"}
    assert set(late) == {f"T1:request:{fill[0]}-{fill[1]}",
                         f"T1:request:{credit[0]}-{credit[1]}"}
    assert late[f"T1:request:{credit[0]}-{credit[1]}"] == (
        f"Credit {on_way(f, credit)} requested 16 min ago, not yet received (requested; "
        f"200.00 USD)")
    # 40: the fill received at the table, and forwarded: its alert and its row are gone.
    f.at(40)
    f.desk.receive(*fill, WANT, [f.t1.who("dee"), f.t1.who("sue")])
    f.forward()
    view = pit.view(now=f.at(41))
    assert [r.label for r in view.requests] == [on_way(f, credit)]
    assert {a.id for a in view.alerts if a.category == "request"} == {
        f"T1:request:{credit[0]}-{credit[1]}"}
    # 90: over an hour, said in hours.
    assert "requested 1 h 10 min ago" in next(
        a.what for a in pit.view(now=f.at(90)).alerts if a.category == "request")
    # Voided at the table: gone too. A new pit on the same floor agrees (it reads the
    # chain from the start, the first pit only what was added).
    f.at(91)
    f.desk.void(*credit, "not needed", [f.t1.who("sue"), f.t1.who("cas")])
    f.forward()
    for p in (pit, f.pit()):
        view = p.view(now=f.at(92))
        assert view.requests == []
        assert not any(a.category == "request" for a in view.alerts)


def test_a_late_request_is_acknowledged_at_the_pit_and_stays_acknowledged(
        floor: Floor) -> None:
    f = floor
    f.at(0)
    fill = f.request("fill", WANT)
    f.forward()
    pit = f.pit()
    (alert,) = [a for a in pit.view(now=f.at(20)).alerts if a.category == "request"]
    sue = Users(f.journal, hasher=fast_hasher()).authenticate("sue", FLOOR_PIN,
                                                              table_id=pit.stream)
    pit.acknowledge(alert, sue, "cage short of 100.00 chips, runner on the way")
    again = f.pit().view(now=f.at(25))
    assert alert.id in again.acknowledged
    assert not any(a.category == "request" for a in again.alerts)
    # Acknowledged, the request is still on its way, and still said late on the list.
    assert [(r.label, r.late) for r in again.requests] == [(on_way(f, fill), True)]
    (ack,) = f.journal.records(pit.stream, kinds=[ACK_KIND])
    assert ack.payload["alert"] == f"T1:request:{fill[0]}-{fill[1]}"
    assert ack.payload["category"] == "request"


def test_the_alert_time_is_the_jurisdictions_unless_the_pit_sets_its_own(
        floor: Floor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = floor
    f.at(0)
    f.request("fill", WANT)
    f.forward()
    now = f.at(20)
    # The jurisdiction's 15 minutes; a jurisdiction of 30; the pit's own 10 over either.
    assert f.pit().view(now=now).requests[0].late
    slow = AccountingSettings(cage=CageSettings(alert_minutes=30))
    began = f.pit().settings.gaming_day_starts
    view = Pit(f.journal, "east", PitSettings(gaming_day_starts=began),
               accounting=slow).view(now=now)
    assert view.request_minutes == 30 and not view.requests[0].late
    view = Pit(f.journal, "east", PitSettings(gaming_day_starts=began,
                                              request_alert_minutes=10),
               accounting=slow).view(now=now)
    assert view.request_minutes == 10 and view.requests[0].late
    # Read from the files: pit.toml's [pit], the station's config/accounting.toml.
    (tmp_path / "pit.toml").write_text("[pit]\nrequest_alert_minutes = 45\n")
    assert load_settings(tmp_path / "pit.toml").request_alert_minutes == 45
    assert load_settings(None).request_alert_minutes is None
    (tmp_path / "bad.toml").write_text("[pit]\nrequest_alert_minutes = 0\n")
    with pytest.raises(ConfigError, match=r"request_alert_minutes.*at least 1"):
        load_settings(tmp_path / "bad.toml")
    conf = tmp_path / "config"
    conf.mkdir()
    (conf / "accounting.toml").write_text("[accounting]\n\n[cage]\nalert_minutes = 25\n")
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(conf))
    assert Pit(f.journal, "east", PitSettings(gaming_day_starts=began)).request_minutes == 25
    # An accounting file that cannot be read: said, and the MICS 15 minutes kept.
    (conf / "accounting.toml").write_text("[accounting]\n\n[cage]\nalert_minutes = \"soon\"\n")
    pit = Pit(f.journal, "east", PitSettings(gaming_day_starts=began))
    view = pit.view(now=now)
    assert view.request_minutes == 15
    assert any("the accounting settings cannot be read" in p and "alert_minutes" in p
               for p in view.problems)


def test_a_request_changed_at_the_floor_without_the_key_is_refused(floor: Floor) -> None:
    f = floor
    f.at(0)
    f.request("fill", WANT)
    f.forward()
    with f.db.write() as conn:          # someone with the database, not the key
        conn.execute(text("UPDATE journal SET payload = replace(payload, '100000', '100001') "
                          "WHERE table_id = 'T1' AND kind = 'slip.request'"))
    view = f.pit().view(now=f.at(20))
    assert any(a.id == "T1:tampered" for a in view.alerts)
    assert view.requests == []


def test_the_pit_window_lists_the_requests_and_queues_the_late_one(
        qtbot: Any, floor: Floor) -> None:
    f = floor
    f.at(0)
    fill = f.request("fill", WANT)
    f.desk.issue(*fill, WANT, [f.t1.who("cas")])
    f.at(25)
    credit = f.request("credit", BACK)
    f.forward()
    pit = f.pit()
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = PitWindow(pit, hasher=fast_hasher(), auto_refresh=False)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    w.show_view(pit.view(now=f.at(31)))
    assert "Fills and credits on their way · 2 open" in w.requests_title.text()
    assert "1 late" in w.requests_title.text()
    rows = [[w.requests.item(r, c).text() for c in range(w.requests.columnCount())]  # type: ignore[union-attr]
            for r in range(w.requests.rowCount())]
    assert [r[1:] for r in rows] == [
        ["T1", f"Fill {on_way(f, fill)}", "Issued at the cage", "T1-F-2026-00001",
         "1,000.00 USD", "31 min late"],
        ["T1", f"Credit {on_way(f, credit)}", "Requested", "—", "200.00 USD", "6 min"]]
    late = w.requests.item(0, 6)
    assert late is not None and late.foreground().color() == QColor(theme.BAD)
    # The late one on the queue; acknowledged by a supervisor at the pit with a reason.
    alert_id = f"T1:request:{fill[0]}-{fill[1]}"
    assert w.select_alert(alert_id)
    assert (f"Fill {on_way(f, fill)} requested 31 min ago, not yet received"
            in w.detail.text())
    w.sign.user_id.setText("sue")
    qtbot.keyClicks(w.sign.pin, FLOOR_PIN)
    click(qtbot, w.sign.sign_in_button)
    assert w.select_alert(alert_id)
    click(qtbot, w.ack_button)
    give_reason(qtbot, w, "runner held at the cage")
    assert "acknowledged" in w.message.text()
    (ack,) = f.journal.records(pit.stream, kinds=[ACK_KIND])
    assert ack.payload["alert"] == alert_id
    # Nothing on its way: one line says so, and the list gives its room to the queue.
    f.at(40)
    f.desk.void(*fill, "wrong slip", [f.t1.who("sue"), f.t1.who("cas")])
    f.desk.void(*credit, "not needed", [f.t1.who("sue"), f.t1.who("cal")])
    f.forward()
    w.show_view(pit.view(now=f.at(41)))
    assert w.requests_title.text() == "Fills and credits on their way · none"
    assert not w.requests.isVisible()
    w.close()
