"""The Bourré session report: each session of a period as its journal records tell it.

For every session: the players and their chips after every hand (a table and a chart), pots
won and carried, bourrés and reneges with their penalties, busts, eliminations and game tags,
and any house collection, with the exceptions of the session. Figures are read from the
``session.open``, ``hand.open``, ``hand.close``, ``void``, ``renege`` and ``session.close``
records, which carry every amount as settled; nothing is taken from the station's memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, String
from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import PageBreak

from dealer_station.audit.journal import Journal, Record
from dealer_station.errors import StationError
from dealer_station.reports.shift import EXCEPTION_KINDS, exception_rows
from dealer_station.reports.source import Period, config_in_force, coverage, covered_records
from dealer_station.reports.template import (
    FONT,
    FONT_BOLD,
    INK,
    MIN_TEXT_PT,
    BuiltReport,
    ReportBuilder,
    facts,
    grid,
    p,
)
from dealer_station.reports.text import MoneyUnit, local, local_short
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification

SESSION_KINDS = ("session.open", "session.close", "hand.open", "hand.close", "void")
LINE_COLOURS = ["#2e5d8a", "#c0504d", "#4f7f5a", "#8064a2", "#d08a2c", "#3b9aa8", "#7f7f7f",
                "#b5487a", "#5a5a2e", "#1f3f6e"]


@dataclass
class Hand:
    number: int
    opened: Record
    closed: Record | None = None
    voided: Record | None = None
    reneges: list[Record] = field(default_factory=list)


@dataclass
class Session:
    """One session as the journal has it."""

    opened: Record
    hands: list[Hand] = field(default_factory=list)
    closed: Record | None = None
    exceptions: list[Record] = field(default_factory=list)
    journal: Journal | None = field(default=None, repr=False)

    @property
    def session_id(self) -> str:
        return str(self.opened.payload.get("session_id", ""))

    @property
    def seats(self) -> list[str]:
        return [str(s) for s in self.opened.payload.get("seats", [])]

    @property
    def players(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.opened.payload.get("players", {}).items()}

    @property
    def settled(self) -> list[Hand]:
        return [h for h in self.hands if h.closed is not None]

    def chips_track(self) -> list[dict[str, int]]:
        """Chips per seat at the start and after every settled hand (a seat out of a hand keeps
        what it had)."""
        now = {s: int(v) for s, v in self.opened.payload.get("chips", {}).items()}
        track = [dict(now)]
        for h in self.settled:
            assert h.closed is not None
            for s, v in h.closed.payload.get("chips", {}).items():
                now[str(s)] = int(v)
            track.append(dict(now))
        return track

    def profile_content(self) -> dict[str, Any]:
        """The session's rule profile as its configuration version stores it."""
        if self.journal is None:
            return {}
        v = self.journal.config(self.opened.table_id,
                                str(self.opened.payload.get("config_version")))
        profiles = (v.content if v else {}).get("profiles", {})
        return dict(profiles.get(str(self.opened.payload.get("profile")), {}))

    @property
    def house(self) -> int:
        return sum(int(h.closed.payload.get("house", 0)) for h in self.settled
                   if h.closed is not None)


def gather(journal: Journal, table: str, period: Period) -> tuple[list[Session], Any]:
    """The sessions that were under way at some moment of the period."""
    cov = coverage(journal, table, period)
    if cov.last is None:
        return [], cov
    sessions: list[Session] = []
    current: Session | None = None
    hands: dict[int, Hand] = {}
    since, until = period.since_iso, period.until_iso
    kinds = SESSION_KINDS + tuple(k for k in EXCEPTION_KINDS if k != "void")
    for rec in journal.records(table, to_seq=cov.last.seq, kinds=kinds):
        if until is not None and rec.ts >= until:
            continue
        if rec.kind == "session.open":
            current = Session(rec, journal=journal)
            sessions.append(current)
            hands = {}
            continue
        if current is None:
            continue
        if rec.kind == "session.close":
            current.closed = rec
            current = None
            continue
        if rec.kind in EXCEPTION_KINDS:
            current.exceptions.append(rec)
        n = rec.round_no
        if n is None:
            continue
        if rec.kind == "hand.open":
            hands[n] = Hand(n, rec)
            current.hands.append(hands[n])
        elif n in hands:
            h = hands[n]
            if rec.kind == "hand.close":
                h.closed = rec
            elif rec.kind == "void":
                h.voided = rec
            elif rec.kind == "renege":
                h.reneges.append(rec)
    if since is not None:
        sessions = [s for s in sessions
                    if s.closed is None or s.closed.ts >= since]
    return sessions, cov


