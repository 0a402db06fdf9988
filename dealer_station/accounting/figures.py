"""Win and hold as the count room figures them, beside what the station settled.

- statistical win = drop + credits - fills + (closer - opener)
- hold = statistical win / drop (none when nothing was dropped)
- computed win = stakes lost - amounts paid, over the rounds the station settled (returned
  stakes are neither; wagers returned by a void count nothing)
- variance = statistical win - computed win: what the tray gained or lost that the station did
  not settle. A dealer who pays a chip too many makes it negative (the tray is short).
- theoretical win = each settled wager x its own spot's house edge, under the configuration it
  was settled under; actual-vs-theoretical = computed win - theoretical win.

Pure: integers in minor units and exact fractions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction


def round_money(value: Fraction) -> int:
    """An exact amount to the nearest minor unit (halves away from zero)."""
    n = int(abs(value) + Fraction(1, 2))
    return -n if value < 0 else n


def apportion(parts: Sequence[Fraction], whole: int) -> list[int]:
    """Exact amounts ``parts`` in whole minor units that add up to ``whole`` (their sum, rounded):
    each rounded down, and the units left over given to the parts that lost the most (the
    largest remainder). A day's shifts then add up to the day, to the cent, as every figure
    of a report must."""
    floors = [math.floor(x) for x in parts]
    left = whole - sum(floors)
    if not 0 <= left <= len(parts):       # not their sum rounded: each on its own
        return [round_money(x) for x in parts]
    order = sorted(range(len(parts)), key=lambda i: (-(parts[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return floors


def statistical_win(*, drop: int, credits: int, fills: int, opener: int, closer: int) -> int:
    return drop + credits - fills + (closer - opener)


def hold(win: int | None, drop: int | None) -> Fraction | None:
    if win is None or not drop:
        return None
    return Fraction(win, drop)


@dataclass
class Play:
    """What the station settled in a span: rounds, wagered, returned, paid, computed and
    theoretical win."""

    rounds: int = 0
    wagered: int = 0
    returned: int = 0
    paid: int = 0
    computed_win: int = 0
    theoretical_win: Fraction = field(default_factory=Fraction)
    #: The stakes voids handed back unsettled (in no other figure).
    voided_returned: int = 0

    def theoretical_text(self) -> str:
        t = self.theoretical_win
        return f"{t.numerator}/{t.denominator}"

    def add(self, other: Play) -> None:
        self.rounds += other.rounds
        self.wagered += other.wagered
        self.returned += other.returned
        self.paid += other.paid
        self.computed_win += other.computed_win
        self.theoretical_win += other.theoretical_win
        self.voided_returned += other.voided_returned


@dataclass(frozen=True, slots=True)
class Disposition:
    """What the count room decided about a variance (``variance.disposition``)."""

    disposition: str
    note: str
    signers: tuple[str, ...]
    at: str
    seq: int
    #: The variance the signers disposed of (a later change of the figures shows beside it).
    variance: int
    adjustment: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"disposition": self.disposition, "note": self.note, "by": list(self.signers),
                "at": self.at, "seq": self.seq, "variance": self.variance,
                "adjustment": self.adjustment}


@dataclass
class TableDay:
    """One table's gaming day (or one shift of it, where ``shift`` is set)."""

    table: str
    gaming_day: date
    shift: str | None = None
    opener: int | None = None
    closer: int | None = None
    fills: int = 0
    credits: int = 0
    drop: int | None = None
    buyins: int = 0
    play: Play = field(default_factory=Play)
    exceptions: list[str] = field(default_factory=list)
    mtd_win: int = 0
    mtd_drop: int = 0
    ytd_win: int = 0
    ytd_drop: int = 0
    #: The game the table deals (its journal key; None before its first round).
    game: str | None = None
    #: The soft count's drop split: cash, and markers (or counter checks); when it was
    #: counted (the count record's date, UTC) and by whom (the two or more counters).
    drop_cash: int | None = None
    drop_markers: int | None = None
    count_date: str | None = None
    count_team: tuple[str, ...] = ()
    #: The theoretical win in minor units where it is one part of a whole that must add up
    #: (a shift of its day, :func:`apportion`); else the exact figure rounded.
    theoretical_share: int | None = None
    #: The count room's disposition of the variance, once signed.
    disposition: Disposition | None = None

    @property
    def win(self) -> int | None:
        """The statistical win; None until the drop is counted and the tray opened and
        closed."""
        if self.drop is None or self.opener is None or self.closer is None:
            return None
        return statistical_win(drop=self.drop, credits=self.credits, fills=self.fills,
                               opener=self.opener, closer=self.closer)

    @property
    def hold(self) -> Fraction | None:
        return hold(self.win, self.drop)

    @property
    def variance(self) -> int | None:
        win = self.win
        return None if win is None else win - self.play.computed_win

    @property
    def theoretical_win(self) -> int:
        if self.theoretical_share is not None:
            return self.theoretical_share
        return round_money(self.play.theoretical_win)

    def check(self, threshold: int, money: Callable[[int], str] = str) -> None:
        """Add the variance exception when it is above ``threshold``."""
        v = self.variance
        if v is not None and self.win is not None and abs(v) > threshold:
            self.exceptions.append(f"variance {money(v)} (statistical win {money(self.win)} "
                                   f"- computed win {money(self.play.computed_win)}) is "
                                   f"beyond the threshold of {money(threshold)}")


def to_dates(days: list[TableDay]) -> None:
    """Fill each day's month-to-date and year-to-date win and drop from the days before it
    (``days`` of one table, in order, every day since the start of the earliest year)."""
    mtd_key: tuple[int, int] | None = None
    ytd_key: int | None = None
    mw = md = yw = yd = 0
    for d in days:
        if (d.gaming_day.year, d.gaming_day.month) != mtd_key:
            mtd_key, mw, md = (d.gaming_day.year, d.gaming_day.month), 0, 0
        if d.gaming_day.year != ytd_key:
            ytd_key, yw, yd = d.gaming_day.year, 0, 0
        if d.win is not None and d.drop is not None:
            mw, md, yw, yd = mw + d.win, md + d.drop, yw + d.win, yd + d.drop
        d.mtd_win, d.mtd_drop, d.ytd_win, d.ytd_drop = mw, md, yw, yd


def fraction_json(value: Fraction | None) -> float | None:
    return None if value is None else float(value)
