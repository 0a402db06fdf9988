"""The game-protection report: what the integrity monitor (dealer_station/monitor/,
docs/monitor.md) said of one table or every table over a gaming day, a shift or a period.

- **Every alert** the journal holds for the period (its ``monitor.alert`` records, each
  checked against its keyed hash): the rule by the name people read, the round, the seat (and
  its player where a session named one), the dealer by name, the evidence in words (what a
  seat staked as money), the p-value, the statistic against its threshold and the false-alarm
  rate it was set for; and whether a pit acknowledged it (an ``alert.ack`` record of a
  ``pit-*`` chain naming the alert ``TABLE:SEQ``, floor/alerts.py): who, when and why, else
  "not acknowledged".
- **Every rule's state**, table by table: the monitor run again over the period's rounds (from
  the start of the period's first gaming day, since evidence starts afresh each gaming day,
  as it does live): each rule's tests, threshold, rounds watched, alerts, and the highest
  statistic any of its tests reached against the threshold; whether the run again raises the
  same alerts as the journal holds; and per dealer, the rounds dealt and the alerts raised in
  them.
- **Each alert's evidence**: its test's statistic after each round of its gaming day through
  the crossing, with the threshold and the evidence's rounds (as
  table/protection_evidence.evidence reads it, each day run once: reports/protection_traces.py).
- **The hold bands**: each table's cumulative win against the theoretical win of the wagers
  placed, with the band their exact variance allows (monitor/hold.py, table/monitor_wins.py).

A table whose chain does not verify is reported from the records before the first one that
fails (every page says the journal failed, as on every report), and the report says which
records it could not read.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, Spacer, Table, TableStyle

from dealer_station.audit.journal import Journal, JournalTampered, Record, VerifyResult
from dealer_station.events import Codec
from dealer_station.events.station import AlertAcknowledged
from dealer_station.events.table import PROTECTION_RULES, ProtectionAlerted
from dealer_station.events.wording import People
from dealer_station.gaming_day import GamingCalendar
from dealer_station.money import Money
from dealer_station.monitor.alerts import STAGE_WORDS, Alert, value_words
from dealer_station.monitor.by_day import TableMonitor
from dealer_station.monitor.hold import BandPoint, hold_band
from dealer_station.monitor.rules import FIRST_CARD_KINDS, CardKnowledgeRule, ShoeRule
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.reports.pdf_style import FONT, MIN_TEXT_PT, p
from dealer_station.reports.pit_summary import chosen_tables, period_label
from dealer_station.reports.protection_charts import BandLike, hold_band_chart, statistic_chart
from dealer_station.reports.protection_traces import evidence_by_day, round_number
from dealer_station.reports.source import Coverage, Period, coverage, covered_records, money_for
from dealer_station.reports.template import BuiltReport, ReportBuilder, TableCheck, facts, grid
from dealer_station.reports.text import local_short, zone_name
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification
from dealer_station.table.monitor_rounds import RoundReader
from dealer_station.table.monitor_wins import round_stakes
from dealer_station.table.protection_evidence import Evidence

TITLE = "Game protection report"
KIND = "game-protection"
_PIT = Codec((AlertAcknowledged,))
#: The band the hold chart draws: this many standard deviations either side.
BAND_Z = 3.0
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


# --- what the report holds ---------------------------------------------------------------------

@dataclass(frozen=True)
class Acknowledged:
    """A pit's acknowledgement of an alert: which pit, who, when and why."""

    pit: str
    who: str
    at: str
    reason: str
    seq: int


@dataclass(frozen=True)
class JournaledAlert:
    """A ``monitor.alert`` record of the period, and its acknowledgement if a pit gave one."""

    table: str
    record: Record
    alert: ProtectionAlerted
    acknowledged: Acknowledged | None = None

    @property
    def id(self) -> str:
        """The alert's id at the pit (floor/alerts.py): ``TABLE:SEQ``."""
        return f"{self.table}:{self.record.seq}"

    @property
    def key(self) -> tuple[str, str, int]:
        return self.alert.rule, self.alert.test, self.alert.round_no


