"""The rules: which tests each runs, what each observes in a round and its chance under a
fair game.

- **The shoe** (``shoe``): for each stage (card 1, 2 and 3) and each value (A..K, JK), one
  test of "the card is that value" with the exact chance the deck left gives it after the
  round's earlier cards; and for each stage one test per colour (red, black) likewise. 3 x 16
  = 48 tests.
- **Card knowledge** (``card-knowledge``): for each seat, in each round where it holds First
  Card wagers whose spots name values of the first card (Straight-up, Split, Three Cards,
  Corner), one test of "one of its spots names the first card's value", with the chance its
  spots give (the copies of the values they cover out of the full deck). One test per seat.
- **Dealers** (``dealer``): for each dealer, "the house wins less on the dealer's rounds than
  the wagers placed allow", on each round's computed win against the exact law of its win
  (:mod:`dealer_station.monitor.hold`). The dealers' tests look once a round together.
- **The table's hold** (``hold``): the house's win below or above its band, two tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dealer_station.monitor.cusum import Cusum
from dealer_station.monitor.deck import (
    COLOURS,
    VALUES,
    card_colour,
    card_value,
    copies,
    deck_size,
)
from dealer_station.monitor.hold import HIGH, LOW, Scored, WinCusum
from dealer_station.monitor.rounds import DealtRound, WinLaw

#: The wager kinds whose spots name values of the first card (La Pair'e's First Card spots).
FIRST_CARD_KINDS: frozenset[str] = frozenset({"straight", "split", "three", "corner"})
#: The cards the shoe rule watches: the three of a round.
STAGES: tuple[int, ...] = (1, 2, 3)


@dataclass
class Crossing:
    """A test that reached its threshold this round, before it restarts."""

    rule: str
    cusum: Cusum
    seat: int | None = None
    stage: int | None = None
    value: str | None = None
    colour: str | None = None

    @property
    def test(self) -> str:
        """The test's stable name: ``shoe:1:7``, ``shoe:2:red``, ``card-knowledge:3``."""
        return test_name(self.rule, seat=self.seat, stage=self.stage,
                         value=self.value, colour=self.colour)


def test_name(rule: str, *, seat: int | None = None, stage: int | None = None,
              value: str | None = None, colour: str | None = None) -> str:
    """A test's stable name (the alert's ``test``; the evidence page traces it)."""
    if seat is not None:
        return f"{rule}:{seat}"
    return f"{rule}:{stage}:{value if value is not None else colour}"


class ShoeRule:
    RULE = "shoe"

    def __init__(self, h: float, shift: float) -> None:
        self.values = {(n, v): Cusum(h, shift) for n in STAGES for v in VALUES}
        self.colours = {(n, c): Cusum(h, shift) for n in STAGES for c in COLOURS}

    @staticmethod
    def tests() -> int:
        return len(STAGES) * (len(VALUES) + len(COLOURS))

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for (n, v), test in self.values.items():
            yield test_name(self.RULE, stage=n, value=v), test
        for (n, c), test in self.colours.items():
            yield test_name(self.RULE, stage=n, colour=c), test

    def observe(self, rnd: DealtRound) -> Iterator[Crossing]:
        size = deck_size(rnd.jokers)
        values = [card_value(c) for c in rnd.cards]
        colours = [card_colour(c) for c in rnd.cards]
        for n in STAGES:
            if n > len(values):
                break
            before = n - 1
            left = size - before
            for v in VALUES:
                p0 = (copies(v, rnd.jokers) - values[:before].count(v)) / left
                test = self.values[(n, v)]
                if test.update(values[before] == v, p0, rnd.round_no, dealer=rnd.dealer):
                    yield Crossing(self.RULE, test, stage=n, value=v)
            for c in COLOURS:
                p0 = (26 - colours[:before].count(c)) / left
                test = self.colours[(n, c)]
                if test.update(colours[before] == c, p0, rnd.round_no, dealer=rnd.dealer):
                    yield Crossing(self.RULE, test, stage=n, colour=c)


