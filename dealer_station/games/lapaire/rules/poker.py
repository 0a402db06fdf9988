"""3rd Card Poker: the hand made by the first three cards, jokers wild.

Hands, best first: Two Jokers, Mini Royal (A-K-Q suited), Straight Flush, Three of a Kind,
Straight, Flush (and Pair, for a paytable that pays it). A-2-3 and Q-K-A are straights; K-A-2
is not. One joker stands for any card not already in the hand, taking whichever value pays most
under the paytable in use (so the same cards can be different hands under different
paytables); two jokers make Two Jokers.

Cards are also numbered 0..52 as *classes* (52 standard faces, then one class for both jokers)
so that the engine and the par sheet can precompute every hand once per paytable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from dealer_station.cards import JOKER, RANKS, Card, CardError, Suit
from dealer_station.games.lapaire.rules.config import HAND_LABELS, POKER_HANDS, Odds, Paytable

SUITS: tuple[Suit, ...] = tuple(Suit)
#: Class index of the jokers; standard faces are ``suit_index * 13 + rank_index``.
JOKER_CLASS = 52
CLASS_COUNT = 53
#: One representative card per class.
CLASS_CARDS: tuple[Card, ...] = (
    *(Card(r, s) for s in SUITS for r in RANKS), Card(JOKER, None),
)
_RANK_INDEX = {r: i for i, r in enumerate(RANKS)}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
_HAND_ORDER = {h: i for i, h in enumerate(POKER_HANDS)}


def card_class(card: Card) -> int:
    """0..51 for a standard card, 52 for a joker."""
    if card.suit is None:
        return JOKER_CLASS
    return _SUIT_INDEX[card.suit] * 13 + _RANK_INDEX[card.rank]


@dataclass(frozen=True, slots=True)
class PokerHand:
    """The hand three cards make under one paytable.

    ``hand`` is a name from POKER_HANDS, or None for less than any listed hand; ``odds`` what
    the paytable pays for it (None: the wager loses); ``substitute`` the card a single joker
    stood for.
    """

    hand: str | None
    odds: Odds | None
    substitute: Card | None = None

    @property
    def label(self) -> str:
        text = HAND_LABELS[self.hand] if self.hand else "No hand"
        if self.substitute is not None:
            text += f" (joker as {self.substitute.code})"
        return text


def _natural(classes: tuple[int, int, int]) -> str | None:
    """The hand of three standard cards given as classes (no jokers)."""
    ranks = sorted(c % 13 for c in classes)  # 0 = A .. 12 = K
    suits = {c // 13 for c in classes}
    suited = len(suits) == 1
    lo, mid, hi = ranks
    if lo == mid == hi:
        return "three_of_a_kind"
    is_royal = (lo, mid, hi) == (0, 11, 12)  # Q-K-A, the only straight with a high ace
    straight = is_royal or (lo + 1 == mid and mid + 1 == hi)
    if straight and suited:
        return "mini_royal" if is_royal else "straight_flush"
    if straight:
        return "straight"
    if suited:
        return "flush"
    if lo == mid or mid == hi:
        return "pair"
    return None


def natural_hand(cards: Sequence[Card]) -> str | None:
    """The hand three standard cards make (no jokers), or None below a pair."""
    if len(cards) != 3 or any(c.is_joker for c in cards):
        raise CardError("natural_hand takes three cards without jokers")
    a, b, c = (card_class(x) for x in cards)
    return _natural((a, b, c))


def _worth(hand: PokerHand) -> tuple[Fraction, int]:
    """How an outcome ranks for a joker's choice: the higher payout, then the better hand."""
    ratio = hand.odds.ratio if hand.odds else Fraction(-1)
    return ratio, -(_HAND_ORDER[hand.hand] if hand.hand else len(POKER_HANDS))


def _joker_hand(a: int, b: int, natural: dict[tuple[int, int, int], PokerHand],
                worth: dict[int, tuple[Fraction, int]]) -> PokerHand:
    """The hand of two classes ``a < b`` and one joker: the joker stands for the card, not
    already in the hand, that pays most (the better hand on equal pay; the first such card in
    class order). ``natural`` holds every jokerless hand; ``worth`` each of its hands' rank,
    by identity (hands of the same pattern share one object, so there are few)."""
    best: PokerHand | None = None
    best_worth: tuple[Fraction, int] | None = None
    best_sub = -1
    for sub in range(52):
        if sub in (a, b):
            continue  # the joker stands only for a card not already in the hand
        x, y, z = sorted((a, b, sub))
        hand = natural[(x, y, z)]
        w = worth.get(id(hand))
        if w is None:
            w = worth[id(hand)] = _worth(hand)
        if best_worth is None or w > best_worth:
            best, best_worth = hand, w
            best_sub = sub
    assert best is not None
    return PokerHand(best.hand, best.odds, CLASS_CARDS[best_sub])


def evaluate(cards: Sequence[Card], paytable: Paytable) -> PokerHand:
    """The best hand ``cards`` (the first three of the round) make under ``paytable``."""
    if len(cards) != 3:
        raise CardError(f"a poker hand is three cards, got {len(cards)}")
    a, b, c = sorted(card_class(x) for x in cards)
    if a == b != JOKER_CLASS or b == c != JOKER_CLASS:
        raise CardError("the same card cannot be in a hand twice")
    if a == JOKER_CLASS:
        raise CardError("a hand cannot hold three jokers")
    return hand_table(paytable)[(a, b, c)]


@lru_cache(maxsize=8)
def hand_table(paytable: Paytable) -> dict[tuple[int, int, int], PokerHand]:
    """Every possible hand as a sorted class triple -> its PokerHand under ``paytable``.

    23,478 triples (22,100 without a joker, 1,326 with one, 52 with two). Hands with the
    same pattern share one PokerHand object.
    """
    table: dict[tuple[int, int, int], PokerHand] = {}
    nat: dict[tuple[tuple[int, ...], bool], PokerHand] = {}
    pays = paytable.as_dict()
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                # The natural hand depends only on the ranks and whether all suits match.
                ranks = tuple(sorted((a % 13, b % 13, c % 13)))
                key = (ranks, a // 13 == b // 13 == c // 13)
                hand_obj = nat.get(key)
                if hand_obj is None:
                    hand = _natural((a, b, c))
                    hand_obj = PokerHand(hand, pays.get(hand) if hand else None)
                    nat[key] = hand_obj
                table[(a, b, c)] = hand_obj
    # The joker's hands choose among the natural ones, read from the table rather than worked
    # out again: every process that settles builds this table, now in half the time.
    worth: dict[int, tuple[Fraction, int]] = {}
    for a in range(52):
        for b in range(a + 1, 52):
            table[(a, b, JOKER_CLASS)] = _joker_hand(a, b, table, worth)
        table[(a, JOKER_CLASS, JOKER_CLASS)] = PokerHand("two_jokers", pays.get("two_jokers"))
    return table


def hand_weight(classes: tuple[int, int, int]) -> int:
    """How many 3-card sets of the 54-card deck a sorted class triple stands for (the two
    jokers are distinct cards: one joker with two faces is 2 sets, two jokers 1)."""
    return 2 if classes.count(JOKER_CLASS) == 1 else 1
