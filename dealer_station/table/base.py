"""What every live table shares: the journal, listeners, halts, devices, config versions.

A table service is the only place that coordinates (docs/architecture.md). Every public
method that changes anything decides first (raising a StationError with a reason and leaving
no trace) and turns the intent into typed events; ``commit`` journals them in one
transaction, ``apply`` (the only change of state, shared with recovery and replay) applies
each, and ``publish`` tells the listeners with the table's read model. Device events are kept
on the table's own worker thread (table/worker.py); one re-entrant lock serialises them with
the dealer's intents.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from dealer_station import __version__
from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Entry, Journal, MeterDelta, Record
from dealer_station.audit.lease import TableLease, acquire_lease
from dealer_station.audit.users import PermissionDenied, User, require_role
from dealer_station.audit.whole_check import WholeCheck
from dealer_station.errors import StationError
from dealer_station.events import Codec, Committed, Event
from dealer_station.events.kinds import closing_statuses
from dealer_station.events.rows import closing_meters, device_frame
from dealer_station.events.station import Verified
from dealer_station.events.table import (
    COMMON,
    CardHeld,
    ClockJumped,
    ConfigChanged,
    DeviceConnected,
    DeviceFaulted,
    DeviceLost,
    DeviceStateChanged,
    DeviceStatusReported,
    HaltResolved,
    RoundHalted,
    StationStarted,
    StationStopped,
    device_name,
    fault_words,
)
from dealer_station.events.table import DeviceIdentified as DeviceWasIdentified
from dealer_station.hardware.events import (
    FRAME_FAULTS,
    CardRead,
    ConnectionChanged,
    ConnectionState,
    DeviceEvent,
    DeviceFault,
    DeviceIdentified,
    DeviceStatus,
)
from dealer_station.money import CHIPS, Money

if TYPE_CHECKING:
    from dealer_station.cards import Card
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.monitor.settings import MonitorSettings
    from dealer_station.table.protection import Protection

#: Device states that stop a round: the shoe cannot be trusted until someone looks.
HALTING_STATUSES = frozenset({"DOOR_OPEN", "JAM", "TAMPER"})
#: Link states of a device that is not there: nothing it says can be heard.
ABSENT_LINKS = frozenset({"disconnected", "silent"})
#: The halt of a card read while nobody was signed in at the station (docs/table.md).
UNATTENDED = "unattended_card"
#: Halts after which a supervisor may enter the card actually dealt.
CORRECTABLE_FAULTS = frozenset({"misread", "impossible_card", UNATTENDED})
#: Why a card read while nobody was signed in was not taken.
UNATTENDED_NOTE = "read while nobody was signed in; not taken"
#: What to do about each halting status before the round may resume.
STATUS_REMEDIES = {"JAM": "clear the jam", "DOOR_OPEN": "close the door",
                   "TAMPER": "check the device's seal with the operator"}
#: How far wall-clock time may drift from monotonic time between checks before it is a jump.
CLOCK_JUMP_SECONDS = 2.0
STATION_ACTOR = "station"
#: The table id a command uses when none is given and the journal holds none or several.
DEFAULT_TABLE = "T1"


class TableError(StationError):
    """An intent the table cannot accept now; the message says why and what to do."""


class Halted(TableError):
    """The round is stopped until a supervisor resolves it."""


@dataclass(frozen=True, slots=True)
class TableView:
    """What a table shows of itself, read under its lock after a commit: the read model the
    screens render (each game extends it). Never a live object of the table's."""

    table_id: str
    game: str
    round_no: int | None
    last_round_no: int
    halt: Halt | None
    devices: Mapping[str, str]
    summary: str        # a line about the round or hand under way, for the supervisor
    #: While halted: what must be cleared before the round may resume (a device's fault).
    blockers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Update:
    """What a listener is told after each commit: the typed events just committed, in chain
    order, and the table's read model after them. ``problem`` is set, with no events, when
    something could not be journaled (the round stops or the device sends its frame again)."""

    events: tuple[Committed, ...]
    view: TableView
    problem: str | None = None

    def of(self, cls: type[EventT]) -> list[EventT]:
        """The committed events of class ``cls``."""
        return [c.event for c in self.events if isinstance(c.event, cls)]

    def has(self, *classes: type[Event]) -> bool:
        return any(isinstance(c.event, classes) for c in self.events)


