"""The tournament's printed sheets: the seating of a round (posted), the table score sheets
(filled in by hand at the table, with the chip check line), the standings with game tags, the
bracket drawn as a bracket (landscape), and the final results with prizes and the entry-fee
accounting.

Each is a report like every other (``ReportBuilder``: PDF/A, page N of M) whose last page
verifies the tournament's own chain (``tournament-NAME``) and attaches its records. Posted
sheets are read standing at a wall: names are set larger than a report's figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, PageBreak, Paragraph, Table, TableStyle

from dealer_station.accounting.glossary import ENTRY_FEES, HOUSE_SHARE, PRIZES, meanings
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.reports.pdf_style import FONT, FONT_BOLD, GREY, INK, RULE, SHADE, STYLES, p
from dealer_station.reports.source import Period, coverage, covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, grid
from dealer_station.reports.tournament_bracket import BracketBand, bands
from dealer_station.reports.verification import Verification
from dealer_station.tournament import journaled
from dealer_station.tournament.bracket import Status
from dealer_station.tournament.display import (
    MONEY,
    bracket_layout,
    entry_label,
    members_text,
    place_text,
    status_text,
    tag_marks,
)
from dealer_station.tournament.games import Measure
from dealer_station.tournament.tournament import Tournament

WHATS = ("seating", "score-sheets", "standings", "bracket", "results")
#: Names on a posted sheet: read from a step away.
POSTED_PT = 12.0
HAND_LINES = 14   # blank lines of a Euchre or Pedro score sheet


def big(markup: str, size: float = 11, *, bold: bool = False) -> Paragraph:
    """A line of a posted or hand-filled sheet, larger than a report's figures (with the
    leading its size needs, so wrapped lines never overlap)."""
    style = ParagraphStyle(f"sheet{size}{bold}", parent=STYLES["body"], fontSize=size,
                           leading=size * 1.35, spaceBefore=size * 0.4, spaceAfter=size * 0.2,
                           fontName=FONT_BOLD if bold else FONT)
    return Paragraph(markup, style)


def _round(t: Tournament, given: int | None) -> int:
    if not t.rounds:
        raise StationError(f"{t.rules().label} tournament {t.name!r} has no seated round"
                           + (": it is played in a bracket" if t.bracket is not None else
                              ": start it first"))
    r = t.current_round if given is None else given
    if r not in t.rounds:
        raise StationError(f"there is no round {r} (the tournament has rounds 1 to "
                           f"{t.current_round})")
    return r


def _seating(r: ReportBuilder, t: Tournament, round_no: int | None) -> str:
    n = _round(t, round_no)
    tables = t.seating_chart(n)
    w = r.width
    r.add(big(f"{t.rules().label}: round {n}", 16, bold=True))
    r.add(p(f"{len(tables)} tables, {sum(map(len, tables))} players. Find your name; sit at "
            f"your table. Sessions are 30 minutes; a hand under way at time is finished.",
            "body"))
    r.space(4 * mm)
    cols = 3 if max(map(len, tables)) <= 6 else 2
    cards = []
    for i, players in enumerate(tables, 1):
        body = [[f"Table {i}"]] + [[f"{s}. {name}"] for s, name in enumerate(players, 1)]
        card = Table(body, colWidths=[w / cols - 6 * mm], hAlign="LEFT")
        card.setStyle(TableStyle([
            ("FONT", (0, 0), (-1, 0), FONT_BOLD, POSTED_PT + 4),
            ("FONT", (0, 1), (-1, -1), FONT, POSTED_PT),
            ("BACKGROUND", (0, 0), (-1, 0), SHADE),
            ("BOX", (0, 0), (-1, -1), 0.8, RULE),
            ("TOPPADDING", (0, 0), (-1, -1), 2.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 3.5)]))
        cards.append(card)
    rows = [cards[i:i + cols] + [""] * (cols - len(cards[i:i + cols]))
            for i in range(0, len(cards), cols)]
    outer = Table(rows, colWidths=[w / cols] * cols, hAlign="LEFT")
    # The font even of the empty cells that fill the last row: a cell's text is set in
    # reportlab's default (Helvetica, never embedded) unless the table names another.
    outer.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, POSTED_PT),
                               ("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("LEFTPADDING", (0, 0), (-1, -1), 0),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 8)]))
    r.add(outer)
    return f"round {n}"


def _lines_table(headers: list[str], rows: list[list[str]], widths: list[float],
                 height: float) -> Table:
    """A sheet's ruled lines, tall enough to write on by hand."""
    t = Table([headers, *rows], colWidths=widths, rowHeights=[14] + [height] * len(rows),
              hAlign="LEFT")
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, 0), FONT_BOLD, 9), ("FONT", (0, 1), (-1, -1), FONT, 11),
        ("BACKGROUND", (0, 0), (-1, 0), SHADE), ("GRID", (0, 0), (-1, -1), 0.6, RULE),
        ("VALIGN", (0, 1), (-1, -1), "MIDDLE"), ("TEXTCOLOR", (0, 0), (-1, -1), INK)]))
    return t


