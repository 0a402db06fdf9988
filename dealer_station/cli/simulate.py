"""``dealer-station simulate``: complete rounds through the real table service and journal,
with a simulated shoe (and reader) speaking the wire protocol to the real drivers.

A demo, a load generator and a soak test in one. Run again after a crash and it first
finishes the round the journal left open, exactly where it stopped.

--inject plays an anomaly for the game protection monitor to find (La Pair'e). With
biased-shoe:VALUE@ROUND, from round ROUND on, the shoe's first card is VALUE (A, 2 ... 10, J, Q,
K, JK) one round in three, and otherwise it deals at random. With card-knowledge:SEAT@ROUND, from
round ROUND on, in half the rounds, the player at SEAT (1 to 7) adds a Straight-up on the value
of the first card about to be dealt, besides its usual random wagers. With
dealer-pays:PCT@ROUND, from round ROUND on, in PCT percent of the rounds, the dealer lets a
friend's First Card Red or Black ride on the coming card's colour at the table maximum. With
mispays:DEALER@ROUND (and --gaming-days), from round ROUND on, simulated dealer DEALER (of
--dealers, who take the shifts in turn) pays one winning wager in ten a chip too many: only the
tray, counted at the shift's end, shows it. ROUND is
the table's round number as the journal counts it (rounds of earlier runs into the same journal
included). Give --inject more than once for several (one biased shoe, any seats, one
dealer-pays, one mispays); the same --seed plays the same run.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING

from dealer_station import registry as games
from dealer_station.cli._witness_opts import add_witness_options, report, witness_configs
from dealer_station.cli.audit import open_store, store_options
from dealer_station.table.base import DEFAULT_TABLE
from dealer_station.table.parts import SIMULATE, SIMULATE_DAYS

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("simulate", parents=[store_options()],
                       help="play N complete rounds through the real table service",
                       description=__doc__)
    p.add_argument("--game", choices=games.names(), default=games.names()[0])
    p.add_argument("--rounds", type=int, default=100, metavar="N",
                   help="rounds (La Pair'e) or hands (Bourré) to play (default 100); per "
                        "gaming day with --gaming-days")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seed for repeatable wagers, play and shuffles")
    p.add_argument("--config", metavar="FILE", help="table configuration file")
    p.add_argument("--profile", metavar="NAME",
                   help="the rule profile to play, for a game that has several (Bourré: "
                        "tournament, common, cash; default tournament)")
    p.add_argument("--inject", action="append", default=[], metavar="ANOMALY:ARG@ROUND",
                   help="from the table's round ROUND on, play an anomaly for the game "
                        "protection monitor: biased-shoe:VALUE@ROUND (the first card is VALUE "
                        "one round in three) or card-knowledge:SEAT@ROUND (in half the rounds "
                        "SEAT adds a Straight-up on the first card's value) or "
                        "dealer-pays:PCT@ROUND (in PCT%% of the rounds the dealer lets a friend's "
                        "Red or Black ride on the first card's colour at the maximum) or, "
                        "with --gaming-days, mispays:DEALER@ROUND (simulated dealer DEALER "
                        "of --dealers pays one winning wager in ten a chip too many); "
                        "repeatable; La Pair'e (also with --gaming-days)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.add_argument("--table", default=DEFAULT_TABLE, help=f"table id (default {DEFAULT_TABLE})")
    p.add_argument("--gaming-days", type=int, metavar="D",
                   help="play D whole gaming days of --rounds rounds each, with the table's "
                        "accounting: opener, buy-ins to the drop, fills and credits, closer "
                        "and the soft count's drop, on a simulated clock (banked games)")
    p.add_argument("--mispay-rate", type=float, default=0.0, metavar="R",
                   help="with --gaming-days: the dealer mispays this fraction of winning "
                        "wagers by one chip too many or too few, unseen by the station. The "
                        "summary prints 'mispaid N' in the table's money: positive when the "
                        "dealer paid out more than the station settled (the tray is short), "
                        "so the days' variance (statistical - computed win) sums to -N")
    p.add_argument("--dealers", type=int, default=1, metavar="N",
                   help="with --gaming-days: N simulated dealers (1 to 9, default 1) take the "
                        "day's shifts in turn, each a shift later the next day")
    add_witness_options(p)
    p.add_argument("--floor", metavar="URL",
                   help="forward the table's journal to this floor database while playing, "
                        "as the station does (the floor being down never stops play)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError

    if args.rounds < 1:
        raise StationError(f"--rounds must be at least 1, got {args.rounds}")
    if args.gaming_days is not None and args.gaming_days < 1:
        raise StationError(f"--gaming-days must be at least 1, got {args.gaming_days}")
    if args.gaming_days is None and args.mispay_rate:
        raise StationError("--mispay-rate needs --gaming-days (mispays show in the tray)")
    if args.gaming_days is None and args.dealers != 1:
        raise StationError("--dealers needs --gaming-days (the dealers take the shifts in "
                           "turn)")
    if not 0 <= args.mispay_rate <= 1:
        raise StationError(f"--mispay-rate must be from 0 to 1, got {args.mispay_rate}")
    _refuse_memory_database(args.db or os.environ.get("DEALER_STATION_DB"))
    with open_store(args) as store:
        return _simulate(args, store.journal)


def _refuse_memory_database(url: str | None) -> None:
    """An in-memory SQLite journal cannot be simulated into: the simulated devices journal
    from their own threads, each of which would see a new, empty database, and whatever was
    written would vanish when the command ends."""
    from dealer_station.errors import StationError

    if not url:
        return
    from sqlalchemy import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError:
        return  # open_store reports a URL it cannot read
    if parsed.get_backend_name() != "sqlite":
        return
    database = parsed.database or ""
    if database in ("", ":memory:") or parsed.query.get("mode") == "memory" \
            or database.startswith("file::memory:"):
        raise StationError(f"--db {url}: an in-memory SQLite database cannot hold a "
                           f"simulation (the simulated devices write from their own threads, "
                           f"and it would vanish when the command ends); give a file, e.g. "
                           f"--db sqlite:////tmp/journal.db")


def _simulate(args: argparse.Namespace, journal: Journal) -> int:
    from dealer_station.errors import StationError
    from dealer_station.floor.forwarder import FloorUnreachable, Forwarder
    from dealer_station.floor.receiver import ChainRefused

    table = args.table
    game = games.game(args.game)
    simulate = game.part(SIMULATE)
    whole_days = game.supplies(SIMULATE_DAYS) if args.gaming_days is not None else None
    if args.gaming_days is not None and whole_days is None:
        raise StationError(f"--gaming-days simulates a banked table's chip tray; {game.label} "
                           f"has none (its card room keeps its own accounting)")
    forwarder = Forwarder(journal, args.floor, table) if args.floor else None
    if forwarder is not None:
        forwarder.start()
    pusher = None
    if args.witness or args.witness_key:
        from dealer_station.floor.witness_push import WitnessPusher

        if journal.signer is None:
            raise StationError("--witness: the journal key has no signing key beside it")
        pusher = WitnessPusher(journal, witness_configs(args.witness, args.witness_key))
        pusher.start()
    start = time.perf_counter()
    days_note = ""
    try:
        if whole_days is not None:
            if args.profile:
                raise StationError("--profile and --gaming-days do not go together: whole "
                                   "gaming days are played with the table's accounting, for a "
                                   "banked game")
            days = whole_days(
                journal, table, args.rounds, days=args.gaming_days,
                mispay_rate=args.mispay_rate, seed=args.seed, config_path=args.config,
                quiet=args.quiet, inject=tuple(args.inject), dealers=args.dealers)
            played = days.rounds
            days_note = (f", {days.days} gaming day{'s' if days.days != 1 else ''} "
                         f"{days.first_day} to {days.last_day}, "
                         f"mispaid {days.mispaid_text()}")
        else:
            played = simulate(journal, table, args.rounds, seed=args.seed,
                              config_path=args.config, quiet=args.quiet, profile=args.profile,
                              inject=tuple(args.inject))
    finally:
        if forwarder is not None:
            forwarder.stop()
    witnessed = True
    if pusher is not None:
        # The last records are anchored and signed, and every checkpoint pushed, before the
        # command ends.
        journal.anchor_written()
        pusher.flush(timeout=60)
        pusher.stop()
        witnessed = report(pusher)
    took = time.perf_counter() - start
    unit = game.units
    print(f"simulated {played} {unit} at table {table} in {took:.1f} s "
          f"({played / took if took else 0:.0f} {unit}/s){days_note}; journal: "
          f"{journal.db.url}")
    if forwarder is None:
        return 0 if witnessed else 1
    # What the running forwarder had not sent yet goes now; a floor that is down keeps it
    # waiting here, for the next run or `floor sync`.
    try:
        link = Forwarder(journal, args.floor, table).sync(timeout_s=30)
        print(f"floor: holds all {link.floor_seq} records of table {table}")
    except FloorUnreachable as e:
        print(f"floor: offline ({e}); the records wait in {journal.db.url} for "
              f"`dealer-station floor sync`")
    except ChainRefused as e:
        print(f"floor: refused table {table}'s journal: {e.reason}")
        return 1
    return 0 if witnessed else 1
