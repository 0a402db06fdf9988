"""Journals written by the landed code (commit 1506783) still verify, replay and recall.

``tests/fixtures/landed-1506783/`` holds a SQLite journal, its key and its anchor file, written
by the landed code (``tests/fixtures/make_landed_journals.py`` says how and what), and
``expected.json``: what the landed code printed for it. Every check here runs the CURRENT code
on a fresh copy, through the real command line in a subprocess (``python -m dealer_station``)
and through the game registry's table part; nothing is mocked.

Other tests can reuse the journal: ``landed_journal_copy(tmp_path)`` returns ``(db_url,
key_path)`` of a fresh copy (the key chmod 0600, as the station demands).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key
from dealer_station.registry import game
from dealer_station.table.parts import TABLE

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "landed-1506783"
DB_FILE, KEY_FILE, ANCHOR_FILE = "journal.db", "journal.key", "journal.anchors"
EXPECTED: dict[str, Any] = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
TABLES: dict[str, str] = EXPECTED["tables"]          # table id -> game name


def landed_journal_copy(tmp_path: Path) -> tuple[str, Path]:
    """A fresh copy of the landed journal under ``tmp_path``: ``(db_url, key_path)``.

    The anchor file lies beside the key (``journal.anchors``). Each call makes a new folder,
    so a test may take several copies."""
    n = 1
    while (dest := tmp_path / f"landed-1506783-{n}").exists():
        n += 1
    dest.mkdir(parents=True)
    for name in (DB_FILE, KEY_FILE, ANCHOR_FILE):
        shutil.copyfile(FIXTURE / name, dest / name)
        os.chmod(dest / name, 0o600)   # git keeps no mode; the station refuses a readable key
    return f"sqlite:///{dest / DB_FILE}", dest / KEY_FILE


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The current code's command line, as a user runs it."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DEALER_STATION_") and k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def store_args(db_url: str, key: Path) -> list[str]:
    return ["--db", db_url, "--key", str(key)]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The read-only commands, run once on one copy (they change nothing)."""
    db_url, key = landed_journal_copy(tmp_path_factory.mktemp("landed-read"))
    store = store_args(db_url, key)
    ran: dict[str, Any] = {
        action: cli("audit", action, *store) for action in ("verify", "replay", "meters")}
    for table in TABLES:
        ran[f"recall {table}"] = cli("recall", "--json", "--last", "100", "--table", table,
                                     *store)
    ran["folder"] = str(key.parent)
    return ran


def show(proc: subprocess.CompletedProcess[str]) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"


# -- the fixture itself ----------------------------------------------------------------------

def test_the_current_code_is_what_is_tested() -> None:
    import dealer_station

    assert Path(dealer_station.__file__).resolve().is_relative_to(ROOT / "dealer_station")
    assert EXPECTED["landed_commit"] == "1506783"


def test_the_fixture_holds_what_it_was_made_for(tmp_path: Path) -> None:
    names = sorted(p.name for p in FIXTURE.iterdir())
    assert names == sorted([DB_FILE, KEY_FILE, ANCHOR_FILE, "expected.json"]), (
        "no -wal/-shm or lease file may be left in the fixture")
    assert sum((FIXTURE / n).stat().st_size for n in names) < 3 * 1024 * 1024
    assert re.fullmatch(r"[0-9a-f]{64}\n?", (FIXTURE / KEY_FILE).read_text())
    # The database is the one expected.json describes (read from a copy: even a read-only
    # connection leaves -wal/-shm files beside a WAL database).
    db_url, _ = landed_journal_copy(tmp_path)
    con = sqlite3.connect(db_url.removeprefix("sqlite:///"))
    try:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        for table, summary in EXPECTED["contents"].items():
            kinds = Counter(k for (k,) in con.execute(
                "SELECT kind FROM journal WHERE table_id = ?", (table,)))
            rounds = Counter(s for (s,) in con.execute(
                "SELECT status FROM rounds WHERE table_id = ?", (table,)))
            assert dict(kinds) == summary["kinds"], table
            assert dict(rounds) == summary["rounds"], table
    finally:
        con.close()
    contents = EXPECTED["contents"]
    t1, b1 = contents["T1"]["kinds"], contents["B1"]["kinds"]
    for kind in ("void", "correction", "resolve", "config.change", "login.failed", "login",
                 "wager.remove", "device.fault", "shutdown", "checkpoint"):
        assert t1.get(kind), f"T1 has no {kind} record"
    assert t1["halt"] >= 3 and t1["config.change"] >= 2
    for kind in ("renege", "void", "card.held", "session.close", "hand.close", "checkpoint"):
        assert b1.get(kind), f"B1 has no {kind} record"
    assert contents["station"]["kinds"]["user.add"] == 3
    assert contents["T1"]["rounds"] == {"settled": 43, "voided": 1}
    assert contents["B1"]["rounds"] == {"settled": 14, "voided": 1}


