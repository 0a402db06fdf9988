"""A simulated card shoe or card reader: the DEVICE side of the wire protocol.

It speaks bytes over a wire (links.py), so the host driver that listens to it is the same code
that listens to a real device. One pump thread owns the wire: it sends frames one at a time
(stop-and-wait: the next frame only after an ACK), re-sends an unacknowledged frame after
``ack_timeout`` (200 ms) up to ``retries`` (5) times with the same seq, re-sends at once on a
NAK, then KEEPS it (re-sending it every ``hold_interval`` s) until it is acknowledged: a QUERY
(a host that opened the port, e.g. after a restart) makes it send the frame again at once,
same seq, then HELLO and STATUS. It sends HB every ``heartbeat`` seconds. No baud-rate
sleeping: in memory a card takes a thread hand-off.

Programmatic API for tests, ``dealer-station simulate`` and the UI's demo mode:
``deal() -> Card``, ``send_card``, ``set_order(cards)``, ``new_shoe(seed)``, ``inject(fault)``,
``set_faults(rates)``, ``set_status(state)``, ``report_error``, ``set_silent``,
``wait_idle(timeout)``; ``connect()`` plugs in a new in-memory cable and returns the host end
(the ``simulated`` backend's port factory).

Faults (``FAULTS``): ``noise`` (random bytes on the line before a frame), ``drop`` (a
transmission lost), ``duplicate`` (a frame sent twice), ``badcrc`` (a frame with a wrong CRC),
``disconnect`` (the cable pulled for ``down_time`` s), ``misread`` (a card leaves the shoe but
is reported as ERROR,MISREAD), ``ackdrop`` (an ACK from the host lost), ``gap`` (a seq number
skipped, as if a frame were lost for good). Rates apply to every transmission (``misread``: to
every card dealt); ``inject(name)`` applies a fault once, to the next card frame.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields

from dealer_station.cards import LAPAIRE_DECK, Card, DeckSpec, parse_card
from dealer_station.hardware import protocol as p
from dealer_station.hardware.errors import DeviceInitError, DeviceOperationError
from dealer_station.hardware.links import MemoryLink, MemoryPort, Wire

log = logging.getLogger(__name__)

FAULTS = ("noise", "drop", "duplicate", "badcrc", "disconnect", "misread", "ackdrop", "gap")
#: The rate a fault named without ``=rate`` gets (``--faults noise,drop``).
DEFAULT_RATE = 0.02
_MAX_NOISE = 16


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Probability of each fault per transmission (``misread``: per card dealt)."""

    noise: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    badcrc: float = 0.0
    disconnect: float = 0.0
    misread: float = 0.0
    ackdrop: float = 0.0
    gap: float = 0.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    0.0 <= value <= 1.0):
                raise DeviceInitError(f"fault rate {f.name}={value!r} must be a number from 0 "
                                      "to 1")

    @classmethod
    def parse(cls, text: str) -> FaultRates:
        """``noise=0.01,drop=0.02,misread`` (a bare name means DEFAULT_RATE)."""
        rates: dict[str, float] = {}
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            name, _, value = item.partition("=")
            name = name.strip().lower()
            if name not in FAULTS:
                raise DeviceInitError(f"unknown fault {name!r} in {text!r}: expected "
                                      f"{', '.join(FAULTS)}")
            if not value:
                rates[name] = DEFAULT_RATE
                continue
            try:
                rates[name] = float(value)
            except ValueError:
                raise DeviceInitError(f"fault rate {item!r} in {text!r} is not a number "
                                      "(write e.g. drop=0.01)") from None
        return cls(**rates)

    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


@dataclass
class SimStats:
    """Counters a test or the emulator can read (under the device's lock)."""

    frames: int = 0            # new frames numbered and sent
    transmissions: int = 0     # every write of a frame, re-sends included
    resends: int = 0
    held: int = 0              # frames still unanswered after the last quick re-send
    acked: int = 0
    cards_dealt: int = 0
    cards_confirmed: int = 0   # card frames the host acknowledged
    faults: Counter[str] = field(default_factory=Counter)


def card_stream(deck: DeckSpec, seed: int | None) -> Iterator[Card]:
    """The cards a seeded shoe deals, shoe after shoe (what ``auto_new_shoe`` produces)."""
    rng = random.Random(seed)
    while True:
        yield from deck.shuffled(rng)


@dataclass(slots=True)
class _Msg:
    type: str
    fields: tuple[str, ...] = ()
    card: Card | None = None     # set for a card frame (CARD or ERROR,MISREAD)


