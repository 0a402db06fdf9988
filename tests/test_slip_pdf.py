"""The slip of record on paper (reports/slip_pdf.py): a fill taken through the cage (request,
issue, carry, receipt) prints a page per copy, each the whole slip with both numbers, table and
game, chips and total, and a signature block per signer with the time of that signature; the
request prints its steps; a slip voided in transit prints VOID on every page with the void's
two signers; every PDF is PDF/A-3B with embedded fonts and attaches the records it covers,
which re-hash with the journal key. Real SQLite journals, real PDFs read back with pypdf."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from accounting_support import CAL, PIN, Setup
from pypdf import PdfReader

from dealer_station import __version__
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.hashing import record_hash
from dealer_station.audit.journal import Journal, Record, hashed_kind
from dealer_station.audit.records import Entry
from dealer_station.cli.main import main
from dealer_station.errors import StationError
from dealer_station.events.table import StationStarted
from dealer_station.reports.archival import RECORDS_ATTACHMENT
from dealer_station.reports.pdf_style import MIN_TEXT_PT
from dealer_station.reports.slip_pdf import build_request_pdf, build_slip_pdf
from dealer_station.reports.text import local
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.cage import CageDesk

MICS = AccountingSettings(variance_threshold=2500)
COPIES = ("Original: cage", "Duplicate: table drop box", "Triplicate: accounting")
TRAY = Chips.of({100: 100, 500: 100, 2500: 40})
FILL = Chips.of({500: 4, 2500: 20})
VOIDED = Chips.of({2500: 8})
CREDIT = Chips.of({100: 50})
REASON = "rack dropped on the way; recounted at the cage"


@dataclasses.dataclass
class Floor:
    """Table T1 through a morning: fill 1 taken through every step, fill 2 voided in transit,
    a credit issued and carried but not yet received."""

    s: Setup
    book: TableAccounting
    desk: CageDesk
    #: Each step's record, by name.
    steps: dict[str, Record]

    @property
    def journal(self) -> Journal:
        return self.s.journal


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[Floor]:
    s = Setup(f"sqlite:///{tmp_path / 'journal.db'}", tmp_path / "journal.key")
    book = TableAccounting(s.journal, "T1", MICS, CAL)
    desk = CageDesk(book)
    # The table starts up with its game, as the station does.
    s.journal.write("T1", [Entry(StationStarted(__version__, "lapaire", "T1"), "station")])
    dee, sue, cas, cal, sec = (s.who(u) for u in ("dee", "sue", "cas", "cal", "sec"))
    book.opener(TRAY, dee, sue)
    steps: dict[str, Record] = {}

    def step(name: str, rec: Record, minutes: int = 3) -> None:
        steps[name] = rec
        s.clock.tick(minutes)

    s.clock.tick(5)
    step("request", desk.request("fill", FILL, sue, note="tray low on 25s"))
    step("issue", desk.issue(2026, 1, FILL, [cas]))
    step("carry", desk.carry(2026, 1, [sec]), 4)
    step("receipt", desk.receive(2026, 1, FILL, [dee, sue]), 10)
    step("request 2", desk.request("fill", VOIDED, sue))
    step("issue 2", desk.issue(2026, 2, VOIDED, [cal]))
    step("carry 2", desk.carry(2026, 2, [sec]))
    step("void 2", desk.void(2026, 2, REASON, [sue, cas]), 5)
    step("request 3", desk.request("credit", CREDIT, s.who("op")))
    step("issue 3", desk.issue(2026, 3, CREDIT, [cas]))
    step("carry 3", desk.carry(2026, 3, [sec]))
    yield Floor(s, book, desk, steps)
    s.close()


def pages(path: Path) -> list[str]:
    """Each page's text, its white space made single spaces."""
    return [" ".join(pg.extract_text().split()) for pg in PdfReader(str(path)).pages]


def stamped(path: Path) -> list[bool]:
    """Whether each page carries the outlined stamp (text render mode 1, drawn only by the
    VOID stamp)."""
    with pikepdf.open(path) as pdf:
        return [b" 1 Tr" in b"".join(
            c.read_bytes() for c in (pg.obj.Contents if isinstance(pg.obj.Contents,
                                                                    pikepdf.Array)
                                     else [pg.obj.Contents])) for pg in pdf.pages]