@dataclass(frozen=True, slots=True)
class Halt:
    """Why the round is stopped, for the banner and the supervisor. ``device`` is the device
    whose frame or state stopped it (None for the station's own halts), ``device_id`` its id,
    ``card`` the card it read (if any) and ``said`` what the device itself said."""

    reason: str
    fault: str
    seq: int
    remedy: str
    device: str | None = None
    device_id: str | None = None
    card: str | None = None
    said: str = ""


@dataclass(frozen=True, slots=True)
class Step:
    """An event a table has decided on, not yet committed: who does it, in which round."""

    event: Event
    actor: str
    round_no: int | None = None


Listener = Callable[[Update], None]
EventT = TypeVar("EventT", bound=Event)


def next_halt(halt: Halt | None, c: Committed) -> Halt | None:
    """Whether the table is stopped after ``c``: a halt stops it until a supervisor resolves
    it, or the round or hand closes (a void)."""
    e = c.event
    if isinstance(e, RoundHalted):
        device = device_id = ""
        if c.actor.startswith("device:"):    # device:NAME[:ID], see device_actor
            device, _, device_id = c.actor.removeprefix("device:").partition(":")
        card = e.detail.get("card")
        said = e.detail.get("device_said")
        return Halt(e.reason, e.fault, c.seq, e.remedy, device or None, device_id or None,
                    card if isinstance(card, str) else None,
                    said if isinstance(said, str) else "")
    if isinstance(e, HaltResolved) or e.CLOSES:
        return None
    return halt


def seat_actor(seat: int) -> str:
    """A player at a seat, as the actor of what she did (a renege)."""
    return f"seat:{seat}"


def device_actor(event: DeviceEvent) -> str:
    return f"device:{event.device}" + (f":{event.device_id}" if event.device_id else "")


