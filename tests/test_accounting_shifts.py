"""Win and hold by shift: the tray counted at each shift change, the drop by shift, the day as
the sum of its shifts, refusals that record nothing, and a shift count edited in the database
that `audit verify` catches (real SQLite files; no rounds, so fast)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from accounting_support import CAL, SETTINGS, TABLE_SIGNED_TOML, Setup

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.ledger import AccountingRefused
from dealer_station.cli.main import main
from dealer_station.events.accounting import KINDS
from dealer_station.reports.master_game import gather, row_json

DAY = date(2026, 3, 2)
NEXT = date(2026, 3, 3)
TRAY = Chips.of({100: 100, 500: 100, 2500: 40})


@pytest.fixture
def s(tmp_path: Path) -> Iterator[Setup]:
    setup = Setup(f"sqlite:///{tmp_path / 'journal.db'}", tmp_path / "journal.key")
    yield setup
    setup.close()


def accounting_count(s: Setup) -> int:
    return sum(1 for _ in s.journal.records("T1", kinds=list(KINDS)))


def refused(s: Setup, why: str, action: object) -> None:
    """``action`` is refused with ``why`` and journals no accounting record."""
    before = accounting_count(s)
    with pytest.raises(AccountingRefused, match=why):
        action()  # type: ignore[operator]
    assert accounting_count(s) == before


def play_a_day(s: Setup) -> None:
    """Gaming day 2 March (UTC; Day 06-14, Swing 14-22, Graveyard 22-06) counted by shift."""
    dee, sue, amy, ben = (s.who(u) for u in ("dee", "sue", "amy", "ben"))
    s.clock.at(DAY, 7)
    s.book.opener(TRAY, dee, sue)                                       # 12,500.00 ... opens Day
    s.clock.at(DAY, 8)
    s.book.slip("fill", Chips.of({2500: 20}), dee, sue)                 # +500.00 in Day
    s.book.buy_in("cash", 20000, Chips.of({2500: 8}), dee)
    s.clock.at(DAY, 10)
    refused(s, "Swing shift of gaming day 2026-03-02 is not over",
            lambda: s.book.drop(DAY, 20000, 0, amy, ben, shift="swing"))
    s.clock.at(DAY, 13, 55)
    s.book.shift_count(TRAY.plus(Chips.of({2500: 10})), dee, sue)      # Day closes
    refused(s, "already counted", lambda: s.book.shift_count(TRAY, dee, sue))
    refused(s, "belongs to the next shift",
            lambda: s.book.slip("fill", Chips.of({500: 2}), dee, sue))
    refused(s, "belongs to the next shift",
            lambda: s.book.buy_in("cash", 1000, Chips.of({500: 2}), dee))
    s.book.drop(DAY, 20000, 0, amy, ben, shift="Day")   # its count closed the shift
    s.clock.at(DAY, 15)
    s.book.slip("credit", Chips.of({500: 10}), dee, sue)               # -50.00 in Swing
    s.book.buy_in("marker", 10000, Chips.of({2500: 4}), dee, marker="M-1")
    s.clock.at(DAY, 21, 50)
    s.book.shift_count(TRAY, dee, sue)                                  # Swing closes
    s.clock.at(NEXT, 1)                                                 # still gaming day DAY
    refused(s, "last shift of gaming day 2026-03-02",
            lambda: s.book.shift_count(TRAY, dee, sue))
    s.book.slip("fill", Chips.of({500: 4}), dee, sue)                  # +20.00 in Graveyard
    s.clock.at(NEXT, 5)
    s.book.closer(TRAY.plus(Chips.of({100: 30})), dee, sue)            # Graveyard closes
    s.book.drop(DAY, 12000, 0, amy, ben, shift="Swing")
    refused(s, "already entered", lambda: s.book.drop(DAY, 1, 0, amy, ben, shift="Swing"))
    refused(s, "drops entered by shift", lambda: s.book.drop(DAY, 30000, 0, amy, ben))
    s.book.drop(DAY, 500, 700, amy, ben, shift="Graveyard")


def test_shifts_add_up_to_the_day(s: Setup) -> None:
    play_a_day(s)
    report = gather(s.journal, SETTINGS, CAL, by_shift=True)
    (day,) = report.days
    shifts = report.shifts_of(day)
    assert [x.shift for x in shifts] == ["Day", "Swing", "Graveyard"]
    # Each shift opens with the count that closed the one before.
    assert shifts[0].opener == day.opener == TRAY.total
    assert [x.closer for x in shifts] == [TRAY.total + 25000, TRAY.total, TRAY.total + 3000]
    assert [x.opener for x in shifts[1:]] == [x.closer for x in shifts[:-1]]
    assert [(x.fills, x.credits, x.buyins, x.drop) for x in shifts] == [
        (50000, 0, 20000, 20000), (0, 5000, 10000, 12000), (2000, 0, 0, 1200)]
    # win = drop + credits - fills + (closer - opener), shift by shift ...
    assert [x.win for x in shifts] == [20000 - 50000 + 25000, 12000 + 5000 - 25000,
                                       1200 - 2000 + 3000]
    # ... and the day's figures are the sum of its shifts'.
    assert day.drop == sum(x.drop or 0 for x in shifts) == 33200
    assert day.win == sum(x.win or 0 for x in shifts)
    assert day.fills == sum(x.fills for x in shifts)
    assert day.credits == sum(x.credits for x in shifts)
    assert day.buyins == sum(x.buyins for x in shifts)
    assert day.variance == sum(x.variance or 0 for x in shifts)
    # The per-shift JSON has the day's keys and the shift.
    one = row_json(shifts[1], SETTINGS)
    assert set(one) == set(row_json(day, SETTINGS)) | {"shift"} and one["shift"] == "Swing"
    assert "shift" not in row_json(day, SETTINGS)
    assert one["hold"] == pytest.approx(one["win"] / one["drop"])
    assert shifts[-1].mtd_win == day.mtd_win and shifts[-1].ytd_drop == day.ytd_drop


def test_a_day_counted_whole_still_works_and_its_shifts_are_unknown(s: Setup) -> None:
    dee, sue, amy, ben = (s.who(u) for u in ("dee", "sue", "amy", "ben"))
    s.book.opener(TRAY, dee, sue)
    s.clock.at(DAY, 23)
    s.book.closer(TRAY, dee, sue)
    s.book.drop(DAY, 5000, 0, amy, ben)
    refused(s, "entered for the whole day",
            lambda: s.book.drop(DAY, 5000, 0, amy, ben, shift="Day"))
    refused(s, "no shift 'Brunch'", lambda: s.book.drop(DAY, 1, 0, amy, ben, shift="Brunch"))
    report = gather(s.journal, SETTINGS, CAL, by_shift=True)
    assert report.days[0].win == 5000
    assert [x.win for x in report.shifts] == [None, None, None]


def test_an_edited_shift_count_fails_verify(s: Setup, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    dee, sue = s.who("dee"), s.who("sue")
    s.book.opener(TRAY, dee, sue)
    s.clock.at(DAY, 13, 55)
    count = s.book.shift_count(TRAY, dee, sue)
    assert count.kind == "tray.shift" and count.payload["shift"] == "Day"
    assert count.actor == "dee/dealer+sue/supervisor"
    s.close()
    args = ["audit", "verify", "--db", s.url, "--key", str(s.key_path)]
    assert main(args) == 0
    conn = sqlite3.connect(tmp_path / "journal.db")
    conn.execute("UPDATE journal SET payload = replace(payload, '\"total\":160000', "
                 "'\"total\":170000') WHERE table_id = 'T1' AND seq = ?", (count.seq,))
    assert conn.total_changes == 1
    conn.commit()
    conn.close()
    capsys.readouterr()
    assert main(args) != 0
    assert f"FAILED at record {count.seq}" in capsys.readouterr().out


def test_cli_shift_count_drop_by_shift_and_report(s: Setup, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import json
    import sys
    from datetime import UTC, datetime, timedelta

    # The command reads the real clock: two shifts placed so that now is in the first.
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    a, b = hour - timedelta(hours=1), hour + timedelta(hours=2)
    (tmp_path / "station.toml").write_text(
        f'[gaming_day]\nstarts = "{a:%H:%M}"\ntimezone = "UTC"\n'
        f'shifts = [{{name = "Early", starts = "{a:%H:%M}"}}, '
        f'{{name = "Late", starts = "{b:%H:%M}"}}]\n')
    (tmp_path / "accounting.toml").write_text(TABLE_SIGNED_TOML)
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    s.close()
    day = a.date().isoformat()
    store = ["--db", s.url, "--key", str(s.key_path)]

    def cli(*argv: str, pins: int = 2) -> int:
        old = sys.stdin
        sys.stdin = io.StringIO("2468\n" * pins)
        try:
            return main(["accounting", *argv, *store, "--table", "T1", "--pin-stdin"])
        finally:
            sys.stdin = old

    pair = ["--dealer", "dee", "--supervisor", "sue"]
    assert cli("opener", "--chips", "100x100,2500x40", *pair) == 0
    assert cli("shift-count", "--chips", "100x100,2500x44", *pair) == 0
    assert "end of the Early shift" in capsys.readouterr().out
    assert cli("shift-count", "--chips", "100x100", *pair) == 2
    assert "already counted" in capsys.readouterr().err
    counters = ["--counter", "amy", "--counter", "ben"]
    assert cli("drop", "--gaming-day", day, "--shift", "late", "--cash", "100", *counters) == 2
    assert "Late shift of gaming day" in capsys.readouterr().err
    assert cli("drop", "--gaming-day", day, "--shift", "early", "--cash", "30000",
               *counters) == 0
    assert "drop of the Early shift" in capsys.readouterr().out
    pdf = tmp_path / "shift.pdf"
    assert cli("print", "--inventory", "shift", "--gaming-day", day, "--shift", "Early",
               "--out", str(pdf), pins=0) == 0
    # A control number, not a date and a word: the table's inventory counts numbered in the
    # year, the opener first (the same number on a reprint).
    from pypdf import PdfReader

    def number(path: Path) -> str:
        words = " ".join(" ".join(pg.extract_text() for pg in PdfReader(str(path)).pages)
                         .split())
        found = re.search(r"T1-INV-\d{4}-\d{5}", words)
        assert found is not None, words[:400]
        return found.group(0)
    year = day[:4]
    assert number(pdf) == f"T1-INV-{year}-00002"
    opener = tmp_path / "opener.pdf"
    assert cli("print", "--inventory", "opener", "--gaming-day", day, "--out", str(opener),
               pins=0) == 0
    assert number(opener) == f"T1-INV-{year}-00001"
    assert cli("print", "--inventory", "shift", "--gaming-day", day, "--shift", "Early",
               "--out", str(tmp_path / "again.pdf"), pins=0) == 0
    assert number(tmp_path / "again.pdf") == f"T1-INV-{year}-00002"
    capsys.readouterr()
    assert main(["report", "master-game", "--json", "--by-shift", *store]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["shift"], r["win"]) for r in rows] == [("Early", 30000 + 10000), ("Late", None)]
