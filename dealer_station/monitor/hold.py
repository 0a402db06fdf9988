"""The house's win against its theoretical win, round by round, with the exact variance of
the wagers actually placed: the table's hold band, and the sequential test the dealer and
hold rules run on it (docs/monitor.md, "Dealers and the table's hold").

**The band.** Round ``t`` has a computed house win ``W_t``, a theoretical win ``mu_t`` (each
settled wager's stake times its spot's house edge) and an exact variance ``v_t`` (the law of
the house win given the wagers in action: the game's par sheet; for La Pair'e
games/lapaire/rules/round_variance.py). Rounds are independent (a fresh deck each round), so
after ``n`` rounds the cumulative win has mean ``sum mu_t`` and variance ``sum v_t`` exactly,
and the band is ``sum mu_t +- z sqrt(sum v_t)``. It widens with the wagers actually placed: a
round of large or long-odds wagers widens it more than a round of small even-money ones.
By the central limit theorem (Lindeberg: no round dominates the sum) the cumulative win lies
outside a ``z = 3`` band at a given round about 0.27% of the time.

**The test.** :class:`WinCusum` is Page's CUSUM on each round's *score*, its standardized
house win held within ``CLIP`` standard deviations,

    g_t = clip((W_t - mu_t) / sd_t, -CLIP, CLIP),

against an *exponentially tilted* alternative: the law of ``g_t`` reweighted by
``exp(theta g_t)``, ``theta = -shift`` (the house wins less: a dealer's rounds, the hold's low
side) or ``+shift`` (the hold's high side). For a normal win (and no clipping) that is exactly
a shift of the mean by ``shift`` standard deviations, the classical CUSUM of a mean shift.
The round's log-likelihood ratio is

    theta g_t - log E[exp(theta g_t)],

the second term computed exactly from the round's law (every value the round's win can
take, with its chance). Its likelihood ratio has mean exactly 1 under a fair game whatever
the law, so the Shiryaev-Roberts and Lorden argument of :mod:`dealer_station.monitor.cusum`
holds as it stands: at most ``e^{-h}`` false alarms per look. No normal approximation is
made in the threshold.

Why the clip: La Pair'e's wins are skewed (a La Pair'e Card pays 225 to 1). Tilting the raw
win toward "the house wins less" puts the alternative's weight on those rare long-odds
payouts, so that every ordinary round counts against the alarm and a dealer whose rounds lose
steadily is never found. Clipped, a round counts at most ``CLIP`` standard deviations either
way, the tilt moves the bulk of the law, and one jackpot cannot raise an alarm on its own.

**p-value.** The segment's scores summed, against their exact means and variances under a
fair game (from each round's law): ``z = (sum g - sum E g) / sqrt(sum Var g)``, its normal
tail in the test's direction (a sum of independent bounded scores: an approximation, stated
as such), times the tests at the table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from scipy.special import ndtr  # the normal law's cdf (scipy.stats costs 0.4 s to import)

from dealer_station.monitor.rounds import WinLaw


@dataclass(frozen=True, slots=True)
class RoundStake:
    """One settled round's money: ``win`` the computed house win (minor units),
    ``theoretical`` and ``variance`` its house win's exact mean and variance given the wagers
    in action (minor units, minor units squared)."""

    round_no: int
    dealer: str | None
    wagered: int
    win: int
    theoretical: float
    variance: float


@dataclass(frozen=True, slots=True)
class BandPoint:
    """The table after ``round_no``: cumulative ``wagered``, ``win`` and ``theoretical`` win,
    and the band ``[low, high]`` = theoretical -+ z sqrt(cumulative variance)."""

    round_no: int
    wagered: int
    win: int
    theoretical: float
    low: float
    high: float

    @property
    def outside(self) -> bool:
        return not self.low <= self.win <= self.high


def hold_band(rounds: Iterable[RoundStake], z: float = 3.0) -> list[BandPoint]:
    """The cumulative win against the cumulative theoretical win after each of ``rounds``
    (in order), with the band ``z`` standard deviations either side."""
    out: list[BandPoint] = []
    wagered = win = 0
    theo = var = 0.0
    for r in rounds:
        wagered += r.wagered
        win += r.win
        theo += r.theoretical
        var += r.variance
        half = z * math.sqrt(var)
        out.append(BandPoint(r.round_no, wagered, win, theo, theo - half, theo + half))
    return out


#: The tests' directions: the house wins less than its wagers allow, or more.
LOW, HIGH = -1, 1
#: A round's score is its standardized win held within this many standard deviations.
CLIP = 3.0


def score(win: float, mean: float, sd: float) -> float:
    """The round's score: its standardized win, clipped to ``[-CLIP, CLIP]``."""
    return max(-CLIP, min(CLIP, (win - mean) / sd))


