"""``dealer-station run``: the dealer station window on a live table.

``--simulate`` runs it with a simulated shoe and card reader (the real drivers over in-memory
cables) and a demo strip to deal cards and cause faults, on a demo journal with demo users,
so it can be tried on any computer. Without it, the devices come from ``config/devices.toml``
(or ``--devices FILE``, or ``--shoe`` / ``--reader`` ports).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from dealer_station import registry as games
from dealer_station.cli._witness_opts import add_witness_options, witness_configs
from dealer_station.cli.audit import open_store, store_options
from dealer_station.table.base import DEFAULT_TABLE

DEMO_DB_FILE = "demo-journal.db"
DEMO_KEY_FILE = "demo-journal.key"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", parents=[store_options()],
                       help="start the dealer station window",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--simulate", action="store_true",
                   help="simulated shoe and reader, demo strip, demo journal and users")
    p.add_argument("--game", choices=games.names(), default=games.names()[0],
                   help="the game at this table: "
                        + ", ".join(f"{g.name} ({g.label})" for g in games.REGISTRY.values())
                        + f"; default {games.names()[0]}")
    p.add_argument("--table", default=DEFAULT_TABLE, help=f"table id (default {DEFAULT_TABLE})")
    p.add_argument("--config", metavar="FILE",
                   help="game configuration file to load (default: the journal's latest, "
                        "else config/lapaire.toml or config/bourre.toml)")
    p.add_argument("--devices", metavar="FILE",
                   help="devices file (default config/devices.toml when it exists)")
    p.add_argument("--shoe", metavar="PORT", help="the shoe's serial port or URL (overrides "
                                                  "the devices file)")
    p.add_argument("--reader", metavar="PORT", help="the card reader's serial port or URL")
    p.add_argument("--baud", type=int, default=9600, help="baud rate for --shoe / --reader")
    p.add_argument("--lock-after", type=float, default=300.0, metavar="SECONDS",
                   help="lock the station after this long without a touch (default 300)")
    p.add_argument("--exit-after", type=float, metavar="SECONDS",
                   help="close the station after SECONDS (smoke tests; runs without a "
                        "display if there is none)")
    p.add_argument("--fullscreen", action="store_true", help="fill the screen")
    p.add_argument("--floor", metavar="URL",
                   help="forward the table's journal to the floor's PostgreSQL database "
                        "(the table deals on when the floor is down, and catches up)")
    p.add_argument("--seed", type=int, help="seed for the simulated shoe's shuffles")
    add_witness_options(p)
    p.set_defaults(func=run)


def _witnesses(args: argparse.Namespace) -> tuple[list[Any], float]:
    """The witnesses from the command line, else from ``[witness]`` in station.toml."""
    from dealer_station.gameconfig import config_dir
    from dealer_station.witness.settings import DEFAULT_ALERT_AFTER_S, load_witness_settings

    if args.witness or args.witness_key:
        return witness_configs(args.witness, args.witness_key), DEFAULT_ALERT_AFTER_S
    settings = load_witness_settings(config_dir() / "station.toml")
    found = witness_configs(list(settings.urls), [str(f) for f in settings.key_files],
                            where=f"{settings.file}: witness.keys")
    return found, settings.alert_after_s


def demo_store_paths() -> tuple[str, Path]:
    """The demo journal and key, kept apart from a real station's journal."""
    import platformdirs

    data = Path(platformdirs.user_data_dir("dealer-station"))
    conf = Path(platformdirs.user_config_dir("dealer-station"))
    return f"sqlite:///{data / DEMO_DB_FILE}", conf / DEMO_KEY_FILE


def device_configs(args: argparse.Namespace) -> dict[str, Any]:
    """The devices to open: the devices file, then --shoe / --reader on top."""
    from dealer_station.app import default_devices_path, load_devices_file
    from dealer_station.hardware.config import DeviceConfig

    configs: dict[str, Any] = {}
    path = Path(args.devices) if args.devices else default_devices_path()
    if args.devices or path.exists():
        configs.update(load_devices_file(path))
    for role in ("shoe", "reader"):
        port = getattr(args, role)
        if port:
            configs[role] = DeviceConfig(role, "serial", port, args.baud,
                                         "SHOE1" if role == "shoe" else "READER1")
    return configs


def _require_users(journal: Any) -> None:
    """A table is opened only on a journal with users: its first operator is added while the
    journal is new (before any record), and nobody could sign in to a table without one."""
    from dealer_station.audit.users import Users
    from dealer_station.errors import StationError

    if not Users(journal).has_users():
        raise StationError(
            f"the journal at {journal.location} has no users, so nobody could sign in: add "
            f"its first operator before the station's first start (`dealer-station users add "
            f"USER --name NAME --role operator`), then the others signed in as them")


def run(args: argparse.Namespace) -> int:
    from dealer_station.errors import StationError

    if args.exit_after is not None and args.exit_after <= 0:
        raise StationError(f"--exit-after must be above 0 seconds, got {args.exit_after}")
    if args.lock_after <= 0:
        raise StationError(f"--lock-after must be above 0 seconds, got {args.lock_after}")
    if args.simulate:
        demo_db, demo_key = demo_store_paths()
        if not args.db and not os.environ.get("DEALER_STATION_DB"):
            args.db = demo_db
        if not args.key and not os.environ.get("DEALER_STATION_KEY"):
            args.key = str(demo_key)
        devices: dict[str, Any] = {}
    else:
        devices = device_configs(args)

    from dealer_station.ui.app import ensure_platform

    ensure_platform(headless_ok=args.exit_after is not None)
    from dealer_station.app import DEMO_USERS, open_station
    from dealer_station.ui.app import run_station

    with open_store(args) as store:
        if not args.simulate:
            _require_users(store.journal)
        witnesses, alert_after = _witnesses(args)
        station = open_station(store.journal, game=args.game, table_id=args.table,
                               config_path=args.config, simulate=args.simulate,
                               devices=devices, seed=args.seed, floor=args.floor,
                               witnesses=witnesses, witness_alert_after_s=alert_after)
        try:
            def ready(_window: Any, seconds: float) -> None:
                where = ", ".join(f"{role} {h.backend}" + (f" {h.url}" if h.url else "")
                                  for role, h in station.devices.items()) or "no devices"
                print(f"station ready in {seconds:.2f} s: table {station.table_id} "
                      f"({station.game_name}), journal {store.db.url}, devices: {where}",
                      flush=True)
                if args.simulate:
                    print("demo users: " + ", ".join(f"{u} (PIN {pin}, {role})"
                                                     for u, _n, role, pin in DEMO_USERS),
                          flush=True)

            return run_station(station, lock_after=args.lock_after, exit_after=args.exit_after,
                               fullscreen=args.fullscreen, on_ready=ready)
        finally:
            station.close()
