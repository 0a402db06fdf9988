"""The journal verification a report prints on its last page.

A report states whether the table's whole chain verifies under the key, as
``dealer-station audit verify`` would say it (:meth:`Journal.verify`). Walking a chain costs
about 4 microseconds a record, which on a big journal (100,000 rounds are 2.2 million records)
is longer than building the report itself. So for a big chain the walk is split into
consecutive ranges of records checked at the same time in separate processes (one per core)
while the report reads its figures:

- each range checks, for every record, that its number follows the one before, that its
  ``prev_hash`` equals the stored hash of the record before it (for record 1, the genesis
  hash), and that its keyed hash recomputes (:func:`dealer_station.audit.hashing.record_hash`);
- since every range also checks the stored hash of the record before its first, and the range
  before it proves that stored hash authentic, the ranges together check exactly what one walk
  from record 1 checks;
- every checkpoint of the table (anchor file and database) must name a checked record with
  the same hash.

When all of that holds, the chain is intact, and the result says so. When anything does not
hold, the report does not describe the problem itself: it runs :meth:`Journal.verify`, so a
failure reads exactly as ``audit verify`` reports it.

Two things make a big chain's report cheaper without checking any less:
- each range reads its records a run at a time, and a run whose digest the verification of an
  earlier report remembered (:mod:`~dealer_station.reports.verified_memo`) holds exactly the
  records checked then: only its link to the record before it is checked again;
- a report may give the ranges a collector (``collect``) that each range feeds the records it
  reads, so that the report's figures are summed in the same read
  (:mod:`~dealer_station.reports.shift_tally`); they are used only when the chain is intact.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from sqlalchemy import select

from dealer_station.audit import schema
from dealer_station.audit.hashing import table_record_hasher
from dealer_station.audit.journal import Journal, VerifyResult
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.raw_rows import raw_batches
from dealer_station.errors import StationError
from dealer_station.reports.verified_memo import (
    CHUNK,
    chunk_digest,
    load_memo,
    memo_path,
    save_memo,
)

#: Chains longer than this are checked in parallel (starting processes costs ~0.5 s).
BACKGROUND_ABOVE_RECORDS = 150_000

J = schema.journal


def _secret(journal: Journal) -> bytes:
    key = journal.key
    return key.secret if isinstance(key, JournalKey) else bytes(key)


def check_range(journal: Journal, table_id: str, lo: int, hi: int,
                memo: Mapping[int, str] | None = None, chunk: int = CHUNK
                ) -> tuple[bool, str | None]:
    """Check records ``lo..hi`` of a table (see the module's description).

    Returns (intact, hash of record ``hi``).
    """
    intact, head, _, _ = check_chunks(journal, table_id, lo, hi, memo or {}, chunk)
    return intact, head


def check_chunks(journal: Journal, table_id: str, lo: int, hi: int, memo: Mapping[int, str],
                 chunk: int, feed: Callable[[list[tuple[Any, ...]]], None] | None = None
                 ) -> tuple[bool, str | None, dict[int, str], int]:
    """:func:`check_range`, read a run of ``chunk`` records at a time: a whole run whose
    digest is in ``memo`` holds exactly records already checked, and only its link to the
    record before it is checked again (:mod:`~dealer_station.reports.verified_memo`).

    Returns (intact, hash of record ``hi``, the digest of every whole run read, how many
    records the memo confirmed). ``feed`` is given every run read, once it is checked.
    """
    hasher = table_record_hasher(_secret(journal), table_id)
    if lo == 1:
        prev = journal.genesis(table_id)
    else:
        with journal.db.read() as conn:
            before = conn.execute(select(J.c.hash).where(J.c.table_id == table_id,
                                                         J.c.seq == lo - 1)).scalar()
        if before is None:
            return False, None, {}, 0
        prev = str(before)
    expected = lo
    digests: dict[int, str] = {}
    confirmed = 0
    first = (lo - 1) // chunk
    for run in range(first, (hi - 1) // chunk + 1):
        a, b = max(lo, run * chunk + 1), min(hi, (run + 1) * chunk)
        rows: list[tuple[Any, ...]] = []
        for batch in raw_batches(journal, table_id, seqs=(a, b), size=chunk,
                                 cursor="report_verify"):
            rows += batch
        whole = a == run * chunk + 1 and b == (run + 1) * chunk and len(rows) == chunk
        digest = chunk_digest(rows) if whole else None
        if digest is not None and memo.get(run) == digest:
            # The same records, byte for byte, as a run already checked: only its link.
            if rows[0][0] != expected or rows[0][6] != prev:
                return False, None, {}, confirmed
            prev = rows[-1][7]
            expected += len(rows)
            confirmed += len(rows)
            digests[run] = digest
            if feed is not None:
                feed(rows)
            continue
        for seq, ts, actor, kind, round_no, payload, prev_hash, h in rows:
            if seq != expected or prev_hash != prev:
                return False, None, {}, confirmed
            if hasher(seq, ts, actor, kind, round_no, payload, prev_hash) != h:
                return False, None, {}, confirmed
            prev = h
            expected += 1
        if digest is not None:
            digests[run] = digest
        if feed is not None:
            feed(rows)
    return expected == hi + 1, prev, digests, confirmed


#: The modules whose ``Collector`` a range may feed (see :class:`Verification`).
COLLECTORS = ("dealer_station.reports.shift_tally",)


class RangeCollector(Protocol):
    def feed(self, rows: list[tuple[Any, ...]]) -> None: ...

    def result(self, last: bool) -> Any:
        """What the range gathered (``last``: no range follows it)."""


def _collector(spec: Any) -> RangeCollector | None:
    if not spec:
        return None
    module, args = spec
    if module not in COLLECTORS:
        raise ValueError(f"no collector {module!r}")
    made: RangeCollector = importlib.import_module(module).Collector(args)
    return made


def _child_main() -> int:
    """``python -m dealer_station.reports.verification``: check one range, the job read as
    JSON from standard input (the key is never on a command line), the answer printed as
    JSON."""
    # A short-lived process holding a run of records at a time and creating no cycles: the
    # collector would spend a fifth of its time in collections that free nothing.
    gc.disable()
    try:
        job = json.loads(sys.stdin.read())
        from dealer_station.audit.db import open_database

        db = open_database(job["url"], upgrade=False, schema_checked=True)
        try:
            journal = Journal(db, bytes.fromhex(job["secret"]))
            memo = {int(k): str(v) for k, v in job.get("memo", {}).items()}
            collector = _collector(job.get("collect"))
            intact, head, digests, confirmed = check_chunks(
                journal, job["table"], job["lo"], job["hi"], memo, int(job["chunk"]),
                collector.feed if collector is not None else None)
        finally:
            db.close()
        answer: dict[str, Any] = {"intact": intact, "head": head, "digests": digests,
                                  "confirmed": confirmed}
        if collector is not None and intact:
            answer["collected"] = collector.result(bool(job.get("last")))
        print(json.dumps(answer))
    except Exception as exc:  # the parent falls back to one walk and says why if that fails
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
    return 0


class Verification:
    """Verification of one table's chain, started now and collected with :meth:`result`."""

    def __init__(self, journal: Journal, table_id: str, *,
                 background_above: int = BACKGROUND_ABOVE_RECORDS,
                 workers: int | None = None, chunk: int = CHUNK,
                 collect: tuple[str, Mapping[str, Any]] | None = None) -> None:
        self.journal = journal
        self.table_id = table_id
        self._result: VerifyResult | None = None
        #: How the result was reached: "ranges" (checked in parallel) or "walk" (one walk).
        self.method = ""
        #: Of the records checked in ranges, how many were runs the memo already held.
        self.confirmed_unchanged = 0
        self._jobs: list[subprocess.Popen[str]] = []
        self._chunk = chunk
        anchor = journal.anchor_path
        self._memo_path = memo_path(anchor, table_id) if anchor is not None else None
        self._digests: dict[int, str] = {}
        # ``collect``: (module, arguments) of a Collector each range feeds the records it
        # reads to, so that a report's figures cost no second read (see :meth:`collected`).
        self._collect_spec = collect
        self._collected: list[Any] | None = None
        last = journal.last(table_id)
        self.size = last.seq if last is not None else 0
        url = journal.db.engine.url
        in_memory = url.get_backend_name() == "sqlite" and url.database in (None, "",
                                                                            ":memory:")
        # A frozen (packaged) station has no interpreter to run ``-m`` with: walk in-process.
        frozen = bool(getattr(sys, "frozen", False))
        if self.size > background_above and not in_memory and not frozen:
            n = workers or max(2, min(4, os.cpu_count() or 2))
            self._start(url.render_as_string(hide_password=False), n)

    def _start(self, url: str, n: int) -> None:
        step = -(-self.size // n)
        if step >= self._chunk:     # ranges of whole runs, so that each run can be remembered
            step = -(-step // self._chunk) * self._chunk
        secret = _secret(self.journal)
        memo = load_memo(self._memo_path, secret, self.table_id, self._chunk)
        for lo in range(1, self.size + 1, step):
            hi = min(self.size, lo + step - 1)
            runs = range((lo - 1) // self._chunk, hi // self._chunk + 1)
            job = json.dumps({"url": url, "secret": secret.hex(), "table": self.table_id,
                              "lo": lo, "hi": hi, "chunk": self._chunk,
                              "memo": {str(r): memo[r] for r in runs if r in memo},
                              "collect": self._collect_spec, "last": hi == self.size})
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "dealer_station.reports.verification"],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                    text=True)
                assert proc.stdin is not None
                proc.stdin.write(job)
                proc.stdin.close()
            except OSError:
                self.cancel()  # no processes to be had: result() walks the chain itself
                return
            self._jobs.append(proc)

    def _collect(self) -> tuple[bool, str | None]:
        intact, head = True, None
        collected: list[Any] | None = [] if self._collect_spec else None
        for proc in self._jobs:
            assert proc.stdout is not None
            out = proc.stdout.read()
            proc.stdout.close()
            proc.wait()
            try:
                answer = json.loads(out)
            except ValueError:
                answer = {}
            if answer.get("intact") is True:
                head = answer.get("head")
                try:
                    self._digests.update({int(k): str(v)
                                          for k, v in answer.get("digests", {}).items()})
                    self.confirmed_unchanged += int(answer.get("confirmed", 0))
                except (AttributeError, TypeError, ValueError):
                    pass    # no digests to remember; the range was checked all the same
                if collected is not None and "collected" in answer:
                    collected.append(answer["collected"])
                else:
                    collected = None
            else:
                intact = False
        self._jobs = []
        self._collected = collected if intact else None
        return intact, head

    def collected(self) -> list[Any] | None:
        """What each range's collector gathered, in order, once the chain is found intact in
        ranges; None where it was not checked in ranges (the caller reads the records
        itself)."""
        self.result()
        return self._collected if self.method == "ranges" else None

    def _checkpoints_confirmed(self, head: str | None) -> int | None:
        """How many of the table's checkpoints name a checked record with its hash, or None
        if one does not (or lies beyond the checked records)."""
        checkpoints = ([c for c in self.journal.anchored_checkpoints()
                        if c.table_id == self.table_id]
                       + self.journal.db_checkpoints(self.table_id))
        confirmed: set[int] = set()
        for c in checkpoints:
            if c.seq > self.size:
                return None
            rec = next(self.journal.records(self.table_id, from_seq=c.seq, to_seq=c.seq), None)
            if rec is None or rec.hash != c.hash:
                return None
            confirmed.add(c.seq)
        return len(confirmed)

    def result(self) -> VerifyResult:
        if self._result is not None:
            return self._result
        if self._jobs:
            intact, head = self._collect()
            confirmed = self._checkpoints_confirmed(head) if intact else None
            if intact and confirmed is not None:
                self._result = VerifyResult(self.table_id, True, self.size, self.size, head,
                                            confirmed)
                self.method = "ranges"
                save_memo(self._memo_path, _secret(self.journal), self.table_id,
                          self._digests, self._chunk)
                return self._result
        results = self.journal.verify(self.table_id)
        if not results:
            raise StationError(f"table {self.table_id} has no journal to verify")
        self._result = results[0]
        self.method = "walk"
        return self._result

    def cancel(self) -> None:
        """Stop checks whose report will not be written."""
        for proc in self._jobs:
            if proc.poll() is None:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()
        self._jobs = []


if __name__ == "__main__":
    sys.exit(_child_main())
