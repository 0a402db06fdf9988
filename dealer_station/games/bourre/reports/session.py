"""The Bourré session report: each session of a period as its journal records tell it.

First a list of the sessions; then for every session the players (chips at the start and the
end, busts, outcome, game tags), a chart of their chips after every hand, a table of every hand
(pots won and carried, each penalty and what it was for, the house's collection, chips after),
every misplay with what was charged for it, and the session's other exceptions. Sessions follow
one another on the page (a session does not start a new page), tables repeat their header row
on every page they run over, and a caption is never left at the foot of a page without its
table. The figures come from :mod:`dealer_station.games.bourre.reports.session_data`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Table, TableStyle

from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.games.bourre.events import HandClosed, Reneged
from dealer_station.games.bourre.reports.session_data import Hand, Session, gather, hand_misplays
from dealer_station.money import Money
from dealer_station.reports.cells import fitted
from dealer_station.reports.charts import lines_per_step
from dealer_station.reports.pdf_style import FONT, MIN_TEXT_PT, p
from dealer_station.reports.shift import exception_rows
from dealer_station.reports.source import Period, config_in_force, covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid
from dealer_station.reports.text import local, local_short, name_the_player
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification
from dealer_station.table.recall_model import record_label

#: A caption is kept with its table's header and at least this much of it.
CAPTION_ROOM = 24 * mm
#: Tables of at most this many rows are kept whole with their caption.
KEEP_WHOLE_ROWS = 14


def house_rule(profile: dict[str, Any]) -> str:
    house = profile.get("house") or {}
    how = house.get("collection", "none")
    if how == "drop":
        return f"a drop of {house.get('drop')} chip(s) from each pot"
    if how == "percent":
        cap = house.get("cap", "none")
        return (f"{house.get('percent')}% of each pot won, rounded down"
                + ("" if cap == "none" else f", at most {cap} chip(s)"))
    return "no house collection"


def _tight(t: Table) -> Table:
    """A long table's rows a little closer (still 8 pt text), so a session's hands take less
    than a page."""
    t.setStyle(TableStyle([("TOPPADDING", (0, 1), (-1, -1), 1.0),
                           ("BOTTOMPADDING", (0, 1), (-1, -1), 0.8)]))
    return t


def captioned(r: ReportBuilder, caption: str, table: Flowable, rows: int) -> None:
    """A caption and its table: kept whole when short, else the caption is only set where its
    header and the first rows fit under it (the header repeats on every later page)."""
    head = p(caption, "h2")
    if rows <= KEEP_WHOLE_ROWS:
        r.add(KeepTogether([head, table]))
    else:
        r.add(CondPageBreak(CAPTION_ROOM + 12 * mm), head, table)


def pot_at_end(s: Session, fmt: Any) -> str:
    """What became of the pot: under way, carried to the next session, or returned."""
    pot = s.pot_now
    if s.closed is None:
        return f"{fmt(pot)} in the pot after the last settled hand (the session is under way)"
    pot = s.closed.event.pot
    if s.returned is not None:
        return (f"{fmt(pot)}, returned to the players by {s.returned.actor} at "
                f"{local_short(s.returned.ts)}: {s.returned.event.reason}")
    if s.carried is not None:
        return f"{fmt(pot)}, carried to the next session"
    return f"{fmt(pot)}" + (" (not recorded as carried or returned)" if pot else "")


def _ended(s: Session, fmt: Any) -> str:
    if s.closed is not None:
        return f"{local(s.closed.ts)} by {s.closed.actor}"
    settled = s.settled
    last = (f"; last hand settled: {settled[-1].number} at "
            f"{local_short(settled[-1].closed.ts)}" if settled and settled[-1].closed else "")
    going = s.under_way
    now = f"; hand {going[-1].number} in play" if going else ""
    return (f"not ended: under way since {local(s.opened.ts)}{last}{now}; "
            f"{fmt(s.pot_now)} in the pot after the last settled hand")


def _summary(s: Session, money: Money, width: float) -> Flowable:
    fmt = money.number
    o = s.opened.event
    settled = s.settled
    voided = [h for h in s.hands if h.voided is not None]
    won = [h for h in settled if h.closed and h.closed.event.winner]
    carried = [h for h in settled if h.closed and not h.closed.event.winner
               and not h.closed.event.dead]
    won_total = sum(h.closed.event.won for h in won if h.closed)
    going = len(s.under_way)
    collected = [h for h in settled if h.closed and h.closed.event.house]
    house = (f"{fmt(s.house)} in {len(collected)} of {len(settled)} hands (the House column), "
             f"kept apart from the pots" if s.house else "none collected")
    label = 0.2 * width
    return facts([
        ("Profile", f"{o.profile} (configuration {o.config_version[:12]})"),
        ("Started", f"{local(s.opened.ts)} by {s.opened.actor}"),
        ("Ended", _ended(s, fmt)),
        ("Hands", f"{len(settled)} settled, {len(voided)} voided"
                  + (f", {going} under way" if going else "")
                  + f"; pots: {len(won)} won ({fmt(won_total)}), {len(carried)} carried to "
                    f"the next hand"),
        ("Pot", f"{fmt(o.pot)} carried in; at the end {pot_at_end(s, fmt)}"),
        ("House", f"{house}. Rule: {house_rule(s.profile_content())}."),
    ], widths=(label, width - label))


def _players(s: Session, money: Money, width: float) -> Flowable:
    fmt = money.number
    start = {str(k): int(v) for k, v in s.opened.event.chips.items()}
    end = s.chips_track()[-1][1]
    busted = s.busted()
    standing: dict[str, Mapping[str, Any]] = {}
    tags: Mapping[str, Any] = {}
    if s.closed is not None:
        standing = {str(st["seat"]): st for st in s.closed.event.standings}
        tags = s.closed.event.tags
    rows = []
    for seat in s.seats:
        name = s.players.get(seat, seat)
        st = standing.get(seat)
        rows.append([seat, name, fmt(start.get(seat, 0)),
                     fmt(int(st["chips"]) if st else end.get(seat, 0)),
                     f"hand {busted[seat]}" if seat in busted else "-",
                     str(st["outcome"]) if st else "under way",
                     str(tags.get(name, 0)) if st else "-"])
    headers = ["Seat", "Player", "Start", "End", "Bust", "Outcome", "Tags"]
    widths, cells = fitted(headers, rows, width, flex=(1,))
    return grid(headers, cells, widths, numeric=(0, 2, 3, 6))


def _chart(s: Session, width: float, height: float) -> Flowable:
    track = s.chips_track()
    # The legend names the seat; the players table beside the chart names who sat there.
    series = [(f"seat {seat}",
               [(n, chips.get(seat, 0)) for n, chips in track]) for seat in s.seats]
    return lines_per_step(series, width, height, title="Chips after each hand",
                          x_label="hand (the first point: chips at the start)",
                          y_label="chips")


def penalty_text(c: HandClosed) -> str:
    """Each penalty of a hand and what it was for: "seat 3 bourré 10; seat 2 renege 10"."""
    bourre = set(map(str, c.bourre))
    renegers = {str(m.get("seat")) for m in c.reneges}
    parts = []
    for seat, chips in sorted(c.penalties.items(), key=lambda kv: int(kv[0])):
        why = " and ".join(w for w, yes in (("renege", seat in renegers),
                                             ("bourré", seat in bourre)) if yes)
        parts.append(f"seat {seat} {why or 'penalty'} {chips}")
    return "; ".join(parts) or "-"


def _hand_row(h: Hand, chips: dict[str, int], seats: Sequence[str], fmt: Any) -> list[str]:
    o = h.opened.event
    dealer = str(o.dealer_seat)
    if h.closed is None:
        what = "voided" if h.voided is not None else "in play"
        return [str(h.number), dealer, fmt(o.pot), "", what, "",
                f"{h.voided.event.reason} ({h.voided.actor})"
                if h.voided else "", "", "",
                *[fmt(chips.get(seat, 0)) for seat in seats]]
    c = h.closed.event
    taken = (f"seat {c.winner}" if c.winner else
             "dead hand" if c.dead else "carried")
    return [str(h.number), dealer, fmt(c.pot_before), fmt(c.pot_end), taken, fmt(c.won),
            penalty_text(c), fmt(c.house), fmt(c.pot),
            *[fmt(chips.get(seat, 0)) for seat in seats]]


def _hands(r: ReportBuilder, s: Session, money: Money) -> None:
    seats = s.seats
    after = dict(s.chips_track())
    now = s.chips_track()[0][1]
    rows = []
    for h in s.hands:
        now = after.get(h.number, now)
        rows.append(_hand_row(h, now, seats, money.number))
    headers = ["Hand", "Dealer", "Pot in", "Pot", "Taken by", "Won", "Penalties (what for)",
               "House", "Next pot", *seats]
    widths, cells = fitted(headers, rows or [["-"] + [""] * (8 + len(seats))], r.width,
                           flex=(6,))
    chips = "chips, seat by seat" if len(seats) > 3 else "seats"
    table = _tight(grid(headers, cells, widths,
                        numeric=(0, 1, 2, 3, 5, 7, 8, *range(9, 9 + len(seats))),
                        groups=[(chips, 9, 8 + len(seats))] if seats else ()))
    captioned(r, f"Hands: pots, penalties and chips after each hand ({money.label})", table,
              len(rows))


def _misplays(r: ReportBuilder, s: Session, money: Money) -> None:
    w = r.width
    found = [m for h in s.hands for m in hand_misplays(h)]
    rows = []
    for m in found:
        if not m.penalised:
            cost = "none: a retraction (the card went back), no penalty"
        elif m.charged is not None:
            cost = f"{money.number(m.charged)} charged (into the next pot)"
        elif m.charged_for:
            cost = f"not charged again: one penalty a hand, charged for {m.charged_for}"
        else:
            cost = "not settled (the hand did not end)"
        rows.append([str(m.hand), s.player(m.seat), str(m.trick), m.card,
                     ("renege: " if m.penalised else "retraction: ")
                     + name_the_player(m.reason, f"seat {m.seat}"), cost])
    headers = ["Hand", "Player", "Trick", "Card", "Misplay", f"Penalty ({money.label})"]
    widths, cells = fitted(headers, rows or [["-", "", "", "", "none", ""]], w * 0.999,
                           flex=(4, 5))
    table = grid(headers, cells, widths, numeric=(0, 2))
    captioned(r, f"Every misplay ({len(found)}), and the penalty charged for it", table,
              len(rows))


def _exceptions(r: ReportBuilder, s: Session) -> None:
    """Exceptions other than reneges (those are the misplays above)."""
    w = r.width
    others = [e.record for e in s.exceptions if not isinstance(e.event, Reneged)]
    headers = ["Time", "Hand", "What", "Who", "Why", "Detail"]
    widths, rows = fitted(headers, [[t, n, record_label(kind), who, why, detail]
                                    for t, n, kind, who, why, detail in exception_rows(others)],
                          w, flex=(3, 4, 5))
    if rows:
        captioned(r, f"Other exceptions ({len(rows)})",
                  grid(headers, rows, widths, numeric=(1,)), len(rows))
    else:
        r.add(p("Other exceptions (voids, stops, corrections, device faults): none.",
                "small"))


def _session_section(r: ReportBuilder, s: Session, money: Money) -> None:
    w = r.width
    # The session's heading, facts, players and chart stay together.
    top = Table([[[_summary(s, money, w * 0.55), _players(s, money, w * 0.55)],
                  _chart(s, w * 0.43, 165)]], colWidths=[w * 0.57, w * 0.43], hAlign="LEFT")
    top.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),   # not Helvetica
                             ("VALIGN", (0, 0), (-1, -1), "TOP"),
                             ("LEFTPADDING", (0, 0), (-1, -1), 0),
                             ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                             ("TOPPADDING", (0, 0), (-1, -1), 0)]))
    r.add(KeepTogether([p(f"Session {s.session_id}: {local_short(s.opened.ts)}", "h1"), top]))
    _hands(r, s, money)
    _misplays(r, s, money)
    _exceptions(r, s)


def _sessions_list(sessions: Sequence[Session], money: Money, width: float) -> Flowable:
    fmt = money.number
    rows = []
    for s in sessions:
        winners = ", ".join(str(st["player"]) for st in (s.closed.event.standings
                                                          if s.closed else ())
                            if st.get("outcome") == "win")
        rows.append([s.session_id, local_short(s.opened.ts),
                     local_short(s.closed.ts) if s.closed else "under way",
                     str(len(s.settled)), fmt(s.opened.event.pot),
                     pot_at_end(s, fmt), winners or "-"])
    headers = ["Session", "Started", "Ended", "Hands", "Pot in",
               f"Pot left ({money.label})", "Winners"]
    widths, cells = fitted(headers, rows, width, flex=(5, 6))
    return grid(headers, cells, widths, numeric=(3, 4))


def build_bourre_session_report(journal: Journal, table: str, period: Period | None = None,
                                *, out: Path | str, paper: str = "A4",
                                background_above: int = BACKGROUND_ABOVE_RECORDS
                                ) -> BuiltReport:
    """Write the Bourré sessions of ``table`` in ``period`` (default: everything)."""
    period = period or Period()
    verification = Verification(journal, table, background_above=background_above)
    try:
        sessions, cov = gather(journal, table, period)
        if not sessions:
            raise StationError(f"table {table} has no Bourré session in the period"
                               + ("" if period.is_everything else " (try without --from/--to)"))
        version = config_in_force(journal, table, cov.last.ts if cov.last else None)
        money = Money.of(version.content if version else None)
        r = ReportBuilder(kind="bourre-session", title="Bourré sessions", table=table,
                          period=cov.label, subject=f"{len(sessions)} session(s)",
                          paper=paper)
        r.add(facts([("Table", table), ("Period", cov.label),
                     ("Sessions", f"{len(sessions)}, listed below, then each in turn"),
                     ("Amounts", f"in {money.label}")], widths=(40 * mm, r.width - 40 * mm)))
        captioned(r, "Sessions", _sessions_list(sessions, money, r.width), len(sessions))
        for s in sessions:
            _session_section(r, s, money)
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=sessions, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Tournament director", "Pit supervisor"))
    finally:
        verification.cancel()
