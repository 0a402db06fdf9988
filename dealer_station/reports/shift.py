"""The table shift report: what a table did in a period, from its journal alone.

Figures come from the meters each closing record carries (``round.close``, ``hand.close`` and
``void`` hold ``meters`` = {wager kind or "total": {wagered, paid, house_win}}), read in one
pass in sequence order; rounds are never replayed, so 100,000 rounds take seconds. A round
belongs to the period in which it closed. Meters at open are the sum of every closing record
before the period; at close, up to the last record the report covers. Dealers and
configuration versions come from the records that opened the rounds, exceptions from the
journal's events, and the theoretical edge from the par sheet of each round's configuration
version.
"""

from __future__ import annotations

import json
import json.scanner
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

from dealer_station import registry
from dealer_station.accounting.figures import round_money
from dealer_station.accounting.glossary import (
    HOUSE_WIN,
    PAID,
    RETURNED,
    THEORETICAL_EDGE,
    THEORETICAL_WIN,
    WAGERED,
    WIN_PCT_OF_HANDLE,
    WINNING_STAKES,
    meanings,
)
from dealer_station.audit.journal import ConfigVersion, Journal, JournalTampered, Record
from dealer_station.events.kinds import closing_statuses, opening_kinds
from dealer_station.events.parts import WAGER_LABELS
from dealer_station.events.rows import (
    why,
)
from dealer_station.money import Money
from dealer_station.reports import charts, shift_tally
from dealer_station.reports.parts import HOUSE_EDGES
from dealer_station.reports.pdf_style import p
from dealer_station.reports.shift_tally import DealerShift, ShiftTally, merged, pace
from dealer_station.reports.source import (
    Coverage,
    Period,
    config_change,
    config_changes,
    config_in_force,
    coverage,
    covered_records,
    game_label,
)
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid
from dealer_station.reports.text import (
    local,
    local_short,
    pace_words,
    percent,
    ratio,
    short_hash,
    zone_name,
)
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification
from dealer_station.table.parts import WINS
from dealer_station.table.recall_model import detail_text, record_label
from dealer_station.table.wins import SpanWins, WinsBySpan

#: What the shift report lists as exceptions to the normal flow of play.
EXCEPTION_KINDS = ("void", "correction", "halt", "resolve", "misread", "card.held", "renege",
                   "recovery", "device.fault", "device.lost", "clock.jump")
TOTAL = "total"
#: Hour-by-hour bars up to this many hours; beyond, the hours of the day are summed.
MAX_HOURLY_BARS = 48


def _wager_labels() -> dict[str, str]:
    """Every game's wager kinds (its meters) in the felt's order, with their names, from the
    registry: the report names no game's wagers itself."""
    out: dict[str, str] = {}
    for g in registry.REGISTRY.values():
        labels = g.supplies(WAGER_LABELS)
        if labels is not None:
            out.update(labels())
    return out


def kind_label(kind: str) -> str:
    if kind == TOTAL:
        return "Total"
    return registry.meter_label(kind) or _wager_labels().get(kind, kind)


def _kind_order(kind: str) -> tuple[int, str]:
    order = list(_wager_labels())
    return (order.index(kind) if kind in order else len(order), kind)


@dataclass
class Figures:
    """One meter: rounds that had it, amounts wagered and paid, the house's win."""

    rounds: int = 0
    wagered: int = 0
    paid: int = 0
    house_win: int = 0

    @property
    def hold(self) -> Fraction | None:
        return ratio(self.house_win, self.wagered)

    @property
    def returned(self) -> int:
        """Stakes handed back with a win: wagered - returned - paid = house win."""
        return self.wagered - self.paid - self.house_win

    def plus(self, other: Figures) -> Figures:
        return Figures(self.rounds + other.rounds, self.wagered + other.wagered,
                       self.paid + other.paid, self.house_win + other.house_win)


