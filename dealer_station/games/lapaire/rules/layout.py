"""The La Pair'e layout: 14 card values and which of them a chip may cover together.

```
      2  3  4  5  6  7
  A                      JK
      8  9  10 J  Q  K
```

The Ace's area touches 2 and 8; the Joker's touches 7 and K. Every legal First Card spot is a
frozenset of values; the geometry is fixed, while prices and which spots are offered live in
the table configuration.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

from dealer_station.cards import JOKER, VALUES

TOP_ROW: tuple[str, ...] = ("2", "3", "4", "5", "6", "7")
BOTTOM_ROW: tuple[str, ...] = ("8", "9", "10", "J", "Q", "K")
ACE = "A"

Spot = frozenset[str]

#: Position of each value in VALUES: the canonical order for showing a spot's values.
VALUE_ORDER: dict[str, int] = {v: i for i, v in enumerate(VALUES)}


def _adjacent_pairs() -> frozenset[Spot]:
    pairs: set[Spot] = set()
    for row in (TOP_ROW, BOTTOM_ROW):
        pairs.update(frozenset(p) for p in pairwise(row))
    pairs.update(frozenset(p) for p in zip(TOP_ROW, BOTTOM_ROW, strict=True))
    # The end areas touch both rows.
    pairs.update({frozenset((ACE, TOP_ROW[0])), frozenset((ACE, BOTTOM_ROW[0]))})
    pairs.update({frozenset((JOKER, TOP_ROW[-1])), frozenset((JOKER, BOTTOM_ROW[-1]))})
    return frozenset(pairs)


#: Every pair of values that touch on the layout (20 pairs).
ADJACENT: frozenset[Spot] = _adjacent_pairs()

STRAIGHT_SPOTS: frozenset[Spot] = frozenset(frozenset((v,)) for v in VALUES)
SPLIT_SPOTS: frozenset[Spot] = ADJACENT
#: The two three-value spots where an end area meets both rows.
THREE_SPOTS: frozenset[Spot] = frozenset({
    frozenset((ACE, TOP_ROW[0], BOTTOM_ROW[0])),
    frozenset((TOP_ROW[-1], BOTTOM_ROW[-1], JOKER)),
})
#: Every 2x2 block of the two rows (2-3-8-9 ... 6-7-Q-K).
CORNER_SPOTS: frozenset[Spot] = frozenset(
    frozenset((TOP_ROW[i], TOP_ROW[i + 1], BOTTOM_ROW[i], BOTTOM_ROW[i + 1]))
    for i in range(len(TOP_ROW) - 1)
)

#: The First Card bet kinds and the spots each may cover.
FIRST_CARD_SPOTS: dict[str, frozenset[Spot]] = {
    "straight": STRAIGHT_SPOTS,
    "split": SPLIT_SPOTS,
    "three": THREE_SPOTS,
    "corner": CORNER_SPOTS,
}
#: How many values each kind of spot covers.
SPOT_SIZE: dict[str, int] = {"straight": 1, "split": 2, "three": 3, "corner": 4, "lapaire": 1}
#: Example spots, for error messages that show what a legal spot looks like.
SPOT_EXAMPLES: dict[str, str] = {
    "straight": "any one value, e.g. K or JK",
    "split": "two adjacent values, e.g. 2-3, 2-8, A-2 or 7-JK",
    "three": "A-2-8 or 7-K-JK",
    "corner": "a 2x2 block, e.g. 2-3-8-9 or 6-7-Q-K",
    "lapaire": "any one value, e.g. K or JK",
}


def neighbours(value: str) -> frozenset[str]:
    """The values that touch ``value`` on the layout."""
    return frozenset(v for pair in ADJACENT if value in pair for v in pair if v != value)


def sort_values(values: Iterable[str]) -> tuple[str, ...]:
    """Values in layout order (A, 2 .. K, JK), the canonical order for keys and labels."""
    return tuple(sorted(values, key=VALUE_ORDER.__getitem__))


def spot_label(values: Iterable[str]) -> str:
    """``"7-K-JK"``: the spot's values in canonical order, joined by dashes."""
    return "-".join(sort_values(values))


def legal_spots(kind: str) -> frozenset[Spot]:
    """The spots a bet of ``kind`` may cover; La Pair'e Card spots are the 14 single values."""
    if kind == "lapaire":
        return STRAIGHT_SPOTS
    return FIRST_CARD_SPOTS[kind]


def is_legal_spot(kind: str, values: Iterable[str]) -> bool:
    return frozenset(values) in legal_spots(kind)


def spots_in_order(kind: str) -> tuple[tuple[str, ...], ...]:
    """The legal spots of ``kind`` as canonical value tuples, in a stable layout order."""
    return tuple(sorted((sort_values(s) for s in legal_spots(kind)),
                        key=lambda vs: [VALUE_ORDER[v] for v in vs]))
