"""`dealer-station simulate` says money as money ("44.00 USD"), never in minor units, on every
line a person reads: each round, each round of a gaming day with its tray, and the summary's
mispaid amount. Bourré's pots are chips, and say so. Run in-process on a real SQLite
journal."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key
from dealer_station.cli.main import main

MONEY = r"-?\d{1,3}(?:,\d{3})*\.\d\d USD"


def minor(text: str) -> int:
    """``1,234.56 USD`` -> 123456."""
    return int(Decimal(text.removesuffix(" USD").replace(",", "")) * 100)


def test_each_round_says_its_money_as_money(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]
    assert main(["simulate", "--game", "lapaire", "--rounds", "4", "--seed", "3",
                 *store]) == 0
    out = capsys.readouterr().out
    rounds = re.findall(rf"^round (\d+): .*  wagered ({MONEY})  paid ({MONEY})$", out,
                        re.MULTILINE)
    assert len(rounds) == 4, out
    db = open_database(store[1])
    try:
        closes = {r.round_no: r.payload for r in Journal(db, load_key(Path(store[3])))
                  .records("T1", kinds=["round.close"])}
    finally:
        db.close()
    for n, wagered, paid in rounds:
        # The very amounts the journal holds, in minor units, said as money.
        assert minor(wagered) == closes[int(n)]["wagered"] > 0
        assert minor(paid) == closes[int(n)]["total_win"]
    assert not re.search(r"(wagered|paid) \d+(\s|$)", out), out


def test_gaming_days_say_the_tray_and_the_mispaid_amount_as_money(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    lapaire = Path(__file__).resolve().parents[1] / "config" / "lapaire.toml"
    (tmp_path / "lapaire.toml").write_text(lapaire.read_text())
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]
    assert main(["simulate", "--game", "lapaire", "--rounds", "6", "--gaming-days", "1",
                 "--mispay-rate", "0.5", "--seed", "5", *store]) == 0
    out = capsys.readouterr().out
    days = re.findall(rf"^\d{{4}}-\d\d-\d\d round \d+: wagered {MONEY} paid {MONEY} "
                      rf"tray ({MONEY})$", out, re.MULTILINE)
    assert len(days) == 6, out
    assert all(minor(tray) > 100_000 for tray in days)    # a tray of thousands of dollars
    summary = out.strip().splitlines()[-1]
    assert re.search(rf"1 gaming day \S+ to \S+, mispaid ({MONEY});", summary), summary
    assert not re.search(r"(wagered|paid|tray|mispaid) -?\d+(\s|;|$)", out), out


def test_bourre_says_its_pots_in_chips(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / "j.key")]
    assert main(["simulate", "--game", "bourre", "--rounds", "3", "--seed", "1",
                 *store]) == 0
    out = capsys.readouterr().out
    hands = re.findall(r"^hand \d+: .*  pot \d+ chips  ", out, re.MULTILINE)
    assert len(hands) == 3, out
