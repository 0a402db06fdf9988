"""A witness's client, for the station (pushing checkpoints) and for verifiers (reading what
the witness cosigned). Standard library only (``urllib``), every call with a timeout.

``submit`` never raises: it answers one of

- :class:`Cosigned`: the witness cosigned; its cosignature line(s), and the note with them;
- :class:`WitnessSize`: the witness holds another size for the origin (409 ``text/x.tlog.size``):
  send again from that size, with the proof from it;
- :class:`Refused`: the witness refused the checkpoint (4xx): the status and its reason. A 409
  here means the journal disagrees with what the witness cosigned;
- :class:`Unreachable`: no usable answer (not reachable, timed out, failed with 5xx, or answered
  something that is not the protocol's), with why; worth trying again later.

``push`` is what a station does with it: submit from the size it last had cosigned and, when
the witness holds another size, once more from that size with the proof from it (a witness
holding a larger size than the checkpoint's then refuses it, and keeps it as evidence).

The read calls (``latest``, ``history``, ``refusals``) raise :class:`WitnessError` with a
sentence naming the witness and what was wrong.

Proxies named in the environment are not used: a witness is reached directly.
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from dealer_station.audit.notes import Checkpoint, Note, NoteError, Verifier, cosigned_at
from dealer_station.witness.errors import WitnessError
from dealer_station.witness.wire import (
    ADD_CHECKPOINT,
    CHECKPOINT,
    HISTORY,
    REFUSED,
    SIZE_TYPE,
    HistoryEntry,
    RefusalEntry,
    decimal,
    one_line,
    origin_path,
    request_body,
)

DEFAULT_TIMEOUT = 10.0
#: The longest answer read from a witness (a history of a very long-lived journal is long).
MAX_ANSWER = 64 * 1024 * 1024


@dataclass(frozen=True)
class Cosigned:
    lines: tuple[str, ...]   # the cosignature lines, each ending in a newline
    note: str                # the submitted note with the lines added
    time: int | None         # the time of the expected witness's cosignature, if one was named


@dataclass(frozen=True)
class WitnessSize:
    size: int


@dataclass(frozen=True)
class Refused:
    status: int
    reason: str


@dataclass(frozen=True)
class Unreachable:
    why: str


SubmitResult = Cosigned | WitnessSize | Refused | Unreachable

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def check_url(url: str) -> str:
    """The witness's base URL without a trailing '/', or :class:`WitnessError`."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        raise WitnessError(f"not a witness URL: {url!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WitnessError(f"not a witness URL: {url!r} (expected e.g. http://host:port)")
    if parts.query or parts.fragment:
        raise WitnessError(f"a witness URL has no query or fragment: {url!r}")
    try:
        parts.port  # noqa: B018 -- raises on a port that is not a number
    except ValueError:
        raise WitnessError(f"not a witness URL: {url!r} (bad port)") from None
    return url.strip().rstrip("/")


class _NoAnswer(Exception):
    pass


def _exchange(url: str, data: bytes | None, timeout: float) -> tuple[int, str, bytes, str]:
    """(status, content type, body, HTTP reason) of one request; :class:`_NoAnswer` if there
    is none."""
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    if data is not None:
        request.add_header("Content-Type", "text/plain; charset=utf-8")
    try:
        try:
            with _opener.open(request, timeout=timeout) as resp:
                body = resp.read(MAX_ANSWER + 1)
                status, ctype, reason = resp.status, resp.headers.get("Content-Type", ""), \
                    resp.reason
        except urllib.error.HTTPError as err:
            with err:
                body = err.read(MAX_ANSWER + 1)
                status, ctype, reason = err.code, err.headers.get("Content-Type", ""), \
                    str(err.reason)
    except urllib.error.URLError as err:
        why = err.reason
        text = getattr(why, "strerror", None) or str(why)
        raise _NoAnswer(f"cannot be reached: {text}") from None
    except TimeoutError:
        raise _NoAnswer(f"gave no answer within {timeout:g} s") from None
    except (http.client.HTTPException, OSError) as err:
        raise _NoAnswer(f"broke off the exchange: {type(err).__name__}: {err}") from None
    if len(body) > MAX_ANSWER:
        raise _NoAnswer(f"answered more than {MAX_ANSWER} bytes")
    return status, ctype, body, reason


def _text(body: bytes) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _reason(body: bytes, fallback: str) -> str:
    text = _text(body)
    return one_line(text)[:500] if text and text.strip() else fallback


