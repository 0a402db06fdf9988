"""A report's pages checked with public keys alone: the verifier printed in docs/journal.md,
run as written (standard library and ``cryptography``), on a report of a table whose checkpoints
a witness cosigned; and the same report with one attached record changed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pikepdf
import pytest
from witness_support import running_witness

from dealer_station.audit.notes import COSIGNATURE_KEY, Signer, Verifier
from dealer_station.cli.main import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "journal.md"


def verifier(tmp_path: Path) -> Path:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    [code] = [b for b in blocks if "def check_pdf(" in b]
    assert len(code.splitlines()) <= 100, "the verifier must stay under 100 lines"
    script = tmp_path / "pdf_verifier.py"
    script.write_text(code)
    return script


def run(script: Path, *args: Path) -> str:
    done = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_report_is_checked_with_public_keys_alone(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "k" / "journal.key"
    assert main(["audit", "new-key", "--key", str(key), "--name", "casino.example/t9"]) == 0
    pub = tmp_path / "station.pub"
    assert main(["audit", "public-key", "--key", str(key), "--out", str(pub)]) == 0
    db = f"sqlite:///{tmp_path / 'j.db'}"
    store = ["--db", db, "--key", str(key)]
    with running_witness(tmp_path / "W", [Verifier.parse(pub.read_text())]) as w:
        wpub = w.wdir / "witness.pub"
        assert main(["simulate", "--rounds", "6", "--seed", "4", "--quiet", *store,
                     "--witness", w.url, "--witness-key", str(wpub)]) == 0
    pdf = tmp_path / "events.pdf"
    assert main(["report", "events", "--table", "T1", "--out", str(pdf), *store]) == 0
    capsys.readouterr()
    script = verifier(tmp_path)
    said = run(script, pdf, pub, wpub)
    assert said.startswith("ok: ") and "records proven" in said, said
    proven, total = map(int, re.findall(r"(\d+) of (\d+)", said)[0])
    assert proven == total > 0

    # Another witness's key: the cosignature is not one it trusts.
    other = tmp_path / "other.pub"
    other.write_text(Signer.generate("w.example/x", COSIGNATURE_KEY).verifier.vkey())
    assert "lacks" in run(script, pdf, pub, other)

    # One attached record changed (its payload), its proof kept: it is not in the checkpoint.
    forged = tmp_path / "forged.pdf"
    with pikepdf.open(pdf) as doc:
        spec = doc.attachments["journal-records.jsonl"]
        lines = spec.get_file().read_bytes().decode().splitlines()
        record = json.loads(lines[3])
        record["payload"] = record["payload"].replace("}", ',"x":1}', 1)
        lines[3] = json.dumps(record, sort_keys=True)
        doc.attachments["journal-records.jsonl"] = pikepdf.AttachedFileSpec(
            doc, ("\n".join(lines) + "\n").encode(), filename="journal-records.jsonl")
        doc.save(forged)
    said = run(script, forged, pub, wpub)
    assert said == f"record {record['seq']} of table T1 is not in the checkpoint", said


def test_the_shipped_samples_are_checked_with_the_public_keys_beside_them(
        tmp_path: Path) -> None:
    samples = DOC.parent / "samples"
    script = verifier(tmp_path)
    for name in ("events.pdf", "shift.pdf", "bourre-session.pdf"):
        said = run(script, samples / name, samples / "station.pub", samples / "witness.pub")
        assert said.startswith("ok: ") and said.endswith(", 0 not yet"), (name, said)


def test_a_stream_whose_compressed_data_ends_in_a_carriage_return_is_read(
        tmp_path: Path) -> None:
    """One report in 256 or so had a compressed stream whose last byte is \\r, which the
    verifier once took for the line end before ``endstream``: it lost the byte and found "no
    records attached". Such a stream, and one with a real \\r\\n line end, are both read."""
    import runpy
    import zlib

    # The last byte of zlib's data is the low byte of 1 + the sum of the text's bytes (its
    # Adler-32): each "a" more adds 97, so some length in 256 ends in \r.
    found = next(text for n in range(256)
                 if zlib.compress((text := f'{{"actor": "x", "pad": "{"a" * n}"}}').encode()
                                  )[-1:] == b"\r")
    data = zlib.compress(found.encode())
    pdf = tmp_path / "streams.pdf"
    pdf.write_bytes(b"%%PDF-1.7\n1 0 obj\n<< /Length %d >>\nstream\n" % len(data) + data
                    + b"\nendstream\nendobj\n2 0 obj\n<<>>\nstream\r\n"
                    + zlib.compress(b'{"actor": "y"}') + b"\r\nendstream\nendobj\n")
    attachments = runpy.run_path(str(verifier(tmp_path)), run_name="verifier")["attachments"]
    assert list(attachments(pdf)) == [found, '{"actor": "y"}']