class TableService:
    """Shared machinery; the La Pair'e and Bourré tables add their rounds."""

    game: str = ""
    #: The game's record kinds (its registry entry's ``events``).
    codec: Codec = Codec(COMMON)
    #: Why a card read while the table is stopped was not taken.
    held_note = "read while the table was stopped; not taken"

    def __init__(self, journal: Journal, table_id: str, *, dealer: str) -> None:
        self.journal = journal
        self.table_id = table_id
        self.dealer = dealer
        # One writer per table: refused here, before anything is read or written, while
        # another station holds the table.
        self.lease: TableLease = acquire_lease(journal.db, table_id)
        try:
            # Never write to a journal whose newest records were cut off...
            journal.check_head(table_id)
            # ...and act only on projections the chain proves: any row that disagrees is
            # journaled (a significant event) and rewritten from the chain.
            self.projection_problems = journal.rebuild_projections(
                table_id, STATION_ACTOR, since_checkpoint=True)
        except BaseException:
            self.lease.release()
            raise
        self.lock = threading.RLock()
        from dealer_station.table.worker import TableWorker

        # Device events are kept on the table's own thread, in arrival order, so that the
        # drivers' reader threads never wait for a commit (see on_device_event).
        self.worker = TableWorker(self._keep_device_event, name=f"table-{table_id}")
        self._listeners: list[Listener] = []
        self.halt: Halt | None = None
        self.devices: dict[str, Any] = {}
        self.device_state: dict[str, str] = {}
        # What each device last said about itself (READY, JAM...) and its link's last state
        # (connected, disconnected...), kept apart: a reconnect must not hide a JAM.
        self.device_status: dict[str, str] = {}
        self.device_link: dict[str, str] = {}
        self._clock_mark = (time.time(), time.monotonic())
        self._last_round: int | None = None
        #: Who is signed in at the station (an actor, "role/user_id"), None while nobody is:
        #: told by the station's sign-in session (set_on_duty).
        self.on_duty: str | None = None
        #: Whether a sign-in session tells this table who is on duty. Until its first
        #: ``set_on_duty`` nobody manages it (a command-line table, a test, ``simulate``) and
        #: ``on_duty`` None means "not known", not "nobody": cards are taken as always. Once a
        #: session manages it, None means nobody is signed in, and a card read then is held
        #: and stops the round (see _device_event and docs/table.md).
        self.duty_managed = False
        #: The game-protection monitor, once :meth:`watch` started it.
        self.protection: Protection | None = None

    # -- listeners -------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(update)`` after every commit (on the thread that committed, under
        the table's lock: hand it on, never block). Returns an unsubscribe."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def set_on_duty(self, actor: str | None) -> None:
        """The station's sign-in session says who is signed in now (None: nobody)."""
        with self.lock:
            self.on_duty = actor
            self.duty_managed = True

    @property
    def unattended(self) -> bool:
        """Whether nobody is signed in at a station whose sign-in session manages the table."""
        return self.duty_managed and self.on_duty is None

    def view(self) -> TableView:
        """The table's read model now, taken under its lock: what a screen reads of the
        table (a screen never reads the live table itself)."""
        with self.lock:
            return self.read_model()

    def set_dealer(self, actor: str) -> None:
        """The dealer the rounds opened from now on name (the one signed in at the table)."""
        with self.lock:
            self.dealer = actor

    def read_model(self) -> TableView:
        """The table's read model now (call under the lock). Games extend it."""
        return TableView(self.table_id, self.game, self.round_no, self.last_round_no(),
                         self.halt, dict(self.device_state),
                         self.describe_round() if self.in_round() else "",
                         tuple(self.resume_blockers()) if self.halt is not None else ())

    def publish(self, events: Sequence[Committed], problem: str | None = None) -> None:
        if not self._listeners:
            return
        update = Update(tuple(events), self.read_model(), problem)
        for listener in list(self._listeners):
            listener(update)

    # -- journal helpers -------------------------------------------------------------------

    def append(self, entries: Sequence[Entry], also: Callable[[Any], None] | None = None
               ) -> list[Record]:
        """Journal ``entries`` in one commit, then apply and publish them as typed events."""
        records = self._append(entries, also)
        done = [self.codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind, r.payload)
                for r in records]
        for c in done:
            self.apply(c)
        self.publish(done)
        self._protect(done)
        return records

    def _append(self, entries: Sequence[Entry], also: Callable[[Any], None] | None
                ) -> list[Record]:
        self.lease.check()
        closing = any(e.event.KIND in closing_statuses() for e in entries)
        # Every round's close signs the chain's checkpoint (in the same commit) and anchors
        # the head outside the database.
        records = self.journal.write(self.table_id, entries, also=also, sign=closing)
        if closing:
            self.journal.anchor(records[-1])
        return records

    def record(self, event: Event, actor: str = STATION_ACTOR,
               round_no: int | None = None) -> Record:
        """Journal one event that no decision of the game's makes (the station's start and
        stop, a verification, a clock jump, a recovery) and tell the listeners."""
        return self.append([Entry(event, actor, round_no)])[0]

    def commit(self, steps: Sequence[Step]) -> list[Committed]:
        """Journal ``steps`` in one commit, then apply each event (the live state is always
        what the journal's events rebuild) and tell the listeners. The rows beside the chain
        (rounds, meters, configuration versions) are written in the same transaction, from
        the events."""
        records = self._append([Entry(s.event, s.actor, s.round_no) for s in steps],
                               self._projection_writer(steps))
        done = [Committed(r.seq, r.ts, r.actor, r.round_no, s.event)
                for r, s in zip(records, steps, strict=True)]
        for c in done:
            self.apply(c)
        self.publish(done)
        self._protect(done)
        return done

    # -- game protection (table/protection.py) ---------------------------------------------

    def watch(self, settings: MonitorSettings | None = None,
              calendar: GamingCalendar | None = None) -> None:
        """Start the game-protection monitor on this table (``[monitor]`` and
        ``[gaming_day]`` of config/station.toml unless given): it reads the gaming day under
        way again and journals any alert of it the chain does not hold yet."""
        from dealer_station.gameconfig import STATION_FILE, config_dir, load_gaming_calendar
        from dealer_station.monitor.settings import load_monitor_settings
        from dealer_station.table.protection import Protection

        with self.lock:
            if settings is None:
                settings = load_monitor_settings(config_dir() / STATION_FILE)
            if calendar is None:
                calendar = load_gaming_calendar()
            protection = Protection(self.table_id, settings, calendar)
            missing = protection.catch_up(self.journal, self.journal.clock())
            self.protection = protection
            if missing:
                self.append([Entry(a, STATION_ACTOR) for a in missing])

    def _protect(self, done: Sequence[Committed]) -> None:
        """Each alert of a round ``done`` closed, journaled now. The round is already on the
        chain: a monitor that fails says so to the listeners and stops watching, and an alert
        that cannot be journaled now is journaled at the table's next start."""
        protection = self.protection
        if protection is None:
            return
        try:
            alerts = protection.saw(done)
        except Exception as exc:      # never let the monitor stop play
            self.protection = None
            self.publish((), f"the game-protection monitor stopped: {exc}")
            return
        if alerts:
            try:
                self.append([Entry(a, STATION_ACTOR) for a in alerts])
            except StationError as exc:
                self.publish((), f"a game-protection alert could not be journaled ({exc}); "
                                 f"it will be at the table's next start")

    def _projection_writer(self, steps: Sequence[Step]) -> Callable[[Any], None] | None:
        """What ``steps`` change in the rows beside the chain: a round's row when it opens or
        closes (with its meters), a configuration version's row."""
        opening = [s for s in steps if s.event.OPENS and s.round_no is not None]
        closing = [s for s in steps if s.event.CLOSES and s.round_no is not None]
        configs = [s for s in steps if isinstance(s.event, ConfigChanged)
                   and s.event.content is not None]
        if not (opening or closing or configs):
            return None

        def write(conn: Any) -> None:
            for s in opening:
                p = s.event.to_payload()
                self.journal.upsert_round(conn, self.table_id, int(s.round_no or 0),
                                          game=str(p["game"]),
                                          config_version=str(p["config_version"]),
                                          dealer=str(p["dealer"]))
            for s in closing:
                meters = closing_meters(s.event.KIND, s.event.to_payload()) or {}
                self.journal.upsert_round(conn, self.table_id, int(s.round_no or 0),
                                          status=s.event.CLOSES)
                if meters:
                    self.journal.add_meters(conn, self.table_id, {
                        k: MeterDelta(rounds=1, wagered=m["wagered"], paid=m["paid"],
                                      house_win=m["house_win"]) for k, m in meters.items()})
            for s in configs:
                e = s.event
                assert isinstance(e, ConfigChanged)
                self.journal.record_config_version(
                    conn, table_id=self.table_id, game=e.game, content=e.content or {},
                    created_by=s.actor, reason=e.reason, created_at=self.journal.now())
        return write

    def apply(self, c: Committed) -> None:
        """The only change of a table's state: one committed event, live or read back from
        the journal. The base keeps the halt; each game keeps its rounds."""
        self.halt = next_halt(self.halt, c)
        e = c.event
        if isinstance(e, DeviceStatusReported | DeviceConnected | DeviceLost
                      | DeviceStateChanged):
            self.device_state[e.device] = e.state
        if isinstance(e, DeviceStatusReported):
            self.device_status[e.device] = e.state
        elif isinstance(e, DeviceConnected | DeviceLost | DeviceStateChanged):
            self.device_link[e.device] = e.state

    def adopt_config(self, content: dict[str, Any], prefer_journal: bool, *,
                     changes: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], str]:
        """The configuration the table starts on, as (content, version): the journal's latest
        for this table's game unless told to load ``content`` (a file's), which is then
        journaled as a new version if it differs. Operators change the configuration on the
        station and those changes live in the journal; a restart must not silently undo them
        by re-reading the file."""
        mine = [v for v in self.journal.config_versions(self.table_id) if v.game == self.game]
        if mine and prefer_journal:
            return dict(mine[-1].content), mine[-1].version
        version = config_version(canonical_json(content))
        if not mine or mine[-1].version != version:
            self.commit([Step(ConfigChanged(version, self.game,
                                            "configuration loaded at start-up",
                                            dict(changes or {"source": "file"}), content),
                              STATION_ACTOR)])
        return content, version

    # -- a configuration published at the floor (floor/follower.py) -------------------------

    def upcoming_config_version(self) -> str:
        """The configuration version the next round or hand will be played under."""
        return str(getattr(self, "version", ""))

    def config_may_change(self) -> bool:
        """Whether a configuration may be adopted now: no round or hand is open."""
        return not self.in_round()

    def check_config_content(self, content: Mapping[str, Any]) -> None:
        """Raise if ``content`` is not a configuration this table's game can play under."""
        raise TableError(f"{self.game} takes no configuration from the floor")

    def adopt_published_config(self, version: str, content: Mapping[str, Any], reason: str,
                               what: Mapping[str, Any], actor: str) -> bool:
        """Journal a configuration published at the floor as this table's ``config.change``,
        taking the table's lock: only between rounds (False, nothing written, while a round
        or hand is open) and only when it is not already the one in force or pending (False
        too). It takes effect from the next round, like an operator's change at the table."""
        with self.lock:
            if not self.config_may_change() or version == self.upcoming_config_version():
                return False
            if config_version(canonical_json(dict(content))) != version:
                raise TableError(f"configuration {version[:12]}: its content does not hash "
                                 f"to its version")
            self.check_config_content(content)
            self.commit([Step(ConfigChanged(version, self.game, self.require_reason(reason),
                                            dict(what), dict(content)), actor)])
            return True

    def record_verification(self, check: WholeCheck, user: User) -> None:
        """A person verified the journal: each table's result on its chain, this table's
        through the table (its lease held), any other table's directly."""
        with self.lock:
            for r in check.results:
                done = Verified.from_payload(check.record_payload(r, projections=True))
                if r.table_id == self.table_id:
                    self.record(done, user.actor)
                else:
                    self.journal.write(r.table_id, [Entry(done, user.actor)])

    def startup(self) -> None:
        self.record(StationStarted(__version__, self.game, self.table_id))
        self.watch()

    def shutdown(self) -> None:
        # Devices close first, so that their last events (the port closed) are queued; then
        # every queued event is kept before the shutdown record. Both outside the lock: the
        # worker needs it to keep them.
        with self.lock:
            handles = list(self.devices.values())
            self.devices.clear()
        for handle in handles:
            handle.close()
        self.worker.stop()
        with self.lock:
            if not self.lease.valid:
                return
            self.record(StationStopped(__version__))
            if self.journal.anchor_path is not None:
                # A clean exit anchors the head (cutting the tail later is then detected),
                # with the meters and last round proven now, so the next start checks only
                # what comes after.
                self.journal.rebuild_projections(self.table_id, STATION_ACTOR,
                                                 since_checkpoint=True)
                state = self.journal.proven_state(self.table_id)
                self.journal.checkpoint(self.table_id, STATION_ACTOR, state.payload(
                    self.journal.last_round_no(self.table_id)))
            self.lease.release()

    def check_clock(self) -> float | None:
        """Record a clock jump (wall time moved unlike monotonic time). Returns the jump."""
        wall, mono = time.time(), time.monotonic()
        last_wall, last_mono = self._clock_mark
        self._clock_mark = (wall, mono)
        jump = (wall - last_wall) - (mono - last_mono)
        if abs(jump) > CLOCK_JUMP_SECONDS:
            self.record(ClockJumped(round(jump * 1000) // 1000, round(jump * 1000)))
            return jump
        return None

    # -- permissions -----------------------------------------------------------------------

    @staticmethod
    def require_supervisor(user: User, action: str) -> None:
        require_role(user, "supervisor", "operator", action=action)

    @staticmethod
    def require_reason(reason: str) -> str:
        if not isinstance(reason, str) or not reason.strip():
            raise TableError("a reason is required, and is recorded with your name")
        return reason.strip()

    # -- halts -----------------------------------------------------------------------------

    def in_round(self) -> bool:
        """Whether a round or hand is under way (a fault then stops it)."""
        raise NotImplementedError

    @property
    def round_no(self) -> int | None:
        raise NotImplementedError

    @property
    def money(self) -> Money:
        """How the table's amounts are shown (from its configuration); whole chips for a game
        played for chips (Bourré tournament sessions)."""
        return CHIPS

    def describe_round(self) -> str:
        """One line about the round or hand under way, for the supervisor ("" if none)."""
        raise NotImplementedError

    def void(self, user: User, reason: str) -> None:
        """A supervisor voids the round or hand under way, with a reason."""
        raise NotImplementedError

    def correct_card(self, user: User, card: Card | str, reason: str) -> object:
        """A supervisor enters the card really dealt after a misread or an impossible read."""
        raise NotImplementedError

    def stop_round(self, reason: str, fault: str, remedy: str, actor: str,
                   extra: Mapping[str, Any] | None = None) -> None:
        """Halt the round (journaled) so nothing more is settled until a supervisor acts."""
        self.commit([Step(RoundHalted(reason, fault, remedy, dict(extra or {})), actor,
                          self.round_no)])

    def check_not_halted(self) -> None:
        if self.halt is not None:
            raise Halted(f"the round is stopped: {self.halt.reason}. {self.halt.remedy}")

    def resume(self, user: User, reason: str) -> None:
        """A supervisor clears a halt whose cause is gone (a device back, a door closed).

        Refused while a device still reports a fault (JAM, DOOR_OPEN, TAMPER) or is not
        there (disconnected, silent): the next card would be taken from a shoe nobody can
        trust. The message says what must be cleared first."""
        with self.lock:
            self.require_supervisor(user, "resolve a device fault")
            reason = self.require_reason(reason)
            if self.halt is None:
                raise TableError("nothing to resolve: the table is not stopped")
            blockers = self.resume_blockers()
            if blockers:
                raise TableError("cannot resume yet: " + "; ".join(blockers)
                                 + ". Clear it first, or void the round.")
            self.commit([Step(HaltResolved("resume", reason, self.halt.seq), user.actor,
                              self.round_no)])

    def resume_blockers(self) -> list[str]:
        """What must be cleared before the round may resume: one line per device that still
        reports a fault or is not connected (call under the lock)."""
        out = []
        for device in sorted(set(self.device_status) | set(self.device_link)):
            name = device_name(device)
            link = self.device_link.get(device, "")
            status = self.device_status.get(device, "")
            if link in ABSENT_LINKS:
                out.append(f"{name} is {link} and must be connected again")
            elif status in HALTING_STATUSES:
                out.append(f"{name} still reports {status.replace('_', ' ')} "
                           f"({STATUS_REMEDIES[status]}; it must report READY)")
        return out

    # -- devices ---------------------------------------------------------------------------

    def attach(self, role: str, handle: Any) -> None:
        """Adopt an open DeviceHandle whose events are sent to :meth:`on_device_event`.

        Call it right after opening the device. The device's last frame the table took (see
        :meth:`resume_point`) is handed to the driver (``expect_after``) if the driver was not
        already told it when it was opened (the ``resume_after`` option, which is the safe
        way: a frame the device sends again at once is then known before it can be heard).
        """
        with self.lock:
            self.devices[role] = handle
            driver = getattr(handle, "driver", None)
            device_id = getattr(driver, "device_id", None)
            if device_id is None or not callable(getattr(handle, "expect_after", None)):
                return
            point = self.resume_point(device_id, handle.name)
            if point is not None:
                handle.expect_after(*point)

    def resume_point(self, device_id: str, device_name: str) -> tuple[int, str | None] | None:
        """The device's last frame this table journaled, as ``(device_seq, card code or
        None)``: the newest record by ``device:NAME:ID`` that carries a ``device_seq``.
        A frame the device sends again after a restart of the station is then acknowledged,
        not taken twice. None when the table never heard the device."""
        from sqlalchemy import select

        from dealer_station.audit.schema import journal as j

        actor = f"device:{device_name}:{device_id}"
        stmt = (select(j.c.table_id, j.c.seq, j.c.ts, j.c.actor, j.c.kind, j.c.round_no,
                       j.c.payload, j.c.prev_hash, j.c.hash)
                .where(j.c.table_id == self.table_id, j.c.actor == actor,
                       j.c.payload.contains('"device_seq"'))
                .order_by(j.c.seq.desc()).limit(1))
        with self.journal.db.read() as conn:
            found = list(self.journal.authentic(conn.execute(stmt)))
        return device_frame(found[0].payload) if found else None

    def on_device_event(self, event: DeviceEvent) -> None:
        """Entry point for driver callbacks (any thread): hands the event to the table's
        worker and returns at once. The worker keeps the events in arrival order and then
        answers the device's frame (``defer_ack``): the driver ACKs it once what the event
        says is committed, and not at all if nothing could be journaled (the device sends it
        again). Listeners are told on the worker, after the commit, before the ACK.
        """
        from dealer_station.hardware.acks import defer_ack

        self.worker.submit(event, defer_ack())

    def _keep_device_event(self, event: DeviceEvent) -> None:
        """What a device event does to the table, on the worker. Returns once it is
        committed to the journal.

        Raises when nothing could be journaled for a device's frame (the database refused),
        so that the frame is not acknowledged and the device sends it again.
        """
        with self.lock:
            try:
                self._device_event(event)
            except Exception as exc:
                # A fact that could not be accepted (the database refused, or a fault in the
                # station itself): the round stops (or the card is held) and the people at the
                # table are told.
                self.publish((), f"{event.describe()}: {exc}")
                seq = event.seq if isinstance(event, CardRead | DeviceStatus |
                                              DeviceIdentified) or (
                    isinstance(event, DeviceFault) and event.kind in FRAME_FAULTS) else None
                extra = {"device_seq": seq} if seq is not None else {}
                try:
                    if self.in_round() and self.halt is None:
                        self.stop_round(f"could not process {event.describe()}: {exc}",
                                        "station_error", "Call a supervisor.", STATION_ACTOR,
                                        extra)
                    elif isinstance(event, CardRead):
                        self.commit([Step(CardHeld(event.card.code,
                                                   f"could not be processed: {exc}",
                                                   event.device, seq),
                                          device_actor(event), self.round_no)])
                    elif seq is not None:
                        raise
                except Exception:
                    if seq is not None:
                        raise    # nothing journaled: the device must send the frame again

    def _device_event(self, event: DeviceEvent) -> None:
        actor = device_actor(event)
        if isinstance(event, CardRead) and self.halt is not None:
            # Nothing is dealt or played while the table is stopped: the card is kept on
            # record (acknowledged), for the supervisor who resolves the halt.
            note = UNATTENDED_NOTE if self.unattended else self.held_note
            self.commit([Step(CardHeld(event.card.code, note, event.device, event.seq),
                              actor, self.round_no)])
        elif isinstance(event, CardRead) and self.unattended:
            # Nobody is signed in to deal it: the card is journaled but not taken, and the
            # round stops for a supervisor (resume, enter the card, or void), as after a
            # misread. The card and its halt are one commit.
            name = device_name(event.device)
            self.commit([
                Step(CardHeld(event.card.code, UNATTENDED_NOTE, event.device, event.seq),
                     actor, self.round_no),
                Step(RoundHalted(f"card read while nobody was signed in ({event.card.code}, "
                                 f"read by {name})", UNATTENDED,
                                 "A supervisor checks the table, then resumes, enters the "
                                 "card actually dealt, or voids the round, with a reason.",
                                 {"card": event.card.code}), actor, self.round_no)])
        elif isinstance(event, CardRead):
            self.card_from_device(event, actor)
        elif isinstance(event, DeviceFault):
            # ``device_seq`` goes on the LAST record written for the device's frame (the one
            # a restart resumes after, see attach), and only when the fault is the frame's
            # whole outcome: a gap found on a card must not mark that card as taken.
            halting = self.in_round() and self.halt is None
            seq = event.seq if event.kind in FRAME_FAULTS else None
            card = event.card.code if event.card else None
            self.commit([Step(DeviceFaulted(event.device, event.kind.value, event.detail, card,
                                            None if halting else seq), actor, self.round_no)])
            if halting:
                # The reason in plain words; what the device said is kept beside it.
                extra: dict[str, Any] = {"device_said": event.detail}
                if seq is not None:
                    extra.update(card=card, device_seq=seq)
                self.stop_round(fault_words(event.kind.value, event.device), event.kind.value,
                                self.remedy_for(event.kind.value), actor, extra)
        elif isinstance(event, DeviceStatus):
            halting = (event.state in HALTING_STATUSES and self.in_round()
                       and self.halt is None)
            self.commit([Step(DeviceStatusReported(event.device, event.state,
                                                   None if halting else event.seq),
                              actor, self.round_no)])
            if halting:
                self.stop_round(f"{device_name(event.device)} reports "
                                f"{event.state.replace('_', ' ')}", event.state.lower(),
                                f"{STATUS_REMEDIES[event.state].capitalize()}; once "
                                f"{device_name(event.device)} reports READY, a supervisor "
                                f"resumes the round or voids it, with a reason.", actor,
                                {"device_seq": event.seq})
        elif isinstance(event, ConnectionChanged):
            kind = (DeviceConnected if event.state is ConnectionState.CONNECTED
                    else DeviceLost if event.state in (ConnectionState.DISCONNECTED,
                                                       ConnectionState.SILENT)
                    else DeviceStateChanged)
            self.commit([Step(kind(event.device, event.state.value, event.detail), actor,
                              self.round_no)])
        elif isinstance(event, DeviceIdentified):
            self.commit([Step(DeviceWasIdentified(event.device, event.model, event.firmware,
                                                  event.serial_no, event.seq,
                                                  event.resumed_after), actor)])

    @staticmethod
    def remedy_for(fault: str) -> str:
        if fault in ("misread", "impossible_card"):
            return ("A supervisor enters the card actually dealt (with a reason), or voids "
                    "the round.")
        return ("Check the device and its cable; when it is back, a supervisor resumes the "
                "round or voids it, with a reason.")

    def card_from_device(self, event: CardRead, actor: str) -> None:
        raise NotImplementedError

    # -- helpers for subclasses ------------------------------------------------------------

    def last_round_no(self) -> int:
        """The table's last round number: read from the chain once (never from the rounds
        table, which anyone with the database could edit), then counted here (one writer
        per table holds the table's lease)."""
        if self._last_round is None:
            self._last_round = self.journal.last_round_no(self.table_id)
        return self._last_round

    @staticmethod
    def parse_time(ts: str) -> datetime:
        return datetime.fromisoformat(ts)


def check_user(user: User | None, action: str) -> User:
    if user is None:
        raise PermissionDenied(f"sign in to {action}")
    return user