def _table_sheet(r: ReportBuilder, t: Tournament, n: int, table: int) -> None:
    game = t.rules()
    players = t.seating_chart(n)[table - 1]
    w = r.width
    chips = game.measure is Measure.CHIPS
    expected = game.chips_for(len(players))
    winners = game.winners_for(len(players)) if len(players) > 1 else 1
    r.add(big(f"{game.label} · round {n} · table {table}", 15, bold=True))
    r.add(p(f"{len(players)} players; {winners} win{'s' if winners == 1 else ''} the "
            f"session, the others get a game tag (the {place_text(game.tags_to_eliminate)} "
            f"eliminates). " + (f"The table plays for {expected} chips." if chips else
                                "Write each player's score."), "body"))
    r.space(3 * mm)
    word = "Chips at time" if chips else "Score"
    rows = [[str(s), name, tag_marks(t.tags.get(name, 0), game.tags_to_eliminate), "", ""]
            for s, name in enumerate(players, 1)]
    r.add(_lines_table(["Seat", "Player", "Tags so far", word, "Initials"], rows,
                       [w * 0.07, w * 0.39, w * 0.16, w * 0.2, w * 0.18], 26))
    r.space(5 * mm)
    if chips:
        r.add(big("Chips on the table nobody holds (unawarded): __________"))
        each = (f", {game.chips_per_player} each" if game.chips_per_player else "")
        table_chips = (f" + {game.chips_per_table} for the table" if game.chips_per_table
                       else "")
        r.add(big(f"<b>Chip check:</b> players' chips ________ + unawarded ________ = "
                  f"________ must be <b>{expected}</b> ({len(players)} players{each}"
                  f"{table_chips})", 12))
        r.add(p("Count the chips before the next round can begin: the caller or the majority "
                "of the table.", "note"))
    r.space(3 * mm)
    r.add(big("Extra game (players level across the winners' line), best first:<br/>"
              "1. ____________________ 2. ____________________ 3. ____________________"))
    r.space(8 * mm)
    sign = Table([["Caller / table", "", "Judge", ""]],
                 colWidths=[w * 0.15, w * 0.33, w * 0.1, w * 0.33], rowHeights=[24],
                 hAlign="LEFT")
    sign.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, 9),
                              ("TEXTCOLOR", (0, 0), (-1, -1), GREY),
                              ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
                              ("LINEBELOW", (1, 0), (1, 0), 0.6, INK),
                              ("LINEBELOW", (3, 0), (3, 0), 0.6, INK)]))
    r.add(sign)


def _match_sheet(r: ReportBuilder, t: Tournament, mid: str) -> None:
    assert t.bracket is not None
    a, b = (str(x) for x in t.bracket.teams_of(mid))
    game = t.rules()
    w = r.width
    r.add(big(f"{game.label} · match {mid}", 15, bold=True))
    r.add(big(f"{escape(entry_label(t, a))} <b>v</b> {escape(entry_label(t, b))}", 12))
    r.add(p(f"Game to {game.game_points}. Write each hand; the first team to "
            f"{game.game_points} wins the match.", "body"))
    r.space(3 * mm)
    if game.key == "euchre":
        r.add(p("Makers 3-4 tricks: 1; all 5: 2 (alone: 4); euchred: 2 to the defenders; "
                "renege: hand over, 2 to the other team; lead out of turn: hand over, no "
                "score, the deal moves on.", "note"))
        r.space(2 * mm)
        rows = [[str(i), "", "", "", "", "", ""] for i in range(1, HAND_LINES + 1)]
        r.add(_lines_table(["Hand", "Dealer", "Makers", "Tricks", "Alone",
                            f"{a} total", f"{b} total"], rows,
                           [w * 0.08, w * 0.14, w * 0.16, w * 0.1, w * 0.1, w * 0.21,
                            w * 0.21], 21))
    else:
        rows = [[str(i), "", "", "", ""] for i in range(1, HAND_LINES + 1)]
        r.add(_lines_table(["Hand", "Bidder", "Bid", f"{a} total", f"{b} total"], rows,
                           [w * 0.08, w * 0.24, w * 0.12, w * 0.28, w * 0.28], 21))
    r.space(5 * mm)
    r.add(big(f"<b>Winner:</b> ______________ Final score {escape(a)} ______ "
              f"{escape(b)} ______", 12))


