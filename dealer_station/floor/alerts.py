"""The pit's alerts and the pit's grid, computed from the floor database alone (no Qt).

An alert has a stable id, so that an acknowledgement names it and a restart keeps it
acknowledged:

* raised by one record of a table's chain: ``TABLE:SEQ`` (a halt, a device fault, a void, a
  card entered by hand, a Bourré renege, a lost or refused floor link), ``TABLE:SEQ:wN`` for a
  single payout of wager N above the threshold (La Pair'e ``stage.settle``);
* raised by the floor's view of a table: ``TABLE:lag:SINCE`` (the floor copy is behind by more
  than ``lag_seconds``, SINCE the moment it fell behind), ``TABLE:refused:AT`` (the floor
  refused the table's chain at AT), ``TABLE:hold:DAY`` (today's hold outside the band);
* raised by a fill or credit request not received within the alert time (the jurisdiction's
  ``[cage] alert_minutes``, or the pit's own ``request_alert_minutes``):
  ``TABLE:request:YEAR-N``, gone once the request is received or voided.

Every table's open requests (requested, issued at the cage, in transit) are on the view too,
read from the table's chain at the floor as the table's accounting reads it (the request, the
cage's issue, the runner, the receipt, the voids), each record's keyed hash checked once: the
pit keeps each table's requests and reads only the records added since.

A supervisor acknowledges an alert with a reason; the acknowledgement is an ``alert.ack``
record in the pit's own chained stream (``pit-NAME``) in the floor database, and acknowledged
alerts are those named by authentic ``alert.ack`` records of that stream.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

from sqlalchemy import select

from dealer_station import registry as games
from dealer_station.accounting.cage_settings import CageSettings
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.requests import STATE_WORDS, Request, requested_at
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit import schema
from dealer_station.audit.db import Database
from dealer_station.audit.journal import Entry, Journal, check_table_id, iso_utc, utc_now
from dealer_station.audit.records import Record
from dealer_station.audit.users import PRIVILEGED, User, require_role
from dealer_station.errors import StationError
from dealer_station.events import Codec, Committed, Event, EventError
from dealer_station.events.accounting import CODEC as ACCOUNTING
from dealer_station.events.accounting import (
    CreditSlip,
    FillSlip,
    RequestVoided,
    SlipCarried,
    SlipIssued,
    SlipRequested,
    SlipVoided,
)
from dealer_station.events.kinds import closing_statuses, halt_ending_kinds
from dealer_station.events.parts import EVENTS, WAGER_LABELS
from dealer_station.events.rows import closing_meters
from dealer_station.events.station import AlertAcknowledged
from dealer_station.events.table import (
    COMMON,
    ConfigChanged,
    DeviceConnected,
    DeviceFaulted,
    DeviceLost,
    DeviceStatusReported,
    RoundHalted,
    actor_words,
)
from dealer_station.floor.central import LostAdoption, lost_adoptions
from dealer_station.floor.server import FloorServer, PrimaryChange, PrimaryWatch, read_server
from dealer_station.floor.status import TableStatus, table_statuses
from dealer_station.gaming_day import GamingCalendar, Shift
from dealer_station.money import CHIPS, Money
from dealer_station.tomlconfig import ConfigError, Section, load_toml

J = schema.journal
FT = schema.floor_tables
R = schema.rounds
FR = schema.floor_refusals

ACK_KIND = AlertAcknowledged.KIND
#: What the pit's grid shows of each device: its last status, fault, loss or return.
DEVICE_EVENTS = (DeviceStatusReported, DeviceFaulted, DeviceLost, DeviceConnected)
_COMMON = Codec(COMMON)
_PIT = Codec((AlertAcknowledged,))
#: What each category is called on the podium.
CATEGORY_LABELS = {
    "halt": "Halt", "device.fault": "Device fault", "void": "Void",
    "correction": "Card by hand", "renege": "Renege", "floor.lost": "Floor link lost",
    "floor.refused": "Floor refused", "payout": "Large payout", "lag": "Floor copy behind",
    "refused": "Chain refused", "hold": "Hold out of band",
    "witness.refused": "Witness REFUSED", "witness.unreachable": "Witness out of reach",
    "request": "Fill or credit late",
    "protection": "Game protection",
    "floor.behind": "Floor lost records", "floor.adoption_lost": "Floor lost an adoption",
}
#: How urgent each category is (2: play is or was stopped / evidence at stake).
SEVERITY = {"halt": 2, "device.fault": 2, "refused": 2, "floor.refused": 2, "void": 1,
            "witness.refused": 2, "witness.unreachable": 1,
            "correction": 1, "renege": 1, "payout": 1, "lag": 1, "floor.lost": 1, "hold": 1,
            "request": 1, "protection": 2, "floor.behind": 2, "floor.adoption_lost": 2}
#: The records a table's fill and credit requests are made of (read by the accounting's
#: codec into the accounting's ledger).
REQUEST_KINDS = tuple(e.KIND for e in (SlipRequested, SlipIssued, SlipCarried, RequestVoided,
                                       FillSlip, CreditSlip, SlipVoided))


class AlertError(StationError):
    """An acknowledgement that cannot be recorded (no reason, no supervisor, no such alert)."""


# --- settings ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PitSettings:
    """The pit's thresholds (``pit.toml``; every key optional, these are the defaults)."""

    #: A single payout above this many whole units of the table's money raises an alert.
    payout_above: int = 1000
    #: The floor copy behind by more than this many seconds raises an alert.
    lag_seconds: float = 60.0
    #: Today's hold (house win / wagered) outside [hold_low, hold_high] raises an alert...
    hold_low: Fraction = Fraction(-20, 100)
    hold_high: Fraction = Fraction(40, 100)
    #: ...once at least this many whole units were wagered today (a few rounds say nothing).
    hold_min_wagered: int = 500
    #: The gaming day starts at this local time: "win today" and "hold today" count from it,
    #: and alerts are raised by records since it.
    gaming_day_starts: time = time(6, 0)
    #: The grid and the queue are read again this often.
    refresh_seconds: float = 3.0
    #: A fill or credit request not received within this many minutes raises an alert; None
    #: (the default): the jurisdiction's own ``alert_minutes`` (``[cage]`` of the accounting
    #: settings), the time the tables and the cage go by.
    request_alert_minutes: int | None = None


