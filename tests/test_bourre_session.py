"""Bourré sessions: the deal passing left, the clock given by the caller, ranking, game tags."""

from __future__ import annotations

import dataclasses
import random

import pytest

from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import (
    BourreHand,
    ConservationError,
    IllegalActionError,
    Phase,
)
from dealer_station.games.bourre.rules.random_play import play_random_hand
from dealer_station.games.bourre.rules.session import (
    BourreSession,
    Outcome,
    SessionError,
    TournamentRecord,
    rank_players,
)

T = BourreProfile()


def play(session: BourreSession, rng: random.Random, elapsed: float = 0.0) -> BourreHand:
    hand = session.start_hand(elapsed)
    play_random_hand(hand, rng, misplay_rate=0.05)
    session.finish_hand()
    return hand


def test_hands_carry_chips_and_pot_and_the_deal_passes_left() -> None:
    rng = random.Random(1)
    session = BourreSession(T, [1, 2, 3, 4, 5], first_dealer=2)
    assert dict(session.chips) == dict.fromkeys([1, 2, 3, 4, 5], 100)
    dealers = []
    for _ in range(6):
        dealers.append(session.dealer)
        hand = play(session, rng)
        assert hand.result is not None
        assert dict(session.chips) == {s: hand.result.chips.get(s, 0) for s in session.seats}
        assert session.pot == hand.result.pot
    assert dealers == [2, 3, 4, 5, 1, 2]
    assert sum(session.chips.values()) + session.pot == 500
    assert len(session.hands) == 6


def test_each_hand_starts_with_the_carried_pot() -> None:
    rng = random.Random(2)
    session = BourreSession(T, [1, 2, 3], first_dealer=1, pot=7)
    hand = session.start_hand()
    assert hand.pot == 7 and hand.dealer == 1
    play_random_hand(hand, rng)
    carried = session.finish_hand().pot
    assert session.start_hand().pot == carried


def test_the_deal_skips_a_player_who_is_out() -> None:
    session = BourreSession(T, [1, 2, 3, 4], first_dealer=1, chips={1: 50, 2: 50, 3: 50, 4: 50})
    session._chips[2] = 0  # seat 2 went out in an earlier hand
    session._total -= 50
    hand = session.start_hand()
    assert hand.seats == (1, 3, 4)
    play_random_hand(hand, random.Random(3))
    session.finish_hand()
    assert session.dealer == 3


def test_time_is_the_callers_and_a_hand_under_way_completes() -> None:
    rng = random.Random(4)
    session = BourreSession(T, [1, 2, 3], first_dealer=3)
    hand = session.start_hand(elapsed_seconds=1799)
    with pytest.raises(SessionError, match="a hand is under way"):
        session.start_hand(elapsed_seconds=1799)
    assert not session.is_over(elapsed_seconds=1900)  # the hand is not finished
    play_random_hand(hand, rng)
    session.finish_hand()
    assert session.time_up(1800) and not session.time_up(1799.9)
    with pytest.raises(SessionError, match="30 minutes are up"):
        session.start_hand(elapsed_seconds=1800)
    assert session.is_over(elapsed_seconds=1800)
    assert not session.is_over(elapsed_seconds=10)
    session.call_time()
    assert session.is_over() and not session.can_start_hand(0)


def test_finish_refused_while_the_hand_is_being_played() -> None:
    session = BourreSession(T, [1, 2, 3], first_dealer=3)
    with pytest.raises(SessionError, match="no hand is under way"):
        session.finish_hand()
    hand = session.start_hand()
    hand.ante()
    with pytest.raises(SessionError, match="deal phase"):
        session.finish_hand()
    with pytest.raises(SessionError, match="under way"):
        session.result()


def test_a_session_plays_until_one_player_has_every_chip() -> None:
    rng = random.Random(5)
    profile = dataclasses.replace(T, session_chips=6)
    session = BourreSession(profile, [1, 2, 3, 4, 5], first_dealer=1)
    hands = 0
    while not session.is_over():
        play(session, rng)
        hands += 1
        assert sum(session.chips.values()) + session.pot == 30
        for seat in session.out:
            assert session.chips[seat] == 0
        assert hands < 5000
    assert len(session.active_seats) == 1
    result = session.result()
    assert result.hands == hands
    winners = [s for s in result.standings if s.outcome is Outcome.WIN]
    assert len(winners) == 1 and winners[0].seat == session.active_seats[0]
    assert all(s.out for s in result.standings if s.outcome is Outcome.LOSS)


def test_a_broken_session_count_is_refused() -> None:
    session = BourreSession(T, [1, 2, 3], first_dealer=3)
    hand = session.start_hand()
    play_random_hand(hand, random.Random(6))
    session._total += 1  # as if a chip had gone missing between hands
    with pytest.raises(ConservationError, match="session chip count broken"):
        session.finish_hand()


# -- ranking ------------------------------------------------------------------------------------

