"""Random Bourré hands, played by the real engine with random legal choices: the input
records that tests and benchmarks feed to ``settle`` and replay."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from dealer_station.cards import BOURRE_DECK, Card
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import BourreError, BourreHand, DrawSource, Phase
from dealer_station.games.bourre.rules.play import legal_plays


def random_bourre_record(rng: random.Random, profile: BourreProfile | None = None, *,
                         seats: Sequence[int] | None = None, dealer: int | None = None,
                         chips: Mapping[int, int] | None = None, pot: int = 0,
                         misplay_rate: float = 0.0, hand_id: Any = None) -> dict[str, Any]:
    """A random complete hand as an input record, played by a real engine with random legal
    decisions, draws and cards. ``misplay_rate`` is the chance, at each play where the player
    holds an illegal card, that she misplays one first."""
    p = profile if profile is not None else BourreProfile()
    if seats is None:
        n = rng.randint(p.min_players, p.max_players)
        seats = list(range(1, n + 1))
    seats = list(seats)
    if dealer is None:
        dealer = rng.choice(seats)
    if chips is None:
        chips = {s: p.session_chips for s in seats}
    hand = BourreHand(p, seats, dealer, chips, pot)
    return play_random_hand(hand, rng, misplay_rate=misplay_rate, hand_id=hand_id)


def play_random_hand(hand: BourreHand, rng: random.Random, *, misplay_rate: float = 0.0,
                     hand_id: Any = None) -> dict[str, Any]:
    """Drive a new hand (in its ante phase) to the end with a shuffled deck and random legal
    choices, as a table would; return the hand as an input record. ``misplay_rate``: the
    chance, at each play where the player holds an illegal card, that she misplays one first."""
    if not hand.can_ante():
        raise BourreError("a random hand starts from the ante")
    p = hand.profile
    seats = list(hand.seats)
    dealer = hand.dealer
    chips = dict(hand.chips_before)
    pot = hand.pot_before
    deck = BOURRE_DECK.shuffled(rng)
    hand.ante()
    pos = 0
    while hand.phase is Phase.DEAL:
        hand.deal_card(deck[pos])
        pos += 1
    deal = {str(s): [c.code for c in hand.held(s)] for s in seats}
    stay: dict[str, bool] = {}
    while hand.phase is Phase.DECISIONS:
        seat = hand.to_act
        assert seat is not None
        stays = hand.can_stay(seat) and (not hand.can_fold(seat) or rng.random() < 0.7)
        if stays:
            hand.stay(seat)
        else:
            hand.fold(seat)
        stay[str(seat)] = stays
    for seat in hand.seats:  # a dead hand still records every seat's (forced) decision
        stay.setdefault(str(seat), False)
    draws: dict[str, dict[str, list[str]]] = {}
    while hand.phase is Phase.DRAW:
        seat = hand.to_act
        assert seat is not None
        held = list(hand.held(seat))
        k = rng.randint(0, p.draw_limit)
        discard = rng.sample(held, k)
        hand.discard(seat, discard)
        receive: list[Card] = []
        for _ in range(k):
            # The stock is the rest of the shuffled deck; after it, a shuffled pile gives a
            # random card of the folded hands, then of the discards.
            if hand.draw_source() is DrawSource.STOCK:
                card = deck[pos]
                pos += 1
            elif hand.draw_source() is DrawSource.FOLDED:
                card = rng.choice(hand.folded_pile)
            else:
                card = rng.choice(hand.discard_pile)
            hand.receive(seat, card)
            receive.append(card)
        if k:
            draws[str(seat)] = {"discard": [c.code for c in discard],
                                "receive": [c.code for c in receive]}
    plays: list[list[Any]] = []
    while hand.phase is Phase.PLAY:
        seat = hand.to_act
        assert seat is not None and hand.trump is not None
        held = list(hand.held(seat))
        trick = [c for _, c in hand.current_trick]
        legal = legal_plays(held, trick, hand.trump, p)
        if misplay_rate and rng.random() < misplay_rate:
            wrong = [c for c in held if c not in legal]
            if wrong:
                card = rng.choice(wrong)
                hand.play(seat, card)
                plays.append([seat, card.code])
                continue
        card = rng.choice(legal)
        hand.play(seat, card)
        plays.append([seat, card.code])
    assert hand.trump_card is not None
    record: dict[str, Any] = {
        "game": "bourre", "rules": p.name, "hand_id": hand_id, "seats": seats,
        "dealer": dealer, "chips": {str(s): chips[s] for s in seats}, "pot": pot,
        "deal": deal, "trump_card": hand.trump_card.code, "stay": stay, "draws": draws,
        "plays": plays,
    }
    return record