def _percent(sec: Section, name: str, default: Fraction) -> Fraction:
    raw = sec.raw(name, None)
    if raw is None:
        return default
    text = str(raw).strip()
    try:
        if text.endswith("%"):
            return Fraction(text[:-1].strip()) / 100
        if isinstance(raw, bool):
            raise ValueError
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise sec.error(name, f"must be a percentage like \"-20%\" or a fraction like -0.2, "
                              f"got {raw!r}") from None


def _seconds(sec: Section, name: str, default: float) -> float:
    raw = sec.raw(name, default)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
        raise sec.error(name, f"must be a number of seconds above 0, got {raw!r}")
    return float(raw)


def load_settings(path: Path | str | None) -> PitSettings:
    """The settings in ``path`` (a TOML file with a ``[pit]`` table), or the defaults."""
    if path is None:
        return PitSettings()
    file = str(path)
    data = load_toml(path)
    top = Section(data, file)
    sec = top.section("pit", required=False) if top.has("pit") else Section({}, file, "pit")
    top.finish()
    d = PitSettings()
    starts = sec.str("gaming_day_starts", d.gaming_day_starts.strftime("%H:%M"))
    try:
        day_start = time.fromisoformat(starts)
    except ValueError:
        raise sec.error("gaming_day_starts", f"must be a local time like \"06:00\", got "
                                             f"{starts!r}") from None
    settings = PitSettings(
        payout_above=sec.int("payout_above", d.payout_above, minimum=0),
        lag_seconds=_seconds(sec, "lag_seconds", d.lag_seconds),
        hold_low=_percent(sec, "hold_low", d.hold_low),
        hold_high=_percent(sec, "hold_high", d.hold_high),
        hold_min_wagered=sec.int("hold_min_wagered", d.hold_min_wagered, minimum=0),
        gaming_day_starts=day_start,
        refresh_seconds=_seconds(sec, "refresh_seconds", d.refresh_seconds),
        request_alert_minutes=sec.int("request_alert_minutes", minimum=1)
        if sec.has("request_alert_minutes") else None)
    if settings.hold_low >= settings.hold_high:
        raise ConfigError(file, "pit.hold_low", "must be below pit.hold_high")
    sec.finish()
    return settings


