"""What the Chips tab says of the table's accounting, in words (no widgets here): where the
tray stands in the gaming day, the day's win, and the last slips and counts as the list shows
them."""

from __future__ import annotations

from html import escape

from dealer_station.accounting.figures import hold, statistical_win
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.requests import slip_label
from dealer_station.errors import StationError
from dealer_station.table.accounting import TableAccounting
from dealer_station.ui import theme

#: The slips and counts listed, newest first.
SLIPS_SHOWN = 8

#: One slip or count in the list: (Slip, Number, Amount, Signed by), and the slip's
#: (kind, year, number) for printing and voiding (None: a count).
SlipRow = tuple[str, str, str, str, tuple[str, int, int] | None]


def signed_by(signers: tuple[str, ...] | list[str], names: dict[str, str]) -> str:
    """Journal actors (``dana/dealer``) as the people's names."""
    return " + ".join(names.get(a.partition("/")[0], a) for a in signers)


def tray_state(book: TableAccounting, ledger: Ledger) -> str:
    """The gaming day and shift, and what was counted in it."""
    money = book.settings.money.text
    today = book.today()
    day = ledger.days.get(today)
    opening = ledger.opening_count(today)
    parts = [f"Gaming day {today.isoformat()}, {book.shift_now()} shift."]
    if day is not None and day.opener is not None:
        parts.append(f"Opener {money(getattr(day.opener.event, 'total', 0))}.")
    elif opening is not None:
        parts.append(f"No opener yet (the last closer was "
                     f"{money(getattr(opening.event, 'total', 0))}).")
    else:
        parts.append("No opener yet.")
    if day is not None and day.shift_counts:
        parts.append("Counted at the end of " + ", ".join(day.shift_counts) + ".")
    if day is not None and day.closer is not None:
        parts.append(f"Closed: closer {money(getattr(day.closer.event, 'total', 0))}.")
    return " ".join(parts)


def day_win_html(book: TableAccounting, ledger: Ledger) -> str:
    """The day's win: what the rounds the station settled won (as recorded at the closer,
    else summed now), and the count room's win and hold once the drop is counted."""
    from dealer_station.accounting.shifts import day_drop

    money = book.settings.money.text
    today = book.today()
    day = ledger.days.get(today)
    lines = []
    played: tuple[int, int] | None = None
    if day is not None and day.play is not None:
        played = (day.play.computed_win, day.play.rounds)
    else:
        try:
            now = book.day_played(today)
        except StationError:
            now = None
        if now is not None:
            played = (now.computed_win, now.rounds)
    if played is not None:
        win, rounds = played
        colour = theme.GOOD if win >= 0 else theme.BAD
        lines.append(f"Day's win: <b style='color:{colour}; font-size: 21px'>"
                     f"{escape(money(win))}</b> over {rounds:,} round"
                     f"{'' if rounds == 1 else 's'} settled")
    opening = ledger.opening_count(today)
    drop = day_drop(day, [s.name for s in book.calendar.shifts]) if day is not None else None
    if day is not None and day.closer is not None and opening is not None:
        if drop is None:
            lines.append("The count room's win follows once the drop is counted.")
        else:
            stat = statistical_win(
                drop=drop, credits=day.credits, fills=day.fills,
                opener=int(getattr(opening.event, "total", 0)),
                closer=int(getattr(day.closer.event, "total", 0)))
            held = hold(stat, drop)
            lines.append(f"Count room's win: <b>{escape(money(stat))}</b>"
                         + (f", hold {float(held):.1%}" if held is not None else ""))
    return "<br>".join(lines)


def slip_rows(book: TableAccounting, ledger: Ledger, names: dict[str, str]) -> list[SlipRow]:
    """The last slips and counts, newest first: each fill or credit by its control number
    (``T1-F-2026-00042``, VOID once voided), each count by its gaming day."""
    money = book.settings.money.text
    rows: list[tuple[int, SlipRow]] = []
    for (kind, year, number), s in ledger.slips.items():
        state = " VOID" if s.void is not None else ""
        rows.append((s.seq, (kind.capitalize() + state,
                             slip_label(book.table_id, kind, year, number),
                             money(s.event.total), signed_by(s.event.signers, names),
                             (kind, year, number))))
    for day in ledger.days.values():
        counts = [("Opener", day.opener), ("Closer", day.closer)] + [
            (f"Shift count ({name})", c) for name, c in day.shift_counts.items()]
        for label, c in counts:
            if c is not None:
                e = c.event
                rows.append((c.seq, (label, day.gaming_day.isoformat(),
                                     money(getattr(e, "total", 0)),
                                     signed_by(getattr(e, "signers", ()), names), None)))
    rows.sort(key=lambda r: r[0], reverse=True)
    return [row for _, row in rows[:SLIPS_SHOWN]]


__all__ = ["SLIPS_SHOWN", "SlipRow", "day_win_html", "signed_by", "slip_rows", "tray_state"]
