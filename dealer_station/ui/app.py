"""Starting the Qt application around a station (what ``dealer-station run`` calls)."""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from dealer_station.app import Station
from dealer_station.errors import StationError
from dealer_station.ui import theme
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.session import DEFAULT_LOCK_AFTER


def has_display() -> bool:
    if os.environ.get("QT_QPA_PLATFORM"):
        return True
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def ensure_platform(*, headless_ok: bool) -> None:
    """Pick the offscreen platform when there is no screen and that is acceptable (a smoke
    run with ``--exit-after``); otherwise say plainly what is missing instead of letting Qt
    abort."""
    if has_display():
        return
    if headless_ok:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return
    raise StationError("no display to open the station window on (DISPLAY is not set). "
                       "Run it on the station's screen, or set QT_QPA_PLATFORM=offscreen to "
                       "run without one")


def make_app() -> QApplication:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Dealer Station")
    theme.apply(app)
    return app


def delete_later_now(app: QApplication) -> None:
    """Delete what ``deleteLater()`` was asked of now. Outside a running event loop (a
    scene drawn for a screenshot, a test) nothing else deletes it: every closed window would
    stay, and each later style change would restyle all of them."""
    app.processEvents()
    app.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def settle_memory() -> None:
    """Once the window is up: what start-up made (Qt's wrappers, the configuration, the par
    sheet, the journal's caches) lives as long as the station, so it is moved out of the
    garbage collector's generations. A full collection then walks only what play makes,
    instead of landing on a card at some tens of milliseconds."""
    gc.collect()
    gc.freeze()


def run_station(station: Station, *, lock_after: float = DEFAULT_LOCK_AFTER,
                exit_after: float | None = None, fullscreen: bool = False,
                on_ready: Callable[[MainWindow, float], None] | None = None) -> int:
    """Show the station window and run until it is closed (or ``exit_after`` seconds)."""
    started = time.perf_counter()
    app = make_app()
    window = MainWindow(station, lock_after=lock_after)
    if fullscreen:
        window.showFullScreen()
    else:
        window.show()

    def ready() -> None:
        settle_memory()
        if on_ready is not None:
            on_ready(window, time.perf_counter() - started)

    QTimer.singleShot(0, ready)
    if exit_after is not None:
        QTimer.singleShot(int(exit_after * 1000), app.quit)
    # Ctrl-C in the terminal closes the station cleanly: Python sees the signal when the
    # interpreter runs, which this idle timer makes it do.
    previous = signal.signal(signal.SIGINT, lambda *_a: app.quit())
    tick = QTimer()
    tick.timeout.connect(lambda: None)
    tick.start(250)
    try:
        code = app.exec()
    finally:
        tick.stop()
        signal.signal(signal.SIGINT, previous)
        window.shutdown()
        window.close()
        window.deleteLater()
    return int(code)


def run_window(make: Callable[[], QWidget], *, fullscreen: bool = False,
               exit_after: float | None = None) -> int:
    """Show the window ``make`` builds (the pit's, the tournament director's) at the
    station's size, or full screen, and run until it is closed (or ``exit_after`` s)."""
    ensure_platform(headless_ok=exit_after is not None)
    app = make_app()
    window = make()
    window.resize(*theme.WINDOW_SIZE)
    if fullscreen:
        window.showFullScreen()
    else:
        window.show()
    if exit_after is not None:
        QTimer.singleShot(int(exit_after * 1000), app.quit)
    try:
        return int(app.exec())
    finally:
        # Closed after the loop: its "last window closed" must not quit the next loop run
        # in this process (a second window, or a test's).
        quits = app.quitOnLastWindowClosed()
        app.setQuitOnLastWindowClosed(False)
        window.close()
        app.setQuitOnLastWindowClosed(quits)