def gaming_day_start(now: datetime, starts: time) -> datetime:
    """The start (local time, aware) of the gaming day ``now`` falls in."""
    calendar = GamingCalendar(starts, (Shift("Day", starts),))
    return calendar.day(calendar.day_of(now)).start


# --- alerts ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Alert:
    """One alert on the pit's queue."""

    id: str
    at: str                     # UTC ISO time of what raised it
    table: str
    category: str               # a key of CATEGORY_LABELS
    what: str                   # in plain words, with the felt's names
    seq: int | None = None      # the record that raised it, if one did
    round_no: int | None = None

    @property
    def label(self) -> str:
        return CATEGORY_LABELS.get(self.category, self.category)

    @property
    def severity(self) -> int:
        return SEVERITY.get(self.category, 1)


@dataclass(frozen=True)
class Acknowledgement:
    alert_id: str
    reason: str
    actor: str
    at: str
    seq: int


def round_word(game: str | None) -> str:
    """What one deal of ``game`` is called (the registry's ``unit``): round, hand."""
    found = games.REGISTRY.get(game) if game else None
    return found.unit if found else "round"


def codec_of(game: str | None) -> Codec:
    """The records of a table of ``game`` as typed events (a game this floor does not know:
    the kinds every table writes)."""
    found = games.REGISTRY.get(game or "")
    return found.part(EVENTS)() if found is not None else Codec(COMMON)


def alert_kinds(codec: Codec) -> tuple[str, ...]:
    """The kinds the pit reads for alerts: those whose events raise one by themselves, end a
    halt, or pay wagers (each event says which)."""
    return tuple(kind for kind, cls in codec.classes.items()
                 if cls.ALERT or cls.halt_settled is not Event.halt_settled
                 or cls.payouts is not Event.payouts)


def _record_alert(table: str, c: Committed, game: str | None,
                  resolved: Mapping[int, tuple[str, str]]) -> Alert:
    e = c.event
    rnd = f"{round_word(game).title()} {c.round_no}" if c.round_no is not None else ""
    what = e.alert_text(rnd, c.actor)
    if isinstance(e, RoundHalted):
        done = resolved.get(c.seq)
        what += (f" (since {done[0]} by {actor_words(done[1])})" if done is not None
                 else " (not resolved yet)")
    return Alert(f"{table}:{c.seq}", c.ts, table, e.ALERT, what, c.seq, c.round_no)


def _wager_labels() -> dict[str, str]:
    """Every game's wager kinds with their names on the felt, from the registry."""
    out: dict[str, str] = {}
    for g in games.REGISTRY.values():
        labels = g.supplies(WAGER_LABELS)
        if labels is not None:
            out.update(labels())
    return out


def _payout_alerts(table: str, c: Committed, money: Money, limit: int) -> list[Alert]:
    out = []
    labels = _wager_labels()
    for paid in c.event.payouts():
        if paid.win <= limit:
            continue
        bet = labels.get(paid.bet, paid.bet.replace("_", " "))
        on = f" {'/'.join(paid.values)}" if paid.values else ""
        what = (f"Round {c.round_no}, {paid.part}: seat {paid.seat} paid {money.text(paid.win)} "
                f"on {bet}{on} (above {money.text(limit)})")
        out.append(Alert(f"{table}:{c.seq}:{paid.key}", c.ts, table, "payout", what, c.seq,
                         c.round_no))
    return out


@dataclass
class TableDay:
    """A table's gaming day so far, summed from its closing records."""

    rounds: int = 0
    wagered: int = 0
    house_win: int = 0
    last_hour: int = 0
    money: Money = CHIPS
    last_close: str | None = None     # the time of today's last closing record

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.house_win, self.wagered) if self.wagered else None


@dataclass(frozen=True)
class DeviceState:
    device: str
    state: str          # as the device or the station said it (READY, JAM, fault kind...)
    fault: bool
    at: str

    @property
    def text(self) -> str:
        return f"{self.device} {self.state}"


@dataclass(frozen=True)
class PitRow:
    """One table of the pit's grid. ``state`` is the status's, except that a halt since
    voided (not only resumed) no longer shows the table halted."""

    status: TableStatus
    devices: tuple[DeviceState, ...]
    day: TableDay
    state: str = ""

    @property
    def table(self) -> str:
        return self.status.table


