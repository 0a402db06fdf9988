"""A demo journal for the cage's screen, and its screenshots (``cage_screenshots``).

Seven tables on one SQLite journal, each with its opener, and fill and credit requests in
every state, made through the cage's desk as the tables and the cage would: to issue, issued
and waiting for the runner, in transit, received, voided on the way; two of them open longer
than the jurisdiction allows (overdue). The journal's clock is a demo clock set by each step,
so the screen reads the same minutes whenever it is made.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import User, Users
from dealer_station.events.accounting import SlipRequested
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.cage import CageDesk

PIN = "2468"
PEOPLE = (("op", "Olga Operator", "operator"), ("dee", "Dee Dealer", "dealer"),
          ("dan", "Dan Dealer", "dealer"), ("sue", "Sue Supervisor", "supervisor"),
          ("sam", "Sam Floorman", "supervisor"), ("cas", "Cass Cashier", "cage"),
          ("cal", "Cal Cashier", "cage"), ("sid", "Sid Security", "security"),
          ("sia", "Sia Security", "security"))
TABLES = ("T1", "T2", "T3", "T4", "T5", "T6", "T7")
TRAY = Chips.of({100: 200, 500: 200, 2500: 80, 10000: 40, 50000: 10})
START = datetime(2026, 3, 2, 14, 0, tzinfo=UTC)
#: The demo casino counts in UTC: the screen's minutes are the demo's, on any machine.
CALENDAR = GamingCalendar(zone=ZoneInfo("UTC"))


class DemoClock:
    """The journal's clock, moved on by the demo (minutes after START)."""

    def __init__(self) -> None:
        self.moment = START

    def __call__(self) -> datetime:
        return self.moment

    def at(self, minutes: int) -> None:
        self.moment = START + timedelta(minutes=minutes)


@dataclass
class Demo:
    db: Database
    journal: Journal
    users: Users
    settings: AccountingSettings
    calendar: GamingCalendar
    clock: DemoClock

    def who(self, user_id: str, table: str = "T1") -> User:
        return self.users.authenticate(user_id, PIN, table_id=table)

    def desk(self, table: str) -> CageDesk:
        return CageDesk(TableAccounting(self.journal, table, self.settings, self.calendar))

    def request(self, table: str, kind: str, chips: Chips, minute: int, *,
                note: str | None = None) -> tuple[int, int]:
        self.clock.at(minute)
        e = accounting_event(self.desk(table).request(kind, chips, self.who("sue", table),
                                                      note=note), SlipRequested)
        return e.year, e.request

    def issue(self, table: str, key: tuple[int, int], minute: int, cashier: str = "cas"
              ) -> None:
        self.clock.at(minute)
        desk = self.desk(table)
        desk.issue(*key, desk.ledger().request(*key).chips, [self.who(cashier, table)])

    def carry(self, table: str, key: tuple[int, int], minute: int, runner: str = "sid"
              ) -> None:
        self.clock.at(minute)
        self.desk(table).carry(*key, [self.who(runner, table)])

    def receive(self, table: str, key: tuple[int, int], minute: int) -> None:
        self.clock.at(minute)
        desk = self.desk(table)
        desk.receive(*key, desk.ledger().request(*key).chips,
                     [self.who("dee", table), self.who("sue", table)])

    def void(self, table: str, key: tuple[int, int], minute: int, reason: str) -> None:
        self.clock.at(minute)
        self.desk(table).void(*key, reason, [self.who("sam", table), self.who("cal", table)])


def new_demo(folder: Path, *, settings: AccountingSettings | None = None,
             people: tuple[tuple[str, str, str], ...] = PEOPLE) -> Demo:
    """An empty demo journal in ``folder``: the people, and each table's opener."""
    from dealer_station.app import fast_hasher

    clock = DemoClock()
    db = open_database(f"sqlite:///{folder / 'journal.db'}")
    journal = Journal(db, create_key(folder / "journal.key"), clock=clock)
    users = Users(journal, hasher=fast_hasher())
    users.seed([(u, n, r, PIN) for u, n, r in people], actor="setup/operator")
    demo = Demo(db, journal, users, settings or AccountingSettings(), CALENDAR, clock)
    return demo


