"""The master game report's figures: per table per gaming day, the count room's win beside
the station's (docs/accounting.md).

The statistical figures (opener, closer, fills, credits, drop, win, hold, month and year to
date) come from the table's accounting records; computed and theoretical win from the rounds
that closed in the gaming day (the game's ``wins`` part). Every record is checked against its
keyed hash as it is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import bindparam, func, select

from dealer_station.accounting.figures import (
    Disposition,
    Play,
    TableDay,
    apportion,
    fraction_json,
    hold,
    to_dates,
)
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.requests import slip_label
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.accounting.shifts import count_details, day_drop, day_drops, shift_rows
from dealer_station.audit import schema
from dealer_station.audit.journal import Journal, iso_utc
from dealer_station.audit.lease import RESERVED_TABLE_IDS
from dealer_station.errors import StationError
from dealer_station.events.accounting import DayPlayed, TrayDifference, VarianceDisposed
from dealer_station.events.base import Committed
from dealer_station.events.kinds import closing_statuses
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting, span_play, table_game, table_wins
from dealer_station.table.wins import Span, WinsBySpan

J = schema.journal


@dataclass
class MasterGame:
    """The rows of the report and what they were read with."""

    days: list[TableDay]
    settings: AccountingSettings
    calendar: GamingCalendar
    ledgers: dict[str, Ledger]
    #: With ``by_shift``: every shift of every row's gaming day, in order.
    shifts: list[TableDay] = field(default_factory=list)

    def shifts_of(self, day: TableDay) -> list[TableDay]:
        return [s for s in self.shifts
                if s.table == day.table and s.gaming_day == day.gaming_day]


def gather(journal: Journal, settings: AccountingSettings, calendar: GamingCalendar, *,
           tables: Iterable[str] | None = None, first: date | None = None,
           last: date | None = None, recompute: bool = False,
           by_shift: bool = False, known_shifts_only: bool = False) -> MasterGame:
    """Rows for every table (or ``tables``) and every gaming day with accounting records
    from ``first`` to ``last`` (both included; default: all of them). A card room's table
    (a game the house does not bank) has no win to report here: its bank and its rake
    against the counted box are the card-room report's.

    A closed day's play is its ``day.play`` record (summed when the closer was counted),
    unless a round closed in the day after it, or ``recompute``: then it is summed again
    from the rounds. ``by_shift`` adds a row per shift of every day (``MasterGame.shifts``),
    its play read from the same record (a version-3 record carries every shift's, when its
    shifts are still the calendar's), else summed from the rounds that closed in the shift
    (``known_shifts_only``: only for the days with a shift whose win is known, as the
    discrepancy report needs: the others' rounds are not read)."""
    names = list(tables) if tables is not None else [
        t for t in journal.tables() if t not in RESERVED_TABLE_IDS]
    rows: list[TableDay] = []
    shifts: list[TableDay] = []
    ledgers: dict[str, Ledger] = {}
    for table in names:
        game = table_game(journal, table)
        if game is not None and table_wins(journal, table) is None:
            continue    # a card room's table: the card-room report holds its bank and rake
        ledger = TableAccounting(journal, table, settings, calendar).ledger()
        ledgers[table] = ledger
        wanted = sorted(d for d in ledger.days
                        if (first is None or d >= first) and (last is None or d <= last))
        if not wanted:
            continue
        # Month and year to date need every day since the first January before the first row.
        since_jan = date(wanted[0].year, 1, 1)
        all_days = [_statistical(table, ledger, d, settings, calendar)
                    for d in sorted(ledger.days) if since_jan <= d <= wanted[-1]]
        to_dates(all_days)
        mine = [d for d in all_days if d.gaming_day in set(wanted)]
        stale = set() if recompute else _closed_after(journal, table, calendar, [
            s for s in (ledger.days[row.gaming_day].play for row in mine) if s is not None])
        _add_play(journal, table, mine, calendar, ledger, recompute, stale)
        for d in mine:
            d.check(settings.variance_threshold, settings.money.text)
            d.game = game
        rows += mine
        if by_shift:
            for s in _shifts(journal, table, ledger, mine, settings, calendar,
                             known_shifts_only, None if recompute else stale):
                s.game = game
                shifts.append(s)
    return MasterGame(rows, settings, calendar, ledgers, shifts)


def _shifts(journal: Journal, table: str, ledger: Ledger, days: list[TableDay],
            settings: AccountingSettings, calendar: GamingCalendar,
            known_only: bool = False, stale: set[date] | None = None) -> list[TableDay]:
    """Every shift of ``days`` (one table's, in order): the count room's figures from the
    shift counts and drops, the station's from the day's ``day.play`` record where it holds
    the shifts' figures and no round closed in the day after it (``stale``: the days where
    one did; None: recompute, every shift from its rounds), else from the rounds that closed
    in each shift; month and year to date run on through the day's shifts."""
    out: list[TableDay] = []
    by_shift: dict[tuple[date, str], TableDay] = {}
    of_day: dict[date, list[TableDay]] = {}
    recorded: dict[date, dict[str, Play]] = {}
    if stale is not None:
        for day in days:
            held = recorded_shifts(ledger.days[day.gaming_day].play, day.gaming_day, calendar)
            if held is not None and day.gaming_day not in stale:
                recorded[day.gaming_day] = held
    for day in days:
        rows = shift_rows(table, ledger, day.gaming_day, calendar, settings.money.text)
        # To date before the day, then each known shift's win and drop added in turn.
        win = day.win if day.win is not None and day.drop is not None else 0
        drop = day.drop if day.win is not None and day.drop is not None else 0
        mw, md, yw, yd = (day.mtd_win - win, day.mtd_drop - drop, day.ytd_win - win,
                          day.ytd_drop - drop)
        for row in rows:
            row.disposition = disposition_of(
                ledger.days[day.gaming_day].disposition(row.shift))
            if row.win is not None and row.drop is not None:
                mw, md, yw, yd = mw + row.win, md + row.drop, yw + row.win, yd + row.drop
            row.mtd_win, row.mtd_drop, row.ytd_win, row.ytd_drop = mw, md, yw, yd
            by_shift[(day.gaming_day, row.shift or "")] = row
            summed = recorded.get(day.gaming_day)
            if summed is not None:
                row.play = summed[row.shift or ""]
        of_day[day.gaming_day] = rows
        out += rows
    wins = table_wins(journal, table)
    played = sorted({row.gaming_day for row in out if row.win is not None or not known_only})
    # The days from the first played to the last whose shifts' play the record does not hold,
    # in runs with no such record between them: the rounds are read a run at a time.
    runs = _runs([d.gaming_day for d in days], lambda d: d not in recorded and bool(played)
                 and played[0] <= d <= played[-1])
    if wins is not None and isinstance(wins, WinsBySpan):
        for run in runs:
            # Every shift of the run summed by the game at once, one read of its rounds.
            rows = [row for row in out if run[0] <= row.gaming_day <= run[-1]]
            spans = [_shift_span(calendar, row) for row in rows]
            for row, span in zip(rows, wins.by_span(journal, table, spans), strict=True):
                row.play.add(span_play(span))
    elif wins is not None:
        for run in runs:
            wanted = set(run)
            for w in wins(journal, table, calendar.day(run[0]).start,
                          calendar.day(run[-1]).end):
                gaming_day, shift = calendar.shift_of(datetime.fromisoformat(w.closed))
                found = by_shift.get((gaming_day, shift.name))
                if found is not None and gaming_day in wanted:
                    found.play.add(Play(1, w.wagered, w.returned, w.paid, w.computed_win,
                                        w.theoretical_win, w.voided_returned))
    # Each day's shifts' theoretical wins add up to the day's, to the cent.
    for day in days:
        mine = of_day[day.gaming_day]
        exact = [row.play.theoretical_win for row in mine]
        if sum(exact, Fraction(0)) == day.play.theoretical_win:
            for row, share in zip(mine, apportion(exact, day.theoretical_win), strict=True):
                row.theoretical_share = share
    for row in out:
        row.check(settings.variance_threshold, settings.money.text)
    return out


def recorded_shifts(summary: DayPlayed | None, day: date, calendar: GamingCalendar
                    ) -> dict[str, Play] | None:
    """Each shift's play as the day's ``day.play`` record holds it (version 3), by shift name:
    None where it holds none, or its shifts are no longer the calendar's (renamed, moved),
    or they do not add up to the day's figures (then the rounds are read instead)."""
    if summary is None or summary.voided_returned is None:
        return None
    found = summary.shift_plays()
    if found is None:
        return None
    spans = calendar.shifts_of(day)
    if ([(s.shift, s.start, s.end) for s in found]
            != [(c.name, iso_utc(s.start), iso_utc(s.end))
                for c, s in zip(calendar.shifts, spans, strict=True)]):
        return None
    out = {s.shift: Play(s.rounds, s.wagered, s.returned, s.paid, s.computed_win,
                         fraction_text(s.theoretical), s.voided_returned) for s in found}
    total = Play()
    for p in out.values():
        total.add(p)
    if total != summary_play(summary):
        return None
    return out


def fraction_text(text: str) -> Fraction:
    """A ``day.play`` record's theoretical win (``"numerator/denominator"``)."""
    num, _, den = text.partition("/")
    return Fraction(int(num), int(den or 1))


def summary_play(summary: DayPlayed) -> Play:
    """The day's play as its ``day.play`` record holds it (voids' returns 0 where a
    version-1 record did not sum them)."""
    return Play(summary.rounds, summary.wagered, summary.returned, summary.paid,
                summary.computed_win, fraction_text(summary.theoretical),
                summary.voided_returned or 0)


def _runs(days: list[date], read: Callable[[date], bool]) -> list[list[date]]:
    """The ``days`` (a table's, in order) whose rounds are to be ``read``, in runs of days
    next to each other in ``days`` (no day between them whose rounds are not read)."""
    out: list[list[date]] = []
    joined = False
    for d in days:
        if not read(d):
            joined = False
        elif joined:
            out[-1].append(d)
        else:
            out.append([d])
            joined = True
    return out


def _shift_span(calendar: GamingCalendar, row: TableDay) -> Span:
    """The time a shift's row covers: the rounds that closed in it are its play."""
    names = [s.name for s in calendar.shifts]
    found = calendar.shifts_of(row.gaming_day)[names.index(row.shift or "")]
    return found.start, found.end


def _statistical(table: str, ledger: Ledger, d: date, settings: AccountingSettings,
                 calendar: GamingCalendar) -> TableDay:
    day = ledger.days[d]
    opening = ledger.opening_count(d)
    drops = day_drops(day, [s.name for s in calendar.shifts])
    row = TableDay(table, d,
                   opener=opening.event.total if opening else None,  # type: ignore[attr-defined]
                   closer=day.closer.event.total if day.closer else None,  # type: ignore[attr-defined]
                   fills=day.fills, credits=day.credits,
                   drop=day_drop(day, [s.name for s in calendar.shifts]),
                   buyins=day.buyin_cash + day.buyin_markers)
    count_details(row, drops)
    row.disposition = disposition_of(day.disposition())
    for c in day.differences:
        e = c.event
        assert isinstance(e, TrayDifference)
        m = settings.money.text
        row.exceptions.append(f"opener differs from the previous closer by "
                              f"{m(e.difference)} (opener {m(e.opener_total)}, previous "
                              f"closer {m(e.previous_total)}; record {c.seq})")
    for s in day.slips:
        if s.void is not None:
            who = s.void.signers or tuple((s.void_actor or "").split("+"))
            row.exceptions.append(f"{s.kind} slip "
                                  f"{slip_label(table, s.kind, s.event.year, s.event.number)} "
                                  f"voided by {' and '.join(who)}: {s.void.reason}")
    for r in ledger.requests.values():
        void = r.void
        if void is not None and void.state != "requested" and r.event.gaming_day == d.isoformat():
            row.exceptions.append(f"{r.kind} slip {r.slip_label} ({r.label}) voided "
                                  f"{void.state} by {' and '.join(void.signers)}: "
                                  f"{void.reason}")
    return row


def disposition_of(c: Committed | None) -> Disposition | None:
    """A ``variance.disposition`` record as the report prints it."""
    e = c.event if c is not None else None
    if c is None or not isinstance(e, VarianceDisposed):
        return None
    return Disposition(e.disposition, e.note, e.signers, c.ts, c.seq, e.variance,
                       e.adjustment)


def _add_play(journal: Journal, table: str, days: list[TableDay], calendar: GamingCalendar,
              ledger: Ledger, recompute: bool, stale: set[date]) -> None:
    """Each day's play: its ``day.play`` record's, else (none, a round closed in the day
    after it: ``stale``, a version-1 record, ``recompute``) summed from its rounds."""
    live: dict[date, TableDay] = {}
    for row in days:
        summary = ledger.days[row.gaming_day].play
        # A day summed before its voids' returns were (a version-1 record): from the rounds.
        if (summary is None or recompute or row.gaming_day in stale
                or summary.voided_returned is None):
            live[row.gaming_day] = row
            continue
        row.play = summary_play(summary)
    if not live:
        return
    wins = table_wins(journal, table)
    if wins is None:
        return
    if isinstance(wins, WinsBySpan):
        # Every such day's rounds summed by the game at once, one read of the table's rounds.
        days_in = sorted(live)
        spans = [(calendar.day(d).start, calendar.day(d).end) for d in days_in]
        for d, span in zip(days_in, wins.by_span(journal, table, spans), strict=True):
            live[d].play.add(span_play(span))
        return
    start = calendar.day(min(live)).start
    end = calendar.day(max(live)).end
    for w in wins(journal, table, start, end):
        found = live.get(calendar.day_of(datetime.fromisoformat(w.closed)))
        if found is not None:
            found.play.add(Play(1, w.wagered, w.returned, w.paid, w.computed_win,
                                w.theoretical_win, w.voided_returned))


def _closed_after(journal: Journal, table: str, calendar: GamingCalendar,
                  summaries: list[DayPlayed]) -> set[date]:
    """The gaming days in which a round closed after the day's summary was made: those with
    more closing records now than the rounds the summary counted (each counted along the
    kind index alone; normally it finds nothing). A closing record can only have been added,
    not taken away, without the chain's verification saying so."""
    if not summaries:
        return set()
    kinds = list(closing_statuses())
    count = (select(func.count()).select_from(J)
             .where(J.c.table_id == table, J.c.kind.in_(kinds),
                    J.c.ts >= bindparam("start"), J.c.ts < bindparam("end")))
    stale: set[date] = set()
    with journal.db.read() as conn:
        for s in summaries:
            day = date.fromisoformat(s.gaming_day)
            span = calendar.day(day)
            n = conn.execute(count, {"start": iso_utc(span.start),
                                     "end": iso_utc(span.end)}).scalar()
            if n != s.rounds:
                stale.add(day)
    return stale


def row_json(d: TableDay, settings: AccountingSettings) -> dict[str, Any]:
    """The ``report master-game --json`` object of one table's gaming day (money in minor
    units; hold as a fraction, null when nothing was dropped); a shift's row (``--by-shift``)
    has the same keys and ``shift``."""
    out = {
        "table": d.table, "gaming_day": d.gaming_day.isoformat(),
        "currency": settings.currency, "minor_units": settings.minor_units,
        "opener": d.opener, "closer": d.closer, "fills": d.fills, "credits": d.credits,
        "drop": d.drop, "buyins": d.buyins, "win": d.win, "hold": fraction_json(d.hold),
        "computed_win": d.play.computed_win, "variance": d.variance,
        "theoretical_win": d.theoretical_win,
        "actual_vs_theoretical": d.play.computed_win - d.theoretical_win,
        "rounds": d.play.rounds, "wagered": d.play.wagered, "returned": d.play.returned,
        "returned_by_voids": d.play.voided_returned,
        "game": d.game, "drop_cash": d.drop_cash, "drop_markers": d.drop_markers,
        "count_date": d.count_date, "count_team": list(d.count_team),
        "paid": d.play.paid,
        "mtd_win": d.mtd_win, "mtd_drop": d.mtd_drop,
        "mtd_hold": fraction_json(hold(d.mtd_win, d.mtd_drop)),
        "ytd_win": d.ytd_win, "ytd_drop": d.ytd_drop,
        "ytd_hold": fraction_json(hold(d.ytd_win, d.ytd_drop)),
        "exceptions": list(d.exceptions),
        "disposition": d.disposition.to_json() if d.disposition is not None else None,
    }
    if d.shift is not None:
        out["shift"] = d.shift
    return out


def check_tables(journal: Journal, table: str | None) -> list[str] | None:
    if table is None:
        return None
    if table not in journal.tables():
        raise StationError(f"no table {table!r} in this journal")
    return [table]
