"""The accounting PDFs: the master game report, the discrepancy report, and the printed slips:
the fill and credit slips and their requests (reports/slip_pdf.py, a page per copy) and the
table inventory slip of an opener, shift change or closer, with its control number and two
signature lines naming the people who signed in the journal.

Built on the report template (PDF/A, page N of M, the journal's verification on the last page).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, Spacer

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.figures import TableDay, hold
from dealer_station.accounting.glossary import (
    CASH,
    CLOSER,
    COMPUTED,
    CREDITS,
    DISPOSITION,
    DROP,
    FILLS,
    HOLD,
    MARKERS,
    OPENER,
    RETURNED,
    THEORETICAL_WIN,
    VARIANCE,
    WIN,
    meanings,
)
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal, Record
from dealer_station.errors import StationError
from dealer_station.events.base import Committed
from dealer_station.registry import label
from dealer_station.reports.master_game import MasterGame
from dealer_station.reports.pdf_style import p, rich
from dealer_station.reports.signature_lines import signature_lines, signer_names
from dealer_station.reports.slip_pdf import build_request_pdf, build_slip_pdf
from dealer_station.reports.source import Period, coverage, covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, TableCheck, facts, grid
from dealer_station.reports.text import local

#: A table's gaming day (or shift) in the master game report, in its columns' order.
DAY_COLUMNS = (OPENER, CLOSER, FILLS, CREDITS, DROP, WIN, HOLD, COMPUTED, VARIANCE,
               THEORETICAL_WIN)


def _pct(value: Fraction | None) -> str:
    if value is None:
        return "-"
    scaled = value * 10000
    n = int(abs(scaled) + Fraction(1, 2))
    sign = "-" if scaled < 0 and n else ""
    return f"{sign}{n // 100}.{n % 100:02d}%"


def _money_cols(settings: AccountingSettings) -> str:
    return f"amounts in {settings.money.label}"


def build_master_game_pdf(journal: Journal, report: MasterGame, *, out: Path | str,
                          paper: str = "A4", by_shift: bool = False) -> BuiltReport:
    s = report.settings
    days = report.days
    tables = sorted({d.table for d in days}) or sorted(report.ledgers)
    if not tables:
        raise StationError("no table has accounting records: nothing to report")
    period = (f"gaming days {days[0].gaming_day} to {max(d.gaming_day for d in days)}"
              if days else "no gaming day")
    r = ReportBuilder(kind="master-game", title="Master game report",
                      table=", ".join(tables) if len(tables) <= 4 else f"{len(tables)} tables",
                      period=period, subject=_money_cols(s), paper=paper,
                      landscape_pages=True)
    r.meta.printed = local(journal.clock())
    w = r.width
    m = s.money.text

    def amt(v: int | None) -> str:
        return "-" if v is None else s.money.number(v)

    total_win = sum(d.win or 0 for d in days)
    total_drop = sum(d.drop or 0 for d in days if d.win is not None)
    r.add(facts([
        ("Tables", ", ".join(tables)),
        ("Period", period),
        ("Statistical win", f"{m(total_win)} on a drop of {m(total_drop)} (hold "
                            f"{_pct(hold(total_win, total_drop))})"),
        ("Computed win", m(sum(d.play.computed_win for d in days))),
        (RETURNED.label, f"{m(sum(d.play.voided_returned for d in days))} ("
                         f"{RETURNED.meaning})"),
        ("Theoretical win", m(sum(d.theoretical_win for d in days))),
        ("Formulas", "win = drop + credits - fills + (closer - opener); hold = win / drop; "
                     "computed win = stakes lost - amounts paid; variance = win - computed "
                     "win (negative: the tray is short of what the station settled); "
                     "theoretical = each wager x its spot's house edge"),
    ], widths=(40 * mm, w - 40 * mm)))
    r.heading("By table and gaming day")
    headers = ["Table", "Gaming day", *(t.label for t in DAY_COLUMNS), "MTD win", "MTD hold",
               "YTD win", "YTD hold"]
    rows = [[d.table, d.gaming_day.isoformat(), amt(d.opener), amt(d.closer), amt(d.fills),
             amt(d.credits), amt(d.drop), amt(d.win), _pct(d.hold), amt(d.play.computed_win),
             amt(d.variance), amt(d.theoretical_win), amt(d.mtd_win),
             _pct(hold(d.mtd_win, d.mtd_drop)), amt(d.ytd_win),
             _pct(hold(d.ytd_win, d.ytd_drop))] for d in days]
    rows.append(["Total", "", "", "", amt(sum(d.fills for d in days)),
                 amt(sum(d.credits for d in days)), amt(sum(d.drop or 0 for d in days)),
                 amt(total_win), _pct(hold(total_win, total_drop)),
                 amt(sum(d.play.computed_win for d in days)),
                 amt(sum(d.variance or 0 for d in days)),
                 amt(sum(d.theoretical_win for d in days)), "", "", "", ""])
    widths = [0.035, 0.075, 0.065, 0.065, 0.065, 0.065, 0.065, 0.065, 0.06, 0.065, 0.06,
              0.065, 0.065, 0.06, 0.065, 0.06]
    r.add(grid(headers, rows, [w * x for x in widths], numeric=tuple(range(2, 16)),
               bold_last=True))
    r.add(p(meanings(DAY_COLUMNS) + " MTD and YTD are month and year to date up to each "
            "gaming day. A dash: not known yet (the drop not counted, or the tray not "
            "closed).", "note"))
    _drop_and_count(r, days, amt)
    if by_shift:
        _by_shift(r, report, amt)
    _discrepancies(r, days, s, report.shifts if by_shift else [])
    return r.build_tables(out, _table_checks(journal, report, tables),
                          note="Each table's chain was verified in full. Attached for each "
                               "table: its records from the start of its first gaming day "
                               "in the report to its newest (the drop of a day is counted "
                               "after the day); month and year to date also read its "
                               "earlier records, verified with the rest.",
                          data=days, signatures=("Prepared by", "Reviewed by"))


def _table_checks(journal: Journal, report: MasterGame,
                  tables: Sequence[str]) -> list[TableCheck]:
    """Each table's chain verified in full, and the records the report covers: from the
    start of the table's first gaming day in the report to its newest record."""
    checks = []
    for table in tables:
        mine = [d.gaming_day for d in report.days if d.table == table]
        since = report.calendar.day(min(mine)).start if mine else None
        cov = coverage(journal, table, Period(since, None))
        checks.append(TableCheck(journal.verify_table(table), cov.first, cov.last,
                                 covered_records(journal, table, cov.first, cov.last)))
    return checks


