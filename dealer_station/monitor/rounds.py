"""A round as the monitor reads it: who dealt it, its cards in order, the wagers on it."""

from __future__ import annotations

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
    holds (the deck is the 52 standard cards and these)."""

    table: str
    round_no: int
    dealer: str | None
    cards: tuple[str, ...]
    wagers: tuple[SeatWager, ...]
    jokers: int = 2
