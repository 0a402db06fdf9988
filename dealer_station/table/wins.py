"""A round's computed and theoretical win: what a banked game's ``wins`` part gives the
master game and shift reports, whatever the game (see the registry, registry.py)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True, slots=True)
class RoundWin:
    round_no: int
    opened: str
    closed: str
    dealer: str
    status: str
    wagered: int
    paid: int
    computed_win: int
    theoretical_win: Fraction
    #: Per wager kind: (stakes settled, theoretical win x ``den``), whole numbers, so that a
    #: month of rounds is summed without a Fraction per round and kind.
    by_kind_scaled: tuple[tuple[str, int, int], ...] = ()
    den: int = 1
    #: The stakes a void of the round handed back unsettled (in no other figure).
    voided_returned: int = 0

    @property
    def by_kind(self) -> tuple[tuple[str, int, Fraction], ...]:
        """Per wager kind: (stakes settled, theoretical win)."""
        return tuple((k, staked, Fraction(t, self.den)) for k, staked, t in self.by_kind_scaled)

    @property
    def returned(self) -> int:
        """Stakes of winning wagers, handed back with the win."""
        return self.wagered - self.paid - self.computed_win
