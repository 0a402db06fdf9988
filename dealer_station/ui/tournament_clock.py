"""The round clock: a 30-minute session counted down, large enough to read across the room.

At zero the rulebook's words: time is called, the hand under way is finished. The clock runs
on a monotonic clock (a changed wall clock never moves it) and can be paused; it is the
director's aid, not a record (the journal holds the results, not the minutes).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from dealer_station.ui import theme

ROUND_SECONDS = 30 * 60
TIME_CALLED = "Time: finish the hand under way"


def clock_text(seconds: float) -> str:
    s = max(0, int(seconds + 0.999))   # 0.2 s left still reads 00:01
    return f"{s // 60:02d}:{s % 60:02d}"


class RoundClock(QWidget):
    """Start / Pause / Reset and the time left, in figures a metre tall in spirit."""

    expired = Signal()
    ticked = Signal(str)

    def __init__(self, *, seconds: int = ROUND_SECONDS,
                 now: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.total = seconds
        self.now = now
        self.left = float(seconds)
        self.started_at: float | None = None
        self.round_label = QLabel("")
        self.round_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.round_label.setStyleSheet(f"font-size: 30px; font-weight: bold; "
                                       f"color: {theme.MUTED};")
        self.figures = QLabel(clock_text(self.left))
        self.figures.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.figures.setAccessibleName("Time left in the round")
        self.banner = QLabel("")
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(f"font-size: 40px; font-weight: bold; color: {theme.WARN};")
        self.start_button = QPushButton("Start")
        self.start_button.setObjectName("primary")
        self.start_button.clicked.connect(self.toggle)
        self.reset_button = QPushButton("Reset to 30:00")
        self.reset_button.clicked.connect(self.reset)
        for b in (self.start_button, self.reset_button):
            b.setMinimumSize(220, 72)
            b.setStyleSheet("font-size: 24px;")
        col = QVBoxLayout(self)
        col.addStretch(1)
        col.addWidget(self.round_label)
        col.addWidget(self.figures)
        col.addWidget(self.banner)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.start_button)
        row.addWidget(self.reset_button)
        row.addStretch(1)
        col.addLayout(row)
        col.addStretch(1)
        self.timer = QTimer(self)
        self.timer.setInterval(250)
        self.timer.timeout.connect(self.tick)
        self._show()

    @property
    def running(self) -> bool:
        return self.started_at is not None

    def remaining(self) -> float:
        if self.started_at is None:
            return self.left
        return max(0.0, self.left - (self.now() - self.started_at))

    def toggle(self) -> None:
        if self.running:
            self.left = self.remaining()
            self.started_at = None
            self.timer.stop()
        elif self.remaining() > 0:
            self.started_at = self.now()
            self.timer.start()
        self._show()

    def reset(self) -> None:
        self.timer.stop()
        self.started_at = None
        self.left = float(self.total)
        self._show()

    def set_round(self, text: str) -> None:
        self.round_label.setText(text)

    def tick(self) -> None:
        if self.running and self.remaining() <= 0:
            self.left = 0.0
            self.started_at = None
            self.timer.stop()
            self._show()
            self.expired.emit()
            return
        self._show()

    def _show(self) -> None:
        left = self.remaining()
        over = left <= 0
        colour = theme.BAD if over else theme.WARN if left < 5 * 60 else theme.TEXT
        self.figures.setText(clock_text(left))
        self.figures.setStyleSheet(f"font-size: 220px; font-weight: bold; color: {colour}; "
                                   f"font-family: 'DejaVu Sans Mono';")
        self.banner.setText(TIME_CALLED if over else "")
        self.start_button.setText("Pause" if self.running else "Start" if left >= self.total
                                  else "Resume")
        self.start_button.setEnabled(not over)
        self.ticked.emit(TIME_CALLED if over else clock_text(left))
