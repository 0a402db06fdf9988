"""Settlement of whole hands, replayed card by card through the engine (pokerkit-style recorded
hands): every case of the tournament rules, the bust rules, the house collection, and the
common profile's options. The trick-by-trick comments were checked by hand against the rules."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest
from repo_paths import CONFIG_DIR

from dealer_station.cards import parse_card, parse_cards
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile, HouseCollection, MisplayPenalty
from dealer_station.games.bourre.rules.engine import BourreHand, HandResult, Phase

T = BourreProfile()
COMMON = load_bourre_profiles(CONFIG_DIR / "bourre.toml")["common"]

Deal = Mapping[int, str]
Plays = list[tuple[int, str]]


def play_hand(deal: Deal, plays: Plays, *, profile: BourreProfile = T,
              chips: Mapping[int, int] | None = None, pot: int = 0,
              fold: tuple[int, ...] = ()) -> tuple[BourreHand, HandResult]:
    """Deal, everyone not in ``fold`` stays, all stand pat, then the plays in order. The
    dealer is the highest seat."""
    seats = sorted(deal)
    chips = chips if chips is not None else dict.fromkeys(seats, 100)
    hand = BourreHand.from_deal(profile, seats, seats[-1], chips, pot,
                                {s: parse_cards(v.split()) for s, v in deal.items()})
    for seat in hand.order:
        if seat in fold:
            hand.fold(seat)
        else:
            hand.stay(seat)
    for seat in hand.stayers:
        if hand.phase is Phase.DRAW:
            hand.discard(seat, [])
    for seat, code in plays:
        hand.play(seat, parse_card(code))
    assert hand.phase is Phase.SETTLED and hand.result is not None
    result = hand.result
    before = sum(chips.values()) + pot
    assert sum(result.chips.values()) + result.pot + result.house == before
    return hand, result


# Spades trumps. T1 1:5D 2:7D 3:JD -> 3 | T2 3:2C 1:JC 2:8C -> 1 | T3 1:7H 2:3S 3:10S -> 3
# T4 3:6C 1:QH 2:4C -> 3 | T5 3:AC 1:8H 2:QS -> 2.  Tricks 1:1 2:1 3:3.
OUTRIGHT = {1: "QH 7H 5D 8H JC", 2: "8C QS 4C 7D 3S", 3: "JD 6C 2C AC 10S"}
OUTRIGHT_PLAYS: Plays = [(1, "5D"), (2, "7D"), (3, "JD"), (3, "2C"), (1, "JC"), (2, "8C"),
                         (1, "7H"), (2, "3S"), (3, "10S"), (3, "6C"), (1, "QH"), (2, "4C"),
                         (3, "AC"), (1, "8H"), (2, "QS")]

# Hearts trumps. Tricks 1:1 2:2 3:2.
TWO_TWO_ONE = {1: "9S 9D 9C 7D 3H", 2: "4C JD 7S KS 2H", 3: "10S 7C 2D AD 8H"}
TWO_TWO_ONE_PLAYS: Plays = [(1, "7D"), (2, "JD"), (3, "AD"), (3, "10S"), (1, "9S"), (2, "KS"),
                            (2, "4C"), (3, "7C"), (1, "9C"), (1, "9D"), (2, "2H"), (3, "2D"),
                            (2, "7S"), (3, "8H"), (1, "3H")]

# Spades trumps, five players: one trick each.
ALL_ONES = {1: "8D 10C 6S QH 10H", 2: "8H 3D 3H KH 5C", 3: "8C 7H 8S QD 6C",
            4: "JD 2D 9S 6D 7D", 5: "4S 4D 2H 4C 7S"}
ALL_ONES_PLAYS: Plays = [(1, "6S"), (2, "8H"), (3, "8S"), (4, "9S"), (5, "4S"), (4, "2D"),
                         (5, "4D"), (1, "8D"), (2, "3D"), (3, "QD"), (3, "6C"), (4, "6D"),
                         (5, "4C"), (1, "10C"), (2, "5C"), (1, "10H"), (2, "KH"), (3, "7H"),
                         (4, "7D"), (5, "2H"), (2, "3H"), (3, "8C"), (4, "JD"), (5, "7S"),
                         (1, "QH")]

# Hearts trumps. Tricks 1:3 2:0 3:2: seat 2 is bourré.
BOURRE = {1: "6C KH 4H 5D JD", 2: "2C 9S 8H QS KC", 3: "JS 10S QD 6H JH"}
BOURRE_PLAYS: Plays = [(1, "6C"), (2, "KC"), (3, "6H"), (3, "JH"), (1, "KH"), (2, "8H"),
                       (1, "5D"), (2, "QS"), (3, "QD"), (3, "10S"), (1, "4H"), (2, "9S"),
                       (1, "JD"), (2, "2C"), (3, "JS")]

# Hearts trumps. T4: 3 leads KC, 1 follows 10C, seat 2 (void in clubs, holding AH) plays 3S:
# a renege (must trump); she takes it back and trumps with AH. Tricks 1:1 2:2 3:2.
RENEGER_TIED = {1: "10C 9D 4S 6S KS", 2: "AH 7H 3S 10S JD", 3: "KC 9C 6D 10H JH"}
RENEGER_TIED_PLAYS: Plays = [(1, "4S"), (2, "10S"), (3, "10H"), (3, "6D"), (1, "9D"),
                             (2, "JD"), (2, "7H"), (3, "JH"), (1, "KS"), (3, "KC"), (1, "10C"),
                             (2, "3S"), (2, "AH"), (2, "3S"), (3, "9C"), (1, "6S")]

# Spades trumps. Seat 2 reneges in trick 1 (QD instead of trumping) and takes 3 tricks;
# 1 and 3 have one each.
RENEGER_MOST = {1: "8C 8S QH 6H AH", 2: "3S QD AC 2S 4C", 3: "5D 10H 2H 7C 9S"}
RENEGER_MOST_PLAYS: Plays = [(1, "QH"), (2, "QD"), (2, "3S"), (3, "10H"), (2, "4C"), (3, "7C"),
                             (1, "8C"), (1, "6H"), (2, "2S"), (3, "2H"), (2, "AC"), (3, "9S"),
                             (1, "8S"), (3, "5D"), (1, "AH"), (2, "QD")]

# Hearts trumps. Seat 3 reneges in trick 1 (AD, not following hearts) and takes 3 tricks;
# seat 1 has 2, seat 2 none.
RENEGER_MOST_2 = {1: "AH 6D 4C AS 8S", 2: "JD 3D KD 8D 10S", 3: "KC AD KS 5H 8H"}
RENEGER_MOST_2_PLAYS: Plays = [(1, "AH"), (2, "3D"), (3, "AD"), (3, "8H"), (1, "4C"),
                               (2, "10S"), (3, "KC"), (3, "AD"), (1, "6D"), (2, "8D"),
                               (3, "5H"), (1, "8S"), (2, "JD"), (3, "KS"), (1, "AS"), (2, "KD")]


def test_outright_win_takes_the_pot() -> None:
    _, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS)
    assert dict(r.tricks) == {1: 1, 2: 1, 3: 3}
    assert r.winner == 3 and r.pot_end == 6 and r.won == 6
    assert dict(r.chips) == {1: 98, 2: 98, 3: 104}
    assert r.pot == 0 and r.bourre == () and r.reneges == () and r.eliminated == ()


def test_two_two_one_carries_the_whole_pot() -> None:
    _, r = play_hand(TWO_TWO_ONE, TWO_TWO_ONE_PLAYS, pot=9)
    assert dict(r.tricks) == {1: 1, 2: 2, 3: 2}
    assert r.winner is None and r.pot == 15
    assert dict(r.chips) == {1: 98, 2: 98, 3: 98}


def test_one_each_carries_the_whole_pot() -> None:
    _, r = play_hand(ALL_ONES, ALL_ONES_PLAYS)
    assert dict(r.tricks) == {1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
    assert r.winner is None and r.pot == 10 and set(r.chips.values()) == {98}


def test_bourre_matches_the_pot_into_the_next_pot_not_to_the_winner() -> None:
    _, r = play_hand(BOURRE, BOURRE_PLAYS)
    assert dict(r.tricks) == {1: 3, 2: 0, 3: 2}
    assert r.winner == 1 and r.bourre == (2,)
    assert dict(r.penalties) == {2: 6}
    assert dict(r.chips) == {1: 104, 2: 92, 3: 98}
    assert r.pot == 6


def test_bourre_penalty_capped_at_ten() -> None:
    _, r = play_hand(BOURRE, BOURRE_PLAYS, pot=30)
    assert r.pot_end == 36 and dict(r.penalties) == {2: 10}
    assert dict(r.chips) == {1: 134, 2: 88, 3: 98}
    assert r.pot == 10


def test_bourre_without_a_cap_matches_the_whole_pot() -> None:
    assert COMMON.bourre_penalty_cap is None
    _, r = play_hand(BOURRE, BOURRE_PLAYS, pot=30, profile=COMMON)
    assert dict(r.penalties) == {2: 36}
    assert dict(r.chips) == {1: 134, 2: 62, 3: 98}
    assert r.pot == 36


def test_a_reneger_who_tied_loses_the_pot_to_the_other() -> None:
    _, r = play_hand(RENEGER_TIED, RENEGER_TIED_PLAYS)
    assert dict(r.tricks) == {1: 1, 2: 2, 3: 2}
    assert [(m.seat, m.trick, m.card.code, m.rule.value) for m in r.reneges] == [
        (2, 4, "3S", "must_trump")]
    assert r.winner == 3
    assert dict(r.penalties) == {2: 6}
    assert dict(r.chips) == {1: 98, 2: 92, 3: 104}
    assert r.pot == 6


def test_a_reneger_with_the_most_tricks_cannot_win_and_the_rest_tie() -> None:
    _, r = play_hand(RENEGER_MOST, RENEGER_MOST_PLAYS)
    assert dict(r.tricks) == {1: 1, 2: 3, 3: 1}
    assert r.winner is None
    assert dict(r.penalties) == {2: 6}
    assert dict(r.chips) == {1: 98, 2: 92, 3: 98}
    assert r.pot == 12


def test_a_reneger_with_the_most_tricks_the_next_best_wins() -> None:
    _, r = play_hand(RENEGER_MOST_2, RENEGER_MOST_2_PLAYS)
    assert dict(r.tricks) == {1: 2, 2: 0, 3: 3}
    assert r.winner == 1 and r.bourre == (2,)
    assert dict(r.penalties) == {2: 6, 3: 6}
    assert dict(r.chips) == {1: 104, 2: 92, 3: 92}
    assert r.pot == 12


def test_a_reneger_taking_every_trick_leaves_no_winner() -> None:
    # Hearts trumps. Seat 2 reneges in trick 1 (4H instead of following with KS) and takes all
    # five tricks; seat 1, the only other stayer, has none: a bourré cannot win the pot, so it
    # carries, and both pay.
    deal = {1: "10C 3D QS 3C KC", 2: "5S 9H KS 4S 4H"}
    plays: Plays = [(1, "QS"), (2, "4H"), (2, "KS"), (2, "9H"), (1, "3C"), (2, "4H"),
                    (1, "KC"), (2, "5S"), (1, "10C"), (2, "4S"), (1, "3D")]
    _, r = play_hand(deal, plays)
    assert dict(r.tricks) == {1: 0, 2: 5} and r.winner is None
    assert dict(r.penalties) == {1: 4, 2: 4}
    assert r.pot == 12


def test_a_reneger_who_is_also_bourre_pays_once() -> None:
    # Spades trumps. Seat 2 reneges twice (3H in tricks 1 and 2) and takes no trick.
    deal = {1: "QD AD QC 6H 3C", 2: "2D 8C 9D 3H 4S", 3: "QH 7D 7C 2H KS"}
    plays: Plays = [(1, "QC"), (2, "3H"), (2, "8C"), (3, "7C"), (1, "QD"), (2, "3H"),
                    (2, "9D"), (3, "7D"), (1, "3C"), (2, "4S"), (3, "KS"), (3, "QH"),
                    (1, "6H"), (2, "3H"), (3, "2H"), (1, "AD"), (2, "2D")]
    _, r = play_hand(deal, plays)
    assert dict(r.tricks) == {1: 2, 2: 0, 3: 3}
    assert [(m.seat, m.trick) for m in r.reneges] == [(2, 1), (2, 2)]
    assert r.winner == 3 and r.bourre == (2,)
    assert dict(r.penalties) == {2: 6}
    assert dict(r.chips) == {1: 98, 2: 92, 3: 104}
    assert r.pot == 6


def test_retraction_only_profile_has_no_renegers() -> None:
    profile = dataclasses.replace(T, misplay_penalty=MisplayPenalty.RETRACTION)
    _, r = play_hand(RENEGER_TIED, RENEGER_TIED_PLAYS, profile=profile)
    assert r.reneges == () and len(r.retractions) == 1
    assert r.winner is None and r.penalties == {}  # 2-2-1: the pot carries
    assert r.pot == 6


def test_renege_that_stands_changes_the_trick_and_is_penalised() -> None:
    # Under the common profile the misplayed 3S stays in trick 4, so seat 3's KC takes it.
    plays: Plays = [(1, "4S"), (2, "10S"), (3, "10H"), (3, "6D"), (1, "9D"), (2, "JD"),
                    (2, "7H"), (3, "JH"), (1, "KS"), (3, "KC"), (1, "10C"), (2, "3S"),
                    (3, "9C"), (1, "6S"), (2, "AH")]
    _, r = play_hand(RENEGER_TIED, plays, profile=COMMON)
    assert dict(r.tricks) == {1: 0, 2: 2, 3: 3}
    assert r.winner == 3 and r.bourre == (1,)
    assert [m.stands for m in r.reneges] == [True]
    assert dict(r.penalties) == {1: 6, 2: 6}
    assert r.pot == 12


@pytest.mark.parametrize(("chips2", "left", "out"), [
    (5, 0, True),    # 3 chips after ante and stay, penalty 6: all in, out
    (8, 0, True),    # 6 left: paying 6 would leave none, so she is out
    (9, 1, False),   # 7 left: pays 6 and keeps 1
])
def test_a_player_who_cannot_pay_and_keep_a_chip_is_out(chips2: int, left: int,
                                                       out: bool) -> None:
    _, r = play_hand(BOURRE, BOURRE_PLAYS, chips={1: 100, 2: chips2, 3: 100})
    assert r.chips[2] == left
    assert r.penalties[2] == chips2 - 2 - left
    assert r.pot == r.penalties[2]
    assert (2 in r.eliminated) is out


def test_a_player_who_stays_with_her_last_chip_and_loses_is_out() -> None:
    _, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS, chips={1: 2, 2: 100, 3: 100})
    assert r.chips[1] == 0 and r.eliminated == (1,)


def test_percentage_collection_comes_out_of_a_won_pot_capped() -> None:
    profile = dataclasses.replace(T, house_collection=HouseCollection.PERCENT,
                                  house_percent=10, house_cap=3)
    _, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS, profile=profile, pot=44)
    assert r.pot_end == 50 and r.house == 3 and r.won == 47
    assert r.chips[3] == 145
    _, carried = play_hand(TWO_TWO_ONE, TWO_TWO_ONE_PLAYS, profile=profile, pot=44)
    assert carried.house == 0 and carried.pot == 50  # a pot that carries pays nothing


def test_drop_collection_each_hand() -> None:
    profile = dataclasses.replace(T, house_collection=HouseCollection.DROP, house_drop=2)
    _, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS, profile=profile)
    assert r.house == 2 and r.pot_end == 4 and r.chips[3] == 102


def test_dealer_antes_for_everyone_settles() -> None:
    profile = dataclasses.replace(T, dealer_antes_for_all=True)
    _, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS, profile=profile)
    assert dict(r.chips) == {1: 99, 2: 99, 3: 102}


def test_no_second_ante() -> None:
    profile = dataclasses.replace(T, second_ante=False)
    _, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS, profile=profile)
    assert r.pot_end == 3 and dict(r.chips) == {1: 99, 2: 99, 3: 102}


def test_folded_players_forfeit_only_the_ante() -> None:
    # Seat 1 folds; 2 and 3 play on from a fresh deal: hearts trumps, seat 2 leads.
    deal = {1: "2S 3S 4S 5S 6S", 2: "AD KD QD JD 9D", 3: "2C 3C 4C 5C 7H"}
    plays: Plays = [(2, "AD"), (3, "7H"), (3, "2C"), (2, "9D"), (3, "3C"), (2, "JD"),
                    (3, "4C"), (2, "QD"), (3, "5C"), (2, "KD")]
    _, r = play_hand(deal, plays, fold=(1,))
    assert r.folded == (1,) and dict(r.tricks) == {2: 0, 3: 5}
    assert r.winner == 3 and r.bourre == (2,)
    assert dict(r.chips) == {1: 99, 2: 98 - 5, 3: 103}
    assert r.pot == 5


def test_the_result_is_the_last_log_record() -> None:
    hand, r = play_hand(OUTRIGHT, OUTRIGHT_PLAYS)
    assert hand.log[-1] is r and hand.to_act is None
    assert hand.pot == 0 and dict(hand.chips) == dict(r.chips)
