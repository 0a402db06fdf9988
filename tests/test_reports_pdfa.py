"""Every report is an archival PDF (PDF/A-3b) that carries the journal records it covers.

Checked on the real files with the tools a records office would use: ``pdffonts`` (every font
embedded), ``qpdf --check`` (a clean file), pikepdf (XMP with the PDF/A identification, the
sRGB output intent, the associated file), and the attached records themselves, re-hashed with
the journal key and compared with the journal. veraPDF is not available here; these checks
are the proof instead.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from pypdf import PdfReader
from test_reports_bourre import bourre_journal  # noqa: F401  (a fixture)
from test_reports_journal import TABLE, JournalFiles, report_journal  # noqa: F401

from dealer_station.audit.hashing import record_hash
from dealer_station.audit.journal import Journal, hashed_kind
from dealer_station.reports.archival import RECORDS_ATTACHMENT
from dealer_station.reports.catalog import build_report
from dealer_station.reports.pdf_style import MIN_TEXT_PT
from dealer_station.reports.template import CHECKPOINT_ATTACHMENT, BuiltReport

KINDS = ["shift", "recall", "events", "config"]


@pytest.fixture(scope="module")
def reports(report_journal: JournalFiles, bourre_journal: JournalFiles,  # noqa: F811
            tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[dict[str, tuple[BuiltReport, Journal]]]:
    where = tmp_path_factory.mktemp("pdfa")
    built: dict[str, tuple[BuiltReport, Journal]] = {}
    opened = []
    for files, kinds in ((report_journal, KINDS), (bourre_journal, ["bourre-session"])):
        journal, db = files.open()
        opened.append(db)
        for kind in kinds:
            built[kind] = (build_report(kind, journal, TABLE, out=where / f"{kind}.pdf"),
                           journal)
    yield built
    for db in opened:
        db.close()  # type: ignore[attr-defined]


ALL = [*KINDS, "bourre-session"]


@pytest.mark.parametrize("kind", ALL)
def test_every_font_is_embedded(reports: dict[str, Any], kind: str) -> None:
    out = subprocess.run(["pdffonts", str(reports[kind][0].path)], capture_output=True,
                         text=True, check=True).stdout.splitlines()[2:]
    assert out, "no fonts listed"
    for line in out:
        name, emb = line.split()[0], line.split()[-5]
        assert emb == "yes", f"{name} is not embedded: {line}"
        assert "Helvetica" not in name and "Courier" not in name


@pytest.mark.parametrize("kind", ALL)
def test_xmp_output_intent_and_a_clean_file(reports: dict[str, Any], kind: str) -> None:
    path = reports[kind][0].path
    check = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "No syntax or stream encoding errors found" in check.stdout
    assert "WARNING" not in check.stdout + check.stderr
    with pikepdf.open(path) as pdf:
        meta = pdf.open_metadata()
        assert meta["pdfaid:part"] == "3" and meta["pdfaid:conformance"] == "B"
        assert meta["dc:title"] == str(pdf.docinfo["/Title"])     # XMP matches the Info
        assert meta["xmp:CreatorTool"].startswith("Dealer Station")
        [intent] = pdf.Root.OutputIntents
        assert intent.S == "/GTS_PDFA1" and intent.OutputConditionIdentifier == \
            "sRGB IEC61966-2.1"
        icc = intent.DestOutputProfile.read_bytes()
        assert icc[36:40] == b"acsp" and icc[16:20] == b"RGB "   # an ICC RGB profile
        assert pdf.pdf_version >= "1.7"
        assert "/Encrypt" not in pdf.trailer and "/ID" in pdf.trailer


@pytest.mark.parametrize("kind", ALL)
def test_the_records_it_covers_are_attached_and_rehash(reports: dict[str, Any],
                                                       kind: str) -> None:
    built, journal = reports[kind]
    with pikepdf.open(built.path) as pdf:
        names = [str(f.F) for f in pdf.Root.AF]
        # The events report prints the station chain's user administration beside the
        # table's events: then both chains' records are attached, each as its own file.
        per_table = RECORDS_ATTACHMENT not in names
        table = built.last_record.table_id
        wanted = {table: f"journal-records-{table}.jsonl" if per_table else RECORDS_ATTACHMENT}
        if per_table:
            assert kind == "events" and "journal-records-station.jsonl" in names, names
            wanted["station"] = "journal-records-station.jsonl"
        else:
            # The records, and the signed checkpoint they are proven against.
            assert names in ([RECORDS_ATTACHMENT], [RECORDS_ATTACHMENT, CHECKPOINT_ATTACHMENT])
        attached: dict[str, list[str]] = {}
        for chain, name in wanted.items():
            spec = pdf.attachments[name]
            assert spec.obj.AFRelationship == "/Source"
            assert spec.get_file().mime_type == "application/x-ndjson"
            attached[chain] = spec.get_file().read_bytes().decode("utf-8").splitlines()
    key = journal._secret
    for chain, lines in attached.items():
        records = [json.loads(line) for line in lines]
        assert records, f"nothing of {chain} attached"
        assert {r["table_id"] for r in records} == {chain}
        if chain == table:
            assert records[-1]["seq"] == built.last_record.seq
            assert records[-1]["hash"] == built.last_record.hash
        # A contiguous stretch of the chain, each record re-hashed with the journal key.
        for before, rec in zip([None, *records], records, strict=False):
            if before is not None:
                assert rec["seq"] == before["seq"] + 1 and rec["prev_hash"] == before["hash"]
            assert record_hash(key, table_id=rec["table_id"], seq=rec["seq"], ts=rec["ts"],
                               actor=rec["actor"],
                               kind=hashed_kind(rec["kind"], rec["round_no"]),
                               payload=rec["payload"],     # the hashed text, as it is
                               prev_hash=rec["prev_hash"]) == rec["hash"]
        stored = {r.seq: r.hash for r in journal.records(chain, from_seq=records[0]["seq"],
                                                         to_seq=records[-1]["seq"])}
        assert stored == {r["seq"]: r["hash"] for r in records}


_TF = re.compile(rb"/[A-Za-z0-9+_.-]+ +([0-9.]+) +Tf")


def _sizes(page: Any) -> set[float]:
    """Every font size set on a page (its content and the forms it draws), in points, scaled
    by the text matrix (reportlab sets sizes directly: the matrix scale is 1)."""
    found: set[float] = set()

    def visit(obj: Any) -> None:
        data = obj.read_bytes()
        found.update(float(m) for m in _TF.findall(data))
        for xobj in obj.get("/Resources", {}).get("/XObject", {}).values():
            if xobj.get("/Subtype") == "/Form":
                visit(xobj)

    contents = page.obj.Contents
    for stream in (contents if isinstance(contents, pikepdf.Array) else [contents]):
        found.update(float(m) for m in _TF.findall(stream.read_bytes()))
    for xobj in page.obj.get("/Resources", {}).get("/XObject", {}).values():
        if xobj.get("/Subtype") == "/Form":
            visit(xobj)
    return found


@pytest.mark.parametrize("kind", ALL)
def test_no_text_is_smaller_than_8_points(reports: dict[str, Any], kind: str) -> None:
    path = reports[kind][0].path
    with pikepdf.open(path) as pdf:
        sizes = set().union(*(_sizes(page) for page in pdf.pages))
    assert sizes and min(sizes) >= MIN_TEXT_PT, sorted(sizes)[:5]
    # and the text still reads back as text (the fonts carry their Unicode maps)
    assert "Journal verification" in PdfReader(str(path)).pages[-1].extract_text()


def test_a_report_over_the_limit_says_the_records_are_not_attached(
        report_journal: JournalFiles, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    from dealer_station.reports import template

    monkeypatch.setattr(template, "MAX_ATTACHED_RECORDS", 10)
    journal, db = report_journal.open()
    try:
        built = build_report("shift", journal, TABLE, out=tmp_path / "shift.pdf")
        # A report over two chains (the events report prints the station's user
        # administration) says which chain's records are not attached.
        both = build_report("events", journal, TABLE, out=tmp_path / "events.pdf")
    finally:
        db.close()  # type: ignore[attr-defined]
    with pikepdf.open(built.path) as pdf:
        assert RECORDS_ATTACHMENT not in pdf.attachments and "/AF" not in pdf.Root
        assert pdf.open_metadata()["pdfaid:part"] == "3"
    last = " ".join(PdfReader(str(built.path)).pages[-1].extract_text().split())
    assert (f"Attached none: the {built.last_record.seq:,} records covered are more than a "
            f"report carries (10 at most)") in last
    with pikepdf.open(both.path) as pdf:
        assert f"journal-records-{TABLE}.jsonl" not in pdf.attachments
    last = " ".join(PdfReader(str(both.path)).pages[-1].extract_text().split())
    assert f"except those of {TABLE}" in last and "(10 at most)" in last


def test_the_last_page_names_the_attachment(reports: dict[str, Any]) -> None:
    built = reports["recall"][0]
    last = " ".join(PdfReader(str(built.path)).pages[-1].extract_text().split())
    assert f"as {RECORDS_ATTACHMENT}" in last
