"""The La Pair'e table configuration: the shipped default, round trips, and every refusal."""

from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from repo_paths import CONFIG_DIR

from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import (
    CHANGES,
    LaPaireConfig,
    Limits,
    Odds,
    parse_lapaire_config,
)
from dealer_station.money import Money
from dealer_station.tomlconfig import ConfigError, load_toml

DEFAULT = CONFIG_DIR / "lapaire.toml"


@pytest.fixture(scope="module")
def cfg() -> LaPaireConfig:
    return load_lapaire_config(DEFAULT)


@pytest.fixture
def data() -> dict[str, Any]:
    return load_toml(DEFAULT)


def test_default_table_prices(cfg: LaPaireConfig) -> None:
    assert cfg.straight.spot(("K",)) is not None
    assert cfg.straight.spot(("K",)).pays == Odds(12, 1)  # type: ignore[union-attr]
    assert cfg.straight.spot(("JK",)).pays == Odds(25, 1)  # type: ignore[union-attr]
    assert cfg.three.spot(("A", "2", "8")).pays == Odds(3, 1)  # type: ignore[union-attr]
    assert cfg.three.spot(("7", "K", "JK")).pays == Odds(4, 1)  # type: ignore[union-attr]
    assert cfg.lapaire.spot(("JK",)).pays == Odds(1300, 1)  # type: ignore[union-attr]
    assert cfg.any_pair.pays == Odds(16) and cfg.any_pair.two_jokers_pays == Odds(50)
    assert cfg.red.pays == Odds(1) and cfg.black.pays == Odds(1)
    assert [s.label for s in cfg.corner.offered_spots()] == [
        "2-3-8-9", "3-4-9-10", "4-5-10-J", "5-6-J-Q", "6-7-Q-K"]


def test_joker_splits_are_present_but_not_offered(cfg: LaPaireConfig) -> None:
    for values in (("7", "JK"), ("K", "JK")):
        spot = cfg.split.spot(values)
        assert spot is not None and not spot.offered and spot.pays == Odds(7)
    assert len(cfg.split.spots) == 20
    assert len(cfg.split.offered_spots()) == 18


def test_paytables_standard_and_alternative(cfg: LaPaireConfig) -> None:
    assert [p.name for p in cfg.paytables] == ["standard", "alternative"]
    std = cfg.paytable()
    assert std.name == "standard"
    assert std.as_dict() == {"two_jokers": Odds(100), "mini_royal": Odds(50),
                             "straight_flush": Odds(20), "three_of_a_kind": Odds(10),
                             "straight": Odds(3), "flush": Odds(2)}
    assert cfg.paytable("alternative").odds("straight") == Odds(5)


def test_money_and_threshold(cfg: LaPaireConfig) -> None:
    assert cfg.money.currency == "USD" and cfg.money.minor_units == 100
    assert cfg.money.chips and list(cfg.money.chips) == sorted(cfg.money.chips)
    assert cfg.money.text(1250) == "12.50 USD"
    assert cfg.money.text(-5) == "-0.05 USD"
    # The station's one way of writing money: thousands separated in every unit.
    assert Money("JPY", 1, (100,)).text(1250) == "1,250 JPY"
    assert Money("XYZ", 12, (1,)).text(25) == "25 minor units of XYZ"
    assert Money("XYZ", 12, (1,)).text(1250) == "1,250 minor units of XYZ"
    assert cfg.warn_house_edge_above == Fraction(15, 100)
    assert cfg.straight.limits == Limits(100, 10000)


def test_to_data_round_trips(cfg: LaPaireConfig) -> None:
    data = cfg.to_data()
    assert parse_lapaire_config(data, "<journal>") == cfg
    assert parse_lapaire_config(copy.deepcopy(data), "<journal>").to_data() == data


def test_to_data_is_plain_data(cfg: LaPaireConfig) -> None:
    def walk(x: Any) -> None:
        if isinstance(x, dict):
            assert all(isinstance(k, str) for k in x)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        else:
            assert type(x) in (str, int, bool), x

    walk(cfg.to_data())


def test_odd_prices_round_trip(data: dict[str, Any]) -> None:
    data["wagers"]["split"]["spot"][0] = {"values": ["JK", "7"], "pays": "13 to 2",
                                          "offered": True}
    data["par_sheet"]["warn_house_edge_above"] = "12.5%"
    data["wagers"]["red"]["pays"] = 1  # a bare number means "1 to 1"
    cfg = parse_lapaire_config(data, "x.toml")
    assert cfg.split.spot(("7", "JK")) == cfg.split.spot(("JK", "7"))
    assert cfg.split.spot(("7", "JK")).pays == Odds(13, 2)  # type: ignore[union-attr]
    assert cfg.warn_house_edge_above == Fraction(1, 8)
    assert cfg.to_data()["par_sheet"]["warn_house_edge_above"] == "12.5%"
    assert parse_lapaire_config(cfg.to_data(), "<journal>") == cfg


