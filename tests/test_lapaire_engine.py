"""The La Pair'e engine: worked examples for every wager kind, the staged live round in
verify / can / do style, and every reason a wager or round is refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from repo_paths import CONFIG_DIR

from dealer_station.cards import LAPAIRE_DECK, CardError, parse_card, parse_cards
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.config import (
    FIRST_CARD_KINDS,
    LaPaireConfig,
    parse_lapaire_config,
)
from dealer_station.games.lapaire.rules.engine import (
    BettingClosed,
    LaPaireRound,
    Placement,
    Removal,
    RoundError,
    StageResult,
    Wager,
    WagerError,
    compile_table,
    settle_round,
)

CFG: LaPaireConfig = load_lapaire_config(CONFIG_DIR / "lapaire.toml")


def settle_one(bet: str, values: tuple[str, ...], cards: str, amount: int = 100
               ) -> tuple[str, int, int]:
    """Settle one wager (with a First Card wager beside it if it is optional)."""
    wagers = [Wager(1, bet, values, amount)]
    if bet not in FIRST_CARD_KINDS:
        wagers.append(Wager(1, "straight", ("A",), 100))
    r = settle_round(CFG, wagers, parse_cards(cards.split())).results[0]
    return r.result, r.win, r.stage


@pytest.mark.parametrize(("bet", "values", "cards", "expected"), [
    # The example: a straight-up on K, first card KH.
    ("straight", ("K",), "KH JK 7S", ("win", 1200, 1)),
    ("straight", ("K",), "QH KH 7S", ("lose", 0, 1)),
    ("straight", ("JK",), "JK 2C 7S", ("win", 2500, 1)),
    ("straight", ("10",), "10D 2C 7S", ("win", 1200, 1)),
    ("split", ("2", "8"), "8C 2C 7S", ("win", 500, 1)),
    ("split", ("8", "2"), "2S 8C 7S", ("win", 500, 1)),
    ("split", ("A", "2"), "AS 8C 7S", ("win", 500, 1)),
    ("split", ("5", "6"), "7S 6C 5S", ("lose", 0, 1)),
    ("three", ("A", "2", "8"), "2D 3C 4S", ("win", 300, 1)),
    ("three", ("7", "K", "JK"), "JK 3C 4S", ("win", 400, 1)),
    ("three", ("JK", "K", "7"), "7C 3C 4S", ("win", 400, 1)),
    ("three", ("A", "2", "8"), "9D 3C 4S", ("lose", 0, 1)),
    ("corner", ("2", "3", "8", "9"), "9S 3C 4S", ("win", 200, 1)),
    ("corner", ("2", "3", "8", "9"), "10S 3C 4S", ("lose", 0, 1)),
    ("red", (), "5H 3C 4S", ("win", 100, 1)),
    ("red", (), "5D 3C 4S", ("win", 100, 1)),
    ("red", (), "5S 3H 4H", ("lose", 0, 1)),
    ("red", (), "JK 3H 4H", ("lose", 0, 1)),      # a joker is neither colour
    ("black", (), "5C 3H 4H", ("win", 100, 1)),
    ("black", (), "JK 3C 4S", ("lose", 0, 1)),
    ("lapaire", ("K",), "KH KS 4S", ("win", 22500, 2)),
    ("lapaire", ("K",), "KH QS KS", ("lose", 0, 2)),   # the second card decides
    ("lapaire", ("K",), "QH KS 4S", ("lose", 0, 2)),
    ("lapaire", ("JK",), "JK JK 4S", ("win", 130000, 2)),
    ("any_pair", (), "9H 9C 4S", ("win", 1600, 2)),
    ("any_pair", (), "JK JK 4S", ("win", 5000, 2)),
    ("any_pair", (), "9H 8H 9S", ("lose", 0, 2)),
    ("poker", (), "AS KS QS", ("win", 5000, 3)),
    ("poker", (), "JK JK 2D", ("win", 10000, 3)),
    ("poker", (), "4H 5H 6H", ("win", 2000, 3)),
    ("poker", (), "4H 4C 4D", ("win", 1000, 3)),
    ("poker", (), "QH KC AD", ("win", 300, 3)),
    ("poker", (), "KH AC 2D", ("lose", 0, 3)),
    ("poker", (), "2H 9H JH", ("win", 200, 3)),
    ("poker", (), "JK KH AH", ("win", 5000, 3)),    # the joker makes Q-K-A suited
    ("poker", (), "KH JK 7S", ("lose", 0, 3)),
])
def test_worked_examples(bet: str, values: tuple[str, ...], cards: str,
                         expected: tuple[str, int, int]) -> None:
    assert settle_one(bet, values, cards) == expected


def test_round_totals_and_seat_totals() -> None:
    wagers = [
        Wager(1, "straight", ("K",), 10), Wager(1, "red", (), 20),
        Wager(2, "corner", ("2", "3", "8", "9"), 30), Wager(2, "any_pair", (), 5),
        Wager(2, "poker", (), 7),
    ]
    r = settle_round(CFG, wagers, parse_cards(["KH", "KD", "QH"]))
    assert [(x.wager_id, x.result, x.win, x.stage) for x in r.results] == [
        (0, "win", 120, 1), (1, "win", 20, 1), (2, "lose", 0, 1), (3, "win", 80, 2),
        (4, "lose", 0, 3)]
    assert (r.total_win, r.total_lost) == (220, 37)
    totals = r.seat_totals()
    assert (totals[1].staked, totals[1].win, totals[1].lost, totals[1].net) == (30, 140, 0, 140)
    assert (totals[2].staked, totals[2].win, totals[2].lost, totals[2].net) == (42, 80, 37, 43)
    assert [x.wager_id for x in r.stage(2)] == [3]
    assert r.results[0].returned == 130 and r.results[2].returned == 0


def test_fractional_wins_round_down_to_the_minor_unit() -> None:
    data = CFG.to_data()
    data["wagers"]["corner"]["pays"] = "3 to 2"
    odd = parse_lapaire_config(data, "<test>")
    r = settle_round(odd, [Wager(1, "corner", ("2", "3", "8", "9"), 5)],
                     parse_cards(["2S", "3S", "4S"]))
    assert r.results[0].win == 7  # 7.5 rounded down


def test_limits_are_not_a_settlement_rule() -> None:
    # 10 minor units is under the table minimum, but a placed wager is settled as it stands.
    r = settle_round(CFG, [Wager(1, "straight", ("K",), 10)], parse_cards(["KH", "2S", "3S"]))
    assert r.results[0].win == 120


@pytest.mark.parametrize(("wagers", "cards", "error", "words"), [
    ([Wager(1, "straight", ("K",), 10)], "KH JK", RoundError, "exactly three cards, got 2"),
    ([Wager(1, "straight", ("K",), 10)], "KH KH 2C", CardError, "KH has already been dealt"),
    ([Wager(1, "straight", ("K",), 10)], "JK JK JK", CardError, "only 2 jokers"),
    ([Wager(1, "split", ("2", "4"), 10)], "KH 2C 3C", WagerError,
     "wager #1 (seat 1, Split 2-4): 2-4 is not a Split spot on the layout"),
    ([Wager(1, "corner", ("2", "3", "4", "5"), 10)], "KH 2C 3C", WagerError,
     "not a Corner spot"),
    ([Wager(1, "straight", ("K",), 10), Wager(2, "red", (), 10)], "KH 2C 3C", WagerError,
     "wager #2 (seat 2, First Card Red): seat 2 has no First Card wager"),
    ([Wager(1, "split", ("7", "JK"), 10)], "KH 2C 3C", WagerError,
     "Split 7-JK is not offered at this table"),
])
def test_rounds_that_cannot_be_settled(wagers: list[Wager], cards: str, error: type[Exception],
                                       words: str) -> None:
    with pytest.raises(error) as err:
        settle_round(CFG, wagers, parse_cards(cards.split()))
    assert words in str(err.value)


def test_a_wager_kind_taken_off_the_table_is_refused() -> None:
    cfg = CFG.with_changes(offered={"red": False})
    with pytest.raises(WagerError, match="First Card Red is not offered at this table"):
        settle_round(cfg, [Wager(1, "straight", ("K",), 10), Wager(1, "red", (), 10)],
                     parse_cards(["KH", "2C", "3C"]))
    rnd = LaPaireRound(cfg)
    rnd.place(Wager(1, "straight", ("K",), 100))
    assert not rnd.can_place(Wager(1, "red", (), 100))


def test_offering_the_joker_splits_at_a_price() -> None:
    data = CFG.to_data()
    for spot in data["wagers"]["split"]["spot"]:
        spot["offered"] = True
    table = parse_lapaire_config(data, "<test>")
    r = settle_round(table, [Wager(1, "split", ("K", "JK"), 100)], parse_cards(["JK", "2C", "3C"]))
    assert r.results[0].win == 700


@pytest.mark.parametrize(("args", "words"), [
    ((0, "straight", ("K",), 10), "seat must be a whole number from 1"),
    ((1, "roulette", (), 10), "unknown bet 'roulette'"),
    ((1, "straight", ("K", "Q"), 10), "a straight covers 1 value, got Q-K"),
    ((1, "split", ("K",), 10), "a split covers 2 values, got K"),
    ((1, "split", ("K", "K"), 10), "named twice"),
    ((1, "red", ("K",), 10), "red takes no values"),
    ((1, "straight", ("Z",), 10), "unknown card value 'Z'"),
    ((1, "straight", ("K",), 0), "amount must be a positive whole number"),
    ((1, "straight", ("K",), True), "amount must be a positive whole number"),
    ((1, "straight", "K", 10), "values must be a list"),
])
def test_malformed_wagers(args: tuple[object, ...], words: str) -> None:
    with pytest.raises(WagerError) as err:
        Wager(*args)  # type: ignore[arg-type]
    assert words in str(err.value)


def test_wager_values_are_canonical() -> None:
    assert Wager(1, "split", ("8", "2"), 5) == Wager(1, "split", ("2", "8"), 5)
    assert Wager(1, "three", ("jk", "k", "7"), 5).values == ("7", "K", "JK")
    assert Wager(1, "straight", ("T",), 5).label == "Straight-up 10"
    assert Wager(1, "straight", ("T",), 5).code == "straight 10"
    assert Wager(1, "poker", (), 5).label == "3rd Card Poker"
    assert Wager(1, "poker", (), 5).code == "poker"


# --- the live round --------------------------------------------------------------------------

def test_live_round_staged_settlement() -> None:
    rnd = LaPaireRound(CFG)
    p1 = rnd.place(Wager(1, "straight", ("K",), 500))
    rnd.place(Wager(1, "lapaire", ("K",), 100))
    rnd.place(Wager(2, "split", ("Q", "K"), 200))
    p4 = rnd.place(Wager(2, "poker", (), 100))
    assert isinstance(p1, Placement) and (p1.wager_id, p4.wager_id) == (1, 4)
    assert rnd.betting_open and rnd.stage == 0

    s1 = rnd.deal(parse_card("KH"))
    assert not rnd.betting_open
    assert isinstance(s1, StageResult) and s1.stage == 1 and s1.card.code == "KH"
    assert [(r.wager_id, r.win) for r in s1.results] == [(1, 6000), (3, 1000)]
    assert s1.total_win == 7000 and s1.poker is None
    totals = rnd.seat_totals()
    assert (totals[1].win, totals[1].pending) == (6000, 100)
    assert (totals[2].win, totals[2].pending) == (1000, 100)

    s2 = rnd.deal("KS")
    assert [(r.wager_id, r.result, r.win) for r in s2.results] == [(2, "win", 22500)]

    s3 = rnd.deal("QS")
    assert [(r.wager_id, r.result) for r in s3.results] == [(4, "lose")]
    assert s3.poker is not None and s3.poker.hand == "pair" and s3.poker.odds is None
    assert s3.total_lost == 100
    assert rnd.is_complete and len(rnd.results) == 4
    assert rnd.seat_totals()[2].net == 900
    kinds = [type(x).__name__ for x in rnd.log]
    assert kinds == ["Placement"] * 4 + ["BettingClosed", "StageResult", "StageResult",
                                         "StageResult"]


def test_stage_three_shows_the_joker_hand() -> None:
    rnd = LaPaireRound(CFG)
    rnd.place(Wager(1, "straight", ("A",), 100))
    rnd.place(Wager(1, "poker", (), 100))
    rnd.deal("AS")
    rnd.deal("JK")
    s3 = rnd.deal("KS")
    assert s3.poker is not None and s3.poker.hand == "mini_royal"
    assert s3.results[0].win == 5000


def test_place_refusals_say_why() -> None:
    rnd = LaPaireRound(CFG)
    with pytest.raises(WagerError, match="seat 3 has no First Card wager yet"):
        rnd.verify_place(Wager(3, "red", (), 100))
    assert not rnd.can_place(Wager(3, "red", (), 100))
    with pytest.raises(WagerError, match="2-4 is not a Split spot on the layout"):
        rnd.place(Wager(3, "split", ("2", "4"), 100))
    with pytest.raises(WagerError, match="Split 7-JK is not offered"):
        rnd.place(Wager(3, "split", ("7", "JK"), 100))
    with pytest.raises(WagerError, match=r"0\.50 USD is under the table minimum 1\.00 USD"):
        rnd.place(Wager(3, "straight", ("K",), 50))
    with pytest.raises(WagerError, match=r"Straight-up K for seat 3: 100\.01 USD is over "
                                         r"the table maximum 100\.00 USD$"):
        rnd.place(Wager(3, "straight", ("K",), 10001))
    assert rnd.log == ()  # nothing refused left a trace
    rnd.place(Wager(3, "straight", ("K",), 6000))
    with pytest.raises(WagerError, match=r"with 60\.00 USD already there"):
        rnd.place(Wager(3, "straight", ("K",), 5000))
    rnd.place(Wager(3, "straight", ("K",), 4000))  # exactly the maximum in all
    assert rnd.can_place(Wager(3, "red", (), 100))
    rnd.place(Wager(4, "straight", ("K",), 50_00))  # limits are per seat
    rnd.close_betting()
    with pytest.raises(WagerError, match="betting is closed"):
        rnd.verify_place(Wager(3, "straight", ("Q",), 100))


def test_remove_guards_the_first_card_rule() -> None:
    rnd = LaPaireRound(CFG)
    first = rnd.place(Wager(1, "straight", ("K",), 100))
    red = rnd.place(Wager(1, "red", (), 100))
    poker = rnd.place(Wager(1, "poker", (), 100))
    with pytest.raises(WagerError, match="last First Card wager and the seat still has "
                                         "3rd Card Poker, First Card Red"):
        rnd.remove(first.wager_id)
    assert not rnd.can_remove(first.wager_id)
    second = rnd.place(Wager(1, "corner", ("2", "3", "8", "9"), 100))
    assert rnd.can_remove(first.wager_id)  # another First Card wager still stands
    assert isinstance(rnd.remove(first.wager_id), Removal)
    assert not rnd.can_remove(second.wager_id)
    rnd.remove(red.wager_id)
    rnd.remove(poker.wager_id)
    rnd.remove(second.wager_id)
    assert rnd.wagers == {}
    with pytest.raises(WagerError, match="there is no wager #2 on the layout"):
        rnd.remove(2)


def test_remove_cannot_leave_a_spot_under_the_minimum() -> None:
    rnd = LaPaireRound(CFG)
    big = rnd.place(Wager(1, "straight", ("K",), 100))
    small = rnd.place(Wager(1, "straight", ("K",), 50))
    with pytest.raises(WagerError, match=r"would leave 0\.50 USD on Straight-up K"):
        rnd.remove(big.wager_id)
    rnd.remove(small.wager_id)
    rnd.remove(big.wager_id)


def test_close_and_deal_state_errors() -> None:
    rnd = LaPaireRound(CFG)
    w = rnd.place(Wager(1, "straight", ("K",), 100))
    closed = rnd.close_betting()
    assert isinstance(closed, BettingClosed) and closed.wagers == ((1, w.wager),)
    assert not rnd.can_close_betting()
    with pytest.raises(RoundError, match="already closed"):
        rnd.close_betting()
    with pytest.raises(WagerError, match="can no longer be removed"):
        rnd.remove(w.wager_id)
    rnd.deal("JK")
    rnd.deal("2C")
    assert not rnd.can_deal("2C")
    with pytest.raises(CardError, match="2C has already been dealt"):
        rnd.deal("2C")
    assert rnd.stage == 2 and len(rnd.log) == 4  # the refused duplicate changed nothing
    assert rnd.can_deal("JK")  # the deck's second joker is fine
    rnd.deal("JK")
    with pytest.raises(RoundError, match="all three cards"):
        rnd.deal("5C")
    assert not rnd.can_deal("5C")


def test_third_joker_is_refused_live() -> None:
    rnd = LaPaireRound(CFG)
    rnd.place(Wager(1, "straight", ("JK",), 100))
    rnd.deal("JK")
    rnd.deal("JK")
    assert not rnd.can_deal("JK")
    with pytest.raises(CardError, match="only 2 jokers"):
        rnd.deal("JK")
    assert rnd.stage == 2


# --- the live round and settle_round agree ------------------------------------------------

_SPOTS = sorted(compile_table(CFG).rules)
_FIRST_SPOTS = [s for s in _SPOTS if s[0] in FIRST_CARD_KINDS]


@st.composite
def rounds(draw: st.DrawFn) -> tuple[list[Wager], list[str]]:
    wagers = []
    for seat in range(1, draw(st.integers(1, 4)) + 1):
        bet, values = draw(st.sampled_from(_FIRST_SPOTS))
        wagers.append(Wager(seat, bet, values, draw(st.integers(1, 50)) * 100))
        for _ in range(draw(st.integers(0, 3))):
            bet, values = draw(st.sampled_from(_SPOTS))
            wagers.append(Wager(seat, bet, values, draw(st.integers(1, 10)) * 100))
    deck = [c.code for c in LAPAIRE_DECK.cards()]
    cards = draw(st.permutations(deck))[:3]
    return wagers, cards


@settings(max_examples=150, deadline=None)
@given(rounds())
def test_live_round_and_settle_round_agree(case: tuple[list[Wager], list[str]]) -> None:
    wagers, codes = case
    cards = parse_cards(codes)
    rnd = LaPaireRound(CFG)
    ids = [rnd.place(w).wager_id for w in wagers if rnd.can_place(w)]
    placed = [rnd.wagers[i] for i in ids]
    stages = [rnd.deal(c) for c in cards]
    fast = settle_round(CFG, placed, cards)
    live = rnd.results
    assert [(r.wager, r.stage, r.won, r.win) for r in live] == \
        [(r.wager, r.stage, r.won, r.win) for r in fast.results]
    assert sum(s.total_win for s in stages) == fast.total_win
    assert sum(s.total_lost for s in stages) == fast.total_lost
    assert rnd.seat_totals() == fast.seat_totals()
