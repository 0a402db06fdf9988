"""Each dealer's share of the tray's variances (mispays) across shifts.

The station settles every wager exactly, so a mispay (a chip paid too many or too few) does
not show in any round: it shows in the tray, when the count room's statistical win of a shift
(the tray counted at its close, the fills, credits and the soft count's drop) differs from the
computed win the station settled in it. That is known only shift by shift, and only once the
drop is counted (after the gaming day), so this is not a round-by-round test of the live
monitor but a test over a span of shifts, read from the count room's figures
(:mod:`dealer_station.table.monitor_tray`).

**The test.** Each shift with rounds is given to the dealer who dealt most of its rounds (at a
table whose dealers rotate within a shift, the shift's main dealer). Under a fair tray (mispays
no more likely on one dealer's shifts than another's, and so the shifts with a variance a
random draw of the shifts), the number of a dealer's shifts among the ``k`` shifts with a
variance out of ``n`` is hypergeometric: ``m`` of the ``n`` shifts are theirs. The p-value is
that law's exact upper tail at what was seen, times the dealers tested (Bonferroni), capped at
1: an exact, conditional test that needs no rate of mispays.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from scipy.stats import hypergeom


@dataclass(frozen=True)
class ShiftTally:
    """One shift of a table: the rounds each dealer dealt in it, and its variance (the
    statistical win less the computed win, minor units: negative when the tray is short)."""

    gaming_day: date
    shift: str
    dealers: Mapping[str, int]
    variance: int

    @property
    def dealer(self) -> str | None:
        """The dealer who dealt most of the shift's rounds (the first by name on a tie)."""
        if not self.dealers:
            return None
        return min(self.dealers, key=lambda d: (-self.dealers[d], d))


@dataclass(frozen=True)
class DealerVariances:
    """One dealer's shifts: ``shifts`` theirs of ``of_shifts``, ``with_variance`` of them with
    a variance where a fair tray gives ``expected``; the p-value of at least that many."""

    dealer: str
    shifts: int
    of_shifts: int
    with_variance: int
    variances: int
    expected: float
    p_value: float
    #: The sum of their shifts' variances (minor units).
    variance: int


def dealer_variances(tallies: Sequence[ShiftTally]) -> list[DealerVariances]:
    """Each dealer's share of the shifts with a variance (by dealer id), tested against their
    share of the shifts (see the module)."""
    shifts = [t for t in tallies if t.dealer is not None]
    n = len(shifts)
    k = sum(1 for t in shifts if t.variance != 0)
    mine: dict[str, list[ShiftTally]] = {}
    for t in shifts:
        assert t.dealer is not None
        mine.setdefault(t.dealer, []).append(t)
    tests = len(mine)
    out: list[DealerVariances] = []
    for dealer in sorted(mine):
        own = mine[dealer]
        m = len(own)
        x = sum(1 for t in own if t.variance != 0)
        p = float(hypergeom.sf(x - 1, n, k, m)) if x > 0 else 1.0
        out.append(DealerVariances(dealer, m, n, x, k, k * m / n if n else 0.0,
                                   min(1.0, tests * p), sum(t.variance for t in own)))
    return out
