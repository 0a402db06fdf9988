"""A whole tournament played through the real engine with random results: the
``tournament simulate`` command's engine, and the tests' source of random tournaments.

Tables of a game with an ``engine`` (Bourré) are played on that game's own engine, found
through the registry (``engines.py``); the other triple-elimination games hand out the
table's chips game by game to random winners; Euchre matches are played hand by hand through
``euchre.py``'s scoring and Pedro's through ``pedro.py``'s. Ties are broken by a random extra
game, entered as its own result, exactly as a judge would enter it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dealer_station.tournament.bracket import Status
from dealer_station.tournament.engines import DEFAULT_HANDS, TablePlayer, table_player
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.euchre import EuchreHand
from dealer_station.tournament.games import Measure, TournamentGame
from dealer_station.tournament.pedro import LOWEST_BID, POINTS_IN_PLAY, PedroHand, score_hand
from dealer_station.tournament.tournament import Sink, Tournament

#: Who the simulation says did each thing, in the journal.
SIM_ACTOR = "simulator/director"
#: Most hands a Pedro game may take before the higher score wins (it never comes near).
PEDRO_HAND_LIMIT = 500

def entry_names(game: TournamentGame, players: int) -> dict[str, tuple[str, ...]]:
    """Entries for ``players`` people: P001... or, for teams of two, T01 = (P001, P002)..."""
    if players < 1:
        raise TournamentError(f"--players must be a positive number, got {players}")
    if players % game.team_size:
        raise TournamentError(f"{game.label} is played by teams of {game.team_size}: "
                              f"{players} players do not make whole teams")
    people = [f"P{i:03d}" for i in range(1, players + 1)]
    if game.team_size == 1:
        return {p: (p,) for p in people}
    n = players // game.team_size
    width = max(2, len(str(n)))
    return {f"T{i + 1:0{width}d}": tuple(people[i * game.team_size:(i + 1) * game.team_size])
            for i in range(n)}


def simulate(game: TournamentGame, players: int, seed: int, *, sink: Sink | None = None,
             name: str = "simulation", hands: int = DEFAULT_HANDS,
             engine_config: Path | None = None) -> Tournament:
    """Create, fill, start and play a tournament to its last place. A game played on an
    engine plays its tables on the tournament rules of ``engine_config`` (None: that game's
    file in the configuration folder)."""
    entries = entry_names(game, players)
    least = max(game.min_entries, 2)
    if len(entries) < least:
        what = "teams" if game.teams else "players"
        teams = f" ({len(entries)} teams)" if game.teams else ""
        raise TournamentError(f"{players} player{'s' if players != 1 else ''}{teams} cannot "
                              f"fill one {game.label} table: at least {least} {what} are "
                              f"needed")
    rng = random.Random(f"simulate/{seed}")
    play = table_player(game, hands=hands, config=engine_config) or _chips_player
    t = Tournament(sink)
    t.create(name, game, seed=seed, by=SIM_ACTOR, reason="simulation")
    for entry, members in entries.items():
        t.register(entry, members if game.teams else (), by=SIM_ACTOR)
    t.start(by=SIM_ACTOR)
    if t.double:
        _play_bracket(t, rng)
    else:
        _play_rounds(t, rng, play)
    return t


def _chips_player(game: TournamentGame, players: Sequence[str],
                  rng: random.Random) -> tuple[dict[str, int], int]:
    """A session of individual games: each game's winner takes a chip (two for a pat hand or
    a Po-Ke-No) from the table's allotment; what is left when time is called is unawarded."""
    results = {p: 0 for p in players}
    if game.measure is Measure.SCORE:
        return {p: rng.randint(-60, 200) for p in players}, 0
    pool = game.chips_for(len(players))
    for _ in range(rng.randint(15, 45)):
        if pool <= 0:
            break
        prize = min(pool, 2 if rng.random() < 0.15 else 1)
        results[rng.choice(list(players))] += prize
        pool -= prize
    return results, pool


def _play_rounds(t: Tournament, rng: random.Random, play: TablePlayer) -> None:
    game = t.rules()
    while not t.finished:
        r = t.current_round
        for i, players in enumerate(t.seating_chart(r), 1):
            results, unawarded = play(game, players, rng)
            t.result(r, i, results, unawarded=unawarded, by=SIM_ACTOR)
        while ties := t.ties(r):
            table, tied = next(iter(ties.items()))
            order = list(tied)
            rng.shuffle(order)
            t.break_tie(r, table, order, by=SIM_ACTOR, reason="extra game")
        t.close_round(r, by=SIM_ACTOR)


