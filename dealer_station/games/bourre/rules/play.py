"""Trick legality for Bourré: which cards may be played, and which rule a card breaks.

Pure functions of the cards held, the cards already in the trick (in play order), the trump suit
and the profile. The hand state machine (``bourre.py``) and the UI both ask these.

The rules, in the order they bind (tournament profile):

- Leading: any card, except that a leader holding the ace, king and queen of trumps must lead
  her highest trump (``lead_highest_trump``).
- Following with a card of the led suit: she must play one (``follow_suit``); if the trick is
  currently won by a card of the led suit and she can beat it, she must beat it
  (``beat_led_suit``). When a trump already wins a non-trump trick she just follows suit.
- Void in the led suit, holding trumps: she must trump (``must_trump``) and beat the highest
  trump in the trick if she can (``beat_trump``). With ``must_trump_even_when_cannot_beat`` off
  a player who cannot beat that trump may play any card.
- Void in both: any card.

The trick goes to the highest trump, else the highest card of the led suit; aces are high.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from dealer_station.cards import Card, Suit
from dealer_station.games.bourre.rules.config import BourreProfile

#: Aces high.
RANK_VALUE: dict[str, int] = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                              "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
SUIT_NAMES: dict[Suit, str] = {Suit.SPADES: "spade", Suit.HEARTS: "heart",
                               Suit.DIAMONDS: "diamond", Suit.CLUBS: "club"}


class PlayRule(StrEnum):
    """The rule a card breaks; the value is the stable name used in records and JSON."""

    LEAD_HIGHEST_TRUMP = "lead_highest_trump"
    FOLLOW_SUIT = "follow_suit"
    BEAT_LED_SUIT = "beat_led_suit"
    MUST_TRUMP = "must_trump"
    BEAT_TRUMP = "beat_trump"


@dataclass(frozen=True, slots=True)
class Violation:
    """Why a card may not be played: the rule and a sentence for the dealer's screen."""

    rule: PlayRule
    reason: str


def _codes(cards: Sequence[Card]) -> str:
    return ", ".join(c.code for c in cards)


def trick_winner(trick: Sequence[Card], trump: Suit) -> int:
    """Index in ``trick`` of the winning card: the highest trump, else the highest of the led
    suit. ``trick`` must not be empty."""
    best = 0
    best_card = trick[0]
    for i in range(1, len(trick)):
        card = trick[i]
        if card.suit is best_card.suit:
            if RANK_VALUE[card.rank] > RANK_VALUE[best_card.rank]:
                best, best_card = i, card
        elif card.suit is trump:
            # The winner so far is of the led suit: the first trump beats it. An off-suit card
            # never wins.
            best, best_card = i, card
    return best


_AKQ = ("A", "K", "Q")


def broken_rule(held: Sequence[Card], trick: Sequence[Card], trump: Suit, card: Card,
                profile: BourreProfile) -> PlayRule | None:
    """The rule ``card`` (held) breaks if played now, or None. The fast form of
    ``check_play``: no sentence is built."""
    if not trick:
        if (profile.lead_highest_trump_with_ace_king_queen
                and not (card.suit is trump and card.rank == "A")
                and sum(1 for c in held if c.suit is trump and c.rank in _AKQ) == 3):
            return PlayRule.LEAD_HIGHEST_TRUMP
        return None
    led = trick[0].suit
    suit = card.suit
    winner = trick[trick_winner(trick, trump)]
    if suit is led:
        # Following suit: she must beat a winning card of the led suit if she can.
        if winner.suit is led:
            top = RANK_VALUE[winner.rank]
            if RANK_VALUE[card.rank] <= top and any(
                    c.suit is led and RANK_VALUE[c.rank] > top for c in held):
                return PlayRule.BEAT_LED_SUIT
        return None
    if any(c.suit is led for c in held):
        return PlayRule.FOLLOW_SUIT
    if suit is trump:
        # Void in the led suit and trumping: beat the highest trump in the trick if she can.
        if winner.suit is trump:
            top = RANK_VALUE[winner.rank]
            if RANK_VALUE[card.rank] <= top and any(
                    c.suit is trump and RANK_VALUE[c.rank] > top for c in held):
                return PlayRule.BEAT_TRUMP
        return None
    if not any(c.suit is trump for c in held):
        return None  # void in both: any card
    if winner.suit is trump and not profile.must_trump_even_when_cannot_beat:
        top = RANK_VALUE[winner.rank]
        if not any(c.suit is trump and RANK_VALUE[c.rank] > top for c in held):
            return None  # she cannot beat the trump and the profile lets her throw off
    return PlayRule.MUST_TRUMP


def _explain(rule: PlayRule, held: Sequence[Card], trick: Sequence[Card],
             trump: Suit) -> str:
    """The dealer's sentence for a broken rule, naming the cards that would have been legal."""
    if rule is PlayRule.LEAD_HIGHEST_TRUMP:
        return (f"holding the ace, king and queen of trumps she must lead her highest trump "
                f"(A{trump.value})")
    led = trick[0].suit
    assert led is not None  # Bourré has no jokers
    winner = trick[trick_winner(trick, trump)]
    if rule is PlayRule.FOLLOW_SUIT:
        following = [c for c in held if c.suit is led]
        return f"she holds a {SUIT_NAMES[led]} ({_codes(following)}) and must follow suit"
    top = RANK_VALUE[winner.rank]
    if rule is PlayRule.BEAT_LED_SUIT:
        over = [c for c in held if c.suit is led and RANK_VALUE[c.rank] > top]
        return f"she can beat the {winner.code} ({_codes(over)}) and must play over it"
    trumps = [c for c in held if c.suit is trump]
    if rule is PlayRule.BEAT_TRUMP:
        over = [c for c in trumps if RANK_VALUE[c.rank] > top]
        return (f"she can beat the {winner.code} with a higher trump ({_codes(over)}) and "
                f"must")
    return f"void in {SUIT_NAMES[led]}s she must play a trump ({_codes(trumps)})"


def check_play(held: Sequence[Card], trick: Sequence[Card], trump: Suit, card: Card,
               profile: BourreProfile) -> Violation | None:
    """The rule ``card`` breaks if played now, with the reason, or None when it is legal.
    ``card`` is assumed to be held (a card not held is an error of another kind, not a
    renege)."""
    rule = broken_rule(held, trick, trump, card, profile)
    if rule is None:
        return None
    return Violation(rule, _explain(rule, held, trick, trump))


def legal_plays(held: Sequence[Card], trick: Sequence[Card], trump: Suit,
                profile: BourreProfile) -> list[Card]:
    """The cards of ``held`` that may be played now, in the order held. Never empty when
    ``held`` is not: some card is always legal."""
    return [c for c in held if broken_rule(held, trick, trump, c, profile) is None]
