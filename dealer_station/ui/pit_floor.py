"""The pit's view of the floor itself: which server it reads (the primary, or a standby and
how far behind), and what the pit's tables adopted and the floor lost in a failover, for an
operator to publish again from the table's own copy.

* :class:`FloorLine`, a line at the top of the pit, read with the grid:
  "Floor: primary 127.0.0.1:41567 (since 14:02, was 127.0.0.1:41234) · no standby streaming
  from it"; a standby read in the warning colour, one far behind or not receiving in the
  alert colour.
* :class:`LostPanel`, a tab beside the alerts shown only while something is lost: one row
  per copy (table, what, adopted at, the table's record that keeps the copy) and *Publish
  again*, which the window asks a reason for and an operator alone may do
  (``floor/central.publish_lost_again``).
"""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station.floor.alerts import PitView
from dealer_station.floor.central import LostAdoption, lost_words
from dealer_station.floor.server import server_tone, server_words
from dealer_station.ui import theme
from dealer_station.ui.table_items import read_only_item

TONES = {"good": theme.MUTED, "warn": theme.WARN, "bad": theme.BAD}
LOST_HEADERS = ("Table", "Lost", "What", "Adopted at", "The table's copy")


class FloorLine(QLabel):
    """Which server the pit reads, in words (see the module)."""

    def __init__(self) -> None:
        super().__init__("Floor: not read yet")
        self.setAccessibleName("The floor's server")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._tone("good")

    def _tone(self, tone: str) -> None:
        weight = "bold" if tone != "good" else "normal"
        self.setStyleSheet(f"font-size: 17px; font-weight: {weight}; color: {TONES[tone]};")

    def show_view(self, view: PitView, lag_limit_s: float) -> None:
        server = view.server
        if server is None:
            return
        said = server_words(server, view.primary_change)
        self.setText(said)
        self.setToolTip(said)
        changed = view.primary_change is not None and view.primary_change.now == server.host
        tone = server_tone(server, lag_limit_s)
        self._tone("warn" if changed and tone == "good" else tone)


def _local(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%d %b %H:%M")
    except ValueError:
        return iso or "—"


class LostPanel(QWidget):
    """What the pit's tables adopted and the floor lost in a failover (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self.lost: list[LostAdoption] = []
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(2)
        top = QHBoxLayout()
        self.title = QLabel("")
        self.title.setStyleSheet(f"font-size: 18px; color: {theme.BAD};")
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.again_button = QPushButton("Publish again")
        self.again_button.setAccessibleName("Publish the selected lost copy again from the "
                                            "table's record (an operator, with a reason)")
        self.again_button.setMinimumWidth(220)
        top.addWidget(self.title, 1)
        top.addWidget(self.again_button)
        col.addLayout(top)
        t = QTableWidget(0, len(LOST_HEADERS))
        t.setHorizontalHeaderLabels(list(LOST_HEADERS))
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        t.verticalHeader().hide()
        t.verticalHeader().setDefaultSectionSize(34)
        t.setWordWrap(False)
        t.setTextElideMode(Qt.TextElideMode.ElideRight)
        t.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        t.setStyleSheet("QTableWidget { font-size: 17px; } "
                        "QHeaderView::section { font-size: 15px; }")
        self.table = t
        col.addWidget(t, 1)

    def fill(self, lost: list[LostAdoption]) -> None:
        chosen = self.selected()
        self.lost = list(lost)
        n = len(lost)
        self.title.setText(f"Adopted by the tables and lost at the floor in a failover: {n}. "
                           f"An operator publishes each again from the table's own copy, "
                           f"with a reason.")
        self.title.setWordWrap(True)
        self.table.clearSelection()
        self.table.setRowCount(n)
        for i, x in enumerate(lost):
            cells = [read_only_item(x.table, bold=True),
                     read_only_item("Configuration" if x.what == "publication"
                                    else "User's records"),
                     read_only_item(lost_words(x)), read_only_item(_local(x.adopted_at)),
                     read_only_item(f"record {x.table_seq} ({x.table_hash[:12]})")]
            for c, it in enumerate(cells):
                it.setToolTip(lost_words(x))
                self.table.setItem(i, c, it)
            if chosen is not None and (x.table, x.table_seq) == (chosen.table,
                                                                 chosen.table_seq):
                self.table.selectRow(i)
        if n == 1:
            self.table.selectRow(0)
        for c in (0, 1, 3, 4):
            self.table.resizeColumnToContents(c)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)

    def selected(self) -> LostAdoption | None:
        model = self.table.selectionModel()
        rows = model.selectedRows() if model else []
        if not rows or rows[0].row() >= len(self.lost):
            return None
        return self.lost[rows[0].row()]
