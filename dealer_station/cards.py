"""The card model shared by every game.

Pure: no Qt, database, serial or PDF imports (enforced by the import-linter contract in
pyproject.toml). Cards are small immutable values; text codes are rank then suit (``AS``,
``10H`` or ``TH``, ``QD``) and ``JK`` for a joker.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from dealer_station.errors import StationError


class CardError(StationError, ValueError):
    """A card code, deck or round that cannot be right. The message says what and why."""


class Suit(Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def is_red(self) -> bool:
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def symbol(self) -> str:
        return {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[self.value]


# Ranks in ascending order for sequences: A is 1 here; games that play aces high say so.
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER = "JK"
#: Every value a card can show, including the joker (the La Pair'e layout's 14 values).
VALUES: tuple[str, ...] = (*RANKS, JOKER)
_RANK_ALIASES = {"T": "10", "1": "A"}


@dataclass(frozen=True, slots=True, order=False)
class Card:
    """One card. ``rank`` is one of RANKS or ``JK``; ``suit`` is None only for a joker.

    Two jokers in one deck are told apart by ``copy`` (0 or 1) so that a deck holds distinct
    objects; codes do not carry it, because the shoe cannot tell jokers apart either.
    """

    rank: str
    suit: Suit | None
    copy: int = 0

    def __post_init__(self) -> None:
        if self.rank == JOKER:
            if self.suit is not None:
                raise CardError("a joker has no suit")
        elif self.rank not in RANKS:
            raise CardError(f"unknown rank {self.rank!r}")
        elif self.suit is None:
            raise CardError(f"rank {self.rank} needs a suit")

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def value(self) -> str:
        """The layout value: the rank, or ``JK``."""
        return self.rank

    @property
    def is_red(self) -> bool:
        return self.suit is not None and self.suit.is_red

    @property
    def is_black(self) -> bool:
        return self.suit is not None and not self.suit.is_red

    @property
    def code(self) -> str:
        return JOKER if self.suit is None else f"{self.rank}{self.suit.value}"

    @property
    def label(self) -> str:
        """A human label with the suit symbol, for screens and paper."""
        return "Joker" if self.suit is None else f"{self.rank}{self.suit.symbol}"

    def __str__(self) -> str:
        return self.code

    def same_face(self, other: Card) -> bool:
        return self.rank == other.rank and self.suit == other.suit


def parse_card(code: str) -> Card:
    """Parse a text code. Raises CardError naming the code when it is not a card."""
    if not isinstance(code, str):
        raise CardError(f"card code must be text, got {code!r}")
    text = code.strip().upper()
    if text == JOKER:
        return Card(JOKER, None)
    if len(text) < 2:
        raise CardError(
            f"unknown card code {code!r}: expected rank then suit, e.g. AS, 10H, QD, JK"
        )
    rank, suit_code = text[:-1], text[-1]
    rank = _RANK_ALIASES.get(rank, rank)
    if rank not in RANKS:
        raise CardError(f"unknown card code {code!r}: rank {rank!r} is not one of "
                        f"{', '.join(RANKS)}")
    try:
        suit = Suit(suit_code)
    except ValueError:
        raise CardError(f"unknown card code {code!r}: suit {suit_code!r} is not one of S, H, D, C"
                        ) from None
    return Card(rank, suit)


def parse_cards(codes: Iterable[str]) -> list[Card]:
    return [parse_card(c) for c in codes]


def parse_value(text: str) -> str:
    """Parse a layout value (``A``..``K``, ``10``/``T``, ``JK``)."""
    if not isinstance(text, str):
        raise CardError(f"card value must be text, got {text!r}")
    v = text.strip().upper()
    v = _RANK_ALIASES.get(v, v)
    if v not in VALUES:
        raise CardError(f"unknown card value {text!r}: expected one of {', '.join(VALUES)}")
    return v


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """What a game's deck holds: the 52 standard cards plus ``jokers`` jokers."""

    name: str
    jokers: int

    @property
    def size(self) -> int:
        return 52 + self.jokers

    def cards(self) -> list[Card]:
        deck = [Card(r, s) for s in Suit for r in RANKS]
        deck.extend(Card(JOKER, None, copy=i) for i in range(self.jokers))
        return deck

    def shuffled(self, rng: random.Random) -> list[Card]:
        deck = self.cards()
        rng.shuffle(deck)
        return deck


LAPAIRE_DECK = DeckSpec("La Pair'e", jokers=2)
BOURRE_DECK = DeckSpec("Bourré", jokers=0)


class RoundCards:
    """The cards seen in one round, checked against the deck as they arrive.

    Rejects a joker in a jokerless deck, a third joker, and the same card twice.
    """

    def __init__(self, deck: DeckSpec) -> None:
        self.deck = deck
        self._seen: list[Card] = []
        self._faces: set[tuple[str, Suit | None]] = set()
        self._jokers = 0

    def check(self, card: Card) -> None:
        """Raise CardError if ``card`` cannot be the next card of this round."""
        if card.is_joker:
            if self._jokers >= self.deck.jokers:
                if self.deck.jokers == 0:
                    raise CardError(f"the {self.deck.name} deck has no jokers")
                raise CardError(f"the {self.deck.name} deck has only {self.deck.jokers} jokers: "
                                f"a joker number {self._jokers + 1} cannot be in this round")
        elif (card.rank, card.suit) in self._faces:
            raise CardError(f"{card.code} has already been dealt this round")

    def add(self, card: Card) -> Card:
        self.check(card)
        if card.is_joker:
            card = Card(JOKER, None, copy=self._jokers)
            self._jokers += 1
        else:
            self._faces.add((card.rank, card.suit))
        self._seen.append(card)
        return card

    def __iter__(self) -> Iterator[Card]:
        return iter(self._seen)

    def __len__(self) -> int:
        return len(self._seen)

    def copy(self) -> RoundCards:
        other = RoundCards(self.deck)
        other._seen = list(self._seen)
        other._faces = set(self._faces)
        other._jokers = self._jokers
        return other


def check_round(cards: Sequence[Card], deck: DeckSpec) -> None:
    """Raise CardError if ``cards`` cannot all come from one ``deck`` in one round."""
    seen = RoundCards(deck)
    for card in cards:
        seen.add(card)
