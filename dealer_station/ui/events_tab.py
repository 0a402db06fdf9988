"""The supervisor's Events tab: the significant events of this table and of the station,
newest first, read from the journal."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.journal import Journal
from dealer_station.audit.records import Record
from dealer_station.audit.users import STATION_STREAM
from dealer_station.events.table import halt_event_text
from dealer_station.ui.models import EventsModel

EVENTS_SHOWN = 300


class SignificantEventsModel(EventsModel):
    """The events list with halts, their resolutions and held cards said in words (what
    stopped play or who resumed it, and why); every other kind as the journal names it."""

    def text(self, row: Record, col: int) -> str:
        if col in (self.EVENT, self.DETAIL):
            worded = halt_event_text(row.kind, row.payload, row.actor)
            if worded is not None:
                return worded[0] if col == self.EVENT else worded[1]
        return super().text(row, col)


class EventsTab(QWidget):
    """The Events tab of the supervisor's screen over one table's journal."""

    def __init__(self, journal: Journal, table_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.journal = journal
        self.table_id = table_id
        col = QVBoxLayout(self)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Significant events of this table and of the station, newest "
                             "first"))
        bar.addStretch(1)
        b = QPushButton("Refresh")
        b.setObjectName("nav")
        b.clicked.connect(self.refresh)
        bar.addWidget(b)
        col.addLayout(bar)
        self.model = SignificantEventsModel(self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(34)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(EventsModel.DETAIL, QHeaderView.ResizeMode.Stretch)
        col.addWidget(self.view, 1)

    def refresh(self) -> None:
        records = (self.journal.events(self.table_id)
                   + self.journal.events(STATION_STREAM))
        records.sort(key=lambda r: (r.ts, r.table_id, r.seq), reverse=True)
        self.model.set_rows(records[:EVENTS_SHOWN])
