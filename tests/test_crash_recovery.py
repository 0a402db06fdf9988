"""Kill -9 a running ``simulate`` at random moments, many times, and prove the journal.

After every kill the next run restores the open round at the stage it had reached. At the end:
the chain verifies, every round re-settles exactly as recorded (so nothing was paid twice), the
meters equal the sums recomputed from the journal, no stage of any round was settled twice, and
every round the killed processes reported as finished is settled in the journal.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from kill_support import kill_after, open_rounds

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key
from dealer_station.table.audit_checks import meter_differences, replay

KILLS = 8


def _simulate(db: str, key: Path, rounds: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "simulate", "--rounds", str(rounds),
         "--seed", str(seed), "--db", db, "--key", str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_kill_minus_nine_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    db_file = tmp_path / "journal.db"
    db = f"sqlite:///{db_file}"
    key = tmp_path / "journal.key"
    rng = random.Random(20261121)
    reported: set[int] = set()
    recovered_stages: list[int] = []
    mid_round = attempt = 0
    # At random moments, counted in records written (not seconds): anywhere from start-up to
    # well into play. Killing goes on past KILLS until at least one kill has left a round
    # open, so that the restart's recovery is always exercised, however the machine is loaded.
    while attempt < KILLS or (mid_round == 0 and attempt < 4 * KILLS):
        proc = _simulate(db, key, 1000, attempt)
        out = kill_after(proc, db_file, "T1", rng.randint(1, 400))
        assert proc.returncode in (-signal.SIGKILL, 0), out
        reported |= {int(n) for n in re.findall(r"^round (\d+):", out, re.MULTILINE)}
        mid_round += open_rounds(db_file, "T1") > 0
        attempt += 1
    assert mid_round, "no kill landed inside a round"
    final = _simulate(db, key, 5, 999)
    out, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    reported |= {int(n) for n in re.findall(r"^round (\d+):", out, re.MULTILINE)}

    journal = Journal(open_database(db, upgrade=False), load_key(key))
    try:
        (result,) = journal.verify("T1")
        assert result.ok, str(result)
        report = replay(journal, "T1")
        assert report.ok, report.differences
        assert meter_differences(journal, "T1", report) == []
        settles = Counter((r.round_no, r.payload["stage"])
                          for r in journal.records("T1", kinds=["stage.settle"]))
        assert settles and max(settles.values()) == 1
        statuses = {r.round_no: r.status for r in journal.recent_rounds("T1", 100000)}
        assert reported, "no run got as far as finishing a round"
        assert all(statuses.get(n) == "settled" for n in reported)
        # Only the last run's leftover can be open, and the final run finished it.
        assert "open" not in statuses.values()
        recovered_stages = [int(r.payload["stage"])
                            for r in journal.records("T1", kinds=["recovery"])]
        assert len(recovered_stages) >= 1
    finally:
        journal.db.close()
