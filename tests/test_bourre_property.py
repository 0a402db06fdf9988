"""Property tests: thousands of random hands (with random misplays) under many profiles, checked
step by step against a plain reference written here from the rules: the legal cards, one winner
per trick, the settlement, and chips conserved."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from repo_paths import CONFIG_DIR

from dealer_station.cards import BOURRE_DECK, Card, Suit
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile, HouseCollection, MisplayPenalty
from dealer_station.games.bourre.rules.engine import BourreHand, DrawSource, Phase
from dealer_station.games.bourre.rules.play import legal_plays

ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def v(card: Card) -> int:
    return ORDER.index(card.rank)


def ref_winner(trick: Sequence[Card], trump: Suit) -> int:
    trumps = [i for i, c in enumerate(trick) if c.suit == trump]
    pool = trumps or [i for i, c in enumerate(trick) if c.suit == trick[0].suit]
    return max(pool, key=lambda i: v(trick[i]))


def ref_is_legal(card: Card, held: Sequence[Card], trick: Sequence[Card], trump: Suit,
                 p: BourreProfile) -> bool:
    if not trick:
        ranks = {c.rank for c in held if c.suit == trump}
        if p.lead_highest_trump_with_ace_king_queen and {"A", "K", "Q"} <= ranks:
            return card.suit == trump and card.rank == "A"
        return True
    led = trick[0].suit
    best = trick[ref_winner(trick, trump)]
    if any(c.suit == led for c in held):
        if card.suit != led:
            return False
        if best.suit == led and any(c.suit == led and v(c) > v(best) for c in held):
            return v(card) > v(best)
        return True
    if any(c.suit == trump for c in held):
        if best.suit == trump:
            if any(c.suit == trump and v(c) > v(best) for c in held):
                return card.suit == trump and v(card) > v(best)
            return card.suit == trump or not p.must_trump_even_when_cannot_beat
        return card.suit == trump
    return True


T = BourreProfile()
PROFILES = [
    T,
    load_bourre_profiles(CONFIG_DIR / "bourre.toml")["common"],
    dataclasses.replace(T, name="retraction", misplay_penalty=MisplayPenalty.RETRACTION),
    dataclasses.replace(T, name="drop", house_collection=HouseCollection.DROP, house_drop=1,
                        dealer_antes_for_all=True),
    dataclasses.replace(T, name="percent", house_collection=HouseCollection.PERCENT,
                        house_percent=5, house_cap=2, second_ante=False,
                        bourre_penalty_cap=None),
    dataclasses.replace(T, name="lax", must_trump_even_when_cannot_beat=False, draw_limit=0,
                        lead_highest_trump_with_ace_king_queen=False),
    dataclasses.replace(T, name="ten", max_players=10, draw_limit=5, ante=2, stay_chips=3),
]


def run_hand(rng: random.Random, p: BourreProfile) -> tuple[int, int]:
    """One random hand, checked at every step. Returns (tricks seen, misplays)."""
    n = rng.randint(p.min_players, p.max_players)
    seats = rng.sample(range(1, 20), n)
    dealer = rng.choice(seats)
    chips = {s: rng.choice([1, 2, 3, 5, 8, 20, 100]) for s in seats}
    pot_in = rng.choice([0, 0, 3, 17, 40])
    hand = BourreHand(p, seats, dealer, chips, pot_in)
    deck = BOURRE_DECK.shuffled(rng)
    hand.ante()
    pos = 0
    while hand.phase is Phase.DEAL:
        hand.deal_card(deck[pos])
        pos += 1
    while hand.phase is Phase.DECISIONS:
        seat = hand.to_act
        assert seat is not None
        if hand.can_stay(seat) and (not hand.can_fold(seat) or rng.random() < 0.6):
            hand.stay(seat)
        else:
            hand.fold(seat)
    while hand.phase is Phase.DRAW:
        seat = hand.to_act
        assert seat is not None
        k = rng.randint(0, p.draw_limit)
        hand.discard(seat, rng.sample(list(hand.held(seat)), k))
        for _ in range(k):
            if hand.draw_source() is DrawSource.STOCK:
                hand.receive(seat, deck[pos])
                pos += 1
            elif hand.draw_source() is DrawSource.FOLDED:
                hand.receive(seat, rng.choice(hand.folded_pile))
            else:
                hand.receive(seat, rng.choice(hand.discard_pile))
    trick: list[tuple[int, Card]] = []
    tricks_seen = 0
    penalised: set[int] = set()
    misplays = 0
    while hand.phase is Phase.PLAY:
        seat = hand.to_act
        assert seat is not None and hand.trump is not None
        held = list(hand.held(seat))
        cards_in = [c for _, c in trick]
        ref = [c for c in held if ref_is_legal(c, held, cards_in, hand.trump, p)]
        assert set(hand.legal_cards(seat)) == set(ref)
        wrong = [c for c in held if c not in ref]
        if wrong and rng.random() < 0.08:
            card = rng.choice(wrong)
            assert hand.illegal_reason(seat, card) is not None
            misplays += 1
            if p.misplay_penalty is not MisplayPenalty.RETRACTION:
                penalised.add(seat)
            rec = hand.play(seat, card)
            assert rec.misplay is not None
            if not p.misplay_stands:
                assert hand.to_act == seat and card in hand.held(seat)
                continue
        else:
            card = rng.choice(ref)
            assert hand.illegal_reason(seat, card) is None
            rec = hand.play(seat, card)
            assert rec.misplay is None
        trick.append((seat, card))
        if len(trick) == len(hand.stayers):
            expected = trick[ref_winner([c for _, c in trick], hand.trump)][0]
            assert rec.trick_winner == expected  # exactly one winner, the right one
            tricks_seen += 1
            trick = []
        else:
            assert rec.trick_winner is None
    result = hand.result
    assert hand.phase is Phase.SETTLED and result is not None
    # Chips are conserved: the table, the pot and the house hold what they held before.
    total = sum(chips.values()) + pot_in
    assert sum(result.chips.values()) + result.pot + result.house == total
    assert all(c >= 0 for c in result.chips.values())
    if result.dead:
        assert tricks_seen == 0
        return 0, 0
    assert tricks_seen == 5 and sum(result.tricks.values()) == 5
    check_settlement(hand, chips, pot_in, penalised)
    return tricks_seen, misplays


def check_settlement(hand: BourreHand, chips: dict[int, int], pot_in: int,
                     penalised: set[int]) -> None:
    """The settlement worked out again from the rules and the figures of this hand."""
    p = hand.profile
    r = hand.result
    assert r is not None
    n = len(hand.seats)
    paid = ({hand.dealer: min(chips[hand.dealer], p.ante * n)} if p.dealer_antes_for_all
            else {s: min(chips[s], p.ante) for s in hand.seats})
    pot = pot_in + sum(paid.values())
    drop = min(p.house_drop, pot) if p.house_collection is HouseCollection.DROP else 0
    pot = pot - drop + p.stay_cost * len(r.stayers)
    assert r.pot_end == pot
    after = {s: chips[s] - paid.get(s, 0) - (p.stay_cost if s in r.stayers else 0)
             for s in hand.seats}
    clean = {s: r.tricks[s] for s in r.stayers if s not in penalised}
    top = max(clean.values(), default=0)
    leaders = [s for s, t in clean.items() if t == top]
    winner = leaders[0] if len(leaders) == 1 and top > 0 else None
    assert r.winner == winner
    house = drop
    next_pot = pot
    if winner is not None:
        take = 0
        if p.house_collection is HouseCollection.PERCENT:
            take = pot * p.house_percent // 100
            if p.house_cap is not None:
                take = min(take, p.house_cap)
        after[winner] += pot - take
        house += take
        next_pot = 0
    fine = pot if p.bourre_penalty_cap is None else min(pot, p.bourre_penalty_cap)
    for s in r.stayers:
        if r.tricks[s] == 0 or s in penalised:
            pay = fine if after[s] > fine else after[s]
            after[s] -= pay
            next_pot += pay
    assert dict(r.chips) == after
    assert r.pot == next_pot and r.house == house
    assert set(r.eliminated) == {s for s in hand.seats if after[s] == 0}


def test_thousands_of_random_hands() -> None:
    rng = random.Random(20240611)
    hands = tricks = misplays = 0
    for i in range(3500):
        t, m = run_hand(rng, PROFILES[i % len(PROFILES)])
        hands += 1
        tricks += t
        misplays += m
    assert hands == 3500
    assert tricks > 3000 * 5 * 0.8 and misplays > 500  # the hands were real, misplays too


CARDS = BOURRE_DECK.cards()


@settings(max_examples=600, deadline=None)
@given(picks=st.lists(st.sampled_from(CARDS), min_size=2, max_size=11, unique=True),
       split=st.integers(min_value=1, max_value=5), trump=st.sampled_from(list(Suit)),
       akq=st.booleans(), must_trump=st.booleans())
def test_legal_plays_match_the_reference(picks: list[Card], split: int, trump: Suit, akq: bool,
                                         must_trump: bool) -> None:
    held = picks[:split]
    trick = picks[split:split + 6]
    p = dataclasses.replace(T, lead_highest_trump_with_ace_king_queen=akq,
                            must_trump_even_when_cannot_beat=must_trump)
    got = legal_plays(held, trick, trump, p)
    assert got, "a player always has a legal card"
    assert set(got) == {c for c in held if ref_is_legal(c, held, trick, trump, p)}
