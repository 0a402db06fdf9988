"""The tray rule's measured power at the default settings (docs/monitor.md, "Each dealer's
share of the tray's variances"): gaming days from a mispaying dealer's first shift to the
tray alert naming them, over many seeds, and the alerts of clean runs.

Each run is `simulate --gaming-days --dealers 3` (the table's accounting on a simulated clock:
every shift's tray counted, every drop counted by the count room) on its own SQLite journal,
a gaming day at a time until the alert or DAYS days; the alerts are those the count room
journaled live (`monitor.alert`, rule `tray`), which `dealer-station monitor` finds again.
The mispaying dealer (`--inject mispays:D@1`, D = 1 + seed mod 3) pays one winning wager in
ten a chip too many. With `--base R` every dealer also mispays R of the winning wagers a chip
either way (honest mistakes), so that every tray is out a little. Runs go two at a time.

    python benchmarks/bench_monitor_tray.py [--seeds 20] [--rounds 100] [--days 20]
                                            [--base 0 0.02] [--clean 10]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any


def run(seed: int, rounds: int, days: int, base: float, inject: bool) -> dict[str, Any]:
    """Days until the tray alert (None: none within ``days``) and every tray alert raised."""
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key
    from dealer_station.events.table import ProtectionAlerted
    from dealer_station.games.lapaire.table.days import sim_dealer_id, simulate_days
    from dealer_station.ui.protection_page import alert_of

    dealer = 1 + seed % 3
    specs = (f"mispays:{dealer}@1",) if inject else ()
    found: int | None = None
    alerts: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as t:
        db = open_database(f"sqlite:///{Path(t) / 'j.db'}")
        journal = Journal(db, create_key(Path(t) / "j.key"))
        for day in range(1, days + 1):
            # Each day its own seed (a run continues the journal, as the next day's would).
            simulate_days(journal, "T1", rounds, days=1, mispay_rate=base,
                          seed=seed * 1000 + day, quiet=True, inject=specs, dealers=3)
            alerts = [{"dealer": a.dealer, "round_no": a.round_no,
                       "day": a.evidence.get("last_day"), "p_value": a.p_value}
                      for a in map(alert_of, journal.records(
                          "T1", kinds=[ProtectionAlerted.KIND])) if a.rule == "tray"]
            named = [a for a in alerts if a["dealer"] == f"{sim_dealer_id(dealer)}/dealer"]
            if inject and named and found is None:
                found = day
                break
        db.close()
    return {"seed": seed, "days": found, "alerts": alerts,
            "dealer": f"{sim_dealer_id(dealer)}/dealer"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=100, help="rounds a gaming day")
    ap.add_argument("--days", type=int, default=20, help="gaming days a run at most")
    ap.add_argument("--base", type=float, nargs="+", default=[0.0, 0.02])
    ap.add_argument("--clean", type=int, default=10, help="clean runs (each --days days)")
    args = ap.parse_args()
    with ProcessPoolExecutor(2) as pool:
        for base in args.base:
            runs = list(pool.map(run, range(1, args.seeds + 1), [args.rounds] * args.seeds,
                                 [args.days] * args.seeds, [base] * args.seeds,
                                 [True] * args.seeds))
            days = [r["days"] for r in runs if r["days"] is not None]
            wrong = sum(1 for r in runs for a in r["alerts"] if a["dealer"] != r["dealer"])
            print(f"mispays:D@1, base rate {base}: detected {len(days)} of {len(runs)} within "
                  f"{args.days} days of {args.rounds} rounds; days to detection min / median / "
                  f"mean / max: {min(days, default=0)} / {statistics.median(days) if days else 0}"
                  f" / {statistics.mean(days) if days else 0:.1f} / {max(days, default=0)}; "
                  f"alerts naming another dealer: {wrong}", flush=True)
        for base in args.base:
            clean = list(pool.map(run, range(101, 101 + args.clean),
                                  [args.rounds] * args.clean, [args.days] * args.clean,
                                  [base] * args.clean, [False] * args.clean))
            n = sum(len(r["alerts"]) for r in clean)
            print(f"clean, base rate {base}: {n} tray alerts in {args.clean} runs of "
                  f"{args.days} days ({args.clean * args.days * args.rounds:,} rounds)",
                  flush=True)


if __name__ == "__main__":
    main()
