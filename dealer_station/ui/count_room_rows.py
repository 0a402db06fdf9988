"""What the count room's screen lists, in words (no widgets here): the boxes still to count
and the variances beyond the threshold with their dispositions.

**The boxes to count**: every table of the journal (the station's own chain left out, as the
master game report leaves it out) with a box the count room may count now, newest gaming day
first. Whether a box may be counted is the table's accounting's own decision
(``TableAccounting.check_drop``), asked for each box rather than decided again here:

- a day's drop box, once the day closed (its closer) or is over, and not yet counted;
- where the drop boxes were changed at the shift change (the day has a shift-change count,
  or a shift's box was already counted), one box per shift, once that shift is over (its
  shift-change count, the closer, or its time past);
- a card room table's rake box (a table whose game has no ``wins`` part: the house takes a
  rake from the pots, it banks no wager), once for each gaming day it played that closed or
  is over, as a row of its own.

**The variances** are the master game report's (``reports.master_game.gather``): each table's
gaming day whose variance (statistical win - computed win) is beyond the threshold, with the
count room's disposition, or "Needs a disposition".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo

from dealer_station import registry as games
from dealer_station.accounting.figures import Disposition, TableDay
from dealer_station.accounting.ledger import AccountingRefused, Day, Ledger
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.audit.lease import RESERVED_TABLE_IDS
from dealer_station.events.accounting import RAKE_BOX
from dealer_station.events.kinds import closing_statuses
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting, table_game
from dealer_station.table.parts import WINS
from dealer_station.ui.cage_rows import clock, people

#: The boxes' list: its columns.
BOX_HEADERS = ("Table", "Gaming day", "Box", "Ready since")
#: The variances' list: its columns.
VARIANCE_HEADERS = ("Table", "Gaming day", "Variance", "Disposition")
#: What the count room may decide about a variance, in the words of MICS.
DISPOSITION_WORDS = {"explained": "Explained", "adjusted": "Adjusted", "referred": "Referred"}
NEEDS = "Needs a disposition"


@dataclass(frozen=True)
class Box:
    """One box the count room may count now."""

    table: str
    gaming_day: date
    #: The shift whose box it is (its drop box was changed at the shift change); None: the
    #: whole day's.
    shift: str | None
    #: None: the drop box; ``RAKE_BOX``: a card room table's rake box.
    box: str | None
    #: The table's game as people read it ("La Pair'e"); "" when it never dealt.
    game: str
    #: Why it may be counted now: "Closer 05:40", "Shift count 13:59", "Day ended 06:00".
    ready: str
    #: A shift's box of a day none of whose shift boxes is counted yet: the day's box may be
    #: counted whole instead (where the boxes were not changed at the shift change).
    whole_day_too: bool = False

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.table, self.gaming_day.isoformat(), self.shift or "", self.box or "")

    @property
    def box_words(self) -> str:
        """"Drop box · whole day", "Drop box · Day shift", "Rake box"."""
        if self.box == RAKE_BOX:
            return "Rake box"
        return f"Drop box · {self.shift} shift" if self.shift else "Drop box · whole day"

    @property
    def words(self) -> str:
        """The box in a sentence: "table T1's drop box of gaming day 2026-03-02 (Day shift)"."""
        what = "rake box" if self.box == RAKE_BOX else "drop box"
        shift = f" ({self.shift} shift)" if self.shift else ""
        return f"table {self.table}'s {what} of gaming day {self.gaming_day.isoformat()}{shift}"

    def whole_day(self) -> Box:
        """The same table's box of the whole day (counted instead of the shifts' boxes)."""
        return Box(self.table, self.gaming_day, None, None, self.game, self.ready)


def tables_of(journal: Journal) -> list[str]:
    """The journal's tables, without the station's own chain, in natural order."""
    return sorted((t for t in journal.tables() if t not in RESERVED_TABLE_IDS), key=natural)


def natural(text: str) -> tuple[tuple[int, object], ...]:
    """A sort key that puts T2 before T10."""
    return tuple((0, int(p)) if p.isdigit() else (1, p.casefold())
                 for p in re.split(r"(\d+)", text) if p)


def _may_count(book: TableAccounting, ledger: Ledger, d: date, shift: str | None) -> bool:
    """Whether the table's accounting would take the drop of ``d`` (or its shift) now."""
    try:
        book.check_drop(ledger, d, shift)
    except AccountingRefused:
        return False
    return True


