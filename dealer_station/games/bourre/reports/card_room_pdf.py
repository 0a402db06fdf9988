"""The card-room report (Bourré) as a PDF/A on the common report page: per gaming day, the
hands and sessions, the house collection (money in a cash game), the pots carried in and out
and returned (who, why), and the chip reconciliation, with any break flagged in red.

The figures are :mod:`dealer_station.games.bourre.reports.card_room`'s; this module only lays
them out.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.units import mm
from reportlab.platypus import KeepTogether, PageBreak

from dealer_station.accounting.glossary import RAKE
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.games.bourre.reports.card_room import (
    CardRoomDay,
    Chips,
    PotMove,
    gather_card_room,
)
from dealer_station.games.bourre.reports.card_room_bank_pdf import sections
from dealer_station.gaming_day import GamingCalendar
from dealer_station.money import CHIPS
from dealer_station.reports.pdf_style import p, rich
from dealer_station.reports.source import Period, coverage, covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid
from dealer_station.reports.text import local, local_short, pace_words
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification


def _chips_and_money(chips: Chips, n: int) -> str:
    """``26 chips (26.00 USD)``, or ``26 chips`` for tournament chips."""
    amount = chips.money(n)
    return CHIPS.text(n) if amount is None else f"{CHIPS.text(n)} ({chips.unit.text(amount)})"


def _hours(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    return f"{h} h {rest // 60:02d} min"


def _moves(day: CardRoomDay, moves: list[PotMove], what: str) -> list[list[str]]:
    chips = day.chips
    rows = []
    for m in moves:
        source = f"from session {m.from_session}" if m.from_session else ""
        rows.append([local_short(m.record.ts), m.session_id, what,
                     _chips_and_money(chips, m.pot), source, str(m.record.seq)])
    return rows


def _day_section(r: ReportBuilder, day: CardRoomDay, settings: AccountingSettings) -> None:
    w = r.width
    chips = day.chips
    money = chips.unit
    hph = day.hands_per_hour
    amount = day.collected_amount
    r.heading(f"Table {day.table}, gaming day {day.day.isoformat()}", level=1)
    if not day.sessions:
        r.add(facts([("Covers", f"{local(day.span.start)} to {local(day.span.end)}"),
                     ("Hands", "none: no Bourré session on this gaming day")],
                    widths=(42 * mm, w - 42 * mm)))
        sections(r, day, settings)
        return
    ok = day.balanced
    r.add(facts([
        ("Covers", f"{local(day.span.start)} to {local(day.span.end)}"),
        ("Chips", chips.words if len({s.chips for s in day.sessions}) == 1 else
         "mixed: some sessions cash, some tournament (see each session)"),
        ("Hands", f"{len(day.hands):,} settled, {day.voided:,} voided"),
        ("Sessions", f"{len(day.sessions):,} ("
                     + ", ".join(s.session_id for s in day.sessions) + ")"),
        ("Time in play", f"{_hours(day.play_seconds)}; {pace_words(hph, 'hands')}"),
        (RAKE.label,
         f"{money.text(amount)} ({day.collected:,} chips)" if amount is not None else
         f"{day.collected:,} chips (tournament chips: no money)"),
        ("Pots", f"{len(day.carried_in)} carried in, {len(day.carried_out)} carried out, "
                 f"{len(day.returned)} returned, {len(day.unaccounted)} not recorded"),
        ("Chip reconciliation",
         rich("<font color='#1b5e20'><b>Every hand and session reconciles.</b></font>")
         if ok else rich(f"<font color='#b00020'><b>{len(day.breaks)} BREAK(S): see "
                         f"below.</b></font>")),
    ], widths=(42 * mm, w - 42 * mm)))
    r.add(p("Bourré is played between players: the house is not a party to the pots. Its "
            "only win is its collection (a drop or a percentage of each pot), so no "
            "wagered, paid or hold figures are shown. " + RAKE.said(), "note"))

    r.heading("Chip reconciliation by session (chips)")
    rows = []
    for s in day.sessions:
        status = ("balances" if s.balanced and not s.breaks else "BREAK")
        rows.append([s.session_id, local_short(s.opened.ts),
                     local_short(s.closed.ts) if s.closed else "under way",
                     f"{len(s.hands):,}", f"{s.started_with:,}", f"{s.pot_in:,}",
                     f"{s.stacks_end:,}", f"{s.pot_end:,}", f"{s.collected:,}",
                     money.number(s.chips.money(s.collected) or 0) if s.chips.cash else "-",
                     s.pot_end_went, status])
    table = grid(["Session", "Opened", "Ended", "Hands", "At start", "Pot in",
                  "Stacks at end", "Pot at end", RAKE.label, f"In {money.label}",
                  "Pot at end went", "Check"],
                 rows, [w * 0.085, w * 0.115, w * 0.115, w * 0.05, w * 0.065, w * 0.055,
                        w * 0.085, w * 0.07, w * 0.075, w * 0.06, w * 0.13, w * 0.07],
                 numeric=(3, 4, 5, 6, 7, 8, 9))
    note = p("At start (the players' chips) + pot in = stacks at end + pot at end + "
             "rake, for every session; and for every hand, the stacks and pot before "
             "it = the stacks and pot after it + its rake, each hand starting where "
             "the one before ended. "
             f"{len(day.hands):,} hands checked, "
             f"{sum(1 for h in day.hands if h.balanced):,} balance. A session's whole check "
             "is counted on the day it ends.", "note")
    # A day's few sessions stay beside the sentence that says what their columns prove.
    r.add(KeepTogether([table, note]) if len(rows) <= 20 else table)
    if len(rows) > 20:
        r.add(note)
    if day.breaks:
        r.heading(f"Breaks ({len(day.breaks)})")
        for b in day.breaks:
            r.add(p(b, "alert"))
    # The card room's money: the rake against its counted box, and the bank.
    sections(r, day, settings)

    r.heading("Pots carried in and out")
    moves = (_moves(day, day.carried_in, "carried in") + _moves(day, day.carried_out,
                                                                "carried out"))
    moves.sort(key=lambda row: int(row[-1]))
    r.add(grid(["Time", "Session", "What", "Pot", "", "Record"],
               moves or [["-", "", "none", "", "", ""]],
               [w * 0.15, w * 0.12, w * 0.1, w * 0.2, w * 0.25, w * 0.08], numeric=(5,)))
    r.heading("Pots returned by a supervisor")
    if day.returned:
        r.add(grid(["Time", "Session", "Pot", "Returned by", "Why", "To (seat: chips)"],
                   [[local_short(m.record.ts), m.session_id, _chips_and_money(chips, m.pot),
                     m.by, m.reason,
                     "; ".join(f"seat {k} {m.players.get(k, '')}: {v}"
                               for k, v in m.shares.items())] for m in day.returned],
                   [w * 0.13, w * 0.1, w * 0.14, w * 0.15, w * 0.23, w * 0.25],
                   wrap=(3, 4, 5)))
    else:
        r.add(p("None."))
    if day.unaccounted:
        r.heading("Pots left with no record of where they went")
        r.add(grid(["Session ended", "Session", "Pot"],
                   [[local_short(m.record.ts), m.session_id, _chips_and_money(chips, m.pot)]
                    for m in day.unaccounted], [w * 0.2, w * 0.15, w * 0.25]))
        r.add(p("These sessions ended before the station carried or returned a session's last "
                "pot (journals written by older releases): the chips stayed in the pot and "
                "no record says where they went.", "alert"))


def _accounting_seqs(day: CardRoomDay) -> list[int]:
    """The records of a day's bank and rake box (its own: not a previous day's closer)."""
    bank, box = day.bank, day.rake_box
    found = [c.seq for c in (None if bank.carried else bank.opener, bank.closer, bank.drop)
             if c is not None]
    found += [s.seq for s in bank.slips] + [s.void_seq for s in bank.slips if s.void_seq]
    if box is not None:
        found += [c.seq for c in (box.counted, box.disposed) if c is not None]
    return found


def build_card_room_report(journal: Journal, table: str, period: Period | None = None, *,
                           out: Path | str, paper: str = "A4",
                           calendar: GamingCalendar | None = None,
                           settings: AccountingSettings | None = None,
                           background_above: int = BACKGROUND_ABOVE_RECORDS) -> BuiltReport:
    """Write ``table``'s card-room report for ``period`` (default: everything recorded), one
    section per gaming day of ``calendar`` (default: config/station.toml's), each with its
    bank and its rake against the counted rake box (``settings``: default
    config/accounting.toml's)."""
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar

    period = period or Period()
    calendar = calendar or load_gaming_calendar()
    settings = settings or load_accounting_settings()
    verification = Verification(journal, table, background_above=background_above)
    try:
        days = gather_card_room(journal, table, calendar, period.since, period.until,
                                settings=settings)
        if not days:
            raise StationError(f"table {table} has no Bourré session in the period"
                               + ("" if period.is_everything else " (try another period)"))
        cov = coverage(journal, table, period)
        # A day's rake box and drop are counted after the day, its slips may be voided later:
        # the records covered (and attached) run on to the newest of them.
        last_seq = max((seq for d in days for seq in _accounting_seqs(d)), default=0)
        last = cov.last
        if last is None or last_seq > last.seq:
            last = next(journal.records(table, from_seq=last_seq, to_seq=last_seq), last)
        r = ReportBuilder(kind="card-room", title="Card-room report (Bourré)", table=table,
                          period=cov.label, subject=f"{len(days)} gaming day(s)", paper=paper,
                          landscape_pages=True)
        for i, day in enumerate(days):
            if i:
                r.add(PageBreak())
            _day_section(r, day, settings)
        if last is not cov.last and last is not None:
            r.add(p(f"The records covered run past the period, to record {last.seq:,} "
                    f"({local(last.ts)}): the count room counts a day's boxes after the day, "
                    f"and its counts and dispositions are covered and attached with the day's "
                    f"other records.", "note"))
        return r.build(out, verification.result(), cov.first, last, data=days,
                       evidence=covered_records(journal, table, cov.first, last),
                       signatures=("Card-room supervisor", "Accounting"))
    finally:
        verification.cancel()
