"""Playing Bourré sessions through the real table service and journal, quickly: the test is
the shoe and the reader (cards keyed in as the devices would send them), the players choose at
random among what the rules allow, with an occasional renege. Nothing is mocked."""

from __future__ import annotations

import random
from dataclasses import replace

from dealer_station.audit.journal import Journal
from dealer_station.cards import BOURRE_DECK
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import DrawSource, Phase
from dealer_station.games.bourre.table.live import BourreTable

DEALER = "dee/dealer"
SEATS = (1, 2, 3, 4, 5)


def profile(name: str, minutes: int | None = None) -> BourreProfile:
    p = load_bourre_profiles()[name]
    return replace(p, session_minutes=minutes) if minutes else p


def open_table(journal: Journal, table_id: str, p: BourreProfile) -> BourreTable:
    return BourreTable(journal, table_id, p, dealer=DEALER, prefer_journal_config=False)


def play_hand(t: BourreTable, rng: random.Random, elapsed: float) -> None:
    t.start_hand(elapsed=elapsed)
    hand = t.hand
    assert hand is not None
    deck = BOURRE_DECK.shuffled(rng)
    while hand.phase is Phase.DEAL:
        t.card(deck.pop(0), source="shoe")
    while hand.phase is Phase.DECISIONS:
        seat = hand.to_act
        assert seat is not None
        t.decide(seat, hand.can_stay(seat) and (not hand.can_fold(seat) or rng.random() < 0.7))
    while hand.phase is Phase.DRAW:
        seat = hand.to_act
        assert seat is not None
        held = list(hand.held(seat))
        for c in rng.sample(held, rng.randint(0, min(hand.profile.draw_limit, len(held)))):
            t.discard_card(seat, c)
        for _ in range(t.finish_discard(seat)):
            source = hand.draw_source()
            pile = (list(hand.unseen) if source is DrawSource.STOCK else
                    list(hand.folded_pile) if source is DrawSource.FOLDED else
                    list(hand.discard_pile))
            t.card(rng.choice(pile), source="shoe")
    while hand.phase is Phase.PLAY:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_cards(seat)
        illegal = [c for c in hand.held(seat) if c not in legal]
        card = rng.choice(illegal) if illegal and rng.random() < 0.03 else rng.choice(legal)
        t.card(card, source="reader")


def play_sessions(t: BourreTable, rng: random.Random, hands: int, *,
                  end_last: bool = True) -> int:
    """Play ``hands`` hands in as many sessions as they take (one simulated minute a hand);
    returns how many sessions were closed."""
    closed = 0
    played = 0
    in_session = 0
    while played < hands:
        session = t.session
        if session is not None and t.hand is None and session.is_over(in_session * 60):
            t.end_session(tie_break=_tie_break(t))
            closed += 1
            session = None
        if session is None:
            t.start_session(SEATS, rng.choice(SEATS), players={
                s: f"p{rng.randrange(10**6):06d}-{s}" for s in SEATS})
            in_session = 0
        play_hand(t, rng, in_session * 60)
        in_session += 1
        played += 1
    if end_last and t.session is not None:
        t.end_session(tie_break=_tie_break(t))
        closed += 1
    return closed


def _tie_break(t: BourreTable) -> list[int]:
    """The judge's order for players level across the winners' line: by seat."""
    session = t.session
    assert session is not None
    return sorted(session.seats)
