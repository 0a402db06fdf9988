"""The anchor file: chain heads written outside the database, and which journal each names.

One line per anchor::

    <table> <seq> <hash> <time> <mac> <first> <location>

The first five fields are the chain head and its MAC under the journal key (``anchor/v1``,
``docs/journal.md``). ``first`` is the hash of the table's record 1 and ``location`` where the
journal lives (the SQLite file's absolute path, or a PostgreSQL server and database),
percent-encoded. One key may serve several journals (a newcomer's default key does), so these
two say which journal a line anchors:

- a line applies to a journal whose table has that record 1 (the same chain, wherever it was
  copied: the floor's copy, a regulator's copy);
- and to whatever journal is at that location now, whatever its record 1: a journal whose
  records were all deleted, or which was rebuilt from its first record, is then still caught.

Any other line belongs to another journal and is left alone. The two identity fields are not
under the MAC on purpose: changing them can only make a line not apply, which deleting the line
does too; it can never hide a change to a journal the line still applies to. Lines of the first
form (five fields, written before journals were named) apply to every journal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from sqlalchemy import make_url
from sqlalchemy.exc import ArgumentError

ANCHOR_DOMAIN = "anchor/v1"


@dataclass(frozen=True, slots=True)
class Anchor:
    """One line of the anchor file that carries a valid MAC."""

    table_id: str
    seq: int
    hash: str
    ts: str
    line: int
    first: str | None = None
    location: str | None = None

    @property
    def named(self) -> bool:
        """Whether the line names its journal (else it predates naming and applies to all)."""
        return self.first is not None

    def journal(self) -> str:
        """Which journal this line anchors, in words."""
        if not self.named:
            return "an unnamed journal (a line written before anchors named their journal)"
        return f"the journal at {self.location} (table {self.table_id} record 1 " \
               f"{(self.first or '')[:16]}...)"


@dataclass(frozen=True, slots=True)
class AnchorProblem:
    """A line of the anchor file that verification could not use."""

    line: int
    problem: str
    forged: bool

    def __str__(self) -> str:
        return f"line {self.line} {self.problem}" if self.line else self.problem


def journal_location(url: str) -> str:
    """Where a journal lives, as anchor lines name it: the SQLite file's absolute, resolved
    path, or ``postgresql://HOST[:PORT]/DB`` (no user or password: a table and the pit reach
    one database as different roles)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return url
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        database = parsed.database or ":memory:"
        if database == ":memory:" or parsed.query.get("mode") == "memory":
            return "sqlite::memory:"
        if database.startswith("file:"):
            database = database[5:].split("?", 1)[0]
        return "sqlite://" + os.path.realpath(database)
    hosts = parsed.query.get("host")
    host = (",".join(hosts) if isinstance(hosts, tuple) else hosts) if hosts else \
        (parsed.host or "localhost")
    port = f":{parsed.port}" if parsed.port else ""
    return f"{backend}://{host}{port}/{parsed.database or ''}"


def format_line(table_id: str, seq: int, hash_: str, ts: str, mac: str, *, first: str,
                location: str) -> str:
    return f"{table_id} {seq} {hash_} {ts} {mac} {first} {quote(location, safe='/:@,')}\n"


def append_line(path: Path, line: str, *, sync: bool) -> None:
    """One ``write`` of a whole line to a file opened for appending; if the file does not end
    with a newline (a write torn by a power cut), the line starts on a new one, so a torn line
    never swallows the next."""
    data = line.encode("ascii")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            data = b"\n" + data
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def parse_line(n: int, raw: bytes, valid_table: object,
               mac_ok: object) -> Anchor | AnchorProblem | None:
    """A line as an :class:`Anchor`, or the problem that keeps it out (None: a blank line).

    ``valid_table(t)`` is true for a well-formed table id; ``mac_ok(t, seq, hash, ts, mac)``
    checks the MAC under the journal key."""
    if not raw.strip():
        return None
    line = raw.decode("ascii", errors="replace")
    parts = line.split()
    try:
        if len(parts) not in (4, 5, 7):
            raise ValueError
        t, seq_text, h, ts = parts[:4]
        if not valid_table(t):  # type: ignore[operator]
            raise ValueError
        seq = int(seq_text)
        if seq < 1 or len(h) != 64 or int(h, 16) < 0:
            raise ValueError
        first = location = None
        if len(parts) == 7:
            first, location = parts[5], unquote(parts[6])
            if len(first) != 64 or int(first, 16) < 0:
                raise ValueError
    except ValueError:
        return AnchorProblem(n, f"is damaged and was skipped ({line[:60]!r}); expected "
                                f"'<table> <seq> <hash> <time> <mac> <first> <location>'",
                             forged=False)
    if len(parts) >= 5 and not mac_ok(t, seq_text, h, ts, parts[4]):  # type: ignore[operator]
        return AnchorProblem(n, f"(table {t} record {seq}) does not carry this key's MAC: it "
                                f"was written or changed by someone without the key",
                             forged=True)
    return Anchor(t, seq, h, ts, n, first, location)


def applies(anchor: Anchor, *, location: str, first_hashes: dict[str, str]) -> bool:
    """Whether an anchor line speaks of this journal (see the module's docstring)."""
    if not anchor.named:
        return True
    if anchor.location == location:
        return True
    return first_hashes.get(anchor.table_id) == anchor.first
