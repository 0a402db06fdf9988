"""The card device wire protocol: pure framing, no port, no clock, no threads.

Every frame is one ASCII line ``$BODY*CRC\\r\\n``; BODY is ``<device-id>,<seq>,<type>[,<field>...]``
and CRC is four hex digits of CRC-16/CCITT-FALSE over the BODY bytes. docs/protocol.md is the
reference a device vendor implements.

``decode(buffer)`` follows pymodbus's framer: it returns ``(used, item)`` where ``used`` is how
many bytes at the front of ``buffer`` it consumed (0: need more bytes) and ``item`` is a
``Frame``, a ``FrameError`` describing bytes it threw away, or None. It never raises on any
input, resynchronises on the next ``$`` after noise, and tells the caller the device id and
seq of a damaged frame when they are still readable, so the host can NAK it.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from dealer_station.cards import Card, CardError, parse_card

START = b"$"
#: The longest line accepted, from ``$`` to ``\n`` inclusive.
MAX_FRAME = 128
#: seq counts 0..9999 and wraps to 0.
SEQ_MODULO = 10000

HELLO, CARD, STATUS, ERROR, HB = "HELLO", "CARD", "STATUS", "ERROR", "HB"
ACK, NAK, QUERY = "ACK", "NAK", "QUERY"
DEVICE_TYPES = frozenset({HELLO, CARD, STATUS, ERROR, HB})
HOST_TYPES = frozenset({ACK, NAK, QUERY})

#: The device id a host uses for a QUERY when it does not know the device's id (a monitor).
BROADCAST_ID = "ANY"

STATUS_STATES = ("READY", "EMPTY", "LOW", "DOOR_OPEN", "JAM", "TAMPER")
MISREAD = "MISREAD"

_DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{1,16}\Z")
_SEQ = re.compile(r"[0-9]{1,4}\Z")
_POSITION = re.compile(r"[0-9]{1,3}\Z")
_ERROR_CODE = re.compile(r"[A-Z0-9_]{1,16}\Z")
# A plain field: printable ASCII without '$' (0x24), '*' (0x2A) or the ',' separator (0x2C).
_FIELD = re.compile(r"[\x20-\x23\x25-\x29\x2B\x2D-\x7E]{1,32}\Z")
# ERROR's free text (the last field) may hold commas and may be empty.
_TEXT = re.compile(r"[\x20-\x23\x25-\x29\x2B-\x7E]{0,64}\Z")
_HEADER = re.compile(rb"([A-Za-z0-9_-]{1,16}),([0-9]{1,4}),")
_BAD_BYTE = re.compile(rb"[^\x20-\x7e]")
_HEX4 = re.compile(rb"[0-9A-Fa-f]{4}\Z")


def crc(body: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of ``body``."""
    return binascii.crc_hqx(body, 0xFFFF)


def wrap(body: bytes) -> bytes:
    """Frame an already-built BODY: ``$`` BODY ``*`` CRC ``\\r\\n``."""
    return b"$" + body + b"*" + b"%04X" % crc(body) + b"\r\n"


def next_seq(seq: int) -> int:
    return (seq + 1) % SEQ_MODULO


