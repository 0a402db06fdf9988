"""The tournament categories: one game each, with its table size, chips, winners per table
size and kind of elimination, as the rulebooks set them (defaults; config/tournament.toml
may change any of them, see config.py).

The keys (``bourre``, ``pitty-pat``...) are what the command line and the journal use; the
labels are the rulebook's names. These are tournament categories, not the station's table
games (``dealer_station.registry``): a Bourré category names the Bourré game as its
``engine`` and plays its tables on it (``engines.py``), the others are results a judge enters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from dealer_station.tournament.errors import TournamentError


class Elimination(StrEnum):
    #: Game tags per lost session; the third eliminates (all but Pedro and Euchre).
    TRIPLE = "triple"
    #: A double-elimination bracket of teams: out after the second loss.
    DOUBLE = "double"


class Measure(StrEnum):
    #: Chips at the end of the session: they must add up to the table's allotment.
    CHIPS = "chips"
    #: A score (Rummy's points may be negative): no chip check.
    SCORE = "score"


@dataclass(frozen=True, slots=True)
class TournamentGame:
    key: str
    label: str
    #: People at one table (Pedro and Euchre: four, as two teams of two).
    table_size: int
    #: People per entry: 1, or 2 for a team.
    team_size: int = 1
    elimination: Elimination = Elimination.TRIPLE
    measure: Measure = Measure.CHIPS
    #: Chips each player holds at the start of a session (Bourré: 100 each).
    chips_per_player: int = 0
    #: Chips a table starts the round with, for the winners of its games (the others: 50).
    chips_per_table: int = 50
    #: (table size, winners) for every size from 1 to ``table_size``.
    winners: tuple[tuple[int, int], ...] = ()
    tags_to_eliminate: int = 3
    #: Players move to new tables at the end of this round (0: never, as in Pedro).
    move_after_round: int = 3
    #: Points that win a bracket match's game (Euchre 10, Pedro 62).
    game_points: int = 0
    #: Prize shares of the entry fees, in percent, for 1st, 2nd, 3rd...
    prize_shares: tuple[int, ...] = (50, 30, 20)
    #: The entry fee per person in minor units (the rulebook's $15.00), unless given.
    entry_fee: int = 1500
    #: Fewest entries (players or teams) that make a tournament.
    min_entries: int = 2
    #: The station's engine that plays this game's tables in a simulation ("": random
    #: results); see simulate.py.
    engine: str = ""

    @property
    def teams(self) -> bool:
        return self.team_size > 1

    @property
    def entries_per_table(self) -> int:
        """Entries (players, or teams) at one table."""
        return self.table_size // self.team_size

    def winners_for(self, size: int) -> int:
        for n, w in self.winners:
            if n == size:
                return w
        raise TournamentError(f"{self.label} has no winners count for a table of {size}")

    def chips_for(self, size: int) -> int:
        """The chips a table of ``size`` must account for at the end of a round."""
        return self.chips_per_player * size + self.chips_per_table

    def problems(self) -> list[tuple[str, str]]:
        """Every setting that cannot be played, as (key, reason)."""
        out: list[tuple[str, str]] = []
        if self.table_size < 2:
            out.append(("table_size", f"must be at least 2, got {self.table_size}"))
        if self.team_size not in (1, 2):
            out.append(("team_size", f"must be 1 or 2, got {self.team_size}"))
        elif self.table_size % self.team_size:
            out.append(("table_size", f"{self.table_size} people do not make teams of "
                                      f"{self.team_size}"))
        if self.teams and self.elimination is not Elimination.DOUBLE:
            out.append(("elimination", "teams play a double-elimination bracket"))
        if self.elimination is Elimination.TRIPLE:
            sizes = dict(self.winners)
            for n in range(2, self.table_size + 1):
                w = sizes.get(n)
                if w is None:
                    out.append(("winners", f"no count for a table of {n}"))
                elif not 1 <= w < n:
                    # At least one loser per table, or the tournament could never end.
                    out.append(("winners", f"a table of {n} must have 1 to {n - 1} winners, "
                                           f"got {w}"))
            if self.tags_to_eliminate < 1:
                out.append(("tags_to_eliminate", "must be at least 1"))
        elif self.game_points < 1:
            out.append(("game_points", "must be at least 1"))
        if self.chips_per_player < 0 or self.chips_per_table < 0:
            out.append(("chips_per_table", "chips cannot be negative"))
        if self.measure is Measure.CHIPS and self.elimination is Elimination.TRIPLE \
                and self.chips_for(2) < 1:
            out.append(("chips_per_table", "a table needs chips to play for"))
        if any(s < 0 for s in self.prize_shares) or sum(self.prize_shares) > 100:
            out.append(("prize_shares", f"shares must be 0 to 100 percent in all, got "
                                        f"{list(self.prize_shares)}"))
        if self.entry_fee < 0:
            out.append(("entry_fee", "cannot be negative"))
        if self.min_entries < 2:
            out.append(("min_entries", "a tournament needs at least 2 entries"))
        return out

    def to_data(self) -> dict[str, Any]:
        """The rules as journaled with the tournament (so a replay never reads config)."""
        return {
            "key": self.key, "label": self.label, "table_size": self.table_size,
            "team_size": self.team_size, "elimination": self.elimination.value,
            "measure": self.measure.value, "chips_per_player": self.chips_per_player,
            "chips_per_table": self.chips_per_table,
            "winners": {str(n): w for n, w in self.winners},
            "tags_to_eliminate": self.tags_to_eliminate,
            "move_after_round": self.move_after_round, "game_points": self.game_points,
            "prize_shares": list(self.prize_shares), "entry_fee": self.entry_fee,
            "min_entries": self.min_entries, "engine": self.engine,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> TournamentGame:
        game = cls(
            key=str(data["key"]), label=str(data["label"]), table_size=int(data["table_size"]),
            team_size=int(data["team_size"]), elimination=Elimination(data["elimination"]),
            measure=Measure(data["measure"]), chips_per_player=int(data["chips_per_player"]),
            chips_per_table=int(data["chips_per_table"]),
            winners=tuple(sorted((int(n), int(w)) for n, w in data["winners"].items())),
            tags_to_eliminate=int(data["tags_to_eliminate"]),
            move_after_round=int(data["move_after_round"]),
            game_points=int(data["game_points"]),
            prize_shares=tuple(int(s) for s in data["prize_shares"]),
            entry_fee=int(data["entry_fee"]), min_entries=int(data["min_entries"]),
            engine=str(data.get("engine", "")))
        problems = game.problems()
        if problems:
            raise TournamentError(f"the journaled rules of {game.label}: {problems[0][0]}: "
                                  f"{problems[0][1]}")
        return game


def _sizes(table_size: int, rule: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Winners for sizes 1..table_size from (smallest size, winners) steps."""
    out = []
    for n in range(1, table_size + 1):
        w = 1
        for least, count in rule:
            if n >= least:
                w = count
        out.append((n, w))
    return tuple(out)


