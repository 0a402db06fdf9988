"""What travels between a station and a witness, as text (pure: no sockets, no files).

``POST /add-checkpoint`` (C2SP tlog-witness) carries::

    old <size the client believes the witness holds>
    <base64 consistency proof hash>          (zero to 63 lines)
    <empty line>
    <the signed checkpoint note>

The read side, for verifiers and audits, answers one line per entry: the history of what was
cosigned (``<size> <base64 root> <unix time>``) and the refusals (``<unix time> <status>
<size or -> <reason>``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote, unquote

from dealer_station.witness.errors import MalformedRequest

ADD_CHECKPOINT = "/add-checkpoint"
CHECKPOINT = "/checkpoint/"
HISTORY = "/history/"
REFUSED = "/refused/"

SIZE_TYPE = "text/x.tlog.size"
TEXT_TYPE = "text/plain; charset=utf-8"

#: No consistency proof of a tree below 2**63 leaves is longer (tlog-witness says 63 at most).
MAX_PROOF_LINES = 63
#: A request is an old size, at most 63 hashes and a checkpoint with a few signatures: a few
#: kilobytes. Anything beyond this is refused without being read.
MAX_BODY = 64 * 1024
MAX_SIZE = (1 << 63) - 1

_DECIMAL = re.compile(r"0|[1-9][0-9]*")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None


def decimal(text: str) -> int | None:
    """A size or time as the protocol writes it (no sign, no leading zero), or None."""
    if not _DECIMAL.fullmatch(text) or not text.isascii():
        return None
    value = int(text)
    return value if value <= MAX_SIZE else None


def one_line(text: str) -> str:
    """A reason fit for one line of an answer or a log."""
    return " ".join(text.split())


@dataclass(frozen=True)
class AddCheckpoint:
    """An ``add-checkpoint`` request: the size the client believes the witness holds, the
    consistency proof from it, and the signed checkpoint (a note's text)."""

    old_size: int
    proof: tuple[bytes, ...]
    note: str


def request_body(note: str, old_size: int, proof: Sequence[bytes]) -> bytes:
    """The body of ``POST /add-checkpoint``."""
    lines = [f"old {old_size}\n", *(b64(h) + "\n" for h in proof), "\n", note]
    return "".join(lines).encode("utf-8")


def parse_request(body: bytes) -> AddCheckpoint:
    """The request, or :class:`MalformedRequest` saying what is wrong with it. The note itself
    is checked by the caller (``audit.notes``)."""
    if len(body) > MAX_BODY:
        raise MalformedRequest(f"the request is larger than {MAX_BODY} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedRequest("the request is not UTF-8 text") from None
    first, sep, rest = text.partition("\n")
    if not sep:
        raise MalformedRequest("the request has no old size line")
    word, _, number = first.partition(" ")
    old = decimal(number) if word == "old" else None
    if old is None:
        raise MalformedRequest(f"the first line is 'old <size>' (a decimal with no leading "
                               f"zero), not {first[:40]!r}")
    proof: list[bytes] = []
    while True:
        line, sep, rest = rest.partition("\n")
        if not sep:
            raise MalformedRequest("the request has no empty line before the checkpoint")
        if line == "":
            break
        if len(proof) == MAX_PROOF_LINES:
            raise MalformedRequest(f"more than {MAX_PROOF_LINES} consistency proof lines")
        digest = _unb64(line)
        if digest is None or len(digest) != 32:
            raise MalformedRequest(f"proof line {len(proof) + 1} is not a base64 SHA-256 "
                                   f"hash: {line[:60]!r}")
        proof.append(digest)
    if old == 0 and proof:
        raise MalformedRequest("a request from old size 0 carries no consistency proof")
    if not rest:
        raise MalformedRequest("the request carries no checkpoint after the empty line")
    return AddCheckpoint(old, tuple(proof), rest)


def origin_of(body: bytes) -> str | None:
    """The origin a request names, as far as it can be read (for the evidence of one that is
    malformed): the first line after the first empty line."""
    text = body[:MAX_BODY].decode("utf-8", errors="replace")
    _, sep, rest = text.partition("\n\n")
    origin = rest.partition("\n")[0] if sep else ""
    return origin if origin and origin.isprintable() and len(origin) <= 256 else None


def origin_path(prefix: str, origin: str) -> str:
    """``/history/<origin>`` with the origin percent-encoded (its '/' too)."""
    return prefix + quote(origin, safe="")


def origin_from_path(path: str, prefix: str) -> str | None:
    """The origin named by a path under ``prefix`` (encoded or not), or None."""
    if not path.startswith(prefix):
        return None
    try:
        origin = unquote(path[len(prefix):], errors="strict")
    except UnicodeDecodeError:
        return None
    return origin if origin and origin.isprintable() else None


@dataclass(frozen=True)
class HistoryEntry:
    """A checkpoint the witness cosigned: its size, root hash and when."""

    size: int
    root: bytes
    time: int

    def line(self) -> str:
        return f"{self.size} {b64(self.root)} {self.time}\n"

    @classmethod
    def parse(cls, line: str) -> HistoryEntry | None:
        parts = line.split(" ")
        if len(parts) != 3:
            return None
        size, time = decimal(parts[0]), decimal(parts[2])
        root = _unb64(parts[1])
        if size is None or time is None or root is None or len(root) != 32:
            return None
        return cls(size, root, time)


@dataclass(frozen=True)
class RefusalEntry:
    """A refused request, summed up: when, the status answered, the size the checkpoint
    claimed (None when it could not be read) and why."""

    time: int
    status: int
    size: int | None
    reason: str

    def line(self) -> str:
        size = "-" if self.size is None else str(self.size)
        return f"{self.time} {self.status} {size} {one_line(self.reason)}\n"

    @classmethod
    def parse(cls, line: str) -> RefusalEntry | None:
        parts = line.split(" ", 3)
        if len(parts) != 4:
            return None
        time, status = decimal(parts[0]), decimal(parts[1])
        size = None if parts[2] == "-" else decimal(parts[2])
        if time is None or status is None or (size is None and parts[2] != "-"):
            return None
        return cls(time, status, size, parts[3])