# --------------------------------------------------------------------------- frames


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame. Subclasses are the message types; ``TYPE`` is the wire name."""

    device_id: str
    seq: int
    TYPE: ClassVar[str] = ""

    def fields(self) -> tuple[str, ...]:
        return ()

    def encode(self) -> bytes:
        return encode(self.device_id, self.seq, self.TYPE, *self.fields())


@dataclass(frozen=True, slots=True)
class Hello(Frame):
    model: str
    firmware: str
    serial_no: str
    TYPE: ClassVar[str] = HELLO

    def fields(self) -> tuple[str, ...]:
        return (self.model, self.firmware, self.serial_no)


@dataclass(frozen=True, slots=True)
class CardFrame(Frame):
    card: Card
    position: int | None = None
    TYPE: ClassVar[str] = CARD

    def fields(self) -> tuple[str, ...]:
        code = self.card.code
        return (code,) if self.position is None else (code, str(self.position))


@dataclass(frozen=True, slots=True)
class Status(Frame):
    state: str
    TYPE: ClassVar[str] = STATUS

    def fields(self) -> tuple[str, ...]:
        return (self.state,)


@dataclass(frozen=True, slots=True)
class ErrorReport(Frame):
    code: str
    text: str
    TYPE: ClassVar[str] = ERROR

    def fields(self) -> tuple[str, ...]:
        return (self.code, self.text)


@dataclass(frozen=True, slots=True)
class Heartbeat(Frame):
    TYPE: ClassVar[str] = HB


@dataclass(frozen=True, slots=True)
class Ack(Frame):
    acked: int
    TYPE: ClassVar[str] = ACK

    def fields(self) -> tuple[str, ...]:
        return (str(self.acked),)


@dataclass(frozen=True, slots=True)
class Nak(Frame):
    nakked: int
    TYPE: ClassVar[str] = NAK

    def fields(self) -> tuple[str, ...]:
        return (str(self.nakked),)


@dataclass(frozen=True, slots=True)
class Query(Frame):
    TYPE: ClassVar[str] = QUERY


# --------------------------------------------------------------------------- problems


class Problem(StrEnum):
    """Why bytes were thrown away."""

    NOISE = "noise"            # bytes outside any frame
    TRUNCATED = "truncated"    # a frame cut short by the start of the next one
    TOO_LONG = "too_long"      # no end of line within MAX_FRAME bytes
    NON_ASCII = "non_ascii"    # a byte that is not printable ASCII inside a frame
    NO_CRC = "no_crc"          # a line without a well-formed ``*XXXX`` trailer
    BAD_CRC = "bad_crc"        # the CRC does not match the body
    BAD_BODY = "bad_body"      # the CRC matches but the content is not a valid message


@dataclass(frozen=True, slots=True)
class FrameError:
    """Bytes the parser discarded and why; ``device_id``/``seq`` when still readable."""

    kind: Problem
    detail: str
    raw: bytes = b""
    device_id: str | None = None
    seq: int | None = None

    def __str__(self) -> str:
        where = f" (seq {self.seq})" if self.seq is not None else ""
        return f"{self.kind.value}{where}: {self.detail}"


class _BodyError(Exception):
    pass


# --------------------------------------------------------------------------- encoding


def _check_field(name: str, value: str, *, text: bool = False) -> None:
    pattern = _TEXT if text else _FIELD
    if not isinstance(value, str) or not pattern.match(value):
        what = ("0-64 printable ASCII characters without $ or *" if text
                else "1-32 printable ASCII characters without $, * or ,")
        raise ValueError(f"{name} {value!r} must be {what}")


def valid_device_id(device_id: object) -> bool:
    """Whether ``device_id`` can be a device's id: 1-16 of ``A-Z a-z 0-9 - _``, not ``ANY``."""
    return (isinstance(device_id, str) and bool(_DEVICE_ID.match(device_id))
            and device_id != BROADCAST_ID)


def encode(device_id: str, seq: int, type: str, *fields: str) -> bytes:
    """Build one frame. Raises ValueError for a field the protocol cannot carry."""
    if not isinstance(device_id, str) or not _DEVICE_ID.match(device_id):
        raise ValueError(f"device id {device_id!r} must be 1-16 letters, digits, '-' or '_'")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < SEQ_MODULO:
        raise ValueError(f"seq {seq!r} must be a whole number 0-9999")
    if type not in DEVICE_TYPES | HOST_TYPES:
        raise ValueError(f"unknown message type {type!r}")
    for i, value in enumerate(fields):
        _check_field(f"{type} field {i + 1}", value, text=type == ERROR and i == 1)
    body = ",".join((device_id, str(seq), type, *fields)).encode("ascii")
    frame = wrap(body)
    if len(frame) > MAX_FRAME:
        raise ValueError(f"frame of {len(frame)} bytes is longer than {MAX_FRAME}")
    return frame