class Scored:
    """One round's win scored against its law, once for every test that looks at it: the
    law's mean and standard deviation, the observed score ``g``, the score's exact mean and
    variance, and its log moment-generating function (:meth:`log_mgf`)."""

    __slots__ = ("chances", "g", "g_mean", "g_var", "mean", "scores", "sd", "variance")

    def __init__(self, win: int, law: WinLaw) -> None:
        chances = law.chances
        self.chances = chances
        self.mean = mean = math.fsum(v * p for v, p in zip(law.values, chances, strict=True))
        self.variance = math.fsum((v - mean) ** 2 * p
                                  for v, p in zip(law.values, chances, strict=True))
        self.sd = sd = math.sqrt(self.variance)
        if not sd > 0.0:
            self.scores: list[float] = []
            self.g = self.g_mean = self.g_var = 0.0
            return
        self.scores = scores = [score(v, mean, sd) for v in law.values]
        self.g = score(win, mean, sd)
        self.g_mean = m = math.fsum(p * g for g, p in zip(scores, chances, strict=True))
        self.g_var = math.fsum(p * (g - m) ** 2 for g, p in zip(scores, chances, strict=True))

    def log_mgf(self, theta: float) -> float:
        """``log E[exp(theta g)]`` under the law, exactly."""
        exps = [theta * g for g in self.scores]
        top = max(exps)
        return top + math.log(math.fsum(p * math.exp(e - top)
                                        for e, p in zip(exps, self.chances, strict=True)))


@dataclass
class WinCusum:
    """One one-sided CUSUM on the house win (see the module): ``direction`` LOW or HIGH,
    ``shift`` the designed departure in standard deviations of a round."""

    h: float
    shift: float
    direction: int = LOW
    statistic: float = 0.0
    first_round: int | None = None
    #: The evidence segment: rounds looked at since the statistic last left 0, those of
    #: them whose win was on the alarm's side of its mean, and their sums.
    looks: int = 0
    hits: int = 0
    win: int = 0
    theoretical: float = 0.0
    variance: float = 0.0
    wagered: int = 0
    #: The segment's scores summed, and their means and variances under a fair game.
    scores: float = 0.0
    score_means: float = 0.0
    score_variance: float = 0.0
    dealers: list[str] = field(default_factory=list)

    def update(self, win: int, law: WinLaw, round_no: int, *, wagered: int = 0,
               dealer: str | None = None, scored: Scored | None = None) -> bool:
        """One round's house win ``win`` with its law under a fair game (``scored``: the
        two already scored, when another test has); True when the statistic reaches the
        threshold. A round whose win is certain is skipped."""
        sc = scored if scored is not None else Scored(win, law)
        if not sc.sd > 0.0:
            return False
        mean, var, g = sc.mean, sc.variance, sc.g
        theta = self.direction * self.shift
        step = theta * g - sc.log_mgf(theta)
        value = self.statistic + step
        if value <= 0.0:
            self.restart()
            return False
        if self.statistic == 0.0:
            self.restart()
            self.first_round = round_no
        self.statistic = value
        self.looks += 1
        self.hits += int(self.direction * (win - mean) > 0)
        self.win += win
        self.theoretical += mean
        self.variance += var
        self.wagered += wagered
        self.scores += g
        self.score_means += sc.g_mean
        self.score_variance += sc.g_var
        if dealer and dealer not in self.dealers:
            self.dealers.append(dealer)
        return value >= self.h

    def restart(self) -> None:
        self.statistic = 0.0
        self.first_round, self.looks, self.hits = None, 0, 0
        self.win, self.theoretical, self.variance, self.wagered = 0, 0.0, 0.0, 0
        self.scores, self.score_means, self.score_variance = 0.0, 0.0, 0.0
        self.dealers = []

    @property
    def expected(self) -> float:
        """The segment's theoretical win."""
        return self.theoretical

    @property
    def z(self) -> float:
        """The segment's standardized win: (win - theoretical) / sd."""
        return (self.win - self.theoretical) / math.sqrt(self.variance) if self.variance else 0.0

    @property
    def score_z(self) -> float:
        """The segment's scores, standardized by their exact means and variances."""
        if not self.score_variance > 0.0:
            return 0.0
        return (self.scores - self.score_means) / math.sqrt(self.score_variance)

    def p_value(self, tests: int) -> float:
        """The segment's scores' normal tail in the test's direction, times ``tests``
        (capped at 1)."""
        return min(1.0, tests * float(ndtr(-self.direction * self.score_z)))


def run_length(h: float, shift: float, mean_shift: float) -> float:
    """Wald's approximation of the rounds a :class:`WinCusum` designed for ``shift`` needs
    when a normal win's mean has moved ``mean_shift`` standard deviations its way: ``h`` over
    the mean step ``shift * mean_shift - shift^2 / 2`` (infinite when that is not above 0)."""
    drift = shift * mean_shift - shift * shift / 2
    return math.inf if drift <= 0 else h / drift
