"""The tournament's printed sheets read back with pypdf: seating, score sheets with the chip
check line, standings with game tags, the bracket drawn (every match), final results with
prizes and the entry-fee accounting as money; each verifies the tournament's own chain on its
last page and is refused plainly when it cannot be printed."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pypdf import PdfReader

from dealer_station.accounting.glossary import ENTRY_FEES, HOUSE_SHARE, PRIZES
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.errors import StationError
from dealer_station.reports.tournament import build_tournament_pdf
from dealer_station.tournament.display import MONEY, place_text
from dealer_station.ui.tournament_demo import new_tournament, play_matches, play_round


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    yield Journal(db, create_key(tmp_path / "journal.key"))
    db.close()


def text(path: Path) -> list[str]:
    """Each page's text, runs of white space (cell breaks) as one space; and, read first,
    that the sheet is an archival PDF like every report: PDF/A-3b, every font embedded (none
    of reportlab's core fonts, which never are)."""
    import subprocess

    import pikepdf

    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts, f"{path.name}: no fonts listed"
    for line in fonts:
        assert line.split()[-5] == "yes", f"{path.name}: {line}"
        assert "Helvetica" not in line and "Courier" not in line, f"{path.name}: {line}"
    with pikepdf.open(path) as pdf:
        meta = pdf.open_metadata()
        assert (meta["pdfaid:part"], meta["pdfaid:conformance"]) == ("3", "B"), path.name
    return [" ".join((page.extract_text() or "").split())
            for page in PdfReader(str(path)).pages]


def test_seating_score_sheets_and_standings_after_a_round(tmp_path: Path,
                                                          journal: Journal) -> None:
    t = new_tournament(journal, "pp", "pitty-pat", 12)
    t.start(by="setup/operator")
    play_round(t, random.Random(1))
    seating = build_tournament_pdf(journal, "pp", "seating", out=tmp_path / "seat.pdf")
    pages = text(seating.path)
    for i, players in enumerate(t.seating_chart(2), 1):
        assert f"Table {i}" in pages[0]
        assert all(name in pages[0] for name in players)
    assert "Journal verified: intact" in pages[-1] and "tournament-pp" in pages[-1]
    round1 = build_tournament_pdf(journal, "pp", "seating", round_no=1,
                                  out=tmp_path / "seat1.pdf")
    assert "round 1" in text(round1.path)[0]

    sheets = build_tournament_pdf(journal, "pp", "score-sheets", out=tmp_path / "sheets.pdf")
    pages = text(sheets.path)
    tables = t.seating_chart(2)
    assert sheets.pages >= len(tables)
    for i, players in enumerate(tables):
        assert f"table {i + 1}" in pages[i]
        assert "Chip check" in pages[i]
        expected = t.rules().chips_for(len(players))
        assert f"must be {expected}" in pages[i]
        assert all(name in pages[i] for name in players)
        # Each player's tags so far, as tags are worn.
        for name in players:
            marks = "●" * t.tags[name] + "○" * (3 - t.tags[name])
            assert marks in pages[i]

    standings = build_tournament_pdf(journal, "pp", "standings", out=tmp_path / "st.pdf")
    page = text(standings.path)[0]
    assert "after round 1" in page and "Game tags" in page
    for row in t.standings():
        assert row.entry in page
    assert page.count("●○○ 1") == sum(1 for r in t.standings() if r.tags == 1) > 0


def test_final_results_with_places_prizes_and_fees(tmp_path: Path, journal: Journal) -> None:
    t = new_tournament(journal, "pk", "po-ke-no", 14)
    t.start(by="setup/operator")
    rng = random.Random(2)
    while not t.finished:
        play_round(t, rng)
    built = build_tournament_pdf(journal, "pk", "results", out=tmp_path / "res.pdf")
    whole = "\n".join(text(built.path))
    assert t.places is not None
    purse = t.purse()
    assert purse.collected == 14 * 1500
    assert "210.00 USD" in whole and "14 × 15.00 USD" in whole    # fees collected
    assert "105.00 USD" in whole and "63.00 USD" in whole and "42.00 USD" in whole  # 50/30/20 %
    # Each prize in the paid-out column, beside whom it went to: never "P008 - 97.50".
    assert f"Prize, 1st to {t.places[0]} 105.00 USD" in whole
    assert f"{t.places[0]} - " not in whole and "- 105.00" not in whole
    for place, name in enumerate(t.places, 1):
        assert f"{place_text(place)} {name}" in whole
    assert f"1st {t.places[0]} winner 105.00 USD" in whole
    # In = out: the entry fees received, every prize and the house's share paid out.
    assert "House's share kept by the house 0.00 USD" in whole
    assert ("Total entry fees = prizes + house's share 210.00 USD 210.00 USD") in whole
    assert ("Entry fees 210.00 USD = prizes 210.00 USD + house's share 0.00 USD: reconciled "
            "to the cent.") in whole
    for term in (ENTRY_FEES, PRIZES, HOUSE_SHARE):
        assert term.said() in whole
    assert "final results" in whole and "Journal verified: intact" in whole


def test_the_money_reconciles_from_the_journal_rows(tmp_path: Path) -> None:
    """Entry fees in, prizes out and the house's share, as printed, recomputed from the
    tournament chain's raw rows (sqlite3 and the payloads' JSON); prizes fixed above the fees:
    the house adds the difference, and in still equals out."""
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    try:
        journal = Journal(db, create_key(tmp_path / "journal.key"))
        t = new_tournament(journal, "br", "po-ke-no", 9, prizes=(10000, 5000, 2550))
        t.start(by="setup/operator")
        rng = random.Random(4)
        while not t.finished:
            play_round(t, rng)
        built = build_tournament_pdf(journal, "br", "results", out=tmp_path / "res.pdf")
    finally:
        db.close()
    con = sqlite3.connect(tmp_path / "journal.db")
    try:
        rows = [(kind, json.loads(payload)) for kind, payload in con.execute(
            "SELECT kind, payload FROM journal WHERE table_id = 'tournament-br' ORDER BY seq")]
    finally:
        con.close()
    created = next(p for kind, p in rows if kind == "tournament.create")
    fees = sum(p["fee"] for kind, p in rows if kind == "tournament.entry")
    people = sum(len(p["members"]) for kind, p in rows if kind == "tournament.entry")
    assert fees == people * created["entry_fee"] == 9 * 1500
    prizes = sum(created["prizes"])
    share = fees - prizes
    assert share == 13500 - 17550 < 0
    whole = "\n".join(text(built.path))
    m = MONEY.text
    assert f"Entry fees {people} × {m(created['entry_fee'])} {m(fees)}" in whole
    assert f"House's share added by the house to the prizes {m(-share)}" in whole
    assert f"Total entry fees = prizes + house's share {m(fees - share)} {m(prizes)}" in whole
    assert (f"Entry fees {m(fees)} = prizes {m(prizes)} + house's share {m(share)}: "
            f"reconciled to the cent.") in whole
    assert "How the prizes are set: fixed at creation." in whole


def test_the_bracket_is_drawn_with_every_match_and_score_sheets_per_match(
        tmp_path: Path, journal: Journal) -> None:
    t = new_tournament(journal, "eu", "euchre", 6, prizes=(6000, 3600, 2400))
    t.start(by="setup/operator")
    play_matches(t, random.Random(3), 5)
    built = build_tournament_pdf(journal, "eu", "bracket", out=tmp_path / "br.pdf")
    reader = PdfReader(str(built.path))
    page = reader.pages[0]
    assert float(page.mediabox.width) > float(page.mediabox.height)      # landscape
    drawn = "\n".join(text(built.path))
    assert t.bracket is not None
    for spec in t.bracket.specs:
        assert spec.id in drawn, spec.id
    for row in t.matches():
        for team, score in row.scores.items():
            assert team in drawn and str(score) in drawn
    assert "Winners round 1" in drawn and "Losers round 1" in drawn and "Second final" in drawn

    sheets = build_tournament_pdf(journal, "eu", "score-sheets", out=tmp_path / "ms.pdf")
    pages = text(sheets.path)
    ready = t.bracket.ready()
    for i, mid in enumerate(ready):
        a, b = t.bracket.teams_of(mid)
        assert f"match {mid}" in pages[i] and f"{a} total" in pages[i] and f"{b} total" in pages[i]
        assert all(m in pages[i] for m in t.entries[str(a)])        # the team's players


def test_a_64_team_bracket_prints_in_parts_and_every_match_is_on_one(
        tmp_path: Path, journal: Journal) -> None:
    t = new_tournament(journal, "big", "euchre", 64)
    t.start(by="setup/operator")
    built = build_tournament_pdf(journal, "big", "bracket", out=tmp_path / "big.pdf")
    pages = text(built.path)
    assert "part 1 of" in pages[0]
    assert t.bracket is not None
    drawn = "\n".join(pages)
    missing = [s.id for s in t.bracket.specs if f"{s.id} " not in drawn]
    assert not missing


def test_what_cannot_be_printed_is_refused_plainly(tmp_path: Path, journal: Journal) -> None:
    t = new_tournament(journal, "rum", "rummy", 4)
    with pytest.raises(StationError, match="start it first"):
        build_tournament_pdf(journal, "rum", "seating", out=tmp_path / "x.pdf")
    t.start(by="setup/operator")
    with pytest.raises(StationError, match="has no bracket"):
        build_tournament_pdf(journal, "rum", "bracket", out=tmp_path / "x.pdf")
    with pytest.raises(StationError, match="no round 5"):
        build_tournament_pdf(journal, "rum", "score-sheets", round_no=5,
                             out=tmp_path / "x.pdf")
    assert not (tmp_path / "x.pdf").exists()


def test_the_print_command(tmp_path: Path, journal: Journal) -> None:
    t = new_tournament(journal, "cli", "bourre", 7)
    t.start(by="setup/operator")
    out = tmp_path / "seating.pdf"
    run = subprocess.run([sys.executable, "-m", "dealer_station", "tournament", "print", "cli",
                          "--what", "seating", "--out", str(out), "--db",
                          str(journal.db.engine.url), "--key", str(tmp_path / "journal.key")],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "verified intact" in run.stdout and out.exists()
    assert "Table 2" in text(out)[0]