def test_with_changes(cfg: LaPaireConfig) -> None:
    changed = cfg.with_changes(offered={"poker": False, "red": False},
                               poker_paytable="alternative",
                               limits={"straight": (500, 2500), "corner": Limits(200, 800)})
    assert not changed.poker.offered and not changed.red.offered
    assert changed.poker.paytable == "alternative"
    assert changed.straight.limits == Limits(500, 2500)
    assert changed.corner.limits == Limits(200, 800)
    assert cfg.poker.offered and cfg.straight.limits == Limits(100, 10000)  # original intact
    assert changed.with_changes(offered={"poker": True, "red": True}, poker_paytable="standard",
                                limits={"straight": (100, 10000), "corner": (100, 40000)}) == cfg


def test_with_changes_offers_or_withdraws_one_spot(cfg: LaPaireConfig) -> None:
    changed = cfg.with_changes(offered={"split JK-7": True, "split 2-3": False})
    jk7 = changed.split.spot(("7", "JK"))
    assert jk7 is not None and jk7.offered and jk7.pays == Odds(7)  # at its configured price
    assert not changed.split.spot(("3", "2")).offered  # type: ignore[union-attr]
    assert len(changed.split.offered_spots()) == 18
    assert parse_lapaire_config(changed.to_data(), "<journal>") == changed
    assert changed.with_changes(offered={"split 7-JK": False, "split 2-3": True}) == cfg


@pytest.mark.parametrize(("kwargs", "key", "reason"), [
    ({"offered": {"red 1-2": True}}, "offered.red 1-2", "red has no spots"),
    ({"offered": {"split 7-ZZ": True}}, "offered.split 7-ZZ", "unknown card value 'ZZ'"),
    ({"offered": {"split 2-4": True}}, "wagers.split.spot[2].values", "not a split spot"),
    ({"poker_paytable": "generous"}, "wagers.poker.paytable", "unknown paytable 'generous'"),
    ({"limits": {"straight": (500, 100)}}, "wagers.straight.max", "must be at least min"),
    ({"limits": {"straight": (0, 100)}}, "wagers.straight.min",
     "must be from 1 to 1000000000000, got 0"),
    ({"limits": {"straight": (1, 10**13)}}, "wagers.straight.max",
     "must be from 1 to 1000000000000"),
    ({"offered": {"roulette": True}}, "offered.roulette", "unknown wager kind"),
    ({"limits": {"keno": (1, 2)}}, "limits.keno", "unknown wager kind"),
    ({"offered": {k: False for k in ("straight", "split", "three", "corner")}},
     "wagers.straight", "no First Card spot is offered"),
])
def test_with_changes_is_validated(cfg: LaPaireConfig, kwargs: dict[str, Any], key: str,
                                   reason: str) -> None:
    with pytest.raises(ConfigError) as err:
        cfg.with_changes(**kwargs)
    assert err.value.file == CHANGES
    assert err.value.key == key
    assert reason in err.value.reason


