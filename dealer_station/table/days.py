"""Simulating whole gaming days at a banked table, whatever the game (the registry's
``simulate_days`` part): what it gives back, its signers and its clock."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime

from dealer_station.money import CHIPS, Money

SIM_PIN = "2468"
#: The simulation's signers: (user id, name, role). The dealer is the table's SIM_DEALER.
SIM_USERS = (("sim-operator", "Simulated Operator", "operator"),
             ("sim-dealer", "Simulated Dealer", "dealer"),
             ("sim-supervisor", "Simulated Supervisor", "supervisor"),
             ("sim-count1", "Simulated Counter One", "accounting"),
             ("sim-count2", "Simulated Counter Two", "accounting"))


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
