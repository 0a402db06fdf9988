"""A table's accounting as its chain establishes it: trays, slips, buy-ins and drops by gaming
day, and the checks an action must pass before it is journaled (pure: events in, answers out).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.requests import Request, request_label
from dealer_station.errors import StationError
from dealer_station.events.accounting import (
    RAKE_BOX,
    BuyIn,
    CreditSlip,
    DayPlayed,
    DropCounted,
    FillSlip,
    RequestVoided,
    SlipCarried,
    SlipIssued,
    SlipRequested,
    SlipVoided,
    TrayClosed,
    TrayDifference,
    TrayOpened,
    TrayShiftCounted,
    VarianceDisposed,
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
    #: The void's own record: its place in the chain and its time.
    void_seq: int | None = None
    void_ts: str | None = None

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
    #: When each buy-in was journaled (``buyins[i]`` at ``buyin_times[i]``).
    buyin_times: list[str] = field(default_factory=list)
    drop: Committed | None = None
    play: DayPlayed | None = None
    #: Shift-change inventories by shift name (as the record names it).
    shift_counts: dict[str, Committed] = field(default_factory=dict)
    #: Drops counted per shift, by shift name.
    shift_drops: dict[str, Committed] = field(default_factory=dict)
    #: A card room table's rake box, counted in the count room.
    rake_box: Committed | None = None
    #: The count room's dispositions of variances, by (shift or None, box or None).
    dispositions: dict[tuple[str | None, str | None], Committed] = field(default_factory=dict)

    def disposition(self, shift: str | None = None, box: str | None = None
                    ) -> Committed | None:
        """The newest disposition of the day's (or a shift's, or the rake box's) variance."""
        for (s, b), c in self.dispositions.items():
            same = (s or "").casefold() == (shift or "").casefold()
            if same and b == box:
                return c
        return None

    def shift_count(self, shift: str) -> Committed | None:
        return _named(self.shift_counts, shift)

    def shift_drop(self, shift: str) -> Committed | None:
        return _named(self.shift_drops, shift)

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


def _named(by_name: dict[str, Committed], shift: str) -> Committed | None:
    for name, c in by_name.items():
        if name.casefold() == shift.casefold():
            return c
    return None