def open_tables(demo: Demo, tables: tuple[str, ...] = TABLES) -> None:
    demo.clock.at(0)
    for t in tables:
        TableAccounting(demo.journal, t, demo.settings, demo.calendar).opener(
            TRAY, demo.who("dee", t), demo.who("sue", t))


def busy_day(demo: Demo) -> None:
    """Seven tables' requests in every state, step by step in the order they happened; at
    minute 41, two are overdue (T1's, still to issue, and T4's, in transit)."""
    open_tables(demo)
    demo.request("T1", "fill", Chips.of({2500: 20, 10000: 5}), 2,
                 note="tray low on 25.00 chips")
    t5 = demo.request("T5", "fill", Chips.of({10000: 10}), 5)
    demo.issue("T5", t5, 8, cashier="cal")
    t6 = demo.request("T6", "fill", Chips.of({2500: 8}), 8)
    t4 = demo.request("T4", "fill", Chips.of({500: 40, 2500: 40}), 10)
    demo.carry("T5", t5, 11, runner="sia")
    demo.void("T6", t6, 12, "wrong count")
    demo.issue("T4", t4, 14)
    demo.carry("T4", t4, 16)
    demo.receive("T5", t5, 20)
    t7 = demo.request("T7", "credit", Chips.of({50000: 4}), 25)
    t2 = demo.request("T2", "credit", Chips.of({50000: 2, 10000: 5}), 26)
    demo.issue("T7", t7, 28)
    demo.carry("T7", t7, 29)
    demo.request("T2", "fill", Chips.of({100: 50, 500: 40}), 30)
    demo.request("T3", "credit", Chips.of({10000: 12}), 31)
    t3 = demo.request("T3", "fill", Chips.of({100: 100, 2500: 12}), 32)
    demo.issue("T2", t2, 33)
    demo.void("T7", t7, 34, "wrong slip")
    t6b = demo.request("T6", "credit", Chips.of({50000: 3}), 35)
    demo.request("T7", "fill", Chips.of({2500: 40, 10000: 10}), 36)
    demo.issue("T6", t6b, 37, cashier="cal")
    demo.carry("T6", t6b, 38)
    demo.issue("T3", t3, 39)
    demo.clock.at(41)


@contextmanager
def demo_journal(folder: Path) -> Iterator[Demo]:
    """The busy demo day in ``folder`` (see the module), closed after."""
    demo = new_demo(folder)
    try:
        busy_day(demo)
        yield demo
    finally:
        demo.db.close()


def cage_screenshots(out: Path) -> list[Path]:
    """The cage's screen at 1280x800 on the demo day: the list with its alerts, a request's
    sheet, and the issue form with the keypad open."""
    import tempfile

    from dealer_station.app import fast_hasher
    from dealer_station.ui import theme
    from dealer_station.ui.app import ensure_platform, make_app
    from dealer_station.ui.cage_window import CageWindow

    ensure_platform(headless_ok=True)
    app = make_app()
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="dealer-station-cage-") as tmp, \
            demo_journal(Path(tmp)) as demo:
        w = CageWindow(demo.journal, demo.settings, demo.calendar, hasher=fast_hasher(),
                       slips_dir=Path(tmp) / "slips", auto_refresh=False)
        w.setFixedSize(*theme.WINDOW_SIZE)
        w.show()

        def grab(name: str) -> None:
            for _ in range(5):
                app.processEvents()
            path = out / f"cage-{name}.png"
            w.grab().save(str(path))
            shots.append(path)

        grab("requests")
        key = next(k for k in w.row_keys if k is not None and k[0] == "T1")
        sheet = w.open_request(key)
        grab("request-sheet")
        if sheet is not None:
            sheet.choose("issue")
        for _ in range(5):
            app.processEvents()
        form = w.issue_form
        form.fields[2500].setText("20")
        form.fields[10000].open_input()
        grab("issue-keypad")
        w.close()
    return shots


__all__ = ["PEOPLE", "PIN", "TABLES", "Demo", "DemoClock", "busy_day", "cage_screenshots",
           "demo_journal", "new_demo", "open_tables"]
