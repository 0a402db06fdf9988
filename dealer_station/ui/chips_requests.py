"""The table's fill and credit requests on the supervisor's Chips tab, where the jurisdiction
takes fills and credits through the cage (``[cage]`` of the accounting settings).

Each request is one row: what it is and its number ("Fill T1-R-2026-00007"), its state in
words (Requested, Issued at the cage, In transit, Received at the table, Voided), its total
as money, and how long an open one has waited; one open longer than the jurisdiction's
``alert_minutes`` is in the alert colour, marked late. The open ones come first, oldest
first (the one waited on longest on top), then the closed ones, newest first. *Receive* and
*Void* act on the selected one (ChipsPanel does the acting).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.requests import STATE_WORDS, Request, requested_at
from dealer_station.ui import theme

#: A request's row: read at a metre, touched to select it.
ROW_PX = 40
#: The closed requests listed below the open ones.
CLOSED_SHOWN = 6
HEADERS = ("Request", "State", "Amount", "Waiting")
#: The buttons beside a list (Receive, Void, Print): a fingertip wide and more.
SIDE_BUTTON_PX = 130


def waited_minutes(req: Request, now: datetime) -> int:
    """Whole minutes since the request was made."""
    return max(0, int((now - requested_at(req)).total_seconds() // 60))


def waited_text(minutes: int) -> str:
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def request_words(req: Request) -> str:
    """"Fill T1-R-2026-00007"."""
    return f"{req.kind.capitalize()} {req.label}"


def last_step_seq(req: Request) -> int:
    return req.steps()[-1][1].seq


def listed(requests: list[Request], shown_closed: int = CLOSED_SHOWN) -> list[Request]:
    """The requests in the order the list shows them (see the module)."""
    open_ = sorted((r for r in requests if r.open), key=lambda r: r.requested.seq)
    closed = sorted((r for r in requests if not r.open), key=last_step_seq, reverse=True)
    return open_ + closed[:shown_closed]


def chips_differences(counted: Chips, slip: Chips, number: Callable[[int], str]) -> list[str]:
    """Each denomination whose count differs from the slip's, in words: "25.00: 19 counted,
    20 on the slip"."""
    out = []
    for d in sorted(set(counted.as_dict()) | set(slip.as_dict())):
        if counted.count(d) != slip.count(d):
            out.append(f"{number(d)}: {counted.count(d)} counted, {slip.count(d)} on the slip")
    return out


def without_zeros(chips: Chips) -> Chips:
    """The same chips with no denomination counted 0 (as a slip stores them)."""
    return Chips.of({d: n for d, n in chips.counts if n})


def hhmm(ts: str) -> str:
    """A record's time as the local clock shows it."""
    return datetime.fromisoformat(ts).astimezone().strftime("%H:%M")


def _people(signers: Sequence[str] | None, names: Mapping[str, str]) -> str:
    """Journal actors (``dana/dealer``) as the people's names: "Dana Dealer and Sam
    Supervisor"."""
    ids = [a.partition("/")[0] for a in (signers or ())]
    return " and ".join(names.get(i, i) for i in ids)


def request_detail(req: Request, names: Mapping[str, str], money: Callable[[int], str],
                   number: Callable[[int], str]) -> str:
    """The request's story in a sentence: each step, when and by whom (who signed by their
    names)."""
    e = req.event
    chips = ", ".join(f"{n} × {number(d)}" for d, n in req.chips.counts if n)
    parts = [f"requested {hhmm(req.requested.ts)} by {_people(e.signers, names)}"]
    issue = req.issue
    if issue is not None and req.issued is not None:
        parts.append(f"issued {hhmm(req.issued.ts)} as slip {req.slip_label} by "
                     f"{_people(issue.signers, names)}")
    carry = req.carry
    if carry is not None and req.carried is not None:
        parts.append(f"carried from {hhmm(req.carried.ts)} by {_people(carry.signers, names)}")
    if req.received is not None:
        table = req.received.actor.split("+")
        parts.append(f"received {hhmm(req.received.ts)}, signed by {_people(table, names)}")
    for voided in (req.voided, req.slip_voided):
        if voided is not None:
            v = voided.event
            parts.append(f"voided {hhmm(voided.ts)} by "
                         f"{_people(getattr(v, 'signers', None) or (voided.actor,), names)}: "
                         f"{getattr(v, 'reason', '')}")
    return (f"{request_words(req)}, {money(e.total)} ({chips}): " + "; ".join(parts) + "."
            + (f" Note: {e.note}" if e.note else ""))


