"""The deck's composition, from which every chance under a fair game is exact: the 52
standard cards (4 of each rank, 26 red and 26 black) and ``jokers`` Jokers (La Pair'e's deck
has 2: 54 cards, values A, 2..10, J, Q, K and JK). The shoe deals a fresh, shuffled deck each
round, so the chance of a value at card ``n`` is its copies left after the round's earlier
cards over the cards left.
"""

from __future__ import annotations

from dealer_station.cards import JOKER, VALUES

#: The colours the shoe rule watches, as people read them.
COLOURS: tuple[str, ...] = ("red", "black")
_ALIASES = {"T": "10", "1": "A"}


def copies(value: str, jokers: int) -> int:
    """How many cards of ``value`` a full deck holds."""
    return jokers if value == JOKER else 4


def deck_size(jokers: int) -> int:
    return 52 + jokers


def card_value(code: str) -> str:
    """A card code's value: ``10H`` -> ``10``, ``JK`` -> ``JK``."""
    text = code.strip().upper()
    if text == JOKER:
        return JOKER
    rank = text[:-1]
    return _ALIASES.get(rank, rank)


def card_colour(code: str) -> str | None:
    """``red`` or ``black``; None for a Joker."""
    text = code.strip().upper()
    if text == JOKER:
        return None
    return "red" if text[-1] in "HD" else "black"


__all__ = ["COLOURS", "VALUES", "card_colour", "card_value", "copies", "deck_size"]
