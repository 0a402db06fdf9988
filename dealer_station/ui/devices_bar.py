"""The shoe's and the reader's state, always in view at the top of the screen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from dealer_station.table.base import Change
from dealer_station.ui import theme

ROLES = ("shoe", "reader")
ROLE_NAMES = {"shoe": "Shoe", "reader": "Reader"}
_GOOD = frozenset({"READY", "CONNECTED"})
_WARN = frozenset({"LOW", "EMPTY", "CONNECTING", "SILENT"})


class DevicePill(QLabel):
    """``Shoe ● READY``: the device's link state, or what it last said about itself."""

    def __init__(self, role: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self.present = False
        self.connection = ""
        self.status = ""
        self.fault = ""
        self.setObjectName(f"device-{role}")
        self.setMinimumWidth(130)
        self.refresh()

    @property
    def state_text(self) -> str:
        if not self.present:
            return "none (manual entry)"
        if self.fault:
            return f"FAULT: {self.fault}"
        if self.connection and self.connection != "connected":
            return self.connection.upper()
        return self.status or self.connection.upper() or "—"

    def refresh(self) -> None:
        text = self.state_text
        word = text.split(":")[0].upper()
        colour = (theme.MUTED if not self.present else theme.GOOD if word in _GOOD
                  else theme.WARN if word in _WARN else theme.BAD)
        self.setText(f"<span style='color:{theme.MUTED}'>{ROLE_NAMES[self.role]}</span> "
                     f"<span style='color:{colour}'>●</span> <b>{text}</b>")
        self.setToolTip(f"{ROLE_NAMES[self.role]}: {text}")
        self.setAccessibleName(f"{ROLE_NAMES[self.role]} {text}")


class DevicesBar(QWidget):
    def __init__(self, handles: Mapping[str, Any], device_state: Mapping[str, str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(18)
        self.pills: dict[str, DevicePill] = {}
        for role in ROLES:
            pill = DevicePill(role)
            self.pills[role] = pill
            row.addWidget(pill)
        self.sync(handles, device_state)

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

    def on_change(self, change: Change) -> None:
        d = change.data
        if change.kind in ("resolved", "round.voided", "round.closed"):
            for each in self.pills.values():
                if each.fault:
                    each.fault = ""
                    each.refresh()
            return
        pill = self.pills.get(str(d.get("device", "")))
        if pill is None:
            return
        if change.kind == "device.status":
            pill.status = str(d.get("state", ""))
        elif change.kind == "device.connection":
            pill.connection = str(d.get("state", ""))
            if pill.connection == "connected" and pill.fault in ("disconnected",
                                                                  "heartbeat_lost"):
                pill.fault = ""
        elif change.kind == "device.fault":
            pill.fault = str(d.get("kind", "fault"))
        else:
            return
        pill.present = True
        pill.refresh()
