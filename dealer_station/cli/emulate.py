"""``dealer-station emulate shoe|reader``: a simulated device on a pseudo-terminal.

It prints the port's path; point a station's config (or ``dealer-station devices --watch``) at
that path, or at ``--link``, exactly as at a real port. Cards are dealt on Enter or every
``--interval`` seconds (interval dealing starts once a host has spoken, so a host that opens
the port late misses nothing); the emulator stops on Ctrl-C, when stdin closes, or after
``--count`` cards have been dealt and acknowledged.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from dealer_station import registry as games

if TYPE_CHECKING:
    from dealer_station.hardware.ptyport import PtyWire
    from dealer_station.hardware.simulator import SimulatedDevice

HELP = ("Enter: deal a card | card QH [POS]: report that card | a fault name (noise, drop, "
        "duplicate, badcrc, disconnect, misread, ackdrop, gap): apply it once | status JAM | "
        "error CODE TEXT | shoe: a new shoe | silent / wake | q: quit")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "emulate", help="pretend to be a card shoe or card reader on a pseudo-terminal",
        description="Open a pseudo-terminal, print its path and behave on it as a real card "
                    "shoe or card reader: a shuffled deck, heartbeats, re-sends, and faults on "
                    "demand. " + HELP)
    p.add_argument("role", choices=("shoe", "reader"))
    p.add_argument("--game", choices=games.names(), default=games.names()[0],
                   help="which deck to shuffle (La Pair'e: 54 cards with 2 jokers; Bourré: 52)")
    p.add_argument("--seed", type=int, help="shuffle seed, for a repeatable order")
    p.add_argument("--cards", help="the exact order to deal, e.g. AS,KH,JK,10D")
    p.add_argument("--interval", type=float, metavar="SEC",
                   help="deal a card every SEC seconds (0: as fast as the host acknowledges)")
    p.add_argument("--count", type=int, metavar="N", help="stop after N cards")
    p.add_argument("--baud", type=int, default=9600, help="recorded on the terminal (a "
                   "pseudo-terminal carries bytes at once whatever the speed)")
    p.add_argument("--faults", default="", metavar="LIST",
                   help="fault rates, e.g. noise=0.01,drop=0.01,duplicate=0.01,badcrc=0.01 "
                        "(a bare name means 0.02)")
    p.add_argument("--fault-seed", type=int, help="seed for the fault dice")
    p.add_argument("--link", metavar="PATH",
                   help="keep PATH a symlink to the port, also across simulated disconnects")
    p.add_argument("--device-id", help="the id in every frame (default SHOE1 / READER1)")
    p.add_argument("--heartbeat", type=float, default=1.0, metavar="SEC",
                   help="seconds between heartbeats (default 1)")
    p.add_argument("--first-seq", type=int, default=0, help="the first frame's seq (0-9999)")
    p.add_argument("--no-input", action="store_true",
                   help="ignore stdin (run until Ctrl-C or --count)")
    p.add_argument("--quiet", action="store_true",
                   help="print only the port's path and the closing summary")
    p.add_argument("--stamp", action="store_true",
                   help="print a line for every frame the moment its last byte is written: "
                        "'wrote TYPE seq N at T' (T: the system's monotonic clock, in "
                        "seconds), for timing the host from another process")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dealer_station.cards import parse_cards
    from dealer_station.hardware.backends import BAUD_RATES
    from dealer_station.hardware.errors import DeviceInitError, DeviceOperationError
    from dealer_station.hardware.ptyport import PtyWire
    from dealer_station.hardware.simulator import FaultRates, SimulatedDevice

    if args.baud not in BAUD_RATES:
        raise DeviceInitError(f"--baud {args.baud} is not one of "
                              f"{', '.join(map(str, BAUD_RATES))}")
    if args.interval is not None and args.interval < 0:
        raise DeviceInitError("--interval must be 0 or more seconds")
    if args.count is not None and args.count < 1:
        raise DeviceInitError("--count must be at least 1")
    if not 0.05 <= args.heartbeat <= 60:
        raise DeviceInitError("--heartbeat must be 0.05-60 seconds")
    if not 0 <= args.first_seq <= 9999:
        raise DeviceInitError("--first-seq must be 0-9999")
    deck = games.game(args.game).deck
    cards = parse_cards(c for c in args.cards.split(",") if c.strip()) if args.cards else None
    faults = FaultRates.parse(args.faults)
    quiet = args.quiet

    def say(text: str) -> None:
        if not quiet:
            print(text, flush=True)

    wire_class = _stamped_wire_class() if args.stamp else PtyWire

    def open_pty() -> PtyWire:
        try:
            return wire_class(args.link, baudrate=args.baud)
        except (FileExistsError, OSError) as exc:
            raise DeviceInitError(f"cannot open a pseudo-terminal: {exc}") from None

    def replug() -> PtyWire:
        wire = open_pty()
        say(f"port re-opened on {wire.path}" + (f" (link {wire.link})" if wire.link else ""))
        return wire

    try:
        sim = SimulatedDevice(
            args.role, device_id=args.device_id, deck=deck, seed=args.seed, cards=cards,
            faults=faults, interval=args.interval, count=args.count,
            auto_new_shoe=cards is None, heartbeat=args.heartbeat, first_seq=args.first_seq,
            fault_seed=args.fault_seed,
            replug=replug, on_log=(None if quiet else lambda text: print(f"  {text}", flush=True)),
        )
    except ValueError as exc:
        raise DeviceInitError(f"--device-id: {exc}") from None
    wire = open_pty()
    link = f" (link {wire.link})" if wire.link else ""
    print(f"{args.role} emulator {sim.device_id} on {wire.path}{link}", flush=True)
    say(HELP)
    sim.attach(wire)
    try:
        _loop(sim, args, say, DeviceOperationError)
    except KeyboardInterrupt:
        say("stopped")
    finally:
        sim.close()
    s = sim.stats
    print(f"{s.cards_dealt} cards dealt, {s.cards_confirmed} acknowledged; {s.frames} frames, "
        f"{s.resends} re-sent, {s.held} held for a QUERY", flush=True)
    return 0


def _stamped_wire_class() -> type[PtyWire]:
    from dealer_station.hardware.ptyport import PtyWire

    class Stamped(PtyWire):
        """Says when each frame's last byte went to the line (see --stamp)."""

        def write(self, data: bytes) -> None:
            super().write(data)
            at = time.monotonic()
            fields = data.split(b"*", 1)[0].split(b",")
            if len(fields) >= 3:
                print(f"wrote {fields[2].decode('ascii', 'replace')} seq "
                      f"{fields[1].decode('ascii', 'replace')} at {at:.6f}", flush=True)

    return Stamped


