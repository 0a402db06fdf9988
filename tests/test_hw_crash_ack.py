"""Kill -9 the station between a card's frame and its commit, many times, and count the cards.

A real ``dealer-station emulate shoe`` deals as fast as it is acknowledged on a real
pseudo-terminal. A real ``dealer-station run --shoe LINK`` (the station a table runs, its window
offscreen) takes the cards into its journal; it is killed with SIGKILL at random moments and
started again against the same emulator, which keeps the frame it was not acknowledged and
sends it again after the new station's QUERY. At the end, from the journal: every card the
emulator had acknowledged is journaled exactly once (none lost, none doubled), nothing else
is, and ``audit verify`` passes.

Nobody signs in at these stations, so, as the station's rule is, the first card stops the
round (read while nobody was signed in) and every card is held: journaled with its frame's
seq and acknowledged, never dealt (once the shoe's cards come round again, the driver reports
each as a card already dealt this round, a fault journaled with the card and its seq). What
is counted is the same in every case: each card's record that carries the frame's
``device_seq``.
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
from hw_support import ROOT, Output, drain, start_emulator
from waiting import wait_until

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key

KILLS = 8
ACKED = re.compile(r"acknowledged card (\S+) seq (\d+)")
SEQ_MODULO = 10000


def unwrapped(frames: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The device's seq counts 0..9999 and wraps; a fast machine deals past it in this test.
    Numbers each frame by its position in the device's whole stream instead (a seq that
    falls by more than half the range started a new lap), so that the same seq in two laps
    is two frames, and a frame taken twice is still the same one."""
    out, lap, last = [], 0, None
    for seq, card in frames:
        if last is not None and seq < last - SEQ_MODULO // 2:
            lap += 1
        last = seq
        out.append((lap * SEQ_MODULO + seq, card))
    return out


class _Acked:
    """Cards the emulator has seen acknowledged so far, counted line by line as its output
    grows (asked every millisecond: reading the whole output again each time cost a good part
    of a core once it had grown)."""

    def __init__(self, output: list[str]) -> None:
        self.output, self.read, self.count = output, 0, 0

    def __call__(self) -> int:
        upto = len(self.output)          # the output's lines are whole, appended at its end
        self.count += sum(len(ACKED.findall(line)) for line in self.output[self.read:upto])
        self.read = upto
        return self.count


def _station(link: Path, db: str, key: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "run", "--shoe", str(link), "--baud", "115200",
         "--db", db, "--key", str(key), "--devices", os.devnull, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
        # PYTHONFAULTHANDLER: a station that does not end when it should is aborted and says
        # where every thread was.
        env={**os.environ, "PYTHONUNBUFFERED": "1", "QT_QPA_PLATFORM": "offscreen",
             "PYTHONFAULTHANDLER": "1"})


