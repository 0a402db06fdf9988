"""``dealer-station witness``: the regulator's witness, which cosigns a station's signed
checkpoints only when each extends what it cosigned before (C2SP tlog-witness).

``witness init --state WDIR`` makes the witness's folder, key and state; ``witness serve
--state WDIR --listen HOST:PORT --trust station.pub`` answers until SIGINT or SIGTERM, printing
one line when ready and one per checkpoint decided. See docs/witness.md.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from dealer_station.errors import StationError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("witness", help="the regulator's witness: cosigns checkpoints that "
                                       "extend what it cosigned",
                       description=__doc__)
    wsub = p.add_subparsers(dest="witness_command", metavar="COMMAND")
    i = wsub.add_parser("init", help="make the witness's folder, key and state",
                        description="Make WDIR (mode 0700) with witness.key (the private "
                                    "cosigner key, 0600, never replaced), witness.pub (its "
                                    "public key, for verifiers) and witness.db (the state).")
    i.add_argument("--state", type=Path, required=True, metavar="WDIR",
                   help="the witness's folder (made if missing)")
    i.add_argument("--name", metavar="NAME",
                   help="the witness's key name, e.g. regulator.example/w1 (default: "
                        "witness.<host name>)")
    i.set_defaults(func=run_init)
    s = wsub.add_parser("serve", help="answer add-checkpoint and the read requests",
                        description="Serve the witness over HTTP until SIGINT or SIGTERM. "
                                    "Prints 'witness NAME listening on URL' when ready, then a "
                                    "line per checkpoint decided ('cosigned ORIGIN size N', "
                                    "'refused ORIGIN size N (STATUS): REASON').")
    s.add_argument("--state", type=Path, required=True, metavar="WDIR",
                   help="the witness's folder, made by `witness init`")
    s.add_argument("--listen", required=True, metavar="HOST:PORT",
                   help="the address to listen on, e.g. 127.0.0.1:8080 (port 0: any free "
                        "port, printed on the ready line)")
    s.add_argument("--trust", type=Path, action="append", required=True, metavar="FILE",
                   help="a station's public key (from `audit public-key`); repeatable")
    s.set_defaults(func=run_serve)
    p.set_defaults(func=lambda _a: (p.print_help(), 2)[1])


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6 address]:PORT`` for IPv6)."""
    host, sep, port_text = text.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise StationError(f"--listen {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8080 "
                           f"(port 0 to 65535)")
    return host, int(port_text)


def run_init(args: argparse.Namespace) -> int:
    from dealer_station.witness.files import KEY_FILE, PUB_FILE, default_name, init_state

    signer = init_state(args.state, args.name or default_name())
    print(f"witness {signer.name}: private key {args.state / KEY_FILE}, public key "
          f"{args.state / PUB_FILE}")
    print(signer.verifier.vkey())
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from dealer_station.witness.files import load_trusted, open_state
    from dealer_station.witness.server import WitnessServer
    from dealer_station.witness.service import Witness

    host, port = parse_listen(args.listen)
    trusted = load_trusted(args.trust)
    signer, state = open_state(args.state)
    try:
        stop = threading.Event()

        def on_signal(_signum: int, _frame: FrameType | None) -> None:
            stop.set()

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT,
                                                                    signal.SIGTERM)}

        def say(line: str) -> None:
            print(line, flush=True)

        server = WitnessServer(Witness(signer, trusted, state), host, port, log=say)
        thread = threading.Thread(target=server.serve_forever, name="witness-http",
                                  daemon=True)
        thread.start()
        try:
            say(f"witness {signer.name} listening on {server.url}")
            trusting = ", ".join(f"{k.name} ({k.key_id.hex()})" for k in trusted)
            print(f"trusting {trusting}", file=sys.stderr, flush=True)
            while not stop.wait(1.0):
                pass
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        print(f"witness {signer.name} stopped", file=sys.stderr, flush=True)
        return 0
    finally:
        state.close()
