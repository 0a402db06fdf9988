"""The table's side of the regulator's witness: push each signed checkpoint to every witness the
station is told of, straight from the table (no floor database stands between them).

Each signed checkpoint (``audit/checkpoint_signing.py``) wakes the pusher's thread, which sends
the newest checkpoint of each chain with the consistency proof from the size the witness last
cosigned (``witness/client.py``: ``push`` learns that size when it does not know it). Then:

- **cosigned**: the cosigned note is kept in the ``cosignatures`` table (what reports carry);
- **refused** (409: the journal disagrees with what the witness cosigned): journaled once per
  witness as the significant event ``witness.refused`` on the chain, with the origin, the size
  and the witness's reason; shown on the supervisor's screen and in the pit. It is never retried
  for that checkpoint; a later checkpoint is tried again and, while the disagreement lasts, is
  refused again without a second record;
- **unreachable**: retried with a capped backoff while the table deals on; once it has been so
  for ``alert_after_s``, journaled once as ``witness.unreachable``, and ``witness.restored``
  when it answers again.

``flush`` waits (bounded) until every chain's newest checkpoint has an answer from every
witness: a command that ends (``simulate``) waits for its pushes.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select

from dealer_station.audit import merkle, schema
from dealer_station.audit.checkpoint_signing import SignedCheckpoint
from dealer_station.audit.journal import Entry, Journal, JournalError
from dealer_station.audit.merkle_store import node_source
from dealer_station.audit.notes import Verifier
from dealer_station.events import Event
from dealer_station.events.station import WitnessRefused, WitnessRestored, WitnessUnreachable
from dealer_station.witness import client

log = logging.getLogger(__name__)
ACTOR = "station/witness"
C = schema.cosignatures


@dataclass(frozen=True)
class WitnessConfig:
    url: str
    key: Verifier


@dataclass
class WitnessStatus:
    """What one witness last said, for the device bar, the supervisor and tests."""

    url: str
    name: str
    state: str = "waiting"          # waiting, ok, unreachable, refused
    detail: str = ""
    cosigned: dict[str, int] = field(default_factory=dict)    # chain -> size cosigned
    refused: dict[str, str] = field(default_factory=dict)     # chain -> why
    unreachable_since: float | None = None


class WitnessPusher:
    """Pushes one journal's signed checkpoints to its witnesses, on a thread of its own."""

    def __init__(self, journal: Journal, witnesses: Sequence[WitnessConfig], *,
                 alert_after_s: float = 300.0, backoff_s: tuple[float, float] = (0.5, 30.0),
                 timeout_s: float = 10.0,
                 on_change: Callable[[WitnessStatus], None] | None = None) -> None:
        self.journal = journal
        self.witnesses = list(witnesses)
        self.alert_after_s = alert_after_s
        self.backoff_s = backoff_s
        self.timeout_s = timeout_s
        self.on_change = on_change
        self.status = {w.url: WitnessStatus(w.url, w.key.name) for w in self.witnesses}
        self._alerted: set[str] = set()          # urls whose unreachability was journaled
        self._latest: dict[str, SignedCheckpoint] = {}
        self._cond = threading.Condition()
        self._stop = False
        self._busy = False
        self._thread: threading.Thread | None = None
        for url, st in self.status.items():
            st.cosigned.update(self._cosigned_sizes(url))

    # -- running ----------------------------------------------------------------------------

    def start(self) -> None:
        for table_id in self.journal.tables():
            latest = self.journal.signing.latest(table_id)
            if latest is not None:
                self._latest[table_id] = latest
        self.journal.signing.listeners.append(self._signed)
        self._thread = threading.Thread(target=self._run, daemon=True, name="witness-push")
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        if self._signed in self.journal.signing.listeners:
            self.journal.signing.listeners.remove(self._signed)
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def _signed(self, signed: SignedCheckpoint) -> None:
        with self._cond:
            known = self._latest.get(signed.table_id)
            if known is None or signed.size > known.size:
                self._latest[signed.table_id] = signed
            self._cond.notify_all()

    def _due(self) -> list[tuple[WitnessConfig, SignedCheckpoint]]:
        out = []
        for w in self.witnesses:
            st = self.status[w.url]
            for table_id, cp in self._latest.items():
                if st.cosigned.get(table_id, 0) < cp.size and \
                        st.refused.get(table_id) != f"size {cp.size}":
                    out.append((w, cp))
        return out

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until every witness has answered the newest checkpoint of every chain (or is
        unreachable); False if that took longer than ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._cond.notify_all()
            while True:
                pending = [w for w, _cp in self._due()
                           if self.status[w.url].state != "unreachable"]
                if not pending and not self._busy:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))

    def _run(self) -> None:
        delay = self.backoff_s[0]
        while True:
            with self._cond:
                while not self._stop and not self._due():
                    self._cond.wait(5.0)
                if self._stop:
                    return
                work = self._due()
                self._busy = True
            unreachable = False
            try:
                for w, cp in work:
                    unreachable |= not self._push(w, cp)
            except Exception:      # a bug must not stop the table; said in the log
                log.exception("pushing checkpoints to the witnesses failed")
                unreachable = True
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
            if unreachable:
                with self._cond:
                    self._cond.wait_for(lambda: self._stop, delay)
                delay = min(delay * 2, self.backoff_s[1])
            else:
                delay = self.backoff_s[0]

    # -- one push ---------------------------------------------------------------------------

    def _prove(self, table_id: str) -> Callable[[int], list[bytes]]:
        def prove(old: int) -> list[bytes]:
            size = self._latest[table_id].size
            with self.journal.db.read() as conn:
                return merkle.consistency_proof(node_source(conn, table_id), old, size)
        return prove

    def _push(self, w: WitnessConfig, cp: SignedCheckpoint) -> bool:
        """Push one checkpoint to one witness; False if the witness could not be reached."""
        st = self.status[w.url]
        old = st.cosigned.get(cp.table_id, 0)
        got = client.push(w.url, cp.note, old, self._prove(cp.table_id), witness=w.key,
                          timeout=self.timeout_s)
        if isinstance(got, client.Cosigned):
            self._keep(w, cp, got.note)
            st.cosigned[cp.table_id] = cp.size
            st.refused.pop(cp.table_id, None)
            self._set(st, "ok", f"cosigned {cp.origin} at size {cp.size}")
            if w.url in self._alerted:
                self._alerted.discard(w.url)
                self._journal(cp.table_id, WitnessRestored(w.key.name, w.url))
            st.unreachable_since = None
            return True
        if isinstance(got, client.Refused):
            first = cp.table_id not in st.refused
            st.refused[cp.table_id] = f"size {cp.size}"
            self._set(st, "refused", f"{cp.origin} at size {cp.size}: {got.reason}")
            log.error("witness %s refused %s at size %d: %s", w.key.name, cp.origin, cp.size,
                      got.reason)
            if first:
                self._journal(cp.table_id, WitnessRefused(
                    w.key.name, w.url, cp.origin, cp.size, got.status, got.reason))
            return True
        why = got.why if isinstance(got, client.Unreachable) else \
            f"answered with size {got.size} twice"
        now = time.monotonic()
        if st.unreachable_since is None:
            st.unreachable_since = now
        self._set(st, "unreachable", why)
        if now - st.unreachable_since >= self.alert_after_s and w.url not in self._alerted:
            self._alerted.add(w.url)
            self._journal(cp.table_id, WitnessUnreachable(
                w.key.name, w.url, why, round(now - st.unreachable_since)))
        return False

    def _keep(self, w: WitnessConfig, cp: SignedCheckpoint, note: str) -> None:
        try:
            with self.journal.db.write() as conn:
                exists = conn.execute(select(func.count()).select_from(C).where(
                    C.c.table_id == cp.table_id, C.c.witness == w.key.name,
                    C.c.size == cp.size)).scalar()
                if not exists:
                    conn.execute(C.insert().values(table_id=cp.table_id, witness=w.key.name,
                                                   size=cp.size, note=note,
                                                   ts=self.journal.now()))
        except Exception:
            log.exception("a cosignature of %s could not be kept", cp.origin)

    def _cosigned_sizes(self, url: str) -> dict[str, int]:
        name = next(w.key.name for w in self.witnesses if w.url == url)
        with self.journal.db.read() as conn:
            rows = conn.execute(select(C.c.table_id, func.max(C.c.size))
                                .where(C.c.witness == name).group_by(C.c.table_id)).all()
        return {t: int(n) for t, n in rows}

    def _journal(self, table_id: str, event: Event) -> None:
        try:
            self.journal.write(table_id, [Entry(event, ACTOR)])
        except JournalError:
            log.exception("could not journal %s", event.KIND)

    def _set(self, st: WitnessStatus, state: str, detail: str) -> None:
        changed = (st.state, st.detail) != (state, detail)
        st.state, st.detail = state, detail
        if changed and self.on_change is not None:
            self.on_change(st)
