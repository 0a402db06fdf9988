"""3rd Card Poker: natural hands, the A-2-3 / Q-K-A / K-A-2 rules, and joker substitution."""

from __future__ import annotations

from collections import Counter

import pytest

from dealer_station.cards import CardError, parse_card, parse_cards
from dealer_station.games.lapaire.rules.config import Odds, Paytable
from dealer_station.games.lapaire.rules.poker import (
    CLASS_CARDS,
    JOKER_CLASS,
    card_class,
    evaluate,
    hand_table,
    hand_weight,
    natural_hand,
)

STANDARD = Paytable("standard", (
    ("two_jokers", Odds(100)), ("mini_royal", Odds(50)), ("straight_flush", Odds(20)),
    ("three_of_a_kind", Odds(10)), ("straight", Odds(3)), ("flush", Odds(2)),
))


@pytest.mark.parametrize(("codes", "hand"), [
    ("AS KS QS", "mini_royal"),
    ("QD AD KD", "mini_royal"),
    ("2H 3H 4H", "straight_flush"),
    ("AH 2H 3H", "straight_flush"),      # A-2-3 is a straight
    ("JC QC KC", "straight_flush"),
    ("KH AH 2H", "flush"),               # K-A-2 is not a straight
    ("KH AD 2C", None),
    ("7S 7H 7D", "three_of_a_kind"),
    ("5C 6D 7H", "straight"),
    ("QC KD AH", "straight"),            # Q-K-A is a straight
    ("AC 2D 3H", "straight"),
    ("2D 9D JD", "flush"),
    ("2D 2S JD", "pair"),
    ("2D 5S JD", None),
])
def test_natural_hands(codes: str, hand: str | None) -> None:
    cards = parse_cards(codes.split())
    assert natural_hand(cards) == hand
    result = evaluate(cards, STANDARD)
    assert result.hand == hand
    assert result.odds == STANDARD.odds(hand) if hand else result.odds is None
    assert result.substitute is None


@pytest.mark.parametrize(("codes", "hand", "odds", "substitutes"), [
    ("JK JK 5C", "two_jokers", 100, None),
    ("5C JK JK", "two_jokers", 100, None),
    ("JK AS KS", "mini_royal", 50, {"QS"}),
    ("JK QS KS", "mini_royal", 50, {"AS"}),
    ("AS JK QS", "mini_royal", 50, {"KS"}),
    ("JK KH AH", "mini_royal", 50, {"QH"}),    # Q-K-A suited, although K-A-2 is no straight
    ("JK 5H 6H", "straight_flush", 20, {"4H", "7H"}),
    ("JK 5H 7H", "straight_flush", 20, {"6H"}),
    ("JK 7H 7D", "three_of_a_kind", 10, {"7S", "7C"}),
    ("JK 5H 8H", "flush", 2, None),            # no straight is possible, any heart makes a flush
    ("JK 5H 6C", "straight", 3, {"4S", "4H", "4D", "4C", "7S", "7H", "7D", "7C"}),
    ("JK AH 2C", "straight", 3, {"3S", "3H", "3D", "3C"}),
    ("JK KH 2H", "flush", 2, None),            # K-A-2 would not be a straight
    ("JK KH 2C", None, None, None),            # only a pair: not paid by this table
])
def test_one_joker_takes_the_best_paying_value(codes: str, hand: str | None, odds: int | None,
                                               substitutes: set[str] | None) -> None:
    cards = parse_cards(codes.split())
    result = evaluate(cards, STANDARD)
    if hand is None:
        assert result.odds is None
        assert result.hand == "pair"  # the best it can make, paid or not
        return
    assert result.hand == hand
    assert result.odds == Odds(odds or 0) if odds else result.odds is None
    if substitutes is not None:
        assert result.substitute is not None and result.substitute.code in substitutes
    if result.substitute is not None:
        assert "joker as" in result.label


def test_the_paytable_decides_what_a_joker_becomes() -> None:
    # Under a table paying straights above straight flushes the joker plays off-suit.
    odd = Paytable("odd", (("straight_flush", Odds(20)), ("straight", Odds(30)),
                           ("flush", Odds(2))))
    result = evaluate(parse_cards(["JK", "5H", "6H"]), odd)
    assert (result.hand, result.odds) == ("straight", Odds(30))
    assert result.substitute is not None and result.substitute.suit is not None
    assert result.substitute.code[-1] != "H"
    # A table that pays a pair pays JK-K-2 as a pair, where the standard table pays nothing.
    pair = Paytable("pair", (("three_of_a_kind", Odds(10)), ("pair", Odds(1))))
    assert evaluate(parse_cards(["JK", "KH", "2C"]), pair).odds == Odds(1)
    assert evaluate(parse_cards(["JK", "KH", "2C"]), STANDARD).odds is None
    assert evaluate(parse_cards(["JK", "KH", "KC"]), pair).hand == "three_of_a_kind"


def test_a_joker_never_stands_for_a_card_already_in_the_hand() -> None:
    for triple, result in hand_table(STANDARD).items():
        if result.substitute is not None:
            assert card_class(result.substitute) not in triple


def test_evaluate_rejects_impossible_hands() -> None:
    with pytest.raises(CardError):
        evaluate(parse_cards(["AS", "AS", "KS"]), STANDARD)
    with pytest.raises(CardError):
        evaluate([parse_card("JK")] * 3, STANDARD)
    with pytest.raises(CardError):
        evaluate(parse_cards(["AS", "KS"]), STANDARD)
    with pytest.raises(CardError):
        natural_hand(parse_cards(["JK", "AS", "KS"]))


def test_hand_table_covers_every_three_card_set_of_the_deck() -> None:
    table = hand_table(STANDARD)
    assert len(table) == 22100 + 1326 + 52
    assert sum(hand_weight(t) for t in table) == 54 * 53 * 52 // 6
    counts: Counter[str | None] = Counter()
    for triple, result in table.items():
        if JOKER_CLASS not in triple:
            counts[result.hand] += 1
    # Textbook counts for three cards from 52.
    assert counts["mini_royal"] == 4
    assert counts["straight_flush"] == 44
    assert counts["three_of_a_kind"] == 52
    assert counts["straight"] == 720
    assert counts["flush"] == 1096
    assert counts["pair"] == 3744
    assert CLASS_CARDS[card_class(parse_card("QD"))].code == "QD"
