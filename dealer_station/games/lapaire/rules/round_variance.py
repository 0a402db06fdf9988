"""The exact law of a La Pair'e round's house win, given the wagers placed on it.

A round's wagers are settled by the same three cards, so they are not independent: a
Straight-up on 7 and First Card Red lose together on a black 7, the La Pair'e Card on 7 wins
only when the Straight-up on 7 does, and 3rd Card Poker's hand is made of the first card
too. The house win of the round is

    W = f1(card 1) + f2(value of card 1, value of card 2) + f3(the hand of cards 1 to 3)

where ``f1`` sums the house results of the wagers card 1 settles (the First Card spots, Red,
Black), ``f2`` those card 2 settles (La Pair'e Card, Any Pair'e) and ``f3`` those card 3
settles (3rd Card Poker: every Poker wager is paid by the same hand, at its odds). A wager's
house result is its stake when it loses and minus its win (``Odds.pay``, rounded down to the
minor unit as the engine pays it) when it wins.

**Method.** Once per paytable, every ordered deal of three cards from the 54-card deck
(54 x 53 x 52 = 148,824 deals) is counted into cells ``(card 1's class, card 2's value,
the Poker odds the hand is paid at)``: 53 classes (the 52 faces and the Jokers), 14 values,
and one group per distinct Poker price (and "no hand"). ``f1``, ``f2`` and ``f3`` are each
constant on a cell, so ``W`` is too: the law of ``W`` is the cells' counts added up per
value of ``W`` (at most 53 x 14 x 8 cells), exact whole numbers over 148,824. The mean and
the variance follow exactly, as fractions. A round without Poker wagers needs only card 1's
class and card 2's value; one without stage-2 wagers only card 1's class.

The laws are cached per configuration and per set of wagers (the same wagers on the same
spots give the same law), so a round costs a dictionary look-up when its wagers were seen
before and well under a millisecond when not.

``cards``: how many of the round's cards were dealt. A round voided after card 1 settled only
the wagers card 1 settles (the others were handed back and win nothing for anyone), so its law
is that of those wagers alone; a round closed normally dealt all three.

Pure: the rules package, numpy; no station layer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.rules.config import LaPaireConfig, Odds, Paytable
from dealer_station.games.lapaire.rules.engine import compile_table
from dealer_station.games.lapaire.rules.poker import CLASS_COUNT, JOKER_CLASS, hand_table

#: Ordered deals of three cards from the 54-card deck.
DEALS = LAPAIRE_DECK.size * (LAPAIRE_DECK.size - 1) * (LAPAIRE_DECK.size - 2)
#: Card values on the layout (A..K, then the Joker).
_VALUE_COUNT = 14
#: A wager as the journal holds it: its kind, the values its spot names, its stake.
Staked = tuple[str, tuple[str, ...], int]


def _value(cls: int) -> int:
    return 13 if cls == JOKER_CLASS else cls % 13


@dataclass(frozen=True)
class RoundLaw:
    """The law of a round's house win (minor units): each value it can take and how many of
    the ``total`` equally likely ordered deals give it."""

    values: tuple[int, ...]
    counts: tuple[int, ...]
    total: int = DEALS

    @cached_property
    def mean(self) -> Fraction:
        return Fraction(sum(v * n for v, n in zip(self.values, self.counts, strict=True)),
                        self.total)

    @cached_property
    def variance(self) -> Fraction:
        second = Fraction(sum(v * v * n for v, n in zip(self.values, self.counts,
                                                        strict=True)), self.total)
        return second - self.mean * self.mean

    @property
    def probabilities(self) -> tuple[float, ...]:
        return tuple(n / self.total for n in self.counts)


#: The law of a round with no wager in action: a win of 0 for certain.
NOTHING = RoundLaw((0,), (DEALS,))


class _Deals:
    """Every ordered three-card deal of one paytable, counted into cells (see the module)."""

    def __init__(self, paytable: Paytable) -> None:
        hands = hand_table(paytable)
        groups: dict[Odds | None, int] = {}
        n = CLASS_COUNT
        copies = [2 if c == JOKER_CLASS else 1 for c in range(n)]
        counts: dict[tuple[int, int, int], int] = {}
        for c1 in range(n):
            for c2 in range(n):
                w2 = copies[c2] - (c2 == c1)
                if w2 <= 0:
                    continue
                v2 = _value(c2)
                for c3 in range(n):
                    w3 = copies[c3] - (c3 == c1) - (c3 == c2)
                    if w3 <= 0:
                        continue
                    a, b, c = sorted((c1, c2, c3))
                    odds = hands[(a, b, c)].odds
                    g = groups.setdefault(odds, len(groups))
                    key = (c1, v2, g)
                    counts[key] = counts.get(key, 0) + copies[c1] * w2 * w3
        self.odds: tuple[Odds | None, ...] = tuple(groups)
        cells = np.zeros((n, _VALUE_COUNT, len(self.odds)), dtype=np.int64)
        for (c1, v2, g), k in counts.items():
            cells[c1, v2, g] = k
        assert int(cells.sum()) == DEALS
        #: Deals per (card 1's class, card 2's value, Poker price group).
        self.cells = cells
        #: Deals per (card 1's class, card 2's value), and per card 1's class.
        self.pairs = cells.sum(axis=2)
        self.firsts = self.pairs.sum(axis=1)


_DEALS: dict[Paytable, _Deals] = {}


def _deals(paytable: Paytable) -> _Deals:
    found = _DEALS.get(paytable)
    if found is None:
        found = _DEALS[paytable] = _Deals(paytable)
    return found


#: The card-1 class -> value index, and each class's value as stage 2 reads it.
_VALUE_OF = np.array([_value(c) for c in range(CLASS_COUNT)], dtype=np.int64)


def _house(odds: Odds | None, amount: int) -> int:
    """The house's result on one wager of ``amount`` paid at ``odds`` (None: it loses)."""
    return amount if odds is None else -odds.pay(amount)


