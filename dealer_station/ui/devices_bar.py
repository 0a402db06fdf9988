"""The shoe's and the reader's state, always in view at the top of the screen.

Each pill says its state in a word or two, read from a metre; a touch on it says all it knows
(``touched``, for the window to show): the device's last fault in its own words, the floor
link's reason. Nothing is left to a tooltip: a touch screen cannot hover.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from dealer_station.events import Event
from dealer_station.events.table import (
    DeviceConnected,
    DeviceFaulted,
    DeviceLost,
    DeviceStateChanged,
    DeviceStatusReported,
    HaltResolved,
)
from dealer_station.table.base import Update
from dealer_station.ui import theme

ROLES = ("shoe", "reader")
ROLE_NAMES = {"shoe": "Shoe", "reader": "Reader"}
#: A device's fault in a word or two for its pill (the banner says it in full).
FAULT_PILLS = {"gap": "MISSED CARDS?", "heartbeat_lost": "NOT HEARD", "disconnected": "LOST",
               "misread": "MISREAD", "impossible_card": "WRONG CARD", "bad_frame": "BAD MESSAGE",
               "device_error": "ERROR", "restarted": "RESTARTED", "wrong_device": "WRONG DEVICE",
               "repeat_mismatch": "CARD RE-SENT"}
_GOOD = frozenset({"READY", "CONNECTED"})
_WARN = frozenset({"LOW", "EMPTY", "CONNECTING", "SILENT"})


class Pill(QLabel):
    """A state in the header: read from a metre, a fingertip high, and touched (``touched``
    with :meth:`full_text`) to say all it knows."""

    touched = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(f"font-size: {theme.LEAST_PX}px;")
        self.setMinimumHeight(theme.TARGET_PX)

    def full_text(self) -> str:
        raise NotImplementedError

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.touched.emit(self.full_text())
        super().mousePressEvent(event)


class DevicePill(Pill):
    """``Shoe ● READY``: the device's link state, or what it last said about itself."""

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.present = False
        self.connection = ""
        self.status = ""
        self.fault = ""
        #: The last thing the device or its link said in words (a fault's detail: the
        #: device's own error text; a lost link's reason).
        self.detail = ""
        self.setObjectName(f"device-{role}")
        self.setMinimumWidth(130)
        self.refresh()

    def full_text(self) -> str:
        text = f"{ROLE_NAMES[self.role]}: {self.state_text}"
        return text + (f" — {self.detail}" if self.detail else "")

    @property
    def state_text(self) -> str:
        if not self.present:
            return "none (manual entry)"
        if self.fault:
            return f"FAULT: {FAULT_PILLS.get(self.fault, self.fault.replace('_', ' ').upper())}"
        if self.connection and self.connection != "connected":
            return self.connection.upper()
        return self.status.replace("_", " ") or self.connection.upper() or "—"

    def refresh(self) -> None:
        text = self.state_text
        word = text.split(":")[0].upper()
        colour = (theme.MUTED if not self.present else theme.GOOD if word in _GOOD
                  else theme.WARN if word in _WARN else theme.BAD)
        self.setText(f"<span style='color:{theme.MUTED}'>{ROLE_NAMES[self.role]}</span> "
                     f"<span style='color:{colour}'>●</span> <b>{text}</b>")
        self.setAccessibleName(f"{ROLE_NAMES[self.role]} {text}")


class FloorPill(Pill):
    """``Floor ● OFFLINE, 12 records waiting``: the link to the floor database, shown when
    the station forwards its journal (dealer_station/floor)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("device-floor")
        self.state = "starting"
        self.waiting = 0
        self.detail = ""
        self.refresh()

    @property
    def state_text(self) -> str:
        # Short, for the header's room; a touch says it in full (full_text).
        waiting = f"{self.waiting:,} waiting"
        if self.state == "online":
            return f"ONLINE · {waiting}" if self.waiting else "ONLINE"
        if self.state == "offline":
            return f"OFFLINE · {waiting}"
        if self.state == "refused":
            return "REFUSED"
        if self.state == "paused":
            return "PAUSED"
        return "CONNECTING"

    def set_link(self, link: Any) -> None:
        self.state, self.waiting, self.detail = link.state, link.waiting, link.detail
        self.refresh()

    def refresh(self) -> None:
        text = self.state_text
        colour = (theme.GOOD if self.state == "online" else theme.WARN
                  if self.state in ("offline", "starting") else theme.BAD)
        # Two short lines: the header has no room for a long one beside the devices.
        word, _, more = text.partition(" · ")
        if self.state == "refused":
            more = "call a supervisor"
        self.setText(f"<span style='color:{theme.MUTED}'>Floor</span> "
                     f"<span style='color:{colour}'>●</span> <b>{word}</b>"
                     + (f"<br>{more}" if more else ""))
        self.setAccessibleName(f"Floor {text}")

    def full_text(self) -> str:
        why = {"offline": "the table deals on and sends them when the floor is back",
               "refused": "the floor would not take this table's journal; call a supervisor",
               "paused": "the table's own journal cannot be read just now"}.get(self.state, "")
        records = f"{self.waiting:,} record{'s' if self.waiting != 1 else ''} waiting"
        return (f"Floor {self.state if self.state != 'starting' else 'connecting'}, {records}"
                + (f" ({why})" if why else "") + (f". {self.detail}" if self.detail else ""))


class WitnessPill(Pill):
    """``Witness ● OK``: the regulator's witnesses the station pushes its signed checkpoints
    to (dealer_station/floor/witness_push.py). REFUSED means the journal disagrees with what a
    witness already cosigned: the operator and the regulator are to be called."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("device-witness")
        self.state = "waiting"
        self.detail = ""
        self.name = ""
        self.refresh()

    def set_status(self, status: Any) -> None:
        # The worst state of any witness is what the pill shows.
        self.state, self.detail, self.name = status.state, status.detail, status.name
        self.refresh()

    def refresh(self) -> None:
        word = {"ok": "OK", "refused": "REFUSED", "unreachable": "OUT OF REACH"}.get(
            self.state, "WAITING")
        colour = (theme.GOOD if self.state == "ok" else theme.BAD if self.state == "refused"
                  else theme.WARN)
        more = "call the operator" if self.state == "refused" else ""
        self.setText(f"<span style='color:{theme.MUTED}'>Witness</span> "
                     f"<span style='color:{colour}'>●</span> <b>{word}</b>"
                     + (f"<br>{more}" if more else ""))
        self.setAccessibleName(f"Witness {word}")

    def full_text(self) -> str:
        why = {"refused": "the regulator's witness refused this table's journal: it disagrees "
                          "with what the witness already cosigned. Call the operator and the "
                          "regulator",
               "unreachable": "the table deals on; its signed checkpoints wait and are sent "
                              "when the witness answers"}.get(self.state, "")
        return (f"Regulator's witness {self.name or ''}: {self.state}"
                + (f" ({why})" if why else "") + (f". {self.detail}" if self.detail else ""))


