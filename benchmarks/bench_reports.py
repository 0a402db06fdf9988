"""Report benchmark: a shift report over 100,000 La Pair'e rounds.

    .venv/bin/python benchmarks/bench_reports.py [--rounds N] [--keep DIR] [--parts]

The journal is built first (not timed as part of the report): every round is settled by the
real La Pair'e engine from random legal wagers and a shuffled 54-card deck, and written as
exactly the records the live table writes (round.open, wager.place..., betting.close, card and
stage.settle per stage, payout.confirm per stage, round.close with its meters), with the rounds
and meters projections updated in the same transactions. Rounds are appended 25 to a commit
with a clock that moves 40 seconds per round, so 100,000 rounds span about 46 days. One round
in 500 is voided after its first stage by a supervisor, with a reason, and one in 1,000 has a
device fault, as a busy floor would.

Then the shift report is built over the whole period (every page, charts, the journal's
verification) and timed twice; the budget is 5 s. The first time, nothing is remembered:
every record's keyed hash is checked. The next time, the runs of records the first found
intact are remembered (``reports/verified_memo.py``): they are read and confirmed unchanged
rather than hashed again, as a table's reports are day after day. The report's figures are
summed by the verification's ranges as they read (``reports/shift_tally.py``), the exact
theoretical win from the closing meters. ``--parts`` then times its parts one at a time: the
verification summing the figures, the figures from those sums, the figures read again on
their own, and the pages.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from dealer_station.audit.db import open_database
from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Fact, Journal, add_meters, upsert_round
from dealer_station.audit.keys import create_key, load_key
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import LaPaireConfig
from dealer_station.games.lapaire.rules.engine import LaPaireRound
from dealer_station.games.lapaire.table.rounds import (
    GAME,
    meter_deltas,
    returned_stakes,
    round_meters,
    stage_payload,
    wager_payload,
)
from dealer_station.games.lapaire.table.sim import random_wagers

TABLE = "T1"
BATCH = 25
SECONDS_PER_ROUND = 40
BUDGET_SECONDS = 5.0
DEALERS = ("ann/dealer", "bob/dealer", "cat/dealer")
SUPERVISOR = "sue/supervisor"
STATION = "station"


class SteppedClock:
    """The journal's clock for a bulk load: a start time moved on by hand."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def _round(rng: random.Random, config: LaPaireConfig, version: str, dealer: str, n: int,
           void: bool) -> tuple[list[Fact], dict[str, Any]]:
    """One round's facts, settled by the real engine, and its projection update."""
    engine = LaPaireRound(config)
    facts = [Fact("round.open", {"game": GAME, "config_version": version, "dealer": dealer},
                  dealer, n)]
    for w in random_wagers(rng, config):
        p = engine.place(w)
        facts.append(Fact("wager.place", wager_payload(p.wager_id, w), dealer, n))
    deck = LAPAIRE_DECK.shuffled(rng)
    for i in range(3):
        if i == 0:
            engine.close_betting()
            facts.append(Fact("betting.close", {"wagers": len(engine.wagers)}, dealer, n))
        stage = engine.deal(deck[i])
        facts.append(Fact("card", {"n": stage.stage, "card": deck[i].code, "source": "shoe",
                                   "device_seq": n * 3 + i}, "device:shoe:SIMSHOE", n))
        facts.append(Fact("stage.settle", stage_payload(stage), STATION, n))
        if void:
            returned = [i for i, _ in engine.pending()]
            deltas = meter_deltas(engine.results)
            back = returned_stakes(engine)
            facts.append(Fact("device.fault", {"device": "shoe", "kind": "misread",
                                               "detail": "card not recognised", "card": None},
                              "device:shoe:SIMSHOE", n))
            facts.append(Fact("halt", {"reason": "shoe: card not recognised",
                                       "fault": "misread", "remedy": "A supervisor enters "
                                       "the card or voids the round."},
                              "device:shoe:SIMSHOE", n))
            facts.append(Fact("void", {"reason": "misread could not be resolved",
                                       "returned": returned, "halt_seq": None,
                                       "meters": round_meters(engine.results, config),
                                       "returned_stakes": back}, SUPERVISOR, n))
            return facts, {"status": "voided", "deltas": deltas}
        facts.append(Fact("payout.confirm", {"stage": stage.stage,
                                             "total_win": stage.total_win}, dealer, n))
    results = engine.results
    deltas = meter_deltas(results)
    summary = {"cards": [c.code for c in engine.cards], "wagers": len(engine.wagers),
               "wagered": sum(r.wager.amount for r in results),
               "total_win": sum(r.win for r in results),
               "total_lost": sum(r.wager.amount for r in results if not r.won)}
    facts.append(Fact("round.close", {**summary, "meters": round_meters(results, config)},
                      STATION, n))
    return facts, {"status": "settled", "deltas": deltas, "summary": summary}


