"""The card room's own accounting for one Bourré table and gaming day, read from the table's
chain: its **bank** (the chip tray players buy their chips from: opener, fills, credits and
chip purchases, against the closer) and its **rake against the counted box** (the house's
collection the hands journaled, against the rake box the count room counted).

The table's accounting records (opener, closer, fill and credit slips through the cage,
buy-ins, the count room's count of the rake box and its disposition) are the same records a
banked table's tray writes (``dealer_station/table/accounting.py``); only their reading is the
card room's:

    bank expected = opener + fills - credits - chip purchases      (by denomination)
    bank difference = closer - bank expected
    rake variance = rake box (counted) - rake (the hands' ``bourre.collection`` records)

A player's chips leave the table with the player and are cashed at the cage: the station
records no cash-out at the table, so the bank's reconciliation has no "chips bought back"
term, and a bank difference above zero is chips the bank holds that no record explains.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.ledger import Day, Ledger, Slip
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.events.accounting import (
    RAKE_BOX,
    BuyIn,
    DropCounted,
    TrayClosed,
    TrayOpened,
    VarianceDisposed,
)
from dealer_station.events.base import Committed
from dealer_station.money import Money

#: Signed chip counts by denomination (a difference may be below zero).
Counts = dict[int, int]


def counts(chips: Chips) -> Counts:
    return {d: n for d, n in chips.counts if n}


def add(*parts: tuple[int, Mapping[int, int]]) -> Counts:
    """The sum of ``sign x counts`` over ``parts``, zero counts left out."""
    out: Counts = {}
    for sign, c in parts:
        for d, n in c.items():
            out[d] = out.get(d, 0) + sign * n
    return {d: n for d, n in sorted(out.items()) if n}


def value(c: Mapping[int, int]) -> int:
    return sum(d * n for d, n in c.items())


@dataclass(frozen=True)
class Purchase:
    """One chip purchase (a ``buyin`` record): cash or a marker for chips from the bank."""

    ts: str
    event: BuyIn

    @property
    def chips(self) -> Chips:
        return Chips.from_payload(self.event.chips)

    def to_json(self) -> dict[str, Any]:
        e = self.event
        return {"time": self.ts, "tender": e.tender, "amount": e.amount, "seat": e.seat,
                "marker": e.marker, "chips": dict(e.chips)}


@dataclass
class Bank:
    """One gaming day of a card room table's bank."""

    opener: Committed | None = None
    #: True when the day has no opener of its own and opened with the previous day's closer.
    carried: bool = False
    closer: Committed | None = None
    slips: list[Slip] = field(default_factory=list)
    purchases: list[Purchase] = field(default_factory=list)
    #: The table's drop box as the count room counted it (what players paid for chips).
    drop: Committed | None = None

    @property
    def recorded(self) -> bool:
        """Whether the day has any record of the bank at all."""
        return bool(self.opener or self.closer or self.slips or self.purchases)

    def _tray(self, c: Committed | None) -> Counts | None:
        if c is None or not isinstance(c.event, TrayOpened | TrayClosed):
            return None
        return counts(Chips.from_payload(c.event.chips))

    @property
    def opening(self) -> Counts | None:
        return self._tray(self.opener)

    @property
    def closing(self) -> Counts | None:
        return self._tray(self.closer)

    def _slips(self, kind: str) -> Counts:
        return add(*((1, counts(s.chips)) for s in self.slips if s.kind == kind and s.counts))

    @property
    def fills(self) -> Counts:
        return self._slips("fill")

    @property
    def credits(self) -> Counts:
        return self._slips("credit")

    @property
    def sold(self) -> Counts:
        """The chips the bank sold (every purchase, cash and markers)."""
        return add(*((1, counts(p.chips)) for p in self.purchases))

    def tender(self, tender: str) -> int:
        return sum(p.event.amount for p in self.purchases if p.event.tender == tender)

    @property
    def expected(self) -> Counts | None:
        """Opener + fills - credits - chip purchases (None without an opening count)."""
        opening = self.opening
        if opening is None:
            return None
        return add((1, opening), (1, self.fills), (-1, self.credits), (-1, self.sold))

    @property
    def difference(self) -> Counts | None:
        """Closer - bank expected, by denomination (None until both are known)."""
        expected, closing = self.expected, self.closing
        if expected is None or closing is None:
            return None
        return add((1, closing), (-1, expected))

    @property
    def difference_total(self) -> int | None:
        diff = self.difference
        return None if diff is None else value(diff)

    def to_json(self) -> dict[str, Any]:
        def total(c: Mapping[int, int] | None) -> int | None:
            return None if c is None else value(c)

        def by_denom(c: Mapping[int, int] | None) -> dict[str, int] | None:
            return None if c is None else {str(d): n for d, n in c.items()}

        return {
            "opener": total(self.opening), "opener_chips": by_denom(self.opening),
            "opener_seq": self.opener.seq if self.opener else None,
            "opener_from_previous_closer": self.carried,
            "fills": value(self.fills), "credits": value(self.credits),
            "chip_purchases": value(self.sold),
            "chip_purchases_cash": self.tender("cash"),
            "chip_purchases_markers": self.tender("marker"),
            "purchases": [p.to_json() for p in self.purchases],
            "slips": [slip_json(s) for s in self.slips],
            "expected": total(self.expected), "expected_chips": by_denom(self.expected),
            "closer": total(self.closing), "closer_chips": by_denom(self.closing),
            "closer_seq": self.closer.seq if self.closer else None,
            "difference": self.difference_total, "difference_chips": by_denom(self.difference),
            "cash_outs_recorded": False,
            "drop": self._drop_json(),
        }

    def _drop_json(self) -> dict[str, Any] | None:
        c = self.drop
        e = c.event if c is not None else None
        if c is None or not isinstance(e, DropCounted):
            return None
        return {"total": e.total, "cash": e.cash, "markers": e.markers, "seq": c.seq,
                "time": c.ts, "count_team": list(e.signers)}


