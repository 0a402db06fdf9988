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
import time
from collections import Counter
from pathlib import Path

import pytest

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key
from dealer_station.table.audit_checks import meter_differences, replay

KILLS = 12


def _simulate(db: str, key: Path, rounds: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "simulate", "--rounds", str(rounds),
         "--seed", str(seed), "--db", db, "--key", str(key)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_kill_minus_nine_at_random_moments_loses_and_doubles_nothing(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'journal.db'}"
    key = tmp_path / "journal.key"
    rng = random.Random(20261121)
    reported: set[int] = set()
    recovered_stages: list[int] = []
    for attempt in range(KILLS):
        proc = _simulate(db, key, 1000, attempt)
        # Start-up takes about half a second; kill anywhere from before the first round to
        # well into play.
        time.sleep(rng.uniform(0.2, 2.0))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        reported |= {int(n) for n in re.findall(r"^round (\d+):", out, re.MULTILINE)}
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
