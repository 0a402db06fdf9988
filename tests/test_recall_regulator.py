"""The reports as a regulator reads them: one number for one round everywhere, money as
money, times from the records, a void's returned wager named, names broken where they read,
headings kept with their tables, the closing section never alone, and the configuration
history with its approver, the felt's names and the par sheet only where it changed.

Every check reads the printed PDF back (pypdf) or the command's output, and compares it with
the journal's own records. Journals: ``report_journal`` (tests/test_reports_journal.py: a
misread corrected, a round voided with its Poker wager returned, a configuration change) and
small ones made here through the real table service.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from test_recall_model import VOIDED_ROUND, cli_text, fold, recalled, screen_text
from test_reports_journal import (  # noqa: F401  (report_journal, opened are fixtures)
    TABLE,
    JournalFiles,
    copy_journal,
    opened,
    pdf_text,
    report_journal,
)

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import Users
from dealer_station.cli.main import main
from dealer_station.errors import StationError
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.table.recall import LaPaireRecall
from dealer_station.games.lapaire.table.wins import round_wins
from dealer_station.money import Money
from dealer_station.reports.config_history import build_config_history_report
from dealer_station.reports.pdf_style import p
from dealer_station.reports.pit_summary import build_pit_report
from dealer_station.reports.recall import build_recall_report
from dealer_station.reports.shift import TOTAL, build_shift_report, gather
from dealer_station.reports.source import Period
from dealer_station.reports.template import ReportBuilder, break_lines, caption, grid
from dealer_station.reports.text import local
from dealer_station.table.recall_model import WAGERED_MEANING, record_label

USD = Money("USD", 100)


def _round_period(journal: Journal, round_no: int) -> Period:
    records = journal.round_records(TABLE, round_no)
    since = datetime.fromisoformat(records[0].ts)
    until = datetime.fromisoformat(records[-1].ts) + timedelta(microseconds=1)
    return Period(since, until)


# --- 1. one number for a voided round everywhere -----------------------------------------------

def test_a_voided_rounds_wagered_is_the_meters_and_the_shift_reports(
        report_journal: JournalFiles, opened: Journal, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str], qapp: Any) -> None:
    rc = recalled(opened, VOIDED_ROUND)
    assert isinstance(rc, LaPaireRecall) and rc.status == "voided"
    void = next(r for r in opened.round_records(TABLE, VOIDED_ROUND) if r.kind == "void")
    meters = void.payload["meters"][TOTAL]
    shift = gather(opened, TABLE, _round_period(opened, VOIDED_ROUND))
    assert shift.rounds_voided == 1 and shift.rounds_settled == 0
    # The journal's own figures for this round: the meters in its closing record, and the
    # shift report over exactly its records.
    assert rc.wagered() == meters["wagered"] == shift.kinds[TOTAL].wagered == 400
    assert rc.paid() == meters["paid"] == shift.kinds[TOTAL].paid
    returned = [w for s in rc.seats for w in s.wagers if w.result == "returned"]
    assert [(w.name, w.amount) for w in returned] == [("3rd Card Poker", 100)]
    assert rc.returned() == 100
    assert rc.wagered() == void.payload["wagered"]       # the void record says the same
    # Every stake is either settled or returned; the JSON keeps all of them (a contract).
    assert rc.wagered() + rc.returned() == rc.totals.wagered
    assert rc.to_json()["totals"]["wagered"] == 500
    # On the terminal, the screen and paper: the settled stakes, the returned apart, the
    # definition, and the void's returned wager by its number, name and stake.
    paper = pdf_text(build_recall_report(opened, TABLE, VOIDED_ROUND,
                                         out=tmp_path / "void.pdf").path)
    named = f"returned: wager #{returned[0].wager_id} (3rd Card Poker, 1.00 USD)"
    for where, text in {"terminal": cli_text(report_journal, VOIDED_ROUND, capsys),
                        "screen": screen_text(rc), "paper": paper}.items():
        assert "wagered 4.00 USD, returned 1.00 USD" in text, where
        assert "wagered 5.00" not in text, where
        assert fold(WAGERED_MEANING) in text, where
        assert named in text, where
        assert not re.search(r"returned: \d", text), where
    # The void's returned stakes are one figure in the shift report, the pit report (which
    # gathers the shift's) and the master game's rounds, as in the recall: "Returned".
    assert shift.returned_by_voids == rc.returned() == 100
    period = _round_period(opened, VOIDED_ROUND)
    (win,) = round_wins(opened, TABLE, period.since, period.until)
    assert win.status == "voided" and win.voided_returned == 100 and win.wagered == 400
    shift_pdf = build_shift_report(opened, TABLE, period, out=tmp_path / "shift.pdf").path
    shift_text = " ".join(pdf_text(shift_pdf).split())
    assert "Returned 1.00 USD (handed back by 1 void; in no other figure)" in shift_text
    pit_pdf = tmp_path / "pit.pdf"
    build_pit_report(opened, [TABLE], period, out=pit_pdf)
    pit_text = " ".join(pdf_text(pit_pdf).split())
    assert "Returned" in pit_text and " 1.00 " in pit_text


# --- 3. every time printed is a record's ---------------------------------------------------

def test_recall_times_and_dealer_are_the_records_even_when_the_rounds_row_lies(
        report_journal: JournalFiles, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    files = copy_journal(report_journal, tmp_path / "copy")
    con = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    with con:
        con.execute("UPDATE rounds SET ended_at = '2026-01-01T00:00:00+00:00', "
                    "started_at = '2026-01-01T00:00:00+00:00', dealer = 'mallory/dealer' "
                    "WHERE table_id = ? AND round_no = ?", (TABLE, VOIDED_ROUND))
    con.close()
    journal, db = files.open()
    try:
        records = journal.round_records(TABLE, VOIDED_ROUND)
        opening, closing = records[0], next(r for r in records if r.kind == "void")
        paper = pdf_text(build_recall_report(journal, TABLE, VOIDED_ROUND,
                                             out=tmp_path / "r.pdf").path)
    finally:
        db.close()  # type: ignore[attr-defined]
    assert f"Ended {local(closing.ts)}" in paper
    assert f"Started {local(opening.ts)}" in paper
    assert f"Dealer {opening.payload['dealer']}" in paper and "mallory" not in paper
    assert "2026-01-01" not in paper
    text = cli_text(files, VOIDED_ROUND, capsys)
    assert "mallory" not in text and "2026-01-01" not in text


# --- 2. money as money on the command line -----------------------------------------------------

def test_audit_meters_prints_money_with_the_tables_currency(
        report_journal: JournalFiles, opened: Journal,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    from dealer_station.reports.shift import kind_label

    capsys.readouterr()
    assert main(["audit", "meters", "--table", TABLE, "--db", report_journal.url,
                 "--key", str(report_journal.key)]) == 0
    out = capsys.readouterr().out
    assert f"table {TABLE}: amounts in USD" in out
    stored = opened.meters(TABLE)
    for key, m in stored.items():
        row = f"  {kind_label(key):<18} {m.rounds:>8,} {USD.number(m.wagered):>16} " \
              f"{USD.number(m.paid):>16} {USD.number(m.house_win):>16}"
        assert row in out, (key, out)
    assert stored[TOTAL].wagered > 100_000            # so a thousands separator shows
    assert f"{stored[TOTAL].wagered:,}".replace(",", "")[:-2] + "." in out.replace(",", "")
    assert str(stored[TOTAL].wagered) not in out       # never the bare minor units
    assert "any_pair" not in out and "Any Pair'e" in out


def test_recall_text_prints_money_not_minor_units(
        report_journal: JournalFiles, opened: Journal,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    rc = recalled(opened, VOIDED_ROUND)
    text = cli_text(report_journal, VOIDED_ROUND, capsys)
    assert "amounts in USD" in text
    for s in rc.seats:   # type: ignore[attr-defined]
        for w in s.wagers:
            assert f"#{w.wager_id} {w.name} {USD.number(w.amount)}" in text


# --- 5. names break where they read; kinds are words ---------------------------------------

def test_long_names_break_only_after_separators() -> None:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from dealer_station.reports.pdf_style import FONT

    narrow = stringWidth("device:shoe:", FONT, 8) + 2
    assert break_lines("device:shoe:SIMSHOE", narrow) == ["device:shoe:", "SIMSHOE"]
    assert break_lines("bourre.discard.card", stringWidth("bourre.discard.", FONT, 8) + 1) \
        == ["bourre.discard.", "card"]
    # A time breaks at its space, not after a colon.
    assert break_lines("2026-03-07 02:31:23", stringWidth("2026-03-07 02:31", FONT, 8)) \
        == ["2026-03-07", "02:31:23"]
    # Only a piece wider than the whole column is cut by letters.
    assert "".join(break_lines("ABCDEFGHIJKLMNOP", 20)) == "ABCDEFGHIJKLMNOP"
    assert record_label("bourre.discard.card") == "Discard read"
    assert record_label("round.close") == "Round closed"
    assert record_label("a.new_kind") == "A new kind"     # never hidden, never an identifier


def test_a_grid_never_runs_text_into_the_next_column(tmp_path: Path) -> None:
    r = ReportBuilder(kind="t", title="Grid", table="T1", period="-")
    w = r.width
    r.add(grid(["What", "Who", "Next"],
               [["bourre.discard.card", "device:shoe:SIMSHOE-07", "X"]],
               [w * 0.1, w * 0.1, w * 0.1], wrap=(1,)))
    pdf = _write(r, tmp_path / "g.pdf")
    lines = [line.strip() for line in
             PdfReader(str(pdf)).pages[0].extract_text().splitlines()]
    start = lines.index("bourre.")
    # Each name in pieces that end where it reads (after . : -), none cut inside a word,
    # and nothing of either reaches the next column's X.
    assert lines[start:start + 3] == ["bourre.", "discard.", "card"]
    rest = lines[start + 3:]
    who = rest[:rest.index("X")] if "X" in rest else rest
    assert "".join(who) == "device:shoe:SIMSHOE-07", lines
    assert all(piece[-1] in ":-" for piece in who[:-1]), who


# --- 6. headings with their tables; the closing section never alone -----------------------

def _write(r: ReportBuilder, out: Path) -> Path:
    from dealer_station.audit.journal import VerifyResult

    ok = VerifyResult(table_id="T1", ok=True, records=1, last_seq=1, last_hash="0" * 64,
                      checkpoints=0, bad_seq=None, problem=None)
    return r.build(out, ok, None, None, signatures=("Supervisor",)).path


def _page_of(pdf: Path, text: str) -> list[int]:
    return [n for n, page in enumerate(PdfReader(str(pdf)).pages)
            if text in " ".join(page.extract_text().split())]


@pytest.mark.parametrize("filler", range(40, 56, 3))
def test_a_caption_is_never_stranded_at_the_foot_of_a_page(tmp_path: Path,
                                                            filler: int) -> None:
    r = ReportBuilder(kind="t", title="Captions", table="T1", period="-")
    for n in range(filler):
        r.add(p(f"line {n} of the filler"))
    r.add(caption("Table limits (USD):"))
    r.add(grid(["Wager", "Minimum"], [[f"kind {n}", "1.00"] for n in range(30)],
               [100, 100]))
    pdf = _write(r, tmp_path / "c.pdf")
    assert _page_of(pdf, "Table limits (USD):") == _page_of(pdf, "kind 0 1.00")
    assert _page_of(pdf, "kind 2 1.00") == _page_of(pdf, "kind 0 1.00")


@pytest.mark.parametrize("rows", range(38, 60, 3))
def test_the_closing_section_is_never_alone_on_the_last_page(tmp_path: Path,
                                                              rows: int) -> None:
    r = ReportBuilder(kind="t", title="Closing", table="T1", period="-")
    r.heading("Journal records")
    r.add(grid(["Record", "What"], [[f"row {n}", "Card dealt"] for n in range(rows)],
               [100, 100]))
    pdf = _write(r, tmp_path / "k.pdf")
    last = len(PdfReader(str(pdf)).pages) - 1
    assert _page_of(pdf, "Journal verification") == [last]
    assert _page_of(pdf, "Sign-off") == [last]
    assert last in _page_of(pdf, f"row {rows - 1} Card dealt")   # the body's last rows too
    # Every row printed once, in order.
    text = " ".join(" ".join(pg.extract_text().split()) for pg in PdfReader(str(pdf)).pages)
    assert [int(x) for x in re.findall(r"row (\d+) Card", text)] == list(range(rows))


@pytest.mark.parametrize("filler", range(30, 60, 2))
def test_a_short_last_table_keeps_its_heading_and_note_when_it_goes_with_the_closing(
        tmp_path: Path, filler: int) -> None:
    """The master game report's discrepancies: a heading, a note, a two-row table last. When
    the closing section takes the table to the next page, its heading and note go too; and a
    long last table sends only its last rows (never its whole self, leaving a page empty)."""
    r = ReportBuilder(kind="t", title="Short", table="T1", period="-")
    for n in range(filler):
        r.add(p(f"line {n} of the filler"))
    r.heading("Discrepancies")
    r.add(p("Variance threshold 25.00 USD."))
    r.add(grid(["Day", "Exception"], [["d1", "slip voided"], ["d2", "variance beyond"]],
               [100, 200]))
    pdf = _write(r, tmp_path / "s.pdf")
    table = _page_of(pdf, "d1 slip voided")
    assert _page_of(pdf, "Discrepancies") == table == _page_of(pdf, "Variance threshold")
    assert _page_of(pdf, "Journal verification") == [len(PdfReader(str(pdf)).pages) - 1]


def test_a_heading_over_a_block_kept_together_is_laid_out(tmp_path: Path) -> None:
    """The master game report's shift section: a heading, then a KeepTogether (measuring
    what follows a heading once raised AttributeError, and no report came out)."""
    from reportlab.platypus import KeepTogether

    r = ReportBuilder(kind="t", title="Kept", table="T1", period="-")
    r.heading("By shift")
    r.add(KeepTogether([grid(["Shift", "Win"], [["Day", "1.00"], ["Swing", "2.00"]],
                             [100, 100])]))
    pdf = _write(r, tmp_path / "k.pdf")
    assert _page_of(pdf, "By shift") == _page_of(pdf, "Swing 2.00") == [0]


# --- 7. the configuration history --------------------------------------------------------

@pytest.fixture(scope="module")
def config_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("config")
    db = open_database(f"sqlite:///{where / 'j.db'}")
    try:
        journal = Journal(db, create_key(where / "j.key"))
        users = Users(journal)
        users.seed([(u, u.capitalize(), role, "2468") for u, role in (
            ("olga", "operator"), ("sue", "supervisor"), ("ann", "dealer"))],
            actor="setup/operator")
        t = LaPaireTable(journal, "T1", load_lapaire_config(), dealer="ann/dealer")
        t.startup()
        olga = users.authenticate("olga", "2468", table_id="T1")
        sue = users.authenticate("sue", "2468", table_id="T1")
        ann = users.authenticate("ann", "2468", table_id="T1")
        with pytest.raises(StationError, match="another person"):
            t.change_config(olga, t.config.with_changes(offered={"poker": False}), "x",
                            approver=olga)
        with pytest.raises(StationError):
            t.change_config(olga, t.config.with_changes(offered={"poker": False}), "x",
                            approver=ann)
        t.change_config(olga, t.config.with_changes(offered={"poker": False},
                                                    limits={"straight": (200, 5000)}),
                        "no poker tonight",
                        {"offered": {"poker": False},
                         "limits": {"straight": {"min": 200, "max": 5000}}}, approver=sue)
        t.change_config(olga, t.config.with_changes(limits={"any_pair": (100, 2500)}),
                        "any pair max halved", {"limits": {"any_pair": {"min": 100,
                                                                        "max": 2500}}})
        t.shutdown()
        changes = list(journal.records("T1", kinds=["config.change"]))
        approved, plain = changes[-2].payload, changes[-1].payload
        assert approved["approved_by"] == "sue/supervisor" and approved["schema"] == 2
        # A change nobody approved is written exactly as before (version 1).
        assert "approved_by" not in plain and "schema" not in plain
        build_config_history_report(journal, "T1", out=where / "config.pdf")
    finally:
        db.close()
    return where / "config.pdf"


def test_the_config_history_prints_the_approver_in_money_and_the_felts_names(
        config_journal: Path) -> None:
    text = pdf_text(config_journal)
    assert "Approved by sue/supervisor" in text
    assert "Approved by no second approval recorded" in text
    assert "3rd Card Poker: withdrawn" in text
    assert "Straight-up limits: 2.00 to 50.00 USD" in text
    assert "Straight-up: minimum 1.00 USD 2.00 USD" in text      # before, after, as money
    assert "Any Pair'e: maximum 50.00 USD 25.00 USD" in text
    for raw in ("any_pair", "wagers.", "limits.", "amounts in minor units"):
        assert raw not in text, raw
    # The par sheet whole once; after that only what changed, before and after.
    assert text.count("Straight-up A 12 to 1") == 1
    assert "3rd Card Poker 100 to 1 Two Jokers" in text and "not offered" in text
    assert "no spot's payout or house edge changed" in text


def test_an_approved_change_reads_back_and_an_old_one_upcasts() -> None:
    from dealer_station.events.table import ConfigChanged

    old = {"version": "v", "game": "lapaire", "reason": "r", "changes": {}}
    event = ConfigChanged.from_payload(old)
    assert event.approved_by is None and event.to_payload() == old
    new = ConfigChanged("v", "lapaire", "r", {}, None, "sue/supervisor")
    assert ConfigChanged.from_payload(new.to_payload()) == new