BAD_FILES = [
    # (replace this text, with this, key named, words in the reason)
    ('pays = "12 to 1"', 'pays = "0 to 1"', "wagers.straight.pays", "must be positive"),
    ('pays = "5 to 1"', 'pays = -5', "wagers.split.pays", "must be positive"),
    ('pays = "2 to 1"', 'pays = "two to one"', "wagers.corner.pays", "odds such as"),
    ('values = ["7", "JK"]', 'values = ["2", "4"]', "wagers.split.spot[0].values",
     "2-4 is not a split spot on the layout"),
    ('values = ["7", "K", "JK"]', 'values = ["6", "7", "K"]', "wagers.three.spot[0].values",
     "not a three spot"),
    ('values = ["7", "JK"]', 'values = ["7", "Z"]', "wagers.split.spot[0].values",
     "unknown card value"),
    ('values = ["7", "JK"]', 'values = ["7"]', "wagers.split.spot[0].values", "covers 2 values"),
    ('values = ["K", "JK"]', 'values = ["JK", "7"]', "wagers.split.spot[1].values",
     "listed twice"),
    ("[wagers.corner]", "[wagers.corners]", "wagers.corners", "unknown wager kind 'corners'"),
    ("offered = true\npays = \"12 to 1\"", "offerred = true\npays = \"12 to 1\"",
     "wagers.straight.offered", "is required"),
    ('paytable = "standard"', 'paytable = "gold"', "wagers.poker.paytable",
     "unknown paytable 'gold'"),
    ('flush = "2 to 1"\n\n#', 'flush = "2 to 1"\nfull_house = "9 to 1"\n\n#',
     "poker_paytables.standard.full_house", "unknown poker hand"),
    ("min = 100\nmax = 10000", "min = 100\nmax = 50", "wagers.straight.max",
     "must be at least min (100)"),
    ("min = 100\nmax = 10000", "min = 0\nmax = 10000", "wagers.straight.min",
     "must be from 1 to 1000000000000, got 0"),
    ("min = 100\nmax = 10000", "min = -100000000\nmax = 10000", "wagers.straight.min",
     "must be from 1 to 1000000000000, got -100000000"),
    ("min = 100\nmax = 10000", "min = 100\nmax = 99999999999999999", "wagers.straight.max",
     "must be from 1 to 1000000000000"),
    ('pays = "12 to 1"', 'pays = "1000001 to 1"', "wagers.straight.pays", "from 1 to 1000000"),
    ('pays = "12 to 1"', 'pays = "12 to 99999999999999999999"', "wagers.straight.pays",
     "from 1 to 1000000"),
    ('pays = "12 to 1"', 'pays = "1' + "0" * 5000 + ' to 1"', "wagers.straight.pays",
     "from 1 to 1000000"),
    ('pays = "5 to 1"', "pays = 2000000", "wagers.split.pays", "from 1 to 1000000"),
    ('two_jokers_pays = "50 to 1"', 'two_jokers_pays = "50 to 0"',
     "wagers.any_pair.two_jokers_pays", "must be positive"),
    ('two_jokers = "100 to 1"', 'two_jokers = "100000000 to 1"',
     "poker_paytables.standard.two_jokers", "from 1 to 1000000"),
    ("minor_units = 100", "minor_units = 0", "money.minor_units", "from 1 to 1000000"),
    ("minor_units = 100", "minor_units = 10000000", "money.minor_units", "from 1 to 1000000"),
    ("chips = [100, 500,", "chips = [-100, 500,", "money.chips", "from 1 to 1000000000000"),
    ("chips = [100, 500,", "chips = [10000000000000, 500,", "money.chips",
     "from 1 to 1000000000000"),
    ('warn_house_edge_above = "15%"', 'warn_house_edge_above = "0.' + "0" * 5000 + '1%"',
     "par_sheet.warn_house_edge_above", "at most 6 decimals"),
    ('currency = "USD"', 'currency = "dollars"', "money.currency", "three-letter"),
    ("chips = [100, 500,", "chips = [100, 100,", "money.chips", "twice"),
    ('warn_house_edge_above = "15%"', "warn_house_edge_above = 0.15",
     "par_sheet.warn_house_edge_above", "percentage as text"),
    ('warn_house_edge_above = "15%"', 'warn_house_edge_above = "150%"',
     "par_sheet.warn_house_edge_above", "below 100%"),
    ("offered = true\npays = \"1 to 1\"", "offered = \"yes\"\npays = \"1 to 1\"",
     "wagers.red.offered", "true or false"),
    ('two_jokers_pays = "50 to 1"', 'two_jokers_pay = "50 to 1"',
     "wagers.any_pair.two_jokers_pays", "is required"),
]


@pytest.mark.parametrize(("old", "new", "key", "reason"), BAD_FILES)
def test_bad_files_name_file_key_and_reason(tmp_path: Path, old: str, new: str, key: str,
                                            reason: str) -> None:
    text = DEFAULT.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "table.toml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_lapaire_config(bad)
    assert err.value.file == str(bad)
    assert err.value.key == key
    assert reason in err.value.reason
    assert str(err.value).startswith(f"{bad}: {key}: ")


def test_unknown_key_is_refused(tmp_path: Path) -> None:
    text = DEFAULT.read_text(encoding="utf-8").replace(
        "[wagers.black]", "[wagers.black]\ncolour = \"black\"")
    bad = tmp_path / "t.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"wagers\.black\.colour: unknown key"):
        load_lapaire_config(bad)


def test_missing_kind_and_missing_paytables(data: dict[str, Any]) -> None:
    d = copy.deepcopy(data)
    del d["wagers"]["poker"]
    with pytest.raises(ConfigError, match=r"wagers\.poker: is required"):
        parse_lapaire_config(d, "t.toml")
    d = copy.deepcopy(data)
    del d["poker_paytables"]
    with pytest.raises(ConfigError, match="poker_paytables: is required"):
        parse_lapaire_config(d, "t.toml")
    d = copy.deepcopy(data)
    d["poker_paytables"]["empty"] = {}
    with pytest.raises(ConfigError, match=r"poker_paytables\.empty: a paytable must pay"):
        parse_lapaire_config(d, "t.toml")


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text("[money\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_lapaire_config(bad)
    with pytest.raises(ConfigError, match="file not found"):
        load_lapaire_config(tmp_path / "absent.toml")


def test_odds_parse() -> None:
    assert Odds.parse("12 to 1") == Odds(12, 1)
    assert Odds.parse("3:2") == Odds(3, 2)
    assert Odds.parse(7) == Odds(7, 1)
    assert Odds(3, 2).pay(5) == 7  # 7.5 rounds down to the minor unit
    assert Odds(12).pay(10) == 120
    for bad in ("1 to 0", 0, True, 1.5, "x"):
        with pytest.raises(ValueError):
            Odds.parse(bad)