def pace_text(value: Fraction | None) -> str:
    return "-" if value is None else f"{float(value):,.1f}"


@dataclass
class ShiftData:
    """Every figure the shift report prints (tests compare these with the journal)."""

    table: str
    coverage: Coverage
    money: Money
    games: list[str] = field(default_factory=list)
    rounds_settled: int = 0
    rounds_voided: int = 0
    #: The stakes the period's voids handed back unsettled (None: the rounds' records could
    #: not be read, so the figure is not known; a pot game's voids hand back no stakes).
    returned_by_voids: int | None = 0
    first_round: int | None = None
    last_round: int | None = None
    kinds: dict[str, Figures] = field(default_factory=dict)
    meters_open: dict[str, Figures] = field(default_factory=dict)
    meters_close: dict[str, Figures] = field(default_factory=dict)
    hourly: list[tuple[str, int]] = field(default_factory=list)
    hourly_title: str = ""
    dealers: list[DealerShift] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)
    theoretical: dict[str, tuple[Fraction, Fraction]] = field(default_factory=dict)
    #: Per wager kind and in total: (stakes settled, theoretical win), each wager at its own
    #: spot's house edge (the game's ``wins`` part); the exact edge is their ratio.
    exact: dict[str, tuple[int, Fraction]] = field(default_factory=dict)
    #: The first round opened and the last closed in the period (game pace).
    first_open: str = ""
    last_close: str = ""
    exceptions: list[Record] = field(default_factory=list)
    version_info: dict[str, ConfigVersion] = field(default_factory=dict)
    #: The first config.change record of each version (who recorded it, when, why).
    recorded: dict[str, Record] = field(default_factory=dict)

    @property
    def rounds_played(self) -> int:
        return self.rounds_settled + self.rounds_voided

    @property
    def total(self) -> Figures:
        return self.kinds.get(TOTAL, Figures())

    def edge(self, kind: str) -> Fraction | None:
        """The exact theoretical edge of ``kind`` (or TOTAL) over the wagers made."""
        found = self.exact.get(kind)
        return None if found is None or not found[0] else found[1] / found[0]

    @property
    def per_hour(self) -> Fraction | None:
        return pace(self.rounds_played, self.first_open, self.last_close)


def _edges(content: Mapping[str, Any], game: str) -> dict[str, tuple[Fraction, Fraction]]:
    """Per wager kind, the lowest and highest house edge of its offered spots (the game's
    ``house_edges`` part; none for a game that is not banked, or not known here)."""
    found = registry.REGISTRY.get(game)
    if found is None:
        return {}
    edges = found.supplies(HOUSE_EDGES)
    return edges(content) if edges is not None else {}


