"""The shoe's sequence (part of the shoe rule, ``shoe``): serial dependence between the cards
the shoe deals one after another, within a round and from one round to the next.

A shoe that repeats itself (a deck not shuffled between rounds, a stacked sequence) or deals
in order (a sorted or barely shuffled deck) deals each card *in relation to the one before
it*, which the value tests (rules.py) cannot see: every value may still come out as often as
the deck allows. For each card of the round (1, 2, 3) two tests, against the card the shoe
dealt just before it (the round's previous card; for card 1, the previous round's last card):

- ``repeat``: the card has the same value;
- ``next``: the card has the next value (A, 2 .. 10, J, Q, K, then A again; nothing follows a
  Joker, and a Joker follows nothing).

Each is a Bernoulli look with its exact chance under a fresh, shuffled deck each round: the
copies of that value left after the round's earlier cards, over the cards left (deck.py), and
the same CUSUM (cusum.py) as the value tests. 3 x 2 = 6 tests, sharing the shoe rule's rate
with its value and colour tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from dealer_station.monitor.cusum import Cusum
from dealer_station.monitor.deck import card_value, copies, deck_size
from dealer_station.monitor.rounds import DealtRound
from dealer_station.monitor.rules import STAGES, Crossing

#: The ranks in order: a sorted deck deals one after another.
ORDER: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
KINDS: tuple[str, ...] = ("repeat", "next")
#: What each kind says the card did.
KIND_WORDS: dict[str, str] = {"repeat": "repeated the value of the card dealt before it",
                              "next": "was the next value after the card dealt before it"}


def following(value: str) -> str | None:
    """The value after ``value`` in a sorted deck (K -> A); None after a Joker."""
    if value not in ORDER:
        return None
    return ORDER[(ORDER.index(value) + 1) % len(ORDER)]


def sequence_test(stage: int, kind: str) -> str:
    """``shoe:sequence:2:next``."""
    return f"shoe:sequence:{stage}:{kind}"


@dataclass
class SequenceCrossing(Crossing):
    kind: str = "repeat"

    @property
    def test(self) -> str:
        return sequence_test(self.stage or 0, self.kind)


class SequenceRule:
    """The shoe's sequence tests (see the module). They look from the second card the shoe
    deals on: the first has no card before it."""

    RULE = "shoe"

    def __init__(self, h: float, shift: float) -> None:
        self.by_test = {(n, k): Cusum(h, shift) for n in STAGES for k in KINDS}
        #: The value of the last card the shoe dealt (the previous round's last).
        self.last: str | None = None

    @staticmethod
    def tests() -> int:
        return len(STAGES) * len(KINDS)

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for (n, k), test in self.by_test.items():
            yield sequence_test(n, k), test

    def observe(self, rnd: DealtRound) -> Iterator[Crossing]:
        values = [card_value(c) for c in rnd.cards]
        size = deck_size(rnd.jokers)
        for n, value in enumerate(values[:len(STAGES)], start=1):
            before = values[n - 2] if n > 1 else self.last
            if before is None:
                continue
            earlier = values[:n - 1]
            for kind, target in (("repeat", before), ("next", following(before))):
                if target is None:
                    continue
                p0 = (copies(target, rnd.jokers) - earlier.count(target)) / (size - n + 1)
                test = self.by_test[(n, kind)]
                if test.update(value == target, p0, rnd.round_no, dealer=rnd.dealer):
                    yield SequenceCrossing(self.RULE, test, stage=n, kind=kind)
        if values:
            self.last = values[-1]
