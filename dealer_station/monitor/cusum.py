"""Page's CUSUM for a Bernoulli observation whose chance under a fair game may change every
round, its threshold from a false-alarm rate, and the p-value of the evidence it alarms on.

The observation at look ``t`` is a hit or a miss (the card was a 7; the seat's spots named the
first card). Under a fair game a hit has chance ``p0_t``, known exactly from the deck (it
changes with the cards already dealt and with the spots a seat covered). The test is against a
designed alternative

    p1_t = p0_t + d (1 - p0_t),

"in a fraction ``d`` of the looks the outcome is forced to a hit, otherwise the game is fair":
a faulty or stacked shoe that delivers a value some of the time, a seat that knows the card
some of the time. It is a proper alternative for every ``p0_t`` (above it and below 1), and a
test designed for ``d`` also finds any larger departure (faster) and smaller ones (slower).

The statistic is ``S_t = max(0, S_{t-1} + log(p1_t/p0_t))`` after a hit and ``max(0, S_{t-1} +
log((1-p1_t)/(1-p0_t)))`` after a miss; an alert is raised when ``S_t >= h``, and the test then
starts again from 0.

**False alarms.** Under a fair game each look's likelihood ratio has mean 1, whatever ``p0_t``.
The Shiryaev-Roberts statistic ``R_t = (1 + R_{t-1}) L_t`` then has ``R_t - t`` a martingale, so
the procedure that stops when ``R_t >= e^h`` waits ``e^h`` looks on average before a false
alarm (optional stopping); CUSUM's ``e^{S_t} = max_k prod_{k..t} L`` is at most ``R_t``, so it
stops no sooner: its average run to a false alarm is at least ``e^h`` looks (Lorden's bound,
here without assuming the looks identically distributed). Restarted after each alarm, a
test's long-run false alarms are at most ``e^{-h}`` per look; ``K`` tests, each looking at most
once a round with ``h = log(K / rate)``, are at most ``rate`` false alarms per round together
(Bonferroni), however many rounds are watched.

**p-value.** :meth:`Cusum.p_value` is the exact chance under a fair game of at least as many
hits as the evidence segment holds (the looks since the statistic last left 0, through the
alarm) given each look's ``p0_t`` (a Poisson-binomial tail; a binomial one when the chances
are equal), multiplied by the number of tests run in parallel at the table (Bonferroni) and
capped at 1. It does not allow for the segment's start having been chosen by the test: the
stated false-alarm rate is the threshold's guarantee, the p-value says how unusual the
segment is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# scipy.special, not scipy.stats: the same binomial tail, without scipy.stats' import (about
# 0.4 s, paid by every station and simulate that starts).
from scipy.special import bdtrc


def designed(p0: float, shift: float) -> float:
    """The alternative the test is designed for: ``p0 + shift * (1 - p0)``."""
    return p0 + shift * (1.0 - p0)


def threshold(rate_per_look: float) -> float:
    """The CUSUM threshold ``h`` for at most ``rate_per_look`` false alarms per look
    (Lorden: average run to a false alarm at least ``e^h``)."""
    if not 0 < rate_per_look < 1:
        raise ValueError(f"a false-alarm rate per look is between 0 and 1, got {rate_per_look}")
    return math.log(1.0 / rate_per_look)


def at_least(hits: int, chances: list[float]) -> float:
    """P(X >= hits) where X is the number of hits among independent looks with these
    chances (exact: a binomial tail when they are all equal, else a Poisson-binomial one)."""
    if hits <= 0:
        return 1.0
    if hits > len(chances):
        return 0.0
    if max(chances) - min(chances) < 1e-15:
        return float(bdtrc(hits - 1, len(chances), chances[0]))     # P(X >= hits)
    dist = np.zeros(len(chances) + 1)
    dist[0] = 1.0
    for n, p in enumerate(chances, start=1):
        dist[1:n + 1] = dist[1:n + 1] * (1.0 - p) + dist[0:n] * p
        dist[0] *= 1.0 - p
    return float(min(1.0, max(0.0, dist[hits:].sum())))


@dataclass
class Cusum:
    """One one-sided CUSUM: ``h`` its threshold, ``shift`` the designed ``d``."""

    h: float
    shift: float
    statistic: float = 0.0
    #: The evidence segment: looks since the statistic last left 0.
    first_round: int | None = None
    looks: int = 0
    hits: int = 0
    chances: list[float] = field(default_factory=list)
    #: Who dealt the segment's rounds, and what was staked on the looks (where it applies).
    dealers: list[str] = field(default_factory=list)
    staked: int = 0

    def update(self, hit: bool, p0: float, round_no: int, *, dealer: str | None = None,
               stake: int = 0) -> bool:
        """One look: a hit or a miss with chance ``p0`` under a fair game. True when the
        statistic reaches the threshold (the caller raises the alert, then :meth:`restart`).
        A look whose outcome is certain (``p0`` 0 or 1) carries no evidence and is skipped."""
        if not 0.0 < p0 < 1.0:
            return False
        p1 = designed(p0, self.shift)
        step = math.log(p1 / p0) if hit else math.log((1.0 - p1) / (1.0 - p0))
        value = self.statistic + step
        if value <= 0.0:
            self.restart()
            return False
        if self.statistic == 0.0:
            self.restart()
            self.first_round = round_no
        self.statistic = value
        self.looks += 1
        self.hits += int(hit)
        self.chances.append(p0)
        self.staked += stake
        if dealer and dealer not in self.dealers:
            self.dealers.append(dealer)
        return value >= self.h

    def restart(self) -> None:
        self.statistic = 0.0
        self.first_round, self.looks, self.hits, self.chances = None, 0, 0, []
        self.dealers, self.staked = [], 0

    @property
    def expected(self) -> float:
        """The hits a fair game gives the segment on average."""
        return sum(self.chances)

    def p_value(self, tests: int) -> float:
        """The segment's exact tail chance under a fair game, times ``tests`` (capped at 1)."""
        return min(1.0, tests * at_least(self.hits, self.chances))


def run_length(h: float, shift: float, p0: float, p: float) -> float:
    """Wald's approximation of the looks a CUSUM needs to alarm when hits come with chance
    ``p`` (constant ``p0``): ``h`` over the mean step (infinite when the mean is not above
    0). Used by the docs' tables beside the measured figures."""
    p1 = designed(p0, shift)
    drift = p * math.log(p1 / p0) + (1 - p) * math.log((1 - p1) / (1 - p0))
    return math.inf if drift <= 0 else h / drift
