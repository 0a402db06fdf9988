"""Whole simulated La Pair'e gaming days, with the chip tray a real table keeps.

Each gaming day: an opener (the previous closer, counted again; a standard tray the first
time), rounds through the real table service and journal, buy-ins whenever the players are
short of chips (cash, sometimes a marker; both go to the drop box), a fill when a denomination
runs low and a credit when one piles up, the tray counted at each shift change (the drop box
changed with it), a closer counted from the chips actually in the tray, and the soft count's
drop of each shift entered after the day by two accounting users.

The simulated dealer pays each winning wager from the tray, and mispays a fraction of them by
one chip (the smallest denomination) too many or too few. With several simulated dealers
(``dealers``), they take the day's shifts in turn (dealer 1 the first shift of the first day,
then each the next shift, moving one shift a day), each signing the counts of their shift;
``mispays:DEALER@ROUND`` makes one of them overpay one winning wager in ten besides. The
station cannot see it (it settles every wager correctly); the tray, and so the statistical
win, does. ``mispaid`` is signed: positive when the dealer paid out more than the station
settled (the tray is short), so that the days' variance (statistical - computed win) sums to
``-mispaid``, and so do the shifts'.

Time is simulated: the journal's clock is replaced for the run (every record, sign-in and
gaming day reads it), so a month of gaming days takes seconds and no sleep.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from argon2 import PasswordHasher

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User, Users
from dealer_station.errors import StationError
from dealer_station.games.lapaire import events as ev
from dealer_station.games.lapaire.events import CODEC
from dealer_station.games.lapaire.table.sim import (
    MAX_DEALERS,
    MISPAY_SHARE,
    Injections,
    play_round,
    random_wagers,
    simulated_table,
)
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.days import SIM_PIN, SIM_USERS, DaysResult, SimClock, sim_count, sim_slip

if TYPE_CHECKING:
    from dealer_station.games.lapaire.table.live import LaPaireTable

#: How many chips of each denomination a standard tray holds (the first opener, the targets
#: fills and credits bring a denomination back to).
TRAY_CHIPS = {100: 300, 500: 200, 2500: 120, 10000: 40, 50000: 10}
BUY_IN_STEP = 10000
MARKER_SHARE = 0.1


class Tray:
    """The physical chips in the tray, by denomination."""

    def __init__(self, chips: dict[int, int]) -> None:
        self.chips = dict(chips)
        self.denoms = sorted(chips, reverse=True)

    def total(self) -> int:
        return sum(d * n for d, n in self.chips.items())

    def split(self, amount: int) -> dict[int, int]:
        """``amount`` as chips (largest first, any number of each)."""
        out: dict[int, int] = {}
        for d in self.denoms:
            n, amount = divmod(amount, d)
            if n:
                out[d] = n
        if amount:
            raise StationError(f"{amount} cannot be made of chips {self.denoms}")
        return out

    def put(self, chips: dict[int, int]) -> None:
        for d, n in chips.items():
            self.chips[d] = self.chips.get(d, 0) + n

    def remove(self, chips: dict[int, int]) -> None:
        for d, n in chips.items():
            self.chips[d] -= n

    def take(self, amount: int) -> dict[int, int] | None:
        """Chips worth ``amount`` from the tray (largest first), or None if it cannot."""
        out: dict[int, int] = {}
        left = amount
        for d in self.denoms:
            n = min(left // d, self.chips.get(d, 0))
            if n:
                out[d] = n
                left -= n * d
        if left:
            return None
        for d, n in out.items():
            self.chips[d] -= n
        return out


#: The names of the simulated dealers after the first (``simulate --dealers``).
NUMBERS = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")


def sim_dealer_id(number: int) -> str:
    """Simulated dealer ``number``'s user id (1: the simulation's one dealer)."""
    return "sim-dealer" if number == 1 else f"sim-dealer-{number}"


def _sim_users(journal: Journal, dealers: int = 1) -> dict[str, User]:
    """The simulation's signers, signed in (added first on a journal with no users); with
    several dealers, dealer N as ``dealer-N`` (added by the simulated operator if missing)."""
    users = Users(journal, hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
    if not users.has_users():
        users.seed([(u, n, r, SIM_PIN) for u, n, r in SIM_USERS], actor="simulate/operator")
    out = {}
    for user_id, _, role in SIM_USERS:
        u = users.get(user_id)
        if u is None or u.role != role:
            raise StationError(f"simulating gaming days needs the simulation's users "
                               f"({', '.join(u for u, _, _ in SIM_USERS)}); this journal has "
                               f"users but not {user_id} as a {role}: simulate on a journal "
                               f"of its own")
        out[role if role != "accounting" else user_id] = users.authenticate(user_id, SIM_PIN)
    for n in range(2, dealers + 1):
        user_id = sim_dealer_id(n)
        u = users.get(user_id)
        if u is None:
            users.add(user_id, f"Simulated Dealer {NUMBERS[n - 2]}", "dealer", SIM_PIN,
                      actor=out["operator"])
        elif u.role != "dealer":
            raise StationError(f"simulating {dealers} dealers needs {user_id} as a dealer; "
                               f"this journal has them as a {u.role}")
        out[f"dealer-{n}"] = users.authenticate(user_id, SIM_PIN)
    out["dealer-1"] = out["dealer"]
    return out


def simulate_days(journal: Journal, table_id: str, rounds_per_day: int, *, days: int,
                  mispay_rate: float, seed: int | None, config_path: str | None = None,
                  settings: AccountingSettings | None = None,
                  calendar: GamingCalendar | None = None, start: date | None = None,
                  quiet: bool = False, inject: Sequence[str] = (),
                  dealers: int = 1) -> DaysResult:
    """Play ``days`` whole gaming days of ``rounds_per_day`` rounds each (see the module), with
    the anomalies ``inject`` names (``simulate --inject``; see table/sim.py), the shifts
    dealt in turn by ``dealers`` simulated dealers."""
    from dealer_station.gameconfig import (
        load_accounting_settings,
        load_gaming_calendar,
    )

    if not 0 <= mispay_rate <= 1:
        raise StationError(f"--mispay-rate must be from 0 to 1, got {mispay_rate}")
    if not 1 <= dealers <= MAX_DEALERS:
        raise StationError(f"--dealers must be from 1 to {MAX_DEALERS}, got {dealers}")
    injections = Injections.parse(inject)
    injections.check_dealers(dealers)
    settings = settings or load_accounting_settings()
    calendar = calendar or load_gaming_calendar()
    if not set(TRAY_CHIPS) <= set(settings.denominations):
        raise StationError(f"the simulated tray holds chips {sorted(TRAY_CHIPS)}; the "
                           f"accounting settings have {list(settings.denominations)}")
    rng = random.Random(seed)
    last = journal.last(table_id)
    real_clock = journal.clock
    now = real_clock()
    if start is None:
        start = calendar.day_of(now)
        if last is not None:
            start = max(start, calendar.day_of(datetime.fromisoformat(last.ts)) +
                        timedelta(days=1))
    clock = SimClock(calendar.day(start).start)
    journal.clock = clock
    result = DaysResult(first_day=start)
    try:
        signers = _sim_users(journal, dealers)
        book = TableAccounting(journal, table_id, settings, calendar)
        table, shoe, settled, problems = simulated_table(journal, table_id, config_path, rng)
        result.money = table.money
        try:
            if table.current is not None:   # a round the journal left open: finish it first
                play_round(table, shoe, rng, settled, problems, injections=injections)
            ledger = book.ledger()
            carried = ledger.closer_before(start + timedelta(days=1))
            tray = Tray(Chips.from_payload(carried.event.chips).as_dict()  # type: ignore[attr-defined]
                        if carried is not None else TRAY_CHIPS)
            for i in range(days):
                day = start + timedelta(days=i)
                _play_day(table, shoe, book, signers, tray, day, rounds_per_day, rng,
                          mispay_rate, clock, settled, problems, result, quiet, injections,
                          dealers)
                result.last_day = day
                result.days += 1
        finally:
            shoe.close()
            table.devices.clear()
            table.shutdown()
    finally:
        journal.clock = real_clock
    return result


def _play_day(table: LaPaireTable, shoe: object, book: TableAccounting,
              signers: dict[str, User], tray: Tray, day: date, rounds: int,
              rng: random.Random, mispay_rate: float, clock: SimClock,
              settled: threading.Event, problems: list[str], result: DaysResult,
              quiet: bool, injections: Injections, dealers: int = 1) -> None:
    span = book.calendar.day(day)
    sup = signers["supervisor"]
    shifts = book.calendar.shifts_of(day)

    def dealer_of(shift: int) -> int:
        """The simulated dealer (1 up) of the day's shift ``shift``: in turn, a shift later
        each day."""
        return 1 + (day.toordinal() + shift) % dealers

    dealing = dealer_of(0)
    dealer = signers[f"dealer-{dealing}"]
    if dealers > 1:
        table.set_dealer(dealer.actor)
    clock.set(span.start + timedelta(minutes=5))
    book.opener(Chips.of(tray.chips), dealer, sup)
    smallest = min(tray.denoms)
    targets = {d: n for d, n in TRAY_CHIPS.items()}
    players = 0     # the value of the chips the players hold
    # The drop boxes are changed at each shift change: cash and markers per shift.
    drop_cash = [0] * len(shifts)
    drop_markers = [0] * len(shifts)
    marker_count = [0] * len(shifts)
    shift = 0       # the shift being played
    first = span.start + timedelta(minutes=15)
    step = (span.end - timedelta(minutes=30) - first) / max(rounds, 1)

    def change_shift() -> None:
        """The shift-change inventory, just before the next shift starts (by the dealer
        leaving), and the next shift's dealer at the table."""
        nonlocal shift, dealer, dealing
        clock.set(shifts[shift].end - timedelta(seconds=30))
        book.shift_count(Chips.of(tray.chips), dealer, sup)
        shift += 1
        if dealers > 1:
            dealing = dealer_of(shift)
            dealer = signers[f"dealer-{dealing}"]
            table.set_dealer(dealer.actor)

    def fill(chips: dict[int, int], note: str) -> None:
        sim_slip(book, signers, clock, "fill", Chips.of(chips), note)
        tray.put(chips)

    for n in range(rounds):
        while shift < len(shifts) - 1 and first + step * n >= shifts[shift].end:
            change_shift()
        clock.set(first + step * n)
        wagers = random_wagers(rng, table.config)
        staked = sum(w.amount for w in wagers)
        if players < staked:
            amount = -(-(staked - players + 2 * BUY_IN_STEP) // BUY_IN_STEP) * BUY_IN_STEP
            given = tray.take(amount)
            if given is None:
                fill(tray.split(amount), "tray short for a buy-in")
                given = tray.take(amount)
                assert given is not None
            marker = rng.random() < MARKER_SHARE
            book.buy_in("marker" if marker else "cash", amount, Chips.of(given), dealer,
                        marker=f"M{day:%Y%m%d}-{n}" if marker else None)
            if marker:
                drop_markers[shift] += amount
                marker_count[shift] += 1
            else:
                drop_cash[shift] += amount
            players += amount
        players -= staked
        play_round(table, shoe, rng, settled, problems, wagers, injections=injections)
        closed = table.last_closed
        assert closed is not None
        # The tray takes the stakes lost and pays the wins; a winning stake goes back to its
        # player from the felt, never through the tray.
        amounts: dict[int, int] = {}
        for r in book.journal.proven_round_records(table.table_id, closed.round_no):
            e = CODEC.decode(r.kind, r.payload)
            if isinstance(e, ev.WagerPlaced):
                amounts[e.wager_id] = e.amount
            elif isinstance(e, ev.StageSettled):
                for res in e.results:
                    stake = amounts[int(res["wager_id"])]
                    if not res["won"]:
                        tray.put(tray.split(stake))
                        continue
                    pay = int(res["win"])
                    if (injections.mispays(dealing, closed.round_no)
                            and rng.random() < MISPAY_SHARE):
                        pay += smallest      # a chip too many: the tray is short
                        result.mispaid += smallest
                        result.mispays += 1
                    elif mispay_rate and rng.random() < mispay_rate:
                        slip = smallest if rng.random() < 0.5 or pay < smallest else -smallest
                        pay += slip
                        result.mispaid += slip
                        result.mispays += 1
                    chips = tray.take(pay)
                    if chips is None:
                        fill(tray.split(pay), "tray short for a payout")
                        chips = tray.take(pay)
                        assert chips is not None
                    players += stake + pay
        # A seat with card knowledge (simulate --inject) staked more than the random wagers.
        players -= sum(amounts.values()) - staked
        result.rounds += 1
        low = {d: targets[d] - tray.chips.get(d, 0) for d in targets
               if tray.chips.get(d, 0) < targets[d] // 3}
        if low:
            fill(low, "tray low")
        high = {d: tray.chips[d] - targets[d] for d in targets
                if tray.chips.get(d, 0) > 3 * targets[d]}
        if high:
            sim_slip(book, signers, clock, "credit", Chips.of(high), "tray high")
            tray.remove(high)
        if not quiet:
            s = closed.close or {}
            money = table.money.text     # money as money, never minor units
            print(f"{day} round {closed.round_no}: wagered {money(int(s.get('wagered') or 0))}"
                  f" paid {money(int(s.get('total_win') or 0))} tray {money(tray.total())}")
    while shift < len(shifts) - 1:
        change_shift()
    clock.set(span.end - timedelta(minutes=10))
    book.closer(Chips.of(tray.chips), dealer, sup)
    clock.set(span.end + timedelta(minutes=1))
    for i, period in enumerate(book.calendar.shifts):
        sim_count(book, signers, day, drop_cash[i], drop_markers[i], marker_count[i],
                  shift=period.name)
