"""Killing a running station when its journal shows the moment a test wants, not after a
guessed sleep: a loaded machine only makes such a test slower, never wrong.

The journal is read through a separate read-only SQLite connection while the process writes
(WAL lets a reader see each commit).
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
from pathlib import Path

from waiting import wait_until


def _query(db_file: Path, sql: str, args: tuple[object, ...] = ()) -> int:
    if not db_file.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db_file}?mode=ro", uri=True, timeout=5)
    except sqlite3.OperationalError:
        return 0
    try:
        row = conn.execute(sql, args).fetchone()
    except sqlite3.OperationalError:        # the schema is not there yet
        return 0
    finally:
        conn.close()
    return int(row[0] or 0) if row else 0


def records(db_file: Path, table: str) -> int:
    """How many records the table's chain holds now."""
    return _query(db_file, "SELECT count(*) FROM journal WHERE table_id = ?", (table,))


def open_rounds(db_file: Path, table: str) -> int:
    """Rounds (or hands) the journal shows opened and not yet closed."""
    return _query(db_file, "SELECT count(*) FROM rounds WHERE table_id = ? AND status = 'open'",
                  (table,))


class _LastRecord:
    """The table's last record number, read through one read-only connection kept open while
    a test waits on it. ``kill_after`` asks every 2 ms; a new connection and a ``count(*)``
    each time cost about 0.5 ms of CPU (a quarter of a core, taken from the process being
    watched), the last ``seq`` on a kept connection about 0.005 ms. A table's chain numbers
    its records 1, 2, 3... with no gap, so its last ``seq`` is how many it holds."""

    def __init__(self, db_file: Path, table: str) -> None:
        self.db_file, self.table = db_file, table
        self.conn: sqlite3.Connection | None = None

    def __call__(self) -> int:
        if self.conn is None:
            if not self.db_file.exists():
                return 0
            try:
                self.conn = sqlite3.connect(f"file:{self.db_file}?mode=ro", uri=True,
                                            timeout=5)
            except sqlite3.OperationalError:
                return 0
        try:
            row = self.conn.execute("SELECT max(seq) FROM journal WHERE table_id = ?",
                                    (self.table,)).fetchone()
        except sqlite3.OperationalError:        # the schema is not there yet
            return 0
        return int(row[0] or 0) if row else 0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def kill_after(proc: subprocess.Popen[str], db_file: Path, table: str, more: int) -> str:
    """SIGKILL ``proc`` once the table's chain has grown by ``more`` records (or the process
    has ended); returns its standard output, then its standard error."""
    last = _LastRecord(db_file, table)
    try:
        start = last()
        wait_until(lambda: proc.poll() is not None or last() >= start + more,
                   f"{more} more records of table {table} in the journal", poll=0.002)
    finally:
        last.close()
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    return out + err
