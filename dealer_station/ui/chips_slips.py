"""The Chips tab's last slips and counts (part of
:class:`~dealer_station.ui.chips_panel.ChipsPanel`, which mixes it in): the list, newest first,
each fill or credit by its control number and its signers' names; a row touched is told whole
in the message line (every signer by name, and a slip from the cage with each step of its
request); *Print* saves the selected slip as a PDF and sends it to the station's printer when
one is set; *Void* voids it (``chips_cage``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.requests import slip_label
from dealer_station.audit.journal import Journal
from dealer_station.errors import StationError
from dealer_station.table.accounting import TableAccounting
from dealer_station.ui import theme
from dealer_station.ui.chips_requests import SIDE_BUTTON_PX, request_detail
from dealer_station.ui.chips_state import slip_rows
from dealer_station.ui.message import MessageLabel

#: A slip's row in the list: read at a metre, touched to select it for printing.
SLIP_ROW_PX = 40


class SlipsList:
    """The last slips and counts (see the module). The panel that mixes it in has the book,
    the journal, the message line and the printer."""

    book: TableAccounting
    journal: Journal
    message: MessageLabel
    printer: str
    slips_dir: Path

    def _names(self) -> dict[str, str]:
        raise NotImplementedError

    def void_slip(self, reason: str | None = None,
                  signers: list[tuple[str, str]] | None = None) -> None:
        raise NotImplementedError

    def build_slips(self, beside: bool) -> QGroupBox:
        """The list and its buttons: at its side when ``beside`` the requests (the list
        keeps its height), else under it (the list has the whole width for the names)."""
        box = QGroupBox("Last slips and counts")
        inner: QBoxLayout = QHBoxLayout(box) if beside else QVBoxLayout(box)
        inner.setContentsMargins(8, 4, 8, 6)
        self.slips = QTableWidget(0, 4)
        self.slips.setHorizontalHeaderLabels(["Slip", "Number", "Amount", "Signed by"])
        self.slips.verticalHeader().hide()
        self.slips.verticalHeader().setDefaultSectionSize(SLIP_ROW_PX)
        self.slips.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.slips.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.slips.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.slips.setAlternatingRowColors(True)
        self.slips.setWordWrap(False)
        self.slips.setStyleSheet("font-size: 18px;")
        header = self.slips.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.slips.cellClicked.connect(lambda r, _c: self.tell_slip(r))
        inner.addWidget(self.slips, 1)
        buttons: QBoxLayout = QVBoxLayout() if beside else QHBoxLayout()
        where = f"on {self.printer}" if self.printer else "as a PDF"
        self.print_button = QPushButton(f"Print\n{where}" if beside else
                                        f"Print the selected slip {where}")
        self.print_button.setAccessibleName(f"Print the selected slip {where}")
        self.print_button.clicked.connect(self.print_selected)
        self.void_slip_button = QPushButton("Void…" if beside else "Void the selected slip…")
        self.void_slip_button.setAccessibleName("Void the selected slip")
        self.void_slip_button.setObjectName("danger")
        self.void_slip_button.clicked.connect(lambda: self.void_slip())
        for b in (self.print_button, self.void_slip_button):
            b.setMinimumHeight(theme.TOUCH_PX)
            if beside:
                b.setFixedWidth(SIDE_BUTTON_PX)
            buttons.addWidget(b, 1)
        if beside:
            buttons.addStretch(1)
        inner.addLayout(buttons)
        return box

    def list_slips(self, ledger: Ledger) -> None:
        rows = slip_rows(self.book, ledger, self._names())
        self.slips.setRowCount(len(rows))
        for i, (*texts, key) in enumerate(rows):
            for j, text in enumerate(texts):
                item = QTableWidgetItem(text)
                if j == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight |
                                          Qt.AlignmentFlag.AlignVCenter)
                item.setData(Qt.ItemDataRole.UserRole, key)
                self.slips.setItem(i, j, item)

    def tell_slip(self, row: int) -> None:
        """The slip or count touched, whole: every signer by name (a slip from the cage: each
        step of its request, when and by whom)."""
        item = self.slips.item(row, 0)
        if item is None:
            return
        key = item.data(Qt.ItemDataRole.UserRole)
        texts = [it.text() if (it := self.slips.item(row, c)) is not None else ""
                 for c in range(self.slips.columnCount())]
        try:
            ledger = self.book.ledger()
        except StationError:
            return
        req = ledger.issued.get(tuple(key)) if key else None
        if req is not None:
            money = self.book.settings.money
            said = request_detail(req, self._names(), money.text, money.number)
        else:
            said = f"{texts[0]} {texts[1]}: {texts[2]}, signed by {texts[3].replace(' + ', ', ')}."
        self.message.say(said, "info")

    def print_selected(self) -> Path | None:
        """The selected slip as a PDF, sent to the printer when one is set."""
        from dealer_station.reports.accounting_pdf import build_slip_pdf

        row = self.slips.currentRow()
        item = self.slips.item(row, 0) if row >= 0 else None
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not key:
            self.message.say("Not printed: select a fill or credit slip in the list first.",
                             "bad")
            return None
        kind, year, number = key
        self.slips_dir.mkdir(parents=True, exist_ok=True)
        out = self.slips_dir / f"{kind}-{self.book.table_id}-{year}-{number:05d}.pdf"
        try:
            built = build_slip_pdf(self.journal, self.book.ledger(), self.book.settings, kind,
                                   year, number, out=out)
            said = (f"{built.title} {slip_label(self.book.table_id, kind, year, number)} "
                    f"saved as {built.path}")
            from dealer_station.reports.printing import printed_if

            said += printed_if(built.path, self.printer, built.title)
        except StationError as exc:
            self.message.say(f"Not printed: {exc}", "bad")
            return None
        self.message.say(said, "good")
        return built.path


__all__ = ["SLIP_ROW_PX", "SlipsList"]
