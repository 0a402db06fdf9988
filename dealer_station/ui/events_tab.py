"""The significant events as people read them: the supervisor's Events tab, and the list the
pit's drill-down shows of a table.

Every word comes from :mod:`dealer_station.events.wording`, as on the printed events report:
what happened ("Shoe ready", "Signed out: back to the dealer"), who ("Sam Supervisor
(supervisor)", "the shoe") and the detail in a sentence. A row is one line; a touch on it opens
the whole record (every word of the detail, the device's id, the record's number) on a panel
closed by a large button. Nothing is in a tooltip: a touch screen cannot hover.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from html import escape

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.journal import Journal
from dealer_station.audit.records import Record
from dealer_station.audit.users import STATION_STREAM
from dealer_station.errors import StationError
from dealer_station.events.wording import EventWords, People, event_words
from dealer_station.ui import theme
from dealer_station.ui.models import RowsModel

EVENTS_SHOWN = 300
#: The list's text, read from a step away; a row is a touch target.
LIST_PX = 19
ROW_PX = 46
DETAIL_PX = 21
TONE_COLOURS = {"bad": theme.BAD, "warn": theme.WARN}


def when_text(ts: str, today: date | None = None) -> str:
    """The station's local time: ``14:34:30`` today, ``25 Nov 14:34`` on another day."""
    moment = datetime.fromisoformat(ts).astimezone()
    if moment.date() == (today or datetime.now().astimezone().date()):
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%d %b %H:%M")


def record_text(rec: Record) -> str:
    """The record's number in its table's chain; user administration is in the station's
    own chain: ``station 3``."""
    return f"station {rec.seq:,}" if rec.table_id == STATION_STREAM else f"{rec.seq:,}"


@dataclass(frozen=True)
class EventRow:
    """One record and its words."""

    record: Record
    words: EventWords
    #: Who, with a device's own id ("the shoe (SIMSHOE)"), for the whole record.
    who_in_full: str


class EventsModel(RowsModel[EventRow]):
    TIME, RECORD, WHO, WHAT, DETAIL = range(5)
    HEADERS = ("Time", "Record", "Who", "What", "Detail")
    NUMERIC = frozenset({RECORD})

    def text(self, row: EventRow, col: int) -> str:
        w = row.words
        if col == self.TIME:
            return when_text(row.record.ts)
        if col == self.RECORD:
            return record_text(row.record)
        if col == self.WHO:
            return w.who
        if col == self.WHAT:
            return w.what
        if col == self.DETAIL:
            return w.detail
        return ""

    def colour(self, row: EventRow, col: int) -> str | None:
        return TONE_COLOURS.get(row.words.tone) if col == self.WHAT else None

    def key(self, row: EventRow) -> tuple[str, int]:
        return (row.record.table_id, row.record.seq)


def worded(records: list[Record], people: People) -> list[EventRow]:
    return [EventRow(r, event_words(r, people),
                     people.actor(r.actor, r.seq, r.table_id, device_id=True))
            for r in records]


