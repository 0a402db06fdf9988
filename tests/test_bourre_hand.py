"""The Bourré hand state machine: ante, deal, decisions, draw, play, misplays, the UI's API."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import pytest
from repo_paths import CONFIG_DIR

from dealer_station.cards import BOURRE_DECK, Card, Suit, parse_card, parse_cards
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile, HouseCollection, MisplayPenalty
from dealer_station.games.bourre.rules.engine import (
    AnteRecord,
    BourreHand,
    ConservationError,
    DealRecord,
    DecisionRecord,
    DrawSource,
    IllegalActionError,
    ImpossibleCardError,
    Phase,
    PlayRecord,
)
from dealer_station.games.bourre.rules.play import PlayRule

T = BourreProfile()


def cards(text: str) -> list[Card]:
    return parse_cards(text.split())


def card(code: str) -> Card:
    return parse_card(code)


def hand_from(deal: Mapping[int, str], *, dealer: int, profile: BourreProfile = T,
              chips: Mapping[int, int] | None = None, pot: int = 0,
              seats: Sequence[int] | None = None) -> BourreHand:
    seats = list(seats) if seats is not None else sorted(deal)
    chips = chips if chips is not None else {s: 100 for s in seats}
    return BourreHand.from_deal(profile, seats, dealer, chips, pot,
                                {s: cards(v) for s, v in deal.items()})


# A three-handed deal, dealer 3, hearts trumps (the dealer's fifth card is the 8H).
DEAL3 = {1: "AS 7D 2C 9S 4D", 2: "KS 8D 3C QS 5H", 3: "2S 9D 4C JD 8H"}


# -- ante and deal ------------------------------------------------------------------------------

def test_ante_then_cards_one_at_a_time_from_the_dealers_left() -> None:
    hand = BourreHand(T, [1, 2, 3], 3, {1: 100, 2: 100, 3: 100}, pot=4)
    assert hand.phase is Phase.ANTE and hand.to_act is None
    record = hand.ante()
    assert isinstance(record, AnteRecord)
    assert dict(record.paid) == {1: 1, 2: 1, 3: 1}
    assert hand.pot == 7 and dict(hand.chips) == {1: 99, 2: 99, 3: 99}
    deck = BOURRE_DECK.cards()
    receivers = []
    for i in range(15):
        assert hand.phase is Phase.DEAL
        receivers.append(hand.to_act)
        rec = hand.deal_card(deck[i])
        assert isinstance(rec, DealRecord) and rec.round == i // 3 + 1
    assert receivers == [1, 2, 3] * 5
    # The last card dealt is the dealer's fifth: it fixes trumps and stays in her hand.
    assert hand.trump_card == deck[14] and hand.trump is deck[14].suit
    assert deck[14] in hand.held(3)
    assert hand.phase is Phase.DECISIONS and hand.to_act == 1


def test_dealer_antes_for_everyone() -> None:
    profile = dataclasses.replace(T, dealer_antes_for_all=True)
    hand = BourreHand(profile, [1, 2, 3, 4], 2, {s: 50 for s in (1, 2, 3, 4)})
    hand.ante()
    assert dict(hand.chips) == {1: 50, 2: 46, 3: 50, 4: 50}
    assert hand.pot == 4


def test_a_card_dealt_twice_is_refused_and_changes_nothing() -> None:
    hand = BourreHand(T, [1, 2, 3], 3, {1: 100, 2: 100, 3: 100})
    hand.ante()
    hand.deal_card(card("AS"))
    before = (len(hand.log), hand.to_act, hand.held(1), hand.held(2))
    with pytest.raises(ImpossibleCardError, match=r"AS has already been dealt.*seat 1 holds"):
        hand.deal_card(card("AS"))
    assert not hand.can_deal_card(card("AS"))
    assert (len(hand.log), hand.to_act, hand.held(1), hand.held(2)) == before


def test_a_card_for_the_wrong_seat_is_refused() -> None:
    hand = BourreHand(T, [1, 2, 3], 3, {1: 100, 2: 100, 3: 100})
    hand.ante()
    with pytest.raises(IllegalActionError, match="next card goes to seat 1"):
        hand.deal_card(card("AS"), seat=2)
    hand.deal_card(card("AS"), seat=1)
    assert hand.held(1) == (card("AS"),)


def test_actions_out_of_phase_are_refused() -> None:
    hand = BourreHand(T, [1, 2, 3], 3, {1: 100, 2: 100, 3: 100})
    with pytest.raises(IllegalActionError, match="ante phase"):
        hand.deal_card(card("AS"))
    hand.ante()
    with pytest.raises(IllegalActionError, match="deal phase, not ante"):
        hand.ante()
    assert not hand.can_play(1, card("AS"))
    assert not hand.can_stay(1)


@pytest.mark.parametrize(("seats", "chips", "message"), [
    ([1], {1: 100}, "1 players seated"),
    (list(range(1, 9)), dict.fromkeys(range(1, 9), 100), "8 players seated"),
    ([1, 2, 2], {1: 100, 2: 100}, "listed twice"),
    ([1, 2, 3], {1: 100, 2: 0, 3: 100}, "seat 2 has 0 chips"),
    ([1, 2, 3], {1: 100, 3: 100}, "seat 2 has no chip count"),
])
def test_a_hand_needs_a_legal_table(seats: list[int], chips: dict[int, int],
                                    message: str) -> None:
    with pytest.raises(IllegalActionError, match=message):
        BourreHand(T, seats, seats[0], chips)


# -- decisions ----------------------------------------------------------------------------------

def test_decisions_in_order_and_the_stay_chip() -> None:
    hand = hand_from(DEAL3, dealer=3)
    with pytest.raises(IllegalActionError, match="out of turn: seat 1 decides next"):
        hand.stay(2)
    rec = hand.stay(1)
    assert isinstance(rec, DecisionRecord) and rec.paid == 1
    assert hand.chips[1] == 98 and hand.pot == 4
    hand.fold(2)
    assert hand.chips[2] == 99 and hand.held(2) == ()
    assert set(hand.folded_pile) == set(cards(DEAL3[2]))
    hand.stay(3)
    assert hand.stayers == (1, 3) and hand.folded == (2,)
    assert hand.phase is Phase.DRAW and hand.to_act == 1


def test_fold_refused_when_it_would_leave_fewer_than_two_of_three() -> None:
    hand = hand_from(DEAL3, dealer=3)
    hand.fold(1)
    # Seat 2 folding would leave only the dealer.
    assert not hand.can_fold(2)
    with pytest.raises(IllegalActionError, match="at least 2 players must stay"):
        hand.fold(2)
    hand.stay(2)
    assert not hand.can_fold(3)
    hand.stay(3)
    assert hand.stayers == (2, 3)


def test_four_or_more_seated_need_three_staying() -> None:
    deal = {1: "AS 2S 3S 4S 5S", 2: "AH 2H 3H 4H 5H", 3: "AD 2D 3D 4D 5D",
            4: "AC 2C 3C 4C 5C"}
    hand = hand_from(deal, dealer=4)
    assert hand.stays_needed() == 3
    hand.fold(1)
    with pytest.raises(IllegalActionError, match="at least 3 players must stay at a table of 4"):
        hand.fold(2)
    hand.stay(2)
    hand.stay(3)
    hand.stay(4)
    assert hand.stayers == (2, 3, 4)


def test_two_seated_must_both_stay() -> None:
    hand = hand_from({1: "AS 2S 3S 4S 5S", 2: "AH 2H 3H 4H 5H"}, dealer=2)
    assert not hand.can_fold(1)
    hand.stay(1)
    assert not hand.can_fold(2)


def test_a_player_with_no_chip_for_the_stay_must_fold() -> None:
    deal = {1: "AS 2S 3S 4S 5S", 2: "AH 2H 3H 4H 5H", 3: "AD 2D 3D 4D 5D"}
    hand = hand_from(deal, dealer=3, chips={1: 1, 2: 100, 3: 100})
    assert hand.chips[1] == 0
    with pytest.raises(IllegalActionError, match=r"cannot stay.*must fold"):
        hand.stay(1)
    hand.fold(1)
    hand.stay(2)
    hand.stay(3)
    assert hand.stayers == (2, 3)


def test_a_hand_too_few_can_stay_in_is_dead_and_the_pot_carries() -> None:
    deal = {1: "AS 2S 3S 4S 5S", 2: "AH 2H 3H 4H 5H"}
    hand = hand_from(deal, dealer=2, chips={1: 1, 2: 40}, pot=5)
    assert hand.phase is Phase.SETTLED
    result = hand.result
    assert result is not None and result.dead
    assert result.pot == 7 and dict(result.chips) == {1: 0, 2: 39}
    assert result.eliminated == (1,) and result.winner is None


# -- draw ---------------------------------------------------------------------------------------

def seven_handed(profile: BourreProfile = T) -> tuple[BourreHand, list[Card]]:
    """Seven seats dealt from an unshuffled deck; the last 17 cards are the stock."""
    deck = BOURRE_DECK.cards()
    hand = BourreHand(profile, list(range(1, 8)), 7, dict.fromkeys(range(1, 8), 100))
    hand.ante()
    for c in deck[:35]:
        hand.deal_card(c)
    return hand, deck[35:]


def test_draw_takes_the_stock_then_the_folded_hands() -> None:
    hand, stock = seven_handed()
    folded_cards = list(hand.held(1)) + list(hand.held(2))
    hand.fold(1)
    hand.fold(2)
    for seat in (3, 4, 5, 6, 7):
        hand.stay(seat)
    assert hand.phase is Phase.DRAW and hand.stock_left == 17
    with pytest.raises(IllegalActionError, match="has not discarded yet"):
        hand.receive(3, stock[0])
    with pytest.raises(IllegalActionError, match="at most 4 cards"):
        hand.discard(3, list(hand.held(3)))
    with pytest.raises(IllegalActionError, match="does not hold"):
        hand.discard(3, [stock[0]])
    sources = []
    for seat in (3, 4, 5, 6, 7):
        hand.discard(seat, list(hand.held(seat))[:4])
        for _ in range(4):
            source = hand.draw_source()
            if source is DrawSource.STOCK:
                if seat == 3:
                    # A folded card cannot come while the stock holds unseen cards.
                    with pytest.raises(ImpossibleCardError, match="stock still holds"):
                        hand.receive(seat, folded_cards[0])
                nxt = stock.pop(0)
            else:
                assert source is DrawSource.FOLDED
                # Nor can a discard, or the stock's cards again, once the stock is used up.
                with pytest.raises(ImpossibleCardError, match="from the folded hands"):
                    hand.receive(seat, hand.discard_pile[0])
                nxt = hand.folded_pile[0]
            sources.append(hand.receive(seat, nxt).source)
    # 5 players x 4 cards = 20: the 17 of the stock, then 3 of the folded hands.
    assert sources == [DrawSource.STOCK] * 17 + [DrawSource.FOLDED] * 3
    assert hand.phase is Phase.PLAY
    held = [c for s in (3, 4, 5, 6, 7) for c in hand.held(s)]
    assert len(held) == 25 and len(set(held)) == 25


def test_draw_falls_back_to_the_discards_when_nobody_folded() -> None:
    hand, stock = seven_handed()
    for seat in range(1, 8):
        hand.stay(seat)
    sources = []
    for seat in range(1, 8):
        hand.discard(seat, list(hand.held(seat))[:4])
        for _ in range(4):
            if hand.draw_source() is DrawSource.STOCK:
                nxt = stock.pop(0)
            else:
                assert hand.draw_source() is DrawSource.DISCARDS
                with pytest.raises(ImpossibleCardError, match="from the discards"):
                    hand.receive(seat, hand.held(1)[0])  # a card in a player's hand
                nxt = hand.discard_pile[-1]
            sources.append(hand.receive(seat, nxt).source)
    assert sources == [DrawSource.STOCK] * 17 + [DrawSource.DISCARDS] * 11
    held = [c for s in range(1, 8) for c in hand.held(s)]
    assert len(held) == 35 and len(set(held)) == 35


def test_standing_pat_and_no_draw_profile() -> None:
    hand = hand_from(DEAL3, dealer=3)
    hand.stay(1)
    hand.stay(2)
    hand.stay(3)
    for seat in (1, 2, 3):
        hand.discard(seat, [])
    assert hand.phase is Phase.PLAY
    nodraw = hand_from(DEAL3, dealer=3, profile=dataclasses.replace(T, draw_limit=0))
    for seat in (1, 2, 3):
        nodraw.stay(seat)
    assert nodraw.phase is Phase.PLAY


# -- play ---------------------------------------------------------------------------------------

def playing(profile: BourreProfile = T) -> BourreHand:
    """DEAL3 with everyone staying and standing pat: hearts trumps, seat 1 leads."""
    hand = hand_from(DEAL3, dealer=3, profile=profile)
    for seat in (1, 2, 3):
        hand.stay(seat)
    for seat in (1, 2, 3):
        hand.discard(seat, [])
    return hand


def test_first_stayer_left_of_the_dealer_leads_and_the_winner_leads_next() -> None:
    hand = playing()
    assert hand.to_act == 1 and hand.trump is Suit.HEARTS
    hand.play(1, card("AS"))
    assert hand.to_act == 2
    # Seat 2 holds KS and QS: she must follow; neither beats the ace, so either will do.
    assert set(hand.legal_cards(2)) == {card("KS"), card("QS")}
    assert hand.legal_cards(1) == []  # not her turn
    hand.play(2, card("QS"))
    assert hand.current_trick == ((1, card("AS")), (2, card("QS")))
    rec = hand.play(3, card("2S"))
    assert rec.trick_winner == 1 and dict(hand.tricks) == {1: 1, 2: 0, 3: 0}
    assert hand.to_act == 1 and hand.trick_number == 2 and hand.current_trick == ()


def test_out_of_turn_and_unheld_cards_are_errors_not_reneges() -> None:
    hand = playing()
    with pytest.raises(IllegalActionError, match="out of turn: seat 1 plays next"):
        hand.play(2, card("KS"))
    with pytest.raises(IllegalActionError, match=r"does not hold.*seat 2 holds it"):
        hand.play(1, card("KS"))
    assert hand.misplays == () and hand.to_act == 1
    assert "out of turn" in (hand.illegal_reason(2, card("KS")) or "")


def test_a_renege_is_recorded_the_card_goes_back_and_she_plays_again() -> None:
    hand = playing()
    hand.play(1, card("AS"))
    assert hand.illegal_reason(2, card("8D")) is not None
    assert "follow_suit" in (hand.illegal_reason(2, card("8D")) or "")
    rec = hand.play(2, card("8D"))
    assert isinstance(rec, PlayRecord) and not rec.accepted
    assert rec.misplay is not None and rec.misplay.rule is PlayRule.FOLLOW_SUIT
    assert rec.misplay.penalised and rec.misplay.trick == 1
    assert card("8D") in hand.held(2) and hand.to_act == 2
    assert hand.current_trick == ((1, card("AS")),)
    hand.play(2, card("KS"))
    assert hand.to_act == 3


def test_retraction_only_records_without_penalty() -> None:
    hand = playing(dataclasses.replace(T, misplay_penalty=MisplayPenalty.RETRACTION))
    hand.play(1, card("AS"))
    rec = hand.play(2, card("8D"))
    assert rec.misplay is not None and not rec.misplay.penalised and not rec.accepted
    assert hand.to_act == 2


def test_renege_penalty_lets_the_card_stand() -> None:
    hand = playing(dataclasses.replace(T, misplay_penalty=MisplayPenalty.RENEGE))
    hand.play(1, card("AS"))
    rec = hand.play(2, card("8D"))
    assert rec.accepted and rec.misplay is not None and rec.misplay.stands
    assert card("8D") not in hand.held(2) and hand.to_act == 3
    assert hand.current_trick[-1] == (2, card("8D"))


def test_the_log_holds_frozen_records_in_order() -> None:
    hand = playing()
    kinds = [type(r).__name__ for r in hand.log]
    assert kinds[0] == "AnteRecord" and kinds[1:16] == ["DealRecord"] * 15
    assert kinds[16:19] == ["DecisionRecord"] * 3 and kinds[19:22] == ["DiscardRecord"] * 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        hand.log[0].pot = 0  # type: ignore[misc]


# -- money --------------------------------------------------------------------------------------

def test_house_drop_comes_out_of_the_pot_after_the_antes() -> None:
    profile = dataclasses.replace(T, house_collection=HouseCollection.DROP, house_drop=2)
    hand = BourreHand(profile, [1, 2, 3], 3, {1: 100, 2: 100, 3: 100}, pot=0)
    record = hand.ante()
    assert record.house_drop == 2 and hand.pot == 1 and hand.house == 2


def test_a_broken_chip_count_halts_the_hand() -> None:
    hand = playing()
    hand._chips[1] += 5  # the fault the check exists to catch: a chip from nowhere
    with pytest.raises(ConservationError, match="chip count broken"):
        for seat, code in [(1, "AS"), (2, "KS"), (3, "2S"), (1, "7D"), (2, "8D"), (3, "9D"),
                           (3, "4C"), (1, "2C"), (2, "3C"), (3, "JD"), (1, "4D"), (2, "5H"),
                           (2, "QS"), (3, "8H"), (1, "9S")]:
            hand.play(seat, card(code))
    assert hand.phase is Phase.HALTED and hand.result is None
    with pytest.raises(ConservationError):
        hand.play(1, card("4D"))


# -- the common profile's play options ----------------------------------------------------------

def test_common_profile_draws_five_and_has_no_ace_king_queen_lead() -> None:
    common = load_bourre_profiles(CONFIG_DIR / "bourre.toml")["common"]
    # Seat 1 holds the ace, king and queen of hearts, and hearts are trumps.
    deal = {1: "AH KH QH 2C 3C", 2: "2S 3S 4S 5S 6S", 3: "2D 3D 4D 5D 9H"}
    for profile, can_draw_five, leads in ((T, False, {"AH"}),
                                          (common, True, {"AH", "KH", "QH", "2C", "3C"})):
        hand = hand_from(deal, dealer=3, profile=profile)
        for seat in (1, 2, 3):
            hand.stay(seat)
        assert hand.can_discard(1, list(hand.held(1))) is can_draw_five
        for seat in (1, 2, 3):
            hand.discard(seat, [])
        assert {c.code for c in hand.legal_cards(1)} == leads
        reason = hand.illegal_reason(1, card("KH"))
        assert (reason is None) is (profile is common)
        assert hand.illegal_reason(1, card("AH")) is None
        with pytest.raises(IllegalActionError, match="out of turn"):
            hand.violation(2, card("2S"))
