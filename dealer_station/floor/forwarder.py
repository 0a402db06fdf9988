"""The table's side of forwarding: ship every record of the table's chain, in order, to the
floor database, and never make the table wait for it.

The table's own journal (SQLite at a table) is the only thing a round waits for. The
forwarder reads what the floor lacks from that journal, checks each record's keyed hash and
link before it leaves (a record edited in the table's database is never forwarded), and
hands batches to :func:`receiver.receive` in one floor transaction each. When the floor
cannot be reached it says so (``floor.lost``, journaled in the table's own chain, and later
``floor.restored``), retries with a capped backoff and catches up by itself; a re-send after
any failure is harmless, because the floor takes only what extends its copy.

After any reconnect the forwarder reads the floor's head again and compares it with the last
head the floor acknowledged (a committed batch). A floor behind it lost records it had taken:
a failover to a standby that lacked them (asynchronous replication), or a floor restored from
an older copy. That is journaled in the table's own chain (``floor.behind``: the floor's head,
the head it had acknowledged, the number lost) and the table sends them again from the
floor's head. (The acknowledged head is the forwarder's, from its start: a loss while the
station was stopped is seen by ``audit verify --floor`` and ``floor status``, not here.)

Only the table's own stream is forwarded (the station's local ``station`` stream of users has
the same name at every table: it stays local).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exc as sa_exc
from sqlalchemy import select

from dealer_station.audit import schema
from dealer_station.audit.db import Database, DatabaseError, db_reason, mask_url, open_database
from dealer_station.audit.journal import Entry, Journal, JournalError
from dealer_station.errors import StationError
from dealer_station.events import Event
from dealer_station.events.station import FloorBehind, FloorLost, FloorRefused, FloorRestored
from dealer_station.floor.receiver import (
    COLUMNS,
    ChainRefused,
    Head,
    LocalState,
    floor_head,
    note_refusal,
    receive,
)

log = logging.getLogger(__name__)
J = schema.journal
ACTOR = "station/floor"
#: The station's own stream of users: it has this name at every table, so it stays local.
LOCAL_ONLY = ("station",)
BATCH = 500


def forwarded_tables(tables: list[str]) -> list[str]:
    """Of a journal's streams, those a table forwards to the floor."""
    return [t for t in tables if t not in LOCAL_ONLY]


class LocalJournalUnreadable(StationError):
    """The table's own journal could not be read: not the floor's fault, so no ``floor.lost``
    (the table service reports its own journal's trouble)."""


class FloorUnreachable(StationError):
    """The floor database cannot be reached or used (down, network cut, credentials)."""


@dataclass(frozen=True)
class Link:
    """The forwarder's state, for the device bar and ``floor sync``."""

    state: str            # "starting", "online", "offline", "refused" or "paused"
    waiting: int          # local records the floor does not hold yet, as last known
    floor_seq: int        # the floor's head, as last known
    detail: str = ""      # why offline or refused, for a person

    def text(self) -> str:
        """The device bar's words."""
        if self.state == "online":
            return "floor online" + (f", {self.waiting} records waiting"
                                     if self.waiting else "")
        if self.state == "offline":
            return f"floor offline, {self.waiting} records waiting"
        if self.state == "refused":
            return "floor refused this table's journal"
        if self.state == "paused":
            return "floor: paused (the table's journal cannot be read)"
        return "floor: connecting"


def _is_outage(e: BaseException) -> bool:
    return isinstance(e, FloorUnreachable | DatabaseError | sa_exc.DBAPIError
                      | sa_exc.InterfaceError | OSError)


def _reason(e: BaseException) -> str:
    if isinstance(e, sa_exc.DBAPIError):
        return db_reason(e)
    return str(e) or type(e).__name__


