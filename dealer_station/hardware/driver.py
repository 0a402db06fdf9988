"""The host side: a device driver that owns its port in a reader thread.

One ``DeviceDriver`` per device (``ShoeDriver``, ``CardReaderDriver``). Its thread opens the
port through a factory (``serial.serial_for_url(url, ...)`` for the ``serial`` backend, an
in-memory cable for ``simulated``), reads bytes, splits them into frames with the pure
``protocol.Deframer``, answers every frame as the protocol requires, and hands typed events
to ``on_event``.

``on_event`` is called FROM THE READER THREAD, one event at a time, in order. It must be quick
and must not block on the driver: hand the event to your own thread (a queue, or a Qt signal
with a queued connection, as the UI does). An exception it raises is logged and does not stop
the driver.

Acknowledging later (``defer_ack``, in ``acks.py``). A consumer that returns from
``on_event`` has kept the event (a monitor, a test's log): the frame is answered at once, on
the reader thread. A consumer that keeps events on a thread of its own (the table service
commits them on its worker) calls ``defer_ack()`` inside ``on_event`` and gets an
``AckHandle`` for the frame behind the event; it calls ``handle.done(True)`` once the event is
committed, ``done(False)`` if nothing could be kept, from any thread, exactly once (a second
call is ignored).
``defer_ack()`` returns None for an event no frame waits on (a connection change, a link
problem, a heartbeat or device-id fault the driver found by itself) and outside ``on_event``.
A frame is answered once every handle taken for its events is done: ACKed (and counted as
the last accepted seq) if all were kept, neither ACKed nor counted if one was not or if
``on_event`` raised (handles it took before raising count as not kept).

What the driver guarantees:

- a new frame is ACKed only AFTER every event it produced is kept: ``on_event`` returned
  without taking a handle, or every handle it took is ``done(True)``. So a consumer never has
  a frame acknowledged that it did not commit. A frame whose event was not kept is not
  acknowledged and not counted (the last accepted seq, the round's cards and the device's
  identification are put back as they were), so the device's re-send is taken as new.
  Every duplicate of the last accepted frame is ACKed at once; a frame with a bad CRC, a
  damaged frame or non-ASCII bytes is NAKed when its device id and seq can still be read;
- while a frame's outcome is outstanding the reader thread keeps reading, ACKs duplicates of
  the last accepted frame, NAKs damaged frames and watches the heartbeat, but takes no other
  frame: the device sends one frame at a time, so what arrives is that frame re-sent (its
  ACK is still owed), or a device that broke stop-and-wait or restarted. Such a frame is
  neither ACKed nor delivered (a ``LinkProblem`` ``held``); the device sends it again after
  its 200 ms and it is taken then, in order, once the outstanding frame is answered;
- ACKs owed when the link closes (the port failed, the driver reconnected or was closed) are
  not written to the next link: a frame kept after its link closed still counts as the last
  accepted seq, and the device, which keeps an unacknowledged frame across a cable pull or
  a host restart, sends it again and that repeat is ACKed as a duplicate. A frame not kept
  after its link closed is simply taken when re-sent. Writes to the port (the reader
  thread's, and an ACK from the consumer's thread) are serialised by one lock;
- each seq is accepted once: a repeat of the last accepted frame is ACKed again and dropped
  (a ``LinkProblem``), so a re-sent CARD never becomes a second card; a repeat that carries a
  different card (or another message) is a ``repeat_mismatch`` fault, ACKed once the fault
  is kept and not delivered;
- ``expect_after(seq, card)`` tells a new driver which frame its consumer accepted last
  (the table service reads it from the journal at start): a frame with that seq re-sent
  after a host restart is ACKed and dropped, and the device's next frame is accepted whatever
  its seq (heartbeats and other frames acknowledged before the restart are not journaled);
- one ``DeviceIdentified`` per connection: a device answering the host's QUERY with a
  second HELLO right after its power-up HELLO is identified once;
- a gap in seq (or a seq going backwards), a device restart (HELLO out of sequence), no
  good frame for ``heartbeat_timeout`` (3 s), the open port failing, ``ERROR,MISREAD`` or any
  other device ERROR, a CRC-correct frame that makes no sense, frames from another device
  id, and (after ``start_round()`` with a deck) a card that cannot be in this deck this
  round: each is a ``DeviceFault`` event, never a silent guess;
- when the port fails or cannot be opened it retries every ``reconnect_interval`` seconds by
  itself, reporting each change of state as ``ConnectionChanged``. The last accepted seq is
  kept across a reconnect, so a frame re-sent after the link comes back is still a duplicate.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Protocol

from dealer_station.cards import Card, CardError, DeckSpec, RoundCards
from dealer_station.hardware import protocol as p
from dealer_station.hardware.acks import Ticket, delivery
from dealer_station.hardware.errors import DeviceOperationError
from dealer_station.hardware.events import (
    CardRead,
    ConnectionChanged,
    ConnectionState,
    DeviceEvent,
    DeviceFault,
    DeviceIdentified,
    DeviceStatus,
    FaultKind,
    LinkProblem,
)

log = logging.getLogger(__name__)

#: Problems worth a NAK when the device id and seq are readable: the device re-sends at once.
_NAKABLE = frozenset({p.Problem.BAD_CRC, p.Problem.NON_ASCII, p.Problem.NO_CRC,
                      p.Problem.TRUNCATED})


class Port(Protocol):
    """What the driver needs of a port: a subset of ``serial.Serial``."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes) -> int | None: ...

    def close(self) -> None: ...


