"""The exact par sheet of a La Pair'e table.

For every offered spot: the probability of each paying outcome, the return to player, the house
edge, the variance and the standard deviation of the result per unit staked, all computed by
counting over the 54-card deck (52 cards and two jokers), never by simulation.

Per-unit figures use the exact odds; payouts on a real amount are rounded down to the minor
unit (see ``Odds.pay``), which can only lower the return of odds with a denominator above 1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import isqrt, lcm
from typing import Any

from dealer_station.cards import JOKER, LAPAIRE_DECK, RANKS
from dealer_station.games.lapaire.rules.config import (
    HAND_LABELS,
    KIND_LABELS,
    AnyPairWager,
    EvenWager,
    LaPaireConfig,
    Odds,
    PokerWager,
    SpotWager,
    parse_lapaire_config,
)
from dealer_station.games.lapaire.rules.layout import spot_label
from dealer_station.games.lapaire.rules.poker import hand_table, hand_weight

DECK = LAPAIRE_DECK.size  # 54
#: Ordered first-two-card deals: 54 * 53.
TWO_CARD_DEALS = DECK * (DECK - 1)
#: Unordered three-card hands: C(54, 3).
THREE_CARD_HANDS = DECK * (DECK - 1) * (DECK - 2) // 6
STDEV_PLACES = 12


def copies(value: str) -> int:
    """How many cards of the deck show ``value``: 4 of a rank, 2 jokers."""
    return LAPAIRE_DECK.jokers if value == JOKER else 4


@dataclass(frozen=True, slots=True)
class ParOutcome:
    """One way a spot wins: what, the odds paid, and its exact probability."""

    label: str
    odds: Odds
    probability: Fraction


@dataclass(frozen=True, slots=True)
class ParSheetRow:
    """The exact game math of one offered spot, per unit staked.

    ``rtp`` counts the returned stake (a fair bet is 1); ``house_edge`` = 1 - rtp; ``variance``
    is exact; ``stdev`` is its square root rounded down to STDEV_PLACES decimal places (a
    square root is seldom a fraction). ``warning`` is set where the edge is negative or above
    the table's threshold.
    """

    bet: str
    values: tuple[str, ...]
    outcomes: tuple[ParOutcome, ...]
    probability: Fraction
    rtp: Fraction
    house_edge: Fraction
    variance: Fraction
    stdev: Fraction
    warning: str | None = None

    @property
    def label(self) -> str:
        """``"Split 2-8"``, ``"First Card Red"``."""
        name = KIND_LABELS[self.bet]
        return f"{name} {spot_label(self.values)}" if self.values else name

    @property
    def payout(self) -> str:
        """The odds, e.g. ``"12 to 1"`` or ``"16 to 1 pair, 50 to 1 two jokers"``."""
        if len(self.outcomes) == 1:
            return str(self.outcomes[0].odds)
        return ", ".join(f"{o.odds} {o.label}" for o in self.outcomes)


def percent(value: Fraction, places: int = 2) -> str:
    """``Fraction(1, 27)`` -> ``"3.70%"`` (rounded half away from zero)."""
    scaled = value * 100 * 10**places
    n = int(abs(scaled) + Fraction(1, 2))
    sign = "-" if scaled < 0 and n else ""
    whole, frac = divmod(n, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}%" if places else f"{sign}{whole}%"


def _sqrt_floor(value: Fraction, places: int = STDEV_PLACES) -> Fraction:
    scale = 10**places
    return Fraction(isqrt(value.numerator * scale * scale // value.denominator), scale)


def _row(bet: str, values: tuple[str, ...], outcomes: list[ParOutcome],
         threshold: Fraction) -> ParSheetRow:
    p_win = sum((o.probability for o in outcomes), Fraction(0))
    p_lose = 1 - p_win
    mean = sum((o.probability * o.odds.ratio for o in outcomes), Fraction(0)) - p_lose
    second = sum((o.probability * o.odds.ratio ** 2 for o in outcomes), Fraction(0)) + p_lose
    variance = second - mean * mean
    rtp = 1 + mean
    edge = -mean
    warning = None
    if edge < 0:
        warning = f"negative house edge ({percent(edge)}): the player has the advantage"
    elif edge > threshold:
        warning = (f"house edge {percent(edge)} is above the warning threshold "
                   f"{percent(threshold)}")
    return ParSheetRow(bet, values, tuple(outcomes), p_win, rtp, edge, variance,
                       _sqrt_floor(variance), warning)


def _poker_outcomes(config: LaPaireConfig) -> list[ParOutcome]:
    paytable = config.paytable()
    counts: dict[str, int] = defaultdict(int)
    for triple, hand in hand_table(paytable).items():
        if hand.odds is not None and hand.hand is not None:
            counts[hand.hand] += hand_weight(triple)
    return [ParOutcome(HAND_LABELS[h], odds, Fraction(counts[h], THREE_CARD_HANDS))
            for h, odds in paytable.pays if counts[h]]


def par_sheet(config: LaPaireConfig) -> list[ParSheetRow]:
    """One row per offered spot, in the order of BET_KINDS and then layout order."""
    return list(_par_sheet(config))


@lru_cache(maxsize=32)
def _par_sheet(config: LaPaireConfig) -> tuple[ParSheetRow, ...]:
    # Cached per configuration: the poker spot alone takes a third of a second, and a
    # report reads the same version's sheet for its edges and its theoretical win.
    threshold = config.warn_house_edge_above
    rows: list[ParSheetRow] = []
    for w in config.wagers():
        if not w.offered:
            continue
        if isinstance(w, SpotWager):
            for s in w.offered_spots():
                if w.kind == "lapaire":
                    (v,) = s.values
                    n = copies(v)
                    p = Fraction(n * (n - 1), TWO_CARD_DEALS)
                else:
                    p = Fraction(sum(copies(v) for v in s.values), DECK)
                rows.append(_row(w.kind, s.values, [ParOutcome("win", s.pays, p)], threshold))
        elif isinstance(w, EvenWager):
            rows.append(_row(w.kind, (), [ParOutcome("win", w.pays, Fraction(26, DECK))],
                             threshold))
        elif isinstance(w, AnyPairWager):
            rank_pairs = sum(copies(v) * (copies(v) - 1) for v in RANKS)
            jk = copies(JOKER)
            rows.append(_row(w.kind, (), [
                ParOutcome("pair", w.pays, Fraction(rank_pairs, TWO_CARD_DEALS)),
                ParOutcome("two jokers", w.two_jokers_pays, Fraction(jk * (jk - 1),
                                                                      TWO_CARD_DEALS)),
            ], threshold))
        elif isinstance(w, PokerWager):
            rows.append(_row(w.kind, (), _poker_outcomes(config), threshold))
    return tuple(rows)


@lru_cache(maxsize=32)
def scaled_edges(config: LaPaireConfig) -> tuple[dict[tuple[str, tuple[str, ...]], int], int]:
    """Each offered spot's house edge as a whole number over one denominator (the least common
    multiple of the edges'), and that denominator: a wager's theoretical win is then
    ``stake x edge`` over it, and a month of wagers sums in integers, exactly."""
    rows = {(row.bet, tuple(row.values)): row.house_edge for row in _par_sheet(config)}
    den = 1
    for e in rows.values():
        den = lcm(den, e.denominator)
    return {k: int(e * den) for k, e in rows.items()}, den


def house_edges(content: Mapping[str, Any]) -> dict[str, tuple[Fraction, Fraction]]:
    """The registry's ``house_edges`` part: per wager kind, the lowest and highest house edge
    of its offered spots under the configuration ``content`` (as the journal stores it)."""
    out: dict[str, tuple[Fraction, Fraction]] = {}
    for row in par_sheet(parse_lapaire_config(dict(content), "<journal>")):
        lo, hi = out.get(row.bet, (row.house_edge, row.house_edge))
        out[row.bet] = (min(lo, row.house_edge), max(hi, row.house_edge))
    return out