class CardKnowledgeRule:
    """One test per seat. The false-alarm rate is shared between ``seats`` tests; a seat
    numbered above them is still tested (with the same threshold), so the stated rate holds
    for tables of at most ``seats`` seats."""

    RULE = "card-knowledge"

    def __init__(self, h: float, shift: float, seats: int) -> None:
        self.h, self.shift, self.seats = h, shift, seats
        self.by_seat: dict[int, Cusum] = {}

    def tests(self) -> int:
        return self.seats

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for seat, test in sorted(self.by_seat.items()):
            yield test_name(self.RULE, seat=seat), test

    def observe(self, rnd: DealtRound) -> Iterator[Crossing]:
        if not rnd.cards:
            return
        first = card_value(rnd.cards[0])
        covered: dict[int, set[str]] = {}
        staked: dict[int, int] = {}
        for w in rnd.wagers:
            if w.kind in FIRST_CARD_KINDS and w.values:
                covered.setdefault(w.seat, set()).update(w.values)
                staked[w.seat] = staked.get(w.seat, 0) + w.amount
        size = deck_size(rnd.jokers)
        for seat in sorted(covered):
            values = covered[seat]
            p0 = sum(copies(v, rnd.jokers) for v in values if v in VALUES) / size
            test = self.by_seat.get(seat)
            if test is None:
                test = self.by_seat[seat] = Cusum(self.h, self.shift)
            if test.update(first in values, p0, rnd.round_no, dealer=rnd.dealer,
                           stake=staked[seat]):
                yield Crossing(self.RULE, test, seat=seat)


def scored_round(rnd: DealtRound) -> Scored | None:
    """A round's house win scored against its law, where both are known (the monitor
    scores each round once for the dealer's and the hold's tests alike)."""
    if rnd.win is None or rnd.law is None:
        return None
    return Scored(rnd.win, rnd.law)


def _wins(rnd: DealtRound, scored: Scored | None) -> tuple[int, WinLaw, Scored] | None:
    if rnd.win is None or rnd.law is None:
        return None
    return rnd.win, rnd.law, scored if scored is not None else Scored(rnd.win, rnd.law)


@dataclass
class WinCrossing:
    """A dealer or hold test that reached its threshold, before it restarts."""

    rule: str
    cusum: WinCusum
    dealer: str | None = None

    @property
    def test(self) -> str:
        """``dealer:<user id>``, ``hold:low``, ``hold:high``."""
        if self.dealer is not None:
            return f"{self.rule}:{self.dealer}"
        return f"{self.rule}:{'low' if self.cusum.direction == LOW else 'high'}"


class DealerRule:
    """Dealers (``dealer``): for each dealer, one test of "the house wins less on this
    dealer's rounds than their wagers allow" (:class:`~dealer_station.monitor.hold.WinCusum`,
    one-sided). Each round is looked at by its own dealer's test only, so the dealers' tests
    together look once a round: the rule's rate needs no sharing between them (one test's
    threshold, however many dealers deal)."""

    RULE = "dealer"

    def __init__(self, h: float, shift: float) -> None:
        self.h, self.shift = h, shift
        self.by_dealer: dict[str, WinCusum] = {}

    @staticmethod
    def tests() -> int:
        return 1

    def statistics(self) -> Iterator[tuple[str, WinCusum]]:
        for dealer, test in sorted(self.by_dealer.items()):
            yield f"{self.RULE}:{dealer}", test

    def observe(self, rnd: DealtRound, scored: Scored | None = None
                ) -> Iterator[WinCrossing]:
        found = _wins(rnd, scored)
        if found is None or not rnd.dealer:
            return
        test = self.by_dealer.get(rnd.dealer)
        if test is None:
            test = self.by_dealer[rnd.dealer] = WinCusum(self.h, self.shift, LOW)
        win, law, scored = found
        if test.update(win, law, rnd.round_no, wagered=rnd.wagered, dealer=rnd.dealer,
                       scored=scored):
            yield WinCrossing(self.RULE, test, dealer=rnd.dealer)


class HoldRule:
    """The table's hold (``hold``): two one-sided tests of the house's win against the
    theoretical win of the wagers placed, "below its band" and "above its band"
    (:class:`~dealer_station.monitor.hold.WinCusum`)."""

    RULE = "hold"

    def __init__(self, h: float, shift: float) -> None:
        self.low = WinCusum(h, shift, LOW)
        self.high = WinCusum(h, shift, HIGH)

    @staticmethod
    def tests() -> int:
        return 2

    def statistics(self) -> Iterator[tuple[str, WinCusum]]:
        yield f"{self.RULE}:low", self.low
        yield f"{self.RULE}:high", self.high

    def observe(self, rnd: DealtRound, scored: Scored | None = None
                ) -> Iterator[WinCrossing]:
        found = _wins(rnd, scored)
        if found is None:
            return
        win, law, scored = found
        for test in (self.low, self.high):
            if test.update(win, law, rnd.round_no, wagered=rnd.wagered, dealer=rnd.dealer,
                           scored=scored):
                yield WinCrossing(self.RULE, test)
