"""The verifier printed in docs/journal.md, run as written against a real journal: the
documented hash computation is exactly the station's."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Fact, Journal
from dealer_station.audit.keys import create_key

DOC = Path(__file__).resolve().parents[1] / "docs" / "journal.md"


def test_documented_verifier_agrees_with_the_station(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    [verifier] = [b for b in blocks if "def verify(db_path" in b]
    script = tmp_path / "verifier.py"
    script.write_text(verifier)

    key = create_key(tmp_path / "journal.key")
    file = tmp_path / "journal.db"
    db = open_database(f"sqlite:///{file}")
    j = Journal(db, key)
    for n in range(1, 6):
        j.append_many("T1", [Fact("wager", {"seat": 1, "amount": 500, "note": "é"},
                                  "ann/dealer", n), Fact("card", {"code": "KH"}, "shoe", n)])
    j.append("T2", "startup", {}, "station")
    j.checkpoint("T1", "sue/supervisor")
    db.close()

    def run() -> str:
        out = subprocess.run([sys.executable, str(script), str(file), str(key.path),
                              str(key.anchor_path)], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert run() == "T1: ok\nT2: ok\n"
    conn = sqlite3.connect(file)
    conn.execute("UPDATE journal SET payload='{\"amount\":5000,\"seat\":1}' "
                 "WHERE table_id='T1' AND seq=5")
    conn.execute("DELETE FROM journal WHERE table_id='T2'")
    conn.commit()
    conn.close()
    assert run() == "T1: FIRST BAD RECORD 5\n"  # T2 had no checkpoint: nothing left to say


def test_documented_verifier_reads_anchor_lines_and_skips_damaged_ones(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    [verifier] = [b for b in blocks if "def verify(db_path" in b]
    script = tmp_path / "verifier.py"
    script.write_text(verifier)
    key = create_key(tmp_path / "journal.key")
    file = tmp_path / "journal.db"
    db = open_database(f"sqlite:///{file}")
    j = Journal(db, key)
    for n in range(1, 4):
        j.append("T1", "wager", {"n": n}, "ann/dealer", round_no=n)
    j.checkpoint("T1", "sue/supervisor")
    db.close()
    with open(key.anchor_path, "a") as f:
        f.write("T1 9 garbled")  # a torn line: skipped, not fatal
    conn = sqlite3.connect(file)
    conn.execute("DELETE FROM journal WHERE seq >= 3")
    conn.execute("DELETE FROM checkpoints")
    conn.commit()
    conn.close()
    out = subprocess.run([sys.executable, str(script), str(file), str(key.path),
                          str(key.anchor_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "T1: FIRST BAD RECORD 3\n"