@dataclass(frozen=True)
class Row:
    """One request as the list shows it."""

    key: tuple[int, int]
    words: str
    state: str
    amount: str
    waiting: str
    late: bool


def row_of(req: Request, now: datetime, alert_minutes: int, money: Callable[[int], str]
           ) -> Row:
    late = req.overdue(now, alert_minutes)
    waiting = ""
    if req.open:
        waiting = waited_text(waited_minutes(req, now)) + (" late" if late else "")
    return Row(req.key, request_words(req), STATE_WORDS[req.state], money(req.event.total),
               waiting, late)


class RequestsBox(QGroupBox):
    """The requests' list with *Receive* and *Void* under it (see the module)."""

    def __init__(self) -> None:
        super().__init__("")
        # Its title is on the buttons' line (below), not above the box.
        self.setObjectName("requests")
        self.setStyleSheet("QGroupBox#requests { margin-top: 0px; padding-top: 0px; }")
        inner = QVBoxLayout(self)
        inner.setContentsMargins(8, 6, 8, 6)
        inner.setSpacing(6)
        # The title, and the buttons that act on the selected request, on one line: the
        # list keeps the box's whole width for its four columns.
        top = QHBoxLayout()
        self.heading = QLabel("Fill and credit requests")
        self.heading.setStyleSheet(f"font-size: 19px; font-weight: bold; color: {theme.GOLD};")
        top.addWidget(self.heading, 1)
        self.receive_button = QPushButton("Receive")
        self.receive_button.setAccessibleName("Receive the selected request")
        self.receive_button.setObjectName("primary")
        self.void_button = QPushButton("Void…")
        self.void_button.setAccessibleName("Void the selected request")
        self.void_button.setObjectName("danger")
        for b in (self.receive_button, self.void_button):
            b.setMinimumHeight(theme.TOUCH_PX)
            b.setFixedWidth(SIDE_BUTTON_PX)
            top.addWidget(b)
        inner.addLayout(top)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(ROW_PX)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setStyleSheet("font-size: 18px;")
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        inner.addWidget(self.table, 1)
        self.rows: list[Row] = []

    def show_rows(self, rows: list[Row]) -> None:
        """List ``rows``, keeping the selected request selected."""
        keep = self.selected_key()
        self.rows = rows
        self.table.clearSelection()
        self.table.setRowCount(max(1, len(rows)))
        if not rows:
            empty = QTableWidgetItem("No fill or credit requested yet")
            empty.setForeground(QColor(theme.MUTED))
            self.table.setItem(0, 0, empty)
            for c in range(1, len(HEADERS)):
                self.table.setItem(0, c, QTableWidgetItem(""))
        for i, r in enumerate(rows):
            for j, text in enumerate((r.words, r.state, r.amount, r.waiting)):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, r.key)
                if j >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight |
                                          Qt.AlignmentFlag.AlignVCenter)
                if r.late and j in (0, 3):
                    item.setForeground(QColor(theme.BAD))
                    font = QFont(item.font())
                    font.setBold(True)
                    item.setFont(font)
                elif r.state == STATE_WORDS["voided"]:
                    item.setForeground(QColor(theme.MUTED))
                self.table.setItem(i, j, item)
            if r.key == keep:
                self.table.selectRow(i)

    def selected_key(self) -> tuple[int, int] | None:
        row = self.table.currentRow()
        model = self.table.selectionModel()
        if row < 0 or model is None or not model.hasSelection():
            return None
        item = self.table.item(row, 0)
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return (int(key[0]), int(key[1])) if key else None

    def select(self, key: tuple[int, int]) -> bool:
        for i, r in enumerate(self.rows):
            if r.key == key:
                self.table.selectRow(i)
                return True
        return False


__all__ = ["SIDE_BUTTON_PX", "RequestsBox", "Row", "chips_differences", "listed",
           "request_detail", "request_words", "row_of", "waited_minutes", "waited_text",
           "without_zeros"]