# --------------------------------------------------------------------------- decoding


def _parse_hello(dev: str, seq: int, rest: list[str]) -> Frame:
    if len(rest) != 3:
        raise _BodyError(f"HELLO needs model, firmware and serial number, got {len(rest)} fields")
    return Hello(dev, seq, rest[0], rest[1], rest[2])


def _parse_card(dev: str, seq: int, rest: list[str]) -> Frame:
    if len(rest) not in (1, 2):
        raise _BodyError(f"CARD needs a card code and an optional position, got {len(rest)} "
                         "fields")
    try:
        card = parse_card(rest[0])
    except CardError as exc:
        raise _BodyError(str(exc)) from None
    position = None
    if len(rest) == 2:
        if not _POSITION.match(rest[1]):
            raise _BodyError(f"CARD position {rest[1]!r} is not a number 0-999")
        position = int(rest[1])
    return CardFrame(dev, seq, card, position)


def _parse_status(dev: str, seq: int, rest: list[str]) -> Frame:
    if len(rest) != 1 or rest[0] not in STATUS_STATES:
        raise _BodyError(f"STATUS needs one of {', '.join(STATUS_STATES)}, got "
                         f"{','.join(rest)!r}")
    return Status(dev, seq, rest[0])


def _parse_error(dev: str, seq: int, rest: list[str]) -> Frame:
    if len(rest) < 2 or not _ERROR_CODE.match(rest[0]):
        raise _BodyError("ERROR needs a code (A-Z, 0-9, _) and a text")
    return ErrorReport(dev, seq, rest[0], ",".join(rest[1:]))


def _parse_seq_field(kind: str, rest: list[str]) -> int:
    if len(rest) != 1 or not _SEQ.match(rest[0]):
        raise _BodyError(f"{kind} needs the seq it answers, got {','.join(rest)!r}")
    return int(rest[0])


def _no_fields(kind: str, rest: list[str]) -> None:
    if rest:
        raise _BodyError(f"{kind} takes no fields, got {len(rest)}")


def _parse_hb(dev: str, seq: int, rest: list[str]) -> Frame:
    _no_fields(HB, rest)
    return Heartbeat(dev, seq)


def _parse_query(dev: str, seq: int, rest: list[str]) -> Frame:
    _no_fields(QUERY, rest)
    return Query(dev, seq)


def _parse_ack(dev: str, seq: int, rest: list[str]) -> Frame:
    return Ack(dev, seq, _parse_seq_field(ACK, rest))


def _parse_nak(dev: str, seq: int, rest: list[str]) -> Frame:
    return Nak(dev, seq, _parse_seq_field(NAK, rest))


_PARSERS = {
    HELLO: _parse_hello, CARD: _parse_card, STATUS: _parse_status, ERROR: _parse_error,
    HB: _parse_hb, ACK: _parse_ack, NAK: _parse_nak, QUERY: _parse_query,
}


def _header(data: bytes) -> tuple[str | None, int | None]:
    """The device id and seq at the start of a (possibly damaged) body, if they are readable."""
    m = _HEADER.match(data)
    if m is None:
        return None, None
    return m.group(1).decode("ascii"), int(m.group(2))


def _show(raw: bytes, limit: int = 48) -> bytes:
    return raw if len(raw) <= limit else raw[:limit]


def parse_body(body: bytes) -> Frame:
    """Turn a CRC-checked BODY into a Frame; raises _BodyError naming what is wrong."""
    text = body.decode("ascii")
    parts = text.split(",")
    if len(parts) < 3:
        raise _BodyError("a body needs device id, seq and type")
    dev, seq_text, kind, *rest = parts
    if not _DEVICE_ID.match(dev):
        raise _BodyError(f"device id {dev!r} is not 1-16 letters, digits, '-' or '_'")
    if not _SEQ.match(seq_text):
        raise _BodyError(f"seq {seq_text!r} is not a number 0-9999")
    parser = _PARSERS.get(kind)
    if parser is None:
        raise _BodyError(f"unknown message type {kind!r}")
    return parser(dev, int(seq_text), rest)


