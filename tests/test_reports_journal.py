"""The journals the report tests read, and tests of what every report shares (period, money,
times, the page template's header, footer and verification section).

``report_journal`` is made once per test session: ``dealer-station simulate`` plays 40 rounds
through the real table service and simulated shoe (a subprocess, as a person would run it);
then, three hours later on the journal's clock, a supervisor corrects a misread card reported
by the simulated shoe, voids a round stopped by a device fault, an operator changes the
configuration, one more round is played under it, and the journal is checkpointed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

import pytest
from pypdf import PdfReader

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.audit.users import Users
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.events.table import RoundHalted
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.hardware.backends import open_device

TABLE = "T1"
SIM_ROUNDS = 40
CORRECTION_REASON = "card turned by hand was QS"
VOID_REASON = "shoe lost mid-round; stage 1 stands"
CONFIG_REASON = "no poker tonight; straight-up minimum raised"


@dataclass(frozen=True)
class JournalFiles:
    url: str
    key: Path
    gap_start: datetime   # after every simulated record, before every later one
    gap_end: datetime

    def open(self) -> tuple[Journal, object]:
        db = open_database(self.url, upgrade=False)
        return Journal(db, load_key(self.key)), db


class SteppedClock:
    """The journal's clock for the later records: one second per record, thread-safe."""

    def __init__(self, start: datetime) -> None:
        self.now = start
        self.lock = threading.Lock()

    def __call__(self) -> datetime:
        with self.lock:
            self.now += timedelta(seconds=1)
            return self.now


def simulate(url: str, key: Path, rounds: int, seed: int, *extra: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dealer_station", "simulate", "--rounds", str(rounds), "--seed",
         str(seed), "--quiet", "--db", url, "--key", str(key), *extra],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def pay(t: LaPaireTable) -> None:
    for stage in t.unconfirmed():
        t.confirm_payout(stage)


#: The journal's users, added while it is new (its first operator needs a new journal).
USERS = [("olga", "Olga Example", "operator", "2468"),
         ("sue", "Sue Example", "supervisor", "2468")]


def _add_exceptions(journal: Journal) -> None:
    users = Users(journal)
    sue = users.authenticate("sue", "2468", table_id=TABLE)
    olga = users.authenticate("olga", "2468", table_id=TABLE)
    t = LaPaireTable(journal, TABLE, load_lapaire_config(), dealer="dee/dealer")
    t.startup()
    halted = threading.Event()
    t.subscribe(lambda u: halted.set() if u.has(RoundHalted) else None)
    shoe = open_device("shoe", "simulated", device_id="S1", deck=LAPAIRE_DECK,
                       on_event=t.on_device_event)
    t.attach("shoe", shoe)
    try:
        # A misread from the shoe, corrected by the supervisor.
        t.place_many([Wager(1, "straight", ("K",), 500), Wager(1, "any_pair", (), 200),
                      Wager(3, "split", ("7", "K"), 1000)])
        t.deal("KH")
        pay(t)
        shoe.simulator.report_error("MISREAD", "card not recognised")
        assert halted.wait(10)
        halted.clear()
        t.correct_card(sue, "QS", CORRECTION_REASON)
        pay(t)
        t.deal("9D")
        pay(t)
        # A device fault, and the round voided.
        t.place_many([Wager(2, "corner", ("2", "3", "8", "9"), 300), Wager(2, "red", (), 100),
                      Wager(2, "poker", (), 100)])
        t.deal("3H")
        shoe.simulator.report_error("JAM", "card jammed in the shoe")
        assert halted.wait(10)
        t.void(sue, VOID_REASON)
    finally:
        shoe.close()
        t.devices.clear()
    new = t.config.with_changes(offered={"poker": False}, limits={"straight": (200, 5000)})
    t.change_config(olga, new, CONFIG_REASON)
    t.place_many([Wager(4, "three", ("A", "2", "8"), 400), Wager(4, "black", (), 200)])
    for card in ("AS", "2D", "8C"):
        t.deal(card)
        pay(t)
    t.shutdown()
    journal.checkpoint(TABLE, "console:test")


@pytest.fixture(scope="session")
def report_journal(tmp_path_factory: pytest.TempPathFactory) -> JournalFiles:
    where = tmp_path_factory.mktemp("report-journal")
    url = f"sqlite:///{where / 'journal.db'}"
    key = where / "journal.key"
    db = open_database(url)
    Users(Journal(db, create_key(key))).seed(USERS, actor="setup/operator")
    db.close()
    simulate(url, key, SIM_ROUNDS, 11)
    db = open_database(url)
    try:
        plain = Journal(db, load_key(key))
        last = plain.last(TABLE)
        assert last is not None
        end = datetime.fromisoformat(last.ts)
        clock = SteppedClock(end + timedelta(hours=3))
        _add_exceptions(Journal(db, load_key(key), clock=clock))
    finally:
        db.close()
    return JournalFiles(url, key, end + timedelta(hours=1), end + timedelta(hours=2))


@pytest.fixture
def opened(report_journal: JournalFiles) -> Iterator[Journal]:
    journal, db = report_journal.open()
    yield journal
    db.close()  # type: ignore[attr-defined]


