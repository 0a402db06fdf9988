"""``config/tournament.toml``: the categories' settings over the rulebooks' defaults.

Each ``[games.<key>]`` table changes the keys it names; a key left out keeps the rulebook's
value, an unknown key or game is an error naming the file, the key and the reason (as every
configuration file of the station). Pure: stdlib TOML only.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from dealer_station.tomlconfig import ConfigError, Section, load_toml
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.games import (
    DEFAULT_GAMES,
    Elimination,
    Measure,
    TournamentGame,
)

FILE = "tournament.toml"


def default_games() -> dict[str, TournamentGame]:
    return {g.key: g for g in DEFAULT_GAMES}


def load_games(path: Path | str | None) -> dict[str, TournamentGame]:
    """The categories as ``path`` sets them (None: the rulebooks' defaults alone)."""
    if path is None:
        return default_games()
    return parse_games(load_toml(path), str(path))


def parse_games(data: dict[str, Any], file: str) -> dict[str, TournamentGame]:
    root = Section(data, file)
    games = default_games()
    for key, section in root.sections("games"):
        base = games.get(key)
        if base is None:
            raise ConfigError(file, section.path, f"unknown game {key!r}: the categories are "
                                                  f"{', '.join(games)}")
        games[key] = _parse_game(base, section)
    root.finish()
    return games


def _parse_game(base: TournamentGame, s: Section) -> TournamentGame:
    changes: dict[str, Any] = {}
    if s.has("label"):
        changes["label"] = s.str("label")
    for name in ("table_size", "team_size", "chips_per_player", "chips_per_table",
                 "tags_to_eliminate", "move_after_round", "game_points", "entry_fee",
                 "min_entries"):
        if s.has(name):
            changes[name] = s.int(name, minimum=0)
    if s.has("elimination"):
        changes["elimination"] = Elimination(
            s.str("elimination", choices=tuple(e.value for e in Elimination)))
    if s.has("measure"):
        changes["measure"] = Measure(s.str("measure", choices=tuple(m.value for m in Measure)))
    if s.has("prize_shares"):
        shares = s.list("prize_shares")
        if not all(type(x) is int for x in shares):
            raise s.error("prize_shares", f"must be whole percents, got {shares!r}")
        changes["prize_shares"] = tuple(shares)
    if s.has("winners"):
        raw = s.raw("winners")
        if not isinstance(raw, dict):
            raise s.error("winners", "must be a table of table size = winners, "
                                     "e.g. { 4 = 2, 5 = 2 }")
        winners = dict(base.winners)
        for size, count in raw.items():
            if not size.isdigit() or type(count) is not int:
                raise s.error(f"winners.{size}", f"must be a table size = a whole number of "
                                                 f"winners, got {size} = {count!r}")
            winners[int(size)] = count
        changes["winners"] = tuple(sorted(winners.items()))
    s.finish()
    game = replace(base, **changes)
    if "table_size" in changes and "winners" not in changes and base.winners:
        # A larger table than the rulebook's keeps its biggest size's count for the new sizes.
        last = dict(base.winners)
        top = max(last)
        game = replace(game, winners=tuple((n, last.get(n, last[top]))
                                           for n in range(1, game.table_size + 1)))
    problems = game.problems()
    if problems:
        key, reason = problems[0]
        raise s.error(key, reason)
    return game


def game_for(games: dict[str, TournamentGame], key: str) -> TournamentGame:
    game = games.get(key)
    if game is None:
        raise TournamentError(f"unknown game {key!r}: the tournament categories are "
                              f"{', '.join(games)}")
    return game