@dataclass(frozen=True)
class OpenRequest:
    """A table's fill or credit request still on its way (requested, issued at the cage, in
    transit), as the pit shows it."""

    table: str
    label: str                  # T1-R-2026-00007
    kind: str                   # fill or credit
    state: str                  # a key of STATE_WORDS
    total: str                  # as money
    requested_at: str           # UTC ISO time of the request
    minutes: int                # how long it has waited, in whole minutes
    late: bool                  # waited longer than the alert time
    slip: str | None = None     # the issued slip's control number, once the cage issued it

    @property
    def state_words(self) -> str:
        return STATE_WORDS[self.state]


@dataclass
class PitView:
    """What the podium shows at one moment: the grid, the open alerts, and every table's open
    fill and credit requests (the late first, then the oldest)."""

    rows: list[PitRow]
    alerts: list[Alert]
    acknowledged: dict[str, Acknowledgement]
    day_start: datetime
    at: datetime
    problems: list[str] = field(default_factory=list)
    requests: list[OpenRequest] = field(default_factory=list)
    #: The alert time the requests were judged by, in minutes.
    request_minutes: int = CageSettings().alert_minutes
    #: The server the pit read (primary or standby, its lag), and the last change of
    #: primary seen (kept on the line); ``changed``: the primary changed at this reading.
    server: FloorServer | None = None
    primary_change: PrimaryChange | None = None
    changed: bool = False
    #: What the pit's tables adopted and the floor lost in a failover, not yet published
    #: again (``floor versions``' list).
    lost: list[LostAdoption] = field(default_factory=list)


def stream_id(pit: str) -> str:
    """The pit's own chain in the floor database: ``pit-NAME``."""
    return check_table_id(f"pit-{pit}")


