"""Simulated gaming days: the win identity, and mispays that the variance catches exactly."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from accounting_support import CAL, SETTINGS, Clock, Setup

from dealer_station.accounting.figures import statistical_win
from dealer_station.cli.main import main
from dealer_station.games.lapaire.table.days import simulate_days
from dealer_station.games.lapaire.table.sim import simulate_lapaire
from dealer_station.reports.master_game import gather, row_json

START = date(2026, 3, 1)


def play(url: str, tmp_path: Path, *, days: int, rounds: int, rate: float, seed: int
         ) -> tuple[Setup, int]:
    s = Setup(url, tmp_path / "journal.key", clock=Clock(CAL.day(START).start), people=False)
    result = simulate_days(s.journal, "T1", rounds, days=days, mispay_rate=rate, seed=seed,
                           settings=SETTINGS, calendar=CAL, start=START, quiet=True)
    assert (result.days, result.rounds) == (days, days * rounds)
    return s, result.mispaid


def test_win_identity_on_simulated_days(tmp_path: Path) -> None:
    s, mispaid = play(f"sqlite:///{tmp_path / 'j.db'}", tmp_path, days=3, rounds=25, rate=0,
                      seed=11)
    assert mispaid == 0
    report = gather(s.journal, SETTINGS, CAL)
    assert [d.gaming_day for d in report.days] == [date(2026, 3, i) for i in (1, 2, 3)]
    # Each closer journaled the day's play; summed again from the rounds, it is the same.
    again = gather(s.journal, SETTINGS, CAL, recompute=True)
    assert [d.play for d in again.days] == [d.play for d in report.days]
    assert all(s.book.ledger().days[d.gaming_day].play is not None for d in report.days)
    slips = 0
    for d in report.days:
        assert d.win == statistical_win(drop=d.drop or 0, credits=d.credits, fills=d.fills,
                                        opener=d.opener or 0, closer=d.closer or 0)
        # Nothing was mispaid: the count room's win is exactly what the station settled.
        assert d.win == d.play.computed_win and d.variance == 0
        assert d.play.rounds == 25 and d.exceptions == []
        assert d.play.wagered - d.play.returned - d.play.paid == d.play.computed_win
        slips += d.fills + d.credits
    assert slips > 0, "the tray should have needed a fill or credit in three days"
    # Each day opens with the previous closer.
    for a, b in zip(report.days, report.days[1:], strict=False):
        assert a.closer == b.opener
    last = report.days[-1]
    assert last.mtd_win == sum(d.win or 0 for d in report.days)
    assert last.ytd_drop == sum(d.drop or 0 for d in report.days)
    assert main(["audit", "verify", "--db", s.url, "--key", str(s.key_path)]) == 0
    # The tray was counted at each shift change and the drop taken by shift: every day is
    # the sum of its shifts, the station's figures included (rounds by the shift they
    # closed in).
    shifted = gather(s.journal, SETTINGS, CAL, by_shift=True)
    assert len(shifted.shifts) == 3 * len(CAL.shifts)
    for d in shifted.days:
        parts = shifted.shifts_of(d)
        assert all(x.win is not None and x.variance == 0 for x in parts)
        for key in ("win", "drop", "fills", "credits", "buyins", "variance"):
            assert getattr(d, key) == sum(getattr(x, key) for x in parts), key
        assert d.play.computed_win == sum(x.play.computed_win for x in parts)
        assert d.play.rounds == sum(x.play.rounds for x in parts)
        assert d.play.theoretical_win == sum(x.play.theoretical_win for x in parts)
        assert all(x.play.rounds for x in parts), "25 rounds a day reach every shift"
    # A round played after the closer, still in the gaming day: the day's summary is stale,
    # and the report sums that day again from its rounds.
    s.clock.moment = CAL.day(date(2026, 3, 3)).end - timedelta(minutes=5)
    assert simulate_lapaire(s.journal, "T1", rounds=1, seed=1, quiet=True) == 1
    late = gather(s.journal, SETTINGS, CAL)
    assert [d.play.rounds for d in late.days] == [25, 25, 26]
    assert late.days[2].play == gather(s.journal, SETTINGS, CAL,
                                       recompute=True).days[2].play
    s.close()


def test_mispays_show_as_variance_exactly(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    (tmp_path / "accounting.toml").write_text("[accounting]\nvariance_threshold = 0\n")
    lapaire = Path(__file__).resolve().parents[1] / "config" / "lapaire.toml"
    (tmp_path / "lapaire.toml").write_text(lapaire.read_text())
    db, key = f"sqlite:///{tmp_path / 'j.db'}", str(tmp_path / "j.key")
    store = ["--db", db, "--key", key]
    assert main(["simulate", "--game", "lapaire", "--rounds", "25", "--gaming-days", "2",
                 "--mispay-rate", "0.3", "--seed", "5", "--quiet", "--table", "T1",
                 *store]) == 0
    out = capsys.readouterr().out
    # Said in money ("mispaid -3.00 USD"); the variance is in minor units.
    found = re.search(r"mispaid (-?[\d,]+\.\d\d) USD", out)
    assert found, out
    mispaid = int(Decimal(found.group(1).replace(",", "")) * 100)
    assert mispaid != 0
    assert main(["report", "master-game", "--json", *store]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2
    for row in rows:
        for k in ("table", "gaming_day", "opener", "closer", "fills", "credits", "drop",
                  "win", "hold", "computed_win", "variance", "theoretical_win", "mtd_win",
                  "ytd_win", "mtd_drop", "ytd_drop"):
            assert k in row
        assert row["hold"] == pytest.approx(row["win"] / row["drop"])
        assert row["variance"] == row["win"] - row["computed_win"]
        if row["variance"]:
            assert any("variance" in e for e in row["exceptions"])
    # The game, and the drop as the soft count found it: cash and markers apart, when it was
    # entered and by whom (two different accounting users), read back from the drop records
    # (a day counted shift by shift: its shifts' counts together).
    con = sqlite3.connect(tmp_path / "j.db")
    counts: dict[str, list[tuple[dict[str, Any], str]]] = {}
    for payload, ts in con.execute("SELECT payload, ts FROM journal WHERE table_id = 'T1' "
                                   "AND kind = 'drop.count' ORDER BY seq"):
        stored = json.loads(payload)
        counts.setdefault(stored["gaming_day"], []).append((stored, ts[:10]))
    con.close()
    for row in rows:
        assert row["game"] == "lapaire"
        mine = counts[row["gaming_day"]]
        assert row["drop_cash"] == sum(s["cash"] for s, _ in mine)
        assert row["drop_markers"] == sum(s["markers"] for s, _ in mine)
        assert row["drop_cash"] + row["drop_markers"] == row["drop"]
        assert row["count_date"] == mine[-1][1] >= row["gaming_day"]
        assert row["count_team"] == sorted({x for s, _ in mine for x in s["signers"]})
        assert len(row["count_team"]) >= 2
    # A dealer who paid out more than settled left the tray short: the variance is negative.
    assert sum(r["variance"] for r in rows) == -mispaid
    assert main(["report", "master-game", "--json", "--gaming-day",
                 rows[1]["gaming_day"], *store]) == 0
    (only,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert only == rows[1]
    # Shift by shift: the same keys and the shift; the shifts' variances sum to -mispaid
    # too (the tray was counted at each change), and each day's to the day's.
    assert main(["report", "master-game", "--json", "--by-shift", *store]) == 0
    shifts = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["shift"] for r in shifts] == ["Day", "Swing", "Graveyard"] * 2
    assert set(shifts[0]) == set(rows[0]) | {"shift"}
    assert sum(r["variance"] for r in shifts) == -mispaid
    for row in rows:
        mine = [r for r in shifts if r["gaming_day"] == row["gaming_day"]]
        # The theoretical win too, to the cent: each shift's exact figure is rounded so that
        # the shifts add up to the day (never a cent more or less).
        for k in ("variance", "win", "drop", "computed_win", "rounds", "theoretical_win",
                  "drop_cash", "drop_markers"):
            assert row[k] == sum(r[k] for r in mine), k
    flagged = [r for r in shifts if r["variance"]]
    assert flagged and all(any("variance" in e for e in r["exceptions"]) for r in flagged)
    assert main(["report", "master-game", "--json", "--shift", "swing", *store]) == 0
    swing = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert swing == [r for r in shifts if r["shift"] == "Swing"]
    from pypdf import PdfReader

    for kind in ("master-game", "discrepancies"):
        pdf = tmp_path / f"{kind}.pdf"
        extra = ["--by-shift"] if kind == "master-game" else []
        assert main(["report", kind, *extra, "--out", str(pdf), *store]) == 0
        text = " ".join(page.extract_text() for page in PdfReader(str(pdf)).pages)
        assert "Graveyard" in text and "Swing" in text, kind
        # Like every report, it attaches the records it covers (the table's, from its first
        # gaming day on) and names the first and last of them.
        attached = PdfReader(str(pdf)).attachments
        assert set(attached) == {"journal-records-T1.jsonl", "journal-checkpoint-T1.txt"}, kind
        lines = [json.loads(x) for x in attached["journal-records-T1.jsonl"][0].splitlines()]
        assert lines[0]["seq"] == 1 and isinstance(lines[0]["payload"], str)
        assert [x["seq"] for x in lines] == list(range(1, len(lines) + 1))
        assert "intact" in text and f"{lines[-1]['seq']:,}" in text, kind
    # The thresholds are named with the file they were read from, whichever it is.
    other = tmp_path / "elsewhere" / "cage-rules.toml"
    other.parent.mkdir()
    other.write_text("[accounting]\nvariance_threshold = 500\n")
    pdf = tmp_path / "discrepancies-other.pdf"
    assert main(["report", "discrepancies", "--accounting-config", str(other), "--out",
                 str(pdf), *store]) == 0
    text = "".join(" ".join(page.extract_text() for page in PdfReader(str(pdf)).pages).split())
    # (Whitespace dropped: a long path breaks across lines.)
    assert "Variancethreshold5.00USD" in text and f"(from{other})." in text
    capsys.readouterr()


@pytest.mark.postgres
def test_master_game_on_postgresql(pg_db_url: str, tmp_path: Path) -> None:
    s, mispaid = play(pg_db_url, tmp_path, days=2, rounds=10, rate=0.5, seed=3)
    report = gather(s.journal, SETTINGS, CAL)
    rows = [row_json(d, SETTINGS) for d in report.days]
    assert [r["gaming_day"] for r in rows] == ["2026-03-01", "2026-03-02"]
    assert sum(r["variance"] for r in rows) == -mispaid
    assert all(r["theoretical_win"] > 0 for r in rows)
    s.close()
