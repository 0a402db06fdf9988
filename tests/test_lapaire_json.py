"""The settle JSON contract for La Pair'e rounds: exact output shape and every error object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from repo_paths import CONFIG_DIR

from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import LaPaireConfig
from dealer_station.games.lapaire.rules.settle_json import settle_lapaire_record

CFG: LaPaireConfig = load_lapaire_config(CONFIG_DIR / "lapaire.toml")


def test_the_contract_example() -> None:
    record = {"game": "lapaire", "round_id": "r1", "cards": ["KH", "JK", "7S"],
              "wagers": [{"seat": 1, "bet": "straight", "values": ["K"], "amount": 10},
                         {"seat": 1, "bet": "any_pair", "values": [], "amount": 10},
                         {"seat": 2, "bet": "three", "values": ["JK", "K", "7"], "amount": 4},
                         {"seat": 2, "bet": "black", "amount": 3, "ticket": "A-17"}]}
    before = json.dumps(record)
    assert settle_lapaire_record(record, CFG) == {
        "round_id": "r1",
        "wagers": [
            {"seat": 1, "bet": "straight", "values": ["K"], "amount": 10,
             "result": "win", "win": 120, "stage": 1},
            {"seat": 1, "bet": "any_pair", "values": [], "amount": 10,
             "result": "lose", "win": 0, "stage": 2},
            {"seat": 2, "bet": "three", "values": ["JK", "K", "7"], "amount": 4,
             "result": "win", "win": 16, "stage": 1},
            {"seat": 2, "bet": "black", "amount": 3, "ticket": "A-17",
             "result": "lose", "win": 0, "stage": 1},
        ],
        "total_win": 136,
        "total_lost": 13,
    }
    assert json.dumps(record) == before  # the input is not modified


def test_a_round_without_wagers() -> None:
    out = settle_lapaire_record({"round_id": 7, "cards": ["2C", "3C", "4C"], "wagers": []}, CFG)
    assert out == {"round_id": 7, "wagers": [], "total_win": 0, "total_lost": 0}


def _w(**kw: Any) -> dict[str, Any]:
    return {"seat": 1, "bet": "straight", "values": ["K"], "amount": 10, **kw}


@pytest.mark.parametrize(("record", "words"), [
    ({"cards": ["KH", "XX", "7S"], "wagers": [_w()]}, "card #2: unknown card code 'XX'"),
    ({"cards": ["KH", "KH", "7S"], "wagers": [_w()]}, "KH has already been dealt"),
    ({"cards": ["JK", "JK", "JK"], "wagers": [_w()]}, "only 2 jokers"),
    ({"cards": ["KH", "7S"], "wagers": [_w()]}, "exactly three cards, got 2"),
    ({"cards": ["KH", "7S", "2C", "3C"], "wagers": [_w()]}, "exactly three cards, got 4"),
    ({"wagers": [_w()]}, '"cards" is missing'),
    ({"cards": "KH JK 7S", "wagers": [_w()]}, '"cards" must be a list'),
    ({"cards": ["KH", 7, "7S"], "wagers": [_w()]}, "card #2: card code must be text"),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(bet="split", values=["2", "4"])]},
     "wager #1 (seat 1, Split 2-4): 2-4 is not a Split spot on the layout"),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(), _w(seat=2, bet="poker", values=[])]},
     "wager #2 (seat 2, 3rd Card Poker): seat 2 has no First Card wager"),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(bet="split", values=["K", "JK"])]},
     "Split K-JK is not offered at this table"),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(amount=0)]},
     "wager #1 (seat 1): amount must be a positive whole number"),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(amount="10")]},
     'wager #1: "amount" must be a whole number'),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(amount=10.5)]},
     'wager #1: "amount" must be a whole number'),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(seat=True)]},
     '"seat" must be a whole number'),
    ({"cards": ["KH", "JK", "7S"], "wagers": [{"bet": "straight", "amount": 1}]},
     '"seat" is missing'),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(bet="column")]},
     '"bet" must be one of straight, split'),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(values="K")]}, '"values" must be a list'),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(values=[])]}, "a straight covers 1 value"),
    ({"cards": ["KH", "JK", "7S"], "wagers": [_w(bet="red")]}, "red takes no values, got K"),
    ({"cards": ["KH", "JK", "7S"], "wagers": {"seat": 1}}, '"wagers" must be a list'),
    ({"cards": ["KH", "JK", "7S"], "wagers": ["straight K"]}, "wager #1 must be an object"),
    ({"game": "bourre", "cards": ["KH", "JK", "7S"]}, 'settles only "lapaire"'),
])
def test_rounds_that_cannot_be_settled(record: dict[str, Any], words: str) -> None:
    record = {"round_id": "bad", **record}
    out = settle_lapaire_record(record, CFG)
    assert set(out) == {"round_id", "error"}
    assert out["round_id"] == "bad"
    assert words in out["error"]


def test_withdrawn_kind_is_an_error() -> None:
    cfg = CFG.with_changes(offered={"lapaire": False})
    out = settle_lapaire_record({"round_id": "x", "cards": ["KH", "KS", "2C"], "wagers": [
        _w(), _w(bet="lapaire")]}, cfg)
    assert out == {"round_id": "x", "error": "wager #2 (seat 1, La Pair'e Card K): La Pair'e "
                                             "Card is not offered at this table"}


def test_not_an_object() -> None:
    out = settle_lapaire_record(["KH"], CFG)  # type: ignore[arg-type]
    assert out == {"round_id": None, "error": "a round must be a JSON object, got list"}


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 60) | st.floats(allow_nan=False)
    | st.sampled_from(["KH", "JK", "7S", "2C", "K", "straight", "split", "red", "poker", ""]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["seat", "bet", "values", "amount", "cards", "wagers", "x"]), inner,
        max_size=5),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({"round_id": st.text(max_size=3)},
                             optional={"cards": _json, "wagers": _json, "game": _json}))
def test_never_raises_on_any_json(record: dict[str, Any]) -> None:
    out = settle_lapaire_record(record, CFG)
    assert out["round_id"] == record["round_id"]
    assert ("error" in out) != ("wagers" in out)
    assert "internal error" not in out.get("error", "")  # every refusal is a named reason
    json.dumps(out)
