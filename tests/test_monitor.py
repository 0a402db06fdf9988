"""The game-protection monitor's statistics (dealer_station/monitor/), pure and fast: a
CUSUM's false alarms on fair data stay within the rate its threshold was set for, it finds a
shifted chance within the rounds docs/monitor.md states, the p-values are the exact tails,
the rules read the deck's chances exactly, and [monitor] is read with clear errors."""

from __future__ import annotations

import math
import random
from itertools import product
from pathlib import Path

import pytest
from scipy.stats import binom

from dealer_station.cards import LAPAIRE_DECK
from dealer_station.monitor import DealtRound, Monitor, MonitorSettings, SeatWager
from dealer_station.monitor.cusum import Cusum, at_least, designed, threshold
from dealer_station.monitor.settings import RuleSettings, load_monitor_settings
from dealer_station.tomlconfig import ConfigError

#: docs/monitor.md: the shoe's tests at the default settings find a value forced one round
#: in three at the First Card within this many rounds, in every one of 200 synthetic runs.
SHOE_WITHIN = 120
CONTRACT_KEYS = {"rule", "table", "round_no", "seat", "dealer", "p_value"}


def fair_round(rng: random.Random, round_no: int, seats: int = 7) -> DealtRound:
    deck = LAPAIRE_DECK.shuffled(rng)
    wagers = tuple(SeatWager(s, "corner", ("2", "3", "8", "9"), 500) if s % 2 else
                   SeatWager(s, "straight", (rng.choice(("A", "7", "K", "JK")),), 100)
                   for s in range(1, seats + 1) if rng.random() < 0.6)
    return DealtRound("T1", round_no, "dealer-1", tuple(c.code for c in deck[:3]), wagers)


# --- the CUSUM ---------------------------------------------------------------------------

def test_false_alarms_on_fair_data_stay_within_the_rate_the_threshold_was_set_for() -> None:
    """Looks whose chance changes every look (the deck's chances at cards 1 to 3), fair
    outcomes: restarted after each alarm, the alarms per look stay under e^-h."""
    rng = random.Random(7)
    rate = 1 / 300
    test = Cusum(threshold(rate), 0.25)
    chances = [4 / 54, 4 / 53, 3 / 53, 4 / 52, 2 / 54, 26 / 54, 25 / 53, 1 / 52]
    looks, alarms = 200_000, 0
    for t in range(looks):
        p0 = chances[t % len(chances)]
        if test.update(rng.random() < p0, p0, t):
            alarms += 1
            test.restart()
    assert alarms <= looks * rate          # the bound: at most 667
    assert alarms > 0                      # it was measured, not vacuous (it is about 1/3)


def test_a_shifted_chance_is_found_within_the_rounds_the_docs_state() -> None:
    """A value forced one round in three at the First Card (the injected biased shoe):
    the shoe rule's test at its default threshold alarms within SHOE_WITHIN looks."""
    monitor = Monitor("T1")
    h = monitor.thresholds["shoe"]
    p0 = 4 / 54
    p = 1 / 3 + 2 / 3 * p0
    delays = []
    for seed in range(200):
        rng = random.Random(seed)
        test = Cusum(h, MonitorSettings().shoe.shift)
        t = 0
        while not test.update(rng.random() < p, p0, t):
            t += 1
        delays.append(t + 1)
    assert max(delays) <= SHOE_WITHIN
    assert 25 <= sum(delays) / len(delays) <= 60     # Wald: h / drift = 37.7


def test_the_designed_alternative_and_threshold() -> None:
    assert designed(0.1, 0.25) == pytest.approx(0.325)
    assert threshold(1e-4) == pytest.approx(math.log(1e4))
    with pytest.raises(ValueError):
        threshold(0)


def test_p_values_are_exact_tails() -> None:
    assert at_least(3, [0.1] * 20) == pytest.approx(binom.sf(2, 20, 0.1))
    chances = [0.1, 0.3, 0.5, 0.05, 0.2]
    for hits in range(7):
        brute = sum(math.prod(p if o else 1 - p for p, o in zip(chances, outcome, strict=True))
                    for outcome in product((0, 1), repeat=len(chances)) if sum(outcome) >= hits)
        assert at_least(hits, chances) == pytest.approx(brute)


def test_a_look_whose_outcome_is_certain_carries_no_evidence() -> None:
    test = Cusum(5.0, 0.25)
    assert not test.update(False, 0.0, 1)
    assert not test.update(True, 1.0, 2)
    assert test.statistic == 0 and test.looks == 0


# --- the monitor ---------------------------------------------------------------------------

def test_thresholds_split_the_rate_across_every_test() -> None:
    m = Monitor("T1")
    assert m.tests == 3 * 16 + 6 + 2 * 7 + 1 + 2
    # 1 in 10,000 rounds, shared by the shares (1 each to the shoe, card knowledge, the
    # dealers, the hold; 0.04 to the tray rule, which looks once a counted day), then equally
    # among a rule's tests (the dealers' tests look once a round together): the shoe's 48
    # value and colour tests and its 6 sequence tests; each seat's hit test and its stake test
    assert m.thresholds["shoe"] == pytest.approx(math.log(10_000 * 4.04 * 54))
    assert m.thresholds["card-knowledge"] == pytest.approx(math.log(10_000 * 4.04 * 14))
    assert m.thresholds["dealer"] == pytest.approx(math.log(10_000 * 4.04 * 1))
    assert m.thresholds["hold"] == pytest.approx(math.log(10_000 * 4.04 * 2))
    off = Monitor("T1", MonitorSettings(card_knowledge=RuleSettings(share=0),
                                        dealer=RuleSettings(share=0),
                                        hold=RuleSettings(share=0)))
    assert set(off.thresholds) == {"shoe"} and off.tests == 54
    assert off.thresholds["shoe"] == pytest.approx(math.log(10_000 * 1.04 * 54))