@dataclass(slots=True)
class _Out:
    msg: _Msg
    seq: int
    data: bytes
    attempts: int = 0
    deadline: float = 0.0
    held: bool = False           # unanswered after every re-send: kept, sent again on QUERY


class SimulatedDevice:
    """A simulated shoe or reader. Thread-safe; its pump thread starts on the first attach."""

    def __init__(
        self,
        role: str = "shoe",
        *,
        device_id: str | None = None,
        deck: DeckSpec = LAPAIRE_DECK,
        seed: int | None = None,
        cards: Iterable[Card | str] | None = None,
        faults: FaultRates | None = None,
        interval: float | None = None,
        count: int | None = None,
        auto_new_shoe: bool = False,
        heartbeat: float | None = 1.0,
        ack_timeout: float = 0.2,
        retries: int = 5,
        first_seq: int = 0,
        down_time: float = 0.3,
        hold_interval: float = 1.0,
        fault_seed: int | None = None,
        model: str | None = None,
        firmware: str = "1.0",
        serial_no: str = "SIM-0001",
        replug: Callable[[], Wire] | None = None,
        on_log: Callable[[str], None] | None = None,
    ) -> None:
        if role not in ("shoe", "reader"):
            raise DeviceInitError(f"unknown device role {role!r}: expected shoe or reader")
        self.role = role
        self.device_id = device_id or ("SHOE1" if role == "shoe" else "READER1")
        p.encode(self.device_id, 0, p.HB)  # refuses an id the protocol cannot carry
        self.deck = deck
        self.model = model or ("SIM-SHOE" if role == "shoe" else "SIM-READER")
        self.firmware = firmware
        self.serial_no = serial_no
        self.heartbeat = heartbeat
        self.ack_timeout = ack_timeout
        self.retries = retries
        self.interval = interval
        self.count = count
        self.auto_new_shoe = auto_new_shoe
        self.down_time = down_time
        self.hold_interval = hold_interval
        self.stats = SimStats()
        self._replug = replug
        self._on_log = on_log
        self._rates = faults or FaultRates()
        self._rng = random.Random(seed)
        self._frng = random.Random(fault_seed)
        self._shoe: deque[Card] = deque()
        if cards is not None:
            self._shoe.extend(_as_cards(cards))
        else:
            self._shoe.extend(deck.shuffled(self._rng))
        self._status = "READY" if self._shoe else "EMPTY"
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._queue: deque[_Msg] = deque()
        self._out: _Out | None = None
        self._seq = first_seq % p.SEQ_MODULO
        self._pending: list[str] = []
        self._silent = False
        self._host_seen = False
        self._disconnect: float | None = None
        self._down_until = 0.0
        self._wire: Wire | None = None
        self._next_wire: Wire | None = None
        self._plugs = 0
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._next_hb = 0.0
        self._next_card = 0.0

    # ------------------------------------------------------------------ wiring

    def attach(self, wire: Wire) -> None:
        """Plug the device into ``wire`` (replacing any current one); starts the pump."""
        with self._lock:
            if self._stop.is_set():
                raise DeviceOperationError("the simulated device is closed")
            old, self._next_wire = self._wire, wire
            if self._thread is None:
                self._thread = threading.Thread(target=self._pump, daemon=True,
                                                name=f"sim-{self.device_id}")
                self._thread.start()
        if old is not None:
            old.wake()
        self._wake.set()

    def connect(self, timeout: float | None = 0.05) -> MemoryPort:
        """A new in-memory cable to this device; returns the host end. Port-factory shaped:
        raises ConnectionRefusedError while the device is 'unplugged' by a disconnect fault."""
        if self._stop.is_set():
            raise ConnectionRefusedError(f"simulated {self.role} {self.device_id} is closed")
        if time.monotonic() < self._down_until:
            raise ConnectionRefusedError(f"simulated {self.role} {self.device_id} is unplugged")
        link = MemoryLink(f"{self.role}-{self.device_id}-{self._plugs + 1}")
        self.attach(link.device)
        link.host.timeout = timeout
        return link.host

    @property
    def plugged(self) -> bool:
        with self._lock:
            return self._wire is not None or self._next_wire is not None

    def close(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self._poke()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> SimulatedDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ control API

    def deal(self, position: int | None = None) -> Card:
        """The next card leaves the shoe and is reported; returns it (what really left)."""
        with self._lock:
            card = self._deal_locked(position)
        self._poke()
        return card

    def send_card(self, card: Card | str, position: int | None = None) -> Card:
        """Report ``card`` regardless of the shoe (a reader reading what was played)."""
        c = _as_cards([card])[0]
        with self._lock:
            self._card_locked(c, position)
        self._poke()
        return c

    def set_order(self, cards: Iterable[Card | str]) -> None:
        """The cards still in the shoe become exactly ``cards``, dealt in this order."""
        new = _as_cards(cards)
        with self._lock:
            self._shoe = deque(new)
            self._status_locked("READY" if new else "EMPTY", only_if_changed=True)
        self._poke()

    def new_shoe(self, seed: int | None = None) -> None:
        """A freshly shuffled deck (``seed`` for a repeatable order)."""
        with self._lock:
            if seed is not None:
                self._rng = random.Random(seed)
            self._shoe = deque(self.deck.shuffled(self._rng))
            self._status_locked("READY", only_if_changed=True)
        self._poke()

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._shoe)

    def peek(self, n: int = 1) -> list[Card]:
        """The next ``n`` cards in the shoe, without dealing them."""
        with self._lock:
            return list(self._shoe)[:n]

    def set_status(self, state: str) -> None:
        if state not in p.STATUS_STATES:
            raise DeviceOperationError(f"unknown status {state!r}: expected "
                                       f"{', '.join(p.STATUS_STATES)}")
        with self._lock:
            self._status_locked(state)
        self._poke()

    def report_error(self, code: str, text: str) -> None:
        with self._lock:
            self._queue.append(_Msg(p.ERROR, (code, text)))
        self._poke()

    def inject(self, fault: str, *, duration: float | None = None) -> None:
        """Apply ``fault`` once: to the next card frame (``misread``: the next card dealt;
        ``disconnect``: now, for ``duration`` s or ``down_time``; ``noise``: now)."""
        if fault not in FAULTS:
            raise DeviceOperationError(f"unknown fault {fault!r}: expected {', '.join(FAULTS)}")
        with self._lock:
            if fault == "disconnect":
                self._disconnect = self.down_time if duration is None else duration
            else:
                self._pending.append(fault)
        self._poke()

    def set_faults(self, rates: FaultRates) -> None:
        with self._lock:
            self._rates = rates

    def set_silent(self, silent: bool) -> None:
        """A hung device: sends nothing at all (not even heartbeats) while silent."""
        with self._lock:
            self._silent = silent
            self._next_hb = 0.0
        self._poke()

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every card frame queued so far is acknowledged (False on timeout)."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._card_pending_locked():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True

    # ------------------------------------------------------------------ internals (locked)

    def _poke(self) -> None:
        wire = self._wire
        if wire is not None:
            wire.wake()
        self._wake.set()

    def _logline(self, text: str) -> None:
        log.debug("%s %s: %s", self.role, self.device_id, text)
        if self._on_log is not None:
            self._on_log(text)

    def _deal_locked(self, position: int | None) -> Card:
        if not self._shoe:
            if not self.auto_new_shoe:
                self._status_locked("EMPTY", only_if_changed=True)
                raise DeviceOperationError(f"the simulated {self.role} is empty: call new_shoe()")
            self._shoe.extend(self.deck.shuffled(self._rng))
            self._status_locked("READY", only_if_changed=True)
        card = self._shoe.popleft()
        self._card_locked(card, position)
        if not self._shoe and self.role == "shoe":
            self._status_locked("EMPTY")
        return card

    def _card_locked(self, card: Card, position: int | None) -> None:
        self.stats.cards_dealt += 1
        if "misread" in self._pending or self._roll("misread"):
            if "misread" in self._pending:
                self._pending.remove("misread")
            self.stats.faults["misread"] += 1
            self._queue.append(_Msg(p.ERROR, (p.MISREAD, "card not recognised"), card))
        else:
            fields_ = (card.code,) if position is None else (card.code, str(position))
            self._queue.append(_Msg(p.CARD, fields_, card))

    def _status_locked(self, state: str, *, only_if_changed: bool = False) -> None:
        if only_if_changed and state == self._status:
            return
        self._status = state
        self._queue.append(_Msg(p.STATUS, (state,)))

    def _card_pending_locked(self) -> bool:
        return (self._out is not None and self._out.msg.card is not None) or any(
            m.card is not None for m in self._queue)

    def _roll(self, fault: str) -> bool:
        rate: float = getattr(self._rates, fault)
        return rate > 0 and self._frng.random() < rate

    # ------------------------------------------------------------------ the pump thread

    def _pump(self) -> None:
        deframer = p.Deframer()
        wire: Wire | None = None
        try:
            while not self._stop.is_set():
                with self._lock:
                    if self._next_wire is not None:
                        if wire is not None and wire is not self._next_wire:
                            _close_quietly(wire)
                        wire, self._next_wire = self._next_wire, None
                        self._wire = wire
                        deframer.clear()
                        self._plugged_locked()
                if wire is None:
                    wire = self._wait_unplugged()
                    continue
                current = wire
                try:
                    with self._lock:
                        timeout = self._step_locked(current)
                        unplugged = self._wire is None    # a disconnect fault unplugged it
                    if unplugged:
                        wire = None
                        continue
                    data = current.read(timeout)
                except OSError as exc:
                    with self._lock:
                        if self._wire is current:
                            self._wire = None
                    _close_quietly(current)
                    wire = None
                    self._logline(f"link lost ({exc})")
                    continue
                if data:
                    for item in deframer.iter_feed(data):
                        if isinstance(item, p.Frame):
                            self._on_host(item)
        finally:
            with self._lock:
                self._wire = None
                self._idle.notify_all()
            if wire is not None:
                _close_quietly(wire)

    def _wait_unplugged(self) -> Wire | None:
        """No wire: wait for attach(), or re-plug by ourselves after a disconnect fault."""
        left = self._down_until - time.monotonic()
        if left > 0:
            self._stop.wait(left)
            return None
        if self._replug is not None and self._plugs > 0:
            try:
                self.attach(self._replug())
            except OSError as exc:
                self._logline(f"cannot re-plug: {exc}")
                self._stop.wait(0.5)
            return None
        self._wake.wait(0.2)
        self._wake.clear()
        return None

    def _plugged_locked(self) -> None:
        """A (new) cable: say HELLO and STATUS; finish the frame in flight first, same seq."""
        self._plugs += 1
        self._queue.appendleft(_Msg(p.STATUS, (self._status,)))
        self._queue.appendleft(_Msg(p.HELLO, (self.model, self.firmware, self.serial_no)))
        if self._out is not None:
            self._out.attempts = 0
            self._out.held = False
            self._out.deadline = 0.0
        self._logline(f"plugged in ({self._plugs})")

    def _step_locked(self, wire: Wire) -> float:
        """Send whatever is due; return how long the pump may wait for host bytes."""
        now = time.monotonic()
        if self._disconnect is not None:
            duration, self._disconnect = self._disconnect, None
            self._unplug_locked(wire, duration, now)
            return 0.0
        if self._silent:
            return 0.2
        if self.heartbeat is not None and now >= self._next_hb:
            self._next_hb = now + self.heartbeat
            if not self._hb_pending_locked():
                self._queue.append(_Msg(p.HB))
        # A card can be dealt only when none awaits its ACK, a host has been heard (or none
        # can answer) and the count allows: only then is its time something to wait for.
        can_deal = (self.interval is not None and not self._card_pending_locked()
                    and (self._host_seen or not wire.has_return_path)
                    and (self.count is None or self.stats.cards_dealt < self.count))
        if can_deal and self.interval is not None and now >= self._next_card:
            self._next_card = now + self.interval
            try:
                card = self._deal_locked(None)
                self._logline(f"dealt {card.code} ({len(self._shoe)} left)")
            except DeviceOperationError as exc:
                self._logline(str(exc))
        while True:
            out = self._out
            if out is not None and now >= out.deadline:
                if out.attempts > self.retries and not out.held:
                    # Nobody answered: keep the frame (a host that restarts will QUERY and
                    # get it again) and re-send it only now and then until it is ACKed.
                    out.held = True
                    out.deadline = now + self.hold_interval
                    self.stats.held += 1
                    self._logline(f"holding {out.msg.type} seq {out.seq} after "
                                  f"{out.attempts} transmissions: sent again after QUERY")
                    continue
                self.stats.resends += 1
                self._transmit_locked(wire, out, now, first=False)
                if out.held:
                    out.deadline = now + self.hold_interval
                if self._wire is None:
                    return 0.0
            if self._out is None and self._queue:
                msg = self._queue.popleft()
                if ("gap" in self._pending and msg.card is not None) or self._roll("gap"):
                    if "gap" in self._pending and msg.card is not None:
                        self._pending.remove("gap")
                    self.stats.faults["gap"] += 1
                    self._seq = p.next_seq(self._seq)
                seq, self._seq = self._seq, p.next_seq(self._seq)
                out = _Out(msg, seq, p.encode(self.device_id, seq, msg.type, *msg.fields))
                self._out = out
                self.stats.frames += 1
                self._transmit_locked(wire, out, now, first=True)
                if self._wire is None:
                    return 0.0
                if not wire.has_return_path:
                    # Nobody can ACK (loop://): sent once is all the device can do.
                    self._out = None
                    self._idle.notify_all()
                continue
            break
        deadlines = [now + 0.5]
        if self._out is not None:
            deadlines.append(self._out.deadline)
        if self.heartbeat is not None:
            deadlines.append(self._next_hb)
        if can_deal:
            # (otherwise the pump would wake at once, again and again, for a card it cannot
            # deal: the host's bytes, an ACK or its first QUERY, wake it instead)
            deadlines.append(self._next_card)
        return max(0.0, min(deadlines) - now)

    def _hb_pending_locked(self) -> bool:
        return (self._out is not None and self._out.msg.type == p.HB) or any(
            m.type == p.HB for m in self._queue)

    def _transmit_locked(self, wire: Wire, out: _Out, now: float, *, first: bool) -> None:
        chosen: set[str] = set()
        if first and out.msg.card is not None:
            for name in ("noise", "drop", "duplicate", "badcrc"):
                if name in self._pending:
                    self._pending.remove(name)
                    chosen.add(name)
        for name in ("noise", "drop", "duplicate", "badcrc", "disconnect"):
            if self._roll(name):
                chosen.add(name)
        for name in chosen:
            self.stats.faults[name] += 1
        out.attempts += 1
        out.deadline = now + self.ack_timeout
        self.stats.transmissions += 1
        try:
            if "noise" in chosen:
                wire.write(bytes(self._frng.randrange(256)
                                 for _ in range(self._frng.randint(1, _MAX_NOISE))))
            if "drop" not in chosen:
                data = out.data
                if "badcrc" in chosen:
                    data = data[:-6] + b"%04X" % (int(data[-6:-2], 16) ^ 0x5A5A) + b"\r\n"
                wire.write(data)
                if "duplicate" in chosen:
                    wire.write(out.data)
        except OSError as exc:
            # The cable went away under us: the pump's next read notices and waits for a plug.
            self._logline(f"write failed ({exc})")
        if "disconnect" in chosen:
            self._unplug_locked(wire, self.down_time, now)

    def _unplug_locked(self, wire: Wire, duration: float, now: float) -> None:
        self.stats.faults["disconnect"] += 1
        self._down_until = now + duration
        self._wire = None
        _close_quietly(wire)
        self._logline(f"unplugged for {duration:.2f} s")

    def _on_host(self, frame: p.Frame) -> None:
        if frame.TYPE not in p.HOST_TYPES or (frame.device_id != self.device_id and not (
                frame.device_id == p.BROADCAST_ID and isinstance(frame, p.Query))):
            return
        with self._lock:
            self._host_seen = True
            out = self._out
            if isinstance(frame, p.Ack):
                if out is None or frame.acked != out.seq:
                    return
                if "ackdrop" in self._pending or self._roll("ackdrop"):
                    if "ackdrop" in self._pending:
                        self._pending.remove("ackdrop")
                    self.stats.faults["ackdrop"] += 1
                    return
                self.stats.acked += 1
                if out.msg.card is not None:
                    self.stats.cards_confirmed += 1
                    if out.msg.type == p.CARD:
                        self._logline(f"acknowledged card {out.msg.card.code} seq {out.seq}")
                self._out = None
                self._idle.notify_all()
            elif isinstance(frame, p.Nak):
                if out is not None and frame.nakked == out.seq:
                    out.deadline = 0.0   # re-send now, not after the timeout
            elif isinstance(frame, p.Query):
                if out is not None:
                    # Unacknowledged (e.g. the host restarted): send it again now, same seq,
                    # with a fresh round of re-sends, before anything else.
                    out.attempts = 0
                    out.held = False
                    out.deadline = 0.0
                # HELLO then STATUS, unless they are already waiting their turn (just
                # plugged in): one identification per connection.
                if not ((out is not None and out.msg.type == p.HELLO)
                        or any(m.type == p.HELLO for m in self._queue)):
                    self._queue.append(_Msg(p.HELLO, (self.model, self.firmware,
                                                      self.serial_no)))
                    self._queue.append(_Msg(p.STATUS, (self._status,)))


def _as_cards(cards: Iterable[Card | str]) -> list[Card]:
    return [c if isinstance(c, Card) else parse_card(c) for c in cards]


def _close_quietly(wire: Wire) -> None:
    try:
        wire.close()
    except OSError as exc:  # closing a dead link can fail; it is gone either way
        log.debug("closing a wire failed: %s", exc)
