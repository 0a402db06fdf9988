"""The stop banner: what stopped the round and what the supervisor can do about it.

It follows the table's ``halt`` (set by a device fault, a jam, an impossible card...) and
stays until a supervisor resumes, corrects the card or voids the round. While it stays it
follows the devices (waiting for the shoe, or the shoe is back and a supervisor can resume)
and lists the cards read and held since. Between halts it can carry a short notice (a card
read while stopped, a clock jump, a device's fault outside a round) that fades by itself or
goes with a touch of *OK*.

It says everything, wrapped, never cut: the cause, the device's own words (``The shoe
reports E42: ...``), what play waits for, the cards held, and the whole remedy, each at 18 px
or larger; nothing is left to a tooltip. Where it goes is the window's business
(:mod:`dealer_station.ui.main_window`): over the part of a screen that offers it room (the
La Pair'e dealer's controls under the felt, which cannot act while play is stopped), so the
felt keeps its size and place, else across the top of the screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QRect, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QScroller,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.events.table import device_name, fault_words, reason_beyond_fault
from dealer_station.table.base import ABSENT_LINKS, HALTING_STATUSES, STATUS_REMEDIES, Halt
from dealer_station.ui import theme
from dealer_station.ui.formatting import read_card_text

NOTICE_SECONDS = 10.0
#: Halts a device's return clears: once it is back, a supervisor can resume.
DEVICE_HALTS = frozenset({"gap", "heartbeat_lost", "disconnected", "restarted",
                          "wrong_device", "bad_frame", "device_error", "jam", "door_open",
                          "tamper"})
#: Halts resolved by entering the card really dealt.
CARD_HALTS = frozenset({"misread", "impossible_card", "repeat_mismatch", "unattended_card"})
#: Halts whose device said something of its own about it (its error code and text, what it
#: could not read): shown as the device said it.
SAID_HALTS = frozenset({"misread", "device_error"})
TITLE_PX = 22
DETAIL_PX = theme.LEAST_PX
#: Inside its frame: left, top, right, bottom.
MARGINS = (16, 6, 10, 6)


@runtime_checkable
class BannerRoom(Protocol):
    """A screen with a part the stop banner may cover while it shows (in the screen's own
    coordinates; an empty rectangle: none just now)."""

    def banner_room(self) -> QRect: ...


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


def _sentence(text: str) -> str:
    """``text`` begun with a capital and ended with a stop."""
    text = text.strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?)" else text + "."


class WrappedText(QLabel):
    """Plain text, wrapped to the width it is given (a device's words are never read as
    markup)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)


