"""``dealer-station floor cluster`` (dealer_station/cli/floor.py): a throwaway primary and
streaming standby started, switched over and failed over from the command line, its state
kept in --dir; a table forwards through the multi-host URL it prints, across both; bad input
is one clear line and exit 2."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealer_station import registry as games
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.pgcluster import find_bindir
from dealer_station.cli.main import main
from dealer_station.floor.forwarder import Forwarder
from dealer_station.table.parts import SIMULATE

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder the server's 'postgres' user can pass through (pytest's are private)."""
    if find_bindir() is None:
        pytest.skip("no PostgreSQL server binaries")
    d = Path(tempfile.mkdtemp(prefix="ds-floor-cluster-"))
    d.chmod(0o755)
    yield d
    if (d / "c" / "cluster.json").exists():
        main(["floor", "cluster", "stop", "--dir", str(d / "c")])
    shutil.rmtree(d, ignore_errors=True)


def said(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    out = capsys.readouterr().out
    return dict(re.findall(r"^(primary|standby|url): (.*)$", out, re.M))


def test_floor_cluster_starts_switches_over_fails_over_and_stops(
        place: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = str(place / "c")
    assert main(["floor", "cluster", "start", "--sync", "--dir", d]) == 0
    first = said(capsys)
    assert "synchronous" in first["standby"]
    url = first["url"]
    assert "target_session_attrs=read-write" in url

    key = create_key(tmp_path / "floor.key")
    db = open_database(f"sqlite:///{tmp_path / 'T1.db'}")
    journal = Journal(db, key)

    def deal_and_forward(rounds: int, seed: int) -> None:
        games.game("lapaire").part(SIMULATE)(journal, "T1", rounds, seed=seed,
                                             config_path=None, quiet=True)
        fwd = Forwarder(journal, url, "T1", journal_outages=False)
        try:
            link = fwd.sync(timeout_s=60)
        finally:
            fwd.stop()
        last = journal.last("T1")
        assert last is not None and link.floor_seq == last.seq

    deal_and_forward(3, 1)
    # A switch-over: the standby is the primary, the old primary its standby; same URL.
    assert main(["floor", "cluster", "switchover", "--dir", d]) == 0
    second = said(capsys)
    assert second["primary"] == first["standby"].split(" ")[0]
    assert second["standby"].startswith(first["primary"]) and second["url"] == url
    deal_and_forward(3, 2)
    # A hard failover: the old primary is out, no standby is left.
    assert main(["floor", "cluster", "failover", "--dir", d]) == 0
    third = said(capsys)
    assert third["primary"] == first["primary"] and third["standby"].startswith("none")
    deal_and_forward(3, 3)
    assert main(["audit", "verify", "--db", f"sqlite:///{tmp_path / 'T1.db'}", "--key",
                 str(key.path), "--floor", url]) == 0
    capsys.readouterr()
    db.close()
    # Nothing left to promote: said, exit 2.
    assert main(["floor", "cluster", "failover", "--dir", d]) == 2
    assert "no standby to promote" in capsys.readouterr().err
    assert main(["floor", "cluster", "stop", "--dir", d]) == 0
    assert not (place / "c" / "cluster.json").exists()


def test_floor_cluster_bad_input_is_one_line_and_exit_2(
        place: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["floor", "cluster", "status", "--dir", str(place / "none")], "no cluster kept in"),
        (["floor", "cluster", "stop", "--dir", str(place / "none")], "no cluster kept in"),
        (["floor", "cluster", "start", "--dir", str(place / "c"), "--max-connections", "0"],
         "--max-connections 0"),
    ]
    (place / "file").write_text("x")
    cases.append((["floor", "cluster", "start", "--dir", str(place / "file")], "is a file"))
    for args, says in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["floor", "cluster"]) == 2
