"""The record kinds of a card tournament, journaled in the tournament's own chain
(``tournament-<name>``), beside and apart from any table's.

Every change to a tournament is one of these: its creation, an entry, the start (which closes
registration), each round's seating and the moves between tables, each table's result and the
extra games that break ties, the game tags and eliminations a round's close gives, each
bracket match and Euchre hand, a disqualification, a correction and the final places. The
journal record's actor says who; ``reason`` says why where a person decided it.

Pure: no database, Qt, serial or PDF library.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.events.base import Codec, Event, JsonObject, optional


@dataclass(frozen=True, slots=True)
class TournamentCreated(Event):
    KIND = "tournament.create"
    name: str
    game: str                      # the category: one game per tournament
    rules: JsonObject              # the game's rules as configured when it was created
    entry_fee: int                 # per person, in minor units
    prizes: tuple[int, ...]        # 1st, 2nd, 3rd... in minor units
    seed: int                      # the draw's seed: seating is repeatable
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class EntryRegistered(Event):
    KIND = "tournament.entry"
    entry: str                     # a player, or a team's name
    members: tuple[str, ...]       # the people (one, or a team's two)
    fee: int                       # collected, in minor units
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class TournamentStarted(Event):
    """Games begin: registration is closed, and the draw is made (``order``: seed 1 first)."""

    KIND = "tournament.start"
    order: tuple[str, ...]
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class RoundSeated(Event):
    KIND = "tournament.seating"
    round: int
    tables: tuple[tuple[str, ...], ...]   # table 1 first; players in seat order
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class PlayersMoved(Event):
    """Players sent to new tables (the move at the end of round 3, or a re-balance)."""

    KIND = "tournament.move"
    round: int                     # the round they move for
    moves: JsonObject              # player -> [from table, to table]
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class TableResult(Event):
    KIND = "tournament.result"
    round: int
    table: int
    results: JsonObject            # player -> chips (or score) at the end of the session
    unawarded: int = 0             # chips on the table no player holds (a carried pot)
    forfeits: tuple[str, ...] = ()  # players who forfeited the session (each a loss)
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class ResultCorrected(Event):
    """A table's result replaced before its round closed."""

    KIND = "tournament.correct"
    SIGNIFICANT = True
    round: int
    table: int
    results: JsonObject
    unawarded: int = 0
    forfeits: tuple[str, ...] = ()
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class TieBroken(Event):
    """The extra game that ordered tied players, best first. ``table`` 0: the order of players
    eliminated in the same round with the same chips."""

    KIND = "tournament.tiebreak"
    round: int
    table: int
    order: tuple[str, ...]
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class GameTagged(Event):
    KIND = "tournament.tag"
    round: int
    player: str
    tags: int                      # the player's tags with this one
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class PlayerEliminated(Event):
    KIND = "tournament.eliminate"
    round: int
    player: str
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class RoundClosed(Event):
    KIND = "tournament.round.close"
    round: int
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class MatchResult(Event):
    """A bracket match decided: by its scores, or by a forfeit (``forfeit``: the loser's)."""

    KIND = "tournament.match"
    match: str
    scores: JsonObject             # team -> points
    winner: str
    forfeit: bool = False
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class MatchCorrected(Event):
    """A match's result replaced while no later match depends on it."""

    KIND = "tournament.match.correct"
    SIGNIFICANT = True
    match: str
    scores: JsonObject
    winner: str
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class EuchreHandScored(Event):
    """One hand of a Euchre match, as the score sheet has it."""

    KIND = "tournament.euchre.hand"
    match: str
    hand: int
    dealer: int                    # seat 0-3 (teams sit 0/2 and 1/3)
    makers: str                    # the team that called trump
    tricks: int                    # the makers' tricks
    alone: bool
    points: JsonObject             # team -> points this hand
    renege: str | None = optional()   # the offending team
    lead_out_of_turn: bool = False
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class Disqualified(Event):
    KIND = "tournament.disqualify"
    SIGNIFICANT = True
    entry: str
    round: int                     # the round (or bracket wave) it happened in
    reason: str | None = optional()


@dataclass(frozen=True, slots=True)
class TournamentFinished(Event):
    KIND = "tournament.finish"
    places: tuple[str, ...]        # first to last
    reason: str | None = optional()


TOURNAMENT_EVENTS: tuple[type[Event], ...] = (
    TournamentCreated, EntryRegistered, TournamentStarted, RoundSeated, PlayersMoved,
    TableResult, ResultCorrected, TieBroken, GameTagged, PlayerEliminated, RoundClosed,
    MatchResult, MatchCorrected, EuchreHandScored, Disqualified, TournamentFinished,
)


def codec() -> Codec:
    return Codec(TOURNAMENT_EVENTS)
