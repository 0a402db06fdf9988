"""Shared set-up for the accounting tests (no tests here): a journal on a settable clock, the
people who sign, and the table's accounting book."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from argon2 import PasswordHasher

from dealer_station.accounting.cage_settings import TABLE_SIGNED
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.audit.users import User, Users
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting

PIN = "2468"
CAL = GamingCalendar(zone=ZoneInfo("UTC"))
#: A jurisdiction whose fills and credits the table signs in one step (the cage's workflow
#: has its own tests, on the default settings: tests/test_cage*.py).
SETTINGS = AccountingSettings(variance_threshold=2500, inventory_tolerance=0,
                              cage=TABLE_SIGNED)
#: The settings file of that jurisdiction, for the command-line tests.
TABLE_SIGNED_TOML = ('[accounting]\n\n[cage]\nissue = []\nrunner = []\n'
                     'void = ["supervisor", "supervisor"]\n')
PEOPLE = (("op", "Olga Operator", "operator"), ("dee", "Dee Dealer", "dealer"),
          ("dan", "Dan Dealer", "dealer"), ("sue", "Sue Supervisor", "supervisor"),
          ("amy", "Amy Accounts", "accounting"), ("ben", "Ben Accounts", "accounting"),
          ("cas", "Cass Cashier", "cage"), ("cal", "Cal Cashier", "cage"),
          ("sec", "Sid Security", "security"))


def fast_hasher() -> PasswordHasher:
    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


class Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment

    def at(self, day: date, hour: int, minute: int = 0) -> None:
        self.moment = datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)

    def tick(self, minutes: int = 1) -> None:
        self.moment += timedelta(minutes=minutes)


class Setup:
    """A journal (SQLite file or PostgreSQL) with signed-in people and table T1's book."""

    def __init__(self, url: str, key_path: Path, *, create: bool = True,
                 clock: Clock | None = None, people: bool = True) -> None:
        self.url, self.key_path = url, key_path
        self.clock = clock or Clock(datetime(2026, 3, 2, 7, 0, tzinfo=UTC))
        self.db = open_database(url)
        key = create_key(key_path) if create else load_key(key_path)
        self.journal = Journal(self.db, key, clock=self.clock)
        self.users = Users(self.journal, hasher=fast_hasher())
        if create and people:
            self.users.seed([(u, n, r, PIN) for u, n, r in PEOPLE], actor="setup/operator")
        self.book = TableAccounting(self.journal, "T1", SETTINGS, CAL)

    def who(self, user_id: str) -> User:
        return self.users.authenticate(user_id, PIN, table_id="T1")

    def close(self) -> None:
        self.db.close()