@dataclass
class RuleState:
    """One rule at one table over the period (the monitor run again)."""

    rule: str
    tests: int
    threshold: float
    rounds: int = 0
    alerts: int = 0
    highest: float = 0.0
    highest_test: str = ""
    highest_round: int | None = None

    @property
    def name(self) -> str:
        return PROTECTION_RULES.get(self.rule, self.rule)

    def saw(self, test: str, statistic: float, round_no: int) -> None:
        if statistic > self.highest:
            self.highest, self.highest_test, self.highest_round = statistic, test, round_no


@dataclass
class DealerState:
    """One dealer at one table over the period."""

    dealer: str
    rounds: int = 0
    #: Journaled alerts raised in rounds they dealt, by rule.
    alerts: Counter[str] = field(default_factory=Counter)
    #: Journaled alerts whose evidence takes in rounds they dealt.
    in_evidence: int = 0


@dataclass
class TableProtection:
    """Everything the report says of one table."""

    table: str
    coverage: Coverage
    money: Money
    verification: VerifyResult
    #: The last record read (None: the whole chain; else the last before the one that fails).
    read_to: int | None
    rounds: int = 0
    first_round: int | None = None
    last_round: int | None = None
    rules: list[RuleState] = field(default_factory=list)
    dealers: dict[str, DealerState] = field(default_factory=dict)
    alerts: list[JournaledAlert] = field(default_factory=list)
    #: The alerts the monitor raises again over the period's rounds.
    again: list[Alert] = field(default_factory=list)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    #: The hold bands (None: not read, the chain not verifying).
    band: Sequence[BandLike] | None = None


@dataclass(frozen=True)
class ProtectionData:
    scope: str
    period: Period
    label: str
    settings: MonitorSettings
    tables: list[TableProtection]

    @property
    def alerts(self) -> list[JournaledAlert]:
        return [a for t in self.tables for a in t.alerts]


# --- reading the journal -----------------------------------------------------------------------

def acknowledgements(journal: Journal, people: People) -> dict[str, Acknowledged]:
    """Every alert id a pit acknowledged, from the ``pit-*`` chains the journal holds (the
    floor database), each record checked against its keyed hash; the first for an id."""
    out: dict[str, Acknowledged] = {}
    for stream in journal.tables():
        if not stream.startswith("pit-"):
            continue
        for rec in journal.events(stream, kinds=[AlertAcknowledged.KIND]):
            e = _PIT.decode(rec.kind, rec.payload)
            if isinstance(e, AlertAcknowledged) and e.alert not in out:
                out[e.alert] = Acknowledged(stream.removeprefix("pit-"),
                                            people.actor(rec.actor), rec.ts, e.reason, rec.seq)
    return out


def _alert_records(journal: Journal, table: str, period: Period, read_to: int | None
                   ) -> Iterator[tuple[Record, ProtectionAlerted]]:
    codec = Codec((ProtectionAlerted,))
    for rec in journal.records(table, to_seq=read_to, kinds=[ProtectionAlerted.KIND]):
        if not period.contains(rec.ts):
            continue
        if not journal.is_authentic(rec):
            raise JournalTampered(f"table {table} record {rec.seq} ({rec.kind}) does not "
                                  f"match its hash: the journal was changed without the key; "
                                  f"run `dealer-station audit verify`")
        e = codec.decode(rec.kind, rec.payload)
        if isinstance(e, ProtectionAlerted):
            yield rec, e


def _day_start(calendar: GamingCalendar, since: datetime | None) -> datetime | None:
    return None if since is None else calendar.day(calendar.day_of(since)).start


def _rule_tests(monitor: Any, rule: str) -> int:
    """How many tests ``rule`` runs at the table (the rule object's ``tests()``; a monitor
    holds its rules as attributes, or a pot game's as its ``rules``)."""
    for value in [*vars(monitor).values(), *getattr(monitor, "rules", ())]:
        if getattr(value, "RULE", None) == rule and callable(getattr(value, "tests", None)):
            return int(value.tests())
    return 0


