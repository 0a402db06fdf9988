"""The audit command: checkpoint, events, and its exit statuses."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.cli.main import main


@pytest.fixture
def store(tmp_path: Path) -> list[str]:
    url = f"sqlite:///{tmp_path / 'journal.db'}"
    key = create_key(tmp_path / "journal.key")
    db = open_database(url)
    clock = [datetime(2026, 3, 1, 18, 0, tzinfo=UTC)]
    j = Journal(db, key, clock=lambda: clock[0])
    for kind in ("startup", "wager", "device.fault", "void", "card", "shutdown"):
        j.append("T1", kind, {"k": kind}, "ann/dealer", round_no=1 if kind == "wager" else None)
        clock[0] += timedelta(hours=1)
    j.append("T2", "startup", {}, "station")
    db.close()
    return ["--db", url, "--key", str(key.path)]


def test_events_lists_significant_events(store: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "events", "--table", "T1", *store]) == 0
    out = capsys.readouterr().out
    assert [line.split()[5] for line in out.splitlines()[:-1]] == [
        "startup", "device.fault", "void", "shutdown"]
    assert out.splitlines()[-1] == "4 event(s)"
    assert main(["audit", "events", "--json", "--since", "2026-03-01T19:30+00:00",
                 "--until", "2026-03-01T21:30+00:00", *store]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["table"], r["seq"], r["kind"]) for r in rows] == [
        ("T1", 3, "device.fault"), ("T1", 4, "void")]
    assert rows[0]["ts"] == "2026-03-01T20:00:00.000000+00:00"
    assert main(["audit", "events", "--json", "--kind", "wager", *store]) == 0
    [wager] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert wager["round"] == 1


def test_bad_time_is_refused(store: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["audit", "events", "--since", "yesterday", *store])
    assert "bad time 'yesterday'" in capsys.readouterr().err


def test_checkpoint_then_verify(store: list[str], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "checkpoint", "--actor", "sue/supervisor", *store]) == 0
    out = capsys.readouterr().out
    assert "table T1: checkpoint at record 7" in out and "table T2: checkpoint at record 2" in out
    anchors = (tmp_path / "journal.anchors").read_text().splitlines()
    assert [line.split()[:2] for line in anchors][-2:] == [["T1", "7"], ["T2", "2"]]
    assert main(["audit", "verify", *store]) == 0
    assert capsys.readouterr().out.count("1 checkpoint(s) confirmed") == 2
    assert main(["audit", "verify", "--table", "T9", *store]) == 2
    assert "no table 'T9' in the journal" in capsys.readouterr().err


def test_verify_without_a_key_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["audit", "verify", "--db", f"sqlite:///{tmp_path / 'j.db'}", "--key",
                   str(tmp_path / "missing.key")])
    assert status == 2
    assert "journal key file" in capsys.readouterr().err
    assert not (tmp_path / "missing.key").exists()
