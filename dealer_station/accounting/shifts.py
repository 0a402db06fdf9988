"""A gaming day's count-room figures shift by shift.

At each shift change the tray is counted (a ``tray.shift`` record): that count closes the
outgoing shift and opens the incoming one. The day's opener (or the previous day's closer)
opens the first shift (or the shift it was counted in: the shifts before stood still); the
day's closer closes the shift it was counted in (normally the last;
a table closed early stays closed, its later shifts opening and closing on the closer). Fills,
credits and buy-ins belong to the shift in which they were journaled; a shift's drop is the
soft count's figure for that shift (``drop.count`` with ``shift``).

The day's statistical win is then the sum of its shifts' (the counts in between cancel), and
its drop the sum of its shifts' drops when the drop was counted by shift.

Pure: ledger and calendar in, rows out (the station's play is added by the report).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime

from dealer_station.accounting.figures import TableDay
from dealer_station.accounting.ledger import Day, Ledger
from dealer_station.events.accounting import DropCounted, FillSlip, TrayDifference
from dealer_station.events.base import Committed
from dealer_station.gaming_day import GamingCalendar, Span


def shift_index(spans: Sequence[Span], ts: str) -> int:
    """Which of the day's shift ``spans`` the record journaled at ``ts`` falls in (a time
    outside the day goes to the first or last shift)."""
    moment = datetime.fromisoformat(ts)
    for i, span in enumerate(spans):
        if moment < span.end:
            return i
    return len(spans) - 1


def _total(c: Committed | None) -> int | None:
    if c is None:
        return None
    total = getattr(c.event, "total", None)
    return total if isinstance(total, int) else None


def day_drop(day: Day, shift_names: Sequence[str]) -> int | None:
    """The day's drop: entered whole, or the sum of its shifts' drops once every shift's is
    entered (None until then)."""
    drops = [_total(c) for c in day_drops(day, shift_names)]
    return None if any(d is None for d in drops) else sum(d for d in drops if d is not None)


def count_details(row: TableDay, drops: Sequence[Committed | None]) -> None:
    """Fill ``row``'s count-room details from the soft count's ``drop.count`` records of its
    drop (one for a day counted whole or a shift; each shift's for a day counted by shift):
    the cash and markers summed, the date of the last count, every counter who signed. Left
    empty until every count the drop needs is in."""
    found = [c.event for c in drops if c is not None and isinstance(c.event, DropCounted)]
    if not found or len(found) != len(drops):
        return
    row.drop_cash = sum(e.cash for e in found)
    row.drop_markers = sum(e.markers for e in found)
    last = max((c for c in drops if c is not None), key=lambda c: c.seq)
    row.count_date = last.ts[:10]
    row.count_team = tuple(sorted({s for e in found for s in e.signers}))


def day_drops(day: Day, shift_names: Sequence[str]) -> list[Committed | None]:
    """The drop counts the day's drop is made of: the whole day's, or each shift's."""
    if day.drop is not None or not day.shift_drops:
        return [day.drop]
    return [day.shift_drop(name) for name in shift_names]


def shift_rows(table: str, ledger: Ledger, d: date, calendar: GamingCalendar,
               money: Callable[[int], str] = str) -> list[TableDay]:
    """One row per shift of gaming day ``d`` (every shift of the calendar, in order) with the
    statistical figures; ``play`` is left empty."""
    day = ledger.days[d]
    spans = calendar.shifts_of(d)
    names = [s.name for s in calendar.shifts]
    rows = [TableDay(table, d, shift=name) for name in names]
    closer_at = shift_index(spans, day.closer.ts) if day.closer is not None else None
    # A table opened in a later shift: the shifts before it did not play (the tray stood).
    opener_at = shift_index(spans, day.opener.ts) if day.opener is not None else 0
    closing: int | None = _total(ledger.opening_count(d))
    for i, row in enumerate(rows):
        row.opener = closing
        counted = day.shift_count(row.shift or "")
        if i < opener_at:
            pass
        elif counted is not None:
            closing = _total(counted)
        elif closer_at is not None and closer_at <= i:
            closing = _total(day.closer)
        else:
            closing = None
        row.closer = closing
        row.drop = _total(day.shift_drop(row.shift or ""))
        count_details(row, [day.shift_drop(row.shift or "")])
    for s in day.slips:
        if not s.counts:
            row = rows[shift_index(spans, s.ts)]
            assert s.void is not None
            row.exceptions.append(f"{s.kind} slip {s.event.number} of {s.event.year} voided "
                                  f"by {s.void_actor}: {s.void.reason}")
            continue
        row = rows[shift_index(spans, s.ts)]
        if isinstance(s.event, FillSlip):
            row.fills += s.event.total
        else:
            row.credits += s.event.total
    for b, ts in zip(day.buyins, day.buyin_times, strict=True):
        rows[shift_index(spans, ts)].buyins += b.amount
    for c in day.differences:
        e = c.event
        assert isinstance(e, TrayDifference)
        rows[shift_index(spans, c.ts)].exceptions.append(
            f"opener differs from the previous closer by {money(e.difference)} (opener "
            f"{money(e.opener_total)}, previous closer {money(e.previous_total)}; record "
            f"{c.seq})")
    return rows
