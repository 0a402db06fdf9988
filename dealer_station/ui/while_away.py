"""What happened at the table while nobody was signed in at its station, told to the next
person who signs in: cards read (dealt or held), halts, rounds closed or voided, lockouts.

Read from the journal (never written): the table's records after the moment the station was
last left with nobody signed in, up to the new sign-in.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStackedWidget

from dealer_station.audit.journal import Journal, Record
from dealer_station.audit.users import local_time
from dealer_station.errors import StationError
from dealer_station.table.base import Halt
from dealer_station.ui import theme
from dealer_station.ui.formatting import card_text

#: Records that start or end somebody's sign-in at the station, or the station's run.
BOUNDARY_KINDS = ("login", "logout", "startup", "shutdown")
#: The records worth telling the next person about.
TOLD_KINDS = ("card", "bourre.card", "card.held", "halt", "round.close", "hand.close", "void",
              "lockout")
#: At most this many lines; the rest are counted.
MOST_SHOWN = 6


def nobody_since(journal: Journal, table_id: str) -> int:
    """The seq of the table's record after which nobody has been signed in at its station
    (0: nobody ever was). A supervisor's visit (a ``login`` over a dealer, and the visitor's
    ``logout``) does not end the dealer's sign-in; a station that stopped with someone signed
    in left nobody signed in from its ``shutdown`` (or, after a crash, its next ``startup``)."""
    since = 0
    signed_in = False
    visitors: set[str] = set()
    for rec in journal.records(table_id, kinds=BOUNDARY_KINDS):
        p = rec.payload
        if rec.kind == "login":
            if "over" in p:
                visitors.add(str(p.get("user_id")))
            else:
                signed_in = True
        elif rec.kind == "logout":
            who = str(p.get("user"))
            if who in visitors:
                visitors.discard(who)
            elif signed_in:
                signed_in, since = False, rec.seq
        elif signed_in or visitors:   # startup / shutdown with someone signed in
            signed_in, since = False, rec.seq
            visitors.clear()
    return since


def _card(code: object) -> str:
    try:
        return card_text(str(code))
    except (StationError, ValueError):
        return str(code)


def what_happened(journal: Journal, table_id: str, after_seq: int, *, unit: str = "round",
                  halt: Halt | None = None) -> list[str]:
    """Short lines about the table's records after ``after_seq`` up to the next sign-in
    (``halt``: the table's halt now, to say whether one is still to be resolved)."""
    lines: list[str] = []
    for rec in journal.records(table_id, from_seq=after_seq + 1,
                               kinds=(*TOLD_KINDS, "login")):
        if rec.kind == "login":
            break
        line = _line(rec, unit, halt)
        if line:
            lines.append(line)
    return lines


def _line(rec: Record, unit: str, halt: Halt | None) -> str:
    p = rec.payload
    where = f" ({unit} {rec.round_no})" if rec.round_no else ""
    if rec.kind == "card":
        return f"card {_card(p.get('card'))} read and dealt{where}"
    if rec.kind == "bourre.card":
        return f"card {_card(p.get('card'))} read and dealt to seat {p.get('seat')}{where}"
    if rec.kind == "card.held":
        return f"card {_card(p.get('card'))} read and held, not dealt"
    if rec.kind == "halt":
        what = f"{unit} {rec.round_no} stopped" if rec.round_no else "the table stopped"
        # A card held while nobody was signed in is said by its own line already.
        line = what if p.get("fault") == "unattended_card" else f"{what}: {p.get('reason', '')}"
        if halt is not None and halt.seq == rec.seq:
            line += " — a supervisor must resolve it"
        return line
    if rec.kind in ("round.close", "hand.close"):
        return f"{unit} {rec.round_no} closed"
    if rec.kind == "void":
        return f"{unit} {rec.round_no} voided"
    if rec.kind == "lockout":
        until = p.get("until")
        when = f" until {local_time(until)}" if isinstance(until, str) else ""
        return (f"{p.get('user_id')} locked out{when} after {p.get('failures')} wrong PINs "
                f"(unlock on the Supervisor screen, Lockouts)")
    return ""


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
