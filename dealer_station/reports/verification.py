"""The journal verification a report prints on its last page.

A report states whether the table's whole chain verifies under the key, exactly as
``dealer-station audit verify`` would say it (:meth:`Journal.verify`). Verification walks every
record of the table, which on a big journal takes longer than building the report itself, so
for a big chain it runs in a second process while the report reads its figures, and the report
waits for it before the last page is written. Nothing is skipped either way.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dealer_station.audit.journal import Journal, VerifyResult
from dealer_station.audit.keys import JournalKey
from dealer_station.errors import StationError

#: Chains longer than this are verified in a second process (it costs ~0.5 s to start one).
BACKGROUND_ABOVE_RECORDS = 150_000


def _verify_in_child(url: str, secret: bytes, anchor: str | None, table_id: str,
                     out: Any) -> None:
    try:
        from dealer_station.audit.db import open_database

        db = open_database(url, upgrade=False)
        try:
            journal = Journal(db, secret, anchor_path=Path(anchor) if anchor else None)
            out.send(("ok", asdict(journal.verify(table_id)[0])))
        finally:
            db.close()
    except BaseException as exc:  # report any failure to the parent, which says what it was
        out.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def _secret(journal: Journal) -> bytes:
    key = journal.key
    return key.secret if isinstance(key, JournalKey) else bytes(key)


class Verification:
    """Verification of one table's chain, started now and collected with :meth:`result`."""

    def __init__(self, journal: Journal, table_id: str, *,
                 background_above: int = BACKGROUND_ABOVE_RECORDS) -> None:
        self.journal = journal
        self.table_id = table_id
        self._result: VerifyResult | None = None
        self._proc: Any = None
        self._conn: Any = None
        last = journal.last(table_id)
        size = last.seq if last is not None else 0
        url = journal.db.engine.url
        in_memory = url.get_backend_name() == "sqlite" and url.database in (None, "",
                                                                            ":memory:")
        if size > background_above and not in_memory:
            self._start(url.render_as_string(hide_password=False))

    def _start(self, url: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe(duplex=False)
        anchor = str(self.journal.anchor_path) if self.journal.anchor_path else None
        proc = ctx.Process(target=_verify_in_child, name="report-verify",
                           args=(url, _secret(self.journal), anchor, self.table_id, child),
                           daemon=True)
        try:
            proc.start()
        except OSError:
            return  # no second process: verify here, in result()
        child.close()
        self._proc, self._conn = proc, parent

    def result(self) -> VerifyResult:
        if self._result is not None:
            return self._result
        if self._proc is not None:
            try:
                status, value = self._conn.recv()
            except EOFError:
                status, value = "error", "the verifying process ended without a result"
            finally:
                self._conn.close()
                self._proc.join()
                self._proc = None
            if status != "ok":
                raise StationError(f"the journal of table {self.table_id} could not be "
                                   f"verified for the report: {value}")
            self._result = VerifyResult(**value)
        else:
            self._result = self.journal.verify(self.table_id)[0]
        return self._result

    def cancel(self) -> None:
        """Stop a background verification whose report will not be written."""
        if self._proc is not None:
            self._proc.terminate()
            self._proc.join()
            self._conn.close()
            self._proc = None
