"""The tournament engine: seating, winners per table size, tags and triple elimination, the
move after round 3, the chip check, Euchre scoring, disqualification, money and config."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealer_station.tomlconfig import ConfigError
from dealer_station.tournament import seating
from dealer_station.tournament.config import default_games, load_games
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.euchre import EuchreGame, EuchreHand
from dealer_station.tournament.simulate import simulate
from dealer_station.tournament.tournament import Tournament

GAMES = default_games()
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("key", list(GAMES))
def test_seating_is_as_equal_as_possible_for_1_to_200_entries(key: str) -> None:
    size = GAMES[key].entries_per_table
    for n in range(1, 201):
        players = [f"p{i}" for i in range(n)]
        tables = seating.seat(seating.draw(players, 7, "draw"), size)
        sizes = [len(t) for t in tables]
        assert sum(sizes) == n and sorted(p for t in tables for p in t) == sorted(players)
        assert max(sizes) - min(sizes) <= 1, (n, sizes)
        assert max(sizes) <= size
        assert len(tables) == -(-n // size)
        if n >= 2 and size >= 3:
            assert min(sizes) >= 2, (n, sizes)      # nobody sits alone


def test_23_bourre_players_sit_5_5_5_4_4_by_a_repeatable_draw() -> None:
    players = [f"P{i:03d}" for i in range(1, 24)]
    assert seating.table_sizes(23, GAMES["bourre"].table_size) == (5, 5, 5, 4, 4)
    a = seating.seat(seating.draw(players, 42, "draw"), 5)
    b = seating.seat(seating.draw(list(reversed(players)), 42, "draw"), 5)
    assert a == b                                   # the same seed, the same tables
    assert a != seating.seat(seating.draw(players, 43, "draw"), 5)


@pytest.mark.parametrize(("key", "expected"), [
    ("po-ke-no", {12: 3, 11: 3, 10: 3, 9: 2, 6: 2, 5: 1, 2: 1}),
    ("pitty-pat", {5: 2, 4: 2, 3: 1, 2: 1}),
    ("bourre", {5: 2, 4: 2, 3: 1, 2: 1}),
    ("rummy", {4: 2, 3: 1, 2: 1}),
])
def test_winners_per_table_size(key: str, expected: dict[int, int]) -> None:
    for size, winners in expected.items():
        assert GAMES[key].winners_for(size) == winners


def _started(key: str, n: int, seed: int = 1) -> Tournament:
    t = Tournament()
    t.create("t", GAMES[key], seed=seed)
    for i in range(1, n + 1):
        t.register(f"P{i:02d}")
    t.start()
    return t


def test_the_chip_check_refuses_a_table_that_does_not_add_up() -> None:
    t = _started("bourre", 10)
    players = t.seating_chart(1)[0]
    short = {p: 100 for p in players}
    short[players[0]] = 90
    with pytest.raises(TournamentError, match=r"do not add up: the players hold 490, but a "
                                              r"Bourré table of 5 plays for 500 \(10 missing\)"):
        t.result(1, 1, short)
    assert not t.can_result(1, 1, short)
    # the same chips with the missing ten in the carried pot add up
    t.result(1, 1, short, unawarded=10)
    with pytest.raises(TournamentError, match="already has its result"):
        t.result(1, 1, short, unawarded=10)
    with pytest.raises(TournamentError, match="did not play at this table"):
        t.result(1, 2, {**{p: 100 for p in t.seating_chart(1)[1]}, players[0]: 0})
    with pytest.raises(TournamentError, match="cannot close: no result yet for table 2"):
        t.close_round(1)


def test_pitty_pat_tables_play_for_50_chips() -> None:
    t = _started("pitty-pat", 5)
    (players,) = t.seating_chart(1)
    with pytest.raises(TournamentError, match="plays for 50"):
        t.result(1, 1, {p: 10 for p in players} | {players[0]: 11})
    t.result(1, 1, {p: 10 for p in players})
    assert t.ties(1) == {1: tuple(sorted(players, key=players.index))}
    with pytest.raises(TournamentError, match="tied"):
        t.close_round(1)
    order = list(reversed(players))
    t.break_tie(1, 1, order, reason="extra game")
    o = t.table_outcome(1, 1)
    assert o is not None and set(o.winners) == set(order[:2]) and len(o.losers) == 3
    t.close_round(1)
    assert {p: t.tags[p] for p in players} == {p: (0 if p in order[:2] else 1)
                                               for p in players}


def _play_round(t: Tournament, chips_of: dict[str, int] | None = None) -> None:
    r = t.current_round
    for i, players in enumerate(t.seating_chart(r), 1):
        # the first seated wins everything: decided, no ties
        results = {p: 0 for p in players}
        results[players[0]] = t.rules().chips_for(len(players))
        if chips_of:
            results = {p: chips_of.get(p, 0) for p in players}
        t.result(r, i, results)
    _extra_games(t, r)
    t.close_round(r)


def _extra_games(t: Tournament, r: int) -> None:
    while ties := t.ties(r):
        table, tied = next(iter(ties.items()))
        t.break_tie(r, table, sorted(tied), reason="extra game")


def test_third_tag_eliminates_and_players_move_after_round_3() -> None:
    t = _started("rummy", 16)
    first = t.seating_chart(1)
    for _ in range(3):
        assert t.seating_chart(t.current_round) == first   # the same tables to round 3
        _play_round(t)
    # every table's three losers have three tags: out, in order of elimination
    assert len(t.eliminated) == 12 and all(t.tags[p] == 3 for p in t.eliminated)
    assert len(t.active()) == 4
    fourth = t.seating_chart(4)
    # the four survivors (one per table) fit at one table and move to it
    assert len(fourth) == 1 and sorted(fourth[0]) == sorted(t.active())
    _play_round(t)
    while not t.finished:
        _play_round(t)
    assert t.places is not None and sorted(t.places) == sorted(t.entries)
    assert t.places[0] == t.active()[0]
    assert list(t.places[1:]) == list(reversed(t.eliminated))


def test_players_move_to_new_tables_at_the_end_of_round_3_not_before() -> None:
    t = _started("po-ke-no", 48, seed=3)
    chart = [t.seating_chart(1)]
    for _ in range(3):
        r = t.current_round
        for i, players in enumerate(t.seating_chart(r), 1):
            # players who win rotate so that nobody is eliminated before round 4
            results = {p: 0 for p in players}
            for k in range(3):
                results[players[(3 * r + k) % len(players)]] = 10 + k
            results[players[(3 * r) % len(players)]] += 50 - 33
            t.result(r, i, results)
        _extra_games(t, r)
        t.close_round(r)
        chart.append(t.seating_chart(t.current_round))
    assert chart[0] == chart[1] == chart[2]
    assert chart[3] != chart[2]
    assert sorted(p for tb in chart[3] for p in tb) == sorted(t.active())


def test_a_level_match_score_is_refused_for_naming_no_winner() -> None:
    t = Tournament()
    t.create("p", GAMES["pedro"], seed=3)
    for i in range(1, 5):
        t.register(f"T{i}", members=(f"a{i}", f"b{i}"))
    t.start()
    mid, teams = next((m.view.id, m.view.teams) for m in t.matches()
                      if all(m.view.teams) and m.view.winner is None)
    with pytest.raises(TournamentError, match=f"match {mid}: give both teams' scores, one "
                                              f"higher"):
        t.match(mid, {teams[0]: 52, teams[1]: 52})


def test_pedro_and_euchre_never_move_and_keep_their_teams() -> None:
    for key in ("pedro", "euchre"):
        game = GAMES[key]
        assert game.move_after_round == 0 and game.teams and game.entries_per_table == 2
    t = simulate(GAMES["pedro"], 16, 5)
    assert not t.rounds                       # no tables to move between: a bracket
    assert all(len(m) == 2 for m in t.entries.values())


def test_same_round_eliminations_are_ordered_by_chips_then_by_an_extra_game() -> None:
    t = _started("rummy", 8)
    for _ in range(2):
        _play_round(t)
    r = t.current_round
    losers_chips = iter([5, 1, 1, 0, 5, 9])
    for i, players in enumerate(t.seating_chart(r), 1):
        results = {players[0]: 0}
        for p in players[1:]:
            results[p] = next(losers_chips)
        results[players[0]] = 50 - sum(results.values())
        t.result(r, i, results)
    ties = t.ties(r)
    assert list(ties) == [0]                  # level chips among the eliminated
    with pytest.raises(TournamentError, match="tied"):
        t.close_round(r)
    tied = sorted(ties[0])
    groups = {}
    for table in range(1, 3):
        o = t.table_outcome(r, table)
        assert o is not None
        groups.update(o.results)
    t.break_tie(r, 0, tied)                   # best first
    t.close_round(r)
    order = [groups[p] for p in t.eliminated]
    assert order == sorted(order)             # fewest chips eliminated first
    ones = [p for p in t.eliminated if groups[p] == 1]
    assert len(ones) == 2 and ones == [p for p in reversed(tied) if p in ones]


def test_disqualification_forfeits_and_places_last() -> None:
    t = _started("bourre", 10)
    victim = t.seating_chart(1)[0][0]
    with pytest.raises(TournamentError, match="needs its reason"):
        t.disqualify(victim)
    t.disqualify(victim, reason="foul language")
    players = t.seating_chart(1)[0]
    # even holding the most chips she cannot win: a forfeit is a loss
    results = {p: 100 for p in players} | {victim: 200, players[1]: 0}
    t.result(1, 1, results)
    o = t.table_outcome(1, 1)
    assert o is not None and victim in o.losers and victim not in o.winners
    with pytest.raises(TournamentError, match="already out"):
        t.disqualify(victim, reason="again")
    t2 = simulate(GAMES["rummy"], 9, 2)
    assert t2.places is not None and t2.places[-1] != victim


def test_registration_closes_when_games_begin() -> None:
    t = _started("rummy", 4)
    with pytest.raises(TournamentError, match="no late entries"):
        t.register("late")
    t = Tournament()
    t.create("t", GAMES["euchre"])
    with pytest.raises(TournamentError, match="teams of 2"):
        t.register("solo")
    t.register("A", ["ann", "amy"])
    with pytest.raises(TournamentError, match="ann is already entered"):
        t.register("B", ["ann", "bea"])
    with pytest.raises(TournamentError, match="at least 2"):
        t.start()


def test_money_is_whole_minor_units() -> None:
    t = Tournament()
    t.create("t", GAMES["euchre"])
    for i in range(7):
        t.register(f"T{i}", [f"a{i}", f"b{i}"])
    m = t.purse()
    assert m.collected == 7 * 2000                      # $10.00 a person, $20.00 a team
    assert m.prizes == (7000, 4200, 2800) and m.kept == 0
    t = Tournament()
    t.create("t", GAMES["bourre"], entry_fee=1500, prizes=[10000, 5000, 2500])
    for i in range(3):
        t.register(f"P{i}")
    assert t.purse().collected == 4500 and t.purse().kept == 4500 - 17500


@pytest.mark.parametrize(("hand", "points"), [
    (EuchreHand("A", 3), {"A": 1, "B": 0}),
    (EuchreHand("A", 4), {"A": 1, "B": 0}),
    (EuchreHand("A", 5), {"A": 2, "B": 0}),
    (EuchreHand("A", 4, alone=True), {"A": 1, "B": 0}),
    (EuchreHand("A", 5, alone=True), {"A": 4, "B": 0}),
    (EuchreHand("A", 2), {"A": 0, "B": 2}),
    (EuchreHand("A", 0, alone=True), {"A": 0, "B": 2}),
    (EuchreHand("A", 5, renege="A"), {"A": 0, "B": 2}),
    (EuchreHand("A", 1, renege="B"), {"A": 2, "B": 0}),
    (EuchreHand("A", 5, lead_out_of_turn=True), {"A": 0, "B": 0}),
])
def test_euchre_scores_each_hand(hand: EuchreHand, points: dict[str, int]) -> None:
    g = EuchreGame("A", "B")
    line = g.hand(hand)
    assert dict(line.points) == points and dict(line.totals) == points
    assert g.dealer == 1                                # the deal moves on every hand


def test_a_euchre_game_ends_at_10_with_its_score_sheet() -> None:
    g = EuchreGame("A", "B")
    for _ in range(4):
        g.hand(EuchreHand("A", 5))                      # 8
    g.hand(EuchreHand("B", 1))                          # euchred: A 10
    assert g.winner == "A" and [dict(x.totals)["A"] for x in g.sheet] == [2, 4, 6, 8, 10]
    with pytest.raises(TournamentError, match="game is over"):
        g.hand(EuchreHand("A", 3))
    assert [x.dealer for x in g.sheet] == [0, 1, 2, 3, 0]


def test_the_config_file_is_the_rulebook_and_bad_keys_are_named(tmp_path: Path) -> None:
    assert load_games(ROOT / "config" / "tournament.toml") == GAMES
    bad = tmp_path / "t.toml"
    bad.write_text('[games.rummy]\nwinners = { 4 = 4 }\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"t.toml: games.rummy.winners: a table of 4 must "
                                          r"have 1 to 3 winners"):
        load_games(bad)
    bad.write_text('[games.rummy]\ntable_sise = 4\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"games.rummy.table_sise: unknown key"):
        load_games(bad)
    bad.write_text('[games.poker]\ntable_size = 4\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"games.poker: unknown game 'poker'"):
        load_games(bad)
