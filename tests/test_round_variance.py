"""The exact law of a La Pair'e round's house win (games/lapaire/rules/round_variance.py),
held to brute force: every one of the 148,824 ordered deals of three cards from the 54-card
deck, each settled by the engine's own settlement table (and a sample of them by
``settle_round`` itself), for wagers that share cards in every way the layout allows."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest

from dealer_station import registry as games
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import LaPaireConfig
from dealer_station.games.lapaire.rules.engine import (
    Wager,
    _outcome2,
    _outcome3,
    compile_table,
    settle_round,
)
from dealer_station.games.lapaire.rules.house_math import par_sheet
from dealer_station.games.lapaire.rules.poker import card_class
from dealer_station.games.lapaire.rules.round_variance import DEALS, round_laws
from dealer_station.games.lapaire.table.sim import random_wagers
from dealer_station.table.parts import ROUND_LAW

Staked = tuple[str, tuple[str, ...], int]


@pytest.fixture(scope="module")
def config() -> LaPaireConfig:
    return load_lapaire_config(None)


@pytest.fixture(scope="module")
def deals() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every ordered deal of three physical cards, as the outcome each stage reads: card 1's
    class, the first two cards' values, the three cards' classes."""
    deck = LAPAIRE_DECK.cards()
    classes = [card_class(c) for c in deck]
    o1, o2, o3 = [], [], []
    for i, j, k in permutations(range(len(deck)), 3):
        a, b, c = classes[i], classes[j], classes[k]
        o1.append(a)
        o2.append(_outcome2(a, b))
        o3.append(_outcome3(a, b, c))
    assert len(o1) == DEALS == 54 * 53 * 52
    return np.array(o1), np.array(o2), np.array(o3)


def brute_force(config: LaPaireConfig, wagers: list[Staked], cards: int,
                deals: tuple[np.ndarray, ...]) -> tuple[Fraction, Fraction]:
    """The mean and variance of the house win over every deal, exactly (whole numbers)."""
    table = compile_table(config)
    win = np.zeros(DEALS, dtype=object)
    for bet, values, amount in wagers:
        rule = table.rules[(bet, values)]
        if rule.stage > cards:
            continue
        house = np.array([amount if o is None else -o.pay(amount) for o in rule.pays],
                         dtype=object)
        win = win + house[deals[rule.stage - 1]]
    s1 = sum(int(w) for w in win)
    s2 = sum(int(w) * int(w) for w in win)
    mean = Fraction(s1, DEALS)
    return mean, Fraction(s2, DEALS) - mean * mean


#: Wagers that share cards every way the layout allows: a Straight-up, a Corner and Red on
#: card 1, the La Pair'e Card on the same value and Any Pair'e on cards 1-2, Poker on all three.
TANGLED: list[Staked] = [
    ("straight", ("7",), 500), ("corner", ("2", "3", "8", "9"), 100), ("red", (), 300),
    ("black", (), 100), ("lapaire", ("7",), 200), ("any_pair", (), 100), ("poker", (), 250),
    ("poker", (), 130), ("straight", ("JK",), 100), ("three", ("7", "K", "JK"), 300),
]


def test_the_law_is_every_deal_counted_exactly(config: LaPaireConfig,
                                               deals: tuple[np.ndarray, ...]) -> None:
    rng = random.Random(5)
    cases: list[tuple[list[Staked], int]] = [(TANGLED, 3), (TANGLED, 2), (TANGLED, 1)]
    for _ in range(4):
        placed = [(w.bet, tuple(w.values), w.amount) for w in random_wagers(rng, config)]
        cases.append((placed, 3))
    laws = round_laws(config)
    for wagers, cards in cases:
        law = laws.law(wagers, cards)
        assert law is not None and law.total == DEALS == sum(law.counts)
        assert (law.mean, law.variance) == brute_force(config, wagers, cards, deals), wagers


def test_the_brute_force_settles_as_the_engine_does(config: LaPaireConfig,
                                                    deals: tuple[np.ndarray, ...]) -> None:
    """The lookups above are the engine's: a sample of deals settled by settle_round."""
    table = compile_table(config)
    deck = LAPAIRE_DECK.cards()
    wagers = [Wager(1, "straight", ("7",), 500), Wager(1, "lapaire", ("7",), 200),
              Wager(2, "three", ("7", "K", "JK"), 300), Wager(2, "poker", (), 250),
              Wager(2, "red", (), 300), Wager(1, "any_pair", (), 100)]
    rng = random.Random(9)
    for _ in range(300):
        cards = rng.sample(deck, 3)
        result = settle_round(config, wagers, cards)
        a, b, c = (card_class(x) for x in cards)
        outs = (a, _outcome2(a, b), _outcome3(a, b, c))
        looked = 0
        for w in wagers:
            o = table.rules[w.spot].pays[outs[table.rules[w.spot].stage - 1]]
            looked += w.amount if o is None else -o.pay(w.amount)
        assert looked == result.total_lost - result.total_win


def test_one_wager_has_the_par_sheets_mean_and_variance(config: LaPaireConfig) -> None:
    """A single wager: its stake times the par sheet's house edge, its stake squared times
    the par sheet's variance (every spot of the default table pays whole odds)."""
    laws = round_laws(config)
    for row in par_sheet(config):
        law = laws.law([(row.bet, tuple(row.values), 300)])
        assert law is not None
        assert law.mean == 300 * row.house_edge, row.label
        assert law.variance == 300 * 300 * row.variance, row.label


def test_independent_stages_add_and_shared_cards_do_not(config: LaPaireConfig) -> None:
    laws = round_laws(config)

    def var(*w: Staked) -> Fraction:
        law = laws.law(list(w))
        assert law is not None
        return law.variance

    seven, red = ("straight", ("7",), 500), ("red", (), 500)
    black = ("black", (), 500)
    # Red and Black on the same card are opposed: together they lose both only on a Joker.
    assert var(red, black) < var(red) + var(black)
    # The Straight-up on 7 and the La Pair'e Card on 7 win together: more than the sum.
    pair7 = ("lapaire", ("7",), 100)
    assert var(seven, pair7) > var(seven) + var(pair7)
    # Stakes placed twice on one spot are one stake.
    assert var(seven, seven) == var(("straight", ("7",), 1000))


def test_voided_and_empty_rounds_and_a_spot_not_offered(config: LaPaireConfig) -> None:
    laws = round_laws(config)
    only_poker = laws.law([("poker", (), 100)], 2)
    assert only_poker is not None and only_poker.variance == 0 and only_poker.mean == 0
    assert laws.law([("straight", ("8", "9"), 100)]) is None
    # Cached: the same wagers in another order are one law.
    assert laws.law(list(reversed(TANGLED))) is laws.law(TANGLED)


def test_the_registry_part_gives_the_law_by_the_journals_content(
        config: LaPaireConfig) -> None:
    part = games.game("lapaire").supplies(ROUND_LAW)
    assert part is not None and games.game("bourre").supplies(ROUND_LAW) is None
    law = part(config.to_data())(TANGLED, 3)
    own = round_laws(config).law(TANGLED, 3)
    assert law is not None and own is not None
    assert law == (own.values, own.counts, own.total)
