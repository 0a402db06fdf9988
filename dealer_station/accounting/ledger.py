"""A table's accounting as its chain establishes it: trays, slips, buy-ins and drops by gaming
day, and the checks an action must pass before it is journaled (pure: events in, answers out).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from dealer_station.accounting.chips import Chips
from dealer_station.errors import StationError
from dealer_station.events.accounting import (
    BuyIn,
    CreditSlip,
    DayPlayed,
    DropCounted,
    FillSlip,
    SlipVoided,
    TrayClosed,
    TrayDifference,
    TrayOpened,
)
from dealer_station.events.base import Committed


class AccountingRefused(StationError):
    """An accounting action that cannot be taken; nothing was journaled. Says what and why."""


@dataclass(frozen=True, slots=True)
class Slip:
    """A fill or credit slip as journaled, with its void if it was voided."""

    seq: int
    ts: str
    actor: str
    kind: str
    event: FillSlip | CreditSlip
    void: SlipVoided | None = None
    void_actor: str | None = None

    @property
    def chips(self) -> Chips:
        return Chips.from_payload(self.event.chips)

    @property
    def counts(self) -> bool:
        return self.void is None


@dataclass
class Day:
    """One gaming day of one table's accounting."""

    gaming_day: date
    opener: Committed | None = None
    closer: Committed | None = None
    differences: list[Committed] = field(default_factory=list)
    slips: list[Slip] = field(default_factory=list)
    buyins: list[BuyIn] = field(default_factory=list)
    drop: Committed | None = None
    play: DayPlayed | None = None

    def total(self, kind: str) -> int:
        return sum(s.event.total for s in self.slips if s.kind == kind and s.counts)

    @property
    def fills(self) -> int:
        return self.total(FillSlip.KIND)

    @property
    def credits(self) -> int:
        return self.total(CreditSlip.KIND)

    @property
    def buyin_cash(self) -> int:
        return sum(b.amount for b in self.buyins if b.tender == "cash")

    @property
    def buyin_markers(self) -> int:
        return sum(b.amount for b in self.buyins if b.tender == "marker")


@dataclass
class Ledger:
    """Every accounting record of one table, by gaming day, in chain order."""

    table: str
    days: dict[date, Day] = field(default_factory=dict)
    slips: dict[tuple[str, int, int], Slip] = field(default_factory=dict)
    last_seq: int = 0
    count: int = 0

    @classmethod
    def of(cls, table: str, committed: Iterable[Committed]) -> Ledger:
        ledger = cls(table)
        for c in committed:
            ledger.apply(c)
        return ledger

    def day(self, d: date) -> Day:
        found = self.days.get(d)
        if found is None:
            found = self.days[d] = Day(d)
        return found

    def apply(self, c: Committed) -> None:
        e = c.event
        self.last_seq = max(self.last_seq, c.seq)
        self.count += 1
        if isinstance(e, SlipVoided):
            old = self.slips.get((e.slip, e.year, e.number))
            if old is not None:
                voided = Slip(old.seq, old.ts, old.actor, old.kind, old.event, e, c.actor)
                self.slips[(e.slip, e.year, e.number)] = voided
                day = self.day(date.fromisoformat(old.event.gaming_day))
                day.slips = [voided if s.seq == old.seq else s for s in day.slips]
            return
        gaming_day = getattr(e, "gaming_day", None)
        if not isinstance(gaming_day, str):
            return
        day = self.day(date.fromisoformat(gaming_day))
        if isinstance(e, TrayOpened):
            day.opener = c
        elif isinstance(e, TrayClosed):
            day.closer = c
        elif isinstance(e, TrayDifference):
            day.differences.append(c)
        elif isinstance(e, FillSlip | CreditSlip):
            slip = Slip(c.seq, c.ts, c.actor, e.KIND, e)
            self.slips[(e.KIND, e.year, e.number)] = slip
            day.slips.append(slip)
        elif isinstance(e, BuyIn):
            day.buyins.append(e)
        elif isinstance(e, DropCounted):
            day.drop = c
        elif isinstance(e, DayPlayed):
            day.play = e

    # -- what the chain says -------------------------------------------------------------------

    def next_number(self, kind: str, year: int) -> int:
        """The next slip number of ``kind`` in ``year``: one more than the highest journaled
        (voided slips keep theirs), 1 for a year's first."""
        used = [n for (k, y, n) in self.slips if k == kind and y == year]
        return max(used, default=0) + 1

    def closer_before(self, d: date) -> Committed | None:
        """The newest closer of a gaming day before ``d``."""
        earlier = [day for k, day in self.days.items() if k < d and day.closer is not None]
        return max(earlier, key=lambda day: day.gaming_day).closer if earlier else None

    def opening_count(self, d: date) -> Committed | None:
        """What the day opened with: its opener, or else the previous day's closer."""
        day = self.days.get(d)
        if day is not None and day.opener is not None:
            return day.opener
        return self.closer_before(d)

    # -- checks (refuse before anything is journaled) ------------------------------------------

    def check_opener(self, d: date) -> None:
        day = self.days.get(d)
        if day is not None and day.opener is not None:
            raise AccountingRefused(f"table {self.table}: gaming day {d} already has an opener "
                                    f"(record {day.opener.seq}); an opener is counted once")
        if day is not None and day.closer is not None:
            raise AccountingRefused(f"table {self.table}: gaming day {d} is closed (closer "
                                    f"record {day.closer.seq}); open the next gaming day")
        later = [k for k, v in self.days.items() if k > d and (v.opener or v.closer)]
        if later:
            raise AccountingRefused(f"table {self.table}: gaming day {max(later)} already has "
                                    f"a tray count; an opener for {d} would come after it")

    def check_open_day(self, d: date, action: str) -> None:
        """Fills, credits, buy-ins and the closer need the day open: counted or carried."""
        day = self.days.get(d)
        if day is not None and day.closer is not None:
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} was closed (closer record "
                f"{day.closer.seq}); a {action} cannot be added to a closed day")

    def check_closer(self, d: date) -> None:
        day = self.days.get(d)
        if day is not None and day.closer is not None:
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} already has a closer (record "
                f"{day.closer.seq}); a closer is entered once")
        if self.opening_count(d) is None:
            raise AccountingRefused(f"table {self.table}: gaming day {d} has no opener and "
                                    f"no earlier closer; enter the opener first")

    def check_number(self, kind: str, year: int, number: int | None) -> int:
        expected = self.next_number(kind, year)
        if number is not None and number != expected:
            used = (kind, year, number) in self.slips
            why = "is already used" if used else "is out of sequence"
            raise AccountingRefused(f"{kind} slip number {number} {why} at table {self.table} "
                                    f"in {year}: the next {kind} slip is number {expected}")
        return expected

    def check_drop(self, d: date, *, day_over: bool) -> None:
        day = self.days.get(d)
        if day is not None and day.drop is not None:
            raise AccountingRefused(f"table {self.table}: the drop of gaming day {d} was "
                                    f"already entered (record {day.drop.seq})")
        closed = day is not None and day.closer is not None
        if not (closed or day_over):
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} has not closed (no closer, and the day "
                f"is not over); the soft count's drop is entered after the day closes")

    def slip(self, kind: str, year: int, number: int) -> Slip:
        found = self.slips.get((kind, year, number))
        if found is None:
            raise AccountingRefused(f"no {kind} slip number {number} of {year} at table "
                                    f"{self.table}")
        if found.void is not None:
            raise AccountingRefused(f"{kind} slip number {number} of {year} at table "
                                    f"{self.table} is already voided ({found.void.reason})")
        return found