def _drop_boxes(book: TableAccounting, ledger: Ledger, game: str,
                zone: tzinfo | None) -> list[Box]:
    calendar = book.calendar
    out: list[Box] = []
    for d in sorted(ledger.days, reverse=True):
        day = ledger.days[d]
        if day.drop is not None:
            continue
        if not (day.shift_drops or day.shift_counts):
            if _may_count(book, ledger, d, None):
                out.append(Box(book.table_id, d, None, None, game,
                               _day_ready(day, calendar, d, zone)))
            continue
        whole = not day.shift_drops and _may_count(book, ledger, d, None)
        for shift in calendar.shifts:
            if day.shift_drop(shift.name) is None and _may_count(book, ledger, d, shift.name):
                out.append(Box(book.table_id, d, shift.name, None, game,
                               _shift_ready(day, calendar, d, shift.name, zone), whole))
    return out


def _day_ready(day: Day | None, calendar: GamingCalendar, d: date, zone: tzinfo | None) -> str:
    if day is not None and day.closer is not None:
        return f"Closer {clock(day.closer.ts, zone)}"
    return f"Day ended {clock(calendar.day(d).end.isoformat(), zone)}"


def _shift_ready(day: Day, calendar: GamingCalendar, d: date, shift: str,
                 zone: tzinfo | None) -> str:
    counted = day.shift_count(shift)
    if counted is not None:
        return f"Shift count {clock(counted.ts, zone)}"
    end = calendar.shift(d, shift).end
    if day.closer is not None and datetime.fromisoformat(day.closer.ts) < end:
        return f"Closer {clock(day.closer.ts, zone)}"
    return f"Shift ended {clock(end.isoformat(), zone)}"


def _rake_boxes(journal: Journal, book: TableAccounting, ledger: Ledger, game: str,
                now: datetime, zone: tzinfo | None) -> list[Box]:
    """A card room table's rake box of every gaming day it played (or has accounting
    records of) that closed or is over, not yet counted."""
    calendar = book.calendar
    played = {calendar.day_of(datetime.fromisoformat(r.ts))
              for r in journal.events(book.table_id, kinds=list(closing_statuses()))}
    out = []
    for d in sorted(played | set(ledger.days), reverse=True):
        day = ledger.days.get(d)
        if day is not None and day.rake_box is not None:
            continue
        closed = day is not None and day.closer is not None
        if closed or now >= calendar.day(d).end:
            out.append(Box(book.table_id, d, None, RAKE_BOX, game,
                           _day_ready(day, calendar, d, zone)))
    return out


def boxes_to_count(journal: Journal, settings: AccountingSettings, calendar: GamingCalendar,
                   tables: Iterable[str] | None = None) -> list[Box]:
    """Every box the count room may count now (see the module), newest gaming day first;
    in a day, by table, its drop boxes in the order of the shifts, then its rake box."""
    now = journal.clock()
    zone = calendar.zone
    out: list[Box] = []
    for table in (list(tables) if tables is not None else tables_of(journal)):
        book = TableAccounting(journal, table, settings, calendar)
        ledger = book.ledger()
        name = table_game(journal, table)
        found = games.REGISTRY.get(name) if name is not None else None
        game = found.label if found is not None else ""
        out += _drop_boxes(book, ledger, game, zone)
        if found is not None and found.supplies(WINS) is None:
            out += _rake_boxes(journal, book, ledger, game, now, zone)
    shifts = [s.name for s in calendar.shifts]

    def order(b: Box) -> tuple[int, tuple[tuple[int, object], ...], int]:
        place = (len(shifts) + 1 if b.box == RAKE_BOX else
                 shifts.index(b.shift) + 1 if b.shift in shifts else 0)
        return (-b.gaming_day.toordinal(), natural(b.table), place)

    return sorted(out, key=order)


# -- the variances -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Variance:
    """One table's gaming day whose variance is beyond the threshold."""

    table: str
    gaming_day: date
    variance: int
    statistical_win: int
    computed_win: int
    disposition: Disposition | None
    #: "rake": a card room table's rake (``computed_win``) against its counted rake box
    #: (``statistical_win``); None: the table's win against its drop.
    box: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.table, self.gaming_day.isoformat() + (f" {self.box}" if self.box else ""))

    @property
    def needs(self) -> bool:
        return self.disposition is None


