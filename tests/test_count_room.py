"""The count room (table/count_room.py, ``dealer-station count-room``): a box counted by note
denomination with the markers apart, verified by the count team; variances beyond the
threshold and their signed dispositions, through the command line's contract."""

from __future__ import annotations

import io
import json
import re
import sys
from datetime import date
from pathlib import Path

import pytest
from accounting_support import CAL, PIN, Setup

from dealer_station.accounting.chips import Chips, ChipsError
from dealer_station.accounting.ledger import AccountingRefused
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.cli.count_room import VARIANCE_KEYS
from dealer_station.cli.main import main
from dealer_station.events.accounting import RAKE_BOX, DropCounted
from dealer_station.reports.text import local
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.count_room import CountRoom

SETTINGS = AccountingSettings(variance_threshold=0)
DAY = date(2026, 3, 2)
TRAY = Chips.of({100: 100, 500: 100, 2500: 40})
NOTES = Chips.of({10000: 12, 2000: 40, 500: 3})


@pytest.fixture
def s(tmp_path: Path) -> Setup:
    setup = Setup(f"sqlite:///{tmp_path / 'journal.db'}", tmp_path / "journal.key")
    setup.book = TableAccounting(setup.journal, "T1", SETTINGS, CAL)
    setup.book.opener(TRAY, setup.who("dee"), setup.who("sue"))
    setup.book.closer(TRAY, setup.who("dee"), setup.who("sue"))
    return setup


def test_a_box_is_counted_by_note_with_the_markers_apart(s: Setup) -> None:
    room = CountRoom(s.book)
    r = room.count(DAY, NOTES, 150000, 3, [s.who("amy"), s.who("ben")])
    e = accounting_event(r, DropCounted)
    assert (e.cash, e.markers, e.total, e.marker_count) == (NOTES.total, 150000,
                                                          NOTES.total + 150000, 3)
    assert e.currency == {"500": 3, "2000": 40, "10000": 12}
    assert e.signers == ("amy/accounting", "ben/accounting")
    day = s.book.ledger().days[DAY]
    assert day.drop is not None and day.drop.seq == r.seq


def test_the_count_is_refused_in_words_and_nothing_is_journaled(s: Setup) -> None:
    room = CountRoom(s.book)
    before = s.book.ledger().count
    amy, ben = s.who("amy"), s.who("ben")
    for team, says in (([amy], "2 to 6 accounting users; 1 given"),
                       ([amy, amy], "(amy) cannot sign twice"),
                       ([amy, s.who("sue")], "(sue) is a supervisor; this signature is for an "
                                             "accounting")):
        with pytest.raises(AccountingRefused, match=re.escape(says)):
            room.count(DAY, NOTES, 0, 0, team)
    with pytest.raises(ChipsError, match="2500 is not a note denomination"):
        room.count(DAY, Chips.of({2500: 1}), 0, 0, [amy, ben])
    with pytest.raises(AccountingRefused, match="0 markers cannot total"):
        room.count(DAY, NOTES, 5000, 0, [amy, ben])
    with pytest.raises(AccountingRefused, match="rake box is counted for the whole day"):
        room.count(DAY, NOTES, 0, 0, [amy, ben], shift="Day", box=RAKE_BOX)
    assert s.book.ledger().count == before
    room.count(DAY, NOTES, 0, 0, [amy, ben])
    with pytest.raises(AccountingRefused, match="already entered"):
        room.count(DAY, NOTES, 0, 0, [amy, ben])
    # The rake box is a box of its own, counted once, and is not the drop.
    room.count(DAY, Chips.of({500: 30}), 0, 0, [amy, ben], box=RAKE_BOX)
    with pytest.raises(AccountingRefused, match=r"rake box .* already counted"):
        room.count(DAY, Chips.of({500: 30}), 0, 0, [amy, ben], box=RAKE_BOX)
    day = s.book.ledger().days[DAY]
    assert day.rake_box is not None and day.drop is not None
    assert day.drop.event.total == NOTES.total   # type: ignore[attr-defined]


def test_a_disposition_is_signed_by_two_accounting_users_with_a_note(s: Setup) -> None:
    room = CountRoom(s.book)
    amy, ben = s.who("amy"), s.who("ben")
    with pytest.raises(AccountingRefused, match="needs a note"):
        room.dispose(DAY, -300, "explained", " ", [amy, ben])
    with pytest.raises(AccountingRefused, match="'forgiven' is not one of"):
        room.dispose(DAY, -300, "forgiven", "x", [amy, ben])
    with pytest.raises(AccountingRefused, match="needs its amount"):
        room.dispose(DAY, -300, "adjusted", "miscount", [amy, ben])
    with pytest.raises(AccountingRefused, match="only an adjusted variance"):
        room.dispose(DAY, -300, "explained", "x", [amy, ben], adjustment=300)
    with pytest.raises(AccountingRefused, match=r"\(sue\) is a supervisor"):
        room.dispose(DAY, -300, "referred", "to compliance", [amy, s.who("sue")])
    room.dispose(DAY, -300, "adjusted", "a $3 chip found under the tray", [amy, ben],
                 adjustment=300)
    found = s.book.ledger().days[DAY].disposition()
    assert found is not None and found.event.adjustment == 300   # type: ignore[attr-defined]