def build_journal(journal: Journal, clock: SteppedClock, rounds: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    config = load_lapaire_config()
    content = config.to_data()
    version = config_version(canonical_json(content))

    def record_config(conn: Connection) -> None:
        journal.record_config_version(conn, table_id=TABLE, game=GAME, content=content,
                                      created_by=STATION, reason="configuration loaded at "
                                      "start-up", created_at=journal.now())

    journal.append(TABLE, "startup", {"version": "bench", "game": GAME, "table": TABLE},
                   STATION)
    journal.append(TABLE, "config.change", {"version": version, "game": GAME,
                                            "reason": "configuration loaded at start-up",
                                            "changes": {"source": "file"}}, STATION,
                   also=record_config)
    n = 0
    while n < rounds:
        facts: list[Fact] = []
        updates: list[tuple[int, str, dict[str, Any]]] = []
        for _ in range(min(BATCH, rounds - n)):
            n += 1
            dealer = DEALERS[(n // 300) % len(DEALERS)]   # a dealer change every 300 rounds
            f, upd = _round(rng, config, version, dealer, n, void=n % 500 == 250)
            facts += f
            updates.append((n, dealer, upd))
        clock.now += timedelta(seconds=SECONDS_PER_ROUND * len(updates))

        def also(conn: Connection, updates: list[tuple[int, str, dict[str, Any]]] = updates
                 ) -> None:
            for round_no, dealer, upd in updates:
                upsert_round(conn, TABLE, round_no, game=GAME, config_version=version,
                             dealer=dealer)
                # the end and summary come from the round's closing record
                upsert_round(conn, TABLE, round_no, status=upd["status"])
                add_meters(conn, TABLE, upd["deltas"])

        journal.append_many(TABLE, facts, also=also)
    journal.append(TABLE, "shutdown", {"version": "bench"}, STATION)


def timed(label: str, func: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    out = func()
    d = time.perf_counter() - t
    print(f"{label:<44} {d:8.2f} s")
    return out, d


def parts(journal: Journal, where: Path) -> None:
    """The report's parts, one at a time (each alone on the machine)."""
    from dealer_station.reports.shift import gather, render, tally_collector
    from dealer_station.reports.source import Period
    from dealer_station.reports.verification import Verification

    last = journal.last(TABLE)
    assert last is not None

    def verify() -> Verification:
        v = Verification(journal, TABLE, collect=tally_collector(Period(), last.seq))
        v.result()
        return v

    checked, _ = timed("  the verification, summing the figures", verify)
    print(f"    ({checked.method}: {checked.size:,} records, "
          f"{checked.confirmed_unchanged:,} in runs remembered as checked)")
    data, _ = timed("  the figures from its sums (gather)",
                    lambda: gather(journal, TABLE, Period(), ranges=checked))
    timed("  the figures alone, read again (gather)", lambda: gather(journal, TABLE, Period()))
    timed("  the pages (render)", lambda: render(data, where / "parts.pdf", checked))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="build the journal in DIR and keep it (reused when it is there)")
    ap.add_argument("--parts", action="store_true",
                    help="then time the verification, the figures and the pages one at a time")
    args = ap.parse_args(argv)
    from dealer_station.reports.shift import build_shift_report

    with tempfile.TemporaryDirectory() as tmp:
        where = args.keep or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        db_path = where / f"journal-{args.rounds}.db"
        key_path = where / f"journal-{args.rounds}.key"
        fresh = not db_path.exists()
        db = open_database(f"sqlite:///{db_path}")
        key = create_key(key_path) if fresh else load_key(key_path)
        clock = SteppedClock(datetime(2026, 3, 1, 18, 0, tzinfo=UTC))
        journal = Journal(db, key, clock=clock)
        if fresh:
            _, took = timed(f"build journal ({args.rounds:,} rounds)",
                            lambda: build_journal(journal, clock, args.rounds))
        last = journal.last(TABLE)
        assert last is not None
        print(f"journal: {last.seq:,} records for {args.rounds:,} rounds "
              f"({last.seq / args.rounds:.1f} per round)")
        out = where / "shift-report.pdf"
        anchor = journal.anchor_path
        assert anchor is not None
        for memo in anchor.parent.glob(f"{anchor.name}.verified-*.json"):
            memo.unlink()     # the first report remembers nothing: every record is hashed
        first, took_first = timed("shift report, first (every record hashed)",
                                  lambda: build_shift_report(journal, TABLE, out=out))
        report, took = timed("shift report, next (runs remembered as checked)",
                             lambda: build_shift_report(journal, TABLE, out=out))
        assert first.data.rounds_played == report.data.rounds_played
        print(f"  {report.pages} pages, {out.stat().st_size:,} bytes; rounds played "
              f"{report.data.rounds_played:,}")
        if args.parts:
            parts(journal, where)
        db.close()
        for label, t in (("first", took_first), ("next", took)):
            verdict = "within" if t < BUDGET_SECONDS else "OVER"
            print(f"{label}: {verdict} the {BUDGET_SECONDS:.0f} s budget")
        return 0 if took < BUDGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