def _drop_and_count(r: ReportBuilder, days: Sequence[TableDay],
                    amt: Callable[[int | None], str]) -> None:
    """Each day's game, its drop split into cash and markers, and the soft count that found
    it: when and by whom."""
    r.heading("Drop and count")
    w = r.width
    rows = [[d.table, d.gaming_day.isoformat(), label(d.game) if d.game else "-",
             amt(d.drop_cash), amt(d.drop_markers), amt(d.drop), d.count_date or "-",
             ", ".join(d.count_team) or "-"] for d in days]
    r.add(grid(["Table", "Gaming day", "Game", CASH.label, MARKERS.label, DROP.label,
                "Count date", "Count team"], rows,
               [w * x for x in (0.06, 0.09, 0.1, 0.1, 0.1, 0.1, 0.09, 0.34)],
               numeric=(3, 4, 5), wrap=(7,)))
    r.add(p(meanings((CASH, MARKERS, DROP)) + " Count date: the day the soft count was "
            "entered (UTC); count team: the accounting users who signed it. A dash: not "
            "counted yet.", "note"))


def _by_shift(r: ReportBuilder, report: MasterGame, amt: Callable[[int | None], str]) -> None:
    """A section per table's gaming day: its shifts, each counted at the shift change."""
    r.heading("By shift")
    r.add(p("The tray is counted at each shift change: that count closes the outgoing shift "
            "and opens the next (the day's opener opens the first, its closer closes the "
            "last). Fills, credits and rounds belong to the shift in which they were "
            "journaled; the drop is the soft count's for each shift's drop box. The shifts "
            "of a day add up to the day.", "note"))
    w = r.width
    headers = ["Table", "Gaming day", "Shift", *(t.label for t in DAY_COLUMNS)]
    widths = [0.05, 0.09, 0.09, 0.08, 0.08, 0.07, 0.07, 0.08, 0.08, 0.06, 0.08, 0.08, 0.09]
    for day in report.days:
        shifts = report.shifts_of(day)
        if not shifts:
            continue
        rows = [[x.table, x.gaming_day.isoformat(), x.shift or "", amt(x.opener),
                 amt(x.closer), amt(x.fills), amt(x.credits), amt(x.drop), amt(x.win),
                 _pct(x.hold), amt(x.play.computed_win), amt(x.variance),
                 amt(x.theoretical_win)] for x in shifts]
        rows.append(["Day", day.gaming_day.isoformat(), "", amt(day.opener), amt(day.closer),
                     amt(day.fills), amt(day.credits), amt(day.drop), amt(day.win),
                     _pct(day.hold), amt(day.play.computed_win), amt(day.variance),
                     amt(day.theoretical_win)])
        r.add(KeepTogether([grid(headers, rows, [w * x for x in widths],
                                 numeric=tuple(range(3, 13)), bold_last=True),
                            Spacer(1, 3 * mm)]))


