"""The game-protection monitor's measured power at the default settings: rounds from an
injected anomaly's start to the first alert naming it, over many seeds, and the alerts of
clean runs (docs/monitor.md, "Measured power").

Each run is `simulate` with `--inject` (the issue's contract) on its own SQLite journal, from
round START on; the alerts are those the table journaled live (`monitor.alert`), which are
what `dealer-station monitor` finds again. For each anomaly the alert that names it: the
value at the First Card (the shoe), the seat (card knowledge: its hit test or its stake test),
the simulated dealer (the dealer rule). Runs go two at a time (one per core).

``--bourre`` measures Bourré's instead (docs/monitor.md, "Bourré"): from hand START on, the
pair A>B or the seat (A = 1 + seed mod 5, B = 1 + (seed + 2) mod 5), seeds 1-20; the alert
that names it is its test (``chip-dumping:A>B``, ``soft-play:A>B``, ``reneges:A``); and clean
runs of BOURRE_CLEAN hands, seeds 1-10, in each profile.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

START = 21
ROUNDS = 220
CLEAN_ROUNDS = 1000
#: Bourré: each anomaly's profile and hands per run.
BOURRE_RUNS = {"chip-dumping": ("cash", 400), "soft-play": ("cash", 300),
               "reneges": ("tournament", 150)}
BOURRE_CLEAN = 500
VALUES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK")


def alerts_of(rounds: int, seed: int, inject: tuple[str, ...], game: str = "lapaire",
              profile: str | None = None) -> list[dict[str, Any]]:
    from dealer_station import registry as games
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key
    from dealer_station.events.table import ProtectionAlerted
    from dealer_station.table.parts import SIMULATE
    from dealer_station.ui.protection_page import alert_of

    with tempfile.TemporaryDirectory() as t:
        db = open_database(f"sqlite:///{Path(t) / 'j.db'}")
        journal = Journal(db, create_key(Path(t) / "j.key"))
        extra = {"profile": profile} if profile is not None else {}
        games.game(game).part(SIMULATE)(journal, "T1", rounds, seed=seed, config_path=None,
                                        quiet=True, inject=inject, **extra)
        out = []
        for r in journal.records("T1", kinds=[ProtectionAlerted.KIND]):
            a = alert_of(r)
            out.append({"rule": a.rule, "test": a.test, "round_no": a.round_no,
                        "seat": a.seat, "value": a.evidence.get("value"),
                        "stage": a.evidence.get("stage"), "dealer": a.dealer})
        db.close()
        return out


def first_naming(alerts: list[dict[str, Any]], names: Callable[[dict[str, Any]], bool]
                 ) -> tuple[int | None, list[str]]:
    """The round of the first alert that names the anomaly, and the tests of the alerts
    that named something else."""
    found = next((a["round_no"] for a in alerts if names(a)), None)
    return found, [a["test"].rsplit(":", 1)[0] if a["rule"] == "dealer" else a["test"]
                   for a in alerts if not names(a)]


def run(job: tuple[str, str, int]) -> tuple[str, int | None, list[str]]:
    kind, target, seed = job
    if kind == "biased-shoe":
        alerts = alerts_of(ROUNDS, seed, (f"biased-shoe:{target}@{START}",))
        return kind, *first_naming(alerts, lambda a: a["rule"] == "shoe" and a["stage"] == 1
                                   and a["value"] == target)
    if kind == "card-knowledge":
        alerts = alerts_of(ROUNDS, seed, (f"card-knowledge:{target}@{START}",))
        return kind, *first_naming(alerts, lambda a: a["rule"] == "card-knowledge"
                                   and a["seat"] == int(target))
    if kind == "dealer-pays":
        alerts = alerts_of(ROUNDS, seed, (f"dealer-pays:{target}@{START}",))
        return kind, *first_naming(alerts, lambda a: a["rule"] == "dealer")
    alerts = alerts_of(CLEAN_ROUNDS, seed, ())
    return kind, None, [a["test"] for a in alerts]


def bourre_pair(seed: int) -> tuple[int, int]:
    """The seats A and B of seed ``seed``'s run."""
    return 1 + seed % 5, 1 + (seed + 2) % 5