def _wait_ready(proc: subprocess.Popen[str], timeout: float = 120.0) -> Output:
    # A guard against a station that never starts, not a measure of its start: under the
    # suite's load one took over 30 s (its recovery, Qt and the journal's reads).
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.startswith("station ready"):
            lines = drain(proc)      # still growing as the station speaks
            lines[0:0] = seen
            return lines
    proc.kill()
    raise AssertionError("the station did not start:\n" + "".join(seen))


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_sigkill_between_frame_and_commit_loses_and_doubles_no_card(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'journal.db'}"
    key = tmp_path / "journal.key"
    link = tmp_path / "shoe"
    rng = random.Random(20261122)
    emulator = start_emulator("shoe", "--seed", "11", "--interval", "0", "--link", str(link),
                              "--baud", "115200", "--heartbeat", "0.2", "--no-input",
                              "--first-seq", "9990")   # the seq wraps during the test
    output = drain(emulator)
    acked_so_far = _Acked(output)
    # A table's journal gets its first operator before the station's first start.
    subprocess.run([sys.executable, "-m", "dealer_station", "users", "add", "olga", "--name",
                    "Olga", "--role", "operator", "--pin-stdin", "--db", db, "--key", str(key)],
                   input="2468\n2468\n", capture_output=True, text=True, cwd=ROOT, check=True)
    stations: list[subprocess.Popen[str]] = []
    try:
        for _ in range(KILLS):
            station = _station(link, db, key)
            stations.append(station)
            _wait_ready(station)
            # Cards stream in; kill mid-stream, after a random number of them (counted,
            # not timed: a loaded machine only takes longer).
            target = acked_so_far() + rng.randint(3, 8)
            wait_until(lambda t=target: acked_so_far() >= t, f"{target} cards acknowledged",
                       poll=0.001)
            station.send_signal(signal.SIGKILL)
            station.wait(10)
            assert station.returncode == -signal.SIGKILL
        final = _station(link, db, key, "--exit-after", "1.5")
        stations.append(final)
        said = _wait_ready(final)
        try:
            final.wait(60)
        except subprocess.TimeoutExpired:
            final.send_signal(signal.SIGABRT)
            final.wait(10)
            said.ended.wait(10)     # the rest of what it said, up to its end
        assert final.returncode == 0, "".join(said)
    finally:
        # Nothing outlives the test, whatever failed: a station left running, or an emulator
        # dealing flat out (--interval 0), would load the machine for every later test.
        for proc in stations:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        emulator.send_signal(signal.SIGINT)
        try:
            emulator.wait(10)
        except subprocess.TimeoutExpired:
            emulator.kill()
            emulator.wait(10)

    acked = unwrapped([(int(seq), code) for code, seq in ACKED.findall("".join(output))])
    assert len(acked) > 3 * KILLS, f"too few cards went through: {len(acked)}"
    assert acked[-1][0] >= SEQ_MODULO, "the device's seq did not wrap: deal more"
    journal = Journal(open_database(db, upgrade=False), load_key(key))
    try:
        journaled = unwrapped([(r.payload["device_seq"], r.payload["card"])
                               for r in journal.records("T1", kinds=["card", "card.held",
                                                                     "device.fault"])
                               if "device_seq" in r.payload and r.payload.get("card")])
        counts = Counter(journaled)
        doubled = sorted(c for c, n in counts.items() if n > 1)
        lost = sorted(set(acked) - set(counts))
        unacked = sorted(set(counts) - set(acked))
        held = [(r.seq, r.kind, r.payload) for r in journal.records(
            "T1", kinds=["halt", "card.held", "device.fault"])]
        lost_seqs = {seq % SEQ_MODULO for seq, _ in lost}
        lost_records = [(r.seq, r.kind, r.payload) for r in journal.records("T1")
                        if r.payload.get("device_seq") in lost_seqs]
        assert (lost, doubled) == ([], []), (f"lost {len(lost)} {lost[:10]}, doubled "
                                             f"{doubled}; halts, faults: {held[:5]}; the "
                                             f"lost seqs' records: {lost_records[:5]}")
        assert unacked == [], f"journaled but never acknowledged: {unacked}"
        # Every stop is for a card read while nobody was signed in (at most one a start: no
        # round is open, and a stop outside a round is not carried over a restart; the next
        # unattended card stops the table again); no card was dealt.
        halts = [h.payload["fault"] for h in journal.records("T1", kinds=["halt"])]
        assert set(halts) == {"unattended_card"} and len(halts) <= KILLS + 1, halts
        assert list(journal.records("T1", kinds=["card"])) == []
        resumed = [r for r in journal.records("T1", kinds=["device.identified"])
                   if "resumed_after" in r.payload]
        assert len(resumed) >= KILLS       # every restart resumed after the journaled seq
        (result,) = journal.verify("T1")
        assert result.ok, str(result)
    finally:
        journal.db.close()
    verify = subprocess.run(
        [sys.executable, "-m", "dealer_station", "audit", "verify", "--db", db, "--key",
         str(key)], capture_output=True, text=True, cwd=ROOT)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    print(f"{KILLS} kills: {len(acked)} cards acknowledged, {len(journaled)} journaled, "
          f"0 lost, 0 doubled")
