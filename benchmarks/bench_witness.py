"""The regulator's witness: cosignatures per second.

    .venv/bin/python benchmarks/bench_witness.py [--checkpoints N] [--origins K] [--round R]

A station's log grows by R records (a round) between checkpoints; each checkpoint is signed
with the station's key and sent with its consistency proof from the last one cosigned. The
requests are made beforehand, so the figures are the witness's: parse the request, check the
station's Ed25519 signature and the consistency proof, cosign, and commit the new checkpoint
(SQLite WAL, synchronous=FULL) before answering.

Measured:
- the service alone, in this process (no HTTP);
- the real `dealer-station witness serve` in its own process, one origin: with the client
  (urllib, a connection per request, as a station pushes) and over one keep-alive connection;
- the same with K origins (tables) pushing in turn, and from 4 threads at once.
"""

from __future__ import annotations

import argparse
import http.client
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from dealer_station.audit import merkle as m
from dealer_station.audit import notes as n
from dealer_station.witness import client
from dealer_station.witness.files import init_state, open_state
from dealer_station.witness.service import Witness
from dealer_station.witness.wire import request_body

Request = tuple[str, int, list[bytes]]       # note, old size, proof


class Log:
    def __init__(self, origin: str, signer: n.Signer) -> None:
        self.origin, self.signer = origin, signer
        self.frontier = m.Frontier()
        self.nodes: dict[tuple[int, int], bytes] = {}

    def grow(self, count: int) -> None:
        for _ in range(count):
            leaf = m.leaf_hash(b"record %d of %s" % (self.frontier.size, self.origin.encode()))
            for level, index, h in self.frontier.append(leaf):
                self.nodes[(level, index)] = h

    def request(self, old: int) -> Request:
        size = self.frontier.size
        note = n.sign_checkpoint(self.signer, n.Checkpoint(self.origin, size,
                                                           self.frontier.root())).render()
        proof = m.consistency_proof(lambda lv, i: self.nodes[(lv, i)], old, size) if old else []
        return note, old, proof


def make_requests(signer: n.Signer, origins: int, per_origin: int, round_size: int,
                  prefix: str) -> list[Request]:
    """Checkpoints of ``origins`` logs, interleaved (every table closes a round in turn)."""
    logs = [Log(f"{prefix}/T{i + 1}", signer) for i in range(origins)]
    out: list[Request] = []
    t0 = time.perf_counter()
    for step in range(per_origin):
        for log in logs:
            old = log.frontier.size
            log.grow(round_size)
            out.append(log.request(old if step else 0))
    per = (time.perf_counter() - t0) / len(out) * 1e6
    print(f"  (station side: {per:.0f} µs per checkpoint to grow {round_size} records, sign "
          f"and prove)")
    return out


def report(label: str, latencies: list[float], wall: float) -> None:
    lat = sorted(latencies)
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
    print(f"{label:<58} {len(lat) / wall:8.0f} cosignatures/s   "
          f"p50 {statistics.median(lat) * 1e3:6.2f} ms   p99 {p99 * 1e3:6.2f} ms")


def run_in_process(wdir: Path, trusted: list[n.Verifier], reqs: list[Request],
                   label: str) -> None:
    signer, state = open_state(wdir)
    witness = Witness(signer, trusted, state)
    bodies = [request_body(*r) for r in reqs]
    lat = []
    t0 = time.perf_counter()
    for body in bodies:
        t = time.perf_counter()
        out = witness.add_checkpoint(body)
        lat.append(time.perf_counter() - t)
        assert out.status == 200, out
    report(label, lat, time.perf_counter() - t0)
    state.close()


def start_server(wdir: Path, pub: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "dealer_station", "witness", "serve", "--state", str(wdir),
         "--listen", "127.0.0.1:0", "--trust", str(pub)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    ready = proc.stdout.readline()
    url = ready.rsplit(" ", 1)[-1].strip()
    if not url.startswith("http://"):
        raise SystemExit(f"the witness did not start: {ready!r}")
    stdout = proc.stdout
    threading.Thread(target=lambda: [None for _ in stdout], daemon=True).start()   # drain
    return proc, url


def with_urllib(url: str) -> Callable[[Request], None]:
    def send(req: Request) -> None:
        got = client.submit(url, *req)
        assert isinstance(got, client.Cosigned), got
    return send


def with_keep_alive(url: str) -> Callable[[Request], None]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=60)

    def send(req: Request) -> None:
        conn.request("POST", "/add-checkpoint", body=request_body(*req))
        resp = conn.getresponse()
        body = resp.read()
        assert resp.status == 200, (resp.status, body)
    return send


def run_over_http(make_sender: Callable[[], Callable[[Request], None]],
                  batches: list[list[Request]], label: str) -> None:
    """Each batch from its own thread, in order; every thread its own sender."""
    lat: list[float] = []
    lock = threading.Lock()
    errors: queue.Queue[BaseException] = queue.Queue()

    def worker(batch: list[Request]) -> None:
        send = make_sender()
        mine = []
        try:
            for req in batch:
                t = time.perf_counter()
                send(req)
                mine.append(time.perf_counter() - t)
        except BaseException as exc:
            errors.put(exc)
        with lock:
            lat.extend(mine)

    threads = [threading.Thread(target=worker, args=(b,)) for b in batches]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if not errors.empty():
        raise errors.get()
    report(label, lat, wall)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpoints", type=int, default=2000, help="checkpoints per run")
    ap.add_argument("--origins", type=int, default=100, help="origins in the many-origin runs")
    ap.add_argument("--round", type=int, default=12, help="records between checkpoints")
    args = ap.parse_args()
    station = n.Signer.generate("casino.example/pc7")
    per_origin = max(1, args.checkpoints // args.origins)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pub = root / "station.pub"
        pub.write_text(station.verifier.vkey() + "\n")
        print(f"{args.checkpoints} checkpoints, {args.round} records apart; "
              f"{args.origins} origins x {per_origin} in the many-origin runs")

        def fresh(name: str) -> Path:
            wdir = root / name
            init_state(wdir, "regulator.example/w1")
            return wdir

        print("one origin:")
        reqs = make_requests(station, 1, args.checkpoints, args.round, "one")
        run_in_process(fresh("inproc"), [station.verifier], reqs,
                       "  the service in-process (no HTTP)")
        for label, sender in (("client (urllib, a connection each)", with_urllib),
                              ("one keep-alive connection", with_keep_alive)):
            proc, url = start_server(fresh(label.split()[0]), pub)
            try:
                run_over_http(partial(sender, url), [reqs], f"  witness serve, {label}")
            finally:
                proc.terminate()
                proc.wait()

        print(f"{args.origins} origins:")
        many = make_requests(station, args.origins, per_origin, args.round, "many")
        run_in_process(fresh("inproc-many"), [station.verifier], many,
                       "  the service in-process (no HTTP)")
        proc, url = start_server(fresh("many-urllib"), pub)
        try:
            run_over_http(partial(with_urllib, url), [many],
                          "  witness serve, client (urllib), in turn")
        finally:
            proc.terminate()
            proc.wait()
        # 4 stations at once, each with its own origins, each over a keep-alive connection.
        batches = [[r for i, r in enumerate(many) if i % args.origins % 4 == k] for k in range(4)]
        proc, url = start_server(fresh("many-4"), pub)
        try:
            run_over_http(partial(with_keep_alive, url), batches,
                          "  witness serve, 4 stations at once, keep-alive")
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
