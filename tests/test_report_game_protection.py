"""`dealer-station report game-protection` on a journal made by `dealer-station simulate` (one
gaming day, a biased shoe and a seat with card knowledge injected, one alert acknowledged at a
pit): the PDF read back holds every alert the journal holds (rule, round, seat) and its
acknowledgement; a journal edited in SQLite is reported as not verifying on every page (exit
1), its alerts after the edit left out; a period with no alert says so; bad flags exit 2 with
one clear line; each alert's evidence read in one pass a day equals what the pit's evidence
page reads; the hold bands chart draws BandPoints built here."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from repo_paths import CONFIG_DIR
from test_reports_journal import page_count, pdf_text

from dealer_station.cli.main import main
from dealer_station.events.table import PROTECTION_RULES

TABLE = "T1"
ROUNDS = 100
REASON = "shoe pulled and the deck counted"


@dataclass(frozen=True)
class Made:
    folder: Path
    db: Path
    key: Path
    config: Path

    @property
    def store(self) -> list[str]:
        return ["--db", f"sqlite:///{self.db}", "--key", str(self.key)]

    def open(self) -> tuple[Any, Any]:
        from dealer_station.audit.db import open_database
        from dealer_station.audit.journal import Journal
        from dealer_station.audit.keys import load_key

        db = open_database(f"sqlite:///{self.db}", upgrade=False)
        return Journal(db, load_key(self.key)), db

    def copy(self, where: Path) -> Made:
        where.mkdir(parents=True, exist_ok=True)
        for f in self.folder.iterdir():
            if f.is_file():
                shutil.copy2(f, where / f.name)
        return Made(where, where / self.db.name, where / self.key.name, self.config)


def _make(tmp: Path) -> Made:
    """One simulated gaming day of T1, a biased shoe (7s) from round 15 and seat 3 knowing
    the First Card from round 20, with the first card-knowledge alert acknowledged at the
    pit 'main' by the simulation's supervisor."""
    from dealer_station.audit.users import Users
    from dealer_station.events.table import ProtectionAlerted
    from dealer_station.floor.alerts import Alert, Pit
    from dealer_station.table.days import SIM_PIN

    config = tmp / "config"
    config.mkdir()
    (config / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\ntimezone = "UTC"\n'
                                         'shifts = [{name = "Day", starts = "06:00"}, '
                                         '{name = "Night", starts = "18:00"}]\n')
    (config / "lapaire.toml").write_text((CONFIG_DIR / "lapaire.toml").read_text())
    data = tmp / "journal"
    data.mkdir()
    m = Made(data, data / "j.db", data / "j.key", config)
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("DEALER_STATION_CONFIG", str(config))
        assert main(["simulate", "--game", "lapaire", "--rounds", str(ROUNDS), "--gaming-days",
                     "1", "--seed", "2", "--quiet", "--table", TABLE, "--inject",
                     "biased-shoe:7@15", "--inject", "card-knowledge:3@20", *m.store]) == 0
        journal, db = m.open()
        try:
            alerts = journal.events(TABLE, kinds=[ProtectionAlerted.KIND])
            knowing = next(r for r in alerts if r.payload["rule"] == "card-knowledge")
            supervisor = Users(journal).authenticate("sim-supervisor", SIM_PIN)
            Pit(journal, "main").acknowledge(
                Alert(f"{TABLE}:{knowing.seq}", knowing.ts, TABLE, "protection", "seat 3",
                      knowing.seq, knowing.round_no), supervisor, REASON)
        finally:
            db.close()
    finally:
        mp.undo()
    return m


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Made:
    """The journal every test reads (never writes): made once a run, shared by the test
    workers (the first to come makes it while the others wait on its lock)."""
    import fcntl
    import os

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _make(tmp_path_factory.mktemp("protection"))
    shared = tmp_path_factory.getbasetemp().parent / "game-protection-journal"
    with open(str(shared) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (shared / "made").exists():
                shutil.rmtree(shared, ignore_errors=True)
                shared.mkdir()
                _make(shared)
                (shared / "made").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    data = shared / "journal"
    return Made(data, data / "j.db", data / "j.key", shared / "config")


@pytest.fixture
def config_env(made: Made, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(made.config))
    return made.config


def _alerts(made: Made) -> list[dict[str, Any]]:
    """The journal's monitor.alert records, read straight from the SQLite file."""
    import json

    con = sqlite3.connect(made.db)
    try:
        rows = con.execute("SELECT seq, payload FROM journal WHERE table_id = ? AND kind = "
                           "'monitor.alert' ORDER BY seq", (TABLE,)).fetchall()
    finally:
        con.close()
    return [{"seq": seq, **json.loads(payload)} for seq, payload in rows]




def _rows(text: str) -> list[str]:
    """The alert table's rows: each from its round number and time to the next's."""
    import re

    body = text.split("Alerts (", 1)[1].split("Each alert is a monitor.alert record", 1)[0]
    starts = [m.start() for m in re.finditer(r"\b\d{1,4} 2026-\d\d-\d\d \d\d:\d\d:\d\d", body)]
    return [body[a:b] for a, b in zip(starts, [*starts[1:], len(body)], strict=True)]


@pytest.fixture(scope="module")
def whole(made: Made, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The report of every table, everything recorded, as the command writes it (the
    path, and what the command said)."""
    import contextlib
    import io

    out = tmp_path_factory.mktemp("whole") / "gp.pdf"
    said = io.StringIO()
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("DEALER_STATION_CONFIG", str(made.config))
        with contextlib.redirect_stdout(said):
            assert main(["report", "game-protection", *made.store, "--out", str(out)]) == 0
    finally:
        mp.undo()
    return out, said.getvalue()


def test_the_pdf_holds_every_alert_of_the_journal_and_its_acknowledgement(
        made: Made, whole: tuple[Path, str]) -> None:
    out, said = whole
    assert f"wrote game protection report for tables {TABLE} (" in said
    assert "every table's journal verified intact" in said
    alerts = _alerts(made)
    rules = {a["rule"] for a in alerts}
    assert {"shoe", "card-knowledge"} <= rules, "both injections are caught"
    text = pdf_text(out)
    assert f"Alerts {len(alerts)} (1 acknowledged at a pit, {len(alerts) - 1} not)" in text
    rows = _rows(text)
    assert len(rows) == len(alerts)
    for a, row in zip(alerts, rows, strict=True):
        assert row.startswith(f"{a['round_no']} "), (a, row)
        assert PROTECTION_RULES[a["rule"]] in row
        assert "Simulated Dealer (dealer)" in row
        if a["rule"] == "card-knowledge":
            assert f" {a['seat']} " in row and f"seat {a['seat']}" in row
        elif a["rule"] == "shoe":
            assert a["seat"] is None and "the First Card was a 7" in row
        assert "1 in 10,000 rounds" in row
    acked = [row for row in rows if REASON in row]
    assert len(acked) == 1
    first_knowing = next(a for a in alerts if a["rule"] == "card-knowledge")
    assert acked[0].startswith(f"{first_knowing['round_no']} ")
    assert "Simulated Supervisor (supervisor)" in acked[0] and "pit main" in acked[0]
    assert sum(row.count("not acknowledged") for row in rows) == len(alerts) - 1
    # Every rule's state, the run again agreeing with the journal, the dealer, the charts.
    assert (f"Table {TABLE}: run again over these rounds with the station's [monitor] "
            f"settings, the monitor raises exactly the {len(alerts)} alerts the journal "
            f"holds.") in text
    assert f"Simulated Dealer (dealer) {ROUNDS}" in text
    assert "Each alert's evidence" in text
    for a in alerts:
        assert f"crossed at round {a['round_no']}" in text
    assert "Journal verified: intact." in text


def test_the_report_is_pdf_a_with_its_records_attached_and_no_text_below_8_points(
        whole: tuple[Path, str]) -> None:
    import subprocess

    import pikepdf
    from test_reports_pdfa import _sizes

    from dealer_station.reports.archival import RECORDS_ATTACHMENT
    from dealer_station.reports.pdf_style import MIN_TEXT_PT

    out, _ = whole
    fonts = subprocess.run(["pdffonts", str(out)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts and all(line.split()[-5] == "yes" for line in fonts), fonts
    check = subprocess.run(["qpdf", "--check", str(out)], capture_output=True, text=True)
    assert check.returncode == 0 and "No syntax or stream encoding errors found" in check.stdout
    with pikepdf.open(out) as pdf:
        meta = pdf.open_metadata()
        assert meta["pdfaid:part"] == "3" and meta["pdfaid:conformance"] == "B"
        assert RECORDS_ATTACHMENT in [str(f.F) for f in pdf.Root.AF]
        sizes = set().union(*(_sizes(page) for page in pdf.pages))
    assert sizes and min(sizes) >= MIN_TEXT_PT, sorted(sizes)[:5]


def test_each_alerts_evidence_read_in_one_pass_is_the_evidence_pages(made: Made) -> None:
    from dealer_station.events import Codec
    from dealer_station.events.table import ProtectionAlerted
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.monitor.settings import MonitorSettings
    from dealer_station.reports.protection_traces import evidence_by_day
    from dealer_station.table.protection_evidence import evidence

    journal, db = made.open()
    try:
        codec = Codec((ProtectionAlerted,))
        alerts = [codec.decode_as(ProtectionAlerted, r.seq, r.kind, r.payload)
                  for r in journal.events(TABLE, kinds=[ProtectionAlerted.KIND])]
        settings, calendar = MonitorSettings(), GamingCalendar()
        read = evidence_by_day(journal, TABLE, alerts, settings, calendar)
        assert sorted(read) == list(range(len(alerts)))
        # The first, one in the middle and the last of the day, as the evidence page reads
        # each (every alert would read the day again once each).
        for i in sorted({0, len(alerts) // 2, len(alerts) - 1}):
            assert read[i] == evidence(journal, TABLE, alerts[i], settings, calendar)
            assert read[i].points[-1].round_no == alerts[i].round_no
    finally:
        db.close()


def test_an_edited_journal_does_not_verify_on_any_page_and_its_later_alerts_are_left_out(
        made: Made, config_env: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    files = made.copy(tmp_path / "copy")
    alerts = _alerts(made)
    cut = alerts[len(alerts) // 2]["seq"] - 3        # a record of the round before an alert
    con = sqlite3.connect(files.db)
    with con:
        changed = con.execute("UPDATE journal SET actor = 'mallory/dealer' WHERE table_id = ? "
                              "AND seq = ?", (TABLE, cut)).rowcount
    con.close()
    assert changed == 1
    out = tmp_path / "bad.pdf"
    assert main(["report", "game-protection", *files.store, "--table", TABLE,
                 "--out", str(out)]) == 1
    assert f"JOURNAL VERIFICATION FAILED at record {cut}" in capsys.readouterr().out
    for page in range(page_count(out)):
        assert f"JOURNAL VERIFICATION FAILED at record {cut}" in pdf_text(out, page)
    text = pdf_text(out)
    kept = [a for a in alerts if a["seq"] < cut]
    assert f"Alerts {len(kept)} " in text
    assert len(_rows(text)) == len(kept)
    assert (f"Table {TABLE}'s journal does not verify (record {cut}: ") in text
    assert f"reads only its records up to {cut - 1:,}" in text


def test_a_period_without_alerts_says_so(made: Made, config_env: Path, tmp_path: Path) -> None:
    alerts = _alerts(made)
    con = sqlite3.connect(made.db)
    try:
        first_ts, = con.execute("SELECT min(ts) FROM journal WHERE table_id = ? AND kind = "
                                "'round.open'", (TABLE,)).fetchone()
        opened, = con.execute("SELECT ts FROM journal WHERE table_id = ? AND kind = "
                              "'round.open' AND round_no = 12", (TABLE,)).fetchone()
    finally:
        con.close()
    assert min(a["round_no"] for a in alerts) > 12
    start = datetime.fromisoformat(first_ts) - timedelta(minutes=1)
    out = tmp_path / "quiet.pdf"
    assert main(["report", "game-protection", *made.store, "--table", TABLE, "--from",
                 start.isoformat(), "--to", opened, "--out", str(out)]) == 0
    text = pdf_text(out)
    assert "Alerts (0)" in text
    assert "No alert in the period: no test of any rule crossed its threshold." in text
    assert "Rounds watched 11; table T1: rounds 1 to 11" in text
    assert (f"Table {TABLE}: run again over these rounds, the monitor raises no alert, and "
            f"the journal holds none.") in text
    assert "Each alert's evidence" not in text


@pytest.mark.parametrize(("args", "message"), [
    (["--table", "T9"], "--table: table 'T9' has no rounds in this journal (tables: T1)"),
    (["--round", "3"], "--round applies to the recall report only, not to game-protection"),
    (["--tables", "T1"], "--tables applies to the pit report only; game-protection takes "
                         "--table"),
    (["--json"], "--json applies to the"),
    (["--gaming-day", "2026-11-27", "--from", "2026-11-27"], "give the period either as "
                                                             "--gaming-day/--shift or as "
                                                             "--from/--to"),
    (["--out", "gp.txt"], "--out gp.txt: give a file name ending in .pdf"),
])
def test_bad_flags_are_one_clear_line_and_exit_2(
        made: Made, config_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", "game-protection", *made.store, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-station report: error: ") and message in err, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_bad_monitor_setting_names_the_file_and_key(
        made: Made, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    station = tmp_path / "station.toml"
    station.write_text("[monitor]\nrounds_per_false_alarm = 0\n")
    out = tmp_path / "gp.pdf"
    assert main(["report", "game-protection", *made.store, "--station-config", str(station),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(station) in err and "rounds_per_false_alarm" in err, err
    assert "Traceback" not in err and not out.exists()


# --- the charts, drawn from figures built here ----------------------------------------------------

@dataclass(frozen=True)
class Band:
    """A BandPoint as monitor/hold.py gives them (cumulative, minor units)."""

    round_no: int
    wagered: int
    win: int
    theoretical: float
    low: float
    high: float


def test_the_hold_bands_chart_draws_the_win_the_theoretical_win_and_the_band(
        tmp_path: Path) -> None:
    from pypdf import PdfReader
    from reportlab.graphics import renderPDF
    from reportlab.graphics.shapes import Polygon, PolyLine

    from dealer_station.money import Money
    from dealer_station.reports.protection_charts import hold_band_chart

    points, win, theo, var = [], 0, 0.0, 0.0
    for n in range(1, 201):
        win += 500 if n % 3 else -900          # 1,133.00 USD after 200 rounds
        theo += 55.0
        var += 250_000.0
        half = 3 * var ** 0.5
        points.append(Band(n, n * 2000, win, theo, theo - half, theo + half))
    usd = Money.of({"money": {"currency": "USD", "minor_units": 100}})
    d = hold_band_chart(points, usd, 700, 200, title="House win against the theoretical win")
    shapes = d.getContents()
    assert sum(isinstance(s, Polygon) for s in shapes) == 1     # the band
    assert sum(isinstance(s, PolyLine) for s in shapes) == 2    # the win, the theoretical win
    out = tmp_path / "band.pdf"
    renderPDF.drawToFile(d, str(out))
    text = " ".join(PdfReader(str(out)).pages[0].extract_text().split())
    for words in ("House win against the theoretical win", "house win, USD",
                  "house win, cumulative", "theoretical win of the wagers placed",
                  "the band their exact variance allows", "round", "200"):
        assert words in text, words
    # An empty period says so rather than drawing an empty frame.
    empty = hold_band_chart([], usd, 700, 200, title="T")
    assert any(getattr(s, "text", "") == "No round in the period." for s in empty.getContents())


def test_the_report_prints_a_tables_hold_bands(made: Made, tmp_path: Path) -> None:
    from dealer_station.events.wording import People
    from dealer_station.monitor.settings import MonitorSettings
    from dealer_station.reports import game_protection as gp
    from dealer_station.reports.game_protection import render
    from dealer_station.reports.source import Period, coverage, money_for
    from dealer_station.reports.template import TableCheck

    journal, db = made.open()
    try:
        period = Period()
        v = journal.verify(TABLE)[0]
        t = gp.TableProtection(TABLE, coverage(journal, TABLE, period),
                               money_for(journal, TABLE, None), v, None)
        t.rounds, t.first_round, t.last_round = 3, 1, 3
        t.band = [Band(1, 1000, 200, 30.0, -2970.0, 3030.0),
                  Band(2, 2000, -5200, 60.0, -4180.0, 4300.0),
                  Band(3, 3000, -5000, 90.0, -5100.0, 5280.0)]
        data = gp.ProtectionData("Table T1", period, "everything recorded",
                                 MonitorSettings(), [t])
        built = render(data, tmp_path / "band.pdf",
                       [TableCheck(v, t.coverage.first, t.coverage.last)], People())
    finally:
        db.close()
    text = pdf_text(built.path)
    assert "Hold bands" in text
    assert "House win -50.00 USD" in text and "Theoretical win 0.90 USD" in text
    assert "Band at the end -51.00 USD to 52.80 USD: the house win is inside it" in text
    assert "Rounds outside the band 1 of 3" in text


@pytest.mark.parametrize(("test", "words"), [
    ("shoe:1:7", "the First Card is a 7"), ("shoe:2:red", "the second card is red"),
    ("shoe:3:JK", "the third card is a Joker"), ("shoe:1:A", "the First Card is an Ace"),
    ("card-knowledge:3", "seat 3"), ("card-knowledge:stakes:5", "seat 5's stakes"),
    ("dealer:sim-dealer/dealer", "dealer Simulated Dealer (dealer)"),
    ("hold:low", "the house wins below its band"),
    ("hold:high", "the house wins above its band"),
    ("chip-dumping:1>2", "seat 1 to seat 2"), ("soft-play:5-4", "seats 5 and 4"),
])
def test_each_test_is_named_in_peoples_words(test: str, words: str) -> None:
    from dealer_station.events.wording import People
    from dealer_station.reports.game_protection import test_words

    assert test_words(test, People({"sim-dealer": "Simulated Dealer"})) == words