def rank(chips: dict[int, int], tie_break: tuple[int, ...] = ()) -> dict[int, Outcome]:
    seats = sorted(chips)
    allowed = T.winners_for(len(seats))
    result = rank_players(seats, chips, {s: f"p{s}" for s in seats}, allowed, tie_break)
    return {s.seat: s.outcome for s in result.standings}


W, L, X = Outcome.WIN, Outcome.LOSS, Outcome.TIE


def test_table_of_five_has_two_winners_and_three_losers() -> None:
    assert rank({1: 150, 2: 90, 3: 120, 4: 60, 5: 80}) == {1: W, 2: L, 3: W, 4: L, 5: L}


@pytest.mark.parametrize(("size", "winners"), [(2, 1), (3, 1), (4, 1), (5, 2), (6, 2), (7, 3)])
def test_winners_per_table_size(size: int, winners: int) -> None:
    chips = {s: 100 + 10 * s for s in range(1, size + 1)}
    outcomes = rank(chips)
    assert sorted(s for s, o in outcomes.items() if o is W) == list(
        range(size - winners + 1, size + 1))


def test_a_tie_across_the_line_is_left_to_the_judge() -> None:
    chips = {1: 150, 2: 120, 3: 120, 4: 60, 5: 50}
    assert rank(chips) == {1: W, 2: X, 3: X, 4: L, 5: L}
    assert rank(chips, tie_break=(3, 2)) == {1: W, 2: L, 3: W, 4: L, 5: L}
    # A tie inside the winners is no tie at all.
    assert rank({1: 150, 2: 150, 3: 40, 4: 60, 5: 50}) == {1: W, 2: W, 3: L, 4: L, 5: L}


def test_a_player_out_of_chips_has_lost_and_shares_no_win() -> None:
    chips = {1: 0, 2: 0, 3: 0, 4: 499, 5: 0}
    assert rank(chips) == {1: L, 2: L, 3: L, 4: W, 5: L}
    result = rank_players([1, 2, 3, 4, 5], chips, {s: str(s) for s in chips}, 2)
    assert result.winners_allowed == 1
    assert [s.place for s in result.standings] == [1, 2, 2, 2, 2]


def test_session_result_names_players() -> None:
    session = BourreSession(T, [1, 2, 3], first_dealer=3,
                            players={1: "ana", 2: "bea", 3: "cleo"}, session_id="s1",
                            chips={1: 120, 2: 100, 3: 80})
    result = session.result()
    assert result.winners == ("ana",) and result.losers == ("bea", "cleo")
    assert result.decided and result.session_id == "s1"


# -- the tournament's game tags -----------------------------------------------------------------

def session_result(session_id: str, chips: dict[int, int],
                   players: dict[int, str]) -> BourreSession:
    return BourreSession(T, sorted(chips), first_dealer=1, chips=chips, players=players,
                         session_id=session_id)


def test_three_game_tags_eliminate() -> None:
    record = TournamentRecord.for_profile(T)
    players = {1: "ana", 2: "bea", 3: "cleo"}
    for i in range(2):
        assert record.record(session_result(f"s{i}", {1: 150, 2: 100, 3: 50},
                                            players).result()) == ()
    assert dict(record.tags) == {"ana": 0, "bea": 2, "cleo": 2}
    newly = record.record(session_result("s2", {1: 50, 2: 100, 3: 150}, players).result())
    assert newly == ("bea",)
    assert record.tags_of("bea") == 3 and record.is_eliminated("bea")
    assert record.eliminated == ("bea",)
    with pytest.raises(IllegalActionError, match="bea has 3 game tags and is eliminated"):
        record.verify_can_seat(["ana", "bea"])


def test_an_undecided_or_repeated_session_is_not_recorded() -> None:
    record = TournamentRecord()
    players = {1: "ana", 2: "bea", 3: "cleo"}
    tied = session_result("s1", {1: 100, 2: 100, 3: 50}, players).result()
    with pytest.raises(SessionError, match="ana, bea are tied"):
        record.record(tied)
    assert dict(record.tags) == {}
    decided = session_result("s1", {1: 100, 2: 100, 3: 50}, players).result(tie_break=(2, 1))
    assert decided.winners == ("bea",)
    record.record(decided)
    with pytest.raises(SessionError, match="s1 is already recorded"):
        record.record(decided)
    assert dict(record.tags) == {"ana": 1, "bea": 0, "cleo": 1}


def test_session_needs_a_legal_table() -> None:
    with pytest.raises(SessionError, match="1 players seated"):
        BourreSession(T, [1], first_dealer=1)
    with pytest.raises(SessionError, match="first dealer 9"):
        BourreSession(T, [1, 2], first_dealer=9)
    with pytest.raises(SessionError, match="same player"):
        BourreSession(T, [1, 2], first_dealer=1, players={1: "a", 2: "a"})
    hand = BourreSession(T, [1, 2], first_dealer=1).start_hand()
    assert hand.phase is Phase.ANTE
