"""Many tables of one process forwarded over one floor connection, in one thread.

Who uses it: a station host that runs several tables' journals in one process (a pit's
back-office box for electronic tables, a simulation of many tables) and
``benchmarks/bench_floor.py --tables 1000``, where a thousand tables over a few processes
must not hold a thousand connections or a thousand polling threads. A single table keeps
its own :class:`~dealer_station.floor.forwarder.Forwarder` thread, unchanged.

The protocol is the forwarder's, table by table (docs/floor.md, "The protocol"): each table
has a :class:`Forwarder` object of its own, which keeps its floor head, its acknowledged head
(``floor.behind`` after a reconnect), its ``floor.lost``/``floor.restored``/refusal state and
its local checks (each record's keyed hash and link before it leaves). What the host adds:

* one floor :class:`~dealer_station.audit.db.Database` (one connection) shared by the tables;
* one thread, woken by each local commit (the journals' ``on_commit``), with a slow poll
  and a heartbeat (an empty send) for tables that sent nothing for ``heartbeat_s``;
* batching: the pending records of up to ``tables_per_commit`` tables go in one floor
  transaction, each table's through :func:`~dealer_station.floor.receiver.receive` under the
  table's own advisory lock, as a lone forwarder sends them. If any table's batch is refused
  the transaction writes nothing and each of those tables is then sent on its own
  (:meth:`Forwarder.forward_pending`), so a refusal (or a failover's moved head) is handled
  exactly as a lone forwarder handles it and never holds up the other tables.

A table is first sent on its own (its floor head read, its whole copy compared) at the host's
start and after each reconnect; only then do its records join shared transactions.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from dealer_station.audit.db import Database, open_database
from dealer_station.audit.journal import Journal
from dealer_station.floor.forwarder import (
    BATCH,
    Forwarder,
    Link,
    LocalJournalUnreadable,
    _is_outage,
    _reason,
)
from dealer_station.floor.receiver import ChainRefused, Head, LocalState, receive

log = logging.getLogger(__name__)


class _Hosted(Forwarder):
    """A table's forwarder run by a :class:`ForwarderHost`: the host's floor connection."""

    def __init__(self, host: ForwarderHost, journal: Journal, table_id: str,
                 **kwargs: Any) -> None:
        super().__init__(journal, host.floor_url, table_id, **kwargs)
        self.host = host
        self.last_contact = 0.0

    def _open_floor(self) -> Database:
        return self.host.open_floor()

    def _close_floor(self) -> None:
        self._head = None            # read again; the host reopens the shared connection


class ForwarderHost:
    """Forwards the tables :meth:`add`-ed to it to the floor at ``floor_url`` (see module)."""

    def __init__(self, floor_url: str, *, poll_s: float = 1.0, heartbeat_s: float = 5.0,
                 backoff_s: tuple[float, float] = (0.25, 2.0), batch: int = BATCH,
                 tables_per_commit: int = 100, journal_outages: bool = True) -> None:
        self.floor_url = floor_url
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self.backoff_s = backoff_s
        self.batch = batch
        self.tables_per_commit = tables_per_commit
        self.journal_outages = journal_outages
        self.forwarders: dict[str, _Hosted] = {}
        self._floor: Database | None = None
        self._dirty: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._journals: list[Journal] = []
        #: Floor transactions committed, and records in them (for benchmarks).
        self.commits = 0
        self.records = 0

    def add(self, journal: Journal, table_id: str, *,
            on_link: Callable[[Link], None] | None = None,
            on_forwarded: Callable[[int, int, float], None] | None = None) -> Forwarder:
        """Forward ``table_id`` of ``journal``; its forwarder (for :attr:`Forwarder.link`)."""
        f = _Hosted(self, journal, table_id, journal_outages=self.journal_outages,
                    batch=self.batch, on_link=on_link, on_forwarded=on_forwarded)
        self.forwarders[table_id] = f
        if not any(j is journal for j in self._journals):
            self._journals.append(journal)
            journal.on_commit.append(self._committed)
        self._committed(table_id)
        return f

    def open_floor(self) -> Database:
        if self._floor is None:
            self._floor = open_database(self.floor_url, schema_checked=True)
        return self._floor

    def _close_floor(self) -> None:
        if self._floor is not None:
            self._floor.close()
            self._floor = None
        for f in self.forwarders.values():
            f._head = None

    def _committed(self, table_id: str) -> None:
        if table_id in self.forwarders:
            with self._lock:
                self._dirty.add(table_id)
            self._wake.set()

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="forwarder-host", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread, sending what came last first while the floor is up."""
        for j in self._journals:
            if self._committed in j.on_commit:
                j.on_commit.remove(self._committed)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_floor()

    def _take(self, everything: bool) -> list[_Hosted]:
        with self._lock:
            names = set(self.forwarders) if everything else set(self._dirty)
            self._dirty.clear()
        now = time.monotonic()
        for name, f in self.forwarders.items():
            if now - f.last_contact >= self.heartbeat_s:
                names.add(name)
        return [self.forwarders[n] for n in sorted(names)]

    def _run(self) -> None:
        delay = self.backoff_s[0]
        everything = True
        while not self._stop.is_set():
            try:
                self.forward(self._take(everything))
                everything = False
                delay = self.backoff_s[0]
                if not self._dirty:
                    self._wake.wait(self.poll_s)
                    self._wake.clear()
            except Exception as e:
                if not _is_outage(e):
                    log.exception("forwarding many tables failed")
                reason = _reason(e)
                self._close_floor()
                for f in self.forwarders.values():
                    f._lost(reason)
                everything = True
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_s[1])
        if self._floor is not None:              # the last records, while the floor is up
            try:
                self.forward(self._take(True))
            except Exception as e:
                log.warning("forwarding many tables at the stop: %s", _reason(e))

    # -- one pass ---------------------------------------------------------------------------

    def forward(self, tables: list[_Hosted]) -> int:
        """One pass over ``tables``: those not yet compared with the floor on their own, the
        others batched, ``tables_per_commit`` to a floor transaction. Records sent. An outage
        is raised (every table is then lost); a table's refusal is its own."""
        sent = 0
        fresh = [f for f in tables if f._head is None or not f._checked]
        ready = [f for f in tables if f._head is not None and f._checked]
        for f in fresh:
            sent += self._alone(f)
        for i in range(0, len(ready), self.tables_per_commit):
            sent += self._together(ready[i:i + self.tables_per_commit])
        return sent

    def _alone(self, f: _Hosted) -> int:
        try:
            n = f.forward_pending()
            if not n:
                f._contact()
        except ChainRefused as refused:
            f._refused(refused)
            return 0
        except LocalJournalUnreadable as e:
            f._set_link(Link("paused", f.link.waiting, f.link.floor_seq, str(e)))
            return 0
        f.last_contact = time.monotonic()
        f._restored()
        return n

    def _together(self, group: list[_Hosted]) -> int:
        sends: list[tuple[_Hosted, list[dict[str, Any]], str | None]] = []
        for f in group:
            assert f._head is not None
            try:
                rows = f._pending(f._head.seq, self.batch)
            except LocalJournalUnreadable as e:
                f._set_link(Link("paused", f.link.waiting, f.link.floor_seq, str(e)))
                continue
            rows, bad = f._check_local(rows, f._head)
            if bad is not None and not rows:
                self._alone(f)             # refused and said as a lone forwarder does
                continue
            if len(rows) >= self.batch or bad is not None:
                self._committed(f.table_id)          # more to send at the next pass
            pending = rows[0] if rows else None
            sends.append((f, rows, str(pending["ts"]) if pending else None))
        if not sends:
            return 0
        heads: list[tuple[_Hosted, list[dict[str, Any]], Head, LocalState]] = []
        floor = self.open_floor()
        try:
            with floor.write() as conn:
                for f, rows, since in sends:
                    seen: list[LocalState] = []
                    head = receive(conn, f.table_id, rows,
                                   functools.partial(_state, f, since, seen))
                    heads.append((f, rows, head, seen[0]))
        except ChainRefused:
            # Nothing was written: each table on its own, as a lone forwarder sends.
            return sum(self._alone(f) for f, _, _ in sends)
        committed = time.time()
        self.commits += 1
        sent = 0
        for f, rows, head, local in heads:
            f._head = head
            f._acknowledged(head)
            f.last_contact = time.monotonic()
            f._set_link(Link("online", max(0, local.head_seq - head.seq), head.seq))
            if rows and f.on_forwarded is not None:
                f.on_forwarded(int(rows[0]["seq"]), int(rows[-1]["seq"]), committed)
            sent += len(rows)
            f._restored()
        self.records += sent
        return sent


def _state(f: Forwarder, since: str | None, seen: list[LocalState]) -> LocalState:
    state = f._state(since)
    seen.append(state)
    return state
