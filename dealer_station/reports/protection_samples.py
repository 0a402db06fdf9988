"""The sample game-protection report for the documentation.

    .venv/bin/python -m dealer_station.reports.protection_samples docs/samples

Table T1 plays one simulated gaming day (300 rounds, seed 2) through the real table service
with the chip tray's accounting, as ``dealer-station simulate --gaming-days 1 --inject
biased-shoe:7@50 --inject card-knowledge:3@100`` plays it: from round 50 the shoe's First Card
is a 7 one round in three, and from round 100 the player at seat 3 adds a Straight-up on the
coming First Card in half the rounds. The table's monitor raises its alerts live as the rounds
close. At the pit, the simulation's supervisor acknowledges the first alert of each rule with a
reason; the others are left unacknowledged. The report of that gaming day is written as
``game-protection.pdf``, its pages rendered to ``game-protection-N.png`` with pdftoppm where
installed.

Each run plays the same rounds and raises the same alerts (the seed, the clock and the
journal's key are fixed; the pages print in the casino's zone, America/Chicago). The PDF's
creation date and id differ, as every report's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from dealer_station import registry
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.users import Users
from dealer_station.events.table import ProtectionAlerted
from dealer_station.floor.alerts import Alert, Pit
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.reports.game_protection import build_game_protection_report
from dealer_station.reports.source import gaming_period
from dealer_station.table.days import SIM_PIN, SimClock
from dealer_station.table.parts import SIMULATE_DAYS

ZONE = "America/Chicago"
CAL = GamingCalendar(zone=ZoneInfo(ZONE))
DAY = date(2026, 3, 9)
ROUNDS = 300
SEED = 2
INJECT = ("biased-shoe:7@50", "card-knowledge:3@100")
NAME = "game-protection"
#: The reasons the pit gives, by rule: the first alert of each rule is acknowledged.
REASONS = {"shoe": "shoe pulled, deck counted and sent to surveillance",
           "card-knowledge": "seat 3's play referred to surveillance"}
#: The sample's journal key, made from these words (never a station's).
KEY_WORDS = b"dealer-station game-protection sample: not a station's key"


def _key(folder: Path) -> JournalKey:
    path = folder / "journal.key"
    secret = hashlib.sha256(KEY_WORDS).digest()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secret.hex() + "\n")
    return JournalKey(path=path, secret=secret)


def _acknowledge(journal: Journal, clock: SimClock) -> None:
    """The pit's supervisor acknowledges the first alert of each rule, a few minutes after
    the day's last record."""
    last = journal.last("T1")
    assert last is not None
    clock.set(datetime.fromisoformat(last.ts) + timedelta(minutes=7))
    supervisor = Users(journal).authenticate("sim-supervisor", SIM_PIN)
    pit = Pit(journal, "main")
    done: set[str] = set()
    for rec in journal.events("T1", kinds=[ProtectionAlerted.KIND]):
        rule = str(rec.payload["rule"])
        if rule in done or rule not in REASONS:
            continue
        done.add(rule)
        pit.acknowledge(Alert(f"T1:{rec.seq}", rec.ts, "T1", "protection",
                              str(rec.payload.get("words", "")), rec.seq, rec.round_no),
                        supervisor, REASONS[rule])


def _png(pdf: Path) -> None:
    for old in pdf.parent.glob(f"{pdf.stem}-*.png"):   # a page fewer than last time
        if old.stem.removeprefix(f"{pdf.stem}-").isdigit():
            old.unlink()
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-r", "80", "-png", str(pdf), str(pdf.with_suffix(""))],
                       check=True)


def main(out: Path) -> Path:
    # The pages print local times: the casino's, wherever the sample is made.
    os.environ["TZ"] = ZONE
    time.tzset()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        try:
            clock = SimClock(datetime(DAY.year, DAY.month, DAY.day, tzinfo=UTC))
            journal = Journal(db, _key(Path(tmp)), clock=clock)
            simulate_days = next(days for g in registry.REGISTRY.values()
                                 if (days := g.supplies(SIMULATE_DAYS)) is not None)
            simulate_days(journal, "T1", ROUNDS, days=1, mispay_rate=0.0, seed=SEED,
                          settings=AccountingSettings(), calendar=CAL, start=DAY,
                          quiet=True, inject=INJECT)
            _acknowledge(journal, clock)
            period, name = gaming_period(DAY, calendar=CAL)
            built = build_game_protection_report(
                journal, ["T1"], period, out=out / f"{NAME}.pdf", settings=MonitorSettings(),
                calendar=CAL, period_name=name)
        finally:
            db.close()
    _png(built.path)
    print(f"{built.path} ({built.pages} page{'s' if built.pages != 1 else ''})")
    return built.path


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/samples"))