def slip_json(s: Slip) -> dict[str, Any]:
    e = s.event
    return {"kind": s.kind, "number": e.number, "year": e.year, "request": e.request,
            "total": e.total, "chips": dict(e.chips), "seq": s.seq, "time": s.ts,
            "signers": list(e.signers), "voided": s.void is not None,
            "void_reason": s.void.reason if s.void else None}


@dataclass
class RakeBox:
    """One gaming day's rake against the rake box the count room counted."""

    money: Money
    threshold: int
    #: The rake the hands journaled in the whole gaming day (minor units of ``money``;
    #: None when no hand of the day was played for cash).
    rake: int | None = None
    rake_chips: int = 0
    hands: int = 0
    #: Why the rake cannot be set against the box (a profile in another currency), if so.
    problem: str = ""
    counted: Committed | None = None
    disposed: Committed | None = None

    @property
    def count(self) -> DropCounted | None:
        e = self.counted.event if self.counted is not None else None
        return e if isinstance(e, DropCounted) else None

    @property
    def disposition(self) -> VarianceDisposed | None:
        e = self.disposed.event if self.disposed is not None else None
        return e if isinstance(e, VarianceDisposed) else None

    @property
    def notes(self) -> Counts:
        c = self.count
        return {int(k): int(v) for k, v in sorted((c.currency or {}).items(),
                                                  key=lambda kv: int(kv[0]))} if c else {}

    @property
    def variance(self) -> int | None:
        """Counted - journaled (None until the box is counted, or with no rake in money)."""
        c = self.count
        if c is None or self.problem:
            return None
        return c.total - (self.rake or 0)

    @property
    def beyond_threshold(self) -> bool:
        v = self.variance
        return v is not None and abs(v) > self.threshold

    @property
    def needs_disposition(self) -> bool:
        return self.beyond_threshold and self.disposition is None

    def to_json(self) -> dict[str, Any]:
        c, d = self.count, self.disposition
        return {
            "rake": self.rake, "rake_chips": self.rake_chips, "hands": self.hands,
            "problem": self.problem or None,
            "counted": c.total if c else None, "cash": c.cash if c else None,
            "markers": c.markers if c else None,
            "marker_count": c.marker_count if c else None,
            "notes": {str(k): v for k, v in self.notes.items()} if c else None,
            "count_date": self.counted.ts[:10] if self.counted else None,
            "count_time": self.counted.ts if self.counted else None,
            "count_team": list(c.signers) if c else None,
            "count_seq": self.counted.seq if self.counted else None,
            "variance": self.variance, "threshold": self.threshold,
            "needs_disposition": self.needs_disposition,
            "disposition": None if d is None or self.disposed is None else {
                "what": d.disposition, "why": d.note, "by": list(d.signers),
                "at": self.disposed.ts, "seq": self.disposed.seq, "variance": d.variance,
                "adjustment": d.adjustment},
        }


def bank_of(ledger: Ledger, gaming_day: date) -> Bank:
    """The bank's records of ``gaming_day`` (its opener, or else the previous day's closer)."""
    day: Day | None = ledger.days.get(gaming_day)
    bank = Bank()
    if day is not None:
        bank.opener, bank.closer = day.opener, day.closer
        bank.slips = sorted(day.slips, key=lambda s: s.seq)
        bank.purchases = [Purchase(ts, b) for ts, b in zip(day.buyin_times, day.buyins,
                                                           strict=True)]
        bank.drop = day.drop
    if bank.opener is None:
        before = ledger.closer_before(gaming_day)
        if before is not None:
            bank.opener, bank.carried = before, True
    return bank


@dataclass(frozen=True)
class Collection:
    """One hand's house collection as its ``bourre.collection`` record says it."""

    chips: int
    amount: int
    currency: str
    minor_units: int


def rake_box_of(ledger: Ledger, gaming_day: date, collections: Iterable[Collection],
                settings: AccountingSettings) -> RakeBox:
    """The day's rake (every collection of the day's hands) against its counted rake box."""
    money = settings.money
    box = RakeBox(money, settings.variance_threshold)
    got: Sequence[Collection] = list(collections)
    box.hands = len(got)
    box.rake_chips = sum(c.chips for c in got)
    if got:
        box.rake = sum(c.amount for c in got)
        other = sorted({(c.currency, c.minor_units) for c in got}
                       - {(money.currency, money.minor_units)})
        if other:
            box.problem = (f"the hands were played for {', '.join(c for c, _ in other)} chips; "
                           f"the count room counts {money.label}: the rake cannot be set "
                           f"against the box")
    day = ledger.days.get(gaming_day)
    if day is not None:
        box.counted = day.rake_box
        box.disposed = day.disposition(box=RAKE_BOX)
    return box
