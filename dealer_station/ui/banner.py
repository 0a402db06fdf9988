"""The stop banner: what stopped the round and what the supervisor can do about it.

It follows the table's ``halt`` (set by a device fault, a jam, an impossible card...) and
stays until a supervisor resumes, corrects the card or voids the round. While it stays it
follows the devices (waiting for the shoe, or the shoe is back and a supervisor can resume)
and lists the cards read and held since. Between halts it can carry a short notice (a card
read while stopped, a clock jump) that fades by itself.

It is two lines, whatever it says, each cut with "…" to the banner's width (the supervisor's
Round tab says it all): the window never grows past the 1280x800 screen.
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.events.table import device_name, fault_words, reason_beyond_fault
from dealer_station.table.base import ABSENT_LINKS, HALTING_STATUSES, STATUS_REMEDIES, Halt
from dealer_station.ui import theme

NOTICE_SECONDS = 10.0
#: Halts a device's return clears: once it is back, a supervisor can resume.
DEVICE_HALTS = frozenset({"gap", "heartbeat_lost", "disconnected", "restarted",
                          "wrong_device", "bad_frame", "device_error", "jam", "door_open",
                          "tamper"})
#: Halts resolved by entering the card really dealt.
CARD_HALTS = frozenset({"misread", "impossible_card", "repeat_mismatch", "unattended_card"})


class OneLine(QLabel):
    """Plain text on one line, cut with "…" to the width it is given (never wider)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.full = ""

    def set_full(self, text: str) -> None:
        self.full = text
        self.setToolTip(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        self.setText(self.fontMetrics().elidedText(self.full, Qt.TextElideMode.ElideRight,
                                                   max(self.width(), 50)))


def device_problems(devices: Mapping[str, str]) -> list[str]:
    """What each device still reports that must be cleared before resuming (from the last
    state the table holds for it)."""
    out = []
    for device, state in sorted(devices.items()):
        if state in HALTING_STATUSES:
            out.append(f"{device_name(device)} still reports {state.replace('_', ' ')}: "
                       f"{STATUS_REMEDIES[state]}")
        elif state in ABSENT_LINKS:
            out.append(f"{device_name(device)} is {state}: the station reconnects by itself")
    return out


class HaltBanner(QFrame):
    supervisor_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.halt: Halt | None = None
        self.devices: dict[str, str] = {}
        self.held: list[str] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 4, 10, 4)
        col = QVBoxLayout()
        col.setSpacing(0)
        self.title = OneLine("bannerTitle")
        self.detail = OneLine("bannerDetail")
        col.addWidget(self.title)
        col.addWidget(self.detail)
        row.addLayout(col, 1)
        self.button = QPushButton("Supervisor  (F3)")
        self.button.setObjectName("danger")
        self.button.clicked.connect(self.supervisor_requested)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self._end_notice)
        self.hide()

    def _style(self, colour: str, background: str) -> None:
        self.setStyleSheet(
            f"QFrame#banner {{ background: {background}; border: 2px solid {colour};"
            f" border-radius: 10px; }}"
            f" QLabel#bannerTitle {{ font-size: 22px; font-weight: bold; color: #ffffff; }}"
            f" QLabel#bannerDetail {{ font-size: 18px; color: #ffe9e6; }}")

    def show_halt(self, halt: Halt | None, devices: Mapping[str, str] | None = None) -> None:
        """Show ``halt`` (or hide the banner when there is none), with the devices' states."""
        if halt != self.halt:
            self.held = []
        self.halt = halt
        if devices is not None:
            self.devices = dict(devices)
        if halt is None:
            if not self._notice_timer.isActive():
                self.hide()
            return
        self._notice_timer.stop()
        self._style(theme.BAD, "#4a1511")
        self._render()
        self.button.show()
        self.show()

    def follow_devices(self, devices: Mapping[str, str]) -> None:
        """The devices' states changed: say whether play can resume now."""
        self.devices = dict(devices)
        if self.halt is not None:
            self._render()

    def card_held(self, card: str) -> None:
        """A card was read and not taken: listed under the halt (or said as a notice)."""
        if self.halt is None:
            self.show_notice(f"Card {card} was read but not taken (held, not dealt).")
            return
        self.held.append(card)
        self._render()

    def _render(self) -> None:
        halt = self.halt
        assert halt is not None
        cause = fault_words(halt.fault, halt.device)
        card = f" ({halt.card})" if halt.card and halt.fault in CARD_HALTS else ""
        self.title.set_full(f"ROUND STOPPED — {cause}{card}")
        # Most urgent first: what the table waits for, the cards held, then what to do.
        parts = []
        problems = device_problems(self.devices)
        if problems:
            parts.append(f"Waiting: {'; '.join(problems)}.")
        elif halt.fault in DEVICE_HALTS and halt.device:
            state = self.devices.get(halt.device, "")
            parts.append(f"{device_name(halt.device).capitalize()} is back"
                         f"{f' ({state})' if state else ''}: a supervisor can now resume.")
        if self.held:
            parts.append(f"Read while stopped, held (not dealt): {', '.join(self.held)}.")
        more = reason_beyond_fault(halt.reason, halt.fault, halt.device)
        if more:
            parts.append(more + ".")
        parts.append(f"What to do: {halt.remedy}")
        if halt.device_id:
            parts.append(f"({device_name(halt.device)} id {halt.device_id})")
        if halt.said and halt.fault in ("misread", "device_error"):
            parts.append(f"It said: {halt.said}")
        self.detail.set_full("  ".join(parts))
        self.detail.show()

    def show_notice(self, text: str, seconds: float = NOTICE_SECONDS) -> None:
        if self.halt is not None:
            return
        self._style(theme.WARN, "#47360f")
        self.title.set_full(text)
        self.detail.set_full("")
        self.detail.hide()
        self.button.hide()
        self.show()
        self._notice_timer.start(int(seconds * 1000))

    def _end_notice(self) -> None:
        if self.halt is None:
            self.hide()

    @property
    def text(self) -> str:
        """Everything the banner says, as plain text."""
        return f"{self.title.full} {self.detail.full}".strip()