EventCallback = Callable[[DeviceEvent], None]
PortFactory = Callable[[], Port]

# How a frame's seq compares with what was accepted (see DeviceDriver._classify).
_NEW, _REPEAT, _MISMATCH, _HELD = "new", "repeat", "mismatch", "held"


class DeviceDriver:
    """Reads one device. Start with ``start()``; stop with ``close()`` (joins the thread)."""

    role: ClassVar[str] = "device"

    def __init__(
        self,
        open_port: PortFactory,
        *,
        on_event: EventCallback,
        device_id: str | None = None,
        deck: DeckSpec | None = None,
        name: str | None = None,
        where: str = "",
        heartbeat_timeout: float = 3.0,
        reconnect_interval: float = 0.5,
        query_on_connect: bool = True,
        resume_after: tuple[int, str | None] | None = None,
    ) -> None:
        self._open_port = open_port
        self._on_event = on_event
        self.device_id = device_id
        self.deck = deck
        self.name = name or self.role
        self.where = where or "the port"
        self.heartbeat_timeout = heartbeat_timeout
        self.reconnect_interval = reconnect_interval
        self.query_on_connect = query_on_connect
        self._state = ConnectionState.CONNECTING
        self._state_detail = ""
        self._state_cond = threading.Condition()
        self._stop = threading.Event()
        self._write_lock = threading.Lock()
        self._round_lock = threading.Lock()
        self._round: RoundCards | None = None
        self._port: Port | None = None
        self._thread: threading.Thread | None = None
        self._seq_lock = threading.Lock()
        self._last_seq: int | None = None
        #: What the last accepted frame carried (see ``_key``); None: not a CARD (resumed).
        self._last_key: tuple[str, ...] | None = None
        self._resume: int | None = None     # expect_after(): the first frame is not gap-checked
        self._identified = False            # a DeviceIdentified was delivered this connection
        self._resume_note: int | None = None  # told once, in the next DeviceIdentified
        #: The frame whose outcome is outstanding; no other frame is taken meanwhile.
        self._pending: Ticket | None = None   # guarded by _seq_lock
        #: Told when a frame's outcome is in and its ACK written (see close()).
        self._answered = threading.Condition(self._seq_lock)
        self._closing = False                  # close() began: no new frame is taken
        self._ticket: Ticket | None = None    # the frame being delivered (reader thread)
        self._link = 0                         # counts connections; guarded by _write_lock
        self._host_seq = 0
        self._last_heard = 0.0
        #: Good frames from the device dealt with so far (see ``_on_frame``).
        self.frames_taken = 0
        self._wrong_reported = False
        self.identity: DeviceIdentified | None = None
        self.status: str | None = None
        if resume_after is not None:
            # Before the reader thread exists: a frame the device sends again at once (after
            # the QUERY on connect) must already be known as taken (see expect_after).
            self.expect_after(*resume_after)

    # ------------------------------------------------------------------ public

    def start(self) -> None:
        if self._thread is not None:
            raise DeviceOperationError(f"the {self.name} driver is already started")
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"{self.name}-driver")
        self._thread.start()

    def close(self, timeout: float = 2.0) -> None:
        """Stop reading, close the port and join the reader thread. Idempotent.

        A frame whose event its consumer is still keeping is answered first (up to
        ``timeout``), and no new frame is taken meanwhile: a card the journal kept is not
        left unacknowledged by a clean stop (the device would send it again to the next
        station, which knows it already, but the device must not be left waiting)."""
        self._closing = True
        if self._thread is not None and self._thread is not threading.current_thread():
            with self._answered:
                self._answered.wait_for(lambda: self._pending is None, timeout)
            with self._write_lock:
                pass        # an ACK being written now is on the line before the port goes
        self._stop.set()
        port = self._port
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            try:
                cancel()
            except OSError as exc:
                log.debug("cancel_read failed: %s", exc)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def state(self) -> ConnectionState:
        return self._state

    @property
    def state_detail(self) -> str:
        """Why the link is in its state, for a person (e.g. the error opening the port)."""
        return self._state_detail

    def wait_state(self, state: ConnectionState, timeout: float) -> bool:
        """Block (not on the reader thread!) until the link is in ``state``; False on timeout."""
        with self._state_cond:
            return self._state_cond.wait_for(lambda: self._state is state, timeout)

    @property
    def port(self) -> Port | None:
        """The port object while connected (for ``loop://`` rigs and diagnostics)."""
        return self._port

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start_round(self, deck: DeckSpec | None = None) -> None:
        """Begin checking cards against ``deck`` (or the driver's deck) for a new round:
        a third joker, a joker in a jokerless deck or a card already seen since this call
        becomes an ``impossible_card`` fault instead of a ``CardRead``."""
        use = deck or self.deck
        if use is None:
            raise DeviceOperationError(f"start_round() on the {self.name} needs a deck: pass "
                                       "one here or when opening the device")
        with self._round_lock:
            self._round = RoundCards(use)

    def end_round(self) -> None:
        """Stop checking cards against a round (between rounds)."""
        with self._round_lock:
            self._round = None

    def expect_after(self, seq: int, card: Card | str | None = None) -> bool:
        """The consumer already accepted (and journaled) the device's frame ``seq``; ``card``
        is the card it carried, None for a frame that was not a CARD.

        Call it before the device can be heard (right after opening it). A frame re-sent with
        that seq (the device keeps unacknowledged frames across a host restart and sends them
        again after QUERY) is then ACKed and dropped if it carries the same card, and a
        ``repeat_mismatch`` fault if not. The next frame is accepted whatever its seq: frames
        the previous host acknowledged without keeping them (heartbeats) leave a hole that is
        no loss. Returns False (and changes nothing) if this driver has already accepted a
        frame, which it then knows better than the journal.
        """
        if not 0 <= seq < p.SEQ_MODULO:
            raise DeviceOperationError(f"expect_after: seq {seq} is not 0-{p.SEQ_MODULO - 1}")
        code = card.code if isinstance(card, Card) else card
        with self._seq_lock:
            if self._last_seq is not None and self._resume is None:
                # Not a problem to tell anyone about: a device heard before the table attached
                # it (a simulated one, in the same process) has already been taken in order.
                log.debug("the %s driver already accepted seq %s; expect_after(%s) ignored",
                            self.name, self._last_seq, seq)
                return False
            self._last_seq = seq
            self._last_key = (p.CARD, code) if code is not None else None
            self._resume = seq
            self._resume_note = seq
        return True

    @property
    def last_accepted(self) -> int | None:
        """The seq of the last frame accepted (or given to ``expect_after``)."""
        return self._last_seq

    def send_query(self) -> None:
        """Ask the device for HELLO and STATUS (answers arrive as events; the HELLO is
        reported as a new identification)."""
        self._identified = False
        self._send(p.QUERY)

    # ------------------------------------------------------------------ thread

    def _emit(self, event: DeviceEvent) -> None:
        ticket = self._ticket
        delivery.ticket, delivery.taken = ticket, []
        try:
            self._on_event(event)
        except Exception:  # a consumer's bug must not stop the reader thread
            # ... but the frame behind this event was not kept: it is not acknowledged.
            log.exception("the %s event handler failed on %r", self.name, event)
            if ticket is not None:
                ticket.refuse()
                for handle in delivery.taken:   # nobody else will answer these
                    handle.done(False)
        finally:
            delivery.ticket, delivery.taken = None, []

    def _base(self) -> dict[str, Any]:
        return {"device": self.name, "device_id": self.device_id, "at": time.monotonic()}

    def _set_state(self, state: ConnectionState, detail: str) -> None:
        if state == self._state and state != ConnectionState.CONNECTED:
            return
        with self._state_cond:
            self._state = state
            self._state_detail = detail
            self._state_cond.notify_all()
        self._emit(ConnectionChanged(**self._base(), state=state, detail=detail))

    def _fault(self, kind: FaultKind, detail: str, *, seq: int | None = None,
               card: Card | None = None, device_id: str | None = None) -> None:
        base = self._base()
        if device_id is not None:
            base["device_id"] = device_id
        self._emit(DeviceFault(**base, kind=kind, detail=detail, seq=seq, card=card))

    def _run(self) -> None:
        self._emit(ConnectionChanged(**self._base(), state=ConnectionState.CONNECTING,
                                     detail=f"opening {self.where}"))
        ever_connected = False
        try:
            while not self._stop.is_set():
                try:
                    port = self._open_port()
                except (OSError, ValueError) as exc:
                    self._set_state(ConnectionState.DISCONNECTED,
                                    f"cannot open {self.where} ({exc}); retrying every "
                                    f"{self.reconnect_interval:g} s")
                    self._stop.wait(self.reconnect_interval)
                    continue
                self._port = port
                self._set_state(ConnectionState.CONNECTED,
                                f"{'re-opened' if ever_connected else 'opened'} {self.where}")
                ever_connected = True
                error = self._session(port)
                self._close_link()
                try:
                    port.close()
                except OSError as exc:
                    log.debug("closing %s failed: %s", self.where, exc)
                if error is not None and not self._stop.is_set():
                    self._fault(FaultKind.DISCONNECTED,
                                f"lost {self.where} ({error}); anything the {self.name} sent "
                                "meanwhile is lost; reconnecting by itself")
                    self._set_state(ConnectionState.DISCONNECTED,
                                    f"lost {self.where}; retrying every "
                                    f"{self.reconnect_interval:g} s")
                    self._stop.wait(self.reconnect_interval)
        finally:
            self._close_link()
            with self._state_cond:
                self._state = ConnectionState.CLOSED
                self._state_cond.notify_all()
            self._emit(ConnectionChanged(**self._base(), state=ConnectionState.CLOSED,
                                         detail=f"{self.name} driver closed"))

    def _close_link(self) -> None:
        # Under the write lock: an ACK from the consumer's thread is written before this or
        # not at all (see _ack), never to a closed port or to the next connection.
        with self._write_lock:
            self._port = None
            self._link += 1

    def _session(self, port: Port) -> OSError | None:
        """Read until the port fails (returns the error) or the driver closes (None)."""
        deframer = p.Deframer()
        self._last_heard = time.monotonic()
        self._wrong_reported = False
        self._identified = False
        try:
            if self.query_on_connect:
                self._write(port, p.QUERY)
            while not self._stop.is_set():
                data = port.read(max(1, port.in_waiting))
                if data:
                    for item in deframer.iter_feed(data):
                        if isinstance(item, p.Frame):
                            self._on_frame(port, item)
                        else:
                            self._on_problem(port, item)
                self._watchdog()
        except OSError as exc:   # serial.SerialException is an OSError too
            return exc
        return None

    def _watchdog(self) -> None:
        if self._state != ConnectionState.CONNECTED:
            return
        quiet = time.monotonic() - self._last_heard
        if quiet >= self.heartbeat_timeout:
            self._fault(FaultKind.HEARTBEAT_LOST,
                        f"nothing heard from the {self.name} for {quiet:.1f} s (heartbeat "
                        f"expected every second); check its power and cable")
            self._set_state(ConnectionState.SILENT, f"no heartbeat for {quiet:.1f} s")

    def _heard(self) -> None:
        self._last_heard = time.monotonic()
        if self._state == ConnectionState.SILENT:
            self._set_state(ConnectionState.CONNECTED, f"the {self.name} is heard again")

    # ------------------------------------------------------------------ frames

    def _next_host_seq(self) -> int:
        seq, self._host_seq = self._host_seq, p.next_seq(self._host_seq)
        return seq

    def _write(self, port: Port, kind: str, *fields: str, device_id: str | None = None) -> None:
        dev = device_id or self.device_id or p.BROADCAST_ID
        with self._write_lock:
            port.write(p.encode(dev, self._next_host_seq(), kind, *fields))

    def _send(self, kind: str, *fields: str) -> None:
        port = self._port
        if port is None:
            raise DeviceOperationError(f"the {self.name} is not connected ({self._state.value})")
        try:
            self._write(port, kind, *fields)
        except OSError as exc:
            raise DeviceOperationError(f"cannot write to {self.where}: {exc}") from exc

    def _accepts(self, device_id: str) -> bool:
        if self.device_id is None or device_id == self.device_id:
            return True
        if not self._wrong_reported:
            self._wrong_reported = True
            self._fault(FaultKind.WRONG_DEVICE,
                        f"{self.where} carries frames from device {device_id!r}, but the "
                        f"{self.name} is configured as {self.device_id!r}; check the cabling "
                        "and the device_id in the station's config", device_id=device_id)
        return False

    def _classify(self, seq: int, key: tuple[str, ...]) -> tuple[str, tuple[str, ...] | None]:
        """How a frame's seq stands, from one consistent look at the accepted state, and what
        the last accepted frame carried. A device sends one frame at a time and a serial line
        keeps bytes in order, so the only legitimate repeat is the last accepted seq."""
        with self._seq_lock:
            last, last_key, pending = self._last_seq, self._last_key, self._pending
        if last is not None and seq == last:
            same = key[0] != p.CARD if last_key is None else key[:len(last_key)] == last_key
            if same:
                return _REPEAT, last_key
        if pending is not None or self._closing:
            return _HELD, last_key
        if last is not None and seq == last:
            return _MISMATCH, last_key
        return _NEW, last_key

    def _take(self, port: Port, dev: str, seq: int, key: tuple[str, ...], *, hello: bool,
              card: Card | None, deliver: Callable[[Ticket], None]) -> None:
        """Decide on a frame's seq, then deliver it (``deliver``) if it is new.

        A repeat of the last accepted frame is ACKed again and dropped; a repeat that carries
        something else is a ``repeat_mismatch`` fault (ACKed once kept: re-sending cannot
        help), not delivered; any frame while another's outcome is outstanding is held.
        """
        verdict, last_key = self._classify(seq, key)
        if verdict == _REPEAT:
            self._write(port, p.ACK, str(seq), device_id=dev)
            self._emit(LinkProblem(**self._base(), kind="duplicate", seq=seq, action="ack",
                                   detail=f"seq {seq} already accepted; dropped"))
        elif verdict == _HELD:
            pending = self._pending
            waiting = f"seq {pending.seq}" if pending is not None else "the frame before"
            self._emit(LinkProblem(**self._base(), kind="held", seq=seq, action="wait",
                                   detail=f"{waiting} is still being kept; seq {seq} not "
                                          "answered, the device sends it again"))
        elif verdict == _MISMATCH:
            with self._delivering(port, dev, seq, key, accept=False):
                self._fault(FaultKind.REPEAT_MISMATCH,
                            f"the {self.name} sent seq {seq} again, but it now carries "
                            f"{_describe_key(key)} where the frame accepted with that seq "
                            f"carried {_describe_key(last_key)}; not taken: check the device "
                            "and the cards on the table", seq=seq, card=card, device_id=dev)
        else:
            with self._delivering(port, dev, seq, key, accept=True) as ticket:
                self._check_gap(seq, hello=hello)
                deliver(ticket)

    @contextlib.contextmanager
    def _delivering(self, port: Port, dev: str, seq: int, key: tuple[str, ...], *,
                    accept: bool) -> Iterator[Ticket]:
        """Deliver one frame's events (the body), then answer it when its outcome is in."""
        ticket = Ticket(self, port, self._link, dev, seq, key, accept=accept)
        with self._seq_lock:
            # Set before any event can be answered on another thread (see _settle).
            self._pending = ticket
        self._ticket = ticket
        try:
            yield ticket
        finally:
            self._ticket = None
            if ticket.seal():
                self._settle(ticket)

    def _check_gap(self, seq: int, *, hello: bool) -> None:
        """Report a new frame that is not the next seq: a jump forward is a gap; a jump back
        means the device restarted or reset its counter (treating those frames as repeats
        would drop them silently). The first frame after ``expect_after()`` is not checked."""
        with self._seq_lock:
            last, resume = self._last_seq, self._resume
        if last is None or resume is not None:
            return
        d = (seq - last) % p.SEQ_MODULO
        if d == 1:
            return
        if hello:
            self._fault(FaultKind.RESTARTED,
                        f"the {self.name} restarted: its sequence went from {last} to "
                        f"{seq}; a frame in flight may be lost", seq=seq)
        elif d < p.SEQ_MODULO // 2:
            self._fault(FaultKind.GAP,
                        f"{d - 1} frame(s) missing between seq {last} and {seq}; a "
                        f"card may have been lost", seq=seq)
        else:
            self._fault(FaultKind.GAP,
                        f"the sequence went back from {last} to {seq} (the "
                        f"{self.name} may have restarted); a card may have been lost "
                        "or repeated", seq=seq)

    def _settle(self, ticket: Ticket) -> None:
        """A frame's outcome is in (reader thread, or the thread of the last ``done``)."""
        kept = ticket.kept
        if not kept:
            for step in reversed(ticket.undo):
                step()
        with self._seq_lock:
            if kept and ticket.accept:
                self._last_seq = ticket.seq
                self._last_key = ticket.key
                self._resume = None
            if self._pending is ticket:
                self._pending = None
        if kept:
            self._ack(ticket)
        else:
            log.info("the %s's frame seq %s was not kept: not acknowledged, the device sends "
                     "it again", self.name, ticket.seq)
        with self._answered:
            self._answered.notify_all()

    def _ack(self, ticket: Ticket) -> None:
        with self._write_lock:
            if ticket.link != self._link:
                log.debug("the %s's frame seq %s was kept after its connection closed: the "
                          "device sends it again and that repeat is ACKed", self.name,
                          ticket.seq)
                return
            try:
                ticket.port.write(p.encode(ticket.device_id, self._next_host_seq(), p.ACK,
                                           str(ticket.seq)))
            except OSError as exc:
                if threading.current_thread() is self._thread:
                    raise     # the reader thread reconnects
                # The reader thread sees the failed port on its next read; the frame stays
                # kept and its re-send is ACKed as a duplicate.
                log.debug("ACK of the %s's seq %s not written to %s: %s", self.name,
                          ticket.seq, self.where, exc)

    def _on_frame(self, port: Port, frame: p.Frame) -> None:
        if frame.TYPE in p.HOST_TYPES:
            return  # a host message: our own echo on loop://, or another host; not for us
        if not self._accepts(frame.device_id):
            return
        self._heard()
        card = frame.card if isinstance(frame, p.CardFrame) else None
        self._take(port, frame.device_id, frame.seq, _key(frame),
                   hello=isinstance(frame, p.Hello), card=card,
                   deliver=lambda ticket: self._deliver(frame, ticket))
        # Counted once the frame is dealt with: everything the device sent before a frame
        # counted here has been delivered (tests wait on it instead of the clock).
        self.frames_taken += 1

    def _deliver(self, frame: p.Frame, ticket: Ticket) -> None:
        base = self._base()
        base["device_id"] = frame.device_id
        if isinstance(frame, p.CardFrame):
            self._on_card(frame, base, ticket)
        elif isinstance(frame, p.Status):
            self.status = frame.state
            self._emit(DeviceStatus(**base, seq=frame.seq, state=frame.state))
        elif isinstance(frame, p.Hello):
            ident = DeviceIdentified(**base, seq=frame.seq, model=frame.model,
                                     firmware=frame.firmware, serial_no=frame.serial_no,
                                     resumed_after=self._resume_note)
            old = self.identity
            same = old is not None and (old.model, old.firmware, old.serial_no) == (
                ident.model, ident.firmware, ident.serial_no)
            self.identity = ident
            if self._identified and same:
                # The answer to our QUERY right after the device's own HELLO on plugging in:
                # one identification per connection.
                self._emit(LinkProblem(**self._base(), kind="hello_repeat", seq=frame.seq,
                                       action="ack", detail="identified already on this "
                                                            "connection"))
            else:
                before = (self._identified, self._resume_note)
                self._emit(ident)
                self._identified = True
                self._resume_note = None
                # Not kept: the re-sent HELLO must identify the device (and say where the
                # driver resumed), not pass for the second HELLO of the connection.
                ticket.undo.append(lambda: self._unidentify(ticket.link, before))
        elif isinstance(frame, p.ErrorReport):
            if frame.code == p.MISREAD:
                self._fault(FaultKind.MISREAD,
                            f"a card left the {self.name} but could not be recognised "
                            f"({frame.text or 'no detail'}); find it and enter it by hand",
                            seq=frame.seq, device_id=frame.device_id)
            else:
                self._fault(FaultKind.DEVICE_ERROR,
                            f"the {self.name} reports {frame.code}: {frame.text}",
                            seq=frame.seq, device_id=frame.device_id)

    def _unidentify(self, link: int, before: tuple[bool, int | None]) -> None:
        self._resume_note = before[1]
        if link == self._link:   # a later connection identifies the device by itself
            self._identified = before[0]

    def _on_card(self, frame: p.CardFrame, base: dict[str, Any], ticket: Ticket) -> None:
        card = frame.card
        refused: CardError | None = None
        with self._round_lock:
            rnd = self._round
            if rnd is not None:
                saved = copy.deepcopy(rnd)
                try:
                    card = rnd.add(card)
                except CardError as exc:
                    refused = exc
                else:
                    # Not kept: the re-sent card must not look like a card seen twice.
                    ticket.undo.append(lambda: self._put_round_back(rnd, saved))
        if refused is not None:
            self._fault(FaultKind.IMPOSSIBLE_CARD,
                        f"the {self.name} reported {card.code}, which cannot be in this "
                        f"round: {refused}", seq=frame.seq, card=card,
                        device_id=frame.device_id)
            return
        self._emit(CardRead(**base, seq=frame.seq, card=card, position=frame.position))

    def _put_round_back(self, rnd: RoundCards, saved: RoundCards) -> None:
        with self._round_lock:
            if self._round is rnd:     # not if start_round()/end_round() replaced it since
                self._round = saved

    def _on_problem(self, port: Port, err: p.FrameError) -> None:
        readable = err.seq is not None and err.device_id is not None
        if err.kind is p.Problem.BAD_BODY:
            if readable and err.device_id is not None and err.seq is not None:
                if not self._accepts(err.device_id):
                    return
                self._heard()
                dev, seq = err.device_id, err.seq
                key = ("BAD", err.raw.decode("ascii", "replace"))
                # Re-sending cannot fix it: take it (ACK once kept) and say so, so no gap
                # follows.
                self._take(port, dev, seq, key, hello=False, card=None, deliver=lambda _: (
                    self._fault(FaultKind.BAD_FRAME,
                                f"the {self.name} sent a frame that makes no sense "
                                f"({err.detail}): {err.raw!r}", seq=seq, device_id=dev)))
            else:
                self._fault(FaultKind.BAD_FRAME, f"a frame with a correct CRC but no readable "
                            f"seq ({err.detail}): {err.raw!r}")
            return
        action = "ignored"
        if (err.kind in _NAKABLE and readable and err.device_id is not None
                and err.seq is not None
                and (self.device_id is None or err.device_id == self.device_id)):
            self._write(port, p.NAK, str(err.seq), device_id=err.device_id)
            action = "nak"
        self._emit(LinkProblem(**self._base(), kind=err.kind.value, detail=err.detail,
                               seq=err.seq, action=action))


def _key(frame: p.Frame) -> tuple[str, ...]:
    """What a frame carries, to tell a true repeat from another frame with the same seq."""
    return (frame.TYPE, *frame.fields())


def _describe_key(key: tuple[str, ...] | None) -> str:
    if key is None:
        return "no card"
    if key[0] == p.CARD:
        return f"the card {key[1]}" + (f" at position {key[2]}" if len(key) > 2 else "")
    if key[0] == "BAD":
        return "a frame that made no sense"
    return f"a {key[0]} message"


class ShoeDriver(DeviceDriver):
    """A card shoe: each CARD is the next card drawn; it has no position."""

    role = "shoe"


class CardReaderDriver(DeviceDriver):
    """A card reader: each CARD is a card played, with the seat or spot as ``position``."""

    role = "reader"


DRIVERS: dict[str, type[DeviceDriver]] = {"shoe": ShoeDriver, "reader": CardReaderDriver}
