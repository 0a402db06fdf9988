"""Floor forwarding: 100 tables, each with its own SQLite journal and its own forwarder, on one
PostgreSQL floor database.

    .venv/bin/python benchmarks/bench_floor.py [--quick] [--tables N] [--procs N] [--live S]
                                               [--outage S] [--backlog ROUNDS] [--poll S]

Every table has a local SQLite journal (WAL, synchronous=FULL) in a temporary folder and a
:class:`~dealer_station.floor.forwarder.Forwarder` in a thread of its own, with its default
settings (poll 0.1 s, heartbeat 5 s, backoff 0.25 s to 2 s, batches of 500, ``floor.lost`` and
``floor.restored`` journaled), woken by each local commit through the journal's ``on_commit``
as at a station. The tables are spread over 4 processes (a Python process runs one thread at a
time: 100 stations in one would measure that lock rather than forwarding). The floor is a
throwaway PostgreSQL cluster with fsync, synchronous_commit and full_page_writes on and
max_connections 300. All tables share one journal key. The 100 stations, their forwarders and
the floor server share this machine's cores, so the figures are pessimistic for a real floor,
where each table is a computer of its own; the load average is printed before and after. (The
100 forwarders' polls alone, two SQLite reads every 0.1 s each, take most of a core here:
``--poll 1`` shows the lag without most of that.)

A La Pair'e round here is 20 records of the station's shapes and sizes, each its own durable
commit, spread over 18 s as a dealer takes them: round.open, 12 wager.place (0.6 s apart),
then card and payout.confirm three times (1.5 s apart), and round.close (with meters, so the
floor's rounds and meters projections do their work). The measures, in order, on the same
tables:

1. **Accelerated**: each table first writes a backlog of whole rounds (200 rounds, 4,000
   records, one commit a round) with no forwarder running; then the 100 forwarders start at
   once. Sustained throughput: the records the floor committed between the commits that
   brought 10% and 90% of the backlog to it, per second (the forwarders' start, when each
   opens the floor and compares its copy, and the last tables' tails left out; the rate from
   the start is shown too).
2. **Live pace**: one round per table every 20 s, the tables' first rounds staggered evenly
   over 20 s, for 90 s. For each record: the floor's commit time (``on_forwarded``, taken
   right after the floor's commit) minus the record's ``ts`` (the local commit's time, taken
   as it is written).
   Target: p99 under 1 s. The dealers' own lateness against their schedule is shown, to show
   the load was offered on time.
3. **Catch-up**: 3 s later, the tables dealing on at live pace, the floor server is stopped
   hard (``pg_ctl stop -m immediate``) for 60 s and started again on the same port with the
   same data. Measured: from ``pg_ctl start`` returning (the server accepts connections again)
   until every table's floor head reaches the table's local head as it was then (the outage's
   records and its ``floor.lost``). Target: under 10 s. The tables then deal on for 20 s,
   stop, and once the floor has caught up every table's floor copy must end at the local
   head's seq and hash and hold as many records (nothing lost, nothing twice).
4. **Floor verification**: every table's chain on the floor walked with the key
   (``Journal.verify_table``: each record's keyed hash and link), in one process and in a pool
   of one process per core over the tables; records per second. Each chain must verify to its
   table's local head.

**The thousand tables** (issue 26): ``--tables 1000 --procs 4 --mux --standby --period 18
--live 300 --outage 60 --backlog 1``. ``--mux``: each process forwards its tables through one
:class:`~dealer_station.floor.multiplex.ForwarderHost` (one floor connection and one thread
per process, woken by the tables' commits, the records of up to 100 tables in one floor
transaction) instead of a thread and a connection per table. ``--standby``: the floor is a
primary with a synchronous streaming standby (``PgPair``); the outage is the primary's
(stopped hard and started again; the standby streams from it again) and the catch-up target
is 30 s. ``--period 18``: 200 rounds an hour per table (1,111 records/s offered at 1,000
tables). The journals are copies of one empty journal at the newest schema. During the live
window the pit's grid is read every 15 s as the pit reads it (``table_statuses``, the server
line, the lost list; target under 1 s), and once more after the tables stop.

``--quick`` (or DEALER_STATION_BENCH_QUICK=1) runs a smoke version: 10 tables in 2 processes,
short phases. Exits 1 when a target is missed, a forwarder thread dies, or a floor copy is not
exactly its table's journal.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import multiprocessing
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from dealer_station.audit import schema
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Fact, Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.audit.pgcluster import MISSING_MESSAGE, PgCluster, PgPair, find_bindir
from dealer_station.floor.central import lost_adoptions
from dealer_station.floor.forwarder import Forwarder
from dealer_station.floor.multiplex import ForwarderHost
from dealer_station.floor.server import read_server, server_words
from dealer_station.floor.status import table_statuses

J = schema.journal
FT = schema.floor_tables

LAG_TARGET_S = 1.0          # p99, local commit to floor commit, at live pace
CATCH_UP_TARGET_S = 10.0    # the server back -> every table's floor head at its local head
ROUND_PERIOD_S = 20.0
GRID_TARGET_S = 1.0         # the pit's grid read at the thousand tables
POLL_S = 0.1                # Forwarder's default poll_s
DRAIN_S = 3.0               # between the live-pace window and the outage
MAX_CONNECTIONS = 300

CONFIG_VERSION = "3c0f" + "9a1b" * 15
CARDS = ["KH", "7S", "QD", "2C", "JK", "9H", "AS", "5D", "10C", "8H", "3S", "6D"]
BETS = [("first_card", ["K"]), ("first_card", ["7"]), ("red_black", ["red"]),
        ("any_paire", []), ("poker", ["flush"]), ("high_low", ["high"])]
ACTOR = "ann/dealer"
SHOE = "device:shoe:SN-20417"


@dataclass(frozen=True)
class Settings:
    tables: int
    backlog_rounds: int       # per table, for the accelerated measure
    live_s: float             # the live-pace measure
    outage_s: float
    after_s: float            # live pace after the floor is back, before the final checks
    workers: int              # threads playing the tables' dealers, in all
    procs: int                # processes the tables are spread over
    poll_s: float = POLL_S    # the forwarders' poll (their default)
    mux: bool = False         # one ForwarderHost (one floor connection) per process
    standby: bool = False     # a primary and a synchronous streaming standby (PgPair)
    period_s: float = 20.0    # a round per table every period_s


FULL = Settings(tables=100, backlog_rounds=200, live_s=90.0, outage_s=60.0, after_s=20.0,
                workers=12, procs=4)
QUICK = Settings(tables=10, backlog_rounds=20, live_s=25.0, outage_s=10.0, after_s=5.0,
                 workers=4, procs=2)


# --- the rounds ----------------------------------------------------------------------------

def round_steps(rng: random.Random) -> list[tuple[float, str, str]]:
    """(offset in the round in seconds, kind, actor) of a round's 20 records."""
    steps = [(0.0, "round.open", ACTOR)]
    steps += [(0.6 * k + rng.uniform(-0.2, 0.2), "wager.place", ACTOR) for k in range(1, 13)]
    for stage in range(3):
        steps.append((9.0 + 3 * stage, "card", SHOE))
        steps.append((10.5 + 3 * stage, "payout.confirm", ACTOR))
    steps.append((18.0, "round.close", ACTOR))
    return steps


