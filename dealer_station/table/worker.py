"""The table's own worker thread: device events kept in arrival order, off the reader threads.

A device driver's reader thread must stay free to read the line (answer duplicates, NAK
damage, watch the heartbeat), so ``TableService.on_device_event`` only hands each event over
(``submit``) and returns. This thread then does what the table does with a device event, one
event at a time, in the order they were handed over (a FIFO shared by every device of the
table), and answers the device's frame afterwards: ``done(True)`` once the event's records are
committed (the driver then ACKs the frame), ``done(False)`` if nothing could be journaled (the
frame is not ACKed and the device sends it again).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from dealer_station.hardware.acks import AckHandle
from dealer_station.hardware.events import DeviceEvent

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Job:
    event: DeviceEvent
    ack: AckHandle | None


class TableWorker:
    """One thread per table, started by the first event; ``stop()`` drains and ends it.

    ``keep(event)`` is run for each event on this thread; it returns once what the event says
    is committed, and raises if nothing could be (then the frame is not acknowledged).
    """

    def __init__(self, keep: Callable[[DeviceEvent], None], *, name: str) -> None:
        self._keep = keep
        self.name = name
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._waiting = 0               # jobs submitted and not finished; guarded by _lock
        self._thread: threading.Thread | None = None
        self._stopped = False

    def submit(self, event: DeviceEvent, ack: AckHandle | None) -> None:
        """Queue ``event`` (any thread; returns at once). ``ack`` is answered after it."""
        with self._lock:
            if self._stopped:
                refused = True
            else:
                refused = False
                self._waiting += 1
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, daemon=True,
                                                    name=self.name)
                    self._thread.start()
                self._queue.put(_Job(event, ack))
        if refused:
            # A driver still running after the table shut down: nothing can be journaled.
            log.warning("%s is stopped: %s not kept", self.name, event.describe())
            if ack is not None:
                ack.done(False)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every event submitted so far is kept (or refused). False on timeout.
        Not from the worker itself, nor while holding what ``keep`` needs (the table lock)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._waiting == 0, timeout)

    def stop(self, timeout: float | None = None) -> bool:
        """Refuse new events, keep those already queued, end the thread. Idempotent.
        False if the queue was not drained within ``timeout``."""
        with self._lock:
            thread = None if self._stopped else self._thread
            self._stopped = True
            if thread is not None:
                self._queue.put(None)      # after every job already queued
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        return not thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            ok = False
            try:
                self._keep(job.event)
                ok = True
            except Exception:
                # The table has said what went wrong (its listeners, its journal when it
                # could); here the frame is just not acknowledged.
                log.exception("%s could not keep %s", self.name, job.event.describe())
            finally:
                if job.ack is not None:
                    job.ack.done(ok)
                with self._idle:
                    self._waiting -= 1
                    self._idle.notify_all()
