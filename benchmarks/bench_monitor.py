"""The game-protection monitor's cost per committed record: what the live table spends on it
after each commit, and what `dealer-station monitor` spends per record of a journal.

A La Pair'e journal of ROUNDS simulated rounds (7 seats' random wagers, with a biased shoe and
a seat that knows the card, so that alerts are raised too) is read back as the committed
events the live table hands its monitor; the live monitor (table/protection.py) is timed over
them, per record and per round (its work is at a round's close), and the journal's reading
for `dealer-station monitor` is timed per record. The card-to-screen p99 with and without
the monitor is `bench_ui.py` and `bench_ui.py --no-monitor`, run in the same hour.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from dealer_station import registry as games
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.events.parts import EVENTS
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.by_day import TableMonitor
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.table.monitor_rounds import monitor_rounds
from dealer_station.table.parts import SIMULATE
from dealer_station.table.protection import Protection

ROUNDS = 1000
RUNS = 5
INJECT = ("biased-shoe:7@200", "card-knowledge:3@500")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--runs", type=int, default=RUNS)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        db = open_database(f"sqlite:///{tmp / 'j.db'}")
        journal = Journal(db, create_key(tmp / "j.key"))
        games.game("lapaire").part(SIMULATE)(journal, "T1", args.rounds, seed=3,
                                             config_path=None, quiet=True, inject=INJECT)
        codec = games.game("lapaire").part(EVENTS)()
        records = list(journal.records("T1"))
        done = [codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind, r.payload)
                for r in records]
        live: list[float] = []
        offline: list[float] = []
        alerts = 0
        for _ in range(args.runs):
            p = Protection("T1", MonitorSettings(), GamingCalendar())
            start = time.perf_counter()
            # As the table hands them over: each commit's events (a round's close is one).
            alerts = sum(len(p.saw((c,))) for c in done)
            live.append(time.perf_counter() - start)
            m = TableMonitor("T1", MonitorSettings(), GamingCalendar())
            start = time.perf_counter()
            for read in monitor_rounds(journal, "T1"):
                m.feed(read.round, read.opened_at)
            offline.append(time.perf_counter() - start)
        db.close()
    n, rounds = len(done), args.rounds
    best, med = min(live), statistics.median(live)
    print(f"game-protection monitor over {rounds:,} La Pair'e rounds ({n:,} records, "
          f"{alerts} alerts; {args.runs} runs):")
    print(f"  live, per committed record: median {med / n * 1e6:.1f} us (best "
          f"{best / n * 1e6:.1f} us); per round (the work is at its close): median "
          f"{med / rounds * 1e3:.3f} ms")
    print(f"  `dealer-station monitor`, reading the journal and testing: median "
          f"{statistics.median(offline) / n * 1e6:.1f} us a record "
          f"({statistics.median(offline):.2f} s for the journal)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
