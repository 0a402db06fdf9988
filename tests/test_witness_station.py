"""The station's side of the witness: its signing key, its trees and signed checkpoints, and
what it does when a witness cosigns, refuses or cannot be reached."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest
from waiting import wait_until
from witness_support import running_witness

from dealer_station.audit import merkle
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import KeyFileError, create_key, load_signing_key
from dealer_station.audit.merkle_store import node_source, row_leaf
from dealer_station.audit.notes import open_checkpoint
from dealer_station.cli.main import main
from dealer_station.floor.alerts import alert_kinds, codec_of
from dealer_station.floor.witness_push import WitnessConfig, WitnessPusher


def test_the_signing_key_is_made_with_the_journal_key_and_kept_private(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = create_key(tmp_path / "k" / "journal.key", "casino.example/pit2-t4")
    signer = load_signing_key(key.path)
    assert signer is not None and signer.name == "casino.example/pit2-t4"
    assert stat.S_IMODE(os.stat(key.signing_path).st_mode) == 0o600
    assert main(["audit", "public-key", "--key", str(key.path)]) == 0
    assert capsys.readouterr().out.strip() == signer.verifier.vkey()
    os.chmod(key.signing_path, 0o644)
    with pytest.raises(KeyFileError, match="chmod 600"):
        load_signing_key(key.path)
    assert main(["audit", "public-key", "--key", str(tmp_path / "none.key")]) == 2
    assert "no signing key beside" in capsys.readouterr().err
    bad = tmp_path / "bad" / "journal.key"
    assert main(["audit", "new-key", "--key", str(bad), "--name", "two words"]) == 2
    assert "bad signing key name" in capsys.readouterr().err


def _tree_matches_records(db_file: Path, table: str) -> bytes:
    with sqlite3.connect(db_file) as conn:
        rows = conn.execute("SELECT table_id, seq, ts, actor, kind, round_no, payload, "
                            "prev_hash, hash FROM journal WHERE table_id = ? ORDER BY seq",
                            (table,)).fetchall()
    return merkle.root_of_leaves([row_leaf(r) for r in rows])


def test_the_tree_grows_with_the_records_and_is_rebuilt_after_a_cut(tmp_path: Path) -> None:
    key = create_key(tmp_path / "journal.key", "casino.example/s1")
    db_file = tmp_path / "j.db"
    db = open_database(f"sqlite:///{db_file}")
    j = Journal(db, key)
    for n in range(1, 40):
        j.append("T1", "wager", {"n": n}, "ann/dealer", round_no=n // 5)
    j.append_many("T2", [j_fact(n) for n in range(7)])
    signed = j.signing.sign("T1")
    assert signed is not None and signed.size == 39
    assert signed.root == _tree_matches_records(db_file, "T1")
    cp, _note, _by = open_checkpoint(signed.note, [j.signer.verifier])  # type: ignore[union-attr]
    assert cp.origin == "casino.example/T1"
    # Records cut off the end (not past an anchor): the next writer's tree is the records'.
    with sqlite3.connect(db_file) as conn:
        conn.execute("DELETE FROM journal WHERE table_id='T1' AND seq > 30")
    again = Journal(open_database(f"sqlite:///{db_file}"), key)
    again.append("T1", "wager", {"n": "after"}, "ann/dealer")
    with again.db.read() as conn:
        assert merkle.root(node_source(conn, "T1"), 31) == _tree_matches_records(db_file, "T1")
    # A proof from the stored nodes verifies against the root of the records.
    with again.db.read() as conn:
        node = node_source(conn, "T1")
        proof = merkle.inclusion_proof(node, 4, 31)
        leaf = node(0, 4)
    merkle.verify_inclusion(4, 31, leaf, proof, _tree_matches_records(db_file, "T1"))
    db.close()
    again.db.close()


def j_fact(n: int) -> object:
    from dealer_station.audit.records import Fact

    return Fact("wager", {"n": n}, "bo/dealer", None)


def test_a_witness_out_of_reach_is_said_once_and_its_return_too(tmp_path: Path) -> None:
    key = create_key(tmp_path / "journal.key", "casino.example/s2")
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    j = Journal(db, key)
    j.append("T1", "wager", {"n": 1}, "ann/dealer")
    j.checkpoint("T1", "sue/supervisor")
    wdir = tmp_path / "W"
    with running_witness(wdir, [j.signer.verifier]) as w:  # type: ignore[union-attr]
        port = w.url.rsplit(":", 1)[1]
        wkey = w.key
    # The witness is down now (its port closed): the table goes on, and says so once.
    pusher = WitnessPusher(j, [WitnessConfig(f"http://127.0.0.1:{port}", wkey)],
                           alert_after_s=0.0, backoff_s=(0.01, 0.05), timeout_s=2)
    pusher.start()
    try:
        wait_until(lambda: bool(list(j.records("T1", kinds=["witness.unreachable"]))),
                   "witness.unreachable in the journal")
        j.append("T1", "wager", {"n": 2}, "ann/dealer")
        j.checkpoint("T1", "sue/supervisor")
        assert len(list(j.records("T1", kinds=["witness.unreachable"]))) == 1
        # Back on the same port: it cosigns what waited, and the journal says so.
        with running_witness(wdir, [j.signer.verifier], port=int(port)):  # type: ignore[union-attr]
            wait_until(lambda: bool(list(j.records("T1", kinds=["witness.restored"]))),
                       "witness.restored in the journal")
            assert pusher.flush(30)
            st = next(iter(pusher.status.values()))
            assert st.state == "ok" and st.cosigned["T1"] >= 4
    finally:
        pusher.stop()
        db.close()
    # The pit raises an alert for it, on any table's records.
    assert "witness.unreachable" in alert_kinds(codec_of("lapaire"))
    assert "witness.unreachable" in alert_kinds(codec_of(None))


def test_a_refusal_is_journaled_once_and_shown_in_words(tmp_path: Path) -> None:
    from dealer_station.events.wording import event_words

    key = create_key(tmp_path / "journal.key", "casino.example/s3")
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    j = Journal(db, key)
    for n in range(5):
        j.append("T1", "wager", {"n": n}, "ann/dealer")
    j.checkpoint("T1", "sue/supervisor")
    # The same station key on a second journal of table T1: another history of one log.
    other = Journal(open_database(f"sqlite:///{tmp_path / 'other.db'}"), key)
    for n in range(9):
        other.append("T1", "wager", {"n": -n}, "eve/dealer")
    other.checkpoint("T1", "eve/supervisor")
    with running_witness(tmp_path / "W", [j.signer.verifier]) as w:  # type: ignore[union-attr]
        first = WitnessPusher(other, [WitnessConfig(w.url, w.key)])
        first.start()
        assert first.flush(30)
        first.stop()
        pusher = WitnessPusher(j, [WitnessConfig(w.url, w.key)])
        pusher.start()
        try:
            assert pusher.flush(30)
            j.append("T1", "wager", {"n": 99}, "ann/dealer")
            j.checkpoint("T1", "sue/supervisor")
            assert pusher.flush(30)
        finally:
            pusher.stop()
    refused = list(j.records("T1", kinds=["witness.refused"]))
    assert len(refused) == 1 and refused[0].payload["status"] == 409
    words = event_words(refused[0])
    assert "REFUSED" in words.what and "disagrees" in words.detail
    db.close()
    other.db.close()


def test_a_refusal_shows_on_the_station_and_in_the_pit(tmp_path: Path, qtbot: object) -> None:
    """The device bar's Witness pill says REFUSED (every screen, the supervisor's too), and the
    pit raises the refusal as an urgent alert in words."""
    from ui_support import make_station, open_window

    from dealer_station.floor.alerts import _record_alert

    station = make_station(tmp_path, simulate=True)
    try:
        j = station.journal
        pusher = WitnessPusher(j, [WitnessConfig("http://127.0.0.1:9", _any_witness_key())])
        station.pusher = pusher
        window = open_window(qtbot, station)
        pill = window.devices_bar.witness_pill
        assert pill.isVisible() and "WAITING" in pill.text()
        status = next(iter(pusher.status.values()))
        pusher._set(status, "refused", "casino.local/T1 at size 9: not consistent")
        qtbot.waitUntil(lambda: "REFUSED" in pill.text())   # type: ignore[attr-defined]
        assert "call the operator" in pill.text()
        assert "disagrees with what the witness already cosigned" in pill.full_text()
        rec = j.append("T1", "witness.refused", {
            "witness": "regulator.example/w1", "url": "http://127.0.0.1:9",
            "origin": "casino.local/T1", "size": 9, "status": 409,
            "reason": "not consistent"}, "station/witness")
        alert = _record_alert("T1", codec_of("lapaire").committed(
            rec.seq, rec.ts, rec.actor, rec.round_no, rec.kind, rec.payload), "lapaire", {})
        assert alert.label == "Witness REFUSED" and alert.severity == 2
        assert "refused the journal at record 9" in alert.what
        window.shutdown()
    finally:
        station.close()


def _any_witness_key() -> object:
    from dealer_station.audit.notes import COSIGNATURE_KEY, Signer

    return Signer.generate("regulator.example/w1", COSIGNATURE_KEY).verifier