def variances(journal: Journal, settings: AccountingSettings, calendar: GamingCalendar,
              tables: Iterable[str] | None = None) -> list[Variance]:
    """The table-days whose variance is beyond the threshold, as the master game report
    finds them: those needing a disposition first, then the newest."""
    from dealer_station.events.accounting import RAKE_BOX
    from dealer_station.reports.master_game import gather
    from dealer_station.reports.rake_variances import rake_variances

    names = list(tables) if tables is not None else tables_of(journal)
    found = gather(journal, settings, calendar, tables=names)
    out = []
    for d in found.days:
        v = d.variance
        if v is None or abs(v) <= settings.variance_threshold:
            continue
        out.append(Variance(d.table, d.gaming_day, v, _win(d), d.play.computed_win,
                            d.disposition))
    for table in names:
        for r in rake_variances(journal, table, settings, calendar):
            if r.variance is not None and abs(r.variance) > settings.variance_threshold:
                out.append(Variance(table, r.gaming_day, r.variance, r.counted or 0,
                                    r.rake or 0, r.disposition, RAKE_BOX))
    return sorted(out, key=lambda r: (not r.needs, -r.gaming_day.toordinal(),
                                      natural(r.table)))


def _win(d: TableDay) -> int:
    win = d.win
    assert win is not None          # a variance has a statistical win
    return win


def signed_money(amount: int, money: Callable[[int], str]) -> str:
    """An amount with its sign always written: "+3.00 USD", "−3.00 USD"."""
    sign = "+" if amount > 0 else "−" if amount < 0 else ""
    return sign + money(abs(amount))


def disposition_text(v: Variance, money: Callable[[int], str], names: Mapping[str, str],
                     zone: tzinfo | None, *, note_chars: int | None = None) -> str:
    """The variance's disposition in a line: "Adjusted (entry −3.00 USD): a chip found under
    the tray · Amy Accounts and Ben Accounts 09:12"; or "Needs a disposition". ``note_chars``:
    a longer note is cut there."""
    d = v.disposition
    if d is None:
        return NEEDS
    what = DISPOSITION_WORDS.get(d.disposition, d.disposition)
    if d.adjustment is not None:
        what += f" (entry {signed_money(d.adjustment, money)})"
    note = d.note
    if note_chars is not None and len(note) > note_chars:
        note = note[:note_chars - 1].rstrip() + "…"
    said = f"{what}: {note} · {people(d.signers, names)} {clock(d.at, zone)}"
    if d.variance != v.variance:
        said += f" · signed for a variance of {money(d.variance)}, now {money(v.variance)}"
    return said


def variance_story(v: Variance, money: Callable[[int], str], names: Mapping[str, str],
                   threshold: int, zone: tzinfo | None) -> list[str]:
    """The variance's facts for its disposition form, a line each."""
    if v.box:
        lines = [f"Table {v.table}, gaming day {v.gaming_day.isoformat()}: the card room's "
                 f"rake box.",
                 f"The rake box as counted: {money(v.statistical_win)}.",
                 f"The rake the hands journaled: {money(v.computed_win)}.",
                 f"Rake variance (counted − journaled): {money(v.variance)}, beyond the "
                 f"threshold of {money(threshold)}."]
    else:
        lines = [f"Table {v.table}, gaming day {v.gaming_day.isoformat()}.",
                 f"Statistical win (drop + credits − fills + closer − opener): "
                 f"{money(v.statistical_win)}.",
                 f"Computed win (the rounds the station settled): {money(v.computed_win)}.",
                 f"Variance: {money(v.variance)}, beyond the threshold of {money(threshold)}."]
    d = v.disposition
    if d is not None:
        lines.append(f"Already disposed of: {disposition_text(v, money, names, zone)}. A new "
                     f"disposition, once signed, is the one the reports print.")
    return lines


def notes_text(counts: Sequence[tuple[int, int]], face: Callable[[int], str]) -> str:
    """Notes by denomination, the largest first: "12 × 100, 40 × 20"."""
    return ", ".join(f"{n}\u00a0×\u00a0{face(d)}" for d, n in reversed(counts) if n) or "none"


__all__ = ["BOX_HEADERS", "DISPOSITION_WORDS", "NEEDS", "VARIANCE_HEADERS", "Box", "Variance",
           "boxes_to_count", "disposition_text", "natural", "notes_text", "signed_money",
           "tables_of", "variance_story", "variances"]
