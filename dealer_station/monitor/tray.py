"""Each dealer's share of the tray's variances (mispays) across shifts, and the rule that
alerts on it.

The station settles every wager exactly, so a mispay (a chip paid too many or too few) does
not show in any round: it shows in the tray, when the count room's statistical win of a shift
(the tray counted at its close, the fills, credits and the soft count's drop) differs from the
computed win the station settled in it. That is known only shift by shift, and only once the
drop is counted (after the gaming day), so this is not a round-by-round test of the live
monitor but a test over a span of shifts, read from the count room's figures
(:mod:`dealer_station.table.monitor_tray`).

**The test.** Each shift with rounds is given to the dealer who dealt most of its rounds (at a
table whose dealers rotate within a shift, the shift's main dealer). A shift's tray is *out* by
its variance either way (a chip paid too many and one too few are both mispays). Under a fair
tray, a dealer's shifts are no further out than anyone's: the shifts' variances are
exchangeable between dealers, and the sum of the ranks of a dealer's ``m`` shifts among the
``n`` (by how far out, ties at their mid-rank) has the law of the rank sum of ``m`` shifts
drawn at random (Wilcoxon, Mann and Whitney). The p-value is that law's exact upper tail at
what was seen, counted over every way of drawing ``m`` of the ``n`` shifts (ties included),
times the dealers tested (Bonferroni), capped at 1: an exact, conditional test that needs no
rate of mispays, and that weighs how far out each shift was, not only whether it was. (When
the others' trays are never out, it is the hypergeometric test of the dealer's share of the
shifts out.)

**The rule** (:class:`TrayRule`). It looks once a gaming day, when the count room has counted
every shift of the day: at the shifts of the last ``days`` gaming days. Its share of the
table's false-alarm rate is spent over the rounds each look covers (the day's): a look at a day
of ``r`` rounds alerts a dealer whose p-value is below ``rate x share x r``, so that over any
span the rule's false alarms are at most its share of one per ``rounds_per_false_alarm``
rounds (a union bound over the looks, whatever their overlap). A dealer is alerted when the
evidence crosses: below the threshold now and not at the previous look (the previous counted
day within the window), so one run of evidence raises one alert.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from dealer_station.monitor.alerts import Alert
from dealer_station.monitor.settings import MonitorSettings

#: The rule's id (``rule`` of its alerts; a dealer's test is ``tray:DEALER``).
TRAY = "tray"


@dataclass(frozen=True)
class ShiftTally:
    """One shift of a table: the rounds each dealer dealt in it, and its variance (the
    statistical win less the computed win, minor units: negative when the tray is short)."""

    gaming_day: date
    shift: str
    dealers: Mapping[str, int]
    variance: int
    #: The shift's first and last round (closed in it).
    first_round: int = 0
    last_round: int = 0

    @property
    def rounds(self) -> int:
        return sum(self.dealers.values())

    @property
    def dealer(self) -> str | None:
        """The dealer who dealt most of the shift's rounds (the first by name on a tie)."""
        if not self.dealers:
            return None
        return min(self.dealers, key=lambda d: (-self.dealers[d], d))


@dataclass(frozen=True)
class DealerVariances:
    """One dealer's shifts: ``shifts`` theirs of ``of_shifts``, ``with_variance`` of them out
    (of ``variances`` shifts out at the table) where their share gives ``expected``; the
    p-value of their shifts being at least as far out."""

    dealer: str
    shifts: int
    of_shifts: int
    with_variance: int
    variances: int
    expected: float
    p_value: float
    #: The sum of their shifts' variances (minor units).
    variance: int


def rank_sum_tail(scores: Sequence[int], mine: Sequence[bool]) -> float:
    """The chance that ``m`` of the scores drawn at random (``m``: how many ``mine`` marks)
    have a rank sum at least that of those ``mine`` marks (ranks from the lowest, ties at their
    mid-rank): exact, by counting the draws of each size and doubled rank sum."""
    m = sum(1 for x in mine if x)
    if m == 0 or m == len(scores):
        return 1.0
    # Imported here: the look runs once a counted day, and scipy.stats costs every station
    # and simulate 0.4 s to import.
    from scipy.stats import rankdata

    doubled = [int(r) for r in 2 * rankdata(scores)]     # mid-ranks are halves: doubled
    seen = sum(r for r, x in zip(doubled, mine, strict=True) if x)
    top = sum(sorted(doubled)[-m:]) + 1
    # ways[k][s]: the draws of k scores (of those so far) whose doubled rank sum is s.
    ways = np.zeros((m + 1, top))
    ways[0, 0] = 1.0
    for r in doubled:
        ways[1:, r:] = ways[1:, r:] + ways[:-1, :top - r]
    total = float(ways[m].sum())
    return float(ways[m, seen:].sum()) / total


def dealer_variances(tallies: Sequence[ShiftTally]) -> list[DealerVariances]:
    """Each dealer's shifts against the others' by how far their trays were out (by dealer
    id; see the module)."""
    shifts = [t for t in tallies if t.dealer is not None]
    n = len(shifts)
    k = sum(1 for t in shifts if t.variance != 0)
    scores = [abs(t.variance) for t in shifts]
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
        p = rank_sum_tail(scores, [t.dealer == dealer for t in shifts]) if x > 0 else 1.0
        out.append(DealerVariances(dealer, m, n, x, k, k * m / n if n else 0.0,
                                   min(1.0, tests * p), sum(t.variance for t in own)))
    return out


