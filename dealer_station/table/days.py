"""What simulating whole gaming days at a banked table gives back, whatever the game (the
registry's ``simulate_days`` part, registry.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from dealer_station.money import CHIPS, Money


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
