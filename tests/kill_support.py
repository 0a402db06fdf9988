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


def kill_after(proc: subprocess.Popen[str], db_file: Path, table: str, more: int) -> str:
    """SIGKILL ``proc`` once the table's chain has grown by ``more`` records (or the process
    has ended); returns its standard output, then its standard error."""
    start = records(db_file, table)
    wait_until(lambda: proc.poll() is not None or records(db_file, table) >= start + more,
               f"{more} more records of table {table} in the journal", poll=0.002)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    return out + err
