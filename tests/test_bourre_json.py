"""The Bourré JSON contract of ``dealer-station settle``: answers, every error, never a raise."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from repo_paths import CONFIG_DIR, ROOT

from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile, HouseCollection, MisplayPenalty
from dealer_station.games.bourre.rules.random_play import random_bourre_record
from dealer_station.games.bourre.rules.settle_json import replay_record, settle_bourre_record

PROFILES = load_bourre_profiles(CONFIG_DIR / "bourre.toml")

# Spades trumps; seat 3 takes three tricks, 1 and 2 one each; no misplay.
RECORD: dict[str, Any] = {
    "game": "bourre", "rules": "tournament", "hand_id": "h1", "seats": [1, 2, 3], "dealer": 3,
    "chips": {"1": 100, "2": 100, "3": 100}, "pot": 0,
    "deal": {"1": ["QH", "7H", "5D", "8H", "JC"], "2": ["8C", "QS", "4C", "7D", "3S"],
             "3": ["JD", "6C", "2C", "AC", "10S"]},
    "trump_card": "10S", "stay": {"1": True, "2": True, "3": True}, "draws": {},
    "plays": [[1, "5D"], [2, "7D"], [3, "JD"], [3, "2C"], [1, "JC"], [2, "8C"], [1, "7H"],
              [2, "3S"], [3, "10S"], [3, "6C"], [1, "QH"], [2, "4C"], [3, "AC"], [1, "8H"],
              [2, "QS"]],
}

# Hearts trumps; seat 2 reneges in trick 4 (3S, not trumping), then trumps with AH.
RECORD_RENEGE: dict[str, Any] = {
    "game": "bourre", "rules": "tournament", "hand_id": "h2", "seats": [1, 2, 3], "dealer": 3,
    "chips": {"1": 100, "2": 100, "3": 100}, "pot": 0,
    "deal": {"1": ["10C", "9D", "4S", "6S", "KS"], "2": ["AH", "7H", "3S", "10S", "JD"],
             "3": ["KC", "9C", "6D", "10H", "JH"]},
    "trump_card": "JH", "stay": {"1": True, "2": True, "3": True},
    "plays": [[1, "4S"], [2, "10S"], [3, "10H"], [3, "6D"], [1, "9D"], [2, "JD"], [2, "7H"],
              [3, "JH"], [1, "KS"], [3, "KC"], [1, "10C"], [2, "3S"], [2, "AH"], [2, "3S"],
              [3, "9C"], [1, "6S"]],
}


def settle(record: Any, profiles: Any = None) -> dict[str, Any]:
    return settle_bourre_record(record, PROFILES if profiles is None else profiles)


def test_clean_hand_answers_the_contract_exactly() -> None:
    assert settle(RECORD) == {
        "hand_id": "h1", "trump": "S", "tricks": {"1": 1, "2": 1, "3": 3}, "reneges": [],
        "winner": "3", "bourre": [], "chips": {"1": 98, "2": 98, "3": 104}, "pot": 0,
        "eliminated": [],
    }


def test_renege_is_reported_with_seat_trick_card_and_rule() -> None:
    assert settle(RECORD_RENEGE) == {
        "hand_id": "h2", "trump": "H", "tricks": {"1": 1, "2": 2, "3": 2},
        "reneges": [{"seat": "2", "trick": 4, "card": "3S", "rule": "must_trump"}],
        "winner": "3", "bourre": [], "chips": {"1": 98, "2": 92, "3": 104}, "pot": 6,
        "eliminated": [],
    }


def test_tricks_are_for_staying_players_only_and_draws_are_replayed() -> None:
    rng = random.Random(3)
    seen_draw = seen_fold = False
    for _ in range(200):
        rec = random_bourre_record(rng, PROFILES["tournament"], hand_id="r")
        out = settle(rec)
        assert "error" not in out, out
        stayers = {s for s, v in rec["stay"].items() if v}
        assert set(out["tricks"]) == stayers
        assert sum(out["tricks"].values()) == 5
        seen_draw |= bool(rec["draws"])
        seen_fold |= len(stayers) < len(rec["seats"])
    assert seen_draw and seen_fold


def test_house_and_retractions_keys_appear_only_for_such_profiles() -> None:
    casino = BourreProfile(name="tournament", misplay_penalty=MisplayPenalty.RETRACTION)
    out = settle(RECORD_RENEGE, {"tournament": casino})
    assert out["reneges"] == [] and out["winner"] is None  # 2-2-1 once nobody reneged
    assert out["retractions"] == [{"seat": "2", "trick": 4, "card": "3S", "rule": "must_trump"}]
    assert "house" not in out
    drop = BourreProfile(name="tournament", house_collection=HouseCollection.DROP, house_drop=1)
    out = settle(RECORD, {"tournament": drop})
    assert out["house"] == 1 and out["chips"]["3"] == 103


def test_a_dead_hand_carries_the_pot() -> None:
    rec = copy.deepcopy(RECORD)
    rec["seats"], rec["dealer"] = [1, 2], 2
    rec["chips"] = {"1": 1, "2": 50}
    rec["deal"] = {"1": ["AS", "2S", "3S", "4S", "5S"], "2": ["AH", "2H", "3H", "4H", "5H"]}
    rec["trump_card"], rec["stay"], rec["plays"], rec["pot"] = "5H", {"1": False, "2": True}, [], 4
    assert settle(rec) == {
        "hand_id": "h1", "trump": "H", "tricks": {}, "reneges": [], "winner": None,
        "bourre": [], "chips": {"1": 0, "2": 49}, "pot": 6, "eliminated": ["1"], "dead": True,
    }


def mutated(path: list[Any], value: Any, base: dict[str, Any] = RECORD) -> dict[str, Any]:
    rec = copy.deepcopy(base)
    target: Any = rec
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return rec


DELETE = object()


@pytest.mark.parametrize(("record", "message"), [
    # a card twice
    (mutated(["deal", "2", 0], "QH"), "QH has already been dealt"),
    # a card the seat does not hold
    (mutated(["plays", 0], [1, "AS"]), "plays[0]: seat 1 played AS, which she does not hold"),
    # a play out of turn
    (mutated(["plays", 0], [2, "7D"]), "plays[0]: seat 2 played 7D out of turn: seat 1"),
    # too few players staying
    (mutated(["stay"], {"1": False, "2": False, "3": True}),
     "stay.2: seat 2 may not fold: at least 2 players must stay"),
    # wrong numbers of cards
    (mutated(["deal", "1"], ["QH", "7H", "5D", "8H"]), "deal.1: 4 cards dealt"),
    (mutated(["draws"], {"1": {"discard": ["QH"], "receive": []}}),
     "draws.1: discards 1 card(s) but receives 0"),
    (mutated(["draws"], {"1": {"discard": ["QH", "7H", "5D", "8H", "JC"],
                               "receive": ["2H", "3H", "4H", "5H", "6H"]}}),
     "draws.1: seat 1 may discard at most 4 cards, not 5"),
    (mutated(["plays"], RECORD["plays"][:-1]), "the hand is incomplete: trick 5 of 5"),
    (mutated(["plays"], [*RECORD["plays"], [3, "2C"]]), "plays[15]: [3, \"2C\"] comes after"),
    # a draw from a pile it cannot come from
    (mutated(["draws"], {"1": {"discard": ["QH"], "receive": ["8C"]}}),
     "draws.1: 8C cannot be drawn by seat 1: it was already dealt (seat 2 holds it)"),
    (mutated(["draws"], {"2": {"discard": ["8C"], "receive": ["QD"]}},
             mutated(["stay"], {"1": True, "2": False, "3": True})),
     "draws.2: seat 2 folded and does not draw"),
    # the profile
    (mutated(["rules"], "poker"), "rules: unknown Bourré profile 'poker' (known: cash, "
                                  "common, tournament)"),
    # shapes
    (mutated(["seats"], "1,2,3"), "seats: must be a list"),
    (mutated(["seats"], [1, 2, True]), "seats[2]: a seat is a number"),
    (mutated(["dealer"], 9), "dealer 9 is not one of the seats"),
    (mutated(["chips", "2"], DELETE), "chips: seat 2 has no chip count"),
    (mutated(["chips", "2"], -5), "chips.2: must not be negative"),
    (mutated(["chips", "2"], 0), "seat 2 has 0 chips"),
    (mutated(["chips", "7"], 10), "chips: seat 7 is not one of the seats"),
    (mutated(["pot"], 1.5), "pot: must be a whole number"),
    (mutated(["deal", "1", 0], "ZZ"), "deal.1[0]: unknown card code 'ZZ'"),
    (mutated(["deal", "1", 0], "JK"), "deal.1[0]: the Bourré deck has no jokers"),
    (mutated(["deal", "3"], DELETE), "deal: seat 3 has no cards"),
    (mutated(["trump_card"], "AC"), "trump_card: AC is not the dealer's fifth card (10S)"),
    (mutated(["stay", "1"], "yes"), "stay.1: must be true (stays) or false (folds)"),
    (mutated(["stay", "3"], DELETE), "stay: seat 3 has no decision"),
    (mutated(["plays", 0], [1]), "plays[0]: must be a [seat, card] pair"),
    (mutated(["plays"], {"1": "5D"}), "plays: must be a list"),
    (mutated(["draws", "1"], ["QH"]), "draws.1: must be {\"discard\""),
    (mutated(["draws"], {"1": {"discard": [], "receive": [], "keep": []}}),
     "draws.1.keep: unknown key"),
    (mutated(["colour"], "red"), "colour: unknown key"),
    (mutated(["game"], "lapaire"), "game: expected \"bourre\""),
    (mutated(["plays"], DELETE), "plays: is required"),
])
def test_impossible_hands_answer_an_error(record: dict[str, Any], message: str) -> None:
    out = settle(record)
    assert set(out) == {"hand_id", "error"}, out
    assert out["hand_id"] == "h1"
    assert message in out["error"]


@pytest.mark.parametrize("record", [None, [], "text", 3, {"hand_id": "x"}])
def test_not_a_record_answers_an_error(record: Any) -> None:
    out = settle(record)
    assert "error" in out and "hand_id" in out


def test_garbage_never_raises() -> None:
    """Every single-field corruption of valid records gives an answer, never an exception."""
    rng = random.Random(11)
    junk: list[Any] = [None, True, -1, 0, 99, 1.5, "", "AS", "JK", [], [1], [[1, "AS"]], {},
                       {"1": "AS"}, {"discard": ["AS"], "receive": "AS"}]
    base = [random_bourre_record(rng, PROFILES["tournament"], misplay_rate=0.1, hand_id=i)
            for i in range(20)]
    answers = 0
    for rec in base:
        for key in list(rec):
            for value in junk:
                broken = copy.deepcopy(rec)
                broken[key] = value
                out = settle(broken)
                assert isinstance(out, dict) and "hand_id" in out
                answers += 1
        for _ in range(20):  # and a changed card somewhere in the plays
            broken = copy.deepcopy(rec)
            if broken["plays"]:
                i = rng.randrange(len(broken["plays"]))
                broken["plays"][i] = [rng.choice(rec["seats"]), rng.choice(["AS", "2H", "KD"])]
            assert isinstance(settle(broken), dict)
    assert answers > 1000


def test_replay_gives_the_engine_hand() -> None:
    hand = replay_record(RECORD, PROFILES)
    assert hand.result is not None and hand.result.winner == 3
    assert len([r for r in hand.log if type(r).__name__ == "PlayRecord"]) == 15


@pytest.mark.skipif(not (ROOT / "dealer_station" / "cli" / "settle.py").exists(),
                    reason="the settle command is not in this tree")
def test_settle_command_answers_bourre_lines(tmp_path: Path) -> None:
    bad = mutated(["plays", 0], [2, "7D"])
    lines = "\n".join(json.dumps(r) for r in (RECORD, bad, RECORD_RENEGE)) + "\n"
    proc = subprocess.run([sys.executable, "-m", "dealer_station", "settle"], input=lines,
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 1, proc.stderr
    assert answers[0] == settle(RECORD)
    assert "out of turn" in answers[1]["error"] and answers[1]["hand_id"] == "h1"
    assert answers[2]["winner"] == "3" and answers[2]["pot"] == 6
