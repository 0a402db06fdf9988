"""A demo journal for the count room's screen, and its screenshots (``count_room_screenshots``).

Five tables on one SQLite journal, made as the tables and the count room would make them:

- gaming day 2026-03-01: three La Pair'e tables play a whole simulated day each (the registry's
  ``simulate_days``: rounds with mispays, fills and credits through the cage, every shift's box
  counted by note by the simulation's count team), so each has a variance; one of them was
  already explained by two accounting users;
- gaming day 2026-03-02: T1's boxes changed at each shift change (a shift-change count, then
  the closer: a box per shift); T2 closed (one box for the day); T3 opened but never closed,
  its day now over; C1, a Bourré card room table, dealt a few hands (its rake box);
- the journal's clock is then at 08:30 on 2026-03-03, the count room's morning.

The journal's clock is a demo clock set by each step, so the screen reads the same whenever it
is made.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from dealer_station import registry as games
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import User, Users
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.count_room import CountRoom
from dealer_station.table.days import SIM_USERS
from dealer_station.table.parts import SIMULATE, SIMULATE_DAYS, WINS

PIN = "2468"
#: The demo's people (the simulation's own users are added beside them, same PIN).
PEOPLE = (("op", "Olga Operator", "operator"), ("dee", "Dee Dealer", "dealer"),
          ("sue", "Sue Supervisor", "supervisor"), ("amy", "Amy Accounts", "accounting"),
          ("ben", "Ben Accounts", "accounting"), ("ava", "Ava Auditor", "accounting"),
          ("cas", "Cass Cashier", "cage"))
DAY1 = date(2026, 3, 1)
DAY2 = date(2026, 3, 2)
TRAY = Chips.of({100: 200, 500: 200, 2500: 80, 10000: 40, 50000: 10})
#: A variance above 5.00 USD needs a disposition in the demo casino.
SETTINGS = AccountingSettings(variance_threshold=500)
#: The demo casino counts in UTC: the screen's times are the demo's, on any machine.
CALENDAR = GamingCalendar(zone=ZoneInfo("UTC"))


class DemoClock:
    """The journal's clock, set by the demo."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def at(self, day: date, hour: int, minute: int = 0) -> None:
        """``hour`` o'clock of gaming day ``day`` (an hour before the day starts: the next
        calendar day's)."""
        moment = datetime.combine(day, time(), tzinfo=UTC) + timedelta(hours=hour,
                                                                       minutes=minute)
        if hour < 6:
            moment += timedelta(days=1)
        self.moment = moment


@dataclass
class Demo:
    db: Database
    journal: Journal
    users: Users
    settings: AccountingSettings
    calendar: GamingCalendar
    clock: DemoClock
    #: The folder the journal is in.
    folder: Path

    def who(self, user_id: str, table: str = "T1") -> User:
        return self.users.authenticate(user_id, PIN, table_id=table)

    def book(self, table: str) -> TableAccounting:
        return TableAccounting(self.journal, table, self.settings, self.calendar)

    def room(self, table: str) -> CountRoom:
        return CountRoom(self.book(table))


def new_demo(folder: Path, *, settings: AccountingSettings = SETTINGS) -> Demo:
    """An empty demo journal in ``folder`` with its people (and the simulation's)."""
    from dealer_station.app import fast_hasher

    clock = DemoClock(datetime(2026, 3, 1, 5, 0, tzinfo=UTC))
    db = open_database(f"sqlite:///{folder / 'journal.db'}")
    journal = Journal(db, create_key(folder / "journal.key"), clock=clock)
    users = Users(journal, hasher=fast_hasher())
    users.seed([(u, n, r, PIN) for u, n, r in (*PEOPLE, *SIM_USERS)], actor="setup/operator")
    return Demo(db, journal, users, settings, CALENDAR, clock, folder)


def simulated_day(demo: Demo, table: str, day: date, seed: int, rounds: int = 40) -> int:
    """A whole simulated gaming day of a banked game (La Pair'e) at ``table``, every shift's
    box counted by the simulation; how much the dealer mispaid."""
    days = next(d for g in games.REGISTRY.values() if (d := g.supplies(SIMULATE_DAYS)))
    done = days(demo.journal, table, rounds, days=1, mispay_rate=0.3, seed=seed,
                settings=demo.settings, calendar=demo.calendar, start=day, quiet=True)
    return done.mispaid


def card_room_hands(demo: Demo, table: str, hands: int, seed: int) -> None:
    """Hands of a card room game (one whose house banks no wager: Bourré) at ``table``, dealt
    at the clock's time."""
    game = next(g for g in games.REGISTRY.values() if g.supplies(WINS) is None)
    game.part(SIMULATE)(demo.journal, table, hands, seed=seed, quiet=True)