def chips_chart(session: Session, width: float, height: float = 170) -> Drawing:
    """Each player's chips after every hand."""
    track = session.chips_track()
    seats = session.seats
    players = session.players
    d = Drawing(width, height)
    d.add(String(0, height - 10, "Chips after each hand", fontName=FONT_BOLD, fontSize=8.5,
                 fillColor=INK))
    plot = LinePlot()
    plot.x, plot.y = 36, 26
    plot.width, plot.height = width - 170, height - 46
    plot.data = [[(i, t.get(s, 0)) for i, t in enumerate(track)] for s in seats]
    top = max((v for t in track for v in t.values()), default=1)
    plot.xValueAxis.valueMin = 0
    plot.xValueAxis.valueMax = max(1, len(track) - 1)
    plot.xValueAxis.valueStep = max(1, (len(track) - 1) // 15 or 1)
    plot.yValueAxis.valueMin = 0
    plot.yValueAxis.valueMax = top * 1.1 if top else 1
    for axis in (plot.xValueAxis, plot.yValueAxis):
        axis.labels.fontName = FONT
        axis.labels.fontSize = MIN_TEXT_PT
    plot.yValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = colors.HexColor("#dddddd")
    plot.yValueAxis.gridStrokeWidth = 0.4
    for i in range(len(seats)):
        plot.lines[i].strokeColor = colors.HexColor(LINE_COLOURS[i % len(LINE_COLOURS)])
        plot.lines[i].strokeWidth = 1.2
    d.add(plot)
    d.add(String(plot.x + plot.width / 2, 4, "hand", fontName=FONT, fontSize=MIN_TEXT_PT,
                 fillColor=INK, textAnchor="middle"))
    legend = Legend()
    legend.x, legend.y = plot.x + plot.width + 14, plot.y + plot.height
    legend.fontName = FONT
    legend.fontSize = MIN_TEXT_PT
    legend.alignment = "right"
    legend.columnMaximum = 12
    legend.colorNamePairs = [(colors.HexColor(LINE_COLOURS[i % len(LINE_COLOURS)]),
                              f"seat {s}: {players.get(s, s)}") for i, s in enumerate(seats)]
    d.add(legend)
    return d


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


def _seat_list(values: Sequence[Any]) -> str:
    return ", ".join(str(v) for v in values) or "-"


def _session_section(r: ReportBuilder, s: Session, money: MoneyUnit) -> None:
    w = r.width
    fmt = money.fmt
    o = s.opened.payload
    settled = s.settled
    voided = [h for h in s.hands if h.voided is not None]
    won = [h for h in settled if h.closed and h.closed.payload.get("winner")]
    carried = [h for h in settled if h.closed and not h.closed.payload.get("winner")
               and not h.closed.payload.get("dead")]
    last_pot = int(settled[-1].closed.payload.get("pot", 0)) if settled and \
        settled[-1].closed else int(o.get("pot", 0))
    won_total = sum(int(h.closed.payload.get("won", 0)) for h in won if h.closed)
    r.heading(f"Session {s.session_id}", level=1)
    r.add(facts([
        ("Profile", f"{o.get('profile')} (configuration {str(o.get('config_version'))[:16]}"
                    f"...)"),
        ("Started", f"{local(s.opened.ts)} by {s.opened.actor}"),
        ("Ended", local(s.closed.ts) if s.closed else "not ended in the period (under way)"),
        ("Players", "; ".join(f"seat {seat}: {name}" for seat, name in s.players.items())),
        ("Starting chips", ", ".join(f"seat {k}: {fmt(int(v))}" for k, v in
                                     o.get("chips", {}).items())),
        ("Hands", f"{len(settled)} settled, {len(voided)} voided"
                  + (f", {len(s.hands) - len(settled) - len(voided)} under way"
                     if len(s.hands) > len(settled) + len(voided) else "")),
        ("Pots", f"{len(won)} won ({fmt(won_total)} {money.label}), {len(carried)} carried; "
                 f"pot left at the end {fmt(last_pot)}"),
        ("House collection", f"{fmt(s.house)} {money.label}" if s.house else
                             "none collected"),
    ]))
    r.add(chips_chart(s, w))
    seats = s.seats
    rows = []
    track = s.chips_track()
    for i, h in enumerate(settled, 1):
        c = h.closed.payload if h.closed else {}
        rows.append([str(h.number), str(h.opened.payload.get("dealer_seat", "")),
                     fmt(int(c.get("pot_before", 0))), fmt(int(c.get("pot_end", 0))),
                     f"seat {c['winner']}" if c.get("winner") else (
                         "dead hand" if c.get("dead") else "carried"),
                     fmt(int(c.get("won", 0))), _seat_list(c.get("bourre", [])),
                     fmt(sum(int(v) for v in c.get("penalties", {}).values())),
                     fmt(int(c.get("house", 0))), fmt(int(c.get("pot", 0))),
                     *[fmt(track[i].get(seat, 0)) for seat in seats]])
    narrow = (w * 0.44) / max(1, len(seats))
    r.heading(f"Hands: pots and chips after each hand ({money.label})")
    r.add(grid(["Hand", "Dealer", "Pot in", "Pot", "Taken by", "Won", "Bourré", "Penalties",
                "House", "Next pot", *[f"Seat {x}" for x in seats]],
               rows or [["-"] + [""] * (9 + len(seats))],
               [w * 0.045, w * 0.05, w * 0.05, w * 0.05, w * 0.075, w * 0.05, w * 0.06,
                w * 0.065, w * 0.05, w * 0.06, *[narrow * 0.97] * len(seats)],
               numeric=tuple([0, 1, 2, 3, 5, 7, 8, 9, *range(10, 10 + len(seats))]),
               ))
    r.heading("Bourrés and reneges, with penalties")
    pen_rows = []
    for h in settled:
        c = h.closed.payload if h.closed else {}
        penalties = c.get("penalties", {})
        reneges = {str(m["seat"]): m for m in c.get("reneges", [])}
        for seat in sorted(set(map(str, c.get("bourre", []))) | set(reneges),
                           key=lambda x: int(x)):
            what = []
            if seat in map(str, c.get("bourre", [])):
                what.append("bourré (stayed and took no trick)")
            if seat in reneges:
                m = reneges[seat]
                what.append(f"renege on trick {m['trick']} with {m['card']}: {m['reason']}")
            pen_rows.append([str(h.number), f"seat {seat} ({s.players.get(seat, seat)})",
                             "; ".join(what), fmt(int(penalties.get(seat, 0)))])
        for m in c.get("retractions", []):
            pen_rows.append([str(h.number), f"seat {m['seat']} "
                             f"({s.players.get(str(m['seat']), m['seat'])})",
                             f"retraction on trick {m['trick']} ({m['card']}): {m['reason']}",
                             "0"])
    r.add(grid(["Hand", "Player", "What", f"Penalty ({money.label}, into the next pot)"],
               pen_rows or [["-", "", "none", ""]],
               [w * 0.07, w * 0.22, w * 0.53, w * 0.18], numeric=(0, 3), wrap=(1, 2)))
    busts = [(h.number, seat) for h in settled if h.closed
             for seat in h.closed.payload.get("eliminated", [])]
    r.heading("Eliminations and game tags")
    if busts:
        r.add(p("Out of chips: " + "; ".join(f"seat {seat} ({s.players.get(str(seat), seat)}) "
                                            f"in hand {n}" for n, seat in busts) + "."))
    if s.closed is not None:
        c = s.closed.payload
        r.add(grid(["Seat", "Player", "Chips at the end", "Outcome", "Game tags now"],
                   [[str(st["seat"]), str(st["player"]), fmt(int(st["chips"])),
                     str(st["outcome"]), str(c.get("tags", {}).get(st["player"], 0))]
                    for st in c.get("standings", [])],
                   [w * 0.08, w * 0.3, w * 0.17, w * 0.15, w * 0.15], numeric=(0, 2, 4)))
        eliminated = c.get("eliminated", [])
        r.add(p("Eliminated from the tournament (three game tags): "
                + (", ".join(map(str, eliminated)) if eliminated else "nobody") + "."))
    else:
        r.add(p("The session had not ended by the end of the period: no standings or game "
                "tags yet."))
    r.heading("House collection")
    collected = [h for h in settled if h.closed and h.closed.payload.get("house")]
    rule = house_rule(s.profile_content())
    if collected:
        r.add(p(f"{fmt(s.house)} {money.label} collected in {len(collected)} of "
                f"{len(settled)} hands (the House column above), kept apart from the pots. "
                f"Rule: {rule}."))
    else:
        r.add(p(f"Nothing collected. Rule: {rule}."))
    r.heading(f"Exceptions ({len(s.exceptions)})")
    if s.exceptions:
        r.add(grid(["Time", "Hand", "What", "Who", "Why", "Detail"],
                   exception_rows(s.exceptions),
                   [w * 0.13, w * 0.05, w * 0.08, w * 0.14, w * 0.3, w * 0.3],
                   wrap=(3, 4, 5), numeric=(1,)))
    else:
        r.add(p("None."))


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
        money = MoneyUnit.of(version.content if version else None)
        r = ReportBuilder(kind="bourre-session", title="Bourré sessions", table=table,
                          period=cov.label, subject=f"{len(sessions)} session(s)",
                          paper=paper, landscape_pages=True)
        r.add(facts([("Table", table), ("Period", cov.label),
                     ("Sessions", ", ".join(f"{s.session_id} ({local_short(s.opened.ts)})"
                                            for s in sessions)),
                     ("Amounts", f"in {money.label}")], widths=(40 * mm, 200 * mm)))
        for i, s in enumerate(sessions):
            if i:
                r.add(PageBreak())
            _session_section(r, s, money)
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=sessions, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Tournament director", "Pit supervisor"))
    finally:
        verification.cancel()
