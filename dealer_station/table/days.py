"""Simulating whole gaming days at a banked table, whatever the game (the registry's
``simulate_days`` part): what it gives back, its signers and its clock."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from dealer_station.audit.journal import iso_utc
from dealer_station.errors import StationError
from dealer_station.money import CHIPS, Money

if TYPE_CHECKING:
    from dealer_station.accounting.chips import Chips
    from dealer_station.audit.users import User
    from dealer_station.table.accounting import TableAccounting

SIM_PIN = "2468"
#: The simulation's signers: (user id, name, role). The dealer is the table's SIM_DEALER.
SIM_USERS = (("sim-operator", "Simulated Operator", "operator"),
             ("sim-dealer", "Simulated Dealer", "dealer"),
             ("sim-supervisor", "Simulated Supervisor", "supervisor"),
             ("sim-count1", "Simulated Counter One", "accounting"),
             ("sim-count2", "Simulated Counter Two", "accounting"),
             ("sim-cashier", "Simulated Cage Cashier", "cage"),
             ("sim-runner", "Simulated Security Runner", "security"))


class SimClock:
    """A settable clock for the journal: the simulation moves it, nothing sleeps."""

    def __init__(self, start: datetime) -> None:
        self.moment = start
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return self.moment

    def set(self, moment: datetime) -> None:
        with self._lock:
            # Never backwards: records keep their order in time.
            self.moment = max(self.moment, moment.astimezone(UTC))


@dataclass
class DaysResult:
    days: int = 0
    rounds: int = 0
    #: Minor units of ``money``: positive when the dealer paid out more than was settled.
    mispaid: int = 0
    mispays: int = 0
    first_day: date | None = None
    last_day: date | None = None
    #: The table's money, in which ``mispaid`` is said to people.
    money: Money = CHIPS

    def mispaid_text(self) -> str:
        """``mispaid`` as money (``-3.00 USD``)."""
        return self.money.text(self.mispaid)


def sim_signers(signers: Mapping[str, User], slots: Sequence[str]) -> list[User]:
    """The simulation's user for each signature (by role; a second supervisor's signature is
    the operator's)."""
    out: list[User] = []
    for slot in slots:
        user = signers[slot]
        if user in out and slot == "supervisor":
            user = signers["operator"]
        out.append(user)
    return out


def sim_slip(book: TableAccounting, signers: Mapping[str, User], clock: SimClock, kind: str,
             chips: Chips, note: str) -> None:
    """A fill or credit as the jurisdiction has it taken: through the cage (requested by the
    supervisor, issued by the cashier, carried by security, signed for at the table, a minute
    or so between the steps), or signed at the table in one step."""
    from dealer_station.events.accounting import SlipRequested
    from dealer_station.table.accounting import accounting_event
    from dealer_station.table.cage import CageDesk

    rules = book.settings.cage
    table = sim_signers(signers, rules.receipt)
    if not rules.through_cage:
        book.slip(kind, chips, table[0], table[1] if len(table) > 1 else None, note=note)
        return
    desk = CageDesk(book)
    asked = accounting_event(desk.request(kind, chips, signers["supervisor"], note=note),
                             SlipRequested)
    step = timedelta(seconds=40)
    clock.set(clock() + step)
    desk.issue(asked.year, asked.request, chips, sim_signers(signers, rules.issue))
    if rules.runner:
        clock.set(clock() + step)
        desk.carry(asked.year, asked.request, sim_signers(signers, rules.runner))
    clock.set(clock() + step)
    desk.receive(asked.year, asked.request, chips, table)


def notes_for(amount: int, denominations: Sequence[int]) -> Chips:
    """The notes a simulated drop box holds for ``amount``: the largest first."""
    from dealer_station.accounting.chips import Chips

    left, out = amount, {}
    for d in sorted(denominations, reverse=True):
        out[d], left = divmod(left, d)
    if left:
        raise StationError(f"{amount} minor units cannot be made of the notes "
                           f"{list(denominations)}")
    return Chips.of(out)


def sim_count(book: TableAccounting, signers: Mapping[str, User], day: date, cash: int,
              markers: int, marker_count: int, *, shift: str | None = None) -> None:
    """The count room's count of a simulated drop box, by note, by the simulated team, each
    member signing in by PIN at the table once a gaming day, before its first box (the count
    sheet prints when)."""
    from dealer_station.audit.users import Users
    from dealer_station.table.count_room import CountRoom

    notes = notes_for(cash, book.settings.currency_denominations)
    closed = iso_utc(book.calendar.day(day).end)
    signed_in = {r.actor: r.ts for r in book.journal.events(
        book.table_id, since=book.calendar.day(day).end, kinds=["login"])}
    team = []
    for name in ("sim-count1", "sim-count2"):
        user = signers[name]
        if signed_in.get(user.actor, "") < closed:     # not yet in this day's count
            user = Users(book.journal).authenticate(user.user_id, SIM_PIN,
                                                    table_id=book.table_id)
        team.append(user)
    CountRoom(book).count(day, notes, markers, marker_count, team, shift=shift)