#: The rulebooks' games. Sizes the rulebook leaves open are the station's defaults:
#: Pitty-Pat and Bourré 4 -> 2 like 5; Po-Ke-No 10-12 -> 3, 6-9 -> 2, under 6 -> 1.
DEFAULT_GAMES: tuple[TournamentGame, ...] = (
    TournamentGame("bourre", "Bourré", 5, chips_per_player=100, chips_per_table=0,
                   winners=_sizes(5, [(4, 2)]), engine="bourre"),
    TournamentGame("pitty-pat", "Pitty-Pat", 5, winners=_sizes(5, [(4, 2)])),
    TournamentGame("po-ke-no", "Po-Ke-No", 12, winners=_sizes(12, [(6, 2), (10, 3)])),
    TournamentGame("rummy", "Rummy", 4, winners=_sizes(4, [(4, 2)])),
    TournamentGame("pedro", "Pedro", 4, team_size=2, elimination=Elimination.DOUBLE,
                   measure=Measure.SCORE, chips_per_table=0, move_after_round=0,
                   game_points=62),
    # The Euchre rulebook: $10 a person, $20 a team; games to 10; prizes for 1st to 3rd.
    TournamentGame("euchre", "Euchre", 4, team_size=2, elimination=Elimination.DOUBLE,
                   measure=Measure.SCORE, chips_per_table=0, move_after_round=0,
                   game_points=10, entry_fee=1000),
)