def _watches(rule: str, rnd: Any) -> bool:
    """Whether ``rule`` can look at round ``rnd``: the shoe at a round with a card; card
    knowledge at one where a seat held a First Card wager; the rules on the house's win at
    one whose win and its law are known; any other rule at every round."""
    cards = getattr(rnd, "cards", ())
    if rule == ShoeRule.RULE:
        return bool(cards)
    if rule == CardKnowledgeRule.RULE:
        return bool(cards) and any(w.kind in FIRST_CARD_KINDS and w.values
                                   for w in getattr(rnd, "wagers", ()))
    if hasattr(rnd, "law"):
        return getattr(rnd, "win", None) is not None and rnd.law is not None
    return True


def _states(monitor: TableMonitor) -> dict[str, RuleState]:
    m = monitor.monitor
    thresholds: dict[str, float] = getattr(m, "thresholds", {})
    return {rule: RuleState(rule, _rule_tests(m, rule), h) for rule, h in thresholds.items()}


def _rerun(journal: Journal, t: TableProtection, period: Period, settings: MonitorSettings,
           calendar: GamingCalendar) -> None:
    """The monitor run again over the table's rounds, from the start of the period's first
    gaming day (as live: evidence starts afresh each day), counting those opened in the
    period."""
    monitor = TableMonitor(t.table, settings, calendar)
    states = _states(monitor)
    t.rules = list(states.values())
    kind: type = type(monitor.monitor)
    start = _day_start(calendar, period.since)
    from_seq = 1
    if start is not None:
        found = journal.first_seq_opened_since(t.table, start)
        if found is None:
            return
        from_seq = found
    if t.read_to is not None and from_seq > t.read_to:
        return
    reader = RoundReader(t.table, journal)
    for rec in journal.records(t.table, from_seq=from_seq, to_seq=t.read_to):
        read = reader.record(rec)
        if read is None:
            continue
        opened = read.opened_at
        if start is not None and opened < start:
            continue
        if period.until is not None and opened >= period.until:
            break
        raised = monitor.feed(read.round, opened)
        if period.since is not None and opened < period.since:
            continue
        rnd = read.round
        number = round_number(rnd)
        if type(monitor.monitor) is not kind:   # a pot game's table: its own rules
            kind = type(monitor.monitor)
            states = _states(monitor)
            t.rules = list(states.values())
        t.rounds += 1
        t.first_round = number if t.first_round is None else t.first_round
        t.last_round = number
        if rnd.dealer:
            t.dealers.setdefault(rnd.dealer, DealerState(rnd.dealer)).rounds += 1
        for state in states.values():
            state.rounds += _watches(state.rule, rnd)
        for a in raised:
            t.again.append(a)
            if a.rule in states:
                states[a.rule].alerts += 1
                states[a.rule].saw(a.test, a.statistic, number)
        for name, value in monitor.monitor.statistics().items():
            watched = states.get(name.split(":", 1)[0])
            if watched is not None:
                watched.saw(name, value, number)


def _rerun_tray(journal: Journal, t: TableProtection, period: Period,
                settings: MonitorSettings, calendar: GamingCalendar) -> None:
    """The tray rule run again (a banked table's): its looks whose day's last count was
    journaled in the period (as live, where each alert follows its count)."""
    from dealer_station.monitor.tray import TRAY, TrayRule
    from dealer_station.table.accounting import table_wins
    from dealer_station.table.monitor_tray import read_shifts, tray_alerts

    if settings.tray.share <= 0 or table_wins(journal, t.table) is None:
        return
    shifts = read_shifts(journal, t.table, calendar)
    looks = [x for x in TrayRule(t.table, settings).scan(shifts.tallies, shifts.counted)
             if period.contains(shifts.counted_at[x[0]])]
    again = tray_alerts(journal, t.table, calendar, settings, counted=period.contains)
    state = RuleState(TRAY, len({x[2] for x in looks}),
                      min((x[4] for x in looks), default=0.0), alerts=len(again))
    # Its rounds watched: those of the days it looked at (each look covers its day's).
    state.rounds = sum(sum(s.rounds for s in shifts.tallies if s.gaming_day == d)
                       for d in {x[0] for x in looks})
    for _, round_no, dealer, statistic, _ in looks:
        state.saw(f"{TRAY}:{dealer}", statistic, round_no)
    t.rules.append(state)
    t.again += again


