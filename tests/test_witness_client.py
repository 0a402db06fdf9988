"""The witness's client: every answer typed, every bad answer a sentence, never a traceback."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from witness_support import StationLog, running_witness

from dealer_station.audit import notes as n
from dealer_station.witness import client
from dealer_station.witness.client import Cosigned, Refused, Unreachable, WitnessSize
from dealer_station.witness.errors import WitnessError

ORIGIN = "casino.example/T1"


@pytest.fixture(scope="module")
def station() -> n.Signer:
    return n.Signer.generate("casino.example/pc7")


def test_the_four_answers_of_a_real_witness(tmp_path: Path, station: n.Signer) -> None:
    log = StationLog(ORIGIN, station).grow(10)
    with running_witness(tmp_path / "w", [station.verifier]) as w:
        got = client.submit(w.url, log.note(), 0, [], witness=w.key)
        assert isinstance(got, Cosigned) and got.time is not None
        note = n.Note.parse(got.note)
        assert note.signed_by(station.verifier) is not None
        assert n.cosigned_at(note, w.key) == got.time
        assert got.note == log.note() + "".join(got.lines)
        log.grow(20)
        assert client.submit(w.url + "/", log.note(), 0, []) == WitnessSize(10)
        got = client.submit(w.url, log.note(), 10, [])
        assert isinstance(got, Refused) and got.status == 409 and "not consistent" in got.reason
        # A cosignature by another witness than the one named is not taken for one.
        other = n.Signer.generate("regulator.example/w1", n.COSIGNATURE_KEY)
        got = client.submit(w.url, log.note(), 10, log.proof(10), witness=other.verifier)
        assert isinstance(got, Unreachable)
        assert "without a valid cosignature by regulator.example/w1" in got.why
        url = w.url
    # The witness is gone: unreachable, with why.
    got = client.submit(url, log.note(), 20, [])
    assert isinstance(got, Unreachable) and "cannot be reached" in got.why and url in got.why
    with pytest.raises(WitnessError, match="cannot be reached"):
        client.latest(url, ORIGIN)
    with pytest.raises(WitnessError, match="cannot be reached"):
        client.history(url, ORIGIN)


def test_a_witness_that_never_answers_times_out(station: n.Signer) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)           # accepts the connection, never reads or answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        got = client.submit(url, StationLog(ORIGIN, station).grow(1).note(), 0, [],
                            timeout=0.3)
    assert isinstance(got, Unreachable) and "no answer within 0.3 s" in got.why


@pytest.mark.parametrize("url", ["", "127.0.0.1:8080", "ftp://w.example", "http://",
                                 "http://w.example:port", "http://w.example/?q=1"])
def test_a_bad_url_is_a_sentence(url: str, station: n.Signer) -> None:
    got = client.submit(url, StationLog(ORIGIN, station).grow(1).note(), 0, [])
    assert isinstance(got, Unreachable) and "URL" in got.why
    with pytest.raises(WitnessError, match="URL"):
        client.check_url(url)


class CannedServer(ThreadingHTTPServer):
    """A server that answers whatever it was told to, to stand for a witness gone wrong."""

    answer: tuple[int, str, bytes] = (200, "text/plain", b"")


class _Canned(BaseHTTPRequestHandler):
    server: CannedServer

    def _reply(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        status, ctype, body = self.server.answer
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _reply

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def canned() -> Iterator[tuple[str, CannedServer]]:
    server = CannedServer(("127.0.0.1", 0), _Canned)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.parametrize(("answer", "expect"), [
    ((200, "text/plain", b""), "without cosignature lines"),
    ((200, "text/html", b"<html>proxy login</html>"), "without cosignature lines"),
    ((200, "text/plain", "\u2014 w notbase64!\n".encode()), "not signatures"),
    ((200, "text/plain", b"\xff\xfe"), "without cosignature lines"),
    ((409, "text/x.tlog.size", b"twelve\n"), "not a decimal"),
    ((409, "text/x.tlog.size", b"012\n"), "not a decimal"),
    ((500, "text/plain", b"disk full\n"), "answered 500: disk full"),
    ((502, "text/html", b""), "answered 502"),
])
def test_bad_answers_are_unreachable_with_why(canned: tuple[str, CannedServer],
                                              station: n.Signer,
                                              answer: tuple[int, str, bytes],
                                              expect: str) -> None:
    url, server = canned
    server.answer = answer
    got = client.submit(url, StationLog(ORIGIN, station).grow(3).note(), 0, [])
    assert isinstance(got, Unreachable) and expect in got.why, got


def test_other_client_errors_are_refusals_with_the_witness_s_reason(
        canned: tuple[str, CannedServer], station: n.Signer) -> None:
    url, server = canned
    server.answer = (422, "text/plain", b"the proof does not verify\n")
    assert client.submit(url, StationLog(ORIGIN, station).grow(3).note(), 0, []) == \
        Refused(422, "the proof does not verify")
    server.answer = (404, "text/plain", b"")
    got = client.submit(url, StationLog(ORIGIN, station).grow(3).note(), 0, [])
    assert isinstance(got, Refused) and got.status == 404 and got.reason


@pytest.mark.parametrize(("call", "answer", "expect"), [
    ("latest", (200, "text/plain", b"not a note"), "not a signed checkpoint"),
    ("latest", (500, "text/plain", b"boom"), "with 500: boom"),
    ("history", (200, "text/plain", b"12 AAAA 99\n"), "line 1 that is not"),
    ("history", (200, "text/plain", b"\xff"), "not UTF-8"),
    ("refusals", (200, "text/plain", b"yesterday 409 - bad\n"), "line 1 that is not"),
    ("refusals", (404, "text/plain", b""), "does not list refusals"),
])
def test_bad_read_answers_are_witness_errors(canned: tuple[str, CannedServer],
                                             call: str, answer: tuple[int, str, bytes],
                                             expect: str) -> None:
    url, server = canned
    server.answer = answer
    with pytest.raises(WitnessError, match=expect):
        getattr(client, call)(url, ORIGIN)


def test_a_checkpoint_of_another_origin_is_not_taken(canned: tuple[str, CannedServer],
                                                     station: n.Signer) -> None:
    url, server = canned
    note = StationLog("casino.example/T9", station).grow(3).note()
    server.answer = (200, "text/plain", note.encode())
    with pytest.raises(WitnessError, match=r"with one of casino\.example/T9"):
        client.latest(url, ORIGIN)
    assert client.latest(url, "casino.example/T9") == note


def test_push_learns_the_witness_s_size_and_goes_on_from_it(tmp_path: Path,
                                                            station: n.Signer) -> None:
    log = StationLog(ORIGIN, station)
    asked: list[int] = []

    def prove(old: int) -> list[bytes]:
        asked.append(old)
        return log.proof(old)

    with running_witness(tmp_path / "w", [station.verifier]) as w:
        assert isinstance(client.push(w.url, log.grow(10).note(), 0, prove, witness=w.key),
                          Cosigned)
        # A station that lost track of the witness's size sends from 0 and is put right.
        got = client.push(w.url, log.grow(25).note(), 0, prove, witness=w.key)
        assert isinstance(got, Cosigned) and asked == [10]
        assert isinstance(client.push(w.url, log.grow(40).note(), 25, prove), Cosigned)
        assert asked == [10, 25]
        # A journal cut back below what the witness holds is refused, and kept.
        short = StationLog(ORIGIN, station).grow(30)
        got = client.push(w.url, short.note(), 0, short.proof)
        assert isinstance(got, Refused) and got.status == 409
        assert "smaller than size 40" in got.reason
        assert [r.size for r in w.witness.state.refusals(ORIGIN)] == [30]
        # Dealt again past it: the proof from 40 does not hold.
        forged = StationLog(ORIGIN, station, tag=b"again").grow(60)
        got = client.push(w.url, forged.note(), 0, forged.proof)
        assert isinstance(got, Refused) and got.status == 409
        assert "not consistent with size 40" in got.reason
    with pytest.raises(WitnessError, match="not a signed checkpoint"):
        client.push(w.url, "casino\n", 0, prove)