def test_the_whole_monitors_false_alarms_on_fair_rounds_stay_within_its_rate() -> None:
    """Every rule at once at 1 false alarm per 50 rounds: over 6,000 fair rounds at most 120
    (and none at the default 1 per 10,000 over the same rounds)."""
    strict, loose = Monitor("T1"), Monitor("T1", MonitorSettings(rounds_per_false_alarm=50))
    rng = random.Random(3)
    false_alarms, loud = 0, 0
    for n in range(1, 6001):
        rnd = fair_round(rng, n)
        false_alarms += len(strict.feed(rnd))
        loud += len(loose.feed(rnd))
    assert false_alarms == 0
    assert 0 < loud <= 6000 / 50


def test_a_biased_first_card_and_a_seat_that_knows_it_are_named() -> None:
    monitor = Monitor("T1")
    rng = random.Random(5)
    alerts = []
    for n in range(1, 201):
        deck = LAPAIRE_DECK.shuffled(rng)
        if n % 3 == 0:      # the shoe gives a Queen one round in three
            q = next(i for i, c in enumerate(deck) if c.rank == "Q")
            deck.insert(0, deck.pop(q))
        wagers = [SeatWager(2, "split", ("2", "3"), 100)]
        if n % 2 == 0:      # seat 4 knows the card every other round
            wagers.append(SeatWager(4, "straight", (deck[0].value,), 100))
        alerts += monitor.feed(DealtRound("T1", n, "dealer-9", tuple(c.code for c in deck[:3]),
                                          tuple(wagers)))
    shoe = [a for a in alerts if a.rule == "shoe"]
    knows = [a for a in alerts if a.rule == "card-knowledge"]
    assert shoe and all((a.stage, a.value) == (1, "Q") for a in shoe)
    assert knows and all(a.seat == 4 for a in knows)
    assert {a.test for a in knows} <= {"card-knowledge:4", "card-knowledge:stakes:4"}
    first = shoe[0]
    assert first.statistic >= first.threshold and 0 < first.p_value < 1e-3
    assert first.dealer == "dealer-9" and first.seat is None
    assert first.hits <= first.looks and first.first_round <= first.round_no
    data = knows[0].to_json()
    assert set(data) >= CONTRACT_KEYS
    assert data["seat"] == 4 and isinstance(data["p_value"], float)
    assert data["staked"] == knows[0].staked > 0
    assert "Queen" in first.evidence_words()


def test_a_round_voided_before_its_first_card_is_passed_over() -> None:
    m = Monitor("T1")
    assert m.feed(DealtRound("T1", 1, None, (), (SeatWager(1, "straight", ("7",), 100),))) \
        == []


# --- [monitor] in station.toml -----------------------------------------------------------

def test_settings_are_read_from_the_station_file(tmp_path: Path) -> None:
    from repo_paths import CONFIG_DIR

    shipped = load_monitor_settings(CONFIG_DIR / "station.toml")
    assert shipped.rounds_per_false_alarm == 10_000 and shipped.seats == 7
    assert shipped.shoe == RuleSettings(1.0, 0.25) == shipped.card_knowledge
    assert load_monitor_settings(tmp_path / "none.toml") == MonitorSettings(
        file=str(tmp_path / "none.toml"))
    f = tmp_path / "station.toml"
    f.write_text("[monitor]\nrounds_per_false_alarm = 50000\n[monitor.shoe]\nshare = 3\n")
    s = load_monitor_settings(f)
    assert s.rounds_per_false_alarm == 50_000 and s.shoe.share == 3
    assert s.card_knowledge == RuleSettings()


@pytest.mark.parametrize(("text", "where", "says"), [
    ("rounds_per_false_alarm = 0", "monitor.rounds_per_false_alarm", "from 10"),
    ("rounds_per_false_alarm = 'many'", "monitor.rounds_per_false_alarm", "whole number"),
    ("seats = 0", "monitor.seats", "from 1"),
    ("[monitor.shoe]\nshift = 1.5", "monitor.shoe.shift", "below 1"),
    ("[monitor.shoe]\nshare = -1", "monitor.shoe.share", "from 0"),
    ("[monitor.shoe]\nshare = true", "monitor.shoe.share", "a number"),
    ("[monitor.shoe]\nsahre = 1", "monitor.shoe.sahre", "unknown key"),
    ("rounds = 5", "monitor.rounds", "unknown key"),
    ("[monitor.shoe]\nshare = 0\n[monitor.card_knowledge]\nshare = 0\n[monitor.dealer]\n"
     "share = 0\n[monitor.hold]\nshare = 0\n[monitor.tray]\nshare = 0", "monitor.shoe.share",
     "every rule's share is 0"),
])
def test_bad_settings_name_the_file_and_key(tmp_path: Path, text: str, where: str,
                                            says: str) -> None:
    f = tmp_path / "station.toml"
    f.write_text("[monitor]\n" + text + "\n")
    with pytest.raises(ConfigError) as err:
        load_monitor_settings(f)
    assert str(err.value).startswith(f"{f}: {where}: ") and says in str(err.value)
