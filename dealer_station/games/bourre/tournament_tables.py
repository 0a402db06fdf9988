"""Bourré tournament tables played on the station's Bourré engine: the game's
``tournament_tables`` part (``dealer_station/tournament/engines.py``).

Each table's session is a real ``BourreSession`` on the tournament rule profile (100 chips
each), its hands dealt and played by ``random_play.play_random_hand`` through the real
``BourreHand``; ``hands`` hands stand in for the 30 minutes (time is called after them, and
a hand under way is completed, as the rulebook says). The session's chips per player are the
table's result; the pot left on the table is the round's unawarded chips, so the tournament's
chip check sees every chip the table began with.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.random_play import play_random_hand
from dealer_station.games.bourre.rules.session import BourreSession
from dealer_station.tournament.engines import DEFAULT_HANDS, TablePlayer
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.games import TournamentGame

#: The profile of the configuration file that a tournament's tables play.
TOURNAMENT_PROFILE = "tournament"


@dataclass(frozen=True, slots=True)
class PlayedTable:
    chips: Mapping[str, int]
    unawarded: int           # the pot still on the table (and any house collection)
    hands: int


def check_profile(game: TournamentGame, profile: BourreProfile) -> None:
    if profile.session_chips != game.chips_per_player:
        raise TournamentError(
            f"the Bourré profile {profile.name!r} starts a session with "
            f"{profile.session_chips} chips but the {game.label} tournament gives "
            f"{game.chips_per_player}: the chip check could never pass")
    if game.table_size > profile.max_players:
        raise TournamentError(f"the Bourré profile {profile.name!r} seats at most "
                              f"{profile.max_players}, the tournament's tables "
                              f"{game.table_size}")


def play_table(profile: BourreProfile, players: Sequence[str], rng: random.Random, *,
               hands: int = DEFAULT_HANDS) -> PlayedTable:
    """One table's session: ``players`` in seat order, the first dealer drawn at random."""
    seats = list(range(1, len(players) + 1))
    session = BourreSession(profile, seats, rng.choice(seats),
                            players=dict(zip(seats, players, strict=True)))
    played = 0
    while not session.is_over():
        if played >= hands:
            session.call_time()
            continue
        play_random_hand(session.start_hand(), rng)
        session.finish_hand()
        played += 1
    chips = {session.players[s]: c for s, c in session.chips.items()}
    return PlayedTable(chips, session.pot + session.house, played)


def tournament_tables(game: TournamentGame, /, *, hands: int,
                      config: Path | None = None) -> TablePlayer:
    """The tables of the tournament ``game``, each a session on the ``tournament`` profile
    of ``config`` (None: ``bourre.toml`` in the configuration folder)."""
    profile = load_bourre_profiles(config).get(TOURNAMENT_PROFILE)
    if profile is None:
        raise TournamentError(f"the Bourré configuration has no {TOURNAMENT_PROFILE!r} profile")
    return tables_of(profile, game, hands)


def tables_of(profile: BourreProfile, game: TournamentGame, hands: int) -> TablePlayer:
    """The tables of ``game`` on ``profile`` (refused if its chips cannot add up)."""
    check_profile(game, profile)

    def play(_game: TournamentGame, players: Sequence[str],
             rng: random.Random) -> tuple[dict[str, int], int]:
        table = play_table(profile, players, rng, hands=hands)
        return dict(table.chips), table.unawarded
    return play
