"""A round's computed and theoretical win: what a banked game's ``wins`` part gives the
master game and shift reports, whatever the game (see the registry, registry.py).

A ``wins`` part may also sum whole spans of time at once (:class:`WinsBySpan`): the reports
that only need sums (the shift report's period, the master game's shifts) then ask for those
instead of a :class:`RoundWin` per round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


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


@dataclass
class SpanWins:
    """The rounds that closed in one span of time, summed: exactly the sums of their
    :class:`RoundWin` (:meth:`add_round` adds one)."""

    rounds: int = 0
    wagered: int = 0
    paid: int = 0
    computed_win: int = 0
    voided_returned: int = 0
    #: Per wager kind: the stakes settled.
    stakes: dict[str, int] = field(default_factory=dict)
    #: Per wager kind: the theoretical win as whole numbers per denominator
    #: ({denominator: theoretical win x denominator}; one denominator per configuration).
    scaled: dict[str, dict[int, int]] = field(default_factory=dict)
    #: How many of the rounds were read wager by wager rather than summed per spot by the
    #: database (a game's own account of how it read them; no figure).
    read_by_wager: int = field(default=0, compare=False)

    def add_kind(self, kind: str, staked: int, theoretical_scaled: int, den: int) -> None:
        """``staked`` settled on wager kind ``kind``, for a theoretical win of
        ``theoretical_scaled / den``."""
        self.stakes[kind] = self.stakes.get(kind, 0) + staked
        by_den = self.scaled.setdefault(kind, {})
        by_den[den] = by_den.get(den, 0) + theoretical_scaled

    def add_round(self, w: RoundWin) -> None:
        self.rounds += 1
        self.wagered += w.wagered
        self.paid += w.paid
        self.computed_win += w.computed_win
        self.voided_returned += w.voided_returned
        for kind, staked, t in w.by_kind_scaled:
            self.add_kind(kind, staked, t, w.den)

    @property
    def returned(self) -> int:
        """Stakes of winning wagers, handed back with the wins."""
        return self.wagered - self.paid - self.computed_win

    def by_kind(self) -> dict[str, tuple[int, Fraction]]:
        """Per wager kind: (stakes settled, theoretical win)."""
        return {k: (self.stakes[k], _exact(self.scaled.get(k, {}))) for k in self.stakes}

    @property
    def theoretical_win(self) -> Fraction:
        """Each settled wager at its own spot's house edge, summed."""
        total: dict[int, int] = {}
        for by_den in self.scaled.values():
            for den, t in by_den.items():
                total[den] = total.get(den, 0) + t
        return _exact(total)


def _exact(scaled: dict[int, int]) -> Fraction:
    return sum((Fraction(t, den) for den, t in scaled.items()), Fraction(0))


#: A span of time, ``[start, end)``; None: open-ended.
Span = tuple[datetime | None, datetime | None]


@runtime_checkable
class WinsBySpan(Protocol):
    """A ``wins`` part that also sums the rounds that closed in each of several spans of time
    at once, with the very figures its rounds' :class:`RoundWin` would sum to.

    ``spans`` are in order and do not overlap. ``through_seq``: only the table's records up
    to this one are read (a round closed after it counts nowhere). ``check_hashes`` as for
    the rounds: every record the figures come from is checked against its keyed hash, in
    the same snapshot of the database as the figures are read; off for a report that
    verifies the whole chain itself and prints the result on every page. Raises
    :class:`~dealer_station.audit.journal.JournalTampered`, ``KeyError``, ``ValueError`` or
    ``TypeError`` where a record is not what the station writes, as the rounds' read does."""

    def by_span(self, journal: Journal, table_id: str, spans: Sequence[Span], /, *,
                through_seq: int | None = None, check_hashes: bool = True
                ) -> list[SpanWins]: ...
