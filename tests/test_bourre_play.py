"""Each rule of play with hand-built tricks: which cards are legal, and which rule a card breaks."""

from __future__ import annotations

import dataclasses

import pytest

from dealer_station.cards import Suit, parse_cards
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.play import (
    PlayRule,
    check_play,
    legal_plays,
    trick_winner,
)

T = BourreProfile()
S, H, D, C = Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS


def legal(held: str, trick: str, trump: Suit, profile: BourreProfile = T) -> set[str]:
    return {c.code for c in legal_plays(parse_cards(held.split()), parse_cards(trick.split()),
                                        trump, profile)}


def rule(held: str, trick: str, trump: Suit, card: str,
         profile: BourreProfile = T) -> PlayRule | None:
    found = check_play(parse_cards(held.split()), parse_cards(trick.split()), trump,
                       parse_cards([card])[0], profile)
    return None if found is None else found.rule


# -- leading ------------------------------------------------------------------------------------

def test_leader_may_lead_any_card() -> None:
    assert legal("AS KS 2H 7D 9C", "", H) == {"AS", "KS", "2H", "7D", "9C"}


def test_leader_with_ace_king_queen_of_trumps_must_lead_the_ace() -> None:
    assert legal("AH KH QH 7D 9C", "", H) == {"AH"}
    assert rule("AH KH QH 7D 9C", "", H, "KH") is PlayRule.LEAD_HIGHEST_TRUMP
    assert rule("AH KH QH 7D 9C", "", H, "7D") is PlayRule.LEAD_HIGHEST_TRUMP
    assert rule("AH KH QH 7D 9C", "", H, "AH") is None


def test_ace_king_queen_of_another_suit_or_missing_queen_leaves_the_lead_free() -> None:
    assert legal("AS KS QS 7D 9C", "", H) == {"AS", "KS", "QS", "7D", "9C"}
    assert legal("AH KH JH 7D 9C", "", H) == {"AH", "KH", "JH", "7D", "9C"}


def test_ace_king_queen_lead_rule_is_an_option() -> None:
    free = dataclasses.replace(T, lead_highest_trump_with_ace_king_queen=False)
    assert legal("AH KH QH 7D 9C", "", H, free) == {"AH", "KH", "QH", "7D", "9C"}


# -- following ----------------------------------------------------------------------------------

def test_must_follow_suit() -> None:
    assert legal("2D 9S 3C", "KD", H) == {"2D"}
    assert rule("2D 9S 3C", "KD", H, "9S") is PlayRule.FOLLOW_SUIT
    assert rule("2D 9S 3C", "KD", H, "3C") is PlayRule.FOLLOW_SUIT


def test_must_follow_suit_even_when_holding_trumps() -> None:
    # A trump may not be played while she holds the led suit.
    assert rule("2D AH", "KD", H, "AH") is PlayRule.FOLLOW_SUIT


def test_must_play_over_the_winning_card_of_the_led_suit_when_she_can() -> None:
    assert legal("5D QD AD 2C", "7D 9D", S) == {"QD", "AD"}
    assert rule("5D QD AD 2C", "7D 9D", S, "5D") is PlayRule.BEAT_LED_SUIT
    assert rule("5D QD AD 2C", "7D 9D", S, "2C") is PlayRule.FOLLOW_SUIT


def test_may_follow_low_when_she_cannot_beat() -> None:
    assert legal("5D 6D 2C", "7D KD", S) == {"5D", "6D"}
    assert rule("5D 6D 2C", "7D KD", S, "5D") is None


def test_after_a_trump_wins_a_non_trump_trick_she_just_follows_suit() -> None:
    # The 3 of trumps (spades) leads a diamond trick; her ace of diamonds cannot win it, so any
    # diamond will do.
    assert legal("5D AD 9C", "7D 3S", S) == {"5D", "AD"}


def test_trump_lead_must_be_followed_and_beaten() -> None:
    assert legal("4S JS 9H", "10S", S) == {"JS"}
    assert rule("4S JS 9H", "10S", S, "4S") is PlayRule.BEAT_LED_SUIT
    assert rule("4S JS 9H", "10S", S, "9H") is PlayRule.FOLLOW_SUIT


# -- void in the led suit -----------------------------------------------------------------------

def test_void_in_led_suit_must_trump() -> None:
    assert legal("2S 9S 3C", "KD", S) == {"2S", "9S"}
    assert rule("2S 9S 3C", "KD", S, "3C") is PlayRule.MUST_TRUMP


def test_void_must_beat_the_highest_trump_when_she_can() -> None:
    # The rule book's example: only a 3 of trumps played, she holds the 2 and the ace of trumps
    # and no card of the led suit: she must play the ace.
    assert legal("2S AS 9C", "KD 3S", S) == {"AS"}
    assert rule("2S AS 9C", "KD 3S", S, "2S") is PlayRule.BEAT_TRUMP
    assert rule("2S AS 9C", "KD 3S", S, "9C") is PlayRule.MUST_TRUMP


def test_void_and_cannot_beat_the_trump_must_still_trump() -> None:
    assert legal("2S 4S 9C", "KD QS", S) == {"2S", "4S"}
    assert rule("2S 4S 9C", "KD QS", S, "9C") is PlayRule.MUST_TRUMP


def test_option_off_void_and_cannot_beat_may_play_any_card() -> None:
    lax = dataclasses.replace(T, must_trump_even_when_cannot_beat=False)
    assert legal("2S 4S 9C", "KD QS", S, lax) == {"2S", "4S", "9C"}
    # ...but she must still beat when she can, and must trump when no trump is in the trick.
    assert legal("2S AS 9C", "KD QS", S, lax) == {"AS"}
    assert legal("2S 4S 9C", "KD", S, lax) == {"2S", "4S"}


def test_void_in_both_may_play_any_card() -> None:
    assert legal("2H 9C JC", "KD", S) == {"2H", "9C", "JC"}
    assert legal("2H 9C JC", "KD 5S", S) == {"2H", "9C", "JC"}


# -- who takes the trick ------------------------------------------------------------------------

@pytest.mark.parametrize(("trick", "trump", "winner"), [
    ("7D KD 2D", S, 1),          # highest of the led suit
    ("7D AD 2S", S, 2),          # the lowest trump beats the ace of the led suit
    ("7D 3S 9S", S, 2),          # the highest trump
    ("7D AH KC", S, 0),          # off-suit cards never win
    ("10H JH 9H AH", C, 3),      # aces high
    ("5S 2S", S, 0),             # trump led: highest trump
    ("2C", H, 0),
])
def test_trick_winner(trick: str, trump: Suit, winner: int) -> None:
    assert trick_winner(parse_cards(trick.split()), trump) == winner


def test_violation_reason_names_the_cards() -> None:
    found = check_play(parse_cards(["2S", "AS", "9C"]), parse_cards(["KD", "3S"]), S,
                       parse_cards(["2S"])[0], T)
    assert found is not None
    assert "3S" in found.reason and "AS" in found.reason
