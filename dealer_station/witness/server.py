"""The witness's HTTP service (standard library ``http.server``, a thread per connection,
HTTP/1.1 keep-alive).

- ``POST /add-checkpoint``: C2SP tlog-witness, with the rules of ``checks``;
- ``GET /checkpoint/<origin>``: the latest cosigned checkpoint, with the station's signature
  and the cosignature (404 if none);
- ``GET /history/<origin>``: every checkpoint cosigned, ``<size> <base64 root> <unix time>``
  a line, oldest first (404 if none);
- ``GET /refused/<origin>``: the refusals, ``<unix time> <status> <size or -> <reason>`` a line.

The origin in a path is percent-encoded (its '/' as %2F; an unencoded '/' is read the same).
"""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from dealer_station.witness.errors import WitnessError
from dealer_station.witness.service import Outcome, Witness
from dealer_station.witness.wire import (
    ADD_CHECKPOINT,
    CHECKPOINT,
    HISTORY,
    MAX_BODY,
    REFUSED,
    TEXT_TYPE,
    one_line,
    origin_from_path,
)

Log = Callable[[str], None]


def _quiet(_line: str) -> None:
    pass


class WitnessServer(ThreadingHTTPServer):
    """The service bound to an address; ``serve_forever`` answers until ``shutdown``."""

    daemon_threads = True
    #: Connections waiting to be accepted (a floor's stations may push at once).
    request_queue_size = 128

    def __init__(self, witness: Witness, host: str, port: int, log: Log = _quiet) -> None:
        self.witness = witness
        self.log = log
        self._log_lock = threading.Lock()
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            super().__init__((host, port), WitnessHandler)
        except OSError as exc:
            raise WitnessError(f"cannot listen on {host}:{port}: "
                               f"{exc.strerror or exc}") from None

    def server_bind(self) -> None:
        # HTTPServer's own looks the host's name up in DNS, which can take seconds.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.host, self.port

    @property
    def host(self) -> str:
        host = self.server_address[0]
        return host.decode() if isinstance(host, bytes) else str(host)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}"

    def say(self, line: str) -> None:
        with self._log_lock:
            self.log(line)


class WitnessHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: WitnessServer
    #: The headers and the body leave in two writes; without TCP_NODELAY the body of a
    #: keep-alive answer waits for the client's delayed acknowledgement (40 ms).
    disable_nagle_algorithm = True
    #: An idle keep-alive connection is closed after this many seconds.
    timeout = 60

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per decision is logged instead, by the service

    def _send(self, status: int, body: str, content_type: str = TEXT_TYPE) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _fail(self, exc: Exception) -> None:
        reason = one_line(f"the witness failed: {type(exc).__name__}: {exc}")
        self.server.say(f"error {self.command} {self.path[:80]}: {reason}")
        self.close_connection = True
        self._send(500, reason + "\n")

    # --- POST /add-checkpoint ---------------------------------------------------------------

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if path != ADD_CHECKPOINT:
            self._read_and_drop()
            self._send(404, f"no such resource: {path[:80]}\n")
            return
        length_text = self.headers.get("Content-Length")
        try:
            length = int(length_text) if length_text is not None else -1
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self.close_connection = True   # the body, if any, is left unread
            reason = ("a request needs a Content-Length" if length < 0 else
                      f"the request is larger than {MAX_BODY} bytes")
            self.server.say(f"refused a request (400): {reason}")
            self._send(400, reason + "\n")
            return
        body = self.rfile.read(length)
        if len(body) != length:
            self.close_connection = True
            return   # the client went away mid-request: nothing to answer
        try:
            outcome = self.server.witness.add_checkpoint(body)
        except Exception as exc:   # the state failed (disk full, lock timeout): 500, no crash
            self._fail(exc)
            return
        self._answer(outcome)

    def _answer(self, outcome: Outcome) -> None:
        self.server.say(outcome.line())
        self._send(outcome.status, outcome.body, outcome.content_type)

    def _read_and_drop(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if 0 <= length <= MAX_BODY:
            self.rfile.read(length)
        else:
            self.close_connection = True

    # --- GET ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        try:
            for prefix, answer in ((CHECKPOINT, self._checkpoint), (HISTORY, self._history),
                                   (REFUSED, self._refused)):
                if path.startswith(prefix):
                    origin = origin_from_path(path, prefix)
                    if origin is None:
                        self._send(400, f"no origin in {path[:80]!r}\n")
                    else:
                        answer(origin)
                    return
            self._send(404, f"no such resource: {path[:80]}\n")
        except Exception as exc:
            self._fail(exc)

    def _checkpoint(self, origin: str) -> None:
        latest = self.server.witness.state.latest(origin)
        if latest is None:
            self._send(404, f"no checkpoint of {origin} has been cosigned here\n")
        else:
            self._send(200, latest.note)

    def _history(self, origin: str) -> None:
        entries = self.server.witness.state.history(origin)
        if not entries:
            self._send(404, f"no checkpoint of {origin} has been cosigned here\n")
        else:
            self._send(200, "".join(e.line() for e in entries))

    def _refused(self, origin: str) -> None:
        refusals = self.server.witness.state.refusals(origin)
        self._send(200, "".join(r.entry().line() for r in refusals))
