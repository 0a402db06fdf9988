"""Assembling a station: journal, users, the live table and its devices (no widgets here).

``run``, ``screenshots``, the benchmark and the UI tests all build the station through
:func:`open_station`, so the window they drive is wired exactly as the one on the floor.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_station import registry as games
from dealer_station.table.base import DEFAULT_TABLE, TableService
from dealer_station.table.parts import TABLE

if TYPE_CHECKING:
    from argon2 import PasswordHasher

    from dealer_station.audit.journal import Journal
    from dealer_station.audit.users import Users
    from dealer_station.floor.follower import Follower
    from dealer_station.floor.forwarder import Forwarder
    from dealer_station.floor.witness_push import WitnessConfig, WitnessPusher
    from dealer_station.hardware.backends import DeviceHandle
    from dealer_station.hardware.config import DeviceConfig

#: What the devices file is called in config/ (see config/devices.toml).
DEVICES_FILE = "devices.toml"

#: Demo users made on an empty journal in --simulate mode (documented in docs/ui.md).
DEMO_USERS: tuple[tuple[str, str, str, str], ...] = (
    ("dealer", "Dana Dealer", "dealer", "1111"),
    ("super", "Sam Supervisor", "supervisor", "2222"),
    ("operator", "Olive Operator", "operator", "3333"),
)
DEMO_ACTOR = "station/demo"
SIM_IDS = {"shoe": "SIMSHOE", "reader": "SIMREADER"}


@dataclass
class Station:
    """One running station: the table service and what it needs, ready for the window."""

    journal: Journal
    users: Users
    table: TableService
    game: str
    table_id: str
    simulated: bool = False
    devices: dict[str, DeviceHandle] = field(default_factory=dict)
    #: Forwards the table's journal to the floor database (``run --floor``), or None.
    forwarder: Forwarder | None = None
    #: Adopts what the floor publishes for this table, and the floor's users, or None.
    follower: Follower | None = None
    #: Pushes the journal's signed checkpoints to the regulator's witnesses, or None.
    pusher: WitnessPusher | None = None
    #: Set by ``open_station`` when it opened the database (closed by ``close``).
    closers: list[Any] = field(default_factory=list)
    _closed: bool = False

    @property
    def game_name(self) -> str:
        return games.game(self.game).label

    def simulator(self, role: str) -> Any:
        """The simulated device behind ``role`` (``shoe`` / ``reader``), or None."""
        handle = self.devices.get(role)
        return None if handle is None else handle.simulator

    def close(self) -> None:
        """Close the devices (joining their threads), record the shutdown, close the store."""
        if self._closed:
            return
        self._closed = True
        if self.follower is not None:
            self.follower.stop()          # nothing adopted from here on
        try:
            # Close the devices before the table's shutdown: it holds the table's lock while
            # closing them, and a driver's last event (its port closed) needs that lock, so
            # each would wait out its join timeout.
            for handle in list(self.devices.values()):
                handle.close()
            self.table.shutdown()
        finally:
            if self.forwarder is not None:
                self.forwarder.stop()         # the shutdown record too, if the floor is up
            if self.pusher is not None:
                self.pusher.flush(timeout=10)   # the shut-down's checkpoint too, if it can
                self.pusher.stop()
            for closer in self.closers:
                closer()


def load_devices_file(path: Path | str) -> dict[str, DeviceConfig]:
    """The ``[devices.shoe]`` / ``[devices.reader]`` tables of a devices file."""
    from dealer_station.hardware.config import parse_devices
    from dealer_station.tomlconfig import Section, load_toml

    p = Path(path)
    root = Section(load_toml(p), str(p))
    devices = parse_devices(root)
    root.finish()
    return devices


def default_devices_path() -> Path:
    from dealer_station.gameconfig import config_dir

    return config_dir() / DEVICES_FILE


def make_table(journal: Journal, game: str, table_id: str, *, config_path: str | None,
               dealer: str) -> TableService:
    """The live table for ``game``, on the journal's latest configuration unless a file is
    named (then that file's configuration is recorded as a new version if it differs)."""
    table: TableService = games.game(game).part(TABLE)(
        journal, table_id, config_path=config_path, dealer=dealer)
    return table


def ensure_demo_users(users: Users) -> list[tuple[str, str, str, str]]:
    """Add the demo users to a journal that has no users yet; returns those added.

    The demo operator is the journal's first user (added without a sign-in); the others are
    added by that operator, signed in."""
    if users.has_users():
        return []
    first = next(u for u in DEMO_USERS if u[2] == "operator")
    users.add(*first, actor=DEMO_ACTOR)
    operator = users.authenticate(first[0], first[3])
    for user_id, name, role, pin in DEMO_USERS:
        if user_id != first[0]:
            users.add(user_id, name, role, pin, actor=operator)
    return list(DEMO_USERS)


def fast_hasher() -> PasswordHasher:
    """A cheap argon2 profile for tests and screenshots (never for a real journal)."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def open_station(journal: Journal, *, game: str = "lapaire", table_id: str = DEFAULT_TABLE,
                 config_path: str | None = None, simulate: bool = False,
                 devices: Mapping[str, DeviceConfig] | None = None,
                 hasher: PasswordHasher | None = None, seed: int | None = None,
                 demo_users: bool | None = None, max_failures: int = 5,
                 sim_options: Mapping[str, Any] | None = None,
                 on_duty: str | None = None, floor: str | None = None,
                 witnesses: Sequence[WitnessConfig] = (),
                 witness_alert_after_s: float = 300.0) -> Station:
    """Build the station on ``journal`` and start its devices.

    ``simulate``: a simulated shoe and card reader (the real drivers over in-memory cables);
    otherwise the devices in ``devices`` (none: the table runs on manual entry only).
    ``demo_users`` (default: ``simulate``) adds the demo users to an empty journal.
    ``on_duty``: who is signed in as the devices open (an actor; by default nobody, and a
    card read then is held): for a station driven without its window, as tests drive it.
    ``floor``: the floor database's URL; the table's journal is forwarded to it from a
    thread of its own, and the table never waits for it.
    ``witnesses``: the regulator's witnesses; each signed checkpoint is pushed to them from a
    thread of its own (dealer_station/floor/witness_push.py).
    """
    from dealer_station.audit.users import Users

    games.game(game)     # an unknown game is refused before anything is opened
    users = Users(journal, hasher=hasher, max_failures=max_failures)
    if demo_users if demo_users is not None else simulate:
        ensure_demo_users(users)
    table = make_table(journal, game, table_id, config_path=config_path,
                       dealer="station/dealer")
    station = Station(journal, users, table, game, table_id, simulated=simulate)
    table.startup()
    if witnesses:
        from dealer_station.floor.witness_push import WitnessPusher

        station.pusher = WitnessPusher(journal, witnesses,
                                       alert_after_s=witness_alert_after_s)
        station.pusher.start()
    if floor is not None:
        from dealer_station.floor.forwarder import Forwarder

        station.forwarder = Forwarder(journal, floor, table_id)
        station.forwarder.start()
        from dealer_station.floor.follower import Follower

        station.follower = Follower(journal, floor, table, users)
        station.follower.start()
    # The station's sign-in session will say who is on duty; until someone signs in, nobody
    # is, from before the first device can send a card (docs/table.md).
    table.set_on_duty(on_duty)
    try:
        if simulate:
            _open_simulated(station, seed, dict(sim_options or {}))
        else:
            for cfg in (devices or {}).values():
                _open_configured(station, cfg)
    except Exception:
        station.close()
        raise
    return station


def _deck(game: str) -> Any:
    return games.game(game).deck


def _open_simulated(station: Station, seed: int | None, options: dict[str, Any]) -> None:
    from dealer_station.hardware.backends import open_device

    rng = random.Random(seed)
    for role in ("shoe", "reader"):
        # A new simulator holds no frame from before: attach() resumes it soon enough.
        handle = open_device(role, "simulated", device_id=SIM_IDS[role],
                             deck=_deck(station.game), on_event=station.table.on_device_event,
                             seed=rng.randrange(2**32), **options)
        station.devices[role] = handle
        station.table.attach(role, handle)


def _open_configured(station: Station, cfg: DeviceConfig) -> None:
    from dealer_station.hardware.config import open_configured

    # The last frame journaled is known before the port opens: the device may send it again
    # as soon as it is asked (QUERY on connect), before attach() could say it was taken.
    resume = (station.table.resume_point(cfg.device_id, cfg.options.get("name") or cfg.role)
              if cfg.device_id else None)
    handle = open_configured(cfg, deck=_deck(station.game),
                             on_event=station.table.on_device_event, resume_after=resume)
    station.devices[cfg.role] = handle
    station.table.attach(cfg.role, handle)
