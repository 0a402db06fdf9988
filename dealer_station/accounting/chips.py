"""Chips by denomination: what a tray holds, a fill brings, a credit takes away.

A count is written ``500x20,2500x8`` (denomination in minor units ``x`` number of chips) or, as
the value of one denomination, ``500=10000`` (which must be a whole number of 500 chips).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from dealer_station.errors import StationError


class ChipsError(StationError, ValueError):
    """A chip count that cannot be taken: the message names the part and why."""


@dataclass(frozen=True, slots=True)
class Chips:
    """Chip counts by denomination (minor units), denominations ascending, counts >= 0."""

    counts: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, counts: Mapping[int, int] | Iterable[tuple[int, int]]) -> Chips:
        items = counts.items() if isinstance(counts, Mapping) else counts
        merged: dict[int, int] = {}
        for denom, n in items:
            if type(denom) is not int or denom <= 0:
                raise ChipsError(f"bad denomination {denom!r}: a whole number of minor units "
                                 f"above 0")
            if type(n) is not int or n < 0:
                raise ChipsError(f"bad count {n!r} of {denom} chips: a whole number >= 0")
            merged[denom] = merged.get(denom, 0) + n
        return cls(tuple(sorted(merged.items())))

    @property
    def total(self) -> int:
        return sum(d * n for d, n in self.counts)

    @property
    def chip_count(self) -> int:
        return sum(n for _, n in self.counts)

    def count(self, denom: int) -> int:
        return dict(self.counts).get(denom, 0)

    def as_dict(self) -> dict[int, int]:
        return dict(self.counts)

    def to_payload(self) -> dict[str, int]:
        """JSON form: ``{"500": 20}`` (denominations as text keys, zero counts left out)."""
        return {str(d): n for d, n in self.counts if n}

    @classmethod
    def from_payload(cls, data: Mapping[str, object]) -> Chips:
        try:
            return cls.of((int(k), v) for k, v in data.items())  # type: ignore[misc]
        except (TypeError, ValueError) as e:
            raise ChipsError(f"a stored chip count is not denomination -> count: {e}") from None

    def plus(self, other: Chips) -> Chips:
        return Chips.of(list(self.counts) + list(other.counts))

    def minus(self, other: Chips) -> Chips:
        have = self.as_dict()
        for d, n in other.counts:
            if have.get(d, 0) < n:
                raise ChipsError(f"{n} chips of {d} asked for, {have.get(d, 0)} there")
            have[d] = have.get(d, 0) - n
        return Chips.of(have)

    def __str__(self) -> str:
        return ",".join(f"{d}x{n}" for d, n in self.counts if n) or "none"


def parse_chips(text: str, denominations: Iterable[int], *, what: str = "chips",
                allow_empty: bool = False) -> Chips:
    """``500x20,2500x8`` or ``500=10000`` into :class:`Chips`, every denomination one of
    ``denominations``; refuses a count that is not a whole number of chips."""
    allowed = sorted(set(denominations))
    shown = ", ".join(str(d) for d in allowed)
    if not isinstance(text, str) or not text.strip():
        if allow_empty:
            return Chips()
        raise ChipsError(f"{what}: give chips as DENOMINATIONxCOUNT, e.g. 500x20,2500x8")
    seen: dict[int, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            raise ChipsError(f"{what}: an empty entry in {text!r}")
        by_value = "=" in part
        left, sep, right = part.partition("=" if by_value else "x")
        if not sep or not left.strip().isdigit() or not right.strip().isdigit():
            raise ChipsError(f"{what}: {part!r} is not DENOMINATIONxCOUNT (e.g. 500x20) or "
                             f"DENOMINATION=VALUE (e.g. 500=10000), whole numbers of minor "
                             f"units")
        denom, number = int(left), int(right)
        if denom not in allowed:
            raise ChipsError(f"{what}: {denom} is not a chip denomination of this casino "
                             f"(configured: {shown})")
        if denom in seen:
            raise ChipsError(f"{what}: denomination {denom} is given twice")
        if by_value:
            if number % denom:
                raise ChipsError(f"{what}: {number} is not a whole number of {denom} chips "
                                 f"({number // denom} chips make {number // denom * denom})")
            number //= denom
        seen[denom] = number
    chips = Chips.of(seen)
    if not allow_empty and chips.total == 0:
        raise ChipsError(f"{what}: no chips given (every count is 0)")
    return chips


def check_denominations(chips: Chips, denominations: Iterable[int], what: str, *,
                        kind: str = "chip") -> None:
    """Refuse chips (or notes: ``kind``) of a denomination that is not configured."""
    allowed = set(denominations)
    for d, _ in chips.counts:
        if d not in allowed:
            raise ChipsError(f"{what}: {d} is not a {kind} denomination of this casino "
                             f"(configured: {', '.join(str(x) for x in sorted(allowed))})")


def chips_from_counts(fields: Mapping[int, str], denominations: Iterable[int], *,
                      what: str = "chips", allow_empty: bool = False,
                      shown: Callable[[int], str] = str) -> Chips:
    """Chips from one typed count per denomination (a screen's fields: ``{500: "20"}``); an
    empty field is 0. Refuses, in words, a count that is not a whole number of chips
    (``shown`` writes a denomination as people read it, e.g. as money)."""
    allowed = set(denominations)
    counts: dict[int, int] = {}
    for denom, text in fields.items():
        if denom not in allowed:
            raise ChipsError(f"{what}: {denom} is not a chip denomination of this casino")
        typed = (text or "").strip()
        if not typed:
            continue
        if not typed.isascii() or not typed.isdigit():
            raise ChipsError(f"{what}: {typed!r} is not a whole number of {shown(denom)} "
                             f"chips (type how many chips, e.g. 20)")
        counts[denom] = int(typed)
    chips = Chips.of(counts)
    if not allow_empty and chips.total == 0:
        raise ChipsError(f"{what}: no chips given (every count is 0)")
    return chips