def _play_bracket(t: Tournament, rng: random.Random) -> None:
    bracket = t.bracket
    assert bracket is not None
    euchre = t.rules().game_points <= 13   # Euchre is scored hand by hand to 10
    for wave in range(1, max(bracket.wave(s.id) for s in bracket.specs) + 1):
        for spec in bracket.specs:
            if bracket.wave(spec.id) != wave or bracket.status(spec.id) is not Status.READY:
                continue
            a, b = bracket.teams_of(spec.id)
            assert a and b
            if euchre:
                _play_euchre(t, spec.id, (a, b), rng)
            else:
                t.match(spec.id, _pedro_game((a, b), t.rules().game_points, rng),
                        by=SIM_ACTOR)
    if not t.finished:
        raise TournamentError("the bracket ended without a champion")  # a defect, not input


def _play_euchre(t: Tournament, mid: str, teams: tuple[str, str], rng: random.Random) -> None:
    while t.bracket is not None and t.bracket.status(mid) is Status.READY:
        makers = rng.choice(teams)
        roll = rng.random()
        hand = EuchreHand(makers, rng.choice([0, 1, 2, 3, 3, 3, 4, 4, 4, 5, 5]),
                          alone=rng.random() < 0.08,
                          renege=rng.choice(teams) if roll < 0.02 else None,
                          lead_out_of_turn=0.02 <= roll < 0.04)
        t.euchre_hand(mid, hand, by=SIM_ACTOR)


def _pedro_game(teams: tuple[str, str], target: int, rng: random.Random) -> dict[str, int]:
    scores = {teams[0]: 0, teams[1]: 0}
    for _ in range(PEDRO_HAND_LIMIT):
        bidder = rng.choice(teams)
        bid = rng.randint(LOWEST_BID, POINTS_IN_PLAY - 3)
        made = max(0, min(POINTS_IN_PLAY, bid + rng.randint(-5, 4)))
        for team, gain in score_hand(teams, PedroHand(bidder, bid, made)).items():
            scores[team] += gain
        if max(scores.values()) >= target and scores[teams[0]] != scores[teams[1]]:
            break
    if scores[teams[0]] == scores[teams[1]]:
        scores[rng.choice(teams)] += 1   # a hand more, as the table would play
    return scores


def report(t: Tournament) -> dict[str, Any]:
    """The ``simulate --json`` contract: rounds, tags, eliminated, places (and the bracket)."""
    out: dict[str, Any] = {"game": t.rules().key, "label": t.rules().label,
                           "seed": t.seed, "entries": {e: list(m) for e, m in
                                                       t.entries.items()}}
    if t.bracket is None:
        rounds = []
        for n in sorted(t.rounds):
            tables = []
            for i, players in enumerate(t.seating_chart(n), 1):
                o = t.table_outcome(n, i)
                tables.append({"table": i, "players": list(players),
                               "results": dict(o.results) if o else {},
                               "winners": list(o.winners) if o else [],
                               "losers": list(o.losers) if o else []})
            rounds.append({"round": n, "tables": tables})
        out["rounds"] = rounds
    else:
        bracket = t.bracket
        by_wave: dict[int, list[dict[str, Any]]] = {}
        matches = []
        byes = []
        for row in t.matches():
            v = row.view
            if v.status is Status.PLAYED:
                teams = [x for x in v.teams if x]
                by_wave.setdefault(v.wave, []).append({
                    "table": len(by_wave.get(v.wave, [])) + 1, "match": v.id,
                    "players": teams, "results": dict(row.scores),
                    "winners": [v.winner], "losers": [v.loser]})
                matches.append({"match": v.id, "side": v.side.value, "round": v.round,
                                "wave": v.wave, "teams": teams, "winner": v.winner,
                                "scores": dict(row.scores), "forfeit": row.forfeit})
            elif v.status in (Status.BYE, Status.FORFEIT):
                byes.append({"match": v.id, "side": v.side.value, "round": v.round,
                             "team": v.winner or None, "kind": v.status.value})
        out["rounds"] = [{"round": w, "tables": by_wave[w]} for w in sorted(by_wave)]
        out["bracket"] = matches
        out["byes"] = byes
        out["bracket_size"] = bracket.size
    out["tags"] = {e: t.tags.get(e, 0) for e in t.entries}
    out["eliminated"] = list(t.eliminated)
    out["places"] = list(t.places or ())
    purse = t.purse()
    out["money"] = {"collected": purse.collected, "prizes": list(purse.prizes),
                    "kept": purse.kept}
    return out


def teams_of(entries: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    return {e: list(m) for e, m in entries.items()}