class HaltBanner(QFrame):
    """``supervisor_requested``: its *Supervisor* button was touched; ``changed``: it came,
    went, or says something else (the window places it again)."""

    supervisor_requested = Signal()
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.halt: Halt | None = None
        self.devices: dict[str, str] = {}
        self.held: list[str] = []
        self._call_shown = True
        self._stacked = False
        self._title = ""
        self._lines: list[str] = []
        grid = QGridLayout(self)
        # Placed by the window at the size all it says takes (needed_height), never held to
        # a least size of its own.
        grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        grid.setContentsMargins(*MARGINS)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        self._grid = grid
        # The words, in a box that scrolls (its scroll bar in sight) only if a screen has
        # less room than they take: never cut.
        self.title = WrappedText("bannerTitle")
        self.detail = WrappedText("bannerDetail")
        words = QWidget()
        words.setObjectName("bannerWords")
        column = QVBoxLayout(words)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.title)
        column.addWidget(self.detail)
        column.addStretch(1)
        self._words = words
        self.words_box = QScrollArea()
        self.words_box.setObjectName("bannerScroll")
        self.words_box.setFrameShape(QFrame.Shape.NoFrame)
        self.words_box.setWidgetResizable(True)
        self.words_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.words_box.setWidget(words)
        QScroller.grabGesture(self.words_box.viewport(),
                              QScroller.ScrollerGestureType.LeftMouseButtonGesture)
        grid.addWidget(self.words_box, 0, 0)
        grid.setColumnStretch(0, 1)
        grid.setRowStretch(0, 1)
        self.button = QPushButton("Supervisor  (F3)")
        self.button.setObjectName("danger")
        self.button.clicked.connect(self.supervisor_requested)
        self.dismiss = QPushButton("OK")
        self.dismiss.setMinimumWidth(2 * theme.TARGET_PX)
        self.dismiss.clicked.connect(self._end_notice)
        self._buttons = QHBoxLayout()
        self._buttons.addStretch(1)
        self._buttons.addWidget(self.button)
        self._buttons.addWidget(self.dismiss)
        grid.addLayout(self._buttons, 0, 1, Qt.AlignmentFlag.AlignVCenter)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self._end_notice)
        self.hide()

    def _style(self, colour: str, background: str) -> None:
        self._colours = (colour, background)
        self.setStyleSheet(
            f"QFrame#banner {{ background: {background}; border: 2px solid {colour};"
            f" border-radius: 10px; }}"
            f" QScrollArea#bannerScroll, QWidget#bannerWords {{ background: transparent; }}"
            f" QLabel#bannerTitle {{ font-size: {TITLE_PX}px; font-weight: bold;"
            f" color: #ffffff; }}"
            f" QLabel#bannerDetail {{ font-size: {DETAIL_PX}px; color: #ffe9e6; }}")

    def set_stacked(self, stacked: bool) -> None:
        """Over a screen's room: its text line by line over the room's width, its buttons
        under it. Across the top: as low as it can be, the title and the rest in one
        paragraph, the buttons beside it."""
        if stacked == self._stacked:
            return
        self._stacked = stacked
        self._grid.removeItem(self._buttons)
        if stacked:
            self._grid.addLayout(self._buttons, 1, 0)
        else:
            self._grid.addLayout(self._buttons, 0, 1, Qt.AlignmentFlag.AlignVCenter)
        self._show_words()

    def _show_words(self) -> None:
        if self._stacked or not self._lines:
            self.title.setTextFormat(Qt.TextFormat.PlainText)
            self.title.setText(self._title)
            self.detail.setText("\n".join(self._lines))
            self.detail.setVisible(bool(self._lines))
            return
        # One paragraph: the title in its own size and weight, then the rest.
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setText(
            f"{escape(self._title)}&nbsp;&nbsp; <span style='font-size: {DETAIL_PX}px;"
            f" font-weight: normal; color: #ffe9e6'>"
            + "&nbsp; ".join(escape(line) for line in self._lines) + "</span>")
        self.detail.hide()

    def needed_height(self, width: int) -> int:
        """The height the banner takes at ``width``, everything it says wrapped."""
        self.ensurePolished()
        left, top, right, bottom = MARGINS
        frame = self.contentsMargins()        # its border, from the style sheet
        left, right = left + frame.left(), right + frame.right()
        top, bottom = top + frame.top(), bottom + frame.bottom()
        inner = width - left - right
        buttons = self._buttons.sizeHint()
        has_buttons = not (self.button.isHidden() and self.dismiss.isHidden())
        if not self._stacked and has_buttons:
            inner -= buttons.width() + self._grid.horizontalSpacing()
        column = self._words.layout()
        assert column is not None
        column.activate()
        height = column.totalHeightForWidth(max(1, inner))
        if self._stacked and has_buttons:
            height += buttons.height() + self._grid.verticalSpacing()
        elif has_buttons:
            height = max(height, buttons.height())
        return height + top + bottom

    def set_call_shown(self, shown: bool) -> None:
        """Whether the halt's *Supervisor* button shows: not while the supervisor's screen
        (or the supervisor's sign-in) is the one in view."""
        if shown != self._call_shown:
            self._call_shown = shown
            self.button.setVisible(shown and self.halt is not None)
            self.changed.emit()

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
            self.changed.emit()
            return
        self._notice_timer.stop()
        self._style(theme.BAD, "#4a1511")
        self.dismiss.hide()
        self.button.setVisible(self._call_shown)
        self._render()
        self.show()
        self.changed.emit()

    def follow_devices(self, devices: Mapping[str, str]) -> None:
        """The devices' states changed: say whether play can resume now."""
        self.devices = dict(devices)
        if self.halt is not None:
            self._render()
            self.changed.emit()

    def card_held(self, card: str) -> None:
        """A card was read and not taken: listed under the halt (or said as a notice)."""
        if self.halt is None:
            self.show_notice(f"Card {read_card_text(card)} was read but not taken (held, not "
                             f"dealt).")
            return
        self.held.append(read_card_text(card))
        self._render()
        self.changed.emit()

    def detail_lines(self) -> list[str]:
        """What the banner says under its title, line by line: the device's own words, what
        play waits for, the cards held, anything more the halt's reason says, and what to
        do."""
        halt = self.halt
        assert halt is not None
        lines = []
        device = device_name(halt.device) if halt.device else ""
        who = f" ({device}, id {halt.device_id})" if halt.device_id else ""
        if halt.said and halt.fault in SAID_HALTS:
            lines.append(_sentence(halt.said) + who)
            who = ""
        problems = device_problems(self.devices)
        if problems:
            lines.append(f"Waiting: {'; '.join(problems)}.")
        elif halt.fault in DEVICE_HALTS and halt.device:
            state = self.devices.get(halt.device, "")
            lines.append(f"{device.capitalize()} is back{f' ({state})' if state else ''}: "
                         f"a supervisor can now resume.")
        if self.held:
            lines.append(f"Read while stopped, held (not dealt): {', '.join(self.held)}.")
        more = reason_beyond_fault(halt.reason, halt.fault, halt.device)
        if more:
            lines.append(_sentence(more))
        lines.append(f"What to do: {_sentence(halt.remedy)}")
        if who:
            lines.append(f"Stopped by {device}, id {halt.device_id}.")
        return lines

    def _render(self) -> None:
        halt = self.halt
        assert halt is not None
        cause = fault_words(halt.fault, halt.device)
        card = f" ({halt.card})" if halt.card and halt.fault in CARD_HALTS else ""
        self._title = f"ROUND STOPPED — {cause}{card}"
        self._lines = self.detail_lines()
        self._show_words()

    def show_notice(self, text: str, seconds: float = NOTICE_SECONDS) -> None:
        """A short notice between halts, gone after ``seconds`` or with a touch of *OK*."""
        if self.halt is not None:
            return
        self._style(theme.WARN, "#47360f")
        self._title, self._lines = text, []
        self._show_words()
        self.button.hide()
        self.dismiss.show()
        self.show()
        self._notice_timer.start(int(seconds * 1000))
        self.changed.emit()

    def _end_notice(self) -> None:
        self._notice_timer.stop()
        if self.halt is None:
            self.hide()
            self.changed.emit()

    @property
    def text(self) -> str:
        """Everything the banner says, as plain text."""
        return " ".join([self._title, *self._lines]).strip()

    @property
    def lines(self) -> list[str]:
        """What it says under its title, line by line."""
        return list(self._lines)