def _band(journal: Journal, t: TableProtection, period: Period) -> list[BandPoint]:
    """The table's hold bands over the period: each settled round's house win, theoretical
    win and exact variance (table/monitor_wins.py), cumulated (monitor/hold.py)."""
    return hold_band(round_stakes(journal, t.table, since=period.since, until=period.until),
                     z=BAND_Z)


def gather_table(journal: Journal, table: str, period: Period, verification: VerifyResult,
                 settings: MonitorSettings, calendar: GamingCalendar,
                 acks: dict[str, Acknowledged]) -> TableProtection:
    cov = coverage(journal, table, period)
    read_to = None if verification.ok else verification.last_seq
    at = cov.last.ts if cov.last is not None else None
    t = TableProtection(table, cov, money_for(journal, table, at), verification, read_to)
    for rec, e in _alert_records(journal, table, period, read_to):
        t.alerts.append(JournaledAlert(table, rec, e, acks.get(f"{table}:{rec.seq}")))
    _rerun(journal, t, period, settings, calendar)
    if verification.ok:
        _rerun_tray(journal, t, period, settings, calendar)
    for a in t.alerts:
        if a.alert.dealer:
            t.dealers.setdefault(a.alert.dealer, DealerState(a.alert.dealer)) \
                .alerts[a.alert.rule] += 1
        for dealer in a.alert.evidence.get("dealers") or ():
            t.dealers.setdefault(str(dealer), DealerState(str(dealer))).in_evidence += 1
    read = evidence_by_day(journal, table, [a.alert for a in t.alerts], settings, calendar)
    t.evidence = {t.alerts[i].id: ev for i, ev in read.items()}
    if verification.ok:
        t.band = _band(journal, t, period)
    return t


# --- words ---------------------------------------------------------------------------------------

def p_value_words(value: float) -> str:
    """``9.3e-07`` -> ``9.3 × 10⁻⁷``; ``0.012`` -> ``0.012``."""
    if value <= 0:
        return "below 10⁻³⁰⁰"
    if value >= 0.001:
        return f"{value:.2g}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"


def rate_words(settings: MonitorSettings) -> str:
    return f"1 in {settings.rounds_per_false_alarm:,} rounds"


def test_words(test: str, people: People | None = None) -> str:
    """A test's name as people read it: ``shoe:1:7`` -> ``the First Card is a 7``,
    ``shoe:2:red`` -> ``the second card is red``, ``card-knowledge:3`` -> ``seat 3``,
    ``card-knowledge:stakes:3`` -> ``seat 3's stakes``, ``dealer:USER`` and ``tray:USER`` ->
    the dealer's name,
    ``hold:low`` -> ``the house wins below its band``; a pot game's ``RULE:2-5`` -> ``seats 2
    and 5``, ``RULE:1>2`` -> ``seat 1 to seat 2``, ``RULE:4:aces`` -> ``seat 4: aces``."""
    rule, _, rest = test.partition(":")
    stage, _, what = rest.partition(":")
    if rule == ShoeRule.RULE and stage.isdigit() and what:
        said = what if what in ("red", "black") else value_words(what)
        return f"{STAGE_WORDS.get(int(stage), f'card {stage}')} is {said}"
    if rule in ("dealer", "tray") and rest:
        return f"dealer {(people or People()).actor(rest)}"
    if rule == "hold" and rest in ("low", "high"):
        return f"the house wins {'below' if rest == 'low' else 'above'} its band"
    if rest.isdigit():
        return f"seat {rest}"
    if what.isdigit():
        return f"seat {what}'s {stage.replace('-', ' ')}"
    if stage.isdigit() and what:
        return f"seat {stage}: {what.replace(':', ', ')}"
    for mark, words in (("-", "seats {a} and {b}"), (">", "seat {a} to seat {b}")):
        a, found, b = rest.partition(mark)
        if found and a.isdigit() and b.isdigit():
            return words.format(a=a, b=b)
    return rest.replace(":", ", ") or test