class RoundLaws:
    """The laws of one configuration's rounds, cached by the wagers in action."""

    MAX_CACHED = 20_000

    def __init__(self, config: LaPaireConfig) -> None:
        self.config = config
        self.table = compile_table(config)
        self._cache: dict[tuple[tuple[Staked, ...], int], RoundLaw | None] = {}

    def law(self, wagers: Iterable[Staked], cards: int = 3) -> RoundLaw | None:
        """The law of the house win of a round with ``wagers`` placed, ``cards`` of its cards
        dealt (the wagers of later stages were handed back); None when a wager is on a spot
        this configuration does not offer (its settlement is unknown here)."""
        key = (tuple(sorted((b, tuple(v), a) for b, v, a in wagers)), min(cards, 3))
        if key in self._cache:
            return self._cache[key]
        found = self._law(*key)
        if len(self._cache) >= self.MAX_CACHED:
            self._cache.clear()
        self._cache[key] = found
        return found

    def _law(self, wagers: tuple[Staked, ...], cards: int) -> RoundLaw | None:
        n = CLASS_COUNT
        f1 = np.zeros(n, dtype=np.int64)
        f2 = np.zeros((_VALUE_COUNT, _VALUE_COUNT), dtype=np.int64)
        poker: list[int] = []
        stages = set()
        for bet, values, amount in wagers:
            rule = self.table.rules.get((bet, values))
            if rule is None:
                return None
            if rule.stage > cards:
                continue
            stages.add(rule.stage)
            if rule.stage == 1:
                f1 += np.array([_house(rule.pays[c], amount) for c in range(n)],
                               dtype=np.int64)
            elif rule.stage == 2:
                f2 += np.array([[_house(rule.pays[v1 * 14 + v2], amount)
                                 for v2 in range(_VALUE_COUNT)]
                                for v1 in range(_VALUE_COUNT)], dtype=np.int64)
            else:
                poker.append(amount)
        if not stages:
            return NOTHING
        deals = _deals(self.config.paytable())
        if 3 in stages:
            f3 = np.array([sum(_house(o, a) for a in poker) for o in deals.odds],
                          dtype=np.int64)
            win = (f1[:, None, None] + f2[_VALUE_OF][:, :, None] + f3[None, None, :])
            weights = deals.cells
        elif 2 in stages:
            win = f1[:, None] + f2[_VALUE_OF]
            weights = deals.pairs
        else:
            win, weights = f1, deals.firsts
        keep = weights > 0
        values, inverse = np.unique(win[keep], return_inverse=True)
        counts = np.bincount(inverse, weights=weights[keep])
        return RoundLaw(tuple(int(v) for v in values), tuple(round(float(c)) for c in counts))


_LAWS: dict[int, tuple[LaPaireConfig, RoundLaws]] = {}


def round_laws(config: LaPaireConfig) -> RoundLaws:
    """The :class:`RoundLaws` of ``config`` (made once per configuration object)."""
    hit = _LAWS.get(id(config))
    if hit is not None and hit[0] is config:
        return hit[1]
    laws = RoundLaws(config)
    if len(_LAWS) >= 8:
        _LAWS.pop(next(iter(_LAWS)))
    _LAWS[id(config)] = (config, laws)
    return laws