@dataclass(frozen=True)
class TrayPoint:
    """One look at one dealer: the day counted and its last round, the statistic (-ln of the
    dealer's p-value) and the look's threshold, whether the dealer dealt a shift that day,
    their shifts' variance (minor units) and the last round they dealt that day (0: none)."""

    day: date
    round_no: int
    statistic: float
    threshold: float
    dealt: bool
    variance: int
    own_round: int = 0


class TrayRule:
    """The alerts on each dealer's share of the tray's variances, look by look (see the
    module)."""

    RULE = TRAY

    def __init__(self, table: str, settings: MonitorSettings | None = None) -> None:
        self.table = table
        self.settings = s = settings or MonitorSettings()
        self.days = s.tray.days
        #: The rule's false alarms per round at the table.
        self.rate = s.tray.share / s.total_share / s.rounds_per_false_alarm

    def alpha(self, rounds: int) -> float:
        """The threshold on a dealer's p-value at a look covering ``rounds`` rounds."""
        return min(1.0, self.rate * max(rounds, 1))

    def window(self, tallies: Sequence[ShiftTally], day: date) -> list[ShiftTally]:
        """The shifts a look at ``day`` tests: those of the ``days`` gaming days to ``day``."""
        first = day - timedelta(days=self.days - 1)
        return [t for t in tallies if first <= t.gaming_day <= day]

    def look(self, tallies: Sequence[ShiftTally], day: date) -> Look | None:
        """The look at ``day`` (None: no shift of that day among ``tallies``)."""
        shifts = self.window(tallies, day)
        today = [t for t in shifts if t.gaming_day == day]
        if not today:
            return None
        return Look(day, shifts, today, self.alpha(sum(t.rounds for t in today)),
                    dealer_variances(shifts))

    def looks(self, tallies: Sequence[ShiftTally], counted: Sequence[date]) -> list[Alert]:
        """The alerts of a look at each day of ``counted`` (the days whose every shift is
        counted, in order), from the table's shifts ``tallies`` (at least the ``days`` before
        each look's previous)."""
        out: list[Alert] = []
        crossed: set[str] = set()
        previous: date | None = None
        for day in sorted(counted):
            if previous is None or (day - previous).days >= self.days:
                crossed = set()      # no look within the window: the evidence starts afresh
            look = self.look(tallies, day)
            below = look.below() if look is not None else []
            if look is not None:
                out += [self._alert(look, d) for d in below if d.dealer not in crossed]
            crossed = {d.dealer for d in below}
            previous = day
        return out

    def trace(self, tallies: Sequence[ShiftTally], counted: Sequence[date], dealer: str,
              day: date) -> list[TrayPoint]:
        """The looks at ``dealer`` over the window that ends at ``day``: each look's statistic
        (-ln of the dealer's p-value) against its threshold (the evidence page's chart)."""
        first = day - timedelta(days=self.days - 1)
        out: list[TrayPoint] = []
        for d in sorted(counted):
            look = self.look(tallies, d) if first <= d <= day else None
            if look is None:
                continue
            mine = next((v for v in look.variances if v.dealer == dealer), None)
            own = [t for t in look.today if t.dealer == dealer]
            out.append(TrayPoint(d, look.round_no,
                                 _minus_log(mine.p_value if mine is not None else 1.0),
                                 look.threshold, bool(own), sum(t.variance for t in own),
                                 max((t.last_round for t in own), default=0)))
        return out

    def scan(self, tallies: Sequence[ShiftTally], counted: Sequence[date]
             ) -> list[tuple[date, int, str, float, float]]:
        """Every look at every dealer: (day, its last round, the dealer, the statistic, the
        look's threshold); the report's state of the rule."""
        out = []
        for d in sorted(counted):
            look = self.look(tallies, d)
            if look is not None:
                out += [(d, look.round_no, v.dealer, _minus_log(v.p_value), look.threshold)
                        for v in look.variances]
        return out

    def _alert(self, look: Look, d: DealerVariances) -> Alert:
        shifts = look.shifts
        return Alert(
            rule=TRAY, test=f"{TRAY}:{d.dealer}", table=self.table, round_no=look.round_no,
            seat=None, dealer=d.dealer, stage=None, value=None, colour=None,
            statistic=_minus_log(d.p_value), threshold=look.threshold, p_value=d.p_value,
            rounds_per_false_alarm=self.settings.rounds_per_false_alarm,
            tests=len(look.variances),
            first_round=min((t.first_round for t in shifts if t.first_round), default=0),
            looks=d.shifts, hits=d.with_variance, expected=d.expected, dealers=(d.dealer,),
            win=d.variance, of_shifts=d.of_shifts, shifts_out=d.variances,
            first_day=min(t.gaming_day for t in shifts).isoformat(),
            last_day=look.day.isoformat())


@dataclass(frozen=True)
class Look:
    """One look: the day counted, the window's shifts and the day's, the threshold on a
    dealer's p-value (``alpha``) and each dealer's test."""

    day: date
    shifts: list[ShiftTally]
    today: list[ShiftTally]
    alpha: float
    variances: list[DealerVariances]

    @property
    def round_no(self) -> int:
        """The day's last round (the alert's)."""
        return max(t.last_round for t in self.today)

    @property
    def threshold(self) -> float:
        return _minus_log(self.alpha)

    def below(self) -> list[DealerVariances]:
        """The dealers whose p-value is below the threshold."""
        return [d for d in self.variances if d.p_value < self.alpha]


def _minus_log(p: float) -> float:
    """-ln p, the statistic a chart draws (a p-value of 0 read as the smallest double)."""
    return -math.log(max(p, 1e-300))
