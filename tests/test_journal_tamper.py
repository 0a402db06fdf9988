"""Tampering, done for real: a journal is written to a SQLite file, closed, changed behind the
station's back with the sqlite3 module, and ``dealer-station audit verify`` must exit non-zero
naming the first bad record."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Connection

from dealer_station.audit.db import open_database
from dealer_station.audit.hashing import record_hash
from dealer_station.audit.journal import Fact, Journal, upsert_round
from dealer_station.audit.journal_common import JournalTampered
from dealer_station.audit.keys import create_key, load_key
from dealer_station.cli.main import main


@dataclass
class Sealed:
    url: str
    file: Path
    key: Path

    def sql(self, *statements: str) -> None:
        conn = sqlite3.connect(self.file)
        try:
            for s in statements:
                conn.execute(s)
            conn.commit()
        finally:
            conn.close()

    def row(self, seq: int) -> tuple[object, ...]:
        conn = sqlite3.connect(self.file)
        try:
            row = conn.execute("SELECT table_id, seq, ts, actor, kind, round_no, payload, "
                               "prev_hash, hash FROM journal WHERE table_id='T1' AND seq=?",
                               (seq,)).fetchone()
        finally:
            conn.close()
        assert row is not None
        return tuple(row)


def verify(sealed: Sealed, capsys: pytest.CaptureFixture[str],
           key: Path | None = None) -> tuple[int, str]:
    status = main(["audit", "verify", "--db", sealed.url, "--key", str(key or sealed.key)])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.fixture
def sealed(tmp_path: Path) -> Sealed:
    """T1: records 1-10, a checkpoint (11), records 12-20; T2: three records."""
    file = tmp_path / "data" / "journal.db"
    url = f"sqlite:///{file}"
    key = create_key(tmp_path / "keys" / "journal.key")
    db = open_database(url)
    j = Journal(db, key)
    j.append("T1", "startup", {"version": "0.1"}, "station")
    opening = {"game": "lapaire", "config_version": "v1", "dealer": "ann/dealer"}
    for n in range(1, 4):
        j.append_many("T1", [Fact("round.open", opening, "ann/dealer", n),
                             Fact("wager", {"seat": 1, "amount": 500 * n}, "ann/dealer", n),
                             Fact("card", {"code": "KH"}, "device:shoe", n)],
                      also=lambda c, n=n: upsert_round(c, "T1", n, game="lapaire",
                                                       config_version="v1", dealer="ann/dealer"))
    j.checkpoint("T1", "sue/supervisor")
    assert j.last("T1").seq == 11  # type: ignore[union-attr]
    for n in range(4, 7):
        def both(c: Connection, n: int = n) -> None:
            upsert_round(c, "T1", n, game="lapaire", config_version="v1", dealer="ann/dealer")
            upsert_round(c, "T1", n, status="settled")
        j.append_many("T1", [Fact("round.open", opening, "ann/dealer", n),
                             Fact("card", {"code": "2C"}, "device:shoe", n),
                             Fact("round.close", {"paid": 1000}, "ann/dealer", n)], also=both)
    assert j.last("T1").seq == 20  # type: ignore[union-attr]
    for i in range(3):
        j.append("T2", "wager", {"i": i}, "bob/dealer")
    db.close()
    return Sealed(url, file, key.path)


def test_untouched_journal_verifies(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = verify(sealed, capsys)
    assert status == 0, out
    assert "table T1: ok, 20 records" in out and "1 checkpoint(s) confirmed" in out
    assert "table T2: ok, 3 records" in out


EDITS: dict[str, tuple[str, int, str]] = {
    # name: (sql, first bad record, words the report must contain)
    "payload": ("UPDATE journal SET payload='{\"amount\":50000,\"seat\":1}' "
                "WHERE table_id='T1' AND seq=6", 6, "content does not match its hash"),
    "hash": ("UPDATE journal SET hash='" + "0" * 64 + "' WHERE table_id='T1' AND seq=6", 6,
             "content does not match its hash"),
    "ts": ("UPDATE journal SET ts='2020-01-01T00:00:00.000000+00:00' "
           "WHERE table_id='T1' AND seq=6", 6, "content does not match"),
    "actor": ("UPDATE journal SET actor='sue/supervisor' WHERE table_id='T1' AND seq=6", 6,
              "content does not match"),
    "kind": ("UPDATE journal SET kind='void' WHERE table_id='T1' AND seq=6", 6,
             "content does not match"),
    "round_no": ("UPDATE journal SET round_no=3 WHERE table_id='T1' AND seq=6", 6,
                 "content does not match"),
    "round_no_cleared": ("UPDATE journal SET round_no=NULL WHERE table_id='T1' AND seq=6", 6,
                         "content does not match"),
    "prev_hash": ("UPDATE journal SET prev_hash='" + "1" * 64 + "' "
                  "WHERE table_id='T1' AND seq=6", 6, "previous-hash link"),
    "seq": ("UPDATE journal SET seq=99 WHERE table_id='T1' AND seq=6", 6, "record 6 is missing"),
    "table_id": ("UPDATE journal SET table_id='T2' WHERE table_id='T1' AND seq=6", 6,
                 "record 6 is missing"),
    "delete": ("DELETE FROM journal WHERE table_id='T1' AND seq=6", 6, "record 6 is missing"),
    "delete_first": ("DELETE FROM journal WHERE table_id='T1' AND seq=1", 1,
                     "record 1 is missing"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_every_edit_is_found_at_the_first_bad_record(
        sealed: Sealed, capsys: pytest.CaptureFixture[str], name: str) -> None:
    sql, bad_seq, words = EDITS[name]
    sealed.sql(sql)
    status, out = verify(sealed, capsys)
    assert status == 1, out
    assert f"table T1: FAILED at record {bad_seq}: " in out
    assert words in out
    if name != "table_id":
        assert "table T2: ok" in out  # the other table's chain is not disturbed


def test_a_row_moved_to_another_table_breaks_both(sealed: Sealed,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    sealed.sql("UPDATE journal SET table_id='T2', seq=4 WHERE table_id='T1' AND seq=6")
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 6: record 6 is missing" in out
    assert "table T2: FAILED at record 4: " in out


def test_swapped_rows(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    sealed.sql("UPDATE journal SET seq=-7 WHERE table_id='T1' AND seq=7",
               "UPDATE journal SET seq=7 WHERE table_id='T1' AND seq=8",
               "UPDATE journal SET seq=8 WHERE table_id='T1' AND seq=-7")
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 7: " in out


def test_rows_reordered_by_content(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    """Two rows keep their numbers but exchange everything else."""
    r7, r8 = sealed.row(7), sealed.row(8)
    cols = ("ts", "actor", "kind", "round_no", "payload", "prev_hash", "hash")
    conn = sqlite3.connect(sealed.file)
    for seq, src in ((7, r8), (8, r7)):
        conn.execute(f"UPDATE journal SET {', '.join(c + '=?' for c in cols)} "
                     f"WHERE table_id='T1' AND seq=?", (*src[2:], seq))
    conn.commit()
    conn.close()
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "FAILED at record 7: " in out
    assert "previous-hash link does not match record 6" in out


def _forged_insert(sealed: Sealed, seq: int, prev_hash: str, key: bytes) -> None:
    ts = "2026-01-01T00:00:00.000000+00:00"
    payload = '{"amount":100000,"seat":1}'
    h = record_hash(key, table_id="T1", seq=seq, ts=ts, actor="ann/dealer", kind="wager#2",
                    payload=payload, prev_hash=prev_hash)
    sealed.sql("INSERT INTO journal (table_id, seq, ts, actor, kind, round_no, payload, "
               f"prev_hash, hash) VALUES ('T1', {seq}, '{ts}', 'ann/dealer', 'wager', 2, "
               f"'{payload}', '{prev_hash}', '{h}')")


def test_row_inserted_in_the_middle(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    """Records 9.. renumbered to make room, a forged record put in at 9 with a guessed key."""
    prev = str(sealed.row(8)[8])
    sealed.sql("UPDATE journal SET seq=-seq WHERE table_id='T1' AND seq>=9",
               "UPDATE journal SET seq=1-seq WHERE table_id='T1' AND seq<0")
    _forged_insert(sealed, 9, prev, b"\x00" * 32)
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 9: its content does not match its hash" in out


def test_row_appended_at_the_end(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    _forged_insert(sealed, 21, str(sealed.row(20)[8]), b"\x01" * 32)
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 21: its content does not match its hash" in out


def test_inserted_row_with_the_key_is_caught_by_the_next_link(
        sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    """Even someone holding the key who slips a valid record in breaks the following link."""
    key = load_key(sealed.key).secret
    prev = str(sealed.row(8)[8])
    sealed.sql("UPDATE journal SET seq=-seq WHERE table_id='T1' AND seq>=9",
               "UPDATE journal SET seq=1-seq WHERE table_id='T1' AND seq<0")
    _forged_insert(sealed, 9, prev, key)
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 10: " in out


def test_truncation_after_a_checkpoint(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    sealed.sql("DELETE FROM journal WHERE table_id='T1' AND seq>=9")
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 9: the journal ends at record 8" in out
    assert "truncated" in out


def test_truncation_with_the_database_checkpoint_removed_too(
        sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    """Whoever cuts the journal also deletes the checkpoints table: the anchor file remains."""
    sealed.sql("DELETE FROM journal WHERE table_id='T1' AND seq>=9",
               "DELETE FROM checkpoints")
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "FAILED at record 9" in out and "anchor file" in out


def test_a_table_deleted_entirely_is_still_checked(
        sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    sealed.sql("DELETE FROM journal WHERE table_id='T1'", "DELETE FROM checkpoints")
    status, out = verify(sealed, capsys)
    assert status == 1
    assert "table T1: FAILED at record 1: the journal ends at record 0" in out


def test_truncation_behind_the_last_checkpoint_is_not_claimed(
        sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    """Records after the newest checkpoint are protected only by the next checkpoint: cutting
    them off is not detectable, and verify does not pretend otherwise."""
    sealed.sql("DELETE FROM journal WHERE table_id='T1' AND seq>=12",
               "DELETE FROM rounds WHERE table_id='T1' AND round_no>=4")
    status, out = verify(sealed, capsys)
    assert status == 0
    assert "table T1: ok, 11 records" in out


def test_records_cut_but_their_rounds_rows_left_are_reported(
        sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    sealed.sql("DELETE FROM journal WHERE table_id='T1' AND seq>=12")
    status, out = verify(sealed, capsys)
    assert status == 1
    assert ("table T1: projection FAILED: rounds row round 4: the journal has no record of "
            "this round") in out


def test_wrong_key_file(sealed: Sealed, capsys: pytest.CaptureFixture[str],
                        tmp_path: Path) -> None:
    other = create_key(tmp_path / "other" / "journal.key")
    status, out = verify(sealed, capsys, key=other.path)
    assert status == 1
    assert "table T1: FAILED at record 1: " in out and "wrong journal key" in out


def test_verify_as_a_real_process(sealed: Sealed) -> None:
    ok = subprocess.run([sys.executable, "-m", "dealer_station", "audit", "verify", "--db",
                         sealed.url, "--key", str(sealed.key)], capture_output=True, text=True,
                        timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count(": ok, ") == 2
    sealed.sql("UPDATE journal SET payload='{\"paid\":999999}' WHERE table_id='T1' AND seq=17")
    bad = subprocess.run([sys.executable, "-m", "dealer_station", "audit", "verify", "--db",
                          sealed.url, "--key", str(sealed.key), "--table", "T1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1
    assert bad.stdout.splitlines()[0] == ("table T1: FAILED at record 17: its content does not "
                                          "match its hash (the record was edited, or the key "
                                          "is wrong)")


def test_verify_changes_nothing(sealed: Sealed, capsys: pytest.CaptureFixture[str]) -> None:
    before = sealed.file.read_bytes()
    verify(sealed, capsys)
    assert sealed.file.read_bytes() == before


def test_verify_record_journals_the_result(sealed: Sealed,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    sealed.sql("DELETE FROM journal WHERE table_id='T1' AND seq=15")
    status = main(["audit", "verify", "--db", sealed.url, "--key", str(sealed.key), "--record",
                   "--actor", "sue/supervisor"])
    assert status == 1
    db = open_database(sealed.url)
    j = Journal(db, load_key(sealed.key))
    results = {e.table_id: e.payload for e in j.events(kinds=["verify"])}
    db.close()
    assert results["T1"]["ok"] is False and results["T1"]["bad_seq"] == 15
    assert results["T2"]["ok"] is True


@pytest.mark.postgres
def test_tampering_on_postgresql(pg_db_url: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    import psycopg

    key = create_key(tmp_path / "journal.key")
    db = open_database(pg_db_url)
    j = Journal(db, key)
    for i in range(10):
        j.append("T1", "wager", {"i": i}, "ann/dealer")
    j.checkpoint("T1", "sue/supervisor")
    db.close()
    libpq = pg_db_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(libpq) as conn:
        conn.execute("UPDATE journal SET payload='{\"i\":40}' WHERE table_id='T1' AND seq=4")
    status = main(["audit", "verify", "--db", pg_db_url, "--key", str(key.path)])
    out = capsys.readouterr().out
    assert status == 1 and "table T1: FAILED at record 4: its content" in out
    with psycopg.connect(libpq) as conn:
        conn.execute("DELETE FROM journal WHERE table_id='T1' AND seq >= 4")
    status = main(["audit", "verify", "--db", pg_db_url, "--key", str(key.path)])
    out = capsys.readouterr().out
    assert status == 1 and "table T1: FAILED at record 4: the journal ends at record 3" in out



def test_a_chain_cut_behind_a_signed_checkpoint_is_not_written_again(tmp_path: Path) -> None:
    """Records cut from the end, their signed checkpoint left: the station refuses to write
    the same sizes again under new contents (and so to sign a second, different checkpoint
    of a size already signed), and writes nothing."""
    url = f"sqlite:///{tmp_path / 'journal.db'}"
    key = create_key(tmp_path / "journal.key")
    db = open_database(url)
    j = Journal(db, key)
    for n in range(1, 4):
        j.append_many("T1", [Fact("round.open", {"game": "lapaire"}, "ann/dealer", n),
                             Fact("round.close", {"paid": 100 * n}, "ann/dealer", n)],
                      sign=True)
    assert [c.size for c in j.signing.all("T1")] == [2, 4, 6]
    db.close()
    conn = sqlite3.connect(tmp_path / "journal.db")
    conn.execute("DELETE FROM journal WHERE table_id='T1' AND seq>=5")
    conn.commit()
    conn.close()
    db = open_database(url)
    try:
        j = Journal(db, load_key(tmp_path / "journal.key"))
        with pytest.raises(JournalTampered, match="checkpoint of size 6 was already signed"):
            j.append_many("T1", [Fact("round.open", {"game": "lapaire"}, "ann/dealer", 3),
                                 Fact("round.close", {"paid": 999}, "ann/dealer", 3)],
                          sign=True)
        assert j.last("T1").seq == 4  # type: ignore[union-attr]
        assert [c.size for c in j.signing.all("T1")] == [2, 4, 6]
    finally:
        db.close()
