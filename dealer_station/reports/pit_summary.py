"""The pit report: every table of a pit (or of the floor) side by side for one period.

A pit supervisor's page for a gaming day or a shift: a row per table with its game, rounds,
wagered, paid, house win and hold, who dealt and how many exceptions, totals per money, then
every exception of the period table by table. Each table's figures are the shift report's
(``shift.gather``: the meters of the closing records in the period), so the two never differ,
and each table's chain is verified and its covered records attached, as in every report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dealer_station import registry
from dealer_station.accounting.glossary import (
    HOUSE_WIN,
    PAID,
    RETURNED,
    WAGERED,
    WIN_PCT_OF_HANDLE,
    meanings,
)
from dealer_station.audit import schema
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.events.table import ConfigChanged
from dealer_station.money import Money
from dealer_station.reports.pdf_style import p
from dealer_station.reports.shift import Figures, ShiftData, exception_rows, gather
from dealer_station.reports.source import Period, covered_records, game_label
from dealer_station.reports.template import BuiltReport, ReportBuilder, TableCheck, grid
from dealer_station.reports.text import local, percent
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification

TITLE = "Pit report"


def game_tables(journal: Journal) -> list[str]:
    """The journal's game tables: the streams that record a configuration (every table does
    when it opens), so users, the floor's and the pits' own chains are left out."""
    from sqlalchemy import select

    j = schema.journal
    with journal.db.read() as conn:
        rows = conn.execute(select(j.c.table_id).where(j.c.kind == ConfigChanged.KIND)
                            .distinct()).scalars().all()
    return sorted(str(t) for t in rows)


def chosen_tables(journal: Journal, tables: Sequence[str] | None) -> list[str]:
    """The game tables a report covers: those named (each must be one of the journal's), or
    every one; a clear error for a name the journal does not hold, or for no table at all."""
    known = game_tables(journal)
    chosen = list(tables) if tables else known
    unknown = [t for t in chosen if t not in known]
    if unknown:
        raise StationError(f"no game table {', '.join(map(repr, unknown))} in this journal"
                           + (f" (tables: {', '.join(known)})" if known else ""))
    if not chosen:
        raise StationError("the journal holds no tables yet: nothing to report")
    return chosen


@dataclass(frozen=True)
class PitData:
    """Every figure the pit report prints (tests compare these with the shift reports)."""

    scope: str
    period: Period
    label: str
    tables: list[ShiftData]

    def totals(self) -> dict[Money, Figures]:
        """Each money's total over the tables that count in it (never chips plus dollars)."""
        out: dict[Money, Figures] = {}
        for t in self.tables:
            out[t.money] = out.get(t.money, Figures()).plus(t.total)
        return out

    def returned_in(self, money: Money) -> int | None:
        """What the voids of the tables in ``money`` handed back (None: one not known)."""
        found = [t.returned_by_voids for t in self.tables if t.money == money]
        return None if any(x is None for x in found) else sum(x or 0 for x in found)


def _amount(money: Money, value: int | None) -> str:
    """An amount, or "not known" (a voided round that could not be recalled)."""
    return "not known" if value is None else money.number(value)


def _banked(data: ShiftData) -> bool:
    """A hold means something only where the house plays against the players."""
    return all(registry.REGISTRY[g].banked for g in data.games if g in registry.REGISTRY)


def _dealers(data: ShiftData) -> str:
    return ", ".join(f"{d.dealer} ({d.rounds:,})" for d in data.dealers) or "-"


def period_label(period: Period, name: str = "") -> str:
    """How the header prints the period: ``name`` (a gaming day, a shift) and its times."""
    if period.is_everything:
        return name or "everything recorded"
    start = local(period.since) if period.since else "the first record"
    end = local(period.until) if period.until else "the last record"
    return f"{name}: {start} to {end}" if name else f"{start} to {end}"


def render(data: PitData, out: Path | str, checks: Sequence[TableCheck], *,
           paper: str = "A4") -> BuiltReport:
    r = ReportBuilder(kind="pit", title=TITLE, table=data.scope, period=data.label,
                      subject=f"{len(data.tables)} table(s)", paper=paper, landscape_pages=True)
    r.meta.place = data.scope
    w = r.width
    rows: list[list[str]] = []
    for t in data.tables:
        f, fmt = t.total, t.money.number
        games = ", ".join(game_label(g) for g in t.games) or "-"
        rows.append([t.table, games, f"{t.rounds_played:,}", f"{t.rounds_voided:,}",
                     fmt(f.wagered), fmt(f.paid), fmt(f.house_win),
                     _amount(t.money, t.returned_by_voids),
                     percent(f.hold) if _banked(t) else "-",
                     t.money.label, _dealers(t), f"{len(t.exceptions):,}"])
    r.heading(f"Tables ({len(data.tables)})", level=1)
    r.add(grid(["Table", "Game", "Rounds", "Voided", WAGERED.label, PAID.label, HOUSE_WIN.label,
                RETURNED.label, WIN_PCT_OF_HANDLE.label, "In", "Dealers (rounds)",
                "Exceptions"], rows,
               [w * 0.07, w * 0.09, w * 0.06, w * 0.06, w * 0.1, w * 0.1, w * 0.1,
                w * 0.08, w * 0.07, w * 0.05, w * 0.14, w * 0.08],
               numeric=(2, 3, 4, 5, 6, 7, 8, 11), wrap=(10,)))
    totals = data.totals()
    r.heading("Totals")
    r.add(grid(["In", "Tables", "Rounds", WAGERED.label, PAID.label, HOUSE_WIN.label,
                RETURNED.label, WIN_PCT_OF_HANDLE.label],
               [[m.label, f"{sum(1 for t in data.tables if t.money == m):,}",
                 f"{f.rounds:,}", m.number(f.wagered), m.number(f.paid), m.number(f.house_win),
                 _amount(m, data.returned_in(m)),
                 percent(f.hold) if all(_banked(t) for t in data.tables if t.money == m)
                 else "-"] for m, f in totals.items()],
               [w * 0.1, w * 0.07, w * 0.09, w * 0.14, w * 0.14, w * 0.14, w * 0.12, w * 0.12],
               numeric=(1, 2, 3, 4, 5, 6, 7)))
    r.add(p("Each table's figures are those of its shift report for the same period: the "
            "meters of the rounds that closed in it. Rounds: the rounds that closed in the "
            "period, settled or voided (Voided: those voided). "
            + meanings((WAGERED, PAID, HOUSE_WIN, RETURNED, WIN_PCT_OF_HANDLE))
            + f" {WIN_PCT_OF_HANDLE.label} is for banked games only. Tables are totalled only "
            "with tables of the same money." + "".join(f" {g.meters_note}" for g in map(
                registry.REGISTRY.get, sorted({x for t in data.tables for x in t.games}))
                if g is not None and g.meters_note), "note"))
    r.heading("Exceptions, table by table")
    exc_rows: list[list[str]] = []
    for t in data.tables:
        exc_rows += [[t.table, *row] for row in exception_rows(t.exceptions, t.money.text)]
    if exc_rows:
        r.add(grid(["Table", "Time", "Round", "What", "Who", "Why", "Detail"], exc_rows,
                   [w * 0.07, w * 0.14, w * 0.06, w * 0.1, w * 0.16, w * 0.23, w * 0.24],
                   numeric=(2,), wrap=(4, 5, 6)))
    else:
        r.add(p("No voids, corrections, misreads, device faults, reneges or other exceptions "
                "at any table in the period."))
    return r.build_tables(out, checks, data=data,
                          signatures=("Pit supervisor", "Shift manager"))


def build_pit_report(journal: Journal, tables: Sequence[str] | None, period: Period | None
                     = None, *, out: Path | str, scope: str = "", period_name: str = "",
                     paper: str = "A4",
                     background_above: int = BACKGROUND_ABOVE_RECORDS) -> BuiltReport:
    """Write the pit report of ``tables`` (default: every game table of the journal) for
    ``period`` (default: everything recorded). ``scope`` names them in the header (a pit, a
    group, "the floor"); ``period_name`` names the period (a gaming day, a shift)."""
    period = period or Period()
    chosen = chosen_tables(journal, tables)
    verifications = [Verification(journal, t, background_above=background_above)
                     for t in chosen]
    try:
        data = PitData(scope or ("Every table" if not tables else "Tables " + ", ".join(chosen)),
                       period,
                       period_label(period, period_name),
                       [gather(journal, t, period) for t in chosen])
        checks = [TableCheck(v.result(), d.coverage.first, d.coverage.last,
                             covered_records(journal, d.table, d.coverage.first,
                                             d.coverage.last))
                  for v, d in zip(verifications, data.tables, strict=True)]
        return render(data, out, checks, paper=paper)
    finally:
        for v in verifications:
            v.cancel()
