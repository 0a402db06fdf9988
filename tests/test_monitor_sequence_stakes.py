"""The shoe's sequence tests (a shoe that repeats itself or deals in order) and each seat's
stake test (a player who spreads small chips as cover and loads the spot that will win), pure:
each finds its anomaly and names it, and neither speaks on fair rounds."""

from __future__ import annotations

import random

from dealer_station.cards import LAPAIRE_DECK
from dealer_station.monitor import DealtRound, Monitor, MonitorSettings, SeatWager
from dealer_station.monitor.deck import card_value
from dealer_station.monitor.sequence import SequenceRule, following
from dealer_station.monitor.stakes import winning_stakes

#: Every First Card spot a cover player spreads one chip on (each value covered once).
COVER = (("A",), ("2", "3"), ("4", "5"), ("6", "7"), ("8", "9"), ("10", "J"), ("Q", "K"))


def cover_wagers(seat: int, load_on: str | None, rng: random.Random) -> list[SeatWager]:
    """One chip on spots covering every value but the Joker, and ``load_on``'s spot loaded
    with 20 more (a random spot when the player does not know the card)."""
    spots = [SeatWager(seat, "straight" if len(v) == 1 else "split", v, 100) for v in COVER]
    target = next((i for i, w in enumerate(spots) if load_on in w.values), None) \
        if load_on is not None else rng.randrange(len(spots))
    if target is not None:
        w = spots[target]
        spots[target] = SeatWager(w.seat, w.kind, w.values, 2100)
    return spots


def test_a_sorted_shoe_is_found_by_its_sequence_and_named_by_card() -> None:
    """A shoe that deals in order one round in three: each card the next value after the one
    before it. The value tests see nothing out of pattern (every value still comes out as
    often); the sequence tests find it, for the cards it happened to."""
    m = Monitor("T1")
    rng = random.Random(11)
    alerts = []
    for n in range(1, 301):
        deck = LAPAIRE_DECK.shuffled(rng)
        cards = [c.code for c in deck[:3]]
        if n % 3 == 0:
            first = next(c for c in deck if not c.is_joker)
            nxt = following(first.value)
            second = next(c for c in deck if c.value == nxt and c.code != first.code)
            third = next(c for c in deck if c.value == following(nxt or "")
                         and c.code not in (first.code, second.code))
            cards = [first.code, second.code, third.code]
        alerts += m.feed(DealtRound("T1", n, "dealer-1", tuple(cards), ()))
    found = [a for a in alerts if a.test.startswith("shoe:sequence:")]
    assert found and {a.test for a in found} <= {"shoe:sequence:2:next", "shoe:sequence:3:next"}
    assert all(a.rule == "shoe" and a.value is None and a.colour is None for a in found)
    assert not [a for a in alerts if not a.test.startswith("shoe:sequence:")]
    a = found[0]
    assert a.statistic >= a.threshold and a.p_value < 1e-3
    assert "was the next value after the card dealt before it" in a.evidence_words()
    assert a.round_no <= 120


def test_a_repeating_shoe_is_found_across_rounds() -> None:
    """The First Card repeats the previous round's last card's value one round in three."""
    m = Monitor("T1")
    rng = random.Random(4)
    alerts, last = [], None
    for n in range(1, 301):
        deck = LAPAIRE_DECK.shuffled(rng)
        if n % 3 == 0 and last is not None:
            i = next(i for i, c in enumerate(deck) if c.value == last)
            deck.insert(0, deck.pop(i))
        cards = tuple(c.code for c in deck[:3])
        last = card_value(cards[-1])
        alerts += m.feed(DealtRound("T1", n, "dealer-1", cards, ()))
    assert alerts and {a.test for a in alerts} == {"shoe:sequence:1:repeat"}
    assert "repeated the value of the card dealt before it" in alerts[0].evidence_words()


def test_a_cover_player_loading_the_winner_is_found_by_stakes_not_by_hits() -> None:
    """Seat 5 covers every value but the Joker with a chip each, every round; half the
    rounds it knows the card and loads its spot, else it loads one at random. Its spots name
    the First Card nearly always either way (no hit test can tell); its money tells."""
    m = Monitor("T1")
    rng = random.Random(8)
    alerts = []
    for n in range(1, 201):
        deck = LAPAIRE_DECK.shuffled(rng)
        knows = deck[0].value if n % 2 == 0 else None
        wagers = tuple(cover_wagers(5, knows, rng))
        alerts += m.feed(DealtRound("T1", n, "dealer-2", tuple(c.code for c in deck[:3]),
                                    wagers))
    assert alerts and {a.test for a in alerts} == {"card-knowledge:stakes:5"}
    a = alerts[0]
    assert a.rule == "card-knowledge" and a.seat == 5 and a.dealer == "dealer-2"
    assert a.round_no <= 60 and a.p_value < 1e-3
    data = a.to_json()
    assert data["test"] == "card-knowledge:stakes:5" and data["staked"] > data["win"] > 0
    words = a.evidence_words()
    assert words.startswith("seat 5 put ") and "of its First Card stakes on the spots" in words


def test_the_winning_stake_and_its_law_are_exact() -> None:
    rnd = DealtRound("T1", 1, None, ("7H", "2C", "9D"),
                     (SeatWager(3, "straight", ("7",), 500), SeatWager(3, "split", ("6", "7"),
                                                                       200),
                      SeatWager(3, "red", (), 900), SeatWager(4, "corner",
                                                              ("2", "3", "8", "9"), 100)))
    seats = winning_stakes(rnd)
    stake, law, staked = seats[3]
    assert (stake, staked) == (700, 700)          # both spots name the 7; Red is not a spot
    assert dict(zip(law.values, law.chances, strict=True)) == {
        700: 4 / 54, 200: 4 / 54, 0: 46 / 54}
    assert seats[4][0] == 0 and abs(sum(seats[4][1].chances) - 1) < 1e-12


def test_neither_speaks_on_fair_rounds() -> None:
    """4,000 fair rounds with cover players who load a random spot: no sequence or stake
    alert at the default rate, and no more than the rate allows at 1 in 100."""
    strict = Monitor("T1")
    loose = Monitor("T1", MonitorSettings(rounds_per_false_alarm=100))
    rng = random.Random(21)
    quiet, loud = [], []
    for n in range(1, 4001):
        deck = LAPAIRE_DECK.shuffled(rng)
        wagers = tuple(cover_wagers(2, None, rng) + cover_wagers(6, None, rng))
        rnd = DealtRound("T1", n, "dealer-3", tuple(c.code for c in deck[:3]), wagers)
        quiet += strict.feed(rnd)
        loud += loose.feed(rnd)
    mine = ("shoe:sequence:", "card-knowledge:stakes:")
    assert [a for a in quiet if a.test.startswith(mine)] == []
    assert len(loud) <= 4000 / 100
    assert strict.stakes is not None and set(strict.stakes.by_seat) == {2, 6}   # they looked
    assert SequenceRule.tests() == 6