def _who(people: People, actor: str | None) -> str:
    return people.actor(actor) if actor else "no dealer named"


def _seat(people: People, a: JournaledAlert) -> str:
    seat = a.alert.seat
    if seat is None:
        return "-"
    return people.seat(seat, a.record.seq, a.table).removeprefix("seat ")


def _evidence_words(a: JournaledAlert, money: Money) -> str:
    words = a.alert.words
    staked = a.alert.evidence.get("staked")
    if a.alert.rule == CardKnowledgeRule.RULE and isinstance(staked, int) and staked:
        words += f"; it staked {money.text(staked)} on those spots"
    return words


def _ack_words(a: JournaledAlert) -> str:
    k = a.acknowledged
    if k is None:
        return "not acknowledged"
    return f"{k.who}, {local_short(k.at)}, pit {k.pit}: \"{k.reason}\""


def _people(journal: Journal, tables: Iterable[str]) -> People:
    records: list[Record] = []
    if "station" in journal.tables():
        records += journal.records("station", kinds=["user.add"])
    for t in tables:
        records += journal.records(t, kinds=["session.open"])
    return People.of(records)


# --- the pages -----------------------------------------------------------------------------------

def _alert_table(data: ProtectionData, people: People, w: float) -> Flowable:
    several = len(data.tables) > 1
    money = {t.table: t.money for t in data.tables}
    headers = [*(["Table"] if several else []), "Round", "Time", "Rule", "Seat", "Dealer",
               "Evidence", "p-value", "Statistic / threshold", "False alarms", "Acknowledged"]
    rows = []
    for a in data.alerts:
        e = a.alert
        rows.append([*([a.table] if several else []), f"{e.round_no:,}",
                     local_short(a.record.ts), e.rule_name, _seat(people, a),
                     _who(people, e.dealer), _evidence_words(a, money[a.table]),
                     p_value_words(e.p_value),
                     f"{e.number('llr'):.2f} / {e.number('threshold'):.2f}",
                     f"1 in {int(e.number('rounds_per_false_alarm')):,} rounds",
                     _ack_words(a)])
    shares = [*([0.05] if several else []), 0.05, 0.085, 0.08, 0.05, 0.1, 0.25, 0.065,
              0.07, 0.07, 0.16]
    total = sum(shares)
    widths = [w * s / total for s in shares]
    first = 1 if several else 0
    return grid(headers, rows, widths, numeric=(first, first + 6, first + 7),
                wrap=(first + 2, first + 4, first + 5, first + 9))


def _rules_table(data: ProtectionData, people: People, w: float) -> Flowable:
    several = len(data.tables) > 1
    rows = []
    for t in data.tables:
        for r in t.rules:
            highest = ("-" if r.highest_round is None else
                       f"{r.highest:.2f} ({r.highest / r.threshold:.0%} of the threshold): "
                       f"{test_words(r.highest_test, people)}, round {r.highest_round:,}")
            if r.rule == "tray" and not r.tests:
                highest = ("no look in the period: it looks when the count room has counted "
                           "a gaming day's every shift")
            rows.append([*([t.table] if several else []), r.name,
                         f"{r.tests:,}" if r.tests else "-",
                         f"{r.threshold:.2f}" if r.threshold else "-", f"{r.rounds:,}",
                         f"{r.alerts:,}", highest])
    headers = [*(["Table"] if several else []), "Rule", "Tests", "Threshold",
               "Rounds watched", "Alerts", "Highest statistic reached"]
    shares = [*([0.07] if several else []), 0.17, 0.07, 0.09, 0.11, 0.07, 0.42]
    total = sum(shares)
    widths = [w * s / total for s in shares]
    first = 1 if several else 0
    return grid(headers, rows or [["none", *[""] * (len(headers) - 1)]], widths,
                numeric=tuple(range(first + 1, first + 5)), wrap=(len(headers) - 1,))