def submit(url: str, note: str, old_size: int, proof: Sequence[bytes], *,
           witness: Verifier | None = None, timeout: float = DEFAULT_TIMEOUT) -> SubmitResult:
    """Ask the witness at ``url`` to cosign ``note`` (a signed checkpoint) from ``old_size``
    with the consistency ``proof``. With ``witness`` (its public key), a 200 counts only if it
    carries that witness's valid cosignature."""
    try:
        base = check_url(url)
    except WitnessError as exc:
        return Unreachable(str(exc))
    try:
        status, ctype, body, http_reason = _exchange(
            base + ADD_CHECKPOINT, request_body(note, old_size, proof), timeout)
    except _NoAnswer as exc:
        return Unreachable(f"the witness at {base} {exc}")
    bad = f"the witness at {base} answered {status}"
    if status == 200:
        text = _text(body)
        lines = tuple(text.splitlines(keepends=True)) if text else ()
        if not lines or any(not ln.startswith("\u2014 ") or not ln.endswith("\n")
                            for ln in lines):
            return Unreachable(f"{bad} without cosignature lines: {_reason(body, 'empty')!r}")
        joined = note + "".join(lines)
        try:
            parsed = Note.parse(joined)
        except NoteError as exc:
            return Unreachable(f"{bad} with lines that are not signatures: {exc}")
        when = None
        if witness is not None:
            when = cosigned_at(parsed, witness)
            if when is None:
                return Unreachable(f"{bad} without a valid cosignature by {witness.name}")
        return Cosigned(lines, joined, when)
    if status == 409 and ctype.split(";")[0].strip() == SIZE_TYPE:
        text = _text(body) or ""
        size = decimal(text[:-1]) if text.endswith("\n") else None
        if size is None:
            return Unreachable(f"{bad} with a size that is not a decimal: {text[:40]!r}")
        return WitnessSize(size)
    if 400 <= status < 500:
        return Refused(status, _reason(body, http_reason))
    return Unreachable(f"{bad}: {_reason(body, http_reason)}")


def push(url: str, note: str, old_size: int, prove: Callable[[int], Sequence[bytes]], *,
         witness: Verifier | None = None, timeout: float = DEFAULT_TIMEOUT) -> SubmitResult:
    """Submit ``note`` from ``old_size`` (what the station last had cosigned, 0 if it does not
    know); if the witness holds another size, submit once more from that size.
    ``prove(old)`` gives the consistency proof from ``old`` to the checkpoint's size; it is
    asked only for sizes between 1 and the checkpoint's size, exclusive."""
    try:
        size = Checkpoint.parse(Note.parse(note).text).size
    except NoteError as exc:
        raise WitnessError(f"not a signed checkpoint: {exc}") from None

    def proof(old: int) -> Sequence[bytes]:
        return prove(old) if 0 < old < size else []

    got = submit(url, note, old_size, proof(old_size), witness=witness, timeout=timeout)
    if isinstance(got, WitnessSize) and got.size != old_size:
        got = submit(url, note, got.size, proof(got.size), witness=witness, timeout=timeout)
    return got


def _get(url: str, path: str, timeout: float) -> tuple[int, str]:
    base = check_url(url)
    try:
        status, _ctype, body, http_reason = _exchange(base + path, None, timeout)
    except _NoAnswer as exc:
        raise WitnessError(f"the witness at {base} {exc}") from None
    text = _text(body)
    if text is None:
        raise WitnessError(f"the witness at {base} answered {path} with bytes that are not "
                           f"UTF-8 text")
    if status not in (200, 404):
        raise WitnessError(f"the witness at {base} answered {path} with {status}: "
                           f"{_reason(body, http_reason)}")
    return status, text


def latest(url: str, origin: str, *, timeout: float = DEFAULT_TIMEOUT) -> str | None:
    """The latest checkpoint the witness cosigned for ``origin``, as a signed note (the
    station's signature and the cosignature), or None if it cosigned none."""
    status, text = _get(url, origin_path(CHECKPOINT, origin), timeout)
    if status == 404:
        return None
    try:
        got = Checkpoint.parse(Note.parse(text).text).origin
    except NoteError as exc:
        raise WitnessError(f"the witness at {check_url(url)} answered the checkpoint of "
                           f"{origin} with something that is not a signed checkpoint: "
                           f"{exc}") from None
    if got != origin:
        raise WitnessError(f"the witness at {check_url(url)} answered the checkpoint of "
                           f"{origin} with one of {got}")
    return text


def history(url: str, origin: str, *, timeout: float = DEFAULT_TIMEOUT) -> list[HistoryEntry]:
    """Every checkpoint the witness cosigned for ``origin``, oldest first."""
    status, text = _get(url, origin_path(HISTORY, origin), timeout)
    if status == 404:
        return []
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        entry = HistoryEntry.parse(line)
        if entry is None:
            raise WitnessError(f"the witness at {check_url(url)} answered the history of "
                               f"{origin} with line {n} that is not '<size> <root> <time>': "
                               f"{line[:80]!r}")
        out.append(entry)
    return out


def refusals(url: str, origin: str, *, timeout: float = DEFAULT_TIMEOUT) -> list[RefusalEntry]:
    """The requests for ``origin`` the witness refused, oldest first."""
    status, text = _get(url, origin_path(REFUSED, origin), timeout)
    if status == 404:
        raise WitnessError(f"the witness at {check_url(url)} does not list refusals "
                           f"(404 for {REFUSED})")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        entry = RefusalEntry.parse(line)
        if entry is None:
            raise WitnessError(f"the witness at {check_url(url)} answered the refusals of "
                               f"{origin} with line {n} that is not '<time> <status> <size> "
                               f"<reason>': {line[:80]!r}")
        out.append(entry)
    return out
