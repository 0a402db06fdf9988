"""``dealer-station monitor``: the game-protection monitor run over a journal's rounds.

It verifies each table's chain first, as every reader does, and refuses a journal that does
not verify (one line on standard error naming the table, the record and what is wrong; exit
2, nothing on standard output). Then it feeds each table's finished rounds, in order, to the
monitor (dealer_station/monitor/, docs/monitor.md) and prints every alert: ``--json`` one JSON
object per alert per line (at least ``rule``, ``table``, ``round_no``, ``seat``, ``dealer``,
``p_value``), else a short listing in words. Exit 0 whether or not there are alerts; 2 for a
journal that does not verify or bad input.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING

from dealer_station.cli.audit import store_options
from dealer_station.cli.report import parse_day
from dealer_station.errors import StationError

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal
    from dealer_station.money import Money
    from dealer_station.monitor import Alert
    from dealer_station.monitor.by_day import TableMonitor


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "monitor", parents=[store_options()],
        help="game protection: test the journal's rounds for a biased shoe or a seat that "
             "knows the card",
        description="Verify the journal, then run the game-protection monitor over each "
                    "table's rounds in order (the shoe: each card's value and colour against "
                    "the deck; card knowledge: each seat's First Card spots against the first "
                    "card; the dealers' win and the table's hold against the wagers dealt; "
                    "each dealer's share of the tray's variances, once a counted gaming day; "
                    "at a Bourré table, its hands: the deal by seat, chip dumping, "
                    "soft play, reneges at one seat) "
                    "and list every alert: where the evidence crossed its threshold, "
                    "who dealt, the statistic and its p-value, and the false-alarm rate it "
                    "was set for ([monitor] in config/station.toml; docs/monitor.md). Exit 0 "
                    "with or without alerts; 2 when the journal does not verify.")
    p.add_argument("--table", help="only this table (default: every table in the journal)")
    p.add_argument("--gaming-day", type=parse_day, metavar="YYYY-MM-DD",
                   help="only the rounds opened in this gaming day ([gaming_day] of "
                        "config/station.toml)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per alert, one per line")
    p.add_argument("--station-config", metavar="FILE",
                   help="the [monitor] and [gaming_day] settings (default "
                        "config/station.toml)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_station.cli.audit import open_store
    from dealer_station.gameconfig import STATION_FILE, config_dir, load_gaming_calendar
    from dealer_station.monitor import load_monitor_settings
    from dealer_station.monitor.by_day import TableMonitor
    from dealer_station.reports.pit_summary import game_tables
    from dealer_station.reports.verification import Verification
    from dealer_station.table.monitor_rounds import monitor_rounds
    from dealer_station.table.monitor_tray import tray_alerts

    station = args.station_config or config_dir() / STATION_FILE
    settings = load_monitor_settings(station)
    calendar = load_gaming_calendar(station)
    since = until = None
    if args.gaming_day is not None:
        span = calendar.day(args.gaming_day)
        since, until = span.start, span.end
    with open_store(args, write=False) as store:
        journal = store.journal
        # The game tables: the chains that record a configuration (the station's users, the
        # floor's and the pits' own chains deal no rounds).
        tables = game_tables(journal)
        if args.table is not None:
            if args.table not in tables:
                raise StationError(f"--table: table {args.table!r} has no records in this "
                                   f"journal (tables: {', '.join(tables) or 'none'})")
            tables = [args.table]
        for table in tables:
            v = Verification(journal, table).result()
            if not v.ok:
                raise StationError(
                    f"the journal of table {table} does not verify (record {v.bad_seq}: "
                    f"{v.problem}); nothing was monitored: `dealer-station audit verify` "
                    f"says more")
        for table in tables:
            monitor = TableMonitor(table, settings, calendar)
            alerts: list[Alert] = []
            version = ""
            for read in monitor_rounds(journal, table, since=since, until=until):
                alerts += monitor.feed(read.round, read.opened_at)
                version = read.config_version
            # The tray rule's looks, each when the count room counted a day's last shift.
            days = (args.gaming_day, args.gaming_day) if args.gaming_day is not None else None
            alerts = sorted(alerts + tray_alerts(journal, table, calendar, settings, days),
                            key=lambda a: a.round_no)
            if args.json:
                for a in alerts:
                    print(json.dumps(a.to_json(), ensure_ascii=False))
            else:
                _listing(table, monitor, alerts, _money(journal, table, version))
    return 0


def _money(journal: Journal, table: str, version: str) -> Money:
    from dealer_station.money import Money

    stored = journal.config(table, version) if version else None
    return Money.of(stored.content if stored is not None else None)


def _listing(table: str, monitor: TableMonitor, alerts: list[Alert], money: Money) -> None:
    rounds = monitor.rounds
    per = f"{monitor.settings.rounds_per_false_alarm:,}"
    unit = getattr(monitor.monitor, "UNIT", "round")   # a pot game's: "hand"
    head = (f"table {table}: {rounds:,} {unit}{'s' if rounds != 1 else ''} monitored "
            f"(at most 1 false alarm per {per} {unit}s across every rule): ")
    print(head + (f"{len(alerts)} alert{'s' if len(alerts) != 1 else ''}" if alerts
                  else "no alert"))
    for a in alerts:
        who = (f"seat {a.seat}, " if a.seat is not None else "") + \
              (f"dealer {a.dealer}" if a.dealer else "no dealer named")
        staked = (f"; it staked {money.text(a.staked)} on those spots" if a.staked else
                  f"; the dealer's shifts' variances total {money.text(a.win)}"
                  if a.rule == "tray" and a.win is not None else "")
        print(f"  {unit} {a.round_no} ({who}): {a.rule_words}.")
        words = a.evidence_words()
        if a.rule == "tray":    # an exact test at each look: its p-value against the look's
            stat = (f"p-value {a.p_value:.2g} below the look's threshold "
                    f"{math.exp(-a.threshold):.2g}.")
        else:
            stat = (f"log-likelihood ratio {a.statistic:.1f} over the threshold "
                    f"{a.threshold:.1f}, p-value {a.p_value:.2g}.")
        print(f"    {words[0].upper()}{words[1:]}{staked}; {stat}")
