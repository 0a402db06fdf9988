"""Seating: tables filled as equally as possible up to the game's table size, by a seeded
draw that anyone holding the seed can repeat.

23 Bourré players (tables of 5) sit 5, 5, 5, 4, 4: the fewest tables that hold everyone, the
larger tables first. With tables of three or more, nobody is ever seated alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dealer_station.tournament.errors import TournamentError


def table_count(players: int, table_size: int) -> int:
    """The fewest tables of at most ``table_size`` for ``players``. With tables of three or
    more this never seats anyone alone when two or more play (the sizes differ by one)."""
    if players < 1:
        return 0
    return -(-players // table_size)


def table_sizes(players: int, table_size: int) -> tuple[int, ...]:
    """Sizes that differ by at most one, larger tables first: 23 by 5 -> (5, 5, 5, 4, 4)."""
    count = table_count(players, table_size)
    if count == 0:
        return ()
    base, extra = divmod(players, count)
    return tuple(base + 1 if i < extra else base for i in range(count))


def draw(players: Sequence[str], seed: int, label: str) -> tuple[str, ...]:
    """A repeatable random order of ``players``: the same seed and label give the same draw
    whatever order the players were listed in."""
    order = sorted(players)
    random.Random(f"{seed}/{label}").shuffle(order)
    return tuple(order)


def seat(order: Sequence[str], table_size: int) -> tuple[tuple[str, ...], ...]:
    """Deal ``order`` into tables: the first players drawn fill table 1, and so on."""
    if len(set(order)) != len(order):
        raise TournamentError("a player is listed twice for the seating")
    tables = []
    at = 0
    for size in table_sizes(len(order), table_size):
        tables.append(tuple(order[at:at + size]))
        at += size
    return tuple(tables)


def balanced(tables: Sequence[Sequence[str]], table_size: int) -> bool:
    """The tables are as many as the players need and differ by at most one."""
    sizes = [len(t) for t in tables if t]
    if not sizes:
        return True
    return (len(sizes) == table_count(sum(sizes), table_size)
            and max(sizes) - min(sizes) <= 1 and max(sizes) <= table_size)


def moves(before: Sequence[Sequence[str]],
          after: Sequence[Sequence[str]]) -> dict[str, tuple[int, int]]:
    """Player -> (old table, new table), tables numbered from 1, for those who change."""
    old = {p: i for i, t in enumerate(before, 1) for p in t}
    return {p: (old[p], i) for i, t in enumerate(after, 1) for p in t
            if p in old and old[p] != i}
