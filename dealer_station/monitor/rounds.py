"""A round as the monitor reads it: who dealt it, its cards in order, the wagers on it."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeatWager:
    """One wager as it stood when betting closed: the seat, its kind (``straight``,
    ``corner``, ``red``...), the values its spot names, the stake in minor units."""

    seat: int
    kind: str
    values: tuple[str, ...]
    amount: int


@dataclass(frozen=True, slots=True)
class DealtRound:
    """A finished round (settled, or voided after some cards): ``cards`` are the card codes
    in the order dealt (``7H``, ``JK``), card 1 first; ``jokers`` how many Jokers the deck
    holds (the deck is the 52 standard cards and these).

    The round's money, where its game banks it (the dealer and hold rules): ``wagered`` and
    ``win`` (the computed house win) from its closing meters, ``theoretical`` (the settled
    wagers' theoretical win), all in minor units, and ``law``, the exact law of its house win
    given the wagers in action (None: not known, or a game the house does not bank)."""

    table: str
    round_no: int
    dealer: str | None
    cards: tuple[str, ...]
    wagers: tuple[SeatWager, ...]
    jokers: int = 2
    wagered: int = 0
    win: int | None = None
    theoretical: float | None = None
    law: WinLaw | None = None


@dataclass(frozen=True, slots=True)
class WinLaw:
    """The exact law of a round's house win given the wagers in action (from the par sheet:
    the game's own rules count it, e.g. games/lapaire/rules/round_variance.py): each value it
    can take (minor units) and its chance."""

    values: tuple[int, ...]
    chances: tuple[float, ...]

    @property
    def mean(self) -> float:
        return math.fsum(v * p for v, p in zip(self.values, self.chances, strict=True))

    @property
    def variance(self) -> float:
        m = self.mean
        return math.fsum((v - m) ** 2 * p for v, p in zip(self.values, self.chances,
                                                           strict=True))