def _discrepancies(r: ReportBuilder, days: Sequence[TableDay], s: AccountingSettings,
                   shifts: Sequence[TableDay] = ()) -> None:
    r.heading("Discrepancies")
    m = s.money.text
    whole = {(d.table, d.gaming_day): d for d in days}

    def disposed(d: TableDay, e: str) -> str:
        """A variance's disposition, or that it still needs one; other exceptions have none.
        A shift's variance without a disposition of its own is disposed with its day's."""
        if not e.startswith("variance"):
            return ""
        x, of_day = d.disposition, ""
        day = whole.get((d.table, d.gaming_day))
        if x is None and d.shift is not None and day is not None:
            x, of_day = day.disposition, "With the day's: "
            d = day
        if x is None:
            return "Needs a disposition"
        said = of_day + (f"{x.disposition} {local(x.at)} by " if of_day else
                         f"{x.disposition.capitalize()} {local(x.at)} by ")
        said += (f"{' and '.join(x.signers)} (record {x.seq}): {x.note}")
        if x.adjustment is not None:
            said += f"; adjusting entry {m(x.adjustment)}"
        if d.variance is not None and x.variance != d.variance:
            said += (f". Signed for a variance of {m(x.variance)}; the variance is now "
                     f"{m(d.variance)}")
        return said

    rows = [[d.table, d.gaming_day.isoformat(), "whole day", e, disposed(d, e)] for d in days
            for e in d.exceptions]
    # A shift's variance beyond the threshold (a day's shifts may offset one another); the
    # shifts' other exceptions are the day's, listed above.
    rows += [[d.table, d.gaming_day.isoformat(), d.shift or "", e, disposed(d, e)]
             for d in shifts for e in d.exceptions if e.startswith("variance")]
    rows.sort(key=lambda row: (row[0], row[1]))
    r.add(p(f"Variance threshold {m(s.variance_threshold)} (a day's and each shift's); "
            f"opener-to-previous-closer tolerance {m(s.inventory_tolerance)} "
            f"(from {s.source}).", "small"))
    if rows:
        w = r.width
        r.add(grid(["Table", "Gaming day", "Shift", "Exception", DISPOSITION.label], rows,
                   [w * 0.07, w * 0.1, w * 0.09, w * 0.4, w * 0.34], wrap=(3, 4)))
        r.add(p(DISPOSITION.said(), "note"))
    else:
        r.add(p("None: every table's variance is within the threshold, every opener matches "
                "the previous closer, and no slip was voided."))
    if shifts:
        r.add(p("Shifts looked at: " + ", ".join(dict.fromkeys(d.shift or "" for d in shifts)) +
                " (the tray counted at each shift change).", "small"))


def build_discrepancy_pdf(journal: Journal, report: MasterGame, *, out: Path | str,
                          paper: str = "A4", by_shift: bool = True) -> BuiltReport:
    days = report.days
    tables = sorted({d.table for d in days}) or sorted(report.ledgers)
    if not tables:
        raise StationError("no table has accounting records: nothing to report")
    period = (f"gaming days {days[0].gaming_day} to {max(d.gaming_day for d in days)}"
              if days else "no gaming day")
    r = ReportBuilder(kind="discrepancies", title="Discrepancy report",
                      table=", ".join(tables) if len(tables) <= 4 else f"{len(tables)} tables",
                      period=period, subject=_money_cols(report.settings), paper=paper)
    r.meta.printed = local(journal.clock())
    _discrepancies(r, days, report.settings, report.shifts if by_shift else [])
    return r.build_tables(out, _table_checks(journal, report, tables), data=days,
                          note="Each table's chain was verified in full. Attached for each "
                               "table: its records from the start of its first gaming day "
                               "in the report to its newest.",
                          signatures=("Reviewed by",))


# --- slips ---------------------------------------------------------------------------------

