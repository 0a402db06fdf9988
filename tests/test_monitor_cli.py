"""``dealer-station monitor`` on journals made by the real ``dealer-station simulate`` (real
SQLite files): no alert on clean runs, the issue's JSON keys, a tampered journal refused with
exit 2 and nothing on standard output, bad flags exit 2."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import date
from pathlib import Path

import pytest
from monitor_support import Files
from test_reports_journal import (  # noqa: F401  (report_journal is a fixture)
    SIM_ROUNDS,
    TABLE,
    JournalFiles,
    copy_journal,
    report_journal,
)

from dealer_station.cli.main import main

#: Among the longest files: started first (tests/conftest.py).
pytestmark = pytest.mark.slow

#: Clean journals: one table per seed, 500 rounds each (1,000 rounds in all; the pure tests
#: in tests/test_monitor.py hold the false-alarm rate over far more).
CLEAN = {"T1": 1, "T2": 2}
CLEAN_ROUNDS = 500
CONTRACT_KEYS = {"rule", "table", "round_no", "seat", "dealer", "p_value"}


def simulate(files: Files, table: str, rounds: int, seed: int, *extra: str) -> None:
    assert main(["simulate", "--game", "lapaire", "--rounds", str(rounds), "--seed",
                 str(seed), "--table", table, "--quiet", *files.args, *extra]) == 0


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Files:
    where = tmp_path_factory.mktemp("monitor-clean")
    files = Files(where / "journal.db", where / "journal.key")
    for table, seed in CLEAN.items():
        simulate(files, table, CLEAN_ROUNDS, seed)
    return files


# --- injected anomalies (simulate --inject, the contract) --------------------------

#: docs/monitor.md: each injected anomaly is detected within this many rounds of its start.
DETECTED_WITHIN = 100
INJECT_AT = 21
#: (anomaly, seed): four of the runs measured for docs/monitor.md (the slowest of the first set).
INJECTED = [("biased-shoe:7", 1), ("biased-shoe:3", 6), ("card-knowledge:4", 4),
            ("card-knowledge:6", 6)]


@pytest.fixture(scope="module")
def injected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Files]:
    where = tmp_path_factory.mktemp("monitor-injected")
    out = {}
    for anomaly, seed in INJECTED:
        files = Files(where / f"{anomaly.replace(':', '-')}.db", where / "journal.key")
        simulate(files, "T1", INJECT_AT - 1 + DETECTED_WITHIN, seed, "--inject",
                 f"{anomaly}@{INJECT_AT}")
        out[anomaly] = files
    return out


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(args)
    except SystemExit as exc:       # argparse refusing a flag
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_runs_raise_no_alert(clean: Files, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """One test, so that the clean journals are made once however the tests are shared out
    between workers."""
    code, out, err = run(["monitor", *clean.args, "--json"], capsys)
    assert (code, out, err) == (0, "", "")
    code, out, _ = run(["monitor", *clean.args], capsys)
    assert code == 0
    for table in CLEAN:
        assert (f"table {table}: {CLEAN_ROUNDS} rounds monitored (at most 1 false alarm per "
                f"10,000 rounds across every rule): no alert") in out

    # At 1 false alarm per 20 rounds the clean journals do alert (within that rate): each
    # line one JSON object with the contract's keys.
    station = tmp_path / "station.toml"
    station.write_text("[monitor]\nrounds_per_false_alarm = 20\n")
    code, out, _ = run(["monitor", *clean.args, "--json", "--table", "T2",
                        "--station-config", str(station)], capsys)
    assert code == 0
    alerts = [json.loads(line) for line in out.splitlines()]
    assert 0 < len(alerts) <= CLEAN_ROUNDS / 20
    for a in alerts:
        assert set(a) >= CONTRACT_KEYS
        assert a["table"] == "T2" and a["rule"] in ("shoe", "card-knowledge")
        assert isinstance(a["round_no"], int) and 1 <= a["round_no"] <= CLEAN_ROUNDS
        assert a["seat"] is None or isinstance(a["seat"], int)
        assert a["dealer"] == "sim-dealer/dealer"
        assert isinstance(a["p_value"], float) and 0 <= a["p_value"] <= 1
        assert a["false_alarm_rate"] == 1 / 20
    code, out, _ = run(["monitor", *clean.args, "--table", "T2", "--station-config",
                        str(station)], capsys)
    assert f"{len(alerts)} alert" in out and "p-value" in out

    code, out, _ = run(["monitor", *clean.args, "--table", "T1", "--gaming-day",
                        "2001-01-01"], capsys)
    assert code == 0 and "table T1: 0 rounds monitored" in out
    # The gaming days the rounds were dealt in (two if the run crossed the day's start).
    days = _gaming_days(clean, "T1")
    counted = 0
    for day in sorted(set(days)):
        code, out, _ = run(["monitor", *clean.args, "--table", "T1", "--gaming-day",
                            day.isoformat()], capsys)
        assert code == 0
        counted += int(out.split(": ", 1)[1].split(" round", 1)[0].replace(",", ""))
    assert counted == CLEAN_ROUNDS == len(days)


def _gaming_days(files: Files, table: str) -> list[date]:
    from datetime import datetime

    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import load_key
    from dealer_station.gameconfig import load_gaming_calendar
    from dealer_station.table.monitor_rounds import monitor_rounds

    calendar = load_gaming_calendar()
    db = open_database(f"sqlite:///{files.db}", upgrade=False)
    try:
        return [calendar.day_of(datetime.fromisoformat(m.opened))
                for m in monitor_rounds(Journal(db, load_key(files.key)), table)]
    finally:
        db.close()


def test_a_tampered_journal_is_refused(injected: dict[str, Files], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    clean = injected[INJECTED[0][0]]
    copy = Files(tmp_path / "journal.db", tmp_path / "journal.key")
    shutil.copy(clean.db, copy.db)
    shutil.copy(clean.key, copy.key)
    copy.key.chmod(0o600)
    db = sqlite3.connect(copy.db)
    db.execute("UPDATE journal SET actor='mallory/dealer' WHERE table_id='T1' AND seq=300")
    db.commit()
    db.close()
    code, out, err = run(["monitor", *copy.args, "--json"], capsys)
    assert code == 2 and out == ""
    assert "the journal of table T1 does not verify (record 300" in err
    assert "nothing was monitored" in err


@pytest.mark.parametrize(("flags", "says"), [
    (["--table", "T9"], "table 'T9' has no records"),
    (["--gaming-day", "2026-13-01"], "is not a date"),
    (["--rounds", "5"], "unrecognized arguments"),
])
def test_bad_flags_exit_2(injected: dict[str, Files], capsys: pytest.CaptureFixture[str],
                          flags: list[str], says: str) -> None:
    files = injected[INJECTED[0][0]]
    code, out, err = run(["monitor", *files.args, "--json", *flags], capsys)
    assert code == 2 and out == "" and says in err


def test_a_bad_station_file_exits_2(injected: dict[str, Files], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    files = injected[INJECTED[0][0]]
    station = tmp_path / "station.toml"
    station.write_text("[monitor]\nrounds_per_false_alarm = -3\n")
    code, out, err = run(["monitor", *files.args, "--station-config", str(station)], capsys)
    assert code == 2 and out == ""
    assert f"{station}: monitor.rounds_per_false_alarm: must be from 10" in err


@pytest.mark.parametrize(("anomaly", "seed"), INJECTED)
def test_an_injected_anomaly_is_detected_and_named(injected: dict[str, Files], anomaly: str,
                                                   seed: int,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["monitor", *injected[anomaly].args, "--json"], capsys)
    assert code == 0
    alerts = [json.loads(line) for line in out.splitlines()]
    rule, _, what = anomaly.partition(":")
    if rule == "biased-shoe":
        assert alerts and all((a["rule"], a["stage"], a["value"]) == ("shoe", 1, what)
                              for a in alerts), alerts
    else:
        # A seat that knows the card wins: the dealer's and the table's win may show it too.
        assert alerts and all((a["rule"], a["seat"]) == ("card-knowledge", int(what))
                              or (a["rule"] in ("dealer", "hold") and a["seat"] is None)
                              for a in alerts), alerts
        alerts = [a for a in alerts if a["rule"] == "card-knowledge"]
    first = alerts[0]
    assert INJECT_AT <= first["round_no"] < INJECT_AT + DETECTED_WITHIN
    assert first["dealer"] == "sim-dealer/dealer" and first["p_value"] < 1e-4


# --- the reader ----------------------------------------------------------------------------

def test_the_reader_takes_a_voided_rounds_cards_and_leaves_an_open_round_out(
        report_journal: JournalFiles, tmp_path: Path) -> None:  # noqa: F811
    """The report tests' journal: 40 simulated rounds, then round 41 with a misread corrected
    by a supervisor, round 42 voided after its First Card, round 43 under a changed
    configuration."""
    from dealer_station.monitor import SeatWager
    from dealer_station.table.monitor_rounds import monitor_rounds

    journal, db = report_journal.open()
    try:
        rounds = {m.round.round_no: m.round for m in monitor_rounds(journal, TABLE)}
    finally:
        db.close()  # type: ignore[attr-defined]
    assert sorted(rounds) == list(range(1, SIM_ROUNDS + 4))
    assert all(len(r.cards) == 3 and r.jokers == 2 for n, r in rounds.items() if n != 42)
    corrected = rounds[41]
    assert corrected.cards == ("KH", "QS", "9D") and corrected.dealer == "dee/dealer"
    assert set(corrected.wagers) == {SeatWager(1, "straight", ("K",), 500),
                                     SeatWager(1, "any_pair", (), 200),
                                     SeatWager(3, "split", ("7", "K"), 1000)}
    assert rounds[42].cards == ("3H",) and len(rounds[42].wagers) == 3
    assert rounds[43].cards == ("AS", "2D", "8C")

    # Round 43 without its close: still open, so left out.
    copy = copy_journal(report_journal, tmp_path / "open")
    raw = sqlite3.connect(copy.url.removeprefix("sqlite:///"))
    raw.execute("DELETE FROM journal WHERE table_id=? AND round_no=43 AND kind='round.close'",
                (TABLE,))
    raw.commit()
    raw.close()
    journal, db = copy.open()
    try:
        assert [m.round.round_no for m in monitor_rounds(journal, TABLE)][-1] == 42
    finally:
        db.close()  # type: ignore[attr-defined]