def _decode_at(buf: bytes | bytearray, pos: int) -> tuple[int, Frame | FrameError | None]:
    n = len(buf)
    if pos >= n:
        return 0, None
    start = buf.find(START, pos)
    if start == -1:
        return n - pos, FrameError(Problem.NOISE, f"{n - pos} bytes outside a frame",
                                   _show(bytes(buf[pos:n])))
    if start > pos:
        return start - pos, FrameError(Problem.NOISE, f"{start - pos} bytes outside a frame",
                                       _show(bytes(buf[pos:start])))
    limit = min(n, start + MAX_FRAME)
    nl = buf.find(b"\n", start + 1, limit)
    nxt = buf.find(START, start + 1, nl if nl != -1 else limit)
    if nxt != -1:
        raw = bytes(buf[start:nxt])
        dev, seq = _header(raw[1:])
        return nxt - start, FrameError(Problem.TRUNCATED, f"frame of {len(raw)} bytes cut short "
                                       "by the start of another", _show(raw), dev, seq)
    if nl == -1:
        if n - start < MAX_FRAME:
            return 0, None
        nxt = buf.find(START, start + 1)
        end = nxt if nxt != -1 else n
        raw = bytes(buf[start:end])
        dev, seq = _header(raw[1:])
        return end - start, FrameError(Problem.TOO_LONG, f"no end of line within {MAX_FRAME} "
                                       "bytes", _show(raw), dev, seq)
    used = nl + 1 - pos
    raw = bytes(buf[start:nl + 1])
    line = raw[1:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    dev, seq = _header(line)
    bad = _BAD_BYTE.search(line)
    if bad is not None:
        return used, FrameError(Problem.NON_ASCII, f"byte 0x{line[bad.start()]:02X} at offset "
                                f"{bad.start() + 1} is not printable ASCII", _show(raw), dev, seq)
    star = line.rfind(b"*")
    if star == -1 or not _HEX4.match(line[star + 1:]):
        return used, FrameError(Problem.NO_CRC, "line does not end in '*' and four hex digits",
                                _show(raw), dev, seq)
    body = line[:star]
    want = int(line[star + 1:], 16)
    got = crc(body)
    if want != got:
        return used, FrameError(Problem.BAD_CRC, f"CRC {want:04X} sent, {got:04X} computed",
                                _show(raw), dev, seq)
    try:
        return used, parse_body(body)
    except _BodyError as exc:
        return used, FrameError(Problem.BAD_BODY, str(exc), _show(raw), dev, seq)


def decode(buffer: bytes | bytearray) -> tuple[int, Frame | FrameError | None]:
    """Decode the first item in ``buffer``: ``(used, Frame | FrameError | None)``.

    ``used == 0`` (with None) means the buffer holds the start of a frame and more bytes are
    needed. Otherwise the first ``used`` bytes are consumed and the item says what they were.
    """
    return _decode_at(buffer, 0)


class Deframer:
    """Splits a byte stream into frames and problems (pyserial ``Packetizer`` style)."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        return list(self.iter_feed(data))

    def iter_feed(self, data: bytes) -> Iterator[Frame | FrameError]:
        buf = self._buf
        buf += data
        pos = 0
        try:
            while True:
                used, item = _decode_at(buf, pos)
                if used == 0:
                    break
                pos += used
                if item is not None:
                    yield item
        finally:
            # Compact once per feed, not once per frame: a big feed stays linear.
            del buf[:pos]

    @property
    def pending(self) -> int:
        """Bytes held while waiting for the end of a frame."""
        return len(self._buf)

    def clear(self) -> None:
        self._buf.clear()