def _signers(journal: Journal, actors: Sequence[str], roles: Sequence[str], width: float
             ) -> KeepTogether:
    """Two signature lines, each with the role, the signer's name and id as journaled."""
    names = signer_names(journal, actors)
    return signature_lines("Signatures", ["", "Name (as signed in)", "", "Signature"],
                           [[p(role, "small"), name, ""]
                            for role, name in zip(roles, names, strict=False)],
                           [0.2, 0.38, 0.04, 0.38], width)


def _chip_rows(chips: Chips, s: AccountingSettings) -> list[list[str]]:
    number = s.money.number
    rows = [[number(d), f"{chips.count(d):,}", number(d * chips.count(d))]
            for d in s.denominations]
    rows.append(["Total", f"{chips.chip_count:,}", number(chips.total)])
    return rows


def _slip_pdf(journal: Journal, table: str, *, title: str, number: str, seq: int, ts: str,
              actor_list: Sequence[str], roles: Sequence[str], chips: Chips,
              extra: list[tuple[str, str]], s: AccountingSettings, out: Path | str,
              paper: str) -> BuiltReport:
    """A table inventory slip (fill and credit slips: reports/slip_pdf.py)."""
    record = next(journal.records(table, from_seq=seq, to_seq=seq))
    r = ReportBuilder(kind="slip", title=title, table=table, period=f"number {number}",
                      subject=_money_cols(s), paper=paper)
    r.meta.printed = local(journal.clock())
    w = r.width
    r.add(rich(f"<b>{escape(title)} {escape(number)}</b>", "h1"))
    r.add(facts([("Table", table), ("Number", number), *extra,
                 ("Recorded", f"{local(ts)} (journal record {seq})"),
                 ("Signed in the journal by", " and ".join(actor_list))],
                widths=(50 * mm, w - 50 * mm)))
    r.heading("Chips by denomination")
    r.add(grid(["Denomination", "Chips", "Value"], _chip_rows(chips, s),
               [w * 0.3, w * 0.2, w * 0.3], numeric=(0, 1, 2), bold_last=True))
    r.add(_signers(journal, actor_list, roles, w))
    return r.build(out, journal.verify_table(table), record, record,
                   evidence=covered_records(journal, table, record, record))


def build_inventory_pdf(journal: Journal, ledger: Ledger, settings: AccountingSettings,
                        which: str, gaming_day: str, *, out: Path | str, paper: str = "A4",
                        shift: str | None = None) -> BuiltReport:
    """The table inventory slip of a gaming day's opener or closer, or of the count at the
    end of one of its shifts (``which`` "shift")."""
    from datetime import date

    day = ledger.days.get(date.fromisoformat(gaming_day))
    c: Committed | None = None
    if day is not None:
        if which == "shift":
            c = day.shift_count(shift or "")
            which = f"shift change, end of {shift}"
        else:
            c = day.opener if which == "opener" else day.closer
    if c is None:
        raise StationError(f"no {which} count of gaming day {gaming_day} at table "
                           f"{ledger.table}")
    e = c.event
    chips = Chips.from_payload(e.chips)  # type: ignore[attr-defined]
    return _slip_pdf(journal, ledger.table, title=f"Table inventory slip ({which})",
                     number=inventory_number(ledger, c), seq=c.seq, ts=c.ts,
                     actor_list=list(e.signers),  # type: ignore[attr-defined]
                     roles=("Dealer", "Supervisor"), chips=chips,
                     extra=[("Gaming day", gaming_day)], s=settings, out=out, paper=paper)


def inventory_number(ledger: Ledger, count: Committed) -> str:
    """The control number of a table inventory slip: ``T1-INV-2026-00012``, the table's
    inventory counts (openers, shift changes and closers alike) numbered in the order the
    journal holds them, from 1 each calendar year of the gaming day. It is made from the chain
    alone, so a reprint carries the same number and no two slips of a table share one."""
    years: dict[int, int] = {}      # each count's record, and its gaming day's year
    for d, day in sorted(ledger.days.items()):
        for c in (day.opener, day.closer, *day.shift_counts.values()):
            if c is not None:
                years.setdefault(c.seq, d.year)
    y = years[count.seq]
    n = 1 + sum(1 for seq, year in years.items() if seq < count.seq and year == y)
    return f"{ledger.table}-INV-{y}-{n:05d}"


__all__ = ["Record", "build_discrepancy_pdf", "build_inventory_pdf", "build_master_game_pdf",
           "build_request_pdf", "build_slip_pdf", "inventory_number"]