@dataclass
class Ledger:
    """Every accounting record of one table, by gaming day, in chain order."""

    table: str
    days: dict[date, Day] = field(default_factory=dict)
    slips: dict[tuple[str, int, int], Slip] = field(default_factory=dict)
    #: Fill and credit requests by (year, request number), and by their issued slip's
    #: (kind, year, number).
    requests: dict[tuple[int, int], Request] = field(default_factory=dict)
    issued: dict[tuple[str, int, int], Request] = field(default_factory=dict)
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
        if self._apply_request(c):
            return
        if isinstance(e, SlipVoided):
            req = self.issued.get((e.slip, e.year, e.number))
            if req is not None:
                req.slip_voided = c
            old = self.slips.get((e.slip, e.year, e.number))
            if old is not None:
                voided = Slip(old.seq, old.ts, old.actor, old.kind, old.event, e, c.actor,
                              c.seq, c.ts)
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
            req = self.issued.get((e.KIND, e.year, e.number))
            if req is not None:
                req.received = c
        elif isinstance(e, TrayShiftCounted):
            day.shift_counts[e.shift] = c
        elif isinstance(e, BuyIn):
            day.buyins.append(e)
            day.buyin_times.append(c.ts)
        elif isinstance(e, VarianceDisposed):
            day.dispositions[(e.shift, e.box)] = c
        elif isinstance(e, DropCounted):
            if e.box == RAKE_BOX:
                day.rake_box = c
            elif e.shift is None:
                day.drop = c
            else:
                day.shift_drops[e.shift] = c
        elif isinstance(e, DayPlayed):
            day.play = e

    def _apply_request(self, c: Committed) -> bool:
        """A step of a request (the request, its issue, its runner, its void)."""
        e = c.event
        if isinstance(e, SlipRequested):
            self.requests[(e.year, e.request)] = Request(self.table, c)
            return True
        if isinstance(e, SlipIssued):
            req = self.requests.get((e.request_year, e.request))
            if req is not None:
                req.issued = c
                self.issued[(e.slip, e.year, e.number)] = req
            return True
        if isinstance(e, SlipCarried):
            req = self.issued.get((e.slip, e.year, e.number))
            if req is not None:
                req.carried = c
            return True
        if isinstance(e, RequestVoided):
            req = self.requests.get((e.year, e.request))
            if req is not None:
                req.voided = c
            return True
        return False

    # -- what the chain says -------------------------------------------------------------------

    def next_number(self, kind: str, year: int) -> int:
        """The next slip number of ``kind`` in ``year``: one more than the highest journaled
        or issued by the cage (voided slips keep theirs), 1 for a year's first."""
        used = [n for (k, y, n) in (*self.slips, *self.issued) if k == kind and y == year]
        return max(used, default=0) + 1

    def next_request(self, year: int) -> int:
        return max((n for (y, n) in self.requests if y == year), default=0) + 1

    def request(self, year: int, number: int) -> Request:
        found = self.requests.get((year, number))
        if found is None:
            raise AccountingRefused(f"no request {request_label(self.table, year, number)} "
                                    f"at table {self.table}")
        return found

    def open_requests(self) -> list[Request]:
        return [r for r in self.requests.values() if r.open]

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
        if day is not None and day.shift_counts:
            first = min(day.shift_counts.values(), key=lambda c: c.seq)
            raise AccountingRefused(f"table {self.table}: gaming day {d} already has a "
                                    f"shift-change count (record {first.seq}); the opener "
                                    f"comes before it")
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

    def check_open_shift(self, d: date, shift: str, action: str) -> None:
        """Fills, credits, buy-ins and the closer need the day open and the shift not yet
        counted at its change (what comes after the count belongs to the next shift)."""
        self.check_open_day(d, action)
        day = self.days.get(d)
        counted = day.shift_count(shift) if day is not None else None
        if counted is not None:
            raise AccountingRefused(
                f"table {self.table}: the {shift} shift of gaming day {d} was counted at its "
                f"change (record {counted.seq}); a {action} belongs to the next shift, after "
                f"it starts")

    def check_closer(self, d: date, shift: str | None = None) -> None:
        day = self.days.get(d)
        if day is not None and day.closer is not None:
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} already has a closer (record "
                f"{day.closer.seq}); a closer is entered once")
        if self.opening_count(d) is None:
            raise AccountingRefused(f"table {self.table}: gaming day {d} has no opener and "
                                    f"no earlier closer; enter the opener first")
        if shift is not None:
            self.check_open_shift(d, shift, "closer")

    def check_shift_count(self, d: date, shift: str, *, last_shift: str) -> None:
        """A shift-change count: once per shift, never the day's last shift (the closer
        counts it), on an open day that has an opening count."""
        if shift.casefold() == last_shift.casefold():
            raise AccountingRefused(
                f"table {self.table}: {shift} is the last shift of gaming day {d}; the closer "
                f"counts the tray at its end, not a shift-change count")
        day = self.days.get(d)
        counted = day.shift_count(shift) if day is not None else None
        if counted is not None:
            raise AccountingRefused(
                f"table {self.table}: the {shift} shift of gaming day {d} was already counted "
                f"(record {counted.seq}); a shift-change count is taken once")
        if day is not None and day.closer is not None:
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} was closed (closer record "
                f"{day.closer.seq}); no shift-change count after the closer")
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
        if day is not None and day.shift_drops:
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} has drops entered by shift "
                f"({', '.join(day.shift_drops)}); its drop is their sum: enter the other "
                f"shifts' drops with --shift")
        closed = day is not None and day.closer is not None
        if not (closed or day_over):
            raise AccountingRefused(
                f"table {self.table}: gaming day {d} has not closed (no closer, and the day "
                f"is not over); the soft count's drop is entered after the day closes")

    def check_shift_drop(self, d: date, shift: str, *, shift_over: bool,
                         closed_by_closer: bool) -> None:
        """A drop for one shift: once, after the shift is over (its count journaled, or its
        time past), on a day whose drop was not entered whole."""
        day = self.days.get(d)
        if day is not None and day.drop is not None:
            raise AccountingRefused(f"table {self.table}: the drop of gaming day {d} was "
                                    f"entered for the whole day (record {day.drop.seq}); it "
                                    f"cannot also be entered by shift")
        done = day.shift_drop(shift) if day is not None else None
        if done is not None:
            raise AccountingRefused(f"table {self.table}: the drop of the {shift} shift of "
                                    f"gaming day {d} was already entered (record {done.seq})")
        counted = day is not None and (day.shift_count(shift) is not None or closed_by_closer)
        if not (counted or shift_over):
            raise AccountingRefused(
                f"table {self.table}: the {shift} shift of gaming day {d} is not over (no "
                f"shift-change count, and its time has not passed); its drop is entered after "
                f"the shift ends")

    def slip(self, kind: str, year: int, number: int) -> Slip:
        found = self.slips.get((kind, year, number))
        if found is None:
            raise AccountingRefused(f"no {kind} slip number {number} of {year} at table "
                                    f"{self.table}")
        if found.void is not None:
            raise AccountingRefused(f"{kind} slip number {number} of {year} at table "
                                    f"{self.table} is already voided ({found.void.reason})")
        return found
