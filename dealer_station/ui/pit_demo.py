"""A pit of real tables for the pit window's screenshots and tests (no tests here).

Every table is a real table service writing its own SQLite journal under the floor's key, and
forwarded to the floor database by the real forwarder: nothing is written into the floor's
tables by hand.

* ``T1`` La Pair'e, simulated rounds earlier today (large payouts, a hold out of the band);
* ``T2`` Bourré, simulated hands (reneges); then its bank's fill and credit through the cage:
  a fill requested 28 minutes ago, issued and in transit with security (late: an alert), and a
  credit requested 5 minutes ago;
* ``T3`` La Pair'e, a shoe jam halts the round and a supervisor voids it (halt, void); the
  next round is halted by an error the shoe reports (device fault, halt), still unresolved
  (the game's own scene: the registry's ``demo_halts`` part);
* ``T4`` La Pair'e, forwarded, then its local journal cut short: the floor refuses it;
* ``T5`` La Pair'e, forwarded, then dealing on while its forwarder only reaches the floor to
  say how far it is (the floor copy is behind);
* ``T6`` La Pair'e, a shoe that deals the 7 first one round in three and a player at seat 4
  who knows the First Card in half the rounds: the game-protection monitor's alerts, raised
  live as the table deals.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import select, text

from dealer_station import registry as games
from dealer_station.audit import schema
from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal, utc_now
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.users import User, Users
from dealer_station.floor.forwarder import Forwarder
from dealer_station.floor.receiver import ChainRefused, LocalState, receive
from dealer_station.table.parts import SIMULATE
from dealer_station.ui.parts import DEMO_HALTS

PIN = "2468"


def stepping_clock(start: datetime, step_s: float) -> Callable[[], datetime]:
    """A clock for a table that played earlier: each reading ``step_s`` later."""
    lock = threading.Lock()
    moment = [start]

    def now() -> datetime:
        with lock:
            moment[0] += timedelta(seconds=step_s)
            return moment[0]
    return now


@dataclass
class DemoTable:
    table_id: str
    db: Database
    journal: Journal

    def forward(self, floor_url: str) -> None:
        Forwarder(self.journal, floor_url, self.table_id, journal_outages=False).sync(
            timeout_s=60)


def demo_table(tmp: Path, table_id: str, key: JournalKey,
           clock: Callable[[], datetime] | None = None) -> DemoTable:
    db = open_database(f"sqlite:///{tmp / f'{table_id}.db'}")
    # Each table's PC keeps its own anchor file: the floor's copy of a table that has dealt
    # on since it last forwarded is behind that table's anchors, not cut short.
    anchors = tmp / f"{table_id}.anchors"
    journal = Journal(db, key, anchor_path=anchors) if clock is None else Journal(
        db, key, anchor_path=anchors, clock=clock)
    return DemoTable(table_id, db, journal)


def play(table: DemoTable, rounds: int, seed: int, game: str = "lapaire",
         inject: tuple[str, ...] = ()) -> None:
    games.game(game).part(SIMULATE)(table.journal, table.table_id, rounds, seed=seed,
                                      config_path=None, quiet=True, inject=inject)


#: T6's anomalies (simulate --inject): the monitor's alerts on the podium.
PROTECTION_SCENE = ("biased-shoe:7@1", "card-knowledge:4@1")


#: The demo's dealers: T3's, and the one the simulated rounds name.
DEALERS = (("dee", "Dee Dealer"), ("sim-dealer", "Simulated Dealer"))


def add_users(journal: Journal, users: Users) -> dict[str, User]:
    """A set-up operator, a supervisor ``sue`` (PIN 2468) and the demo's dealers on
    ``journal``'s station stream."""
    if not users.has_users():
        users.add("setup", "Set-up Operator", "operator", PIN, actor="setup/operator")
    admin = users.authenticate("setup", PIN)
    out = {"setup": admin}
    if users.get("sue") is None:
        users.add("sue", "Sue Pit", "supervisor", PIN, actor=admin)
    for user_id, name in DEALERS:
        if users.get(user_id) is None:
            users.add(user_id, name, "dealer", PIN, actor=admin)
    return out