# -- audit verify, replay, meters ------------------------------------------------------------

VERIFY_OK = re.compile(r"table (\S+): ok, (\d+) records, chain intact to seq (\d+) "
                       r"\(([0-9a-f]+)\.\.\.\), (\d+) checkpoint\(s\) confirmed")
PROJECTIONS_OK = re.compile(r"table (\S+): projections agree with the journal")


def verified(text: str) -> dict[str, tuple[str, ...]]:
    return {m[1]: m.groups()[1:] for m in VERIFY_OK.finditer(text)}


def test_verify_says_every_table_is_intact(outputs: dict[str, Any]) -> None:
    proc = outputs["verify"]
    assert proc.returncode == 0, show(proc)
    landed = EXPECTED["audit"]["verify"]
    assert landed["exit"] == 0
    tables = set(verified(landed["stdout"]))
    assert tables == {*TABLES, "station"}
    # Every table's records, last seq, head hash and checkpoints as the landed code saw them.
    assert verified(proc.stdout) == verified(landed["stdout"]), show(proc)
    assert set(PROJECTIONS_OK.findall(proc.stdout)) == tables, show(proc)
    assert "FAILED" not in proc.stdout and "warning" not in proc.stdout, show(proc)


REPLAYED = re.compile(r"table (\S+): (\d+) rounds replayed \(([^)]*)\); (\d+) difference\(s\)")


def replayed(text: str) -> dict[str, tuple[str, ...]]:
    return {m[1]: m.groups()[1:] for m in REPLAYED.finditer(text)}


def test_replay_finds_no_difference_and_the_same_figures(outputs: dict[str, Any]) -> None:
    proc = outputs["replay"]
    assert proc.returncode == 0, show(proc)
    assert "DIFFERENCE" not in proc.stdout, show(proc)
    figures = replayed(proc.stdout)
    assert set(figures) == set(TABLES), show(proc)
    assert all(f[2] == "0" for f in figures.values()), show(proc)
    assert figures == replayed(EXPECTED["audit"]["replay"]["stdout"]), show(proc)


METER_ROW = re.compile(r"^  (\S.*?) +(-?[\d,]+) +(-?[\d,.]+) +(-?[\d,.]+) +(-?[\d,.]+)$",
                       re.MULTILINE)


def _minor(figure: str) -> int:
    """``-2,571.00`` (money as people read it) or ``-257100`` (the landed code's minor units)
    -> -257100."""
    return int(figure.replace(",", "").replace(".", ""))


def meters(text: str) -> dict[str, dict[str, tuple[int, ...]]]:
    """Each table's meters in minor units, by the meter's name on the felt."""
    from dealer_station.reports.shift import kind_label

    out: dict[str, dict[str, tuple[int, ...]]] = {}
    for block in re.split(r"^table ", text, flags=re.MULTILINE)[1:]:
        name, _, rows = block.partition("\n")
        out[name.split(":")[0]] = {kind_label(m[1]) if "_" in m[1] or m[1].islower() else m[1]:
                                   tuple(_minor(x) for x in m.groups()[1:])
                                   for m in METER_ROW.finditer(rows)}
    return out


