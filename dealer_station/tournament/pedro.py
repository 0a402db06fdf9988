"""Pedro scored hand by hand, as the tournament rulebook's PEDRO section scores it: the
bidding team adds its points when it makes its bid and loses the bid when it does not; the
other team always scores the points it took. 14 points are in play in a hand; bids run 7 to
14. The game's length is not in the rulebook: ``game_points`` (62 by default, config).
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.tournament.errors import TournamentError

POINTS_IN_PLAY = 14
LOWEST_BID = 7


@dataclass(frozen=True, slots=True)
class PedroHand:
    bidder: str
    bid: int
    made: int                 # the bidding team's points; the others took 14 - made


def score_hand(teams: tuple[str, str], hand: PedroHand) -> dict[str, int]:
    if hand.bidder not in teams:
        raise TournamentError(f"bidder {hand.bidder!r} is not a team of this game")
    if not LOWEST_BID <= hand.bid <= POINTS_IN_PLAY:
        raise TournamentError(f"a bid is {LOWEST_BID} to {POINTS_IN_PLAY}, not {hand.bid}")
    if not 0 <= hand.made <= POINTS_IN_PLAY:
        raise TournamentError(f"a team takes 0 to {POINTS_IN_PLAY} points, not {hand.made}")
    other = teams[1] if hand.bidder == teams[0] else teams[0]
    gain = hand.made if hand.made >= hand.bid else -hand.bid
    return {hand.bidder: gain, other: POINTS_IN_PLAY - hand.made}