def _hour_buckets(wins: Mapping[datetime, int], what: str = "House win"
                  ) -> tuple[list[tuple[str, int]], str]:
    """The hours' figures and their title (``what``: "House win", or "House collection"
    for a pot game, whose only win is what the house collects)."""
    if not wins:
        return [], f"{what} by hour"
    first, last = min(wins), max(wins)
    hours = int((last - first).total_seconds() // 3600) + 1
    if hours <= MAX_HOURLY_BARS:
        out = []
        for i in range(hours):
            h = first + timedelta(hours=i)
            out.append((h.strftime("%H:00") if hours <= 24 else h.strftime("%d %H:00"),
                        wins.get(h, 0)))
        return out, f"{what} by hour ({zone_name(first)})"
    by_hour = [0] * 24
    for h, v in wins.items():
        by_hour[h.hour] += v
    return ([(f"{h:02d}:00", by_hour[h]) for h in range(24)],
            f"{what} by hour of day, all {hours // 24 + 1} days of the period summed "
            f"({zone_name(last)})")


def gather(journal: Journal, table: str, period: Period, *,
           ranges: Verification | None = None) -> ShiftData:
    """Read the period's figures from the journal (one pass over the opening and closing
    records): summed by the ranges of the report's verification as they read them
    (``ranges``, made with :func:`tally_collector`), or read here."""
    cov = coverage(journal, table, period)
    versions = journal.config_versions(table)
    at = cov.last.ts if cov.last else period.until_iso
    in_force = config_in_force(journal, table, at, versions)
    data = ShiftData(table, cov, Money.of(in_force.content if in_force else None),
                     version_info={v.version: v for v in versions})
    if cov.last is None:
        return data
    for c in config_changes(journal, table, cov.last.seq):
        data.recorded.setdefault(config_change(c).version, c)
    if ranges is not None:
        # While the ranges read: each version's par sheet, which the figures need after.
        for v in versions:
            _edges(v.content, v.game)
    parts = ranges.collected() if ranges is not None else None
    if parts is not None and ranges is not None and ranges.size == cov.last.seq:
        # The verification's ranges summed the records as they read them.
        tally = merged(parts)
    else:
        tally = ShiftTally(period.since_iso, period.until_iso)
        for round_no, kind, ts, actor, payload in _opening_and_closing(
                journal, table, frozenset(opening_kinds()), closing_statuses(), cov.last.seq):
            tally.add(round_no, kind, ts, actor, payload)
    data.rounds_settled, data.rounds_voided = tally.rounds_settled, tally.rounds_voided
    data.versions = dict(tally.versions)
    data.first_open, data.last_close = tally.first_open, tally.last_close
    kinds = {k: Figures(*v) for k, v in tally.during.items()}
    meters_open = {k: Figures(*v) for k, v in tally.before.items()}
    data.games = sorted(g for g in tally.games if g)
    data.kinds = dict(sorted(kinds.items(), key=lambda kv: _kind_order(kv[0])))
    data.meters_open = dict(meters_open)
    close: dict[str, Figures] = {}
    for k in set(meters_open) | set(kinds):
        close[k] = meters_open.get(k, Figures()).plus(kinds.get(k, Figures()))
    data.meters_close = dict(sorted(close.items(), key=lambda kv: _kind_order(kv[0])))
    if tally.first_round is not None and tally.last_round is not None:
        data.first_round, data.last_round = tally.first_round, tally.last_round
    data.hourly, data.hourly_title = _hour_buckets(
        tally.wins, "House collection" if _only_unbanked(data) else "House win")
    data.dealers = sorted(tally.dealers.values(), key=lambda d: d.first)
    data.theoretical = _theoretical(tally.by_version, data.version_info)
    if tally.theo_known and data.rounds_played and _all_won(data.games):
        # Every closing record carried its theoretical win: the wagers need not be read.
        data.exact = {k: (f.wagered, sum((Fraction(n, d) for d, n in tally.theo[k].items()),
                                         Fraction(0)))
                      for k, f in kinds.items() if f.wagered}
        data.returned_by_voids = tally.back
    else:
        data.exact, data.returned_by_voids = _exact(journal, table, period, data.games,
                                                    cov.last.seq)
    data.exceptions = journal.events(table, period.since, period.until, EXCEPTION_KINDS)
    if cov.last is not None:
        data.exceptions = [e for e in data.exceptions if e.seq <= cov.last.seq]
    return data


#: What the opening and closing records are read by: the fields of their payloads that
#: ``events.rows.opening`` and ``closing_meters`` read.
OPENING_FIELDS = ("game", "config_version", "dealer")
CLOSING_FIELDS = ("meters", "returned_stakes")


def _opening_and_closing(journal: Journal, table: str, opening: frozenset[str],
                         closing: Mapping[str, str], to_seq: int
                         ) -> Iterator[tuple[int | None, str, str, str, Mapping[str, Any]]]:
    """(round, kind, time, actor, payload) of each record up to ``to_seq`` that opens or
    closes a round, in order; the payload holds only the fields the report reads, picked
    out by the database (decoding 200,000 whole payloads took seconds)."""
    kinds = [*opening, *closing]
    fields = (*OPENING_FIELDS, *CLOSING_FIELDS)
    rows = journal.fields_of_kinds(table, kinds, fields, to_seq=to_seq)
    if rows is None:
        # A payload that is not a JSON object: read as records, which say what is wrong.
        for rec in journal.records(table, to_seq=to_seq, kinds=kinds):
            yield rec.round_no, rec.kind, rec.ts, rec.actor, rec.payload
        return
    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
    for _, ts, actor, kind, round_no, *values in rows:
        # The database gives each field as minified JSON text: its C scanner reads it.
        parsed = {name: scan(text, 0)[0] for name, text in zip(fields, values, strict=True)}
        yield round_no, kind, ts, actor, parsed


def tally_collector(period: Period, to_seq: int) -> tuple[str, dict[str, Any]]:
    """What the verification's ranges are given to sum the period's figures as they read."""
    return (shift_tally.__name__, {"since": period.since_iso, "until": period.until_iso,
                                   "to_seq": to_seq})


def _all_won(games: Iterable[str]) -> bool:
    """Whether every game played has a ``wins`` part (a theoretical win at all)."""
    for game in games:
        found = registry.REGISTRY.get(game)
        if found is None or found.supplies(WINS) is None:
            return False
    return True


def _exact(journal: Journal, table: str, period: Period, games: Iterable[str], through: int
           ) -> tuple[dict[str, tuple[int, Fraction]], int | None]:
    """Stakes and theoretical win per wager kind and in total, from each settled wager and
    its own spot's edge (games whose ``wins`` part knows them); and, from the same rounds,
    the stakes their voids handed back (None where the rounds could not be read). Only the
    records up to ``through`` (the last the report covers) are read."""
    # Stakes, and theoretical win as whole numbers per denominator (one denominator per
    # configuration version): a Fraction per round and kind made 100,000 rounds slow.
    stakes: dict[str, int] = defaultdict(int)
    scaled: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    returned = 0
    try:
        for game in games:
            found = registry.REGISTRY.get(game)
            wins = found.supplies(WINS) if found is not None else None
            if wins is None:
                continue
            # The report's own verification (on every page) proves these records, as it does
            # the closing records its other figures come from.
            if isinstance(wins, WinsBySpan):
                # Summed per configuration version and spot by the game, in one snapshot.
                (span,) = wins.by_span(journal, table, [(period.since, period.until)],
                                       through_seq=through, check_hashes=False)
            else:
                span = SpanWins()
                for w in wins(journal, table, period.since, period.until, check_hashes=False):
                    span.add_round(w)
            returned += span.voided_returned
            for kind, staked in span.stakes.items():
                for key in (kind, TOTAL):
                    stakes[key] += staked
                    for den, t in span.scaled.get(kind, {}).items():
                        scaled[key][den] += t
    except (JournalTampered, KeyError, ValueError, TypeError):
        # A record the station did not write (the verification on every page says so):
        # no theoretical figure rather than no report.
        return {}, None
    return {k: (stakes[k], sum((Fraction(t, den) for den, t in scaled[k].items()),
                               Fraction(0))) for k in stakes}, returned


def _returned_text(data: ShiftData) -> str:
    if data.rounds_voided == 0:
        return f"{data.money.text(0)} (no round was voided)"
    if data.returned_by_voids is None:
        return ("not known: the voided rounds' records could not be read (see the journal's "
                "verification)")
    return (f"{data.money.text(data.returned_by_voids)} (handed back by "
            f"{data.rounds_voided:,} void{'s' if data.rounds_voided != 1 else ''}; in no "
            f"other figure)")


def _theoretical(handle: Mapping[tuple[str, str], int], versions: Mapping[str, Any]
                 ) -> dict[str, tuple[Fraction, Fraction]]:
    """Handle-weighted par-sheet edge per kind (and in total), low and high."""
    edges: dict[str, dict[str, tuple[Fraction, Fraction]]] = {}
    sums: dict[str, list[Fraction]] = defaultdict(lambda: [Fraction(0), Fraction(0)])
    weight: dict[str, int] = defaultdict(int)
    for (kind, version), amount in handle.items():
        if version not in edges:
            v = versions.get(version)
            edges[version] = _edges(v.content, v.game) if v is not None else {}
        edge = edges[version].get(kind)
        if edge is None or amount == 0:
            continue
        for key in (kind, TOTAL):
            sums[key][0] += edge[0] * amount
            sums[key][1] += edge[1] * amount
            weight[key] += amount
    return {k: (lo / weight[k], hi / weight[k]) for k, (lo, hi) in sums.items() if weight[k]}


# --- the printed report ----------------------------------------------------------------------

def _unbanked_meter(kind: str) -> bool:
    """A meter of a game the house does not bank (Bourré's pots): a hold means nothing."""
    return any(not g.banked and kind in dict(g.meter_labels)
               for g in registry.REGISTRY.values())


def _only_unbanked(data: ShiftData) -> bool:
    return bool(data.games) and all(
        g in registry.REGISTRY and not registry.REGISTRY[g].banked for g in data.games)


def _theo_win(data: ShiftData, kind: str) -> str:
    found = data.exact.get(kind)
    return "-" if found is None else data.money.number(round_money(found[1]))


def _edge_text(data: ShiftData, kind: str) -> str:
    edge = data.edge(kind)
    return percent(edge) if edge is not None else "-"


def _figures_rows(data: ShiftData) -> list[list[str]]:
    fmt = data.money.number
    rows = []
    for kind, f in data.kinds.items():
        if kind == TOTAL:
            continue
        rows.append([kind_label(kind), f"{f.rounds:,}", fmt(f.wagered), fmt(f.returned),
                     fmt(f.paid), fmt(f.house_win),
                     "n/a" if _unbanked_meter(kind) else percent(f.hold),
                     _edge_text(data, kind), _theo_win(data, kind)])
    t = data.total
    rows.append(["Total", f"{t.rounds:,}", fmt(t.wagered), fmt(t.returned), fmt(t.paid),
                 fmt(t.house_win), "n/a" if _only_unbanked(data) else percent(t.hold),
                 _edge_text(data, TOTAL), _theo_win(data, TOTAL)])
    return rows


#: The figures of the table of wager kinds, in its columns' order.
FIGURE_COLUMNS = (WAGERED, WINNING_STAKES, PAID, HOUSE_WIN, WIN_PCT_OF_HANDLE, THEORETICAL_EDGE,
                  THEORETICAL_WIN)


def exception_rows(records: Iterable[Record], money: Callable[[int], str] | None = None
                   ) -> list[list[str]]:
    rows = []
    for e in records:
        # Kinds and details in words, as the recall prints them (no minor units, no keys).
        rows.append([local_short(e.ts), "" if e.round_no is None else str(e.round_no),
                     record_label(e.kind), e.actor, why(e.payload),
                     detail_text(e.payload, money=money)])
    return rows


def no_hourly_chart(data: ShiftData) -> str:
    """Why the report draws no chart of the house's win by hour: there was none to draw."""
    if _only_unbanked(data):
        games = ", ".join(game_label(g) for g in data.games)
        return (f"No chart of the house's collection by hour: {games} is played between the "
                f"players for their own pots, and the rules played here took no collection "
                f"from any pot in the period, so the house won nothing in any hour. The "
                f"chips the players put in are charted below; the card-room report "
                f"reconciles them.")
    return ("No chart of the house's win by hour: the house's win was nil in every hour of "
            "the period.")


def render(data: ShiftData, out: Path | str, verification: Verification, *,
           paper: str = "A4") -> BuiltReport:
    cov = data.coverage
    money = data.money
    fmt = money.number
    games = ", ".join(game_label(g) for g in data.games) or "-"
    r = ReportBuilder(kind="shift", title="Table shift report", table=data.table,
                      period=cov.label, subject=games, paper=paper)
    w = r.width
    t = data.total
    theo = data.exact.get(TOTAL)
    dealers = ", ".join(f"{d.dealer} ({d.rounds:,})" for d in data.dealers) or "none"
    rounds = (f"{data.rounds_played:,} ({data.rounds_settled:,} settled, "
              f"{data.rounds_voided:,} voided)")
    if data.first_round is not None:
        rounds += f"; rounds {data.first_round:,} to {data.last_round:,}"
    summary: list[tuple[str, Any]] = [
        ("Table", data.table), ("Game", games), ("Period", cov.label),
        ("Dealers on shift (rounds)", dealers),
        ("Rounds played", rounds),
        ("Game pace", f"{pace_words(data.per_hour, 'rounds')} (first round opened to last "
                      f"closed)"),
        (WAGERED.label, money.text(t.wagered)),
        (WINNING_STAKES.label, money.text(t.returned)),
        (PAID.label, money.text(t.paid)),
        (HOUSE_WIN.label, f"{money.text(t.house_win)} (wagered - winning stakes - paid)"),
        (RETURNED.label, _returned_text(data)),
        (WIN_PCT_OF_HANDLE.label, "not applicable: a pot game between players; the house's "
                                  "win is its collection (see the card-room report)"
         if _only_unbanked(data) else percent(t.hold)),
        (THEORETICAL_EDGE.label, _edge_text(data, TOTAL)),
        (THEORETICAL_WIN.label, "-" if theo is None else
         f"{money.text(round_money(theo[1]))}; actual - theoretical "
         f"{money.text(t.house_win - round_money(theo[1]))}"),
        ("Exceptions", f"{len(data.exceptions):,} (listed below)"),
    ]
    r.add(facts(summary))
    r.heading(f"Wagered, paid and won by wager kind ({money.label})")
    r.add(grid(["Wager kind", "Rounds", *(t.label for t in FIGURE_COLUMNS)],
               _figures_rows(data),
               [w * 0.15, w * 0.08, w * 0.11, w * 0.11, w * 0.11, w * 0.11, w * 0.10,
                w * 0.11, w * 0.10],
               numeric=(1, 2, 3, 4, 5, 6, 7, 8), bold_last=True))
    r.add(p(meanings(FIGURE_COLUMNS) + " Voided rounds count with the stages settled before "
            f"the void. {RETURNED.said()}"
            + "".join(f" {g.meters_note}" for g in map(registry.REGISTRY.get, sorted(data.games))
                      if g is not None and g.meters_note), "note"))
    if data.hourly:
        pot_game = _only_unbanked(data)
        what = "House collection" if pot_game else "House win"
        r.heading("Charts")
        if any(v for _, v in data.hourly):
            r.add(charts.win_by_hour(data.hourly, money, w, data.hourly_title,
                                     measure=what.lower()))
        else:
            # An axis with no bar says nothing: the sentence says why there is none.
            r.add(p(no_hourly_chart(data), "note"))
        r.space()
        handle = [(kind_label(k), f.wagered) for k, f in data.kinds.items() if k != TOTAL]
        r.add(charts.handle_by_kind(
            handle, money, w,
            f"Chips put into the pots ({charts.axis_unit(money)})" if pot_game else
            f"Handle by wager kind ({charts.axis_unit(money)})",
            measure="put in" if pot_game else "wagered"))
        if any(v for _, v in data.hourly):
            r.heading(f"{data.hourly_title}: figures ({money.label})")
            r.add(grid(["Hour", what],
                       [[label, fmt(v)] for label, v in data.hourly], [w * 0.2, w * 0.2],
                       numeric=(1,)))
    r.heading("Dealers on shift")
    r.add(grid(["Dealer", "Rounds", "Per hour", "Wagered", "House win", "First round opened",
                "Last round closed"],
               [[d.dealer, f"{d.rounds:,}", pace_text(d.per_hour), fmt(d.wagered),
                 fmt(d.house_win), local_short(d.first), local_short(d.last)]
                for d in data.dealers] or [["none", "", "", "", "", "", ""]],
               [w * 0.17, w * 0.08, w * 0.09, w * 0.13, w * 0.13, w * 0.2, w * 0.2],
               numeric=(1, 2, 3, 4)))
    r.add(p(f"Game pace at the table: {pace_text(data.per_hour)} rounds per hour. A "
            f"dealer's pace runs from the first round they opened to the last they closed in "
            f"the period; their wagered and house win are those of the rounds they opened "
            f"({money.label}). Times are {zone_name()}.", "note"))
    r.heading(f"Meters at open and close ({money.label})")
    meter_rows = []
    for k, c in data.meters_close.items():
        o = data.meters_open.get(k, Figures())
        meter_rows.append([kind_label(k), fmt(o.wagered), fmt(o.paid), fmt(o.house_win),
                           fmt(c.wagered), fmt(c.paid), fmt(c.house_win)])
    if meter_rows and meter_rows[0][0] == "Total":
        meter_rows.append(meter_rows.pop(0))
    r.add(grid(["Meter", "Wagered", "Paid", "House win", "Wagered", "Paid", "House win"],
               meter_rows or [["-"] * 7], [w * 0.16] + [w * 0.14] * 6,
               numeric=(1, 2, 3, 4, 5, 6), bold_last=bool(meter_rows),
               groups=[("At open", 1, 3), ("At close", 4, 6)]))
    r.add(p("Meters are cumulative over every round the journal records for this table: at "
            "open, the rounds closed before the period; at close, up to the last record this "
            "report covers.", "note"))
    r.heading("Configuration versions played")
    version_rows = []
    for version, n in data.versions.items():
        rec = data.recorded.get(version)
        version_rows.append([short_hash(version, 16), f"{n:,}",
                             local(rec.ts) if rec else "-", rec.actor if rec else "-",
                             config_change(rec).reason if rec else
                             "no configuration change records this version"])
    r.add(grid(["Version", "Rounds", "Recorded", "By", "Why"], version_rows or
               [["-", "", "", "", ""]], [w * 0.22, w * 0.1, w * 0.24, w * 0.16, w * 0.28],
               numeric=(1,), wrap=(4,)))
    r.heading(f"Exceptions ({len(data.exceptions):,})")
    if data.exceptions:
        r.add(grid(["Time", "Round", "What", "Who", "Why", "Detail"],
                   exception_rows(data.exceptions, data.money.text),
                   [w * 0.15, w * 0.06, w * 0.12, w * 0.2, w * 0.24, w * 0.23],
                   wrap=(3, 4, 5), numeric=(1,)))
    else:
        r.add(p("No voids, corrections, misreads, device faults, reneges or other exceptions "
                "in the period."))
    return r.build(out, verification.result(), cov.first, cov.last,
                       data=data, evidence=covered_records(
                           verification.journal, data.table, cov.first, cov.last),
                       signatures=("Pit supervisor", "Shift manager"))


def build_shift_report(journal: Journal, table: str, period: Period | None = None, *,
                       out: Path | str, paper: str = "A4",
                       background_above: int = BACKGROUND_ABOVE_RECORDS) -> BuiltReport:
    """Write the shift report of ``table`` for ``period`` (default: everything recorded)."""
    period = period or Period()
    cov = coverage(journal, table, period)
    verification = Verification(journal, table, background_above=background_above,
                                collect=tally_collector(period, cov.last.seq if cov.last else 0))
    try:
        data = gather(journal, table, period, ranges=verification)
        return render(data, out, verification, paper=paper)
    finally:
        verification.cancel()