def attached(path: Path, journal: Journal) -> list[dict[str, Any]]:
    """The records the PDF attaches, each checked: a contiguous stretch of the chain, every
    record re-hashed with the journal key and equal to the journal's."""
    with pikepdf.open(path) as pdf:
        spec = pdf.attachments[RECORDS_ATTACHMENT]
        assert spec.obj.AFRelationship == "/Source"
        lines = spec.get_file().read_bytes().decode("utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert records
    for before, rec in zip([None, *records], records, strict=False):
        if before is not None:
            assert rec["seq"] == before["seq"] + 1 and rec["prev_hash"] == before["hash"]
        assert record_hash(journal._secret, table_id=rec["table_id"], seq=rec["seq"],
                           ts=rec["ts"], actor=rec["actor"],
                           kind=hashed_kind(rec["kind"], rec["round_no"]),
                           payload=rec["payload"], prev_hash=rec["prev_hash"]) == rec["hash"]
    stored = {r.seq: r.hash for r in journal.records("T1", from_seq=records[0]["seq"],
                                                     to_seq=records[-1]["seq"])}
    assert stored == {r["seq"]: r["hash"] for r in records}
    return records


def archival(path: Path) -> None:
    """PDF/A-3B, every font embedded, no text smaller than the reports' smallest."""
    with pikepdf.open(path) as pdf:
        meta = pdf.open_metadata()
        assert meta["pdfaid:part"] == "3" and meta["pdfaid:conformance"] == "B"
        sizes = {float(m) for pg in pdf.pages for c in (
            pg.obj.Contents if isinstance(pg.obj.Contents, pikepdf.Array)
            else [pg.obj.Contents]) for m in re.findall(rb"/[A-Za-z0-9+_.-]+ +([0-9.]+) +Tf",
                                                         c.read_bytes())}
        assert sizes and min(sizes) >= MIN_TEXT_PT, sorted(sizes)
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts
    for line in fonts:
        assert line.split()[-5] == "yes", f"not embedded: {line}"


def test_a_fill_through_the_cage_prints_a_page_per_copy_each_the_whole_slip(
        floor: Floor, tmp_path: Path) -> None:
    st = floor.steps
    built = build_slip_pdf(floor.journal, floor.book.ledger(), MICS, "fill", 2026, 1,
                           out=tmp_path / "fill.pdf")
    assert built.pages == 3 and built.title == "Fill slip"
    text = pages(built.path)
    assert len(text) == 3
    for n, (page, copy) in enumerate(zip(text, COPIES, strict=True), 1):
        assert copy in page and f"Copy {n} of 3" in page
        assert [c for c in COPIES if c in page] == [copy]
        assert "Fill slip T1-F-2026-00001" in page
        assert "Control number T1-F-2026-00001" in page and "Request T1-R-2026-00001" in page
        assert "Table T1" in page and "Game La Pair'e" in page
        assert "Gaming day 2026-03-02" in page and "Note tray low on 25s" in page
        assert (f"Requested {local(st['request'].ts)} by Sue Supervisor (sue), floor "
                f"supervisor (journal record {st['request'].seq}") in page
        # Chips by denomination, count and value, and the total in money.
        assert "5.00 4 20.00" in page and "25.00 20 500.00" in page
        assert "Total 24 520.00" in page and "Total 520.00 USD (24 chips)" in page
        # A block per signer, in print order, each with the time of its own step's record.
        blocks = [("Cage cashier", "Cass Cashier (cas)", st["issue"]),
                  ("Security", "Sid Security (sec)", st["carry"]),
                  ("Dealer", "Dee Dealer (dee)", st["receipt"]),
                  ("Floor supervisor", "Sue Supervisor (sue)", st["receipt"])]
        at = page.index("Signatures")
        for role, name, rec in blocks:
            found = page.index(f"{role} ", at)
            assert page.index(name, found) < page.index(local(rec.ts), found) \
                < page.index(f"journal record {rec.seq}", found)
            at = found + 1
        assert "State Received at the table: the slip of record" in page
        assert "not yet signed" not in page and "VOID" not in page
        assert f"Records covered {st['request'].seq} to {st['receipt'].seq}" in page
    assert stamped(built.path) == [False] * 3
    archival(built.path)
    records = attached(built.path, floor.journal)
    kinds = [r["kind"] for r in records]
    assert records[0]["seq"] == st["request"].seq and records[-1]["seq"] == st["receipt"].seq
    assert kinds[0] == "slip.request" and kinds[-1] == "fill"
    assert {"slip.issue", "slip.carry"} <= set(kinds)


def test_the_request_prints_its_chips_its_state_and_each_step(floor: Floor,
                                                              tmp_path: Path) -> None:
    st = floor.steps
    built = build_request_pdf(floor.journal, floor.book.ledger(), MICS, 2026, 1,
                              out=tmp_path / "request.pdf")
    (page,) = pages(built.path)
    assert built.title == "Fill request"
    assert "Fill request T1-R-2026-00001" in page and "Game La Pair'e" in page
    assert "Requested by Sue Supervisor (sue), floor supervisor" in page
    assert f"Requested {local(st['request'].ts)}" in page
    assert "25.00 20 500.00" in page and "Total wanted 520.00 USD (24 chips)" in page
    assert "State Received at the table" in page
    assert "Slip Fill slip T1-F-2026-00001, issued against this request" in page
    for words, rec, who in (
            ("Requested at the table", st["request"], "Sue Supervisor (sue), floor supervisor"),
            ("Issued at the cage: slip T1-F-2026-00001", st["issue"],
             "Cass Cashier (cas), cage cashier"),
            ("Carried by security", st["carry"], "Sid Security (sec), security officer"),
            ("Received at the table: the slip of record", st["receipt"],
             "Dee Dealer (dee), dealer; Sue Supervisor (sue), floor supervisor")):
        row = page[page.index(words):]
        assert row.index(local(rec.ts)) < row.index(who) < row.index(f"{rec.seq}")
    assert "Still to come" not in page and "VOID" not in page
    archival(built.path)
    kinds = [r["kind"] for r in attached(built.path, floor.journal)]
    assert kinds[0] == "slip.request" and kinds[-1] == "fill"


def test_a_slip_in_transit_prints_with_the_tables_blocks_not_yet_signed(
        floor: Floor, tmp_path: Path) -> None:
    st = floor.steps
    ledger = floor.book.ledger()
    built = build_slip_pdf(floor.journal, ledger, MICS, "credit", 2026, 1,
                           out=tmp_path / "credit.pdf", paper="letter")
    text = pages(built.path)
    assert len(text) == 3
    for page in text:
        assert "Credit slip T1-C-2026-00001" in page and "Request T1-R-2026-00003" in page
        assert "Olga Operator (op), operator" in page        # an operator asked for it
        assert "State In transit: not yet received at the table" in page
        assert "Cass Cashier (cas)" in page and local(st["issue 3"].ts) in page
        assert "Sid Security (sec)" in page and local(st["carry 3"].ts) in page
        assert page.count("not yet signed") == 2             # the dealer, the supervisor
        assert "VOID" not in page
    request = build_request_pdf(floor.journal, ledger, MICS, 2026, 3,
                                out=tmp_path / "request.pdf")
    (page,) = pages(request.path)
    assert "State In transit" in page
    assert "Still to come: received at the table (dealer, floor supervisor)" in page


def test_a_slip_voided_in_transit_prints_void_on_every_page_with_both_signers(
        floor: Floor, tmp_path: Path) -> None:
    st = floor.steps
    ledger = floor.book.ledger()
    built = build_slip_pdf(floor.journal, ledger, MICS, "fill", 2026, 2,
                           out=tmp_path / "void.pdf")
    assert built.title == "Fill slip (VOID)"
    text = pages(built.path)
    assert len(text) == 3 and stamped(built.path) == [True] * 3
    void = st["void 2"]
    for page, copy in zip(text, COPIES, strict=True):
        assert copy in page and "Fill slip T1-F-2026-00002 VOID" in page
        assert "Request T1-R-2026-00002" in page
        assert "State VOID: voided in transit, before the table signed for it" in page
        assert f"Voided {local(void.ts)} (journal record {void.seq}" in page
        assert ("Voided by Sue Supervisor (sue), floor supervisor and Cass Cashier (cas), "
                "cage cashier") in page
        assert f"Reason {REASON}" in page
        assert "Cal Cashier (cal)" in page and "Sid Security (sec)" in page
        assert page.count("not signed: voided") == 2
        assert f"Records covered {st['request 2'].seq} to {void.seq}" in page
    archival(built.path)
    records = attached(built.path, floor.journal)
    assert records[0]["seq"] == st["request 2"].seq
    assert records[-1]["kind"] == "request.void" and records[-1]["seq"] == void.seq
    # Its request is void too.
    request = build_request_pdf(floor.journal, ledger, MICS, 2026, 2,
                                out=tmp_path / "request.pdf")
    assert stamped(request.path) == [True] and request.title == "Fill request (VOID)"
    (page,) = pages(request.path)
    assert "State Voided" in page and f"Reason {REASON}" in page
    assert "Voided by Sue Supervisor (sue), floor supervisor and Cass Cashier" in page


def test_a_slip_voided_after_receipt_and_a_jurisdictions_own_copies(floor: Floor,
                                                                    tmp_path: Path) -> None:
    floor.s.clock.tick(5)
    floor.desk.void(2026, 1, "written for the wrong table",
                    [floor.s.who("sue"), floor.s.who("cal")])
    two = dataclasses.replace(MICS, cage=dataclasses.replace(
        MICS.cage, copies=("Original: cage", "Duplicate: table")))
    built = build_slip_pdf(floor.journal, floor.book.ledger(), two, "fill", 2026, 1,
                           out=tmp_path / "void.pdf", paper="letter")
    text = pages(built.path)
    assert len(text) == 2 and stamped(built.path) == [True, True]
    assert "Original: cage" in text[0] and "Duplicate: table" in text[1]
    for page in text:
        assert "State VOID: voided after the table signed" in page
        assert "Reason written for the wrong table" in page
        assert "Sue Supervisor (sue), floor supervisor and Cal Cashier (cal)" in page
        assert "Dee Dealer (dee)" in page       # the receipt was signed before the void
    assert attached(built.path, floor.journal)[-1]["kind"] == "slip.void"


def test_the_longest_note_and_reason_keep_each_copy_to_its_page(floor: Floor,
                                                                tmp_path: Path) -> None:
    s, desk = floor.s, floor.desk
    words = ("the tray is low on twenty-fives after a run of corner bets at seats three and "
             "five; ") * 20
    note = words[:500].strip()
    desk.request("fill", FILL, s.who("op"), note=note)
    desk.issue(2026, 4, FILL, [s.who("cal")])
    desk.carry(2026, 4, [s.who("sec")])
    desk.void(2026, 4, words[:500].strip(), [s.who("sue"), s.who("cas")])
    # A signed checkpoint over it all: the records go with their proofs, said on each copy.
    floor.journal.write("T1", [Entry(StationStarted(__version__, "lapaire", "T1"), "station")],
                        sign=True)
    for paper in ("A4", "letter"):
        built = build_slip_pdf(floor.journal, floor.book.ledger(), MICS, "fill", 2026, 3,
                               out=tmp_path / f"{paper}.pdf", paper=paper)
        text = pages(built.path)
        assert len(text) == 3, paper
        for page, copy in zip(text, COPIES, strict=True):
            assert copy in page and "Journal verification" in page
            assert "each with its inclusion proof" in page and note[-40:] in page


def test_what_is_not_there_is_refused_in_words(floor: Floor, tmp_path: Path) -> None:
    ledger = floor.book.ledger()
    with pytest.raises(StationError, match=r"no fill slip T1-F-2026-00009"):
        build_slip_pdf(floor.journal, ledger, MICS, "fill", 2026, 9, out=tmp_path / "x.pdf")
    with pytest.raises(StationError, match=r"no request T1-R-2026-00009 at table T1"):
        build_request_pdf(floor.journal, ledger, MICS, 2026, 9, out=tmp_path / "x.pdf")
    with pytest.raises(StationError, match="unknown slip 'chips': fill or credit"):
        build_slip_pdf(floor.journal, ledger, MICS, "chips", 2026, 1, out=tmp_path / "x.pdf")
    assert not (tmp_path / "x.pdf").exists()


def cli(floor: Floor, *argv: str) -> int:
    old = sys.stdin
    sys.stdin = io.StringIO(f"{PIN}\n")
    try:
        return main(["accounting", *argv, "--db", floor.s.url, "--key",
                     str(floor.s.key_path), "--table", "T1"])
    finally:
        sys.stdin = old


def test_the_command_line_prints_the_slip_and_the_request(
        floor: Floor, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(conf))
    (conf / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\ntimezone = "UTC"\n')
    (conf / "accounting.toml").write_text("[accounting]\nvariance_threshold = 2500\n")
    slip, request = tmp_path / "slip.pdf", tmp_path / "request.pdf"
    assert cli(floor, "print", "--slip", "fill", "--number", "1", "--year", "2026",
               "--out", str(slip)) == 0
    assert cli(floor, "print", "--request", "2", "--year", "2026", "--out", str(request)) == 0
    out = capsys.readouterr().out
    assert f"wrote fill slip (3 pages) to {slip}" in out
    assert f"wrote fill request (void) (1 page) to {request}" in out
    assert [c in pg for pg, c in zip(pages(slip), COPIES, strict=True)] == [True] * 3
    assert "Fill request T1-R-2026-00002 VOID" in pages(request)[0]
    assert cli(floor, "print", "--request", "9", "--year", "2026", "--out", str(request)) == 2
    assert "no request T1-R-2026-00009 at table T1" in capsys.readouterr().err
    assert cli(floor, "print", "--request", "1", "--slip", "fill", "--out",
               str(request)) == 2
    assert "give one of --slip fill|credit --number N, --request N" in \
        capsys.readouterr().err
