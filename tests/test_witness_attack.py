"""The casino itself, holding every station key, cannot rewrite what the regulator's witness
has cosigned: run through the command line exactly as the contract gives it.

A table deals with its checkpoints pushed to a witness. The casino then cuts the journal back
to an earlier round, deletes the anchor files, deals a different history with the same keys and
pushes it: the witness refuses it (409), ``audit verify`` with the public keys and the witness
fails and names the first size where the journal and the witness disagree, and the honest copy
of the journal still verifies.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from witness_support import running_witness

from dealer_station.audit.notes import Verifier
from dealer_station.cli.main import main


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture
def keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    key = tmp_path / "keys" / "journal.key"
    assert _cli(capsys, "audit", "new-key", "--key", str(key), "--name",
                "casino.example/pit1-t1")[0] == 0
    pub = tmp_path / "station.pub"
    assert _cli(capsys, "audit", "public-key", "--key", str(key), "--out", str(pub))[0] == 0
    return key, pub


def test_a_rewritten_history_is_refused_and_named(tmp_path: Path, keys: tuple[Path, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    key, pub = keys
    db_file = tmp_path / "journal.db"
    db = f"sqlite:///{db_file}"
    station = Verifier.parse(pub.read_text())
    with running_witness(tmp_path / "W", [station]) as w:
        wkey = str(w.wdir / "witness.pub")
        store = ["--db", db, "--key", str(key)]
        witness = ["--witness", w.url, "--witness-key", wkey]
        code, out = _cli(capsys, "simulate", "--game", "lapaire", "--rounds", "12", "--seed",
                         "1", "--quiet", *store, *witness)
        assert code == 0, out
        assert "witness regulator.example/w1: cosigned table T1 at size" in out
        public = ["audit", "verify", "--db", db, "--public-key", str(pub),
                  "--witness-key", wkey, "--witness", w.url]
        code, out = _cli(capsys, *public)
        assert code == 0, out
        assert "0 record(s) not yet witnessed" in out
        honest = tmp_path / "honest.db"
        shutil.copy(db_file, honest)

        # The casino: back to round 4, anchors gone, a different history dealt and pushed.
        with sqlite3.connect(db_file) as conn:
            cut = conn.execute("SELECT max(seq) FROM journal WHERE table_id='T1' AND "
                               "kind='round.close' AND round_no=4").fetchone()[0]
            for sql in ("DELETE FROM journal WHERE table_id='T1' AND seq > ?",
                        "DELETE FROM signed_checkpoints WHERE table_id='T1' AND size > ?",
                        "DELETE FROM cosignatures WHERE table_id='T1' AND size > ?",
                        "DELETE FROM checkpoints WHERE table_id='T1' AND seq > ?"):
                conn.execute(sql, (cut,))
            conn.execute("DELETE FROM rounds WHERE table_id='T1' AND round_no > 4")
        for f in key.parent.glob("journal.anchors"):
            f.unlink()
        (key.parent / "journal.checkpoints").unlink()
        code, out = _cli(capsys, "simulate", "--game", "lapaire", "--rounds", "12", "--seed",
                         "2", "--quiet", *store, *witness)
        assert code == 1, out
        refusal = [ln for ln in out.splitlines() if "refused" in ln]
        assert refusal and "T1" in refusal[0] and "size" in refusal[0], out
        assert any("refused casino.example/T1" in ln for ln in w.lines), w.lines
        # The witness kept the refused request, and the journal says it was refused.
        assert w.witness.state.refusals("casino.example/T1")
        code, out = _cli(capsys, "audit", "events", "--kind", "witness.refused", *store)
        assert "witness.refused" in out

        code, out = _cli(capsys, *public)
        assert code == 1, out
        failed = [ln for ln in out.splitlines() if "FAILED" in ln]
        assert failed and "first disagree at size" in failed[0], out
        code, out = _cli(capsys, "audit", "verify", "--db", f"sqlite:///{honest}",
                         "--public-key", str(pub), "--witness-key", wkey, "--witness", w.url)
        assert code == 0, out


def test_verify_without_the_key_refuses_bad_input_in_words(
        tmp_path: Path, keys: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    key, pub = keys
    db = f"sqlite:///{tmp_path / 'journal.db'}"
    assert _cli(capsys, "simulate", "--rounds", "2", "--quiet", "--db", db, "--key",
                str(key))[0] == 0
    base = ["audit", "verify", "--db", db, "--public-key", str(pub)]
    for extra, says in ((["--witness", "http://127.0.0.1:9"], "one --witness-key"),
                        (["--witness", "ftp://x", "--witness-key", str(pub)], "witness"),
                        (["--key", str(key)], "without the journal key")):
        code, out = _cli(capsys, *base, *extra)
        assert code == 2 and says in out and "Traceback" not in out, out
    (tmp_path / "bad.pub").write_text("not a key\n")
    code, out = _cli(capsys, "audit", "verify", "--db", db, "--public-key",
                     str(tmp_path / "bad.pub"))
    assert code == 2 and "bad.pub" in out
    # Without a witness: the records and the signed checkpoints, proven with the public key.
    code, out = _cli(capsys, *base)
    assert code == 0 and "signed checkpoint(s) proven" in out, out
    # A witness that cannot be reached is a failure (nothing proven against it), said so.
    wpub = tmp_path / "w.pub"
    from dealer_station.audit.notes import COSIGNATURE_KEY, Signer

    wpub.write_text(Signer.generate("w.example/w", COSIGNATURE_KEY).verifier.vkey())
    code, out = _cli(capsys, *base, "--witness", "http://127.0.0.1:9", "--witness-key",
                     str(wpub))
    assert code == 1 and "FAILED" in out, out