def test_meters_match_the_landed_meters(outputs: dict[str, Any]) -> None:
    proc = outputs["meters"]
    assert proc.returncode == 0, show(proc)
    assert "MISMATCH" not in proc.stdout, show(proc)
    assert proc.stdout.count("meters equal the sums recomputed from the journal") == len(TABLES)
    landed = meters(EXPECTED["audit"]["meters"]["stdout"])
    assert set(landed) == set(TABLES) and all(landed.values())
    assert meters(proc.stdout) == landed, show(proc)


# -- recall ----------------------------------------------------------------------------------

def differences(got: Any, want: Any, path: str = "$", limit: int = 20) -> list[str]:
    """Where two JSON values differ (the first ``limit`` places), for a readable failure."""
    found: list[str] = []

    def walk(a: Any, b: Any, where: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b), key=str):
                if k not in a:
                    found.append(f"{where}.{k}: missing (landed: {json.dumps(b[k])[:120]})")
                elif k not in b:
                    found.append(f"{where}.{k}: not in the landed output "
                                 f"({json.dumps(a[k])[:120]})")
                else:
                    walk(a[k], b[k], f"{where}.{k}")
        elif isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                found.append(f"{where}: {len(a)} items, landed {len(b)}")
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                walk(x, y, f"{where}[{i}]")
        elif a != b or type(a) is not type(b):
            found.append(f"{where}: {json.dumps(a)[:120]} (landed: {json.dumps(b)[:120]})")

    walk(got, want, path)
    return found


@pytest.mark.parametrize("table", list(TABLES))
def test_recall_equals_the_landed_recall(outputs: dict[str, Any], table: str) -> None:
    proc = outputs[f"recall {table}"]
    landed = EXPECTED["recall"][table]
    assert proc.returncode == landed["exit"] == 0, show(proc)
    got = json.loads(proc.stdout)
    want = landed["json"]
    assert len(want) == sum(EXPECTED["contents"][table]["rounds"].values())
    diff = differences(got, want)
    assert not diff, f"recall of {table} differs from the landed code's:\n" + "\n".join(diff)
    assert got == want


# -- the table services ----------------------------------------------------------------------

@pytest.mark.parametrize(("table_id", "name"), list(TABLES.items()))
def test_each_table_opens_cleanly_and_shuts_down(tmp_path: Path, table_id: str,
                                                 name: str) -> None:
    db_url, key = landed_journal_copy(tmp_path)
    newest = EXPECTED["recall"][table_id]["json"][0]
    db = open_database(db_url)
    try:
        journal = Journal(db, load_key(key))
        table = game(name).part(TABLE)(journal, table_id, dealer="dealer/dealer")
        try:
            assert table.projection_problems == []
            assert table.halt is None and not table.in_round()
            # The configuration the journal establishes (an operator's change on T1), the
            # last round number from the chain.
            assert table.version == newest["config_version"]
            assert table.last_round_no() == newest["round_no"]
        finally:
            table.shutdown()
        assert not table.lease.valid
        records = list(journal.records(table_id))
        assert [r.kind for r in records[-2:]] == ["shutdown", "checkpoint"]
        assert records[-3].seq == EXPECTED["contents"][table_id]["records"]
    finally:
        db.close()
    # What the current code wrote chains onto the landed records, and still verifies.
    proc = cli("audit", "verify", "--table", table_id, *store_args(db_url, key))
    assert proc.returncode == 0, show(proc)
    records = EXPECTED["contents"][table_id]["records"] + 2
    assert verified(proc.stdout)[table_id][:2] == (str(records), str(records)), show(proc)