def _dealer_table(data: ProtectionData, people: People, w: float) -> Flowable:
    several = len(data.tables) > 1
    rows = []
    for t in data.tables:
        for d in sorted(t.dealers.values(), key=lambda d: (-d.rounds, d.dealer)):
            raised = "; ".join(f"{PROTECTION_RULES.get(r, r)}: {n:,}"
                               for r, n in sorted(d.alerts.items())) or "none"
            rows.append([*([t.table] if several else []), _who(people, d.dealer),
                         f"{d.rounds:,}", raised, f"{d.in_evidence:,}"])
    headers = [*(["Table"] if several else []), "Dealer", "Rounds dealt",
               "Alerts raised in rounds they dealt", "Alerts whose evidence takes in rounds "
                                                     "they dealt"]
    shares = [*([0.07] if several else []), 0.25, 0.1, 0.36, 0.2]
    total = sum(shares)
    widths = [w * s / total for s in shares]
    first = 1 if several else 0
    return grid(headers, rows or [["none", *[""] * (len(headers) - 1)]], widths,
                numeric=(first + 1, first + 3), wrap=(first, first + 2))


def _again_words(t: TableProtection, people: People) -> str:
    """Whether the monitor run again raises the alerts the journal holds."""
    journaled = Counter(a.key for a in t.alerts)
    again = Counter((a.rule, a.test, a.round_no) for a in t.again)
    if journaled == again:
        n = len(t.alerts)
        return (f"Table {t.table}: run again over these rounds with the station's [monitor] "
                f"settings, the monitor raises exactly the {n:,} alert{'s' if n != 1 else ''} "
                f"the journal holds." if n else
                f"Table {t.table}: run again over these rounds, the monitor raises no alert, "
                f"and the journal holds none.")

    def listed(keys: Counter[tuple[str, str, int]]) -> str:
        return "; ".join(f"round {k[2]:,} ({PROTECTION_RULES.get(k[0], k[0])}: "
                         f"{test_words(k[1], people)})" for k in sorted(keys, key=lambda k: k[2]))

    said = f"Table {t.table}: run again over these rounds, the monitor's alerts differ from " \
           f"the journal's."
    if journaled - again:
        said += f" Journaled but not raised again: {listed(journaled - again)}."
    if again - journaled:
        said += f" Raised again but not journaled: {listed(again - journaled)}."
    return said + (" The [monitor] settings may have changed since the alerts were raised, or "
                   "the table's monitor was not running; each difference deserves a look.")


def _charts(data: ProtectionData, people: People, w: float) -> list[Flowable]:
    out: list[Flowable] = []
    cells: list[Flowable] = []
    half = (w - 6 * mm) / 2
    for t in data.tables:
        for a in t.alerts:
            ev = t.evidence.get(a.id)
            if ev is None:
                continue
            e = a.alert
            title = (f"{'Table ' + t.table + ', ' if len(data.tables) > 1 else ''}round "
                     f"{e.round_no:,}: {e.rule_name}, {test_words(e.test, people)}")
            cells.append(statistic_chart(ev.points, ev.threshold, ev.rounds, ev.hits,
                                         e.round_no, half, 62 * mm, title=title))
    for i in range(0, len(cells), 2):
        pair = cells[i:i + 2] + ([Spacer(1, 1)] if len(cells[i:i + 2]) == 1 else [])
        table = Table([pair], colWidths=[half + 6 * mm, half], hAlign="LEFT")
        # (The report's own font: a cell left to the table's default would name Helvetica,
        # a font no archival report may use without embedding it.)
        table.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
                                   ("LEFTPADDING", (0, 0), (-1, -1), 0),
                                   ("RIGHTPADDING", (0, 0), (-1, -1), 0),
                                   ("TOPPADDING", (0, 0), (-1, -1), 2),
                                   ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
                                   ("VALIGN", (0, 0), (-1, -1), "TOP")]))
        out.append(table)
    return out