def run_bourre(job: tuple[str, str, int]) -> tuple[str, int | None, list[str]]:
    kind, profile, seed = job
    if kind == "clean":
        return f"clean {profile}", None, [a["test"] for a in alerts_of(
            BOURRE_CLEAN, seed, (), "bourre", profile)]
    a, b = bourre_pair(seed)
    target = f"{kind}:{a}" if kind == "reneges" else f"{kind}:{a}>{b}"
    hands = BOURRE_RUNS[kind][1]
    alerts = alerts_of(hands, seed, (f"{target}@{START}",), "bourre", profile)
    return kind, *first_naming(alerts, lambda al: al["test"] == target)


def main_bourre(args: argparse.Namespace) -> int:
    kinds = [k for k in args.kinds.split(",") if k]
    jobs = [(k, BOURRE_RUNS[k][0], seed) for k in kinds for seed in range(1, args.seeds + 1)]
    jobs += [("clean", p, seed) for p in ("tournament", "cash")
             for seed in range(1, args.clean + 1)]
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(run_bourre, jobs))
    print("Bourré, default settings" + (
        f"; anomalies from hand {START}, seeds 1-{args.seeds}, A = 1 + seed mod 5, "
        f"B = 1 + (seed + 2) mod 5" if kinds else "") + ":")
    for kind in kinds:
        profile, hands = BOURRE_RUNS[kind]
        found = [r for k, r, _ in results if k == kind]
        hit = sorted(r - START + 1 for r in found if r is not None)
        others = Counter(t for k, _, o in results if k == kind for t in o)
        print(f"  {kind} ({profile}, {hands} hands): detected in {len(hit)} of {len(found)}"
              + (f"; hands to detection min {hit[0]} / median {statistics.median(hit):g} / "
                 f"mean {statistics.mean(hit):.1f} / max {hit[-1]}" if hit else "")
              + "; other alerts: "
              + (", ".join(f"{t} {n}" for t, n in others.most_common()) or "none"))
    for profile in ("tournament", "cash"):
        clean = [o for k, _, o in results if k == f"clean {profile}"]
        print(f"  clean {profile}: {sum(len(o) for o in clean)} alerts in "
              f"{len(clean) * BOURRE_CLEAN:,} hands ({len(clean)} runs of {BOURRE_CLEAN})"
              + (f": {', '.join(t for o in clean for t in o)}" if any(clean) else ""))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=20, help="runs per anomaly")
    ap.add_argument("--clean", type=int, default=10, help="clean runs of 1,000 rounds")
    ap.add_argument("--dealer-pct", default="50", help="dealer-pays PCT")
    ap.add_argument("--bourre", action="store_true", help="Bourré's anomalies instead")
    ap.add_argument("--kinds", default="chip-dumping,soft-play,reneges",
                    help="Bourré's anomalies to measure (with --bourre)")
    args = ap.parse_args()
    if args.bourre:
        return main_bourre(args)
    jobs: list[tuple[str, str, int]] = []
    for i in range(args.seeds):
        jobs.append(("biased-shoe", VALUES[i % len(VALUES)], 101 + i))
        jobs.append(("card-knowledge", str(1 + i % 7), 201 + i))
        jobs.append(("dealer-pays", args.dealer_pct, 401 + i))
    jobs += [("clean", "", 301 + i) for i in range(args.clean)]
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(run, jobs))
    print(f"game-protection monitor, default settings; anomalies from round {START} of "
          f"{ROUNDS}-round runs, {args.seeds} seeds each:")
    for kind in ("biased-shoe", "card-knowledge", "dealer-pays"):
        found = [r for k, r, _ in results if k == kind]
        hit = sorted(r - START + 1 for r in found if r is not None)
        others = Counter(t for k, _, o in results if k == kind for t in o)
        if hit:
            print(f"  {kind}: detected in {len(hit)} of {len(found)} runs; rounds to "
                  f"detection min {hit[0]} / median {statistics.median(hit):g} / mean "
                  f"{statistics.mean(hit):.1f} / max {hit[-1]}; other alerts: "
                  + (", ".join(f"{t} {n}" for t, n in others.most_common()) or "none"))
        else:
            print(f"  {kind}: detected in 0 of {len(found)} runs")
    clean = [o for k, _, o in results if k == "clean"]
    print(f"  clean runs: {sum(len(o) for o in clean)} alerts in "
          f"{len(clean) * CLEAN_ROUNDS:,} rounds ({len(clean)} runs of {CLEAN_ROUNDS:,})"
          + (f": {', '.join(t for o in clean for t in o)}" if any(clean) else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
