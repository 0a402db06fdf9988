"""The bridge from the table service's listeners to Qt signals.

The table service tells its listeners about a change after the change is committed, on
whichever thread made it: the GUI thread for a dealer's touch, a driver's reader thread for a
card or a fault. Widgets may only be touched on the GUI thread, so the listener here does
nothing but emit a signal; views connect to it with a queued connection and run their slot on
the GUI thread, after the call that caused the change has returned.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal

from dealer_station.table.base import TableService, Update


class TableEvents(QObject):
    """Re-emits every :class:`Update` of one table as ``changed(Update)``."""

    changed = Signal(object)

    def __init__(self, table: TableService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self._lock = threading.Lock()
        self._open = True
        self._unsubscribe: Callable[[], None] | None = table.subscribe(self._on_change)

    def _on_change(self, update: Update) -> None:  # any thread
        with self._lock:
            if self._open:
                self.changed.emit(update)

    def listen(self, slot: Callable[[Update], None]) -> None:
        """Connect ``slot`` so it always runs on the GUI thread, after the change."""
        self.changed.connect(slot, Qt.ConnectionType.QueuedConnection)

    def close(self) -> None:
        """Stop listening (before the devices' threads or this object go away)."""
        with self._lock:
            self._open = False
            if self._unsubscribe is not None:
                with contextlib.suppress(ValueError):  # already removed
                    self._unsubscribe()
                self._unsubscribe = None
