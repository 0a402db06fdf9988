"""The supervisor's Protection tab: the table's game-protection alerts of the gaming day,
newest first; touch one to open its evidence page (ui/protection_page.py).

The tab's title counts the alerts the supervisor has not opened yet, and the supervisor's
screen says each new one the moment the table journals it. The dealer's screen never shows
them: the person an alert may be about is the one at the table. The pit acknowledges them
(floor/alerts.py), with a reason, in its own chain.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_station.errors import StationError
from dealer_station.events.table import ProtectionAlerted
from dealer_station.ui import theme
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.protection_page import EvidencePage, alert_of

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.records import Record
    from dealer_station.money import Money

HEADERS = ("Time", "Round", "Rule", "Seat", "What the monitor found")


class ProtectionTab(QWidget):
    """One table's game-protection alerts of the day, and each one's evidence; ``seen``
    when an alert not opened before is opened."""

    seen = Signal()

    def __init__(self, journal: Journal, table_id: str, money: Money | None = None) -> None:
        super().__init__()
        self.journal = journal
        self.table_id = table_id
        self.money = money
        self.records: list[Record] = []
        #: The alerts (record seqs) journaled since the supervisor last looked at the tab.
        self.unseen: set[int] = set()
        self.stack = QStackedWidget()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)
        listing = QWidget()
        col = QVBoxLayout(listing)
        col.setContentsMargins(12, 10, 12, 10)
        self.intro = QLabel("")
        self.intro.setWordWrap(True)
        self.intro.setStyleSheet("font-size: 18px;")
        col.addWidget(self.intro)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(theme.TOUCH_PX)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setStyleSheet("QTableWidget { font-size: 19px; }")
        self.table.cellClicked.connect(lambda r, _c: self.open_row(r))
        col.addWidget(self.table, 1)
        self.message = MessageLabel()
        col.addWidget(self.message)
        self.stack.addWidget(listing)
        self.page = EvidencePage(journal)
        self.page.back.connect(lambda: self.stack.setCurrentIndex(0))
        self.stack.addWidget(self.page)

    def alerts_today(self) -> list[Record]:
        from dealer_station.gameconfig import load_gaming_calendar

        calendar = load_gaming_calendar()
        start = calendar.day(calendar.day_of(datetime.now().astimezone())).start
        return self.journal.events(self.table_id, since=start,
                                   kinds=[ProtectionAlerted.KIND])[::-1]

    def refresh(self) -> None:
        try:
            self.records = self.alerts_today()
        except StationError as exc:
            self.message.say(str(exc), "bad")
            return
        n = len(self.records)
        self.intro.setText(
            "The game-protection monitor watches the shoe (each card's value and colour "
            "against the deck) and each seat's First Card wagers against the coming card, at "
            "most 1 false alarm per 10,000 rounds. "
            + (f"<b>{n} alert{'s' if n != 1 else ''} this gaming day</b>, newest first: touch "
               f"one for its evidence. The pit acknowledges them." if n else
               "No alert this gaming day."))
        self.intro.setTextFormat(Qt.TextFormat.RichText)
        self.table.setRowCount(n)
        for i, r in enumerate(self.records):
            try:
                a = alert_of(r)
            except StationError as exc:
                self.message.say(str(exc), "bad")
                continue
            colour = QColor(theme.BAD) if r.seq in self.unseen else None
            words = a.words[:1].upper() + a.words[1:]
            at = datetime.fromisoformat(r.ts).astimezone().strftime("%H:%M:%S")
            for c, text in enumerate((at, str(a.round_no), a.rule_name,
                                      str(a.seat) if a.seat is not None else "—", words)):
                item = QTableWidgetItem(text)
                item.setToolTip(words)
                if colour is not None:
                    item.setForeground(colour)
                self.table.setItem(i, c, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)

    def open_row(self, row: int) -> None:
        if not 0 <= row < len(self.records):
            return
        record = self.records[row]
        from dealer_station.ui.events_tab import people_of

        try:
            self.page.open(self.table_id, record, people=people_of(self.journal,
                                                                   self.table_id),
                           money=self.money)
        except StationError as exc:
            self.message.say(str(exc), "bad")
            return
        if record.seq in self.unseen:
            self.unseen.discard(record.seq)
            self.seen.emit()
        self.stack.setCurrentWidget(self.page)

    def open_seq(self, seq: int) -> bool:
        """Open the evidence of the alert journaled as record ``seq`` (tests, the banner)."""
        self.refresh()
        for i, r in enumerate(self.records):
            if r.seq == seq:
                self.open_row(i)
                return True
        return False