def _cli(s: Setup, *argv: str, pins: str = "") -> int:
    old = sys.stdin
    sys.stdin = io.StringIO(pins)
    try:
        return main(["count-room", *argv, "--db", s.url, "--key", str(s.key_path)])
    finally:
        sys.stdin = old


def test_the_command_line_counts_lists_variances_and_disposes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer_station import registry
    from dealer_station.table.parts import SIMULATE_DAYS

    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    (tmp_path / "accounting.toml").write_text("[accounting]\nvariance_threshold = 0\n")
    s = Setup(f"sqlite:///{tmp_path / 'j.db'}", tmp_path / "j.key", people=False)
    days = next(d for g in registry.REGISTRY.values()
                if (d := g.supplies(SIMULATE_DAYS)) is not None)
    result = days(s.journal, "T1", 60, days=1, mispay_rate=0.3, seed=11, settings=SETTINGS,
                  calendar=CAL, start=DAY, quiet=True)
    assert result.mispays > 0 and result.mispaid != 0
    s.close()
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    # The simulated count room counted every shift's box by note.
    counted = [accounting_event(r, DropCounted) for r in s.journal.records("T1",
                                                                            kinds=["drop.count"])]
    assert counted and all(c.currency is not None for c in counted)
    assert _cli(s, "variances", "--json") == 1          # one with no disposition yet
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 1 and set(rows[0]) == set(VARIANCE_KEYS)
    assert rows[0]["variance"] == -result.mispaid and rows[0]["disposition"] is None
    store = ["--db", s.url, "--key", str(s.key_path)]

    def discrepancies() -> str:
        from pypdf import PdfReader

        out = tmp_path / "d.pdf"
        assert main(["report", "discrepancies", "--out", str(out), *store]) == 0
        capsys.readouterr()
        return " ".join(" ".join(p.extract_text() for p in PdfReader(str(out)).pages).split())

    assert "Needs a disposition" in discrepancies()
    assert _cli(s, "dispose", "--table", "T1", "--gaming-day", DAY.isoformat(),
                "--disposition", "explained", "--note", "dealer mispaid; retrained",
                "--signer", "sim-count1", "--signer", "sim-count1", "--pin-stdin",
                pins=f"{PIN}\n{PIN}\n") == 2
    assert "sim-count1 cannot sign twice" in capsys.readouterr().err
    assert _cli(s, "dispose", "--table", "T1", "--gaming-day", DAY.isoformat(),
                "--disposition", "explained", "--note", "dealer mispaid; retrained",
                "--signer", "sim-count1", "--signer", "sim-count2", "--pin-stdin",
                pins=f"{PIN}\n{PIN}\n") == 0
    assert _cli(s, "variances", "--json") == 0
    row = json.loads(capsys.readouterr().out.splitlines()[-1])
    printed = discrepancies()
    assert "Needs a disposition" not in printed
    assert "Explained" in printed and "dealer mispaid; retrained" in printed
    assert "sim-count1/accounting and sim-count2/accounting" in printed
    assert (row["disposition"], row["disposed_variance"], row["disposition_by"]) == (
        "explained", -result.mispaid, ["sim-count1/accounting", "sim-count2/accounting"])
    # The count sheet of the day's first shift box, read back; a box not counted is refused.
    from pypdf import PdfReader

    sheet = tmp_path / "sheet.pdf"
    first_shift = CAL.shifts[0].name
    assert _cli(s, "print", "--table", "T1", "--gaming-day", DAY.isoformat(), "--shift",
                first_shift, "--out", str(sheet)) == 0
    text = " ".join(" ".join(p.extract_text() for p in PdfReader(str(sheet)).pages).split())
    assert "T1-CNT-2026-" in text and "sim-count1" in text and "sim-count2" in text
    # Each member signed in by PIN at the table before the count: the sheet says when.
    count = next(r for r in s.journal.records("T1", kinds=["drop.count"])
                 if accounting_event(r, DropCounted).shift == first_shift)
    logins = {r.actor: r.ts for r in s.journal.records("T1", to_seq=count.seq,
                                                          kinds=["login"])}
    for member in ("sim-count1/accounting", "sim-count2/accounting"):
        assert logins[member] <= count.ts
        assert local(logins[member]) in text, member
    assert _cli(s, "print", "--table", "T1", "--gaming-day", "2026-03-09", "--out",
                str(sheet)) == 2
    capsys.readouterr()
    # A day counted shift by shift, asked for whole: the shifts to give, in words.
    assert _cli(s, "print", "--table", "T1", "--gaming-day", DAY.isoformat(), "--out",
                str(sheet)) == 2
    assert "counted shift by shift, not as a whole: give --shift (" in \
        capsys.readouterr().err
    # A count with a note this casino does not use: exit 2, in words.
    assert _cli(s, "count", "--table", "T1", "--gaming-day", "2026-03-09", "--notes",
                "300x2", "--signer", "sim-count1", "--signer", "sim-count2", "--pin-stdin",
                pins=f"{PIN}\n{PIN}\n") == 2
    assert "300 is not" in capsys.readouterr().err
