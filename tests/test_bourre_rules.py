"""Bourré rule profiles: the shipped config, every option, and errors naming file, key, reason."""

from __future__ import annotations

import copy
import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import pytest
from repo_paths import CONFIG_DIR

from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import (
    BourreProfile,
    HouseCollection,
    MisplayPenalty,
    ProfileError,
    parse_bourre_profiles,
)
from dealer_station.tomlconfig import ConfigError

FILE = "bourre.toml"


def shipped() -> dict[str, Any]:
    with (CONFIG_DIR / "bourre.toml").open("rb") as fh:
        return tomllib.load(fh)


def test_shipped_tournament_profile_is_the_issue_interpretation() -> None:
    t = load_bourre_profiles(CONFIG_DIR / "bourre.toml")["tournament"]
    assert t == dataclasses.replace(BourreProfile(), description=t.description)
    assert (t.min_players, t.max_players, t.ante, t.stay_cost, t.draw_limit) == (2, 7, 1, 1, 4)
    assert t.min_staying_for(3) == 2 and t.min_staying_for(4) == 3 and t.min_staying_for(7) == 3
    assert t.penalty_for(6) == 6 and t.penalty_for(40) == 10
    assert t.misplay_penalty is MisplayPenalty.RETRACTION_AND_RENEGE
    assert t.penalised_reneges and not t.misplay_stands
    assert t.house_collection is HouseCollection.NONE
    assert (t.session_chips, t.session_minutes, t.tags_to_eliminate) == (100, 30, 3)
    assert [t.winners_for(n) for n in range(2, 8)] == [1, 1, 1, 2, 2, 3]


def test_shipped_common_profile_options() -> None:
    c = load_bourre_profiles(CONFIG_DIR / "bourre.toml")["common"]
    assert c.bourre_penalty_cap is None and c.penalty_for(40) == 40
    assert c.draw_limit == 5 and c.max_players == 6
    assert not c.lead_highest_trump_with_ace_king_queen
    assert c.must_trump_even_when_cannot_beat
    assert c.misplay_penalty is MisplayPenalty.RENEGE and c.misplay_stands
    assert c.second_ante and not c.dealer_antes_for_all


def test_to_data_round_trips_through_the_parser() -> None:
    variants = [
        BourreProfile(),
        BourreProfile(name="casino", bourre_penalty_cap=None, second_ante=False,
                      dealer_antes_for_all=True, must_trump_even_when_cannot_beat=False,
                      misplay_penalty=MisplayPenalty.RETRACTION,
                      house_collection=HouseCollection.PERCENT, house_percent=5, house_cap=4,
                      winners=((2, 1), (3, 1), (4, 2), (5, 2), (6, 3), (7, 3))),
        BourreProfile(name="drop", house_collection=HouseCollection.DROP, house_drop=1,
                      draw_limit=0, min_players=3, max_players=5,
                      winners=((3, 1), (4, 1), (5, 2))),
    ]
    for p in variants:
        data = p.to_data()
        back = parse_bourre_profiles({"profiles": {p.name: copy.deepcopy(data)}}, FILE)
        assert back[p.name] == p
        assert back[p.name].to_data() == data


def test_missing_keys_take_the_tournament_values() -> None:
    profiles = parse_bourre_profiles({"profiles": {"short": {"bourre_penalty_cap": 5}}}, FILE)
    assert profiles["short"] == BourreProfile(name="short", bourre_penalty_cap=5)


def bad(mutate: dict[str, Any], sub: str | None = None) -> dict[str, Any]:
    data = shipped()
    target = data["profiles"]["tournament"]
    if sub:
        target = target[sub]
    target.update(mutate)
    return data