def _loop(sim: SimulatedDevice, args: argparse.Namespace, say: Callable[[str], None],
          op_error: type[Exception]) -> None:
    lines: queue.Queue[str | None] = queue.Queue()
    if not args.no_input:
        threading.Thread(target=_read_stdin, args=(lines,), daemon=True,
                         name="emulate-stdin").start()
    while True:
        if args.count is not None and sim.stats.cards_dealt >= args.count:
            if sim.wait_idle(0.2):
                return
            continue
        try:
            command = lines.get(timeout=0.1)
        except queue.Empty:
            continue
        if command is None:          # stdin closed: let the last cards through, then stop
            sim.wait_idle(2.0)
            return
        if _command(sim, command.strip(), say, op_error):
            return


def _read_stdin(lines: queue.Queue[str | None]) -> None:
    # A thread rather than select(): works for terminals and pipes alike.
    try:
        for line in sys.stdin:
            lines.put(line)
    finally:
        lines.put(None)


def _command(sim: SimulatedDevice, command: str, say: Callable[[str], None],
             op_error: type[Exception]) -> bool:
    """Run one typed command; True means quit."""
    from dealer_station.cards import CardError
    from dealer_station.hardware.simulator import FAULTS

    word, _, rest = command.partition(" ")
    word = word.lower()
    try:
        if word in ("", "d", "deal"):
            card = sim.deal()
            say(f"dealt {card.code} ({sim.remaining} left)")
        elif word in ("q", "quit", "exit"):
            return True
        elif word in FAULTS:
            sim.inject(word)
            say(f"{word}: applied to the next card frame" if word != "disconnect"
                else "disconnect: unplugging")
        elif word == "card":
            parts = rest.split()
            if not parts:
                raise op_error("card needs a code, e.g. card QH 3")
            position = int(parts[1]) if len(parts) > 1 else None
            sent = sim.send_card(parts[0], position)
            say(f"reported {sent.code}" + (f" at {position}" if position is not None else ""))
        elif word == "status":
            sim.set_status(rest.strip().upper())
        elif word == "error":
            code, _, text = rest.strip().partition(" ")
            sim.report_error(code.upper() or "FAULT", text)
        elif word == "shoe":
            sim.new_shoe()
            say(f"new shoe: {sim.remaining} cards")
        elif word in ("silent", "wake"):
            sim.set_silent(word == "silent")
        else:
            say(HELP)
    except (op_error, CardError, ValueError) as exc:
        say(f"cannot: {exc}")
    return False
