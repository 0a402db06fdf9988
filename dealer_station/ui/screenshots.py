"""Screenshots of the station's main screens, made by driving the real window.

Each scene builds a station on a throw-away journal with simulated devices, brings the window
(1280x800) into one state through the same calls a dealer's touches make, and saves a PNG.
``dealer-station screenshots --out DIR`` runs them; docs/ui.md shows the results. Each game's
scenes are its own (the registry's ``screenshots`` part, in the game's own modules); this
module holds what they share: the station a scene runs, waiting for it, saving the window.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from dealer_station.app import Station, fast_hasher, open_station
from dealer_station.ui import theme
from dealer_station.ui.app import delete_later_now, make_app
from dealer_station.ui.main_window import MainWindow

SETTLE_SECONDS = 5.0


def wait_for(app: QApplication, condition: Callable[[], bool],
             timeout: float = SETTLE_SECONDS) -> None:
    """Run the event loop until ``condition()`` holds (the simulated devices are threads)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the station did not reach the state for a screenshot")
        app.processEvents()
        time.sleep(0.002)
    for _ in range(5):
        app.processEvents()


@contextmanager
def scene(game: str = "lapaire") -> Iterator[tuple[QApplication, Station, MainWindow]]:
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key

    app = make_app()
    with tempfile.TemporaryDirectory(prefix="dealer-station-shots-") as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        journal = Journal(db, create_key(Path(tmp) / "journal.key"))
        station = open_station(journal, game=game, simulate=True, hasher=fast_hasher(),
                               seed=11)
        station.closers.append(db.close)
        window = MainWindow(station)
        window.setFixedSize(*theme.WINDOW_SIZE)
        window.show()
        try:
            wait_for(app, lambda: all(h.state.value == "connected"
                                      for h in station.devices.values()))
            yield app, station, window
        finally:
            window.shutdown()
            window.close()
            station.close()
            window.deleteLater()
            delete_later_now(app)


def _save(app: QApplication, window: MainWindow, path: Path) -> Path:
    for _ in range(5):
        app.processEvents()
    window.grab().save(str(path))
    return path


@contextmanager
def production_scene() -> Iterator[tuple[QApplication, Station, MainWindow, Any]]:
    """The station as a table runs it: no demo strip, the shoe opened with the serial
    backend on a pseudo-terminal (a simulated shoe speaks the wire protocol at its other
    end, as ``dealer-station emulate shoe`` does), and the card reader configured on a port
    with nothing plugged in. Yields (app, station, window, the shoe at the far end)."""
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key
    from dealer_station.hardware.config import DeviceConfig
    from dealer_station.hardware.ptyport import PtyWire
    from dealer_station.hardware.simulator import SimulatedDevice

    app = make_app()
    with tempfile.TemporaryDirectory(prefix="dealer-station-shots-") as tmp:
        shoe = SimulatedDevice("shoe", device_id="SHOE1", cards=["JK", "9S", "4C"],
                               heartbeat=0.5)
        wire = PtyWire()
        shoe.attach(wire)
        devices = {
            "shoe": DeviceConfig("shoe", "serial", wire.path, 9600, "SHOE1"),
            "reader": DeviceConfig("reader", "serial", str(Path(tmp) / "dealer-reader"),
                                   9600, "READER1"),
        }
        db = open_database(f"sqlite:///{Path(tmp) / 'journal.db'}")
        journal = Journal(db, create_key(Path(tmp) / "journal.key"))
        station = open_station(journal, devices=devices, demo_users=True,
                               hasher=fast_hasher())
        station.closers.append(db.close)
        window = MainWindow(station)
        window.setFixedSize(*theme.WINDOW_SIZE)
        window.show()
        try:
            wait_for(app, lambda: station.devices["shoe"].state.value == "connected")
            yield app, station, window, shoe
        finally:
            window.shutdown()
            window.close()
            station.close()
            shoe.close()
            wire.close()
            window.deleteLater()
            delete_later_now(app)


def take_screenshots(out: Path, chosen: tuple[str, ...] | None = None) -> list[Path]:
    """The screenshots of each chosen game (default every game), each the registry's
    ``screenshots`` part of that game."""
    from dealer_station import registry as games
    from dealer_station.ui.parts import SCREENSHOTS

    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    for name in chosen if chosen is not None else games.names():
        saved.extend(games.game(name).part(SCREENSHOTS)(out))
    return saved
