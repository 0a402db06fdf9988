"""Hardware layer figures: card latency over a pseudo-terminal, parser and link throughput.

    .venv/bin/python benchmarks/bench_hardware.py [--cards 1000]

1. Latency: the benchmark plays a shoe on the master side of a real pseudo-terminal and the
   station's driver (``serial`` backend, pyserial) reads the slave side. For each of N cards
   it writes one CARD frame and measures until the driver's ``on_event`` receives the
   ``CardRead`` (which includes decoding, the seq check and writing the ACK). The clock starts
   just before the write call (the reader thread may run before the call returns), so the
   figure includes the write itself. Median, 99th percentile and maximum, at 9600 and 115200
   baud. A pseudo-terminal moves bytes at memory speed whatever the baud rate, so the time the
   frame would spend on a real wire is printed separately (8N1: 10 bits a byte; a 27-byte
   frame is 28 ms at 9600 baud, 2.3 ms at 115200). Target: p99 under 5 ms beyond wire time.
2. Parser: sustained frames per second through ``protocol.Deframer`` fed 4 KiB chunks.
3. Round trips: cards per second through the whole stop-and-wait protocol (device sends,
   host ACKs, device sends the next) for the in-memory ``simulated`` backend and for the
   emulator's engine over a pseudo-terminal.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dealer_station.cards import LAPAIRE_DECK  # noqa: E402
from dealer_station.hardware import protocol as p  # noqa: E402
from dealer_station.hardware.backends import open_device  # noqa: E402
from dealer_station.hardware.events import CardRead, DeviceEvent, DeviceIdentified  # noqa: E402
from dealer_station.hardware.ptyport import PtyWire  # noqa: E402
from dealer_station.hardware.simulator import SimulatedDevice  # noqa: E402


def wire_ms(nbytes: int, baud: int) -> float:
    return nbytes * 10 / baud * 1000          # 8N1: 10 bits a byte


def latency(baud: int, n: int, tmp: Path) -> tuple[list[float], int]:
    link = tmp / f"bench-{baud}"
    device = PtyWire(link, baudrate=baud)
    got = threading.Event()
    stamp: list[float] = [0.0]

    def on_event(event: DeviceEvent) -> None:
        if isinstance(event, CardRead):
            stamp[0] = time.perf_counter()
            got.set()

    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1", baudrate=baud,
                         on_event=on_event)
    try:
        while b"QUERY" not in device.read(1.0):     # the driver is listening
            pass
        cards = itertools.cycle(LAPAIRE_DECK.cards())
        samples: list[float] = []
        size = 0
        for i in range(n + 20):                      # the first 20 are warm-up
            frame = p.encode("SHOE1", i % p.SEQ_MODULO, p.CARD, next(cards).code)
            size = max(size, len(frame))
            got.clear()
            # Timed from just before the write: the reader thread can run before write()
            # returns, so this is the conservative end (it includes the write call itself).
            t0 = time.perf_counter()
            device.write(frame)
            if not got.wait(2.0):
                raise RuntimeError(f"card {i} never arrived")
            if i >= 20:
                samples.append((stamp[0] - t0) * 1000)
            device.read(0)                           # take the ACK off the line
        return samples, size
    finally:
        handle.close()
        device.close()


def parser_rate(frames: int = 200_000) -> float:
    cards = itertools.cycle(LAPAIRE_DECK.cards())
    stream = b"".join(
        p.encode("SHOE1", i % p.SEQ_MODULO, p.CARD, next(cards).code) if i % 5 else
        p.encode("SHOE1", i % p.SEQ_MODULO, p.HB) for i in range(frames))
    deframer = p.Deframer()
    t0 = time.perf_counter()
    count = 0
    for pos in range(0, len(stream), 4096):
        count += len(deframer.feed(stream[pos:pos + 4096]))
    elapsed = time.perf_counter() - t0
    assert count == frames
    return frames / elapsed


def simulated_rate(n: int) -> float:
    done = threading.Event()
    seen = [0]

    def on_event(event: DeviceEvent) -> None:
        if isinstance(event, CardRead):
            seen[0] += 1
            if seen[0] == n:
                done.set()

    with open_device("shoe", "simulated", on_event=on_event, auto_new_shoe=True, seed=1) as h:
        sim = h.simulator
        assert sim is not None
        t0 = time.perf_counter()
        for _ in range(n):
            sim.deal()
        if not done.wait(60):
            raise RuntimeError("simulated cards did not all arrive")
        return n / (time.perf_counter() - t0)


def pty_rate(n: int, tmp: Path) -> float:
    link = tmp / "bench-rate"
    ready = threading.Event()
    done = threading.Event()
    seen = [0]

    def on_event(event: DeviceEvent) -> None:
        if isinstance(event, DeviceIdentified):
            ready.set()
        if isinstance(event, CardRead):
            seen[0] += 1
            if seen[0] == n:
                done.set()

    sim = SimulatedDevice("shoe", seed=1, auto_new_shoe=True)
    sim.attach(PtyWire(link))
    handle = open_device("shoe", "serial", url=str(link), device_id="SHOE1", baudrate=115200,
                         on_event=on_event)
    try:
        ready.wait(5)
        t0 = time.perf_counter()
        for _ in range(n):
            sim.deal()
        if not done.wait(120):
            raise RuntimeError("pty cards did not all arrive")
        return n / (time.perf_counter() - t0)
    finally:
        handle.close()
        sim.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=1000)
    args = ap.parse_args()
    print(f"hardware benchmark: {args.cards} cards per latency run (python "
          f"{sys.version.split()[0]})")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        print("\nCARD frame written to a pseudo-terminal -> CardRead delivered (ms)")
        print(f"{'baud':>7} {'median':>8} {'p99':>8} {'max':>8}   wire time of the frame "
              "on a real line (not included)")
        for baud in (9600, 115200):
            samples, size = latency(baud, args.cards, tmp)
            q = statistics.quantiles(samples, n=100)
            print(f"{baud:>7} {statistics.median(samples):8.3f} {q[98]:8.3f} "
                  f"{max(samples):8.3f}   {wire_ms(size, baud):.1f} ms for {size} bytes")
        print(f"\nparser: {parser_rate():,.0f} frames/s sustained (Deframer, 4 KiB chunks)")
        print("\nstop-and-wait round trips (device sends, host ACKs, device sends the next):")
        print(f"  simulated backend (in memory): {simulated_rate(5000):,.0f} cards/s")
        print(f"  pseudo-terminal, 115200 baud:  {pty_rate(5000, tmp):,.0f} cards/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
