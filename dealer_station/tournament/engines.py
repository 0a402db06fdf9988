"""Tournament tables played on a game's own engine, found through the registry.

A tournament game that names an ``engine`` (``TournamentGame.engine``: a registered game's
name) has its tables played in a simulation by that game's ``tournament_tables`` part, a real
session of the game on its tournament rules (Bourré's). The tournament knows the game only
through the registry, as every shared package does.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from dealer_station import registry
from dealer_station.registry import Part
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.games import TournamentGame

#: One table's session: the players in seat order and the randomness -> each player's chips,
#: and the chips left unawarded on the table.
TablePlayer = Callable[[TournamentGame, Sequence[str], random.Random],
                       tuple[dict[str, int], int]]

#: Hands that stand in for a 30-minute session (about 90 seconds a hand); time is called
#: after them, and a hand under way is completed, as the rulebooks say.
DEFAULT_HANDS = 20


class PlaysTables(Protocol):
    """The game's tables for the tournament ``game``: ``hands`` a session, on the tournament
    rules of its configuration file ``config`` (None: the configuration folder's). Refuses
    (TournamentError) rules under which the tournament's chip check could never pass."""

    def __call__(self, game: TournamentGame, /, *, hands: int,
                 config: Path | None = None) -> TablePlayer: ...


TOURNAMENT_TABLES: Part[PlaysTables] = Part("tournament_tables", optional=True)


def table_player(game: TournamentGame, *, hands: int, config: Path | None = None
                 ) -> TablePlayer | None:
    """How the tables of ``game`` are played on its engine; None when it names none."""
    if not game.engine:
        return None
    found = registry.REGISTRY.get(game.engine)
    plays = found.supplies(TOURNAMENT_TABLES) if found is not None else None
    if plays is None:
        raise TournamentError(f"{game.label} names an engine {game.engine!r} this station "
                              f"does not have")
    return plays(game, hands=hands, config=config)