class EventDetail(QFrame):
    """One event in full, on a panel: what, when and which record, who, and every word of
    the detail; a large button goes back to the list."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        col = QVBoxLayout(self)
        col.setContentsMargins(22, 16, 22, 16)
        col.setSpacing(12)
        self.what = QLabel("")
        self.what.setWordWrap(True)
        self.what.setStyleSheet("font-size: 26px; font-weight: bold;")
        col.addWidget(self.what)
        self.facts = QLabel("")
        self.facts.setWordWrap(True)
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.facts.setStyleSheet(f"font-size: {DETAIL_PX}px;")
        col.addWidget(self.facts)
        # The detail wraps; a very long one scrolls (with a bar a finger can hold).
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setStyleSheet(f"font-size: {DETAIL_PX + 1}px;")
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setStyleSheet(f"QScrollArea, QScrollArea > QWidget > QWidget "
                             f"{{ background: {theme.PANEL}; }}")
        scroll.setWidget(self.detail)
        col.addWidget(scroll, 1)
        self.close_button = QPushButton("Close — back to the list")
        self.close_button.setObjectName("primary")
        self.close_button.setMinimumHeight(64)
        self.close_button.clicked.connect(self.closed.emit)
        col.addWidget(self.close_button)
        self.row: EventRow | None = None

    def show_row(self, row: EventRow) -> None:
        self.row = row
        r, w = row.record, row.words
        colour = TONE_COLOURS.get(w.tone, theme.GOLD)
        self.what.setText(w.what)
        self.what.setStyleSheet(f"font-size: 26px; font-weight: bold; color: {colour};")
        when = datetime.fromisoformat(r.ts).astimezone().strftime("%A %d %B %Y, %H:%M:%S %Z")
        where = ("the station's own chain (users)" if r.table_id == STATION_STREAM
                 else f"table {r.table_id}")
        facts = [f"<b>When:</b> {escape(when)}",
                 f"<b>Who:</b> {escape(row.who_in_full)}",
                 f"<b>Record:</b> {r.seq:,} of {escape(where)}"
                 + (f", round {r.round_no}" if r.round_no is not None else "")]
        self.facts.setText("<br>".join(facts))
        self.detail.setText(w.detail)


class EventsList(QWidget):
    """The events, a row each, newest first; a touch on a row opens it whole."""

    def __init__(self, hint: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stack = QStackedWidget()
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        if hint:
            said = QLabel(hint)
            said.setWordWrap(True)
            said.setStyleSheet("font-size: 18px;")
            col.addWidget(said)
        col.addWidget(self.stack)
        self.model = EventsModel(self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.view.setStyleSheet(f"QTableView {{ font-size: {LIST_PX}px; }} "
                                f"QHeaderView::section {{ font-size: 18px; }}")
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(ROW_PX)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(EventsModel.DETAIL, QHeaderView.ResizeMode.Stretch)
        self.view.clicked.connect(self._open)
        self.stack.addWidget(self.view)
        self.detail = EventDetail()
        self.detail.closed.connect(self.close_detail)
        self.stack.addWidget(self.detail)

    def set_rows(self, rows: list[EventRow]) -> None:
        self.model.set_rows(rows)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Who and what as wide as they need up to a quarter of the list each, the detail
        the rest: a cell cut short ends in "…", and a touch on its row shows it whole."""
        header = self.view.horizontalHeader()
        width = self.view.viewport().width()
        for col in (EventsModel.WHO, EventsModel.WHAT):
            want = max(self.view.sizeHintForColumn(col), header.sectionSizeHint(col))
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            self.view.setColumnWidth(col, min(want, width // 4))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit_columns()

    def _open(self, index: QModelIndex) -> None:
        self.open_row(index.row())

    def open_row(self, row: int) -> None:
        """Show the event in row ``row`` whole (a touch on the row does this)."""
        if 0 <= row < len(self.model.rows):
            self.view.selectRow(row)
            self.detail.show_row(self.model.rows[row])
            self.stack.setCurrentWidget(self.detail)

    def close_detail(self) -> None:
        self.stack.setCurrentWidget(self.view)

    @property
    def showing_detail(self) -> bool:
        return self.stack.currentWidget() is self.detail


def people_of(journal: Journal, table_id: str | None = None) -> People:
    """The users the journal names (its station chain's ``user.add``) and the players the
    table's sessions seated."""
    try:
        return People.of([*journal.records(STATION_STREAM, kinds=["user.add"]),
                          *(journal.records(table_id, kinds=["session.open"])
                            if table_id else [])])
    except StationError:   # the list still shows, by ids, when the names cannot be read
        return People()


class EventsTab(QWidget):
    """The Events tab of the supervisor's screen over one table's journal."""

    def __init__(self, journal: Journal, table_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.journal = journal
        self.table_id = table_id
        col = QVBoxLayout(self)
        bar = QHBoxLayout()
        intro = QLabel("Significant events of this table and of the station, newest first. "
                       "Touch a row to read it whole.")
        intro.setWordWrap(True)
        intro.setStyleSheet("font-size: 18px;")
        bar.addWidget(intro, 1)
        b = QPushButton("Refresh")
        b.clicked.connect(self.refresh_list)
        bar.addWidget(b)
        col.addLayout(bar)
        self.list = EventsList()
        col.addWidget(self.list, 1)

    @property
    def model(self) -> EventsModel:
        return self.list.model

    def refresh(self) -> None:
        """Read the events again; an event open on the panel stays open (the table's news
        must not take it away mid-read)."""
        records = (self.journal.events(self.table_id)
                   + self.journal.events(STATION_STREAM))
        records.sort(key=lambda r: (r.ts, r.table_id, r.seq), reverse=True)
        self.list.set_rows(worded(records[:EVENTS_SHOWN], people_of(self.journal,
                                                                     self.table_id)))

    def refresh_list(self) -> None:
        """*Refresh*: back to the list, read again."""
        self.list.close_detail()
        self.refresh()