def payload(kind: str, i: int, round_no: int) -> dict[str, Any]:
    """The payload of a round's record ``i`` (0 to 19), of the station's shapes and sizes."""
    if kind == "round.open":
        return {"game": "lapaire", "config_version": CONFIG_VERSION, "dealer": "ann"}
    if kind == "wager.place":
        bet, values = BETS[(i + round_no) % len(BETS)]
        return {"wager_id": i, "seat": 1 + (i - 1) % 7, "bet": bet, "values": values,
                "amount": 100 * (1 + (i * 7 + round_no) % 50)}
    if kind == "card":
        n = (i - 13) // 2 + 1
        return {"n": n, "card": CARDS[(round_no * 3 + n) % len(CARDS)], "source": "device",
                "device_seq": round_no * 3 + n}
    if kind == "payout.confirm":
        return {"stage": (i - 14) // 2 + 1, "total_win": 5500 if i == 14 else 0}
    wagered = sum(100 * (1 + (k * 7 + round_no) % 50) for k in range(1, 13))
    return {"cards": [CARDS[(round_no * 3 + n) % len(CARDS)] for n in (1, 2, 3)],
            "wagers": 12, "wagered": wagered, "total_win": 5500, "total_lost": wagered - 500,
            "meters": {"total": {"wagered": wagered, "paid": 5500, "house_win": wagered - 5500},
                       "first_card": {"wagered": 1500, "paid": 5500, "house_win": -4000}}}


def round_facts(round_no: int) -> list[Fact]:
    steps = round_steps(random.Random(round_no))
    return [Fact(kind, payload(kind, i, round_no), actor, round_no)
            for i, (_, kind, actor) in enumerate(steps)]


# --- a group of tables in a process of its own ------------------------------------------

def epoch(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


@dataclass
class Table:
    table_id: str
    db: Database
    journal: Journal
    round_no: int = 0
    forwarder: Forwarder | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    sent_at: dict[int, tuple[float, str]] = field(default_factory=dict)  # seq -> (ts, phase)
    target: int | None = None          # catch-up: the local head when the floor came back
    caught_at: float | None = None
    back_at: float | None = None       # its first floor commit after the floor came back

    def local_head(self) -> tuple[int, str | None]:
        with self.db.read() as conn:
            row = conn.execute(select(J.c.seq, J.c.hash).where(J.c.table_id == self.table_id)
                               .order_by(J.c.seq.desc()).limit(1)).first()
        return (0, None) if row is None else (int(row[0]), str(row[1]))


class Group:
    """Some of the tables, their forwarders and dealers, in one process: the parent process
    drives every group through :func:`_group_main` (a Python process runs one thread at a
    time, so 100 stations in one process would measure its lock rather than forwarding)."""

    def __init__(self, tables: Sequence[tuple[int, str]], scratch: str, floor_url: str,
                 key_path: str, backlog_rounds: int, workers: int, poll_s: float,
                 mux: bool = False, period_s: float = ROUND_PERIOD_S) -> None:
        threading.excepthook = self._thread_died
        self.mux = mux
        self.period_s = period_s
        self.host: ForwarderHost | None = None
        self.floor_url = floor_url
        self.backlog_rounds = backlog_rounds
        self.workers = workers
        self.poll_s = poll_s
        self.phase = "setup"
        self.lags: dict[str, list[float]] = {}
        self.commits: list[tuple[float, int]] = []     # (floor commit time, records), accel
        self.lateness: list[float] = []
        self.thread_errors: list[str] = []
        self.stop_dealers = threading.Event()
        self.dealer_threads: list[threading.Thread] = []
        key = load_key(key_path)
        self.tables: list[Table] = []
        self.order: dict[str, int] = {}
        template = Path(scratch) / "template.db"
        for index, table_id in tables:
            path = Path(scratch) / f"{table_id}.db"
            if template.exists() and not path.exists():
                shutil.copyfile(template, path)      # an empty journal at the newest schema
            db = open_database(f"sqlite:///{path}")
            self.tables.append(Table(table_id, db, Journal(db, key)))
            self.order[table_id] = index

    def _thread_died(self, a: threading.ExceptHookArgs) -> None:
        self.thread_errors.append(f"{a.thread.name if a.thread else '?'}: "
                                  f"{a.exc_type.__name__}: {a.exc_value}")

    def backlog(self) -> int:
        def write(t: Table) -> int:
            count = 0
            for _ in range(self.backlog_rounds):
                t.round_no += 1
                count += len(t.journal.append_many(t.table_id, round_facts(t.round_no)))
            return count

        with ThreadPoolExecutor(4) as pool:
            return sum(pool.map(write, self.tables))

    def start(self) -> None:
        if self.mux:
            self.host = ForwarderHost(self.floor_url, poll_s=self.poll_s)
            for t in self.tables:
                t.forwarder = self.host.add(t.journal, t.table_id,
                                            on_forwarded=self._forwarded_cb(t))
            self.host.start()
            return
        for t in self.tables:
            t.forwarder = Forwarder(t.journal, self.floor_url, t.table_id, poll_s=self.poll_s,
                                    on_forwarded=self._forwarded_cb(t))
        for t in self.tables:
            assert t.forwarder is not None
            t.forwarder.start()

    def _forwarded_cb(self, t: Table) -> Callable[[int, int, float], None]:
        def forwarded(first: int, last: int, committed: float) -> None:
            if self.phase == "accel":
                self.commits.append((committed, last - first + 1))
            with t.lock:
                for seq in range(first, last + 1):
                    sent = t.sent_at.pop(seq, None)
                    if sent is not None:
                        self.lags.setdefault(sent[1], []).append(committed - sent[0])
            if self.phase == "after" and t.back_at is None:
                t.back_at = committed
            if t.target is not None and t.caught_at is None and last >= t.target:
                t.caught_at = committed
        return forwarded

    def set_phase(self, phase: str) -> None:
        self.phase = phase

    def heads(self) -> dict[str, tuple[int, str | None]]:
        return {t.table_id: t.local_head() for t in self.tables}

    def set_targets(self) -> dict[str, int]:
        for t in self.tables:
            t.target = t.local_head()[0]
        return {t.table_id: t.target or 0 for t in self.tables}

    def caught(self) -> dict[str, float | None]:
        return {t.table_id: t.caught_at for t in self.tables}

    def back(self) -> dict[str, float | None]:
        return {t.table_id: t.back_at for t in self.tables}

    # -- live pace --

    def deal(self, base_epoch: float, n_tables: int) -> None:
        """Play every table's rounds at live pace, table ``i`` of ``n_tables`` starting its
        first round at ``base_epoch + 20 s * i / n_tables``, until :meth:`stop_dealing`."""
        base = time.monotonic() + (base_epoch - time.time())
        for w in range(self.workers):
            first = [(base + self.period_s * self.order[t.table_id] / n_tables, t)
                     for k, t in enumerate(self.tables) if k % self.workers == w]
            th = threading.Thread(target=self._deal, args=(first,), name=f"dealers-{w}",
                                  daemon=True)
            th.start()
            self.dealer_threads.append(th)

    def _deal(self, first: Sequence[tuple[float, Table]]) -> None:
        heap: list[tuple[float, int, int, float, list[tuple[float, str, str]]]] = []
        tables: dict[int, Table] = {}
        for k, (at, t) in enumerate(first):
            tables[k] = t
            t.round_no += 1
            heapq.heappush(heap, (at, k, 0, at, round_steps(random.Random(t.round_no))))
        while heap and not self.stop_dealers.is_set():
            due, k, i, round_start, steps = heapq.heappop(heap)
            delay = due - time.monotonic()
            if delay > 0 and self.stop_dealers.wait(delay):
                return
            self.lateness.append(max(0.0, -delay))
            t = tables[k]
            _, kind, actor = steps[i]
            with t.lock:
                rec = t.journal.append(t.table_id, kind, payload(kind, i, t.round_no), actor,
                                       round_no=t.round_no)
                t.sent_at[rec.seq] = (epoch(rec.ts), self.phase)
            if i + 1 < len(steps):
                heapq.heappush(heap, (round_start + steps[i + 1][0], k, i + 1, round_start,
                                      steps))
            else:
                t.round_no += 1
                nxt = round_start + self.period_s
                heapq.heappush(heap, (nxt, k, 0, nxt, round_steps(random.Random(t.round_no))))

    def stop_dealing(self) -> None:
        self.stop_dealers.set()
        for th in self.dealer_threads:
            th.join(10)

    def finish(self) -> dict[str, Any]:
        """Stop the forwarders; what they measured and what each table's journal holds."""
        if self.host is not None:
            self.host.stop(60)
        for t in self.tables:
            if t.forwarder is not None and self.host is None:
                t.forwarder.stop()
        local: dict[str, tuple[int, int, str | None, int, int]] = {}
        for t in self.tables:
            seq, h = t.local_head()
            with t.db.read() as conn:
                counts: dict[str, int] = {str(k): int(c) for k, c in conn.execute(
                    select(J.c.kind, func.count()).where(J.c.table_id == t.table_id)
                    .group_by(J.c.kind))}
            local[t.table_id] = (sum(counts.values()), seq, h, counts.get("floor.lost", 0),
                                 counts.get("floor.restored", 0))
            t.db.close()
        return {"lags": self.lags, "commits": self.commits, "lateness": self.lateness,
                "errors": self.thread_errors, "local": local,
                "floor_commits": self.host.commits if self.host is not None else None}


def _group_main(conn: Connection, args: tuple[Any, ...]) -> None:
    try:
        group: Group | None = Group(*args)
        conn.send(("ok", None))
    except BaseException:
        group = None
        conn.send(("error", traceback.format_exc()))
    while group is not None:
        cmd, cargs = conn.recv()
        if cmd == "exit":
            return
        try:
            conn.send(("ok", getattr(group, cmd)(*cargs)))
        except BaseException:
            conn.send(("error", traceback.format_exc()))


class Stations:
    """The tables, spread over ``procs`` processes of :class:`Group`."""

    def __init__(self, n_tables: int, procs: int, scratch: Path, floor_url: str,
                 key_path: Path, backlog_rounds: int, workers: int, poll_s: float,
                 mux: bool = False, period_s: float = ROUND_PERIOD_S) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.ids = [f"T{n:04d}" if n_tables > 999 else f"T{n:03d}"
                    for n in range(1, n_tables + 1)]
        self.conns: list[Connection] = []
        self.procs: list[BaseProcess] = []
        for p in range(procs):
            mine = [(i, tid) for i, tid in enumerate(self.ids) if i % procs == p]
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_group_main, name=f"tables-{p}", args=(child, (
                mine, str(scratch), floor_url, str(key_path), backlog_rounds,
                max(1, workers // procs), poll_s, mux, period_s)))
            proc.start()
            self.conns.append(parent)
            self.procs.append(proc)
        self._collect()

    def _collect(self) -> list[Any]:
        out = []
        for c in self.conns:
            status, value = c.recv()
            if status != "ok":
                raise RuntimeError(f"a group of tables failed:\n{value}")
            out.append(value)
        return out

    def call(self, cmd: str, *args: Any) -> list[Any]:
        """``cmd`` in every group at once; their answers."""
        for c in self.conns:
            c.send((cmd, args))
        return self._collect()

    def merged(self, cmd: str, *args: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for part in self.call(cmd, *args):
            out.update(part)
        return out

    def close(self) -> None:
        for c in self.conns:
            with contextlib.suppress(OSError):
                c.send(("exit", ()))
        for proc in self.procs:
            proc.join(30)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)


# --- verification (in worker processes) -----------------------------------------------------

_verifier: Journal | None = None


def _init_verifier(url: str, secret: bytes) -> None:
    global _verifier
    _verifier = Journal(open_database(url, upgrade=False), secret)


def _verify(table_id: str) -> tuple[str, bool, int, str | None, str]:
    assert _verifier is not None
    r = _verifier.verify_table(table_id)
    return table_id, r.ok, r.records, r.last_hash, r.problem or ""


def _noop(_: int) -> None:
    return None


# --- figures -------------------------------------------------------------------------------

def pct(values: Sequence[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=100, method="inclusive")
    return statistics.median(values), q[98], max(values)


def sustained(commits: Sequence[tuple[float, int]], total: int) -> tuple[float, float]:
    """Records per second between the floor commits that brought 10% and 90% of ``total``
    to the floor (the forwarders' start and the last tables' tails left out), and the span."""
    done = 0
    t10 = t90 = commits[0][0]
    at10 = at90 = 0
    for at, k in commits:
        if done < 0.1 * total <= done + k:
            t10, at10 = at, done + k
        if done < 0.9 * total <= done + k:
            t90, at90 = at, done + k
        done += k
    span = t90 - t10
    return ((at90 - at10) / span if span > 0 else float("nan")), span


def verdict(ok: bool) -> str:
    return "within target" if ok else "OVER TARGET"


def floor_heads(floor: Database) -> dict[str, int]:
    with floor.read() as conn:
        return {str(t): int(q) for t, q in conn.execute(select(FT.c.table_id, FT.c.head_seq))}


def wait_caught_up(floor: Database, stations: Stations, timeout_s: float) -> float | None:
    """Wait until every table's floor head is its local head; the seconds it took."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        local = stations.merged("heads")
        heads = floor_heads(floor)
        if all(heads.get(tid, 0) >= seq for tid, (seq, _) in local.items()):
            return time.monotonic() - t0
        time.sleep(0.2)
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    default=os.environ.get("DEALER_STATION_BENCH_QUICK") == "1",
                    help="a smoke run: 10 tables, short phases")
    ap.add_argument("--tables", type=int, help="tables (default 100)")
    ap.add_argument("--procs", type=int, help="processes the tables are spread over")
    ap.add_argument("--live", type=float, help="seconds of the live-pace measure")
    ap.add_argument("--outage", type=float, help="seconds the floor is down")
    ap.add_argument("--backlog", type=int, help="rounds of backlog per table (accelerated)")
    ap.add_argument("--mux", action="store_true",
                    help="one ForwarderHost per process (one floor connection, one thread, "
                         "the tables' records batched) instead of a Forwarder per table")
    ap.add_argument("--standby", action="store_true",
                    help="the floor a primary with a synchronous streaming standby (PgPair); "
                         "the outage is the primary's")
    ap.add_argument("--period", type=float, default=ROUND_PERIOD_S,
                    help="seconds between a table's rounds (default %(default)s; 18 is 200 "
                         "rounds an hour)")
    ap.add_argument("--poll", type=float, default=POLL_S,
                    help="the forwarders' poll_s (default: theirs, %(default)s s)")
    args = ap.parse_args()
    s = QUICK if args.quick else FULL
    s = replace(s, tables=args.tables or s.tables, procs=args.procs or s.procs,
                backlog_rounds=args.backlog if args.backlog is not None else s.backlog_rounds,
                live_s=args.live or s.live_s, outage_s=args.outage or s.outage_s,
                poll_s=args.poll, mux=args.mux, standby=args.standby, period_s=args.period)
    bindir = find_bindir()
    if bindir is None:
        print(MISSING_MESSAGE, file=sys.stderr)
        return 2
    wall = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ds-bench-floor-") as tmp:
        if s.standby:
            pair = PgPair.start(bindir, synchronous=True, durable=True,
                                max_connections=MAX_CONNECTIONS)
            try:
                ok, lines = run(pair, Path(tmp), s)
            finally:
                pair.stop()
        else:
            with PgCluster(bindir, durable=True, max_connections=MAX_CONNECTIONS) as cluster:
                ok, lines = run(cluster, Path(tmp), s)
    wall_s = time.monotonic() - wall
    print(f"\nwhole run: {wall_s:.0f} s (load average over the last 5 minutes: "
          f"{os.getloadavg()[1]:.1f})")
    print("\nFor the README:")
    for line in lines:
        print(f"  {line}")
    return 0 if ok else 1


def run(cluster: PgCluster | PgPair, scratch: Path, s: Settings) -> tuple[bool, list[str]]:
    n = s.tables
    floor_url = cluster.create_database("floor")
    open_database(f"sqlite:///{scratch / 'template.db'}").close()   # copied for each table
    floor = open_database(floor_url)            # migrated once, before the forwarders open it
    key = create_key(scratch / "journal.key")
    how = ("one ForwarderHost per process (one floor connection, one thread)" if s.mux
           else "a forwarder thread each")
    server = ("a PostgreSQL primary with a synchronous streaming standby" if s.standby
              else "one PostgreSQL floor")
    print(f"{n} tables, each with its own SQLite journal, {how}, in {s.procs} processes; "
          f"{server} (fsync on); {os.cpu_count()} cores shared by all "
          f"(load average {os.getloadavg()[0]:.1f} at the start)")
    t = time.perf_counter()
    stations = Stations(n, s.procs, scratch, floor_url, key.path, s.backlog_rounds, s.workers,
                        s.poll_s, s.mux, s.period_s)
    try:
        print(f"  {n} journals opened in {time.perf_counter() - t:.1f} s")
        result = measure(cluster, floor, stations, s)
    finally:
        stations.close()
    ok, lines, local = result
    if local is None:
        floor.close()
        return ok, lines
    # 4. floor verification, the tables stopped
    ids = stations.ids
    _init_verifier(floor_url, key.secret)
    t0 = time.perf_counter()
    one = [_verify(tid) for tid in ids]
    one_s = time.perf_counter() - t0
    procs = os.cpu_count() or 2
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(procs, initializer=_init_verifier, initargs=(floor_url, key.secret)) as pool:
        pool.map(_noop, range(procs * 4))            # the workers up and connected
        t0 = time.perf_counter()
        par = pool.map(_verify, ids, chunksize=1)
        par_s = time.perf_counter() - t0
    floor.close()
    bad = []
    for tid, verified_ok, count, last_hash, problem in par:
        _, seq, h, _, _ = local[tid]
        if not verified_ok or count != seq or last_hash != h:
            bad.append(f"{tid}: the floor's copy does not verify to the local head "
                       f"({count} records, {problem or 'head hash differs'})")
    for p in bad:
        print(f"  PROBLEM: {p}")
    verified = sum(r[2] for r in par)
    one_rate = sum(r[2] for r in one) / one_s
    print(f"\nfloor verification with the key (Journal.verify_table, each chain walked): "
          f"{verified:,} records in {len(ids)} chains: {one_rate:,.0f} records/s in one process, "
          f"{verified / par_s:,.0f} records/s in {procs} processes"
          + ("; every chain verifies to its table's head" if not bad else ""))
    lines.append(f"floor verification with the key: {verified / par_s:,.0f} records/s "
                 f"({procs} processes over the tables; {one_rate:,.0f}/s in one)")
    return ok and not bad, lines


def grid_refresh(floor: Database, parts: list[tuple[float, float]] | None = None) -> float:
    """The pit's grid read once, as the pit reads it: every table's status, the server line
    and the lost list (floor/alerts.py's view, without the money and alerts per table)."""
    t0 = time.perf_counter()
    statuses = table_statuses(floor)
    t1 = time.perf_counter()
    with floor.read() as conn:
        server_words(read_server(floor, conn))
        t2 = time.perf_counter()
        lost_adoptions(conn, [st.table for st in statuses])
    t3 = time.perf_counter()
    if parts is not None:       # table_statuses, the lost list (the server line: the rest)
        parts.append((t1 - t0, t3 - t2))
    return t3 - t0


def measure(cluster: PgCluster | PgPair, floor: Database, stations: Stations, s: Settings
            ) -> tuple[bool, list[str], dict[str, Any] | None]:
    n = s.tables
    node = cluster.primary if isinstance(cluster, PgPair) else cluster
    catch_target = 30.0 if s.standby else CATCH_UP_TARGET_S
    # 1. accelerated
    t = time.perf_counter()
    backlog = sum(stations.call("backlog"))
    print(f"\naccelerated: {backlog:,} records of backlog written ({s.backlog_rounds} rounds "
          f"of 20 per table, one commit a round, {time.perf_counter() - t:.1f} s); then the "
          f"{n} forwarders start at once")
    stations.call("set_phase", "accel")
    started = time.time()
    stations.call("start")
    if wait_caught_up(floor, stations, 600) is None:
        print("  the floor did not take the backlog within 600 s")
        return False, ["accelerated: the floor did not take the backlog in 600 s"], None
    stations.call("set_phase", "idle")

    # 2. live pace
    stations.call("set_phase", "live")
    live_from = time.monotonic()
    stations.call("deal", time.time() + 0.5, n)
    grids: list[float] = []
    while time.monotonic() - live_from < s.live_s:
        time.sleep(min(15.0, max(0.0, s.live_s - (time.monotonic() - live_from))))
        if time.monotonic() - live_from > s.period_s:
            grids.append(grid_refresh(floor))
    live_s = time.monotonic() - live_from
    stations.call("set_phase", "drain")         # the live window's last records reach the
    time.sleep(DRAIN_S)                         # floor before it goes down

    # 3. catch-up: the floor goes down while the tables deal on
    stations.call("set_phase", "outage")
    down = time.monotonic()
    node.crash()
    time.sleep(max(0.0, s.outage_s - (time.monotonic() - down)))
    targets = stations.merged("set_targets")
    restart_t = time.monotonic()
    node.restart()
    back = time.time()
    down_s = time.monotonic() - down
    recovery_s = time.monotonic() - restart_t
    stations.call("set_phase", "after")
    caught: dict[str, float | None] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        caught = stations.merged("caught")
        heads = floor_heads(floor)
        for tid, at in caught.items():       # caught up with no batch of its own reported
            if at is None and heads.get(tid, 0) >= targets[tid]:
                caught[tid] = time.time()
        if all(at is not None for at in caught.values()):
            break
        time.sleep(0.1)
    times = [at for at in caught.values() if at is not None]
    catch_up = max(times) - back if len(times) == n else None
    reconnected = sorted(at - back for at in stations.merged("back").values() if at is not None)
    time.sleep(max(0.0, s.after_s - (time.time() - back)))
    stations.call("stop_dealing")
    settled = wait_caught_up(floor, stations, 120)
    results = stations.call("finish")

    lags: dict[str, list[float]] = {}
    commits: list[tuple[float, int]] = []
    lateness: list[float] = []
    errors: list[str] = []
    local: dict[str, Any] = {}
    for r in results:
        for phase, values in r["lags"].items():
            lags.setdefault(phase, []).extend(values)
        commits += r["commits"]
        lateness += r["lateness"]
        errors += r["errors"]
        local.update(r["local"])

    commits.sort()
    if not commits:
        commits = [(started, 0)]
    forwarded = sum(k for _, k in commits)
    first, last = commits[0][0], commits[-1][0]
    rate, window = sustained(commits, forwarded)
    print(f"  {forwarded:,} records forwarded in {len(commits):,} floor commits; first floor "
          f"commit {first - started:.1f} s after the start (each forwarder opens the floor and "
          f"compares its copy), the last {last - started:.1f} s after: "
          f"{forwarded / (last - started):,.0f} records/s from the start")
    print(f"  sustained floor throughput: {rate:,.0f} records/s (from 10% to 90% of the "
          f"backlog on the floor, {window:.1f} s)")

    live = lags.get("live", [])
    after = lags.get("after", [])
    outage = lags.get("outage", [])
    p50, p99, worst = pct(live) if len(live) > 1 else (float("nan"),) * 3
    lag_ok = len(live) > 1 and p99 < LAG_TARGET_S
    late = pct(lateness) if len(lateness) > 1 else (0.0, 0.0, 0.0)
    print(f"\nlive pace: a 20-record round per table every {s.period_s:.0f} s (each record "
          f"its own commit), the tables' rounds staggered; {live_s:.0f} s, {len(live):,} "
          f"records ({len(live) / live_s:,.0f}/s over {n} tables)")
    print(f"  the dealers kept to time: their appends late by p99 {late[1] * 1000:.0f} ms, max "
          f"{late[2] * 1000:.0f} ms")
    print(f"  local commit (record ts) -> floor commit: p50 {p50 * 1000:.0f} ms, p99 "
          f"{p99 * 1000:.0f} ms, max {worst * 1000:.0f} ms (target p99 < {LAG_TARGET_S:.0f} s): "
          + verdict(lag_ok))

    catch_ok = catch_up is not None and catch_up < catch_target
    print(f"\ncatch-up: the floor server stopped hard (pg_ctl stop -m immediate) for "
          f"{down_s:.0f} s while the tables dealt on ({len(outage):,} records written "
          f"meanwhile, {sum(targets.values()):,} in the tables' chains when it came back); "
          f"pg_ctl start took {recovery_s:.1f} s (crash recovery)")
    print("  server back -> every table's floor head at its local head: "
          + (f"{catch_up:.1f} s" if catch_up is not None else "not within 120 s")
          + f" (target < {catch_target:.0f} s): {verdict(catch_ok)}")
    if reconnected:
        print(f"  the forwarders' first floor commits after it (their retries are at most "
              f"2 s apart): the first {reconnected[0]:.1f} s after, the median "
              f"{statistics.median(reconnected):.1f} s, the last {reconnected[-1]:.1f} s")
    if len(after) > 1:
        a50, a99, amax = pct(after)
        print(f"  the {len(after):,} records written in the {s.after_s:.0f} s after the server "
              f"was back, local commit -> floor commit: p50 {a50 * 1000:.0f} ms, p99 "
              f"{a99 * 1000:.0f} ms, max {amax * 1000:.0f} ms")

    grid_ok = bool(grids) and max(grids) < GRID_TARGET_S
    grid_said = (f"median {statistics.median(grids) * 1000:.0f} ms, max "
                 f"{max(grids) * 1000:.0f} ms over {len(grids)} reads" if grids
                 else "not measured (live window too short)")
    print(f"\nthe pit's grid at {n} tables (table_statuses, the server line, the lost list), "
          f"read during the live window: {grid_said} (target < {GRID_TARGET_S:.0f} s): "
          + verdict(grid_ok))
    floor_commits = [r["floor_commits"] for r in results if r.get("floor_commits") is not None]
    if floor_commits:
        print(f"  the hosts' floor transactions, all phases: {sum(floor_commits):,} for "
              f"{forwarded:,} accelerated records and the rest")

    # nothing lost, nothing twice
    problems: list[str] = []
    if settled is None:
        problems.append("the floor did not catch up within 120 s after the tables stopped")
    with floor.read() as conn:
        counts = {str(tid): (int(c), int(m)) for tid, c, m in conn.execute(
            select(J.c.table_id, func.count(), func.max(J.c.seq)).group_by(J.c.table_id))}
        floor_hash = {str(tid): h for tid, h in conn.execute(
            select(FT.c.table_id, FT.c.head_hash))}
    for tid, (lc, seq, h, _, _) in sorted(local.items()):
        fc, fm = counts.get(tid, (0, 0))
        if (fc, fm) != (lc, seq) or floor_hash.get(tid) != h:
            same = "same" if floor_hash.get(tid) == h else "differs"
            problems.append(f"{tid}: local {lc} records to seq {seq}, floor {fc} records to "
                            f"seq {fm} (head hash {same})")
    total = sum(c for c, _ in counts.values())
    lost = sum(v[3] for v in local.values())
    restored = sum(v[4] for v in local.values())
    print(f"\nafter the tables stopped: {total:,} records on the floor; the tables journaled "
          f"{lost} floor.lost and {restored} floor.restored")
    if not problems:
        print("  every table's floor copy has its local head's seq and hash and as many "
              "records: nothing lost or duplicated")
    for p in problems[:20]:
        print(f"  PROBLEM: {p}")
    for err in errors:
        print(f"  THREAD DIED: {err}")
    intact = not problems and not errors

    lines = [
        f"floor forwarding, {n} tables (a SQLite journal each; "
        + (f"one ForwarderHost per process, {s.procs} processes" if s.mux
           else "a forwarder each") + ") -> "
        + ("a PostgreSQL primary with a synchronous standby" if s.standby
           else "one PostgreSQL") + f" (fsync on), all on {os.cpu_count()} cores:",
        f"live pace (a 20-record round per table every {s.period_s:.0f} s, {len(live):,} "
        f"records): local commit -> floor commit p50 {p50 * 1000:.0f} ms, p99 "
        f"{p99 * 1000:.0f} ms, max {worst * 1000:.0f} ms (target p99 < {LAG_TARGET_S:.0f} s)",
        f"accelerated ({n} backlogs of {s.backlog_rounds * 20:,} records forwarded at once): "
        f"{rate:,.0f} records/s sustained",
        "catch-up after a {:.0f} s floor outage (pg_ctl stop -m immediate): {} (target < "
        "{:.0f} s); nothing {}".format(
            down_s, f"{catch_up:.1f} s" if catch_up is not None else "not within 120 s",
            catch_target, "lost or duplicated" if intact else "... RECORDS DIFFER"),
    ]
    split: list[tuple[float, float]] = []
    quiet = grid_refresh(floor, split)    # the tables stopped: the reads alone
    print(f"  the same read with the tables stopped and the floor caught up: "
          f"{quiet * 1000:.0f} ms (table_statuses {split[0][0] * 1000:.0f} ms, the lost list "
          f"{split[0][1] * 1000:.0f} ms, the server line the rest)")
    lines.append(f"the pit's grid at {n} tables, during the live window: {grid_said}; with "
                 f"the tables stopped: {quiet * 1000:.0f} ms (target < {GRID_TARGET_S:.0f} s)")
    return lag_ok and catch_ok and intact and grid_ok, lines, local


if __name__ == "__main__":
    raise SystemExit(main())
