"""One table's session in a triple-elimination game: who wins and who loses, and in what
order a round's eliminated players go.

- Players are ranked by chips (or score). The table's size at the seating sets how many win
  (``TournamentGame.winners_for``). A player who forfeited, was disqualified or has no chips
  left cannot win (Bourré: losing all her chips is a loss).
- Players level across the winners' line are a tie for an extra game; its order (best first)
  is entered as its own result and decides.
- Every loser gets a game tag; the tag that reaches the game's limit eliminates.
- Players eliminated in the same round go in order of that round's chips (fewest first:
  they take the lower place), and level chips by an extra game.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.games import Measure, TournamentGame


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """A table's result as people read it: the ranking, who won, lost, or must play off."""

    round: int
    table: int
    players: tuple[str, ...]
    results: Mapping[str, int]
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    #: Level across the winners' line with no extra game entered yet.
    tied: tuple[str, ...]

    @property
    def decided(self) -> bool:
        return not self.tied


def check_result(game: TournamentGame, players: Sequence[str], results: Mapping[str, int],
                 unawarded: int, forfeits: Collection[str], *, where: str) -> None:
    """Raise unless ``results`` is a whole, balanced result for the table ``players``."""
    strangers = sorted(set(results) - set(players))
    if strangers:
        raise TournamentError(f"{where}: {', '.join(strangers)} did not play at this table "
                              f"(its players: {', '.join(players)})")
    missing = [p for p in players if p not in results]
    if missing:
        raise TournamentError(f"{where}: no result for {', '.join(missing)}: give every "
                              f"player's chips or score")
    odd = sorted(set(forfeits) - set(players))
    if odd:
        raise TournamentError(f"{where}: {', '.join(odd)} did not play at this table, so "
                              f"cannot forfeit there")
    for p, v in results.items():
        if type(v) is not int:
            raise TournamentError(f"{where}: {p}'s result must be a whole number, got {v!r}")
    if game.measure is Measure.CHIPS:
        verify_chips(game, players, results, unawarded, where=where)
    elif unawarded:
        raise TournamentError(f"{where}: {game.label} is scored, not played for chips: "
                              f"there are no unawarded chips")


def verify_chips(game: TournamentGame, players: Sequence[str], results: Mapping[str, int],
                 unawarded: int, *, where: str) -> None:
    """The chip check: the table's chips add up to what it was given for the round."""
    negative = sorted(p for p, v in results.items() if v < 0)
    if negative or unawarded < 0:
        raise TournamentError(f"{where}: chips cannot be negative "
                              f"({', '.join(negative) or 'unawarded'})")
    total = sum(results.values()) + unawarded
    expected = game.chips_for(len(players))
    if total != expected:
        held = (f"the players hold {sum(results.values())} and {unawarded} are unawarded: "
                f"{total}" if unawarded else f"the players hold {total}")
        short = expected - total
        raise TournamentError(
            f"{where}: the chips do not add up: {held}, but a {game.label} table of "
            f"{len(players)} plays for {expected} ({abs(short)} "
            f"{'missing' if short > 0 else 'too many'}); count them again before the round "
            f"can close")


def outcome(game: TournamentGame, round_no: int, table: int, players: Sequence[str],
            results: Mapping[str, int], *, out: Collection[str] = (),
            tie_order: Sequence[str] = ()) -> TableOutcome:
    """Winners and losers. ``out``: forfeited or disqualified players (they lose)."""
    allowed = game.winners_for(len(players)) if len(players) > 1 else 1
    can_win = [p for p in players if p not in out
               and (game.measure is Measure.SCORE or results[p] > 0)]
    ranked = sorted(can_win, key=lambda p: -results[p])
    wins = min(allowed, len(ranked))
    winners: list[str] = []
    tied: list[str] = []
    if wins:
        line = results[ranked[wins - 1]]
        winners = [p for p in ranked if results[p] > line]
        level = [p for p in ranked if results[p] == line]
        left = wins - len(winners)
        if len(level) == left:
            winners += level
        else:
            order = [p for p in tie_order if p in level]
            if sorted(order) == sorted(level):
                winners += order[:left]
            else:
                tied = level
    losers = tuple(p for p in players if p not in winners and p not in tied)
    return TableOutcome(round_no, table, tuple(players), dict(results),
                        tuple(p for p in players if p in winners), losers, tuple(tied))


def elimination_ties(newly: Sequence[str], chips: Mapping[str, int]) -> list[list[str]]:
    """Groups of players eliminated in the same round with the same chips."""
    groups: dict[int, list[str]] = {}
    for p in newly:
        groups.setdefault(chips[p], []).append(p)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def elimination_order(newly: Sequence[str], chips: Mapping[str, int],
                      tie_order: Sequence[str]) -> tuple[str, ...]:
    """First eliminated first: fewest chips, and among level chips the extra game's loser
    (``tie_order`` is best first)."""
    rank = {p: i for i, p in enumerate(tie_order)}
    return tuple(sorted(newly, key=lambda p: (chips[p], -rank.get(p, 0), p)))
