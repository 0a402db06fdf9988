"""The count sheet: one box as the count room counted it, on paper (docs/accounting.md, "The
count room's screen").

Printed from the box's ``drop.count`` record alone: its control number (``T1-CNT-2026-00003``:
the table's counts numbered in the order the journal holds them, from 1 each year of the
gaming day, so a reprint carries the same number), the table and its game, the gaming day,
the shift (a box changed at the shift change) and which box (the drop box, or a card room
table's rake box); the notes by denomination, their number and value; the markers or counter
checks apart, their number and total; the cash, and the box's total; when it was counted and
when each member of the count team typed their PIN (their sign-in at the table, just before
the count's record), each with a line to sign. Built on the report template (PDF/A, page N of
M), with the journal's verification of the table's chain and the count's record attached.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.glossary import CASH, DROP, MARKERS, RAKE_BOX, meanings
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.events.accounting import RAKE_BOX as RAKE
from dealer_station.events.accounting import DropCounted
from dealer_station.events.base import Committed
from dealer_station.registry import label
from dealer_station.reports.pdf_style import p, rich
from dealer_station.reports.signature_lines import signature_lines, signer_names
from dealer_station.reports.source import covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid
from dealer_station.reports.text import local
from dealer_station.table.accounting import table_game


def count_record(ledger: Ledger, gaming_day: date, *, shift: str | None = None,
                 box: str | None = None) -> Committed:
    """The ``drop.count`` of the table's box of ``gaming_day`` (its ``shift``'s, or its rake
    box); a refusal in words when the box was not counted."""
    day = ledger.days.get(gaming_day)
    c = None
    if day is not None:
        c = (day.rake_box if box == RAKE else day.shift_drop(shift) if shift is not None
             else day.drop)
    if c is None:
        what = "rake box" if box == RAKE else "drop box"
        of = f", {shift} shift" if shift else ""
        if day is not None and day.shift_drops and shift is None and box != RAKE:
            raise StationError(f"table {ledger.table}: the drop box of gaming day "
                               f"{gaming_day} was counted shift by shift, not as a whole: "
                               f"give --shift ({', '.join(day.shift_drops)})")
        raise StationError(f"table {ledger.table}: the {what} of gaming day {gaming_day}{of} "
                           f"was not counted")
    return c


def count_number(ledger: Ledger, count: Committed) -> str:
    """The count sheet's control number: the table's counts (drop boxes, shifts' and rake
    boxes alike) numbered in chain order, from 1 each year of the gaming day."""
    years: dict[int, int] = {}
    for d, day in sorted(ledger.days.items()):
        for c in (day.drop, day.rake_box, *day.shift_drops.values()):
            if c is not None:
                years.setdefault(c.seq, d.year)
    y = years[count.seq]
    n = 1 + sum(1 for seq, year in years.items() if seq < count.seq and year == y)
    return f"{ledger.table}-CNT-{y}-{n:05d}"


def _pins(journal: Journal, table: str, seq: int, actors: Sequence[str]) -> dict[str, str]:
    """When each signer last signed in at the table before record ``seq`` (their PIN)."""
    found: dict[str, str] = {}
    for r in journal.records(table, to_seq=seq, kinds=["login"]):
        if r.actor in actors:
            found[r.actor] = r.ts
    return found


def _team(journal: Journal, actors: Sequence[str], pins: dict[str, str], width: float
          ) -> KeepTogether:
    """A line per member of the count team: name (as signed in), when their PIN was typed,
    and a line to sign."""
    names = signer_names(journal, actors)
    return signature_lines("The count team", ["Name (as signed in)", "PIN typed", "",
                                              "Signature"],
                           [[name, p(local(pins.get(actor)), "small"), ""]
                            for actor, name in zip(actors, names, strict=True)],
                           [0.36, 0.26, 0.04, 0.34], width)


def build_count_sheet_pdf(journal: Journal, ledger: Ledger, settings: AccountingSettings,
                          gaming_day: date, *, out: Path | str, paper: str = "A4",
                          shift: str | None = None, box: str | None = None) -> BuiltReport:
    """The count sheet of the table's box of ``gaming_day`` (``shift``: that shift's box;
    ``box`` "rake": its rake box), from its ``drop.count`` record."""
    c = count_record(ledger, gaming_day, shift=shift, box=box)
    e = c.event
    assert isinstance(e, DropCounted)
    table = ledger.table
    money = settings.money
    number = count_number(ledger, c)
    rake = e.box == RAKE
    what = RAKE_BOX.label if rake else "Drop box"
    record = next(journal.records(table, from_seq=c.seq, to_seq=c.seq))
    r = ReportBuilder(kind="count-sheet", title="Count sheet", table=table,
                      period=f"number {number}", subject=f"amounts in {money.label}",
                      paper=paper)
    r.meta.printed = local(journal.clock())
    w = r.width
    game = table_game(journal, table)
    r.add(rich(f"<b>Count sheet {escape(number)}</b>", "h1"))
    r.add(facts([("Table", table + (f" ({label(game)})" if game else "")),
                 ("Gaming day", e.gaming_day),
                 ("Shift", f"{e.shift} (its drop box changed at the shift change)" if e.shift
                  else "the whole gaming day"),
                 ("Box", what),
                 ("Counted", f"{local(c.ts)} (journal record {c.seq})"),
                 ("Count team", ", ".join(e.signers))],
                widths=(50 * mm, w - 50 * mm)))
    r.heading("Notes by denomination")
    notes = Chips.from_payload(e.currency) if e.currency is not None else None
    if notes is None:
        r.add(p("Not counted by note: this count was entered as a total "
                f"({money.text(e.cash)} cash).", "note"))
    else:
        rows = [[money.number(d), f"{notes.count(d):,}", money.number(d * notes.count(d))]
                for d in sorted(set(settings.currency_denominations) | set(notes.as_dict()))]
        rows.append([CASH.label, f"{notes.chip_count:,}", money.number(notes.total)])
        r.add(grid(["Note", "Notes", "Value"], rows, [w * 0.3, w * 0.2, w * 0.3],
                   numeric=(0, 1, 2), bold_last=True))
    r.heading("Totals")
    count = e.marker_count if e.marker_count is not None else "-"
    totals = [[CASH.label, "", money.number(e.cash)],
              [MARKERS.label, f"{count}", money.number(e.markers)],
              [RAKE_BOX.label if rake else DROP.label, "", money.number(e.total)]]
    r.add(grid(["", "Number", "Amount"], totals, [w * 0.3, w * 0.2, w * 0.3],
               numeric=(1, 2), bold_last=True))
    terms = (CASH, MARKERS, RAKE_BOX) if rake else (CASH, MARKERS, DROP)
    r.add(p(meanings(terms), "note"))
    r.add(_team(journal, e.signers, _pins(journal, table, c.seq, e.signers), w))
    return r.build(out, journal.verify_table(table), record, record,
                   evidence=covered_records(journal, table, record, record))


__all__ = ["build_count_sheet_pdf", "count_number", "count_record"]
