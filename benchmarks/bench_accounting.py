"""Master game report benchmark: 100 tables over a 30-day month, on SQLite and PostgreSQL.

    .venv/bin/python benchmarks/bench_accounting.py [--tables 100] [--days 30]
        [--rounds 300] [--quick] [--backend sqlite|postgresql|both] [--keep DIR]
        [--by-shift] [--recompute]

Each table's month is journaled as a station would leave it (keyed, chained records): the
configuration, and per gaming day an opener, buy-ins, a fill and a credit, ``--rounds`` La
Pair'e rounds of about seven wagers (open, wagers, three stage settlements, close with its
meters), a closer and the soft count's drop. Records are written in one transaction per table
per shift (a third of the day's rounds in each of the calendar's three shifts), with outcomes
drawn at random (the report reads them; it does not replay them).
``--quick`` plays 20 rounds a gaming day.

The figure is the time to build the master game report's rows for every table and gaming day
(statistical, computed and theoretical win, with month and year to date), every record read
checked against its keyed hash; target under 10 s. Each day's play is read from the
``day.play`` record its closer journaled (as the station does); ``--recompute`` also times
summing every round again. ``--by-shift`` also times the report shift by shift (``report
master-game --by-shift``): each shift's play is read from the same record (version 3 carries
every shift's), and its rows are checked to add up to the days'; with ``--recompute`` too, it
is timed again summing every shift's rounds, and the two are checked to be equal.

``--keep DIR`` (SQLite) builds the journal in DIR and keeps it, reused by the next run with the
same ``--tables``, ``--days`` and ``--rounds`` (building 100 tables x 30 days x 300 rounds takes
far longer than the report: about 11 minutes). A journal kept before ``day.play`` version 3
holds no shift's play: the report by shift sums its rounds there, as ``--recompute`` does.
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from databases import BACKENDS, on_databases
from sqlalchemy import Connection

from dealer_station.accounting.figures import Play
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.db import open_database
from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Fact, Journal, record_config_version
from dealer_station.audit.keys import create_key, load_key
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.house_math import par_sheet
from dealer_station.gaming_day import GamingCalendar
from dealer_station.reports.master_game import gather
from dealer_station.table.accounting import TableAccounting

CAL = GamingCalendar(zone=ZoneInfo("UTC"))
SETTINGS = AccountingSettings()
FIRST_DAY = date(2026, 3, 1)
DEALER = "ann/dealer"
PAIR = ("ann/dealer", "sue/supervisor")


class Clock:
    def __init__(self) -> None:
        self.moment = datetime(2026, 3, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment


def config_facts(table: str) -> tuple[list[Fact], Any, str]:
    content = load_lapaire_config().to_data()
    text = canonical_json(content)
    version = config_version(text)

    def also(conn: Connection) -> None:
        record_config_version(conn, table_id=table, game="lapaire", content=text,
                              created_by="station", reason="benchmark")

    facts = [Fact("config.change", {"changes": {"source": "file"}, "content": content,
                                    "game": "lapaire", "reason": "benchmark",
                                    "version": version}, "station"),
             Fact("startup", {"game": "lapaire", "table": table, "version": "bench"},
                  "station")]
    return facts, also, version


def day_facts(rng: random.Random, day: date, rounds: int, first_round: int, version: str,
              spots: list[tuple[str, tuple[str, ...], int]], tray: int
              ) -> tuple[list[Fact], list[Fact], int]:
    g = day.isoformat()
    out = [Fact("tray.open", {"gaming_day": g, "chips": {"2500": tray // 2500},
                              "total": tray, "signers": list(PAIR)}, "+".join(PAIR))]
    win = 0
    for n in range(first_round, first_round + rounds):
        out.append(Fact("round.open", {"game": "lapaire", "config_version": version,
                                       "dealer": DEALER}, DEALER, n))
        wagers = []
        for wid in range(1, rng.randint(4, 10) + 1):
            bet, values, pays = rng.choice(spots)
            amount = 100 * rng.randint(1, 10)
            wagers.append((wid, bet, amount, pays))
            out.append(Fact("wager.place", {"wager_id": wid, "seat": 1 + wid % 7, "bet": bet,
                                            "values": list(values), "amount": amount},
                            DEALER, n))
        wagered = paid = lost = 0
        for stage in (1, 2, 3):
            results = []
            for wid, bet, amount, pays in wagers[stage - 1::3]:
                won = rng.random() < 1 / (pays + 1.1)
                w = amount * pays if won else 0
                results.append({"wager_id": wid, "seat": 1, "bet": bet, "won": won,
                                "win": w})
                wagered += amount
                paid += w
                lost += 0 if won else amount
            out.append(Fact("stage.settle", {"stage": stage, "card": "2H", "poker": None,
                                             "results": results, "total_win": 0,
                                             "total_lost": 0}, "station", n))
        out.append(Fact("round.close", {"cards": ["2H", "3H", "4H"], "wagers": len(wagers),
                                        "wagered": wagered, "total_win": paid,
                                        "total_lost": lost,
                                        "meters": {"total": {"wagered": wagered, "paid": paid,
                                                             "house_win": lost - paid}}},
                        "station", n))
        win += lost - paid
    fills, credits = 50000, 25000
    drop = 200000
    # The tray takes the stakes lost, pays the wins and gives the chips of the buy-in: no
    # variance, the count room agrees with the station.
    closer = tray + win - drop + fills - credits
    out += [Fact("buyin", {"gaming_day": g, "tender": "cash", "amount": drop,
                           "chips": {"2500": drop // 2500}}, DEALER),
            Fact("fill", {"number": 2 * (day - FIRST_DAY).days + 1, "year": day.year,
                          "gaming_day": g, "chips": {"2500": 20}, "total": fills,
                          "signers": list(PAIR)}, "+".join(PAIR)),
            Fact("credit", {"number": (day - FIRST_DAY).days + 1, "year": day.year,
                            "gaming_day": g, "chips": {"2500": 10}, "total": credits,
                            "signers": list(PAIR)}, "+".join(PAIR)),
            ]
    closing = [Fact("tray.close", {"gaming_day": g, "chips": {"100": closer // 100},
                                   "total": closer, "signers": list(PAIR)},
                    "+".join(PAIR)),
               Fact("drop.count", {"gaming_day": g, "cash": drop, "markers": 0, "total": drop,
                                   "signers": ["amy/accounting", "ben/accounting"]},
                    "amy/accounting+ben/accounting")]
    return out, closing, closer


def book(journal: Journal, table: str) -> TableAccounting:
    return TableAccounting(journal, table, SETTINGS, CAL)


def build(journal: Journal, clock: Clock, tables: int, days: int, rounds: int) -> int:
    rng = random.Random(15)
    sheet = par_sheet(load_lapaire_config())
    spots = [(r.bet, tuple(r.values), int(r.outcomes[0].odds.ratio)) for r in sheet
             if len(r.outcomes) == 1 and r.outcomes[0].odds.ratio.denominator == 1]
    count = 0
    for t in range(1, tables + 1):
        table = f"T{t:03d}"
        facts, also, version = config_facts(table)
        clock.moment = datetime(2026, 2, 28, 12, tzinfo=UTC)
        journal.append_many(table, facts, also=also)
        tray, n = 100_000_000, 1
        for d in range(days):
            day = FIRST_DAY + timedelta(days=d)
            facts, closing, tray = day_facts(rng, day, rounds, n, version, spots, tray)
            n += rounds
            # A third of the day's rounds in each shift of the calendar (one transaction
            # each, four hours into the shift), the fill, credit and buy-in in the last.
            for part, shift in zip(_parts(facts, len(CAL.shifts)), CAL.shifts_of(day),
                                   strict=True):
                clock.moment = shift.start + timedelta(hours=4)
                if part:
                    journal.append_many(table, part)
            # As the station's closer does: the day's settled rounds summed, after the closer.
            played = book(journal, table).day_played(day)
            assert played is not None
            closing.insert(1, Fact(played.KIND, played.to_payload(), "station"))
            journal.append_many(table, closing)
            count += len(facts) + len(closing)
    return count


def _parts(facts: list[Fact], n: int) -> list[list[Fact]]:
    """``facts`` cut into ``n`` parts at rounds' openings, about as many rounds in each."""
    opens = [i for i, f in enumerate(facts) if f.kind == "round.open"]
    cuts = [opens[len(opens) * k // n] for k in range(1, n)] if opens else [len(facts)] * (n - 1)
    bounds = [0, *cuts, len(facts)]
    return [facts[a:b] for a, b in pairwise(bounds)]


def bench(url: str, root: Path, label: str, args: argparse.Namespace) -> None:
    print(f"\n== {label}")
    name = f"accounting-{args.tables}x{args.days}x{args.rounds}"
    kept = args.keep is not None and label == "sqlite"
    if kept:
        args.keep.mkdir(parents=True, exist_ok=True)
        url, root = f"sqlite:///{args.keep / (name + '.db')}", args.keep
    key_path = root / f"{name if kept else label}.key"
    fresh = not key_path.exists()
    db = open_database(url)
    clock = Clock()
    journal = Journal(db, create_key(key_path) if fresh else load_key(key_path), clock=clock)
    if fresh:
        t = time.perf_counter()
        records = build(journal, clock, args.tables, args.days, args.rounds)
        took = time.perf_counter() - t
        print(f"journaled {args.tables} tables x {args.days} gaming days x {args.rounds} "
              f"rounds: {records:,} records in {took:.1f} s")
    else:
        print(f"kept journal {url.removeprefix('sqlite:///')} ({args.tables} tables x "
              f"{args.days} gaming days x {args.rounds} rounds)")
    t = time.perf_counter()
    report = gather(journal, SETTINGS, CAL)
    took = time.perf_counter() - t
    rows = len(report.days)
    print(f"master game report, {rows:,} table-days ({args.tables} tables, whole month): "
          f"{took:.2f} s {'(target < 10 s: met)' if took < 10 else '(target < 10 s: MISSED)'}")
    if args.by_shift:
        by_shift(journal, args)
    if args.recompute:
        t = time.perf_counter()
        again = gather(journal, SETTINGS, CAL, recompute=True)
        took = time.perf_counter() - t
        same = [d.play for d in again.days] == [d.play for d in report.days]
        print(f"  the same, every day summed again from its rounds (--recompute): "
              f"{took:.2f} s; {'equal' if same else 'DIFFERENT'} figures")
    last = date(2026, 3, args.days) if args.days <= 31 else None
    t = time.perf_counter()
    one = gather(journal, SETTINGS, CAL, first=last, last=last)
    print(f"one gaming day for every table (with MTD/YTD): {time.perf_counter() - t:.2f} s "
          f"({len(one.days)} rows)")
    win = sum(d.win or 0 for d in report.days)
    computed = sum(d.play.computed_win for d in report.days)
    theo = sum(d.theoretical_win for d in report.days)
    print(f"figures: statistical win {win:,}, computed win {computed:,}, theoretical win "
          f"{theo:,} (minor units)")
    db.close()


def by_shift(journal: Journal, args: argparse.Namespace) -> None:
    """The report shift by shift (``report master-game --by-shift``): each shift's play read
    from its day's ``day.play`` record; with ``--recompute``, summed again from the rounds."""
    t = time.perf_counter()
    shifts = gather(journal, SETTINGS, CAL, by_shift=True)
    took = time.perf_counter() - t
    print(f"master game report by shift, {len(shifts.shifts):,} table-shifts ({args.tables} "
          f"tables, whole month): {took:.2f} s "
          f"{'(target < 10 s: met)' if took < 10 else '(target < 10 s: MISSED)'}")
    by_day: dict[tuple[str, date], list[Play]] = {}
    for s in shifts.shifts:
        by_day.setdefault((s.table, s.gaming_day), []).append(s.play)
    added = all(_sum(by_day.get((d.table, d.gaming_day), [])) == d.play for d in shifts.days)
    print(f"  every day's shifts add up to the day's play (its day.play record): "
          f"{'yes' if added else 'NO'}")
    if args.recompute:
        t = time.perf_counter()
        again = gather(journal, SETTINGS, CAL, by_shift=True, recompute=True)
        took = time.perf_counter() - t
        same = ([(s.play, s.theoretical_share) for s in again.shifts]
                == [(s.play, s.theoretical_share) for s in shifts.shifts])
        print(f"  the same, every shift summed again from its rounds (--recompute): "
              f"{took:.2f} s; {'equal' if same else 'DIFFERENT'} figures")


def _sum(plays: list[Play]) -> Play:
    out = Play()
    for p in plays:
        out.add(p)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=300, help="rounds per table per gaming day")
    ap.add_argument("--quick", action="store_true", help="20 rounds per gaming day")
    ap.add_argument("--backend", choices=BACKENDS, default="both")
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="build the SQLite journal in DIR and keep it (reused when it is there)")
    ap.add_argument("--recompute", action="store_true",
                    help="also time the report summing every day again from its rounds")
    ap.add_argument("--by-shift", action="store_true",
                    help="also time the report shift by shift (report master-game --by-shift)")
    args = ap.parse_args()
    if args.quick:
        args.rounds = 20
    on_databases(args.backend, lambda url, root, label: bench(url, root, label, args))


if __name__ == "__main__":
    main()