def _band_block(t: TableProtection, w: float, several: bool) -> list[Flowable]:
    band: Sequence[BandLike] = t.band or []
    title = f"{'Table ' + t.table + ': h' if several else 'H'}ouse win against the " \
            f"theoretical win of the wagers placed"
    out: list[Flowable] = [hold_band_chart(band, t.money, w, 70 * mm, title=title)]
    if band:
        last = band[-1]
        m = t.money
        inside = math.floor(last.low) <= last.win <= math.ceil(last.high)
        outside = sum(1 for b in band if not math.floor(b.low) <= b.win <= math.ceil(b.high))
        out.append(facts([
            ("Wagered", m.text(last.wagered)),
            ("House win", m.text(last.win)),
            ("Theoretical win", m.text(round(last.theoretical))),
            ("Band at the end", f"{m.text(math.floor(last.low))} to "
                                f"{m.text(math.ceil(last.high))}: the house win is "
                                f"{'inside' if inside else 'OUTSIDE'} it"),
            ("Rounds outside the band", f"{outside:,} of {len(band):,}")]))
    return out


def render(data: ProtectionData, out: Path | str, checks: Sequence[TableCheck],
           people: People, *, paper: str = "A4") -> BuiltReport:
    several = len(data.tables) > 1
    r = ReportBuilder(kind=KIND, title=TITLE, table=data.scope, period=data.label,
                      subject=f"times in {zone_name()}", paper=paper, landscape_pages=True)
    r.meta.place = data.scope
    w = r.width
    alerts = data.alerts
    acked = sum(1 for a in alerts if a.acknowledged is not None)
    rounds = sum(t.rounds for t in data.tables)
    s = data.settings
    r.add(facts([
        ("Tables", ", ".join(t.table for t in data.tables) or "none"),
        ("Period", data.label),
        ("Rounds watched", f"{rounds:,}" + "".join(
            f"; table {t.table}: rounds {t.first_round:,} to {t.last_round:,}"
            for t in data.tables if t.first_round is not None and t.last_round is not None)),
        ("Alerts", f"{len(alerts):,}" + (f" ({acked:,} acknowledged at a pit, "
                                         f"{len(alerts) - acked:,} not)" if alerts else "")),
        ("False-alarm rate", f"at most 1 false alarm in {s.rounds_per_false_alarm:,} rounds at "
                             f"a table, across every rule ([monitor] of "
                             f"{s.file or 'the station settings'})"),
    ], widths=(48 * mm, w - 48 * mm)))
    r.heading(f"Alerts ({len(alerts):,})", level=1)
    if alerts:
        r.add(_alert_table(data, people, w))
        r.add(p("Each alert is a monitor.alert record of the table's journal, raised when the "
                "round named closed. Statistic: the test's log-likelihood ratio when it "
                "crossed its threshold (Page's CUSUM; docs/monitor.md). p-value: the chance a "
                "fair game gives the evidence's rounds at least as many hits, times the tests "
                "run at the table. False alarms: the rate the threshold was set for, across "
                "every rule at the table. Acknowledged: the pit's alert.ack record naming the "
                "alert (TABLE:RECORD), with who, when and the reason given. Tray variances "
                "by dealer look once a counted gaming day, after its last count: their "
                "statistic is −ln of the p-value of the dealer's shifts being as far out, "
                "their round the day's last.", "note"))
    else:
        r.add(p("No alert in the period: no test of any rule crossed its threshold."))
    for t in data.tables:
        if not t.verification.ok:
            r.add(p(f"Table {t.table}'s journal does not verify (record "
                    f"{t.verification.bad_seq}: {t.verification.problem}): this report reads "
                    f"only its records up to {t.verification.last_seq:,}, the last before "
                    f"the failure; any alert or round after it is not shown, nor its hold "
                    f"bands.", "note"))
    r.heading("Rules, table by table", level=1)
    r.add(_rules_table(data, people, w))
    r.add(p("The monitor run again over the period's rounds with the station's [monitor] "
            "settings, from the start of the period's first gaming day (evidence starts "
            "afresh each gaming day, as it does live). Tests: how many the rule runs at a "
            "table. Threshold: the log-likelihood ratio an alert needs. Rounds watched: the "
            "rounds of the period the rule looked at (the shoe: every round with a card; card "
            "knowledge: every round where a seat held a First Card wager; tray variances by "
            "dealer: the rounds of the days it looked at, its threshold the lowest of its "
            "looks', each look's set by the day's rounds). Highest statistic: "
            "the highest any of the rule's tests reached in the period.", "note"))
    for t in data.tables:
        r.add(p(_again_words(t, people), "note"))
    r.heading("Dealers")
    r.add(_dealer_table(data, people, w))
    r.add(p("Alerts in their rounds: journaled alerts raised at a round they dealt. Alerts "
            "whose evidence takes in their rounds: those whose evidence's rounds include one "
            "they dealt. An alert names a dealer because the evidence crossed in that round, "
            "not because the dealer caused it.", "note"))
    charts = _charts(data, people, w)
    if charts:
        r.heading("Each alert's evidence", level=1)
        r.add(p("Each chart: the alert's test after each round of its gaming day through the "
                "round where it crossed (the statistic starts again from 0 after an alert); "
                "shaded, the rounds its evidence is made of; dots, the hits among them.",
                "note"))
        r.add(*charts)
    if any(t.band is not None for t in data.tables):
        r.heading("Hold bands", level=1)
        for t in data.tables:
            if t.band:
                r.add(KeepTogether(_band_block(t, w, several)))
            elif t.band is not None:
                r.add(p(f"Table {t.table}: no settled round with a house win in the period "
                        f"(a pot game's table has none): no band to draw."))
        r.add(p(f"The house win over the period's rounds, round by round, against the "
                f"theoretical win of the wagers actually placed (each wager's exact house edge "
                f"from the par sheet), and the band of {BAND_Z:g} standard deviations either "
                f"side that the exact variance of those same wagers gives: it widens with "
                f"what was wagered, not drawn by eye.", "note"))
    signatures = ("Surveillance", "Gaming manager")
    if len(checks) == 1:
        c = checks[0]
        return r.build(out, c.result, c.first, c.last, data=data, evidence=c.evidence,
                       signatures=signatures)
    return r.build_tables(out, checks, data=data, signatures=signatures)