def _score_sheets(r: ReportBuilder, t: Tournament, round_no: int | None) -> str:
    if t.bracket is not None:
        ready = t.bracket.ready()
        if not ready:
            raise StationError("no match is ready to be played: nothing to print a score "
                               "sheet for")
        for i, mid in enumerate(ready):
            if i:
                r.add(PageBreak())
            _match_sheet(r, t, mid)
        return f"{len(ready)} match(es) to play"
    n = _round(t, round_no)
    for i in range(1, len(t.seating_chart(n)) + 1):
        if i > 1:
            r.add(PageBreak())
        _table_sheet(r, t, n, i)
    return f"round {n}"


def _standings(r: ReportBuilder, t: Tournament, _round_no: int | None) -> str:
    game = t.rules()
    double = t.bracket is not None
    limit = 2 if double else game.tags_to_eliminate
    word = "Losses" if double else "Game tags"
    rows = t.standings()
    w = r.width
    closed = max((n for n, x in t.rounds.items() if x.closed), default=0)
    state = ("final" if t.finished else f"{len(t.played)} matches played" if double else
             f"after round {closed}" if closed else "before any round closed")
    r.add(big(f"{game.label}: standings, {state}", 16, bold=True))
    r.add(p(f"{sum(1 for x in rows if x.status in ('playing', 'winner'))} of {len(rows)} "
            f"{'teams' if game.teams else 'players'} still in. "
            + ("Out at the second loss." if double else
               f"A lost session is a game tag; the {place_text(limit)} tag eliminates."),
            "body"))
    r.space(3 * mm)
    body = [[place_text(x.place), x.entry, members_text(x.members) if game.teams else "",
             f"{tag_marks(x.tags, limit)} {x.tags}", status_text(x.status)] for x in rows]
    table = grid(["Place", "Entry", "Players" if game.teams else "", word, "Status"], body,
                 [w * 0.1, w * 0.3, w * 0.3 if game.teams else w * 0.05, w * 0.15, w * 0.15],
                 font_size=11)
    out = [i + 1 for i, x in enumerate(rows) if x.status in ("eliminated", "disqualified")]
    table.setStyle(TableStyle([("TEXTCOLOR", (0, i), (-1, i), GREY) for i in out]))
    r.add(table)
    return state


def _bracket(r: ReportBuilder, t: Tournament, _round_no: int | None) -> str:
    if t.bracket is None:
        raise StationError(f"{t.rules().label} has no bracket" +
                           ("" if t.started else " yet: start the tournament"))
    lay = bracket_layout(t.bracket)
    height = r.pagesize[1] - 70 * mm
    parts = bands(lay, height)
    for i, (top, bottom) in enumerate(parts):
        if i:
            r.add(PageBreak())
        title = f"{t.rules().label}: double-elimination bracket"
        if len(parts) > 1:
            title += f" (part {i + 1} of {len(parts)})"
        r.add(big(f"{title}", 13, bold=True))
        r.add(BracketBand(t, lay, r.width, height, top, bottom))
    played = sum(1 for m in t.matches() if m.view.status is Status.PLAYED)
    r.add(p(f"{len(t.entries)} teams, bracket of {t.bracket.size}. Winners in bold with their "
            f"scores; a team is out at its second loss. Final: the winners' side against the "
            f"losers' side; a second final only if the losers' side's team wins the first.",
            "note"))
    return f"{played} matches played"


def _results(r: ReportBuilder, t: Tournament, _round_no: int | None) -> str:
    game = t.rules()
    purse = t.purse()
    w = r.width
    r.add(big(f"{game.label}: final results" if t.finished else
              f"{game.label}: results so far (the tournament is not over)", 16, bold=True))
    rows = t.standings()
    body = []
    for x in rows:
        prize = (purse.prizes[x.place - 1] if x.place is not None
                 and x.place <= len(purse.prizes) else 0)
        body.append([place_text(x.place) or "-", x.entry,
                     members_text(x.members) if game.teams else "", status_text(x.status),
                     MONEY.text(prize) if prize else ""])
    r.add(grid(["Place", "Entry", "Players" if game.teams else "", "Status", "Prize"], body,
               [w * 0.1, w * 0.28, w * 0.32 if game.teams else w * 0.04, w * 0.15,
                w * 0.15], numeric=(4,), font_size=11))
    money_block: list[Flowable] = [big("Entry fees and prizes", 12, bold=True)]
    money_block += _money(r, t)
    r.add(KeepTogether(money_block))
    return "final" if t.finished else "provisional"


