"""Bourré tournament tables played on the station's Bourré engine.

Each table's session is a real ``BourreSession`` on the tournament rule profile (100 chips
each), its hands dealt and played by ``bourre_random.play_random_hand`` through the real
``BourreHand``; ``hands`` hands stand in for the 30 minutes (time is called after them, and
a hand under way is completed, as the rulebook says). The session's chips per player are the
table's result; the pot left on the table is the round's unawarded chips, so the tournament's
chip check sees every chip the table began with.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.random_play import play_random_hand
from dealer_station.games.bourre.rules.session import BourreSession
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.games import TournamentGame

#: The ``engine`` name a tournament game gives to be played here.
ENGINE = "bourre"
#: Hands that stand in for a 30-minute session (about 90 seconds a hand).
DEFAULT_HANDS = 20


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
