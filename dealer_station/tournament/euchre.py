"""Euchre scored hand by hand, as the Euchre tournament's rulebook scores it.

- Makers (the team that called trump) taking 3 or 4 tricks score 1; all 5 score 2, or 4 when
  one of them went alone.
- Makers taking fewer than 3 are euchred: the defenders score 2 (alone or not).
- A renege ends the hand: the offending team loses its bid and the other team scores 2.
- A lead out of turn ends the hand: nobody scores, and the deal moves on.
- The first team to 10 wins the game (13 is the most a game can reach: 9 + 4).

The deal passes to the left after every hand. Seats 0-3; team A sits 0 and 2, team B 1 and 3.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.tournament.errors import TournamentError

GAME_POINTS = 10


@dataclass(frozen=True, slots=True)
class EuchreHand:
    makers: str
    tricks: int                      # the makers' tricks, 0-5
    alone: bool = False
    renege: str | None = None        # the team that reneged
    lead_out_of_turn: bool = False


@dataclass(frozen=True, slots=True)
class SheetLine:
    """One line of the score sheet."""

    hand: int
    dealer: int
    makers: str
    tricks: int
    alone: bool
    renege: str | None
    lead_out_of_turn: bool
    points: tuple[tuple[str, int], ...]     # (team, points this hand)
    totals: tuple[tuple[str, int], ...]     # (team, score after the hand)
    what: str


class EuchreGame:
    """One game between two teams: ``verify_hand`` / ``can_hand`` / ``hand``."""

    def __init__(self, team_a: str, team_b: str, *, target: int = GAME_POINTS,
                 first_dealer: int = 0) -> None:
        if team_a == team_b:
            raise TournamentError("a Euchre game is played by two different teams")
        self.teams = (team_a, team_b)
        self.target = target
        self.scores = {team_a: 0, team_b: 0}
        self.dealer = first_dealer % 4
        self.sheet: list[SheetLine] = []

    @property
    def winner(self) -> str | None:
        for team, score in self.scores.items():
            if score >= self.target:
                return team
        return None

    def other(self, team: str) -> str:
        a, b = self.teams
        return b if team == a else a

    def verify_hand(self, hand: EuchreHand) -> None:
        if self.winner is not None:
            raise TournamentError(f"the game is over: {self.winner} reached {self.target}")
        if hand.makers not in self.teams:
            raise TournamentError(f"makers {hand.makers!r} is not a team of this game "
                                  f"({' v '.join(self.teams)})")
        if not 0 <= hand.tricks <= 5:
            raise TournamentError(f"the makers take 0 to 5 tricks, not {hand.tricks}")
        if hand.renege is not None and hand.renege not in self.teams:
            raise TournamentError(f"renege by {hand.renege!r}: not a team of this game")

    def can_hand(self, hand: EuchreHand) -> bool:
        try:
            self.verify_hand(hand)
        except TournamentError:
            return False
        return True

    def points(self, hand: EuchreHand) -> tuple[dict[str, int], str]:
        """Points per team for ``hand`` and what happened, in words."""
        makers, defenders = hand.makers, self.other(hand.makers)
        out = {makers: 0, defenders: 0}
        if hand.renege is not None:
            out[self.other(hand.renege)] = 2
            return out, f"renege by {hand.renege}: hand over, 2 to {self.other(hand.renege)}"
        if hand.lead_out_of_turn:
            return out, "lead out of turn: hand over, no score, the deal moves on"
        if hand.tricks < 3:
            out[defenders] = 2
            return out, f"{makers} euchred: 2 to {defenders}"
        if hand.tricks == 5:
            out[makers] = 4 if hand.alone else 2
            return out, f"{makers} march{' alone' if hand.alone else ''}: {out[makers]}"
        out[makers] = 1
        return out, f"{makers} make it with {hand.tricks}: 1"

    def hand(self, hand: EuchreHand) -> SheetLine:
        self.verify_hand(hand)
        points, what = self.points(hand)
        for team, p in points.items():
            self.scores[team] += p
        line = SheetLine(len(self.sheet) + 1, self.dealer, hand.makers, hand.tricks,
                         hand.alone, hand.renege, hand.lead_out_of_turn,
                         tuple((t, points[t]) for t in self.teams),
                         tuple((t, self.scores[t]) for t in self.teams), what)
        self.sheet.append(line)
        self.dealer = (self.dealer + 1) % 4
        return line