def copy_journal(files: JournalFiles, where: Path) -> JournalFiles:
    """A copy to tamper with (the key and anchor file go along)."""
    src = Path(files.url.removeprefix("sqlite:///"))
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, where / "journal.db")
    shutil.copy(files.key, where / "journal.key")
    anchors = files.key.with_name("journal.anchors")
    if anchors.exists():
        shutil.copy(anchors, where / "journal.anchors")
    (where / "journal.key").chmod(0o600)
    return JournalFiles(f"sqlite:///{where / 'journal.db'}", where / "journal.key",
                        files.gap_start, files.gap_end)


def pdf_text(path: Path, page: int | None = None) -> str:
    """The PDF's text (or one page's), whitespace folded to single spaces."""
    reader = PdfReader(str(path))
    pages = reader.pages if page is None else [reader.pages[page]]
    return " ".join(" ".join(pg.extract_text().split()) for pg in pages)


def page_count(path: Path) -> int:
    return len(PdfReader(str(path)).pages)


def render_png(pdf: Path, where: Path) -> list[Path]:
    """Render every page to PNG with pdftoppm (poppler-utils), or skip saying what to
    install."""
    exe = shutil.which("pdftoppm")
    if exe is None:
        pytest.skip("pdftoppm is not installed (apt-get install poppler-utils): the pages "
                    "were not rendered to PNG")
    subprocess.run([exe, "-r", "40", "-png", str(pdf), str(where / pdf.stem)], check=True,
                   timeout=60)
    pngs = sorted(where.glob(f"{pdf.stem}*.png"))
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size > 2000   # a blank page compresses to far less
    return pngs


def check_every_page(path: Path, title: str, table: str = TABLE) -> int:
    """Every page names the report, the table, the period, page N of M, the time printed and
    the software version. Returns the number of pages."""
    from dealer_station import __version__

    n = page_count(path)
    for i in range(n):
        text = pdf_text(path, i)
        assert title in text
        assert f"Table {table}" in text
        assert "Period: " in text
        assert f"Page {i + 1} of {n}" in text
        assert f"by Dealer Station {__version__}" in text
        assert "Printed " in text
    return n


# --- what every report shares ----------------------------------------------------------------

def test_money_is_printed_exactly_in_the_tables_unit() -> None:
    from dealer_station.money import Money

    usd = Money.of({"money": {"currency": "USD", "minor_units": 100}})
    assert usd.number(123456789) == "1,234,567.89"
    assert usd.number(-5) == "-0.05"
    assert usd.text(100) == "1.00 USD"
    yen = Money.of({"money": {"currency": "JPY", "minor_units": 1}})
    assert yen.number(1500) == "1,500"
    odd = Money.of({"money": {"currency": "XYZ", "minor_units": 12}})
    assert odd.label == "minor units of XYZ" and odd.number(1500) == "1,500"
    assert Money.of({"profiles": {}}).label == "chips"


def test_percent_rounds_half_away_from_zero() -> None:
    from dealer_station.reports.text import percent, percent_range

    assert percent(Fraction(1, 27)) == "3.70%"
    assert percent(Fraction(-1, 200), 1) == "-0.5%"
    assert percent(None) == "-"
    assert percent_range(Fraction(1, 27), Fraction(1, 9)) == "3.70% to 11.11%"
    assert percent_range(Fraction(1, 9), Fraction(1, 9)) == "11.11%"


def test_period_refuses_an_empty_or_naive_period() -> None:
    from dealer_station.errors import StationError
    from dealer_station.reports.source import Period

    t = datetime(2026, 3, 1, 18, tzinfo=UTC)
    with pytest.raises(StationError, match="the period is empty"):
        Period(t, t)
    with pytest.raises(StationError, match="time zone"):
        Period(datetime(2026, 3, 1), None)
    p = Period(t, t + timedelta(hours=1))
    assert p.contains("2026-03-01T18:00:00.000000+00:00")
    assert not p.contains("2026-03-01T19:00:00.000000+00:00")


def test_coverage_finds_the_first_and_last_record_of_a_period(
        opened: Journal, report_journal: JournalFiles) -> None:
    from dealer_station.reports.source import Period, coverage

    everything = coverage(opened, TABLE, Period())
    assert everything.first is not None and everything.first.seq == 1
    assert everything.last == opened.last(TABLE)
    early = coverage(opened, TABLE, Period(None, report_journal.gap_start))
    late = coverage(opened, TABLE, Period(report_journal.gap_start, None))
    assert early.last is not None and late.first is not None
    assert late.first.seq == early.last.seq + 1
    assert early.last.ts < report_journal.gap_start.isoformat() < late.first.ts
    empty = coverage(opened, TABLE, Period(report_journal.gap_start, report_journal.gap_end))
    assert empty.first is None and empty.last is None


def test_pick_table_names_the_choices(opened: Journal) -> None:
    from dealer_station.errors import StationError
    from dealer_station.reports.source import pick_table

    assert pick_table(opened, None) == TABLE   # the 'station' chain is not a table
    with pytest.raises(StationError, match=r"table 'T9' has no records.*tables: T1"):
        pick_table(opened, "T9")
