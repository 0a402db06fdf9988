"""`dealer-station report` as a person runs it, its refusals (clear errors, no tracebacks, no
half-written file), and printing through CUPS `lp` with the station's printer setting."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_reports_journal import (  # noqa: F401  (report_journal is a fixture)
    TABLE,
    JournalFiles,
    copy_journal,
    page_count,
    pdf_text,
    report_journal,
)

from dealer_station.cli.main import main
from dealer_station.reports.printing import PrintError, load_print_settings, print_pdf
from dealer_station.tomlconfig import ConfigError


def store(files: JournalFiles) -> list[str]:
    return ["--db", files.url, "--key", str(files.key)]


@pytest.fixture
def station_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A config folder of our own, its station.toml with no printer."""
    folder = tmp_path / "config"
    folder.mkdir()
    (folder / "station.toml").write_text('[printing]\nprinter = ""\npaper = "A4"\n')
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(folder))
    return folder


@pytest.fixture
def fake_lp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `lp` that records its arguments and answers as CUPS does: it stands in for the print
    server, which the test machine does not run."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "lp.args"
    lp = bin_dir / "lp"
    lp.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {log}\n"
                  "if [ \"$2\" = Jammed ]; then echo 'lp: Error - printer is stopped' >&2; "
                  "exit 1; fi\n"
                  "echo \"request id is $2-7 (1 file(s))\"\n")
    lp.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return log


