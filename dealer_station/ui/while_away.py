"""What happened at the table while nobody was signed in at its station, told to the next
person who signs in: cards read (dealt or held), halts, rounds closed or voided, lockouts.

Read from the journal (never written): the table's records after the moment the station was
last left with nobody signed in, up to the new sign-in.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStackedWidget

from dealer_station.audit.journal import Journal
from dealer_station.events import Codec, Committed, Event
from dealer_station.events.station import SignedIn, SignedOut
from dealer_station.events.table import COMMON, RoundHalted, StationStarted, StationStopped
from dealer_station.table.base import Halt
from dealer_station.ui import theme

#: Records that start or end somebody's sign-in at the station, or the station's run.
BOUNDARIES: tuple[type[Event], ...] = (SignedIn, SignedOut, StationStarted, StationStopped)
#: At most this many lines; the rest are counted.
MOST_SHOWN = 6


def _read(journal: Journal, table_id: str, codec: Codec, kinds: tuple[str, ...],
          from_seq: int = 1) -> list[Committed]:
    return [codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind, r.payload)
            for r in journal.records(table_id, from_seq=from_seq, kinds=kinds)]


def nobody_since(journal: Journal, table_id: str) -> int:
    """The seq of the table's record after which nobody has been signed in at its station
    (0: nobody ever was). A supervisor's visit (a ``login`` over a dealer, and the visitor's
    ``logout``) does not end the dealer's sign-in; a station that stopped with someone signed
    in left nobody signed in from its ``shutdown`` (or, after a crash, its next ``startup``)."""
    since = 0
    signed_in = False
    visitors: set[str] = set()
    for c in _read(journal, table_id, Codec(BOUNDARIES), tuple(e.KIND for e in BOUNDARIES)):
        e = c.event
        if isinstance(e, SignedIn):
            if "over" in e.more:
                visitors.add(e.user_id)
            else:
                signed_in = True
        elif isinstance(e, SignedOut):
            if e.user in visitors:
                visitors.discard(e.user)
            elif signed_in:
                signed_in, since = False, c.seq
        elif signed_in or visitors:   # startup / shutdown with someone signed in
            signed_in, since = False, c.seq
            visitors.clear()
    return since


def told_kinds(codec: Codec) -> tuple[str, ...]:
    """The kinds of record whose events say something to the next person who signs in."""
    return tuple(kind for kind, cls in codec.classes.items() if cls.told is not Event.told)


def what_happened(journal: Journal, table_id: str, after_seq: int, *,
                  codec: Codec | None = None, unit: str = "round",
                  halt: Halt | None = None) -> list[str]:
    """Short lines about the table's records after ``after_seq`` up to the next sign-in, in
    the words each event has for it (``codec``: the table's events; ``halt``: the table's
    halt now, to say whether one is still to be resolved)."""
    codec = codec or Codec(COMMON)
    lines: list[str] = []
    for c in _read(journal, table_id, codec, (*told_kinds(codec), SignedIn.KIND),
                   from_seq=after_seq + 1):
        if isinstance(c.event, SignedIn):
            break
        line = c.event.told(unit, c.round_no)
        if isinstance(c.event, RoundHalted) and halt is not None and halt.seq == c.seq:
            line += " — a supervisor must resolve it"
        if line:
            lines.append(line)
    return lines


def summary_text(lines: list[str]) -> str:
    """One paragraph: "While nobody was signed in: card 9♥ read and held; round 12 ..."."""
    shown = lines[:MOST_SHOWN]
    more = len(lines) - len(shown)
    text = "; ".join(shown)
    if more:
        text += f"; and {more} more (see the supervisor's Events tab)"
    return f"While nobody was signed in: {text}."


class WhileAwayNote(QFrame):
    """The summary, shown after a sign-in until the person dismisses it with one tap.

    It floats over the top of the screens (``stack``) rather than taking a row of the
    window's layout: the screens already fill the 800 px height, and the note must not push
    them off the bottom."""

    def __init__(self, stack: QStackedWidget) -> None:
        super().__init__(stack)
        self._stack = stack
        stack.installEventFilter(self)
        # Each screen shown is raised: stay above it.
        stack.currentChanged.connect(lambda _i: self.raise_())
        self.setObjectName("whileAway")
        self.setStyleSheet(
            f"QFrame#whileAway {{ background: #47360f; border: 2px solid {theme.WARN};"
            f" border-radius: 10px; }}"
            f" QLabel {{ font-size: 19px; color: #fff4dc; }}")
        row = QHBoxLayout(self)
        row.setContentsMargins(18, 8, 12, 8)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        row.addWidget(self.label, 1)
        self.ok_button = QPushButton("OK, seen")
        self.ok_button.setMinimumHeight(theme.TOUCH_PX)
        self.ok_button.setMinimumWidth(150)
        self.ok_button.clicked.connect(self.hide)
        row.addWidget(self.ok_button)
        self.lines: list[str] = []
        self.hide()

    def show_lines(self, lines: list[str]) -> None:
        self.lines = list(lines)
        if not lines:
            self.hide()
            return
        text = summary_text(lines)
        head, _, rest = text.partition(": ")
        self.label.setText(f"<b>{escape(head)}:</b> {escape(rest)}")
        self._place()
        self.show()
        self.raise_()

    def _place(self) -> None:
        width = max(200, self._stack.width() - 24)
        self.setGeometry(12, 6, width, self.heightForWidth(width))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._stack and event.type() == QEvent.Type.Resize:
            self._place()
        return False

    @property
    def text(self) -> str:
        return summary_text(self.lines) if self.lines else ""