@pytest.mark.parametrize(("data", "key", "reason"), [
    (bad({"colour": "red"}), "profiles.tournament.colour", "unknown key"),
    (bad({"ante": "one"}), "profiles.tournament.ante", "whole number"),
    (bad({"ante": 0}), "profiles.tournament.ante", "must be from 1 to 1000000000, got 0"),
    (bad({"ante": 10**12}), "profiles.tournament.ante", "from 1 to 1000000000"),
    (bad({"min_players": -100000000}), "profiles.tournament.min_players",
     "must be from 2 to 10, got -100000000"),
    (bad({"max_players": 10**15}), "profiles.tournament.max_players", "from 2 to 10"),
    (bad({"stay_chips": -1}), "profiles.tournament.stay_chips", "from 1 to 1000000000"),
    (bad({"draw_limit": -1}), "profiles.tournament.draw_limit", "from 0 to 5"),
    (bad({"min_staying": 0}), "profiles.tournament.min_staying", "from 1 to 10"),
    (bad({"min_staying_large_table": 11}), "profiles.tournament.min_staying_large_table",
     "from 1 to 10"),
    (bad({"large_table": 1_000_000}), "profiles.tournament.large_table", "from 2 to 10"),
    (bad({"bourre_penalty_cap": 10**10}), "profiles.tournament.bourre_penalty_cap",
     "from 1 to 1000000000 or \"none\""),
    (bad({"drop": -5}, "house"), "profiles.tournament.house.drop", "from 0 to 1000000000"),
    (bad({"cap": 10**10}, "house"), "profiles.tournament.house.cap", "from 1 to 1000000000"),
    (bad({"starting_chips": 10**10}, "session"), "profiles.tournament.session.starting_chips",
     "from 1 to 1000000000"),
    (bad({"minutes": 1441}, "session"), "profiles.tournament.session.minutes", "from 1 to 1440"),
    (bad({"tags_to_eliminate": 101}, "session"),
     "profiles.tournament.session.tags_to_eliminate", "from 1 to 100"),
    (bad({"winners": {"2": 1, "3": 1, "4": 1, "5": 2, "6": 2, "7": 3, "99999999": 1}},
         "session"), "profiles.tournament.session.winners.99999999", "from 2 to 10 players"),
    (bad({"second_ante": "yes"}), "profiles.tournament.second_ante", "true or false"),
    (bad({"draw_limit": 6}), "profiles.tournament.draw_limit", "from 0 to 5"),
    (bad({"max_players": 11}), "profiles.tournament.max_players", "to 10"),
    (bad({"min_players": 5, "max_players": 4}), "profiles.tournament.max_players",
     "from min_players"),
    (bad({"min_staying": 3, "min_players": 2}), "profiles.tournament.min_staying",
     "from 1 to min_players"),
    (bad({"bourre_penalty_cap": 0}), "profiles.tournament.bourre_penalty_cap", "from 1 to"),
    (bad({"bourre_penalty_cap": "unlimited"}), "profiles.tournament.bourre_penalty_cap",
     "\"none\""),
    (bad({"misplay_penalty": "flog"}), "profiles.tournament.misplay_penalty",
     "retraction, retraction_and_renege, renege"),
    (bad({"collection": "tips"}, "house"), "profiles.tournament.house.collection",
     "must be one of none, drop, percent"),
    (bad({"collection": "drop", "drop": 0}, "house"), "profiles.tournament.house.drop",
     "at least 1 when collection is \"drop\""),
    (bad({"percent": 101}, "house"), "profiles.tournament.house.percent", "from 0 to 100"),
    (bad({"tip": 1}, "house"), "profiles.tournament.house.tip", "unknown key"),
    (bad({"minutes": 0}, "session"), "profiles.tournament.session.minutes", "from 1 to 1440"),
    (bad({"winners": {"2": 1, "3": 1, "4": 1, "5": 5, "6": 2, "7": 3}}, "session"),
     "profiles.tournament.session.winners.5",
     "from 1 to 4"),
    (bad({"winners": {"five": 2}}, "session"), "profiles.tournament.session.winners.five",
     "table size"),
    (bad({"winners": {"2": 1, "3": 1}}, "session"), "profiles.tournament.session.winners",
     "table of 4"),
    ({"profiles": {}}, "profiles", "no Bourré profile"),
    ({"profiles": {"x": {}}, "extra": 1}, "extra", "unknown key"),
    ({"profiles": {"x": 3}}, "profiles.x", "must be a table"),
])
def test_bad_config_names_file_key_and_reason(data: dict[str, Any], key: str,
                                              reason: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_bourre_profiles(data, FILE)
    assert info.value.file == FILE
    assert info.value.key == key
    assert reason in info.value.reason
    assert str(info.value).startswith(f"{FILE}: {key}: ")


def test_bad_file_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "bourre.toml"
    path.write_text('[profiles.tournament]\nante = -1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bourre.toml: profiles.tournament.ante: "):
        load_bourre_profiles(path)
    path.write_text('[profiles.tournament\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_bourre_profiles(path)


def test_a_profile_built_in_code_is_checked_too() -> None:
    with pytest.raises(ProfileError, match="draw_limit"):
        BourreProfile(draw_limit=9)
    with pytest.raises(ValueError, match="no winners count"):
        BourreProfile().winners_for(11)


def test_house_percentage_rounds_down_and_caps() -> None:
    p = BourreProfile(house_collection=HouseCollection.PERCENT, house_percent=10, house_cap=3)
    assert [p.house_percent_take(n) for n in (9, 10, 25, 31, 100)] == [0, 1, 2, 3, 3]
    assert BourreProfile().house_percent_take(100) == 0