class Forwarder:
    """Forwards table ``table_id`` of ``journal`` to the floor at ``floor_url``.

    :meth:`start` runs it in a thread of its own (the station); :meth:`sync` runs passes
    until the floor holds everything (``floor sync``, ``simulate --floor``). ``on_link`` is
    called from the forwarder's thread whenever :attr:`link` changes; ``on_forwarded`` with
    the records' seqs and the floor's commit time after each accepted batch (benchmarks).
    """

    def __init__(self, journal: Journal, floor_url: str, table_id: str, *,
                 journal_outages: bool = True, poll_s: float = 1.0, heartbeat_s: float = 5.0,
                 backoff_s: tuple[float, float] = (0.25, 2.0), batch: int = BATCH,
                 on_link: Callable[[Link], None] | None = None,
                 on_forwarded: Callable[[int, int, float], None] | None = None) -> None:
        self.journal = journal
        self.floor_url = floor_url
        self.shown_url = mask_url(floor_url)
        self.table_id = table_id
        self.journal_outages = journal_outages
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self.backoff_s = backoff_s
        self.batch = batch
        self.on_link = on_link
        self.on_forwarded = on_forwarded
        self.link = Link("starting", 0, 0)
        self._floor: Database | None = None
        self._head: Head | None = None          # the floor's head, once read
        self._acked: Head | None = None         # the highest head the floor acknowledged
        #: The losses found after reconnects (each journaled as floor.behind).
        self.behind: list[FloorBehind] = []
        self._checked = False                  # the whole copy compared once per start
        self._lost_journaled = False
        self._refusal_journaled: str | None = None
        self._refusal_noted: tuple[str, float] | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        self.journal.on_commit.append(self._committed)
        self._thread = threading.Thread(target=self._run, name=f"forwarder-{self.table_id}",
                                        daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Something was committed locally: forward it now rather than at the next poll."""
        self._wake.set()

    def _committed(self, table_id: str) -> None:
        if table_id == self.table_id:
            self._wake.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread; while the floor is up, send what came last (a station's
        shutdown record) first."""
        if self._committed in self.journal.on_commit:
            self.journal.on_commit.remove(self._committed)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self.link.state == "online" and not self._thread.is_alive():
                with contextlib.suppress(Exception):
                    self.forward_pending()
        self._close_floor()

    def _run(self) -> None:
        delay = self.backoff_s[0]
        last_contact = 0.0
        while not self._stop.is_set():
            try:
                sent = self.forward_pending()
                if sent or time.monotonic() - last_contact >= self.heartbeat_s:
                    if not sent:
                        self._contact()
                    last_contact = time.monotonic()
                delay = self.backoff_s[0]
                self._restored()
                self._wake.wait(self.poll_s)
                self._wake.clear()
            except ChainRefused as refused:
                self._refused(refused)
                self._stop.wait(max(self.backoff_s[1], 5.0))
            except LocalJournalUnreadable as e:
                log.warning("table %s: not forwarding for now: %s", self.table_id, e)
                self._set_link(Link("paused", self.link.waiting, self.link.floor_seq, str(e)))
                self._stop.wait(self.backoff_s[1])
            except Exception as e:
                if not _is_outage(e):
                    # Never die in silence: say it, keep the table dealing, try again.
                    log.exception("table %s: forwarding failed", self.table_id)
                self._lost(_reason(e))
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_s[1])

    def sync(self, timeout_s: float | None = None) -> Link:
        """Forward until the floor holds everything the table had when this was called.
        Raises :class:`FloorUnreachable` or :class:`ChainRefused` (recorded at the floor)."""
        target = self._local_head()[0]
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            try:
                self.forward_pending()
                self._contact()
            except ChainRefused as refused:
                self._refused(refused)
                raise
            except Exception as e:
                if not _is_outage(e):
                    raise
                self._close_floor()
                raise FloorUnreachable(f"the floor database {self.shown_url} cannot be "
                                       f"reached: {_reason(e)}") from None
            assert self._head is not None
            if self._head.seq >= target:
                self._set_link(Link("online", max(0, self._local_head()[0] - self._head.seq),
                                    self._head.seq))
                return self.link
            if deadline is not None and time.monotonic() > deadline:
                raise FloorUnreachable(f"the floor {self.shown_url} did not take table "
                                       f"{self.table_id}'s records in time")

    # -- one pass ---------------------------------------------------------------------------

    def _open_floor(self) -> Database:
        if self._floor is None:
            self._floor = open_database(self.floor_url)
        return self._floor

    def _close_floor(self) -> None:
        if self._floor is not None:
            self._floor.close()
            self._floor = None
        self._head = None

    def forward_pending(self) -> int:
        """Send what the floor lacks, batch by batch; the number of records it took."""
        floor = self._open_floor()
        if self._head is None:
            with floor.read() as conn:
                head = floor_head(conn, self.table_id)
            self._compare_with_acknowledged(head)
            self._head = head
        if not self._checked:
            self.compare_copy()
            self._checked = True
        sent = 0
        while True:
            rows = self._pending(self._head.seq, self.batch)
            local_seq = self._local_head()[0]
            self._set_link(Link(self.link.state if self.link.state != "starting" else "online",
                                max(0, local_seq - self._head.seq), self._head.seq,
                                self.link.detail))
            if not rows and local_seq >= self._head.seq:
                return sent
            rows, bad = self._check_local(rows, self._head)
            if bad is not None and not rows:
                raise bad
            since = str(rows[0]["ts"]) if rows else None
            try:
                with floor.write() as conn:
                    head = receive(conn, self.table_id, rows,
                                   functools.partial(self._state, since))
            except ChainRefused:
                if self._moved():
                    continue             # another server (a failover): not a refusal
                self._head = None
                raise
            except BaseException:
                self._head = None        # read it again: the floor may have moved on
                raise
            committed = time.time()
            self._head = head
            self._acknowledged(head)
            if rows and self.on_forwarded is not None:
                self.on_forwarded(int(rows[0]["seq"]), int(rows[-1]["seq"]), committed)
            sent += len(rows)
            if not rows:
                return sent

    def _moved(self) -> bool:
        """Whether the floor's head is no longer the one this forwarder last read: a
        connection the pool replaced reached another server (the promoted standby of a
        failover) without an outage to say so. Then compared as after any reconnect
        (``floor.behind``) and sent from there, instead of refused."""
        floor = self._open_floor()
        with floor.read() as conn:
            head = floor_head(conn, self.table_id)
        if self._head is None or head == self._head:
            return False
        self._compare_with_acknowledged(head)
        self._head = head
        return True

    def _contact(self) -> None:
        """An empty send: the floor learns the table is there and how far it is."""
        floor = self._open_floor()
        pending = self._pending(self._head.seq if self._head else 0, 1)
        since = str(pending[0]["ts"]) if pending else None
        reconnected = self._head is None
        with floor.write() as conn:
            head = receive(conn, self.table_id, [], lambda: self._state(since))
        if reconnected:
            self._compare_with_acknowledged(head)
        self._head = head
        self._acknowledged(head)

    def _acknowledged(self, head: Head) -> None:
        if self._acked is None or head.seq > self._acked.seq:
            self._acked = head

    def _compare_with_acknowledged(self, head: Head) -> None:
        """The floor's head as read again after a reconnect, against what it had taken: a
        floor behind lost records it acknowledged (journaled; the table re-sends them)."""
        acked = self._acked
        if acked is None or head.seq >= acked.seq:
            return
        said = FloorBehind(self.shown_url, head.seq, acked.seq, acked.seq - head.seq)
        log.error("table %s: the floor %s lost %d records it had taken (it holds up to %d, "
                  "had taken up to %d); sending them again", self.table_id, self.shown_url,
                  said.lost, head.seq, acked.seq)
        self._journal(said)          # a JournalError: tried again at the next reconnect
        self.behind.append(said)
        self._acked = head

    def _state(self, pending_since: str | None) -> LocalState:
        """The table's head, read under the floor's lock for the table (see receive)."""
        seq, h, _ = self._local_head()
        return LocalState(seq, h, pending_since)

    def _local_head(self) -> tuple[int, str | None, str | None]:
        try:
            with self.journal.db.read() as conn:
                row = conn.execute(select(J.c.seq, J.c.hash, J.c.ts)
                                   .where(J.c.table_id == self.table_id)
                                   .order_by(J.c.seq.desc()).limit(1)).first()
        except sa_exc.SQLAlchemyError as e:
            raise LocalJournalUnreadable(f"the table's journal cannot be read: "
                                         f"{_reason(e)}") from None
        return (0, None, None) if row is None else (int(row[0]), row[1], row[2])

    def _pending(self, after: int, limit: int) -> list[dict[str, Any]]:
        try:
            with self.journal.db.read() as conn:
                result = conn.execute(select(*[J.c[c] for c in COLUMNS])
                                      .where(J.c.table_id == self.table_id, J.c.seq > after)
                                      .order_by(J.c.seq).limit(limit))
                return [dict(r._mapping) for r in result]
        except sa_exc.SQLAlchemyError as e:
            raise LocalJournalUnreadable(f"the table's journal cannot be read: "
                                         f"{_reason(e)}") from None

    def _check_local(self, rows: list[dict[str, Any]], head: Head
                     ) -> tuple[list[dict[str, Any]], ChainRefused | None]:
        """The rows that may leave, and why the next may not: each record sent carries the
        key's hash of its own content and links to the one before it, so a record edited in
        the table's database never leaves it (those before it still go)."""
        prev = head.hash if head.seq else self.journal.genesis(self.table_id)
        for i, r in enumerate(rows):
            if not self.journal.row_is_authentic(r):
                return rows[:i], ChainRefused(
                    self.table_id, f"the table's record {r['seq']} fails its keyed hash "
                                   f"(edited in the table's database); it was not forwarded",
                    int(r["seq"]))
            if r["prev_hash"] != prev:
                return rows[:i], ChainRefused(
                    self.table_id, f"the table's record {r['seq']} does not link to the "
                                   f"record before it; it was not forwarded", int(r["seq"]))
            prev = r["hash"]
        return rows, None

    def compare_copy(self) -> None:
        """The floor's copy against the table's, record by record (at each start): a local
        journal rewritten, cut short or edited since it was forwarded is refused."""
        for problem in compare(self.journal, self._open_floor(), self.table_id):
            raise ChainRefused(self.table_id, problem.reason, problem.seq)

    # -- what the table and the floor are told ----------------------------------------------

    def _set_link(self, link: Link) -> None:
        if link != self.link:
            self.link = link
            if self.on_link is not None:
                self.on_link(link)

    def _lost(self, reason: str) -> None:
        self._close_floor()
        try:
            local_seq = self._local_head()[0]
        except LocalJournalUnreadable:
            local_seq = self.link.floor_seq + self.link.waiting
        waiting = max(0, local_seq - self.link.floor_seq)
        if not self._lost_journaled and self.journal_outages:
            try:
                self._journal(FloorLost(self.shown_url, reason, self.link.floor_seq))
                self._lost_journaled = True
                waiting += 1
            except JournalError as e:        # tried again at the next failure
                log.warning("table %s: floor.lost not journaled: %s", self.table_id, e)
        self._set_link(Link("offline", waiting, self.link.floor_seq, reason))

    def _restored(self) -> None:
        if self._lost_journaled:
            self._lost_journaled = False
            self._journal(FloorRestored(self.shown_url, self.link.floor_seq))
            self.wake()
        if self.link.state != "online":
            self._set_link(Link("online", self.link.waiting, self.link.floor_seq))

    def _refused(self, refused: ChainRefused) -> None:
        # Noted at the floor once per reason, and again each minute while it lasts (the
        # forwarder keeps trying, in case the table's journal is put right).
        noted = self._refusal_noted
        if noted is None or noted[0] != refused.reason or time.monotonic() - noted[1] > 60:
            try:
                floor = self._open_floor()
                with floor.write() as conn:
                    note_refusal(conn, refused)
                self._refusal_noted = (refused.reason, time.monotonic())
            except Exception as e:
                if not _is_outage(e):
                    raise
        self._close_floor()
        self._checked = False
        if self._refusal_journaled != refused.reason and self.journal_outages:
            self._refusal_journaled = refused.reason
            # (If the local journal itself is what is broken, the floor has the refusal.)
            with contextlib.suppress(JournalError):
                self._journal(FloorRefused(self.shown_url, refused.reason, refused.seq))
        self._set_link(Link("refused", self.link.waiting, self.link.floor_seq, refused.reason))

    def _journal(self, event: Event) -> None:
        self.journal.write(self.table_id, [Entry(event, ACTOR)])


