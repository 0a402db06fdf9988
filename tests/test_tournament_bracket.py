"""Double-elimination brackets for every team count from 2 to 64: byes to the top seeds,
every match played with both teams known, out after the second loss, the second final."""

from __future__ import annotations

import random

import pytest

from dealer_station.tournament.bracket import BYE, Bracket, Side, Status, seed_positions
from dealer_station.tournament.errors import TournamentError


def _play(n: int, rng: random.Random, *, lb_wins_final: bool | None = None) -> Bracket:
    b = Bracket([f"T{i:02d}" for i in range(1, n + 1)])
    last_wave = 0
    while b.champion() is None:
        ready = b.ready()
        assert ready, [(v.id, v.status, v.teams) for v in b.views()]
        mid = ready[0]
        a, c = b.teams_of(mid)
        assert a and c and a != c             # both teams known and real
        assert b.wave(mid) >= last_wave       # waves are played in order
        last_wave = b.wave(mid)
        winner = rng.choice([a, c])
        if mid == "F1" and lb_wins_final is not None:
            winner = c if lb_wins_final else a
        b.verify_play(mid, winner)
        b.record(mid, winner)
    return b


@pytest.mark.parametrize("n", range(2, 65))
def test_every_team_count_from_2_to_64(n: int) -> None:
    rng = random.Random(n)
    b = _play(n, rng)
    played = [v for v in b.views() if v.status is Status.PLAYED]
    losses = dict.fromkeys(b.teams, 0)
    for v in played:
        assert v.loser is not None
        losses[v.loser] += 1
    champion = b.champion()
    assert champion in b.teams and losses[champion] <= 1
    assert sorted(losses.values()).count(2) == n - 1        # out after the second loss
    assert len(played) in (2 * n - 2, 2 * n - 1)
    # byes: the top seeds get them, at most one each on the winners' side
    size = b.size
    byes = [v for v in b.views() if v.status is Status.BYE and v.side is Side.WINNERS]
    assert len(byes) == size - n
    assert sorted(v.winner or "" for v in byes) == [f"T{i:02d}" for i in range(1, size - n + 1)]
    for team in b.teams:
        assert b.byes(team, [Side.WINNERS]) <= 1
        # a team never reaches a match by byes alone: it has played before its second bye
    # every match of winners' round 2 on has two teams
    assert all(v.teams[0] != BYE and v.teams[1] != BYE for v in b.views()
               if v.side is Side.WINNERS and v.round > 1)


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 64])
def test_the_second_final_is_played_when_the_losers_side_wins_the_first(n: int) -> None:
    b = _play(n, random.Random(1), lb_wins_final=True)
    assert b.status("F2") is Status.PLAYED
    assert set(b.teams_of("F2")) == set(b.teams_of("F1"))
    b = _play(n, random.Random(1), lb_wins_final=False)
    assert b.status("F2") is Status.VOID and b.champion() == b.winner("F1")


def test_standard_seeding_keeps_1_and_2_apart() -> None:
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_positions(4) == [1, 4, 2, 3]


def test_a_match_is_refused_until_both_teams_are_known_and_only_once() -> None:
    b = Bracket(["A", "B", "C", "D"])
    with pytest.raises(TournamentError, match="cannot be played: it is waiting"):
        b.verify_play("W2-1", "A")
    with pytest.raises(TournamentError, match="does not play"):
        b.verify_play("W1-1", "B")
    b.record("W1-1", "A")
    with pytest.raises(TournamentError, match="already has its result"):
        b.verify_play("W1-1", "A")
    with pytest.raises(TournamentError, match="no match"):
        b.spec("W9-9")


def test_a_disqualified_team_forfeits_its_next_match() -> None:
    b = Bracket(["A", "B", "C", "D"])
    b.disqualify("D")                     # A v D in W1-1: A wins by forfeit
    assert b.status("W1-1") is Status.FORFEIT and b.winner("W1-1") == "A"
    b.record("W1-2", "B")
    # the loser of W1-1 is the disqualified team: the losers' match goes to C
    assert b.winner("L1-1") == "C"
