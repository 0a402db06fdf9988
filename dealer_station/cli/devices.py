"""``dealer-station devices``: list serial ports, or watch one device and print every event.

``--watch PATH-OR-URL`` opens the port with the same driver a station uses and prints each
event on one line with the wall-clock time: cards, status, identity, faults, connection
changes and recovered line problems. It runs until Ctrl-C, ``--count`` cards or ``--seconds``.
"""

from __future__ import annotations

import argparse
import queue
import time
from datetime import datetime


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "devices", help="list serial ports, or watch a card shoe or reader and print its events",
        description="Without --watch: list the serial ports this computer has. With --watch: "
                    "open that port (a device path, a pseudo-terminal from "
                    "'dealer-station emulate', or a pyserial URL such as loop://) and print "
                    "every event, one line each, with the time.")
    p.add_argument("--watch", metavar="PATH-OR-URL", help="the port to watch")
    p.add_argument("--role", choices=("shoe", "reader"), default="shoe")
    p.add_argument("--baud", type=int, default=9600)
    p.add_argument("--device-id", help="accept only this device id (default: any)")
    p.add_argument("--count", type=int, metavar="N", help="stop after N cards")
    p.add_argument("--seconds", type=float, metavar="SEC", help="stop after SEC seconds")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.watch:
        return _list_ports()
    from dealer_station.hardware import protocol
    from dealer_station.hardware.backends import BAUD_RATES, open_device
    from dealer_station.hardware.errors import DeviceInitError

    if args.device_id is not None and not protocol.valid_device_id(args.device_id):
        raise DeviceInitError(f"--device-id {args.device_id!r}: a device id is 1-16 letters, "
                              "digits, '-' or '_' (and not ANY)")
    if args.baud not in BAUD_RATES:
        raise DeviceInitError(f"--baud {args.baud}: must be one of "
                              f"{', '.join(map(str, BAUD_RATES))}")
    if args.count is not None and args.count < 1:
        raise DeviceInitError(f"--count {args.count}: must be at least 1")
    if args.seconds is not None and not args.seconds > 0:
        raise DeviceInitError(f"--seconds {args.seconds:g}: must be above 0")
    from dealer_station.hardware.events import CardRead, DeviceEvent

    # The driver calls back on its reader thread; printing happens here, on the main thread.
    events: queue.Queue[DeviceEvent] = queue.Queue()
    cards = 0
    deadline = None if args.seconds is None else time.monotonic() + args.seconds
    handle = open_device(args.role, "serial", url=args.watch, device_id=args.device_id,
                         baudrate=args.baud, on_event=events.put)
    try:
        while deadline is None or time.monotonic() < deadline:
            try:
                event = events.get(timeout=0.1)
            except queue.Empty:
                continue
            print(_line(event), flush=True)
            if isinstance(event, CardRead):
                cards += 1
                if args.count is not None and cards >= args.count:
                    break
    except KeyboardInterrupt:
        pass
    finally:
        handle.close()
    while not events.empty():
        print(_line(events.get()), flush=True)
    return 0


def _line(event: object) -> str:
    from dealer_station.hardware.events import DeviceEvent

    assert isinstance(event, DeviceEvent)
    stamp = datetime.now().strftime("%H:%M:%S.%f")[:-3]
    dev = event.device_id or "-"
    return f"{stamp}  {event.device:<6} {dev:<8} {event.describe()}"


def _list_ports() -> int:
    from serial.tools import list_ports

    ports = sorted(list_ports.comports(), key=lambda port: port.device)
    if not ports:
        print("no serial ports found (a USB shoe may be unplugged; "
              "'dealer-station emulate shoe' makes a pretend one)")
        return 0
    for port in ports:
        print(f"{port.device}\t{port.description}\t{port.hwid}")
    return 0
