"""Card knowledge by the size of the stakes (part of the card-knowledge rule,
``card-knowledge``): a seat whose *winning* First Card wagers are larger than its losing ones
beyond chance.

A player who knows the card may spread small chips over many spots, as cover, and load the
one that will win: its spots then name the first card about as often as they should (the hit
test of rules.py sees little), but its money does not. In each round where a seat holds First
Card wagers (Straight-up, Split, Three Cards, Corner), its *winning stake* is what it staked
on the spots that name the first card. Under a fair game the first card is any value with its
chance from the deck, whatever the seat staked, so the winning stake's law is exact: for each
value, the stakes of the spots naming it, with that value's chance. One test per seat,
:class:`~dealer_station.monitor.hold.WinCusum` on the winning stake against that law (the
"high" side: more than chance puts on the winner), with the card-knowledge rule's share of the
rate: its hit tests and these, one each a seat.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dealer_station.monitor.deck import VALUES, card_value, copies, deck_size
from dealer_station.monitor.hold import HIGH, WinCusum
from dealer_station.monitor.rounds import DealtRound, WinLaw
from dealer_station.monitor.rules import FIRST_CARD_KINDS

#: The departure the stake tests are designed for, in standard deviations of a round's
#: winning stake (a WinCusum's shift, as the dealer rule's).
STAKES_SHIFT = 0.5


def stakes_test(seat: int) -> str:
    """``card-knowledge:stakes:3``."""
    return f"card-knowledge:stakes:{seat}"


@dataclass
class StakeCrossing:
    """A seat's stake test that reached its threshold, before it restarts."""

    rule: str
    cusum: WinCusum
    seat: int

    @property
    def test(self) -> str:
        return stakes_test(self.seat)


def winning_stakes(rnd: DealtRound) -> dict[int, tuple[int, WinLaw, int]]:
    """Each seat with First Card wagers in the round: (its winning stake, that stake's law
    under a fair game, its First Card stakes in all)."""
    by_seat: dict[int, list[tuple[frozenset[str], int]]] = {}
    for w in rnd.wagers:
        if w.kind in FIRST_CARD_KINDS and w.values:
            by_seat.setdefault(w.seat, []).append((frozenset(w.values), w.amount))
    if not rnd.cards or not by_seat:
        return {}
    first = card_value(rnd.cards[0])
    size = deck_size(rnd.jokers)
    out: dict[int, tuple[int, WinLaw, int]] = {}
    for seat, spots in by_seat.items():
        law: dict[int, float] = {}
        for v in VALUES:
            won = sum(a for values, a in spots if v in values)
            law[won] = law.get(won, 0.0) + copies(v, rnd.jokers) / size
        stake = sum(a for values, a in spots if first in values)
        out[seat] = (stake, WinLaw(tuple(law), tuple(law.values())),
                     sum(a for _, a in spots))
    return out


class StakeSizeRule:
    """One test per seat (see the module)."""

    RULE = "card-knowledge"

    def __init__(self, h: float, shift: float) -> None:
        self.h, self.shift = h, shift
        self.by_seat: dict[int, WinCusum] = {}

    def statistics(self) -> Iterator[tuple[str, WinCusum]]:
        for seat, test in sorted(self.by_seat.items()):
            yield stakes_test(seat), test

    def observe(self, rnd: DealtRound) -> Iterator[StakeCrossing]:
        for seat, (stake, law, staked) in sorted(winning_stakes(rnd).items()):
            test = self.by_seat.get(seat)
            if test is None:
                test = self.by_seat[seat] = WinCusum(self.h, self.shift, HIGH)
            if test.update(stake, law, rnd.round_no, wagered=staked, dealer=rnd.dealer):
                yield StakeCrossing(self.RULE, test, seat)
