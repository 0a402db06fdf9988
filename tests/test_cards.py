from __future__ import annotations

import random

import pytest

from dealer_station.cards import (
    BOURRE_DECK,
    LAPAIRE_DECK,
    Card,
    CardError,
    RoundCards,
    Suit,
    check_round,
    parse_card,
    parse_value,
)


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [("AS", "A", Suit.SPADES), ("10H", "10", Suit.HEARTS), ("TH", "10", Suit.HEARTS),
     ("qd", "Q", Suit.DIAMONDS), ("2C", "2", Suit.CLUBS), (" KH ", "K", Suit.HEARTS)],
)
def test_parse_codes(code: str, rank: str, suit: Suit) -> None:
    card = parse_card(code)
    assert (card.rank, card.suit) == (rank, suit)


def test_joker_code_round_trips() -> None:
    card = parse_card("JK")
    assert card.is_joker and card.suit is None and card.code == "JK"
    assert not card.is_red and not card.is_black


@pytest.mark.parametrize("code", ["", "X", "1", "11H", "AX", "JKS", "ZZ", "10", "S"])
def test_unknown_codes_are_refused_with_the_code_named(code: str) -> None:
    with pytest.raises(CardError, match="unknown card code"):
        parse_card(code)


def test_non_text_code_is_refused() -> None:
    with pytest.raises(CardError, match="must be text"):
        parse_card(12)  # type: ignore[arg-type]


def test_codes_round_trip_for_every_card() -> None:
    for card in LAPAIRE_DECK.cards():
        assert parse_card(card.code).same_face(card)


def test_deck_sizes() -> None:
    assert len(LAPAIRE_DECK.cards()) == 54
    assert len(set(LAPAIRE_DECK.cards())) == 54
    assert sum(c.is_joker for c in LAPAIRE_DECK.cards()) == 2
    assert len(BOURRE_DECK.cards()) == 52
    assert not any(c.is_joker for c in BOURRE_DECK.cards())


def test_colours() -> None:
    assert parse_card("AH").is_red and parse_card("AD").is_red
    assert parse_card("AS").is_black and parse_card("AC").is_black


def test_third_joker_is_refused() -> None:
    seen = RoundCards(LAPAIRE_DECK)
    seen.add(parse_card("JK"))
    seen.add(parse_card("JK"))
    with pytest.raises(CardError, match="only 2 jokers"):
        seen.add(parse_card("JK"))
    assert len(seen) == 2


def test_joker_in_bourre_deck_is_refused() -> None:
    with pytest.raises(CardError, match="no jokers"):
        check_round([parse_card("JK")], BOURRE_DECK)


def test_same_card_twice_in_a_round_is_refused() -> None:
    with pytest.raises(CardError, match="KH has already been dealt"):
        check_round([parse_card("KH"), parse_card("2C"), parse_card("KH")], LAPAIRE_DECK)


def test_a_shuffled_deck_is_one_whole_round() -> None:
    deck = LAPAIRE_DECK.shuffled(random.Random(7))
    check_round(deck, LAPAIRE_DECK)
    assert deck != LAPAIRE_DECK.cards()


def test_card_invariants() -> None:
    with pytest.raises(CardError):
        Card("JK", Suit.SPADES)
    with pytest.raises(CardError):
        Card("K", None)


def test_values() -> None:
    assert parse_value("t") == "10"
    assert parse_value("JK") == "JK"
    with pytest.raises(CardError, match="unknown card value"):
        parse_value("11")