class Pit:
    """The pit podium's reading of the floor database, and its acknowledgements."""

    def __init__(self, journal: Journal, name: str = "main",
                 settings: PitSettings | None = None,
                 tables: Sequence[str] | None = None,
                 accounting: AccountingSettings | None = None) -> None:
        self.journal = journal
        self.db: Database = journal.db
        self.name = name
        self.stream = stream_id(name)
        self.settings = settings or PitSettings()
        #: The pit's tables (a floor group, or a list); None watches every table of the floor.
        self.tables: frozenset[str] | None = frozenset(tables) if tables is not None else None
        #: The jurisdiction's accounting settings (the requests' alert time and money): given,
        #: or config/accounting.toml; one that cannot be read is said on the podium.
        self.accounting_problem: str | None = None
        if accounting is None:
            from dealer_station.gameconfig import load_accounting_settings

            try:
                accounting = load_accounting_settings()
            except StationError as exc:
                accounting = AccountingSettings()
                self.accounting_problem = (
                    f"the accounting settings cannot be read ({exc}): fills and credits are "
                    f"judged late after {self.request_minutes_of(accounting)} min")
        self.accounting = accounting
        #: Each table's requests as far as read: (the last record read, its ledger).
        self._ledgers: dict[str, tuple[int, Ledger]] = {}
        self._ledgers_lock = threading.RLock()
        #: The floor's primary from one reading to the next (a failover is said once).
        self.primaries = PrimaryWatch()

    def request_minutes_of(self, accounting: AccountingSettings) -> int:
        """The minutes a request may wait before it is an alert: the pit's own setting, else
        the jurisdiction's."""
        own = self.settings.request_alert_minutes
        return own if own is not None else accounting.cage.alert_minutes

    @property
    def request_minutes(self) -> int:
        return self.request_minutes_of(self.accounting)

    # -- acknowledgements --

    def acknowledgements(self) -> dict[str, Acknowledgement]:
        """Every acknowledged alert id, from the pit's chain (each record's hash checked)."""
        out: dict[str, Acknowledgement] = {}
        for rec in self.journal.events(self.stream, kinds=[ACK_KIND]):
            e = _PIT.decode(rec.kind, rec.payload)
            if isinstance(e, AlertAcknowledged):
                out[e.alert] = Acknowledgement(e.alert, e.reason, rec.actor, rec.ts, rec.seq)
        return out

    def acknowledge(self, alert: Alert, user: User | None, reason: str) -> Record:
        """Journal ``user``'s acknowledgement of ``alert`` with ``reason`` in the pit's chain."""
        if user is None:
            raise AlertError("a supervisor must sign in at the pit to acknowledge an alert")
        require_role(user, *PRIVILEGED, action="acknowledge alerts")
        reason = " ".join((reason or "").split())
        if not reason:
            raise AlertError("give a reason: it is recorded with your name")
        if len(reason) > 500:
            raise AlertError("the reason is too long (500 characters at most)")
        if alert.id in self.acknowledgements():
            raise AlertError(f"alert {alert.id} is already acknowledged")
        said = AlertAcknowledged(alert.id, reason, {
            "table": alert.table, "category": alert.category, "what": alert.what,
            "raised_at": alert.at})
        return self.journal.write(self.stream, [Entry(said, user.actor)])[0]

    # -- the floor's tables --

    def money(self, conn: Any, table_id: str) -> Money:
        row = conn.execute(select(J.c.payload).where(J.c.table_id == table_id,
                                                     J.c.kind == ConfigChanged.KIND)
                           .order_by(J.c.seq.desc()).limit(1)).first()
        if row is None:
            return CHIPS
        try:
            content = ConfigChanged.from_payload(json.loads(row.payload)).content
        except ValueError:      # not JSON, or not a config.change's (EventError)
            return CHIPS
        return Money.of(content if isinstance(content, Mapping) else None)

    def _devices(self, conn: Any, table_id: str) -> tuple[DeviceState, ...]:
        rows = conn.execute(select(J.c.kind, J.c.payload, J.c.ts)
                            .where(J.c.table_id == table_id,
                                   J.c.kind.in_([e.KIND for e in DEVICE_EVENTS]))
                            .order_by(J.c.seq.desc()).limit(200)).all()
        seen: dict[str, DeviceState] = {}
        for kind, payload, ts in rows:
            try:
                e = _COMMON.decode(kind, json.loads(payload))
            except (ValueError, EventError):     # a record the pit cannot read says nothing
                continue
            if not isinstance(e, DEVICE_EVENTS) or e.device in seen:
                continue
            if isinstance(e, DeviceFaulted):
                seen[e.device] = DeviceState(e.device, (e.kind or "fault").upper()
                                             .replace("_", " "), True, ts)
            else:
                state = (e.state or e.KIND.partition(".")[2]).upper()
                seen[e.device] = DeviceState(e.device, state.replace("_", " "),
                                             state not in ("READY", "CONNECTED"), ts)
        return tuple(sorted(seen.values(), key=lambda d: d.device))

    def _day(self, conn: Any, table_id: str, since: datetime, hour_ago: datetime,
             money: Money) -> TableDay:
        start = min(since, hour_ago)
        rows = self.journal.authentic(conn.execute(
            select(J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no,
                   J.c.payload, J.c.prev_hash, J.c.hash)
            .where(J.c.table_id == table_id, J.c.kind.in_(list(closing_statuses())),
                   J.c.ts >= iso_utc(start)).order_by(J.c.seq)))
        day = TableDay(money=money)
        since_iso, hour_iso = iso_utc(since), iso_utc(hour_ago)
        for rec in rows:
            if rec.ts >= hour_iso:
                day.last_hour += 1
            if rec.ts < since_iso:
                continue
            day.rounds += 1
            day.last_close = rec.ts
            total = (closing_meters(rec.kind, rec.payload) or {}).get("total") or {}
            day.wagered += int(total.get("wagered") or 0)
            day.house_win += int(total.get("house_win") or 0)
        return day

    def _state(self, conn: Any, st: TableStatus) -> str:
        if st.state != "halted":
            return st.state
        halt = conn.execute(select(J.c.seq).where(J.c.table_id == st.table,
                                                  J.c.kind == RoundHalted.KIND)
                            .order_by(J.c.seq.desc()).limit(1)).scalar()
        cleared = conn.execute(select(J.c.seq).where(
            J.c.table_id == st.table, J.c.kind.in_(halt_ending_kinds(codec_of(st.game))),
            J.c.seq > (halt or 0)).limit(1)).scalar()
        if cleared is None:
            return "halted"
        last = conn.execute(select(R.c.status).where(R.c.table_id == st.table)
                            .order_by(R.c.round_no.desc()).limit(1)).scalar()
        return "in round" if last == "open" else "between rounds"

    def view(self, now: datetime | None = None) -> PitView:
        """The grid and the open (not yet acknowledged) alerts, newest first."""
        now = now or utc_now()
        s = self.settings
        since = gaming_day_start(now, s.gaming_day_starts)
        statuses = [st for st in table_statuses(self.db, now)
                    if self.tables is None or st.table in self.tables]
        acked = self.acknowledgements()
        rows: list[PitRow] = []
        alerts: list[Alert] = []
        problems: list[str] = [self.accounting_problem] if self.accounting_problem else []
        requests: list[OpenRequest] = []
        with self.db.read() as conn:
            server = read_server(self.db, conn)
            lost = [a for a in lost_adoptions(conn, [st.table for st in statuses])
                    if a.again is None]
            for st in statuses:
                money = self.money(conn, st.table)
                day = TableDay(money=money)
                try:
                    day = self._day(conn, st.table, since, now - timedelta(hours=1), money)
                    alerts += self._table_alerts(conn, st, day, since, money)
                    on_way, late = self._request_alerts(conn, st.table, now)
                    requests += on_way
                    alerts += late
                except StationError as exc:    # a record that does not match its hash
                    problems.append(str(exc))
                    alerts.append(Alert(f"{st.table}:tampered", iso_utc(now), st.table,
                                        "refused", f"the floor copy does not verify: {exc}"))
                rows.append(PitRow(st, self._devices(conn, st.table), day,
                                   self._state(conn, st)))
        open_alerts = [a for a in alerts if a.id not in acked]
        open_alerts.sort(key=lambda a: (a.at, a.id), reverse=True)
        requests.sort(key=lambda r: (not r.late, r.requested_at, r.table))
        changed = self.primaries.see(server) is not None
        return PitView(rows, open_alerts, acked, since, now, problems, requests,
                       self.request_minutes, server, self.primaries.last_change, changed, lost)

    # -- fills and credits --

    def table_requests(self, conn: Any, table_id: str) -> list[Request]:
        """Every request of the table, from its chain at the floor: the records added since
        the last reading are checked against their keyed hash and applied to the table's
        ledger, kept from one reading to the next (the chain only grows)."""
        with self._ledgers_lock:
            last, ledger = self._ledgers.get(table_id, (0, Ledger(table_id)))
            rows = self.journal.authentic(conn.execute(
                select(J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no,
                       J.c.payload, J.c.prev_hash, J.c.hash)
                .where(J.c.table_id == table_id, J.c.kind.in_(REQUEST_KINDS), J.c.seq > last)
                .order_by(J.c.seq)))
            try:
                for rec in rows:
                    ledger.apply(ACCOUNTING.committed(rec.seq, rec.ts, rec.actor, rec.round_no,
                                                      rec.kind, rec.payload))
                    last = rec.seq
            finally:
                self._ledgers[table_id] = (last, ledger)
            return list(ledger.requests.values())

    def _request_alerts(self, conn: Any, table_id: str, now: datetime
                        ) -> tuple[list[OpenRequest], list[Alert]]:
        """The table's open requests, and an alert for each not received within the alert
        time ("Fill T1-R-2026-00007 requested 23 min ago, not yet received")."""
        with self._ledgers_lock:          # another reading does not move them meanwhile
            open_ = [r for r in self.table_requests(conn, table_id) if r.open]
            return self._on_way(table_id, open_, now)

    def _on_way(self, table_id: str, open_: list[Request], now: datetime
                ) -> tuple[list[OpenRequest], list[Alert]]:
        minutes = self.request_minutes
        money = self.accounting.money.text
        on_way: list[OpenRequest] = []
        late: list[Alert] = []
        for req in open_:
            asked = requested_at(req)
            waited = max(0, int((now - asked).total_seconds() // 60))
            overdue = req.overdue(now, minutes)
            on_way.append(OpenRequest(table_id, req.label, req.kind, req.state,
                                      money(req.event.total), req.requested.ts, waited,
                                      overdue, req.slip_label))
            if overdue:
                where = STATE_WORDS[req.state].lower() + (f", slip {req.slip_label}"
                                                          if req.slip_label else "")
                late.append(Alert(
                    f"{table_id}:request:{req.event.year}-{req.event.request}",
                    iso_utc(asked + timedelta(minutes=minutes)), table_id, "request",
                    f"{req.kind.capitalize()} {req.label} requested {minutes_text(waited)} "
                    f"ago, not yet received ({where}; {money(req.event.total)})",
                    req.requested.seq))
        return on_way, late

    def _table_alerts(self, conn: Any, st: TableStatus, day: TableDay, since: datetime,
                      money: Money) -> list[Alert]:
        s = self.settings
        out: list[Alert] = []
        codec = codec_of(st.game)
        events = [codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind, r.payload)
                  for r in self.journal.authentic(conn.execute(
                      select(J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no,
                             J.c.payload, J.c.prev_hash, J.c.hash)
                      .where(J.c.table_id == st.table, J.c.kind.in_(alert_kinds(codec)),
                             J.c.ts >= iso_utc(since)).order_by(J.c.seq)))]
        # Each halt's end: how, and by whom.
        resolved = {settled[0]: (settled[1], c.actor) for c in events
                    if (settled := c.event.halt_settled()) is not None}
        limit = s.payout_above * money.minor_units
        for c in events:
            if c.event.ALERT:
                out.append(_record_alert(st.table, c, st.game, resolved))
            out += _payout_alerts(st.table, c, money, limit)
        if st.refused:
            at = conn.execute(select(FT.c.refused_at).where(FT.c.table_id == st.table)
                              ).scalar() or iso_utc(utc_now())
            count = conn.execute(select(FR.c.id).where(FR.c.table_id == st.table)).all()
            out.append(Alert(f"{st.table}:refused:{at}", at, st.table, "refused",
                             f"the floor refused this table's chain: {st.refused_reason} "
                             f"({len(count)} refusal(s) kept at the floor)"))
        if st.lag_seconds is not None and st.lag_seconds > s.lag_seconds and not st.refused:
            behind_since = conn.execute(select(FT.c.pending_since, FT.c.contact_at)
                                        .where(FT.c.table_id == st.table)).first()
            mark = (behind_since.pending_since or behind_since.contact_at) \
                if behind_since else None
            what = (f"the floor copy is {duration_text(st.lag_seconds)} behind"
                    + (f" ({st.lag_records} record(s) not yet received)"
                       if st.lag_records else " (not heard from)"))
            out.append(Alert(f"{st.table}:lag:{mark}", mark or iso_utc(utc_now()), st.table,
                             "lag", what))
        # A hold band means something for a banked game only; a pot game's house earns its
        # collection, whatever the players put in.
        game = games.REGISTRY.get(st.game or "")
        hold = day.hold if game is None or game.banked else None
        if (hold is not None and day.wagered >= s.hold_min_wagered * money.minor_units
                and not s.hold_low <= hold <= s.hold_high):
            side = "below" if hold < s.hold_low else "above"
            band = f"{percent_text(s.hold_low)} to {percent_text(s.hold_high)}"
            out.append(Alert(
                f"{st.table}:hold:{since.date().isoformat()}",
                day.last_close or iso_utc(utc_now()), st.table,
                "hold", f"today's hold is {percent_text(hold)}, {side} the band {band} "
                        f"(won {money.text(day.house_win)} of {money.text(day.wagered)} "
                        f"wagered over {day.rounds} {round_word(st.game)}s)"))
        return out


def minutes_text(minutes: int) -> str:
    """A wait in words: "23 min", "1 h 05 min"."""
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def percent_text(value: Fraction | float) -> str:
    return f"{float(value) * 100:.1f}%"


def duration_text(seconds: float) -> str:
    s = int(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def find_alert(alerts: Iterable[Alert], alert_id: str) -> Alert:
    for a in alerts:
        if a.id == alert_id:
            return a
    raise AlertError(f"no open alert {alert_id!r}")


def alert_lines(alerts: Sequence[Alert]) -> list[str]:
    """The queue as text (the command line's ``--list``)."""
    return [f"{a.id}\t{a.at}\t{a.table}\t{a.label}\t{a.what}" for a in alerts]