class FloorLinkSignal(QObject):
    """The forwarder's thread hands its link over to the window's thread."""

    changed = Signal(object)


class DevicesBar(QWidget):
    """The pills; ``touched`` carries the full text of the one touched."""

    touched = Signal(str)

    def __init__(self, handles: Mapping[str, Any], device_state: Mapping[str, str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(14)
        self.pills: dict[str, DevicePill] = {}
        for role in ROLES:
            pill = DevicePill(role)
            pill.touched.connect(self.touched)
            self.pills[role] = pill
            row.addWidget(pill)
        self.floor_pill = FloorPill()
        self.floor_pill.touched.connect(self.touched)
        self.floor_pill.hide()
        row.addWidget(self.floor_pill)
        self._floor_signal = FloorLinkSignal(self)
        self._floor_signal.changed.connect(self.floor_pill.set_link)
        self.witness_pill = WitnessPill()
        self.witness_pill.touched.connect(self.touched)
        self.witness_pill.hide()
        row.addWidget(self.witness_pill)
        self._witness_signal = FloorLinkSignal(self)
        self._witness_signal.changed.connect(self.witness_pill.set_status)
        self.sync(handles, device_state)

    def follow_witness(self, pusher: Any) -> None:
        """Show what the witnesses last said (their answers arrive from the pusher's thread)."""
        self.witness_pill.show()
        worst = {"refused": 3, "unreachable": 2, "waiting": 1, "ok": 0}
        statuses = list(pusher.status.values())
        if statuses:
            self.witness_pill.set_status(max(statuses, key=lambda st: worst[st.state]))

        def changed(_status: Any) -> None:
            now = list(pusher.status.values())
            self._witness_signal.changed.emit(max(now, key=lambda st: worst[st.state]))
        pusher.on_change = changed

    def follow_floor(self, forwarder: Any) -> None:
        """Show the forwarder's link from now on (its changes arrive from its own thread)."""
        self.floor_pill.show()
        self.floor_pill.set_link(forwarder.link)
        forwarder.on_link = self._floor_signal.changed.emit

    def sync(self, handles: Mapping[str, Any], device_state: Mapping[str, str]) -> None:
        """Read each device's state as it is now (at start-up, before changes arrive)."""
        for role, pill in self.pills.items():
            handle = handles.get(role)
            if handle is None:
                continue
            pill.present = True
            pill.connection = str(handle.state.value)
            state = device_state.get(role, "")
            if state.isupper():
                pill.status = state
            pill.refresh()

    def text(self, role: str) -> str:
        return self.pills[role].state_text

    def on_change(self, update: Update) -> None:
        for c in update.events:
            self._follow(c.event)

    def _follow(self, e: Event) -> None:
        if isinstance(e, HaltResolved) or e.CLOSES:
            for each in self.pills.values():
                if each.fault:
                    each.fault = ""
                    each.refresh()
            return
        pill = self.pills.get(str(getattr(e, "device", "")))
        if pill is None:
            return
        if isinstance(e, DeviceStatusReported):
            pill.status = e.state
        elif isinstance(e, DeviceConnected | DeviceLost | DeviceStateChanged):
            pill.connection = e.state
            if not pill.fault:
                pill.detail = e.detail
            if pill.connection == "connected" and pill.fault in ("disconnected",
                                                                  "heartbeat_lost"):
                pill.fault = ""
        elif isinstance(e, DeviceFaulted):
            pill.fault = e.kind
            pill.detail = e.detail
        else:
            return
        pill.present = True
        pill.refresh()
