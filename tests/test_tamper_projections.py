"""Tampering with the tables beside the chain, done for real, on SQLite and on PostgreSQL.

The attacker has the database (file or credentials) but not the journal key. A real journal is
written by ``dealer-station simulate``, changed behind the station's back with plain SQL, and
then ``audit verify`` must name the first row that disagrees, and the station must neither pay,
number, nor print what the edit says.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from dealer_station.audit.db import open_database
from dealer_station.audit.hashing import canonical_json
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key
from dealer_station.cli.main import main


class Table:
    """A journal on a real database, and SQL access to it as an attacker would have."""

    def __init__(self, url: str, tmp: Path) -> None:
        self.url = url
        self.key = tmp / "keys" / "journal.key"
        self.store = ["--db", url, "--key", str(self.key)]

    def cli(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
        status = main([*argv, *self.store])
        captured = capsys.readouterr()
        return status, captured.out + captured.err

    def simulate(self, capsys: pytest.CaptureFixture[str], rounds: int, seed: int = 1) -> str:
        status, out = self.cli(capsys, "simulate", "--rounds", str(rounds), "--seed",
                               str(seed), "--quiet")
        assert status == 0, out
        return out

    def sql(self, statement: str, **params: Any) -> list[Any]:
        engine = create_engine(self.url.replace("postgresql://", "postgresql+psycopg://"))
        try:
            with engine.begin() as conn:
                result = conn.execute(text(statement), params)
                return list(result) if result.returns_rows else []
        finally:
            engine.dispose()

    def journal(self) -> Journal:
        return Journal(open_database(self.url, upgrade=False), load_key(self.key))

    def verify(self, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
        return self.cli(capsys, "audit", "verify")


@pytest.fixture
def table(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Table:
    t = Table(db_url, tmp_path)
    t.simulate(capsys, 20)
    status, out = t.verify(capsys)
    assert status == 0, out
    assert "table T1: projections agree with the journal" in out
    return t


def _tampered_paytable(content: str) -> dict[str, Any]:
    data = json.loads(content)
    data["wagers"]["red"]["pays"] = "3 to 1"
    data["wagers"]["black"]["pays"] = "3 to 1"
    data["wagers"]["straight"]["pays"] = "35 to 1"
    return dict(data)


def _round_versions(table: Table) -> set[str]:
    rows = table.sql("SELECT payload FROM journal WHERE table_id='T1' AND kind='round.open'")
    return {json.loads(r[0])["config_version"] for r in rows}


def test_an_inserted_configuration_is_never_adopted(table: Table,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    (live,) = table.sql("SELECT version, content, created_by FROM config_versions")
    forged = canonical_json(_tampered_paytable(live.content))
    version = hashlib.sha256(forged.encode()).hexdigest()
    table.sql("INSERT INTO config_versions (table_id, version, game, content, created_at, "
              "created_by, reason) VALUES ('T1', :v, 'lapaire', :c, "
              "'2099-01-01T00:00:00.000000+00:00', 'station', 'configuration loaded')",
              v=version, c=forged)
    status, out = table.verify(capsys)
    assert status == 1
    assert (f"table T1: projection FAILED: config_versions row version {version[:12]}: no "
            f"config.change record of this table establishes it (inserted)") in out
    # The station pays what the chain established, and says what it found.
    table.simulate(capsys, 20, seed=2)
    assert _round_versions(table) == {live.version}
    mismatch = table.sql("SELECT payload FROM journal WHERE kind='projection.mismatch'")
    assert len(mismatch) == 1 and version[:12] in mismatch[0][0]
    # Repaired: the journal is intact and nothing was acted on from the row, but verify still
    # tells a regulator that someone changed the database.
    status, out = table.verify(capsys)
    assert status == 0, out
    assert re.search(r"table T1: warning: record \d+ \(projection\.mismatch, [^)]+\): the "
                     r"station found rows beside the chain altered and rewrote them from it: "
                     rf"config_versions row version {version[:12]}", out), out
    status, out = table.cli(capsys, "audit", "events", "--kind", "projection.mismatch")
    assert "projection.mismatch" in out and "1 event(s)" in out


def test_an_edited_configuration_content_is_never_paid(table: Table,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (live,) = table.sql("SELECT version, content FROM config_versions")
    table.sql("UPDATE config_versions SET content=:c",
              c=canonical_json(_tampered_paytable(live.content)))
    status, out = table.verify(capsys)
    assert status == 1
    assert (f"config_versions row version {live.version[:12]}: its content does not hash to "
            f"its version (edited)") in out
    table.simulate(capsys, 60, seed=3)
    # Red and black pay 1 to 1 and a straight 12 to 1: every win was paid at the real odds.
    amounts = {(r[0], json.loads(r[1])["wager_id"]): json.loads(r[1])["amount"]
               for r in table.sql("SELECT round_no, payload FROM journal "
                                  "WHERE kind='wager.place'")}
    odds = {"red": 1, "black": 1}
    paid = [(w["bet"], w["win"], amounts[(r[0], w["wager_id"])])
            for r in table.sql("SELECT round_no, payload FROM journal WHERE kind='stage.settle'")
            for w in json.loads(r[1])["results"] if w["won"] and w["bet"] in odds]
    assert paid, "no red or black win in 80 rounds"
    assert all(win == amount * odds[bet] for bet, win, amount in paid)
    # The station put back the content the chain holds, and journaled what it found.
    assert table.sql("SELECT content FROM config_versions")[0][0] == live.content
    assert table.sql("SELECT count(*) FROM journal WHERE kind='projection.mismatch'")[0][0] == 1


def test_a_rounds_row_edited_is_named_and_never_printed(table: Table,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    (later,) = table.sql("SELECT version FROM config_versions")
    table.sql("UPDATE rounds SET dealer='mallory/dealer', started_at='2001-01-01T00:00:00"
              ".000000+00:00' WHERE table_id='T1' AND round_no=7")
    status, out = table.verify(capsys)
    assert status == 1
    assert ("table T1: projection FAILED: rounds row round 7: dealer is 'mallory/dealer' but "
            "the journal says 'sim-dealer/dealer'") in out
    status, out = table.cli(capsys, "recall", "--round", "7")
    assert status == 0, out
    assert "mallory" not in out and "2001-01-01" not in out
    assert later  # the configuration row itself is untouched


def test_rounds_rows_deleted_never_reuse_a_round_number(table: Table,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    table.sql("DELETE FROM rounds")
    status, out = table.verify(capsys)
    assert status == 1
    assert "table T1: projection FAILED: rounds row round 1: missing" in out
    table.simulate(capsys, 3, seed=4)
    opened = [r[0] for r in table.sql(
        "SELECT round_no FROM journal WHERE table_id='T1' AND kind='round.open' ORDER BY seq")]
    assert opened == list(range(1, 24))
    status, out = table.verify(capsys)
    assert status == 0, out


def test_edited_meters_are_named(table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    table.sql("UPDATE meters SET paid = paid + 100000 WHERE meter='total'")
    status, out = table.verify(capsys)
    assert status == 1
    assert re.search(r"projection FAILED: meters row meter total: paid is \d+ but the journal's "
                     r"closing records sum to \d+", out), out


def test_cutting_the_tail_after_a_clean_exit(table: Table,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    (last,) = table.sql("SELECT max(seq) FROM journal WHERE table_id='T1'")
    table.sql("DELETE FROM journal WHERE table_id='T1' AND seq > :s", s=last[0] - 5)
    table.sql("DELETE FROM checkpoints")
    status, out = table.verify(capsys)
    assert status == 1
    assert (f"table T1: FAILED at record {last[0] - 4}: the journal ends at record "
            f"{last[0] - 5}") in out and "(truncated)" in out
    status, out = table.cli(capsys, "simulate", "--rounds", "1")
    assert status == 2
    assert "records were cut off the end" in out and "will not write" in out


def test_every_record_deleted(table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    for t in ("journal", "checkpoints", "rounds", "meters", "config_versions"):
        table.sql(f"DELETE FROM {t}")
    status, out = table.verify(capsys)
    assert status == 1
    assert "table T1: FAILED at record 1: the journal ends at record 0" in out


def test_a_torn_anchor_line_is_reported_and_verification_goes_on(
        table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    anchors = table.key.with_suffix(".anchors")
    whole = anchors.read_text()
    # A write torn by a power cut, then the next line written after it.
    anchors.write_text(whole + "T1 999 3c0f5d1e")
    table.simulate(capsys, 2, seed=5)
    status, out = table.verify(capsys)
    assert status == 0, out
    assert re.search(r"anchor file .*: warning: line \d+ is damaged and was skipped", out)
    assert "table T1: ok" in out
    lines = anchors.read_text().splitlines()
    assert lines[len(whole.splitlines())] == "T1 999 3c0f5d1e"  # the torn line stays alone


def test_a_forged_anchor_line_fails(table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    anchors = table.key.with_suffix(".anchors")
    t, seq, _h, ts, _mac, *journal = anchors.read_text().splitlines()[-1].split()
    with anchors.open("a") as f:
        f.write(" ".join([t, seq, "0" * 64, ts, "1" * 64, *journal]) + "\n")
    status, out = table.verify(capsys)
    assert status == 1
    assert "does not carry this key's MAC" in out


def test_a_mistyped_key_never_makes_a_new_one(table: Table, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    wrong = tmp_path / "keys" / "jornal.key"
    status = main(["simulate", "--rounds", "1", "--db", table.url, "--key", str(wrong)])
    err = capsys.readouterr().err
    assert status == 2
    assert f"journal key file {wrong} does not exist, but the journal" in err
    assert not wrong.exists()
    status = main(["users", "list", "--db", table.url, "--key", str(wrong)])
    assert status == 2 and not wrong.exists()


def test_a_table_id_that_is_not_a_table_is_refused(table: Table,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    status, out = table.cli(capsys, "simulate", "--rounds", "1", "--table", "station")
    assert status == 2
    assert "'station' is not a table id" in out


def _simulate_proc(table: Table, rounds: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "simulate", "--rounds", str(rounds), "--seed",
         str(seed), *table.store], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


def _wait_for_rounds(table: Table, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        (row,) = table.sql("SELECT count(*) FROM journal WHERE kind='round.close'")
        if row[0] >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} rounds closed in {timeout} s")


def test_two_writers_on_one_table(table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    first = _simulate_proc(table, 100_000, 6)
    try:
        _wait_for_rounds(table, 25)
        second = subprocess.run(
            [sys.executable, "-m", "dealer_station", "simulate", "--rounds", "5", *table.store],
            capture_output=True, text=True, timeout=60)
        assert second.returncode == 2, second.stdout + second.stderr
        assert "table T1 is in use by another station" in second.stderr
        assert f"pid {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        # The holder dies: the lock goes with it, and a new station takes the table over.
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
        table.simulate(capsys, 5, seed=7)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    status, out = table.verify(capsys)
    assert status == 0, out
    opened = [r[0] for r in table.sql(
        "SELECT round_no FROM journal WHERE table_id='T1' AND kind='round.open' ORDER BY seq")]
    assert opened == sorted(set(opened)) and opened == list(range(1, len(opened) + 1))


def test_tail_cut_after_sigkill_back_to_the_last_anchor(table: Table,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    proc = _simulate_proc(table, 100_000, 8)
    _wait_for_rounds(table, 40)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    anchors = [line.split() for line in table.key.with_suffix(".anchors").read_text()
               .splitlines()]
    last_anchor = max(int(a[1]) for a in anchors if a[0] == "T1")
    (head,) = table.sql("SELECT max(seq) FROM journal WHERE table_id='T1'")
    assert head[0] - last_anchor < 30  # anchored at the last round's close
    # Records after the last anchor can go unnoticed (docs/journal.md says so); cutting into
    # what it covers cannot.
    table.sql("DELETE FROM journal WHERE table_id='T1' AND seq >= :s", s=last_anchor)
    status, out = table.verify(capsys)
    assert status == 1
    assert f"FAILED at record {last_anchor}" in out and "(truncated)" in out


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_database_files_are_private(table: Table, tmp_path: Path) -> None:
    file = Path(table.url.removeprefix("sqlite:///"))
    os.chmod(file, 0o644)
    proc = _simulate_proc(table, 100_000, 9)
    try:
        _wait_for_rounds(table, 25)
        for f in (file, Path(f"{file}-wal"), Path(f"{file}-shm")):
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    finally:
        proc.kill()
        proc.wait()


def test_a_clean_shutdown_carries_the_proven_meters_forward(
        table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    table.simulate(capsys, 15, seed=10)
    journal = table.journal()
    quick = journal.proven_state("T1")
    assert quick.from_seq > 0 and quick.last_round_checked == 35
    assert quick.meters == journal.meters_from_chain("T1") == journal.meters("T1")
    # A meter edited behind the last checkpoint is still found by the quick start-up check.
    table.sql("UPDATE meters SET wagered = wagered + 1 WHERE meter='total'")
    (problem,) = journal.check_projections("T1", since_checkpoint=True)
    assert str(problem).startswith("meters row meter total: wagered is")


def test_a_configuration_change_taken_out_of_the_chain_stops_the_station(
        table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    """Deleting the record that established the configuration in force would make an earlier
    one current: the gap is found before anything is written."""
    (seq,) = table.sql("SELECT max(seq) FROM journal WHERE kind='config.change'")
    table.sql("DELETE FROM journal WHERE table_id='T1' AND seq=:s", s=seq[0])
    status, out = table.cli(capsys, "simulate", "--rounds", "1")
    assert status == 2
    assert "records were removed from the chain" in out
    status, out = table.verify(capsys)
    assert status == 1 and f"record {seq[0]} is missing" in out


def test_an_edited_configuration_record_stops_the_station(
        table: Table, capsys: pytest.CaptureFixture[str]) -> None:
    table.sql("UPDATE journal SET payload=replace(payload, '\"12 to 1\"', '\"35 to 1\"') "
              "WHERE kind='config.change'")
    status, out = table.cli(capsys, "simulate", "--rounds", "1")
    assert status == 2
    assert "(config.change) does not match its hash" in out
    assert "Traceback" not in out