def hand_day(demo: Demo, table: str, day: date, *, shift_counts: bool = False,
             close: bool = True) -> None:
    """A gaming day's tray at ``table``: the opener, the shift-change counts (the drop boxes
    changed with them), the closer."""
    book = demo.book(table)
    demo.clock.at(day, 6, 10)
    book.opener(TRAY, demo.who("dee", table), demo.who("sue", table))
    if shift_counts:
        for hour in (13, 21):
            demo.clock.at(day, hour, 58)
            book.shift_count(TRAY, demo.who("dee", table), demo.who("sue", table))
    if close:
        demo.clock.at(day, 5, 40)
        book.closer(TRAY, demo.who("dee", table), demo.who("sue", table))


def busy_days(demo: Demo) -> None:
    """The demo's two gaming days (see the module)."""
    for table, seed in (("T1", 17), ("T2", 13), ("T3", 16)):
        simulated_day(demo, table, DAY1, seed)
    demo.clock.at(DAY2, 6, 0)
    hand_day(demo, "T1", DAY2, shift_counts=True)
    hand_day(demo, "T2", DAY2)
    hand_day(demo, "T3", DAY2, close=False)
    demo.clock.at(DAY2, 15, 0)
    card_room_hands(demo, "C1", 6, seed=3)
    demo.clock.at(DAY2 + timedelta(days=1), 8, 10)
    room = demo.room("T2")
    from dealer_station.ui.count_room_rows import variances

    found = {v.key: v for v in variances(demo.journal, demo.settings, demo.calendar)}
    t2 = found.get(("T2", DAY1.isoformat()))
    if t2 is not None:
        room.dispose(DAY1, t2.variance, "explained", "dealer mispaid two wagers; "
                     "retrained on the pay table", [demo.who("amy", "T2"),
                                                    demo.who("ben", "T2")])
    demo.clock.at(DAY2 + timedelta(days=1), 8, 30)


@contextmanager
def demo_journal(folder: Path) -> Iterator[Demo]:
    """The busy demo days in ``folder`` (see the module), closed after."""
    demo = new_demo(folder)
    try:
        busy_days(demo)
        yield demo
    finally:
        demo.db.close()


def count_room_screenshots(out: Path) -> list[Path]:
    """The count room's screen at 1280x800 on the demo days: the team's sign-in, the boxes
    and variances, the count form (and with the keypad open), and the disposition form."""
    import tempfile

    from dealer_station.app import fast_hasher
    from dealer_station.ui import theme
    from dealer_station.ui.app import ensure_platform, make_app
    from dealer_station.ui.count_room_window import CountRoomWindow

    ensure_platform(headless_ok=True)
    app = make_app()
    out.mkdir(parents=True, exist_ok=True)
    shots: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="dealer-station-count-") as tmp, \
            demo_journal(Path(tmp)) as demo:
        w = CountRoomWindow(demo.journal, demo.settings, demo.calendar, hasher=fast_hasher(),
                            sheets_dir=Path(tmp) / "sheets", auto_refresh=False)
        w.setFixedSize(*theme.WINDOW_SIZE)
        w.show()

        def grab(name: str) -> None:
            for _ in range(5):
                app.processEvents()
            path = out / f"count-room-{name}.png"
            w.grab().save(str(path))
            shots.append(path)

        w.sign_in.attempt("amy", PIN)
        grab("sign-in")
        w.sign_in.attempt("ben", PIN)
        w.start_count()
        grab("boxes")
        w.open_box(next(b for b in w.boxes if b.shift is not None))
        form = w.count_form
        for denom, n in zip(sorted(form.fields, reverse=True), (14, 9, 31, 12), strict=False):
            form.fields[denom].setText(str(n))
        form.marker_count.setText("2")
        form.marker_total.setText("1500")
        grab("count")
        form.fields[min(form.fields)].open_input()
        grab("count-keypad")
        w.show_lists()
        w.open_variance(next(v for v in w.variances if v.needs))
        form2 = w.dispose_form
        form2.choices["adjusted"].click()
        form2.minus.click()
        form2.amount.setText("3")
        form2.note.setText("a 1.00 chip paid twice on a pair; the tray was short")
        grab("disposition")
        w.close()
    return shots


__all__ = ["CALENDAR", "DAY1", "DAY2", "PEOPLE", "PIN", "SETTINGS", "Demo", "DemoClock",
           "busy_days", "card_room_hands", "count_room_screenshots", "demo_journal",
           "hand_day", "new_demo", "simulated_day"]