@dataclass(frozen=True)
class CopyProblem:
    """Where a table's journal and the floor's copy of it part."""

    seq: int
    reason: str


def _rows(db: Database, table_id: str) -> Iterator[tuple[Any, ...]]:
    stmt = select(*[J.c[c] for c in COLUMNS]).where(J.c.table_id == table_id).order_by(J.c.seq)
    with db.engine.connect() as conn:
        for row in conn.execution_options(yield_per=2000).execute(stmt):
            yield tuple(row)


def compare(journal: Journal, floor: Database, table_id: str) -> list[CopyProblem]:
    """Every record the floor holds for ``table_id`` against the table's own journal: the
    first one missing or different locally, and a local journal shorter than the floor's
    copy. (Local records the floor lacks yet are not a problem: they are on their way.)"""
    local = _rows(journal.db, table_id)
    for held in _rows(floor, table_id):
        mine = next(local, None)
        seq = int(held[1])
        if mine is None:
            return [CopyProblem(seq, f"the table's journal ends before record {seq}, which the "
                                     f"floor holds (the local journal was cut short)")]
        if int(mine[1]) != seq:
            return [CopyProblem(seq, f"the table's journal has no record {seq}, which the "
                                     f"floor holds (records were removed locally)")]
        if mine != held:
            fields = [c for c, a, b in zip(COLUMNS, mine, held, strict=True) if a != b]
            return [CopyProblem(seq, f"the table's record {seq} differs from the floor's "
                                     f"copy in {', '.join(fields)} (edited or rewritten "
                                     f"since it was forwarded)")]
    return []