def _money(r: ReportBuilder, t: Tournament) -> list[Flowable]:
    """The tournament's money, reconciled: the entry fees in; each prize and the house's share
    out; in = out, to the cent."""
    game = t.rules()
    purse = t.purse()
    w = r.width
    people = sum(len(m) for m in t.entries.values())
    # Money in and money out in columns of their own: a prize is never a name, a dash and an
    # amount run together.
    acct: list[list[str]] = [
        ["Entries", f"{len(t.entries)} {'teams' if game.teams else 'players'} "
                    f"({people} people)", "", ""],
        ["Entry fee", f"{MONEY.text(t.entry_fee)} a person", "", ""],
        [ENTRY_FEES.label, f"{people} × {MONEY.text(t.entry_fee)}",
         MONEY.text(purse.collected), ""],
    ]
    for i, prize in enumerate(purse.prizes, 1):
        who = t.places[i - 1] if t.places and i <= len(t.places) else "to be decided"
        acct.append([f"Prize, {place_text(i)}", f"to {who}", "", MONEY.text(prize)])
    if purse.kept >= 0:
        acct.append([HOUSE_SHARE.label, "kept by the house", "", MONEY.text(purse.kept)])
    else:
        acct.append([HOUSE_SHARE.label, "added by the house to the prizes",
                     MONEY.text(-purse.kept), ""])
    money_in = purse.collected + max(0, -purse.kept)
    money_out = purse.paid_out + max(0, purse.kept)
    acct.append(["Total", f"{ENTRY_FEES.label.lower()} = {PRIZES.label.lower()} + "
                          f"{HOUSE_SHARE.label.lower()}", MONEY.text(money_in),
                 MONEY.text(money_out)])
    out: list[Flowable] = [grid(["", "", "Received", "Paid out"], acct,
                                [w * 0.25, w * 0.35, w * 0.17, w * 0.17], numeric=(2, 3),
                                bold_last=True, font_size=10)]
    due = t.fees_due()
    checks = [f"{ENTRY_FEES.label} {MONEY.text(purse.collected)} = {PRIZES.label.lower()} "
              f"{MONEY.text(purse.paid_out)} + {HOUSE_SHARE.label.lower()} "
              f"{MONEY.text(purse.kept)}"]
    ok = purse.reconciles and money_in == money_out and due == purse.collected
    if due != purse.collected:
        checks.append(f"but the entries registered owe {MONEY.text(due)} "
                      f"({people} × {MONEY.text(t.entry_fee)})")
    verdict = ("reconciled to the cent" if ok else "DOES NOT RECONCILE")
    colour = "#1b5e20" if ok else "#b00020"
    out.append(big(escape("; ".join(checks)) + f": <font color='{colour}'><b>{verdict}"
                   f"</b></font>.", 10))
    how = ("fixed at creation" if t.fixed_prizes else
           f"{'/'.join(map(str, game.prize_shares))} % of the entry fees, rounded down "
           f"to the cent")
    out.append(p(f"How the prizes are set: {how}. Disqualified entries forfeit any games won "
                 f"and take no prize. " + meanings((ENTRY_FEES, PRIZES, HOUSE_SHARE)),
                 "note"))
    return out


SECTIONS: dict[str, tuple[str, Callable[[ReportBuilder, Tournament, int | None], str], bool]] = {
    "seating": ("Seating", _seating, False),
    "score-sheets": ("Score sheets", _score_sheets, False),
    "standings": ("Standings", _standings, False),
    "bracket": ("Bracket", _bracket, True),
    "results": ("Final results", _results, False),
}


def build_tournament_pdf(journal: Journal, name: str, what: str, *, out: Path | str,
                         round_no: int | None = None, paper: str = "A4") -> BuiltReport:
    """Print ``what`` (one of :data:`WHATS`) of tournament ``name`` from its journal."""
    if what not in SECTIONS:
        raise StationError(f"unknown sheet {what!r}: one of {', '.join(WHATS)}")
    t = journaled.load(journal, name)
    stream = journaled.stream(name)
    title, section, wide = SECTIONS[what]
    verification = Verification(journal, stream)
    try:
        cov = coverage(journal, stream, Period())
        r = ReportBuilder(kind=f"tournament-{what}", title=f"{title}: {t.rules().label} "
                          f"tournament", table=stream, period=cov.label, paper=paper,
                          landscape_pages=wide)
        r.meta.place = f"Tournament {name}"
        subject = section(r, t, round_no)
        r.meta.subject = subject
        signatures = ("Tournament director",) if what in ("results", "standings") else ()
        return r.build(out, verification.result(), cov.first, cov.last, data=t,
                       evidence=covered_records(journal, stream, cov.first, cov.last),
                       signatures=signatures)
    finally:
        verification.cancel()


__all__ = ["WHATS", "build_tournament_pdf"]
