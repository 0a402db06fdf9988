"""The exact par sheet: known values by hand, warnings, and the exhaustive cross-check that
settling every possible deal with the engine returns exactly what the par sheet says."""

from __future__ import annotations

from fractions import Fraction

import pytest
from repo_paths import CONFIG_DIR

from dealer_station.cards import LAPAIRE_DECK
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import LaPaireConfig, parse_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager, settle_round
from dealer_station.games.lapaire.rules.house_math import ParSheetRow, par_sheet, percent

CFG: LaPaireConfig = load_lapaire_config(CONFIG_DIR / "lapaire.toml")


def row(rows: list[ParSheetRow], bet: str, values: tuple[str, ...] = ()) -> ParSheetRow:
    (found,) = [r for r in rows if r.bet == bet and r.values == values]
    return found


def test_known_values_of_the_default_table() -> None:
    rows = par_sheet(CFG)
    assert len(rows) == 14 + 18 + 2 + 5 + 2 + 14 + 1 + 1
    k = row(rows, "straight", ("K",))
    assert (k.probability, k.rtp, k.house_edge) == (Fraction(2, 27), Fraction(26, 27),
                                                    Fraction(1, 27))
    assert k.variance == Fraction(8450, 729)
    assert abs(float(k.stdev) - 8450 ** 0.5 / 27) < 1e-11
    assert k.stdev ** 2 <= k.variance < (k.stdev + Fraction(1, 10**12)) ** 2
    assert row(rows, "straight", ("JK",)).rtp == Fraction(26, 27)
    assert row(rows, "split", ("A", "2")).rtp == Fraction(8, 9)
    assert row(rows, "three", ("7", "K", "JK")).rtp == Fraction(25, 27)
    assert row(rows, "corner", ("2", "3", "8", "9")).probability == Fraction(16, 54)
    assert row(rows, "red").rtp == Fraction(26, 27)
    assert row(rows, "lapaire", ("K",)).rtp == Fraction(226 * 12, 54 * 53)
    assert row(rows, "lapaire", ("JK",)).rtp == Fraction(1301 * 2, 54 * 53)
    assert row(rows, "any_pair").rtp == Fraction(17 * 156 + 51 * 2, 54 * 53)
    poker = row(rows, "poker")
    assert poker.rtp == Fraction(23428, 24804)
    assert [o.label for o in poker.outcomes] == [
        "Two Jokers", "Mini Royal", "Straight Flush", "Three of a Kind", "Straight", "Flush"]
    assert poker.outcomes[0].probability == Fraction(52, 24804)
    assert all(r.warning is None for r in rows)
    assert row(rows, "any_pair").payout == "16 to 1 pair, 50 to 1 two jokers"
    assert k.label == "Straight-up K" and k.payout == "12 to 1"


def test_warnings_for_a_high_or_negative_edge() -> None:
    data = CFG.to_data()
    data["wagers"]["split"]["spot"] = [{"values": ["7", "JK"], "pays": "5 to 1"}]
    data["wagers"]["straight"]["spot"] = [{"values": ["JK"], "pays": "30 to 1"}]
    rows = par_sheet(parse_lapaire_config(data, "<test>"))
    jk7 = row(rows, "split", ("7", "JK"))
    assert jk7.house_edge == Fraction(1, 3)
    assert jk7.warning == "house edge 33.33% is above the warning threshold 15.00%"
    jk = row(rows, "straight", ("JK",))
    assert jk.house_edge < 0
    assert jk.warning is not None and jk.warning.startswith("negative house edge (-14.81%)")


def test_not_offered_spots_are_left_out() -> None:
    rows = par_sheet(CFG.with_changes(offered={"poker": False, "three": False}))
    assert not [r for r in rows if r.bet in ("poker", "three")]
    assert not [r for r in par_sheet(CFG) if r.values == ("7", "JK")]


def test_percent_formatting() -> None:
    assert percent(Fraction(1, 27)) == "3.70%"
    assert percent(Fraction(-4, 27)) == "-14.81%"
    assert percent(Fraction(1, 8), 1) == "12.5%"


def _every_deal_agrees(config: LaPaireConfig, amount: int) -> None:
    """Settle one wager on every offered spot for every ordered deal of three cards."""
    rows = par_sheet(config)
    wagers = [Wager(1, r.bet, r.values, amount) for r in rows]
    n = len(wagers)
    returned = [0] * n
    wins = [0] * n
    squares = [0] * n
    deck = LAPAIRE_DECK.cards()  # the two jokers are distinct objects
    deals = 0
    for a in deck:
        for b in deck:
            if b is a:
                continue
            for c in deck:
                if c is a or c is b:
                    continue
                deals += 1
                for i, r in enumerate(settle_round(config, wagers, (a, b, c)).results):
                    if r.won:
                        returned[i] += amount + r.win
                        wins[i] += 1
                        squares[i] += r.win * r.win
                    else:
                        squares[i] += amount * amount
    assert deals == 54 * 53 * 52
    for i, par in enumerate(rows):
        label = par.label
        assert Fraction(returned[i], deals * amount) == par.rtp, label
        assert Fraction(wins[i], deals) == par.probability, label
        mean = par.rtp - 1
        assert Fraction(squares[i], deals * amount * amount) - mean * mean == par.variance, label


def test_par_sheet_equals_settling_every_deal_default_table() -> None:
    _every_deal_agrees(CFG, 1)


def test_par_sheet_equals_settling_every_deal_other_table() -> None:
    # The alternative paytable, the joker splits offered, a price with a denominator, red off.
    data = CFG.to_data()
    data["wagers"]["poker"]["paytable"] = "alternative"
    data["wagers"]["split"]["spot"] = [{"values": ["7", "JK"], "pays": "13 to 2"}]
    data["wagers"]["corner"]["pays"] = "5 to 2"
    data["wagers"]["red"]["offered"] = False
    data["poker_paytables"]["alternative"]["pair"] = "1 to 2"
    config = parse_lapaire_config(data, "<test>")
    assert any(r.values == ("7", "JK") for r in par_sheet(config))
    _every_deal_agrees(config, 2)  # an even amount: no rounding of the halves


@pytest.mark.parametrize("paytable", ["standard", "alternative"])
def test_poker_rtp_of_each_paytable(paytable: str) -> None:
    poker = row(par_sheet(CFG.with_changes(poker_paytable=paytable)), "poker")
    table = CFG.paytable(paytable).as_dict()
    counts = {"two_jokers": 52, "mini_royal": 28, "straight_flush": 220,
              "three_of_a_kind": 208, "straight": 1320, "flush": 1520}
    expected = Fraction(sum(n * (1 + table[h].ratio) for h, n in counts.items()), 24804)
    assert poker.rtp == expected