def build_game_protection_report(journal: Journal, tables: Sequence[str] | None,
                                 period: Period | None = None, *, out: Path | str,
                                 settings: MonitorSettings | None = None,
                                 calendar: GamingCalendar | None = None,
                                 period_name: str = "", paper: str = "A4",
                                 background_above: int = BACKGROUND_ABOVE_RECORDS
                                 ) -> BuiltReport:
    """Write the game-protection report of ``tables`` (default: every game table of the
    journal) for ``period`` (default: everything recorded), with the station's [monitor]
    ``settings`` and gaming-day ``calendar`` (defaults where not given)."""
    period = period or Period()
    settings = settings or MonitorSettings()
    calendar = calendar or GamingCalendar()
    chosen = chosen_tables(journal, tables)
    verifications = [Verification(journal, t, background_above=background_above)
                     for t in chosen]
    try:
        results = [v.result() for v in verifications]
        people = _people(journal, chosen)
        acks = acknowledgements(journal, people)
        data = ProtectionData(
            ("Every table" if not tables else
             f"Table{'s' if len(chosen) > 1 else ''} {', '.join(chosen)}"),
            period, period_label(period, period_name), settings,
            [gather_table(journal, t, period, v, settings, calendar, acks)
             for t, v in zip(chosen, results, strict=True)])
        checks = [TableCheck(t.verification, t.coverage.first, t.coverage.last,
                             covered_records(journal, t.table, t.coverage.first,
                                             t.coverage.last))
                  for t in data.tables]
        return render(data, out, checks, people, paper=paper)
    finally:
        for v in verifications:
            v.cancel()


def build_for_table(journal: Journal, table: str, period: Period | None = None, *,
                    out: Path | str, paper: str = "A4", **options: Any) -> BuiltReport:
    """The catalogue's form: one table."""
    return build_game_protection_report(journal, [table], period, out=out, paper=paper,
                                        **options)