def _wait(what: Callable[[], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise TimeoutError("the simulated shoe did not answer in time")
        time.sleep(0.01)


def cut_short_and_refused(table: DemoTable, floor_url: str) -> None:
    """Forwarded, then records deleted from the local file: the floor refuses the chain."""
    table.forward(floor_url)
    last = table.journal.last(table.table_id)
    assert last is not None
    with table.db.write() as conn:                   # someone with the file, not the key
        conn.execute(text("DELETE FROM journal WHERE table_id = :t AND seq > :s"),
                     {"t": table.table_id, "s": last.seq - 7})
    try:
        table.forward(floor_url)
    except ChainRefused:
        return
    raise AssertionError("the floor took a chain cut short")


def behind(table: DemoTable, floor: Database) -> None:
    """What a table's forwarder says when it reaches the floor only to tell its head: the
    floor learns the table holds records it lacks since the oldest's time."""
    j = schema.journal
    with floor.read() as conn:
        held = conn.execute(select(j.c.seq).where(j.c.table_id == table.table_id)
                            .order_by(j.c.seq.desc()).limit(1)).scalar() or 0
    with table.db.read() as conn:
        first = conn.execute(select(j.c.ts).where(j.c.table_id == table.table_id,
                                                  j.c.seq > held)
                             .order_by(j.c.seq).limit(1)).scalar()
    head = table.journal.last(table.table_id)
    assert head is not None and first is not None
    with floor.write() as conn:
        receive(conn, table.table_id, [], LocalState(head.seq, head.hash, str(first)))


def cage_people(table: DemoTable, hasher: object) -> Users:
    """The demo's people on the table's journal, and a cage cashier ``cass`` and a security
    officer ``sid`` (PIN 2468): added while the journal is new, its first operator without a
    sign-in."""
    users = Users(table.journal, hasher=hasher)  # type: ignore[arg-type]
    admin = add_users(table.journal, users)["setup"]
    for user_id, name, role in (("cass", "Cass Cashier", "cage"),
                                ("sid", "Sid Security", "security")):
        if users.get(user_id) is None:
            users.add(user_id, name, role, PIN, actor=admin)
    return users


def fills_and_credits(table: DemoTable, hasher: object, now: datetime) -> None:
    """The table's fill (requested 28 minutes before ``now``, issued at the cage, carried by
    security: late) and credit (requested 5 minutes before), through the cage's desk, at
    those moments (never before the table's last record)."""
    from dealer_station.accounting.chips import Chips
    from dealer_station.accounting.settings import AccountingSettings
    from dealer_station.events.accounting import SlipRequested
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.table.accounting import TableAccounting, accounting_event
    from dealer_station.table.cage import CageDesk

    users = cage_people(table, hasher)
    signer = {u: users.authenticate(u, PIN, table_id=table.table_id)
              for u in ("sue", "cass", "sid")}
    last = table.journal.last(table.table_id)
    start = now - timedelta(minutes=28)
    if last is not None:
        start = max(start, datetime.fromisoformat(last.ts) + timedelta(seconds=1))
    moment = [start]
    table.journal.clock = lambda: moment[0]
    desk = CageDesk(TableAccounting(table.journal, table.table_id, AccountingSettings(),
                                    GamingCalendar()))
    wanted = Chips.of({2500: 40, 10000: 10})
    fill = accounting_event(desk.request("fill", wanted, signer["sue"],
                                         note="bank low on 25.00 chips"), SlipRequested)
    moment[0] += timedelta(minutes=4)
    desk.issue(fill.year, fill.request, wanted, [signer["cass"]])
    moment[0] += timedelta(minutes=3)
    desk.carry(fill.year, fill.request, [signer["sid"]])
    moment[0] = max(moment[0] + timedelta(seconds=1), now - timedelta(minutes=5))
    desk.request("credit", Chips.of({500: 40}), signer["sue"])


@contextmanager
def demo_pit(tmp: Path, floor_url: str, key: JournalKey, *, hasher: object,
             now: datetime | None = None) -> Iterator[Database]:
    """Five tables forwarded to the floor at ``floor_url`` (see the module's doc), and a
    supervisor ``sue`` (PIN 2468) among the floor's own users. Yields the floor database."""
    now = now or utc_now()
    floor = open_database(floor_url)
    tables: list[DemoTable] = []
    try:
        # The floor's own users first, while its journal is new: its first operator is added
        # without a sign-in only then.
        add_users(Journal(floor, key), Users(Journal(floor, key), hasher=hasher))  # type: ignore[arg-type]
        t1 = demo_table(tmp, "T1", key, stepping_clock(now - timedelta(minutes=55), 13.0))
        play(t1, 40, seed=11)
        t2 = demo_table(tmp, "T2", key, stepping_clock(now - timedelta(minutes=40), 1.5))
        cage_people(t2, hasher)
        play(t2, 14, seed=2, game="bourre")
        fills_and_credits(t2, hasher, now)
        t3 = demo_table(tmp, "T3", key)
        t4 = demo_table(tmp, "T4", key, stepping_clock(now - timedelta(minutes=30), 2.0))
        play(t4, 6, seed=5)
        t5 = demo_table(tmp, "T5", key, stepping_clock(now - timedelta(minutes=20), 4.0))
        play(t5, 8, seed=9)
        t6 = demo_table(tmp, "T6", key)
        play(t6, 45, seed=12, inject=PROTECTION_SCENE)
        tables += [t1, t2, t3, t4, t5, t6]
        for t in (t1, t2, t5, t6):
            t.forward(floor_url)
        games.game("lapaire").part(DEMO_HALTS)(t3, hasher)
        t3.forward(floor_url)
        cut_short_and_refused(t4, floor_url)
        play(t5, 6, seed=10)                  # dealt on, not yet at the floor
        behind(t5, floor)
        yield floor
    finally:
        for t in tables:
            t.db.close()
        floor.close()
