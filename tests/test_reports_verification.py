"""The verification a report prints: checked in parallel ranges for a big chain, it must say
exactly what `Journal.verify` says, intact or tampered (edited, deleted, reordered, cut off after
a checkpoint, the wrong key)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from test_reports_journal import (  # noqa: F401  (report_journal is a fixture)
    TABLE,
    JournalFiles,
    copy_journal,
    report_journal,
)

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.reports.verification import Verification, check_range


def _edit(db: sqlite3.Connection) -> None:
    db.execute("UPDATE journal SET actor='mallory/dealer' WHERE table_id=? AND seq=300",
               (TABLE,))


def _delete(db: sqlite3.Connection) -> None:
    db.execute("DELETE FROM journal WHERE table_id=? AND seq=500", (TABLE,))


def _swap(db: sqlite3.Connection) -> None:
    db.execute("UPDATE journal SET seq=-1 WHERE table_id=? AND seq=200", (TABLE,))
    db.execute("UPDATE journal SET seq=200 WHERE table_id=? AND seq=201", (TABLE,))
    db.execute("UPDATE journal SET seq=201 WHERE table_id=? AND seq=-1", (TABLE,))


def _truncate(db: sqlite3.Connection) -> None:
    top = db.execute("SELECT max(seq) FROM journal WHERE table_id=?", (TABLE,)).fetchone()[0]
    db.execute("DELETE FROM journal WHERE table_id=? AND seq>?", (TABLE, top - 3))
    db.execute("DELETE FROM checkpoints")


TAMPERING: dict[str, Callable[[sqlite3.Connection], None]] = {
    "edited": _edit, "deleted": _delete, "reordered": _swap, "cut off": _truncate,
}


def _both(files: JournalFiles, key_path: Path | None = None) -> tuple[object, object, str]:
    db = open_database(files.url, upgrade=False)
    try:
        key = load_key(key_path or files.key)
        journal = Journal(db, key, anchor_path=files.key.with_name("journal.anchors"))
        check = Verification(journal, TABLE, background_above=0, workers=3)
        fast = check.result()
        return fast, journal.verify(TABLE)[0], check.method
    finally:
        db.close()


def test_an_intact_chain_is_confirmed_in_parallel_ranges(report_journal: JournalFiles) -> None:  # noqa: F811
    fast, official, method = _both(report_journal)
    assert method == "ranges"
    assert fast == official
    # one anchor per closed round and the shut-down checkpoint, each confirmed
    assert fast.ok and fast.checkpoints > 1   # type: ignore[attr-defined]


@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_tampering_reads_as_audit_verify_says_it(report_journal: JournalFiles,  # noqa: F811
                                                 tmp_path: Path, how: str) -> None:
    files = copy_journal(report_journal, tmp_path)
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    TAMPERING[how](db)
    db.commit()
    db.close()
    fast, official, method = _both(files)
    assert method == "walk"
    assert not fast.ok and fast == official   # type: ignore[attr-defined]


def test_the_wrong_key_fails_at_record_1(report_journal: JournalFiles, tmp_path: Path) -> None:  # noqa: F811
    other = tmp_path / "other.key"
    create_key(other)
    fast, official, _ = _both(report_journal, other)
    assert fast == official and fast.bad_seq == 1  # type: ignore[attr-defined]


def test_a_range_checks_its_link_to_the_record_before_it(report_journal: JournalFiles,  # noqa: F811
                                                        tmp_path: Path) -> None:
    files = copy_journal(report_journal, tmp_path)
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    db.execute("UPDATE journal SET hash=? WHERE table_id=? AND seq=99", ("0" * 64, TABLE))
    db.commit()
    db.close()
    handle = open_database(files.url, upgrade=False)
    try:
        journal = Journal(handle, load_key(files.key))
        assert check_range(journal, TABLE, 100, 150)[0] is False   # record 99's hash is wrong
        assert check_range(journal, TABLE, 1, 98)[0] is True
        assert check_range(journal, TABLE, 101, 150)[0] is True
    finally:
        handle.close()


@pytest.mark.postgres
def test_reports_on_postgresql(pg_db_url: str, tmp_path: Path) -> None:
    """The same report and parallel verification on a PostgreSQL floor database."""
    from test_reports_journal import pay, pdf_text

    from dealer_station.games.lapaire.config_file import load_lapaire_config
    from dealer_station.games.lapaire.rules.engine import Wager
    from dealer_station.games.lapaire.table.live import LaPaireTable
    from dealer_station.reports.shift import build_shift_report

    db = open_database(pg_db_url)
    try:
        journal = Journal(db, create_key(tmp_path / "pg.key"))
        t = LaPaireTable(journal, TABLE, load_lapaire_config(), dealer="dee/dealer")
        for cards in (("KH", "2C", "9D"), ("5S", "5H", "JK")):
            t.place_many([Wager(1, "straight", ("K",), 500), Wager(1, "any_pair", (), 200)])
            for card in cards:
                t.deal(card)
                pay(t)
        check = Verification(journal, TABLE, background_above=0, workers=2)
        assert check.result() == journal.verify(TABLE)[0] and check.method == "ranges"
        built = build_shift_report(journal, TABLE, out=tmp_path / "pg.pdf", background_above=0)
        meters = journal.meters(TABLE)["total"]
    finally:
        db.close()
    assert built.verification.ok and built.data.rounds_played == 2
    assert "Rounds played 2 (2 settled, 0 voided)" in pdf_text(built.path)
    assert built.data.total.wagered == meters.wagered


def _memo_check(files: JournalFiles, chunk: int = 64, key_path: Path | None = None
                ) -> tuple[Verification, object, object]:
    db = open_database(files.url, upgrade=False)
    try:
        journal = Journal(db, load_key(key_path or files.key),
                          anchor_path=files.key.with_name("journal.anchors"))
        check = Verification(journal, TABLE, background_above=0, workers=2, chunk=chunk)
        return check, check.result(), journal.verify(TABLE)[0]
    finally:
        db.close()


def test_a_verified_run_is_remembered_and_only_relinked_next_time(
        report_journal: JournalFiles, tmp_path: Path) -> None:  # noqa: F811
    files = copy_journal(report_journal, tmp_path)
    first, fast, official = _memo_check(files)
    assert first.method == "ranges" and fast == official and first.confirmed_unchanged == 0
    memos = list(files.key.parent.glob("journal.anchors.verified-*.json"))
    assert len(memos) == 1
    again, fast, official = _memo_check(files)
    size = again.size
    # every whole run of 64 records is confirmed from the memo; the tail is hashed again
    assert again.confirmed_unchanged == size // 64 * 64 > 0
    assert fast == official and fast.ok   # type: ignore[attr-defined]


@pytest.mark.parametrize("how", sorted(TAMPERING))
def test_tampering_inside_a_remembered_run_is_found(report_journal: JournalFiles,  # noqa: F811
                                                    tmp_path: Path, how: str) -> None:
    files = copy_journal(report_journal, tmp_path)
    _memo_check(files)                 # remembered while intact
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    TAMPERING[how](db)
    db.commit()
    db.close()
    check, fast, official = _memo_check(files)
    assert check.method == "walk"
    assert not fast.ok and fast == official   # type: ignore[attr-defined]


def test_a_memo_changed_or_under_another_key_is_ignored(report_journal: JournalFiles,  # noqa: F811
                                                       tmp_path: Path) -> None:
    import json as _json

    files = copy_journal(report_journal, tmp_path)
    _memo_check(files)
    (memo,) = files.key.parent.glob("journal.anchors.verified-*.json")
    data = _json.loads(memo.read_text())
    # Someone without the key edits a record and writes its run's new digest into the memo.
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    _edit(db)
    db.commit()
    rows = db.execute("SELECT seq, ts, actor, kind, round_no, payload, prev_hash, hash FROM "
                      "journal WHERE table_id=? AND seq BETWEEN 257 AND 320 ORDER BY seq",
                      (TABLE,)).fetchall()
    db.close()
    from dealer_station.reports.verified_memo import chunk_digest
    data["digests"]["4"] = chunk_digest(rows)
    memo.write_text(_json.dumps(data))
    check, fast, official = _memo_check(files)
    assert check.confirmed_unchanged == 0 and not fast.ok  # type: ignore[attr-defined]
    assert fast == official
    # A memo sealed under another key confirms nothing either.
    files2 = copy_journal(report_journal, tmp_path / "second")
    _memo_check(files2)
    (memo2,) = files2.key.parent.glob("journal.anchors.verified-*.json")
    other = tmp_path / "other.key"
    create_key(other)
    from dealer_station.reports.verified_memo import load_memo
    assert load_memo(memo2, load_key(other).secret, TABLE, 64) == {}
    assert load_memo(memo2, load_key(files2.key).secret, TABLE, 64) != {}