def test_report_command_writes_each_report(report_journal: JournalFiles,  # noqa: F811
                                           tmp_path: Path) -> None:
    for kind in ("shift", "recall", "events", "config"):
        out = tmp_path / f"{kind}.pdf"
        done = subprocess.run(
            [sys.executable, "-m", "dealer_station", "report", kind, *store(report_journal),
             "--out", str(out)], capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        pages = page_count(out)
        assert f"for table {TABLE} ({pages} page" in done.stdout
        assert "journal verified intact to record" in done.stdout
        # (The events report verifies the station chain beside the table's: a row each.)
        assert ("Journal verified: intact." if kind != "events" else
                "Journals of 2 table(s) verified intact") in pdf_text(out, pages - 1)


def test_period_and_round_options(report_journal: JournalFiles, tmp_path: Path,  # noqa: F811
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "late.pdf"
    since = report_journal.gap_start.isoformat()
    assert main(["report", "shift", *store(report_journal), "--from", since, "--out",
                 str(out)]) == 0
    assert "Rounds played 3 (2 settled, 1 voided)" in pdf_text(out)
    assert main(["report", "recall", "--round", "3", *store(report_journal), "--table",
                 TABLE, "--out", str(tmp_path / "r3.pdf")]) == 0
    assert "Game recall: round 3" in pdf_text(tmp_path / "r3.pdf")
    n = page_count(tmp_path / "r3.pdf")
    assert f"for table {TABLE} ({n} page{'s' if n > 1 else ''}) to" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["shift", "--table", "T9"], "table 'T9' has no records in this journal (tables: T1"),
    (["shift", "--from", "2026-03-02", "--to", "2026-03-01"], "the period is empty"),
    (["shift", "--round", "3"], "--round applies to the recall report only"),
    (["recall", "--round", "999"], "table T1 has no round 999"),
    (["recall", "--from", "2026-03-01"], "the recall report takes --round"),
    (["shift", "--out", "/no/such/folder/x.pdf"], "folder /no/such/folder does not exist"),
    (["shift", "--out", "shift.txt"], "ending in .pdf"),
])
def test_bad_input_is_a_clear_error(report_journal: JournalFiles,  # noqa: F811
                                    capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch, args: list[str],
                                    message: str) -> None:
    monkeypatch.chdir(tmp_path)
    before = Path(report_journal.url.removeprefix("sqlite:///")).read_bytes()
    assert main(["report", *args, *store(report_journal)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dealer-station report: error: ")
    assert message in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []       # no half-written report
    assert Path(report_journal.url.removeprefix("sqlite:///")).read_bytes() == before


def test_a_bad_time_and_a_missing_journal(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report", "shift", "--from", "yesterday"])
    assert exc.value.code == 2
    assert "bad time 'yesterday'" in capsys.readouterr().err
    assert main(["report", "shift", "--db", f"sqlite:///{tmp_path / 'none.db'}", "--key",
                 str(tmp_path / "none.key")]) == 2
    assert "error:" in capsys.readouterr().err


def test_a_broken_journal_gives_exit_status_1(report_journal: JournalFiles,  # noqa: F811
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    files = copy_journal(report_journal, tmp_path / "copy")
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    db.execute("DELETE FROM journal WHERE table_id=? AND seq=40", (TABLE,))
    db.commit()
    db.close()
    out = tmp_path / "events.pdf"
    assert main(["report", "events", *store(files), "--out", str(out)]) == 1
    assert "JOURNAL VERIFICATION FAILED at record 40: record 40 is missing" in \
        capsys.readouterr().out
    # (The page header of a report over two chains names the chain that failed.)
    assert f"JOURNAL VERIFICATION FAILED: table {TABLE} at record 40" in pdf_text(out, 0)


# --- printing ---------------------------------------------------------------------------------

def test_print_without_a_printer_says_where_to_set_one(
        report_journal: JournalFiles, station_config: Path, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "shift.pdf"
    assert main(["report", "shift", *store(report_journal), "--out", str(out), "--print"]) == 2
    err = capsys.readouterr().err
    assert (f"no printer is configured: set [printing] printer in "
            f"{station_config / 'station.toml'}") in err
    assert f"the report is saved as {out}" in err and out.exists()


def test_print_to_the_configured_queue(report_journal: JournalFiles, station_config: Path,  # noqa: F811
                                       fake_lp: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    (station_config / "station.toml").write_text('[printing]\nprinter = "PitOffice"\n')
    assert load_print_settings().printer == "PitOffice"
    out = tmp_path / "events.pdf"
    assert main(["report", "events", *store(report_journal), "--out", str(out),
                 "--print"]) == 0
    assert "printed: request id is PitOffice-7 (1 file(s))" in capsys.readouterr().out
    args = fake_lp.read_text().split("\n")
    assert args[:4] == ["-d", "PitOffice", "-n", "1"]
    assert args[-3:] == ["--", str(out), ""]
    assert f"Significant events - table {TABLE}" in args


def test_print_failures_are_explained(fake_lp: Path, tmp_path: Path) -> None:
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    with pytest.raises(PrintError, match=r"printing on 'Jammed' failed: lp: Error - printer is "
                                         r"stopped; the report is saved as"):
        print_pdf(pdf, "Jammed")
    with pytest.raises(PrintError, match=r"'no-such-lp' is not installed \(the CUPS client"):
        print_pdf(pdf, "PitOffice", lp="no-such-lp")
    with pytest.raises(PrintError, match="not a CUPS queue name"):
        print_pdf(pdf, "Pit Office")
    with pytest.raises(PrintError, match="there is no report file"):
        print_pdf(tmp_path / "missing.pdf", "PitOffice")


def test_the_real_lp_reports_a_queue_that_does_not_exist(tmp_path: Path) -> None:
    if shutil.which("lp") is None:
        pytest.skip("the CUPS client (lp) is not installed: apt-get install cups-client")
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    with pytest.raises(PrintError, match=r"printing on 'NoSuchQueue' failed: .+; the report "
                                         r"is saved as"):
        print_pdf(pdf, "NoSuchQueue")


def test_station_file_errors_name_the_file_and_key(tmp_path: Path) -> None:
    f = tmp_path / "station.toml"
    f.write_text('[printing]\nprinter = ""\npaper = "A3"\n')
    with pytest.raises(ConfigError, match=r"station.toml: printing.paper: must be one of A4, "
                                          r"letter, got 'A3'"):
        load_print_settings(f)
    f.write_text('[printing]\nprinter = "x"\ncolour = true\n')
    with pytest.raises(ConfigError, match=r"printing.colour: unknown key"):
        load_print_settings(f)
    f.write_text('[printing]\nprinter = "Pit Office"\n')
    with pytest.raises(ConfigError, match=r"printing.printer: 'Pit Office' is not a CUPS"):
        load_print_settings(f)
    f.write_text('[other]\nx = 1\n')
    assert load_print_settings(f).printer == ""
