"""The pit podium: a grid of the pit's tables and the alert queue, read from the floor
database alone, and a drill-down to one table (recall, events, meters, chain, reports).

The grid and the queue are :mod:`dealer_station.floor.alerts`' (no Qt there); this module lays
them out for a 1280x800 screen read from a step away, and runs the reading in a thread of its
own every few seconds so that a slow floor never freezes the podium.

Between the grid and the queue, every table's fill and credit requests still on their way
(requested, issued at the cage, in transit), a late one first and in the alert colour with how
long it has waited; a late one is also an alert on the queue, until it is received or voided.

Acknowledging an alert needs a supervisor (or operator) signed in at the pit with the floor's
own users; the acknowledgement, with its reason, is a chained ``alert.ack`` record in the pit's
stream, so a restart keeps it acknowledged.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QDate, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTableWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)
from sqlalchemy.exc import SQLAlchemyError

from dealer_station import registry as games
from dealer_station.audit.journal import Journal, utc_now
from dealer_station.audit.users import PermissionDenied, Users
from dealer_station.errors import StationError
from dealer_station.events.wording import People
from dealer_station.floor.alerts import (
    Alert,
    Pit,
    PitSettings,
    PitView,
    minutes_text,
    round_word,
)
from dealer_station.floor.central import (
    Floor,
    LostAdoption,
    lost_words,
    publish_lost_again,
)
from dealer_station.gameconfig import load_gaming_calendar
from dealer_station.gaming_day import GamingCalendar, Shift
from dealer_station.reports.shift import kind_label
from dealer_station.reports.source import Period, gaming_period
from dealer_station.ui import theme
from dealer_station.ui.events_tab import EventsList, people_of, worded
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.pit_cells import behind_text, devices_text, local_hhmm
from dealer_station.ui.pit_floor import FloorLine, LostPanel
from dealer_station.ui.pit_sign_in import SignInBar
from dealer_station.ui.protection_page import EvidencePage, alert_record
from dealer_station.ui.reasons import ask_reason
from dealer_station.ui.table_items import read_only_item as _item

if TYPE_CHECKING:
    from argon2 import PasswordHasher

#: The grid's text: read from a step away at the podium.
GRID_PX = 20
#: The Dealer column's widest: a longer name is cut ("…") before the devices' state is.
DEALER_MOST_PX = 220
STATE_COLOURS = {"in round": theme.GOOD, "between rounds": theme.TEXT, "halted": theme.BAD,
                 "closed": theme.MUTED, "refused": theme.BAD}
#: The report period's choices beside the gaming day's shifts.
WHOLE_DAY = "Whole gaming day"
EVERYTHING = "Everything recorded"


def pit_calendar(settings: PitSettings) -> GamingCalendar:
    """The station's gaming day and shifts (station.toml), unless the pit's own settings
    start the day at another time: then that day, whole, with no shifts to choose."""
    cal = load_gaming_calendar()
    if cal.day_starts == settings.gaming_day_starts:
        return cal
    start = settings.gaming_day_starts
    return GamingCalendar(start, (Shift(WHOLE_DAY, start),), cal.zone)


GRID_HEADERS = ("Table", "Game", "Dealer", "Round", "State", "Devices", "Rounds/h",
                "Win today", "Floor behind")
ALERT_HEADERS = ("Time", "Table", "Alert", "What happened")
REQUEST_HEADERS = ("Requested", "Table", "Request", "State", "Slip", "Amount", "Waiting")
#: The requests in sight at once (more scroll): the queue below keeps its room.
REQUESTS_SHOWN = 2
#: The grid's tables in sight at once (more scroll).
GRID_ROWS_SHOWN = 5


def _table(headers: tuple[str, ...], px: int) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(list(headers))
    t.setAlternatingRowColors(True)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().hide()
    t.verticalHeader().setDefaultSectionSize(px + 18)
    t.setWordWrap(False)
    t.setStyleSheet(f"QTableWidget {{ font-size: {px}px; }} "
                    f"QHeaderView::section {{ font-size: 16px; }}")
    return t


class _Reader(QObject):
    """Reads the pit's view in a thread of its own; ``ready`` arrives on the GUI thread."""

    ready = Signal(object)
    failed = Signal(str)

    def __init__(self, pit: Pit) -> None:
        super().__init__()
        self.pit = pit
        self.busy = False

    def start(self) -> None:
        if self.busy:
            return
        self.busy = True
        threading.Thread(target=self._run, name="pit-reader", daemon=True).start()

    def _run(self) -> None:
        try:
            view = self.pit.view()
        except Exception as exc:  # said on the podium; tried again next time
            self.busy = False
            self.failed.emit(f"could not read the floor database: {exc}")
            return
        self.busy = False
        self.ready.emit(view)


class TableDrill(QWidget):
    """One table from the floor's copy: recall of any round, its significant events, its
    meters, its chain verified, and the station's reports made from the floor's copy."""

    back = Signal()

    def __init__(self, journal: Journal, reports_dir: Path, printer: str | None, *,
                 calendar: GamingCalendar | None = None,
                 pit_tables: Callable[[], list[str]] | None = None,
                 pit_scope: str = "the pit") -> None:
        super().__init__()
        self.journal = journal
        self.reports_dir = reports_dir
        self.printer = printer
        self.calendar = calendar or GamingCalendar()
        self.pit_tables = pit_tables or (lambda: [self.table_id])
        self.pit_scope = pit_scope
        self.table_id = ""
        self._games: set[str] = set()
        col = QVBoxLayout(self)
        col.setContentsMargins(10, 6, 10, 6)
        top = QHBoxLayout()
        self.back_button = QPushButton("◀ Pit")
        self.back_button.clicked.connect(self.back.emit)
        self.title = QLabel("")
        self.title.setObjectName("title")
        top.addWidget(self.back_button)
        top.addWidget(self.title, 1)
        col.addLayout(top)
        self.tabs = QTabWidget()
        col.addWidget(self.tabs, 1)
        self.message = MessageLabel()
        col.addWidget(self.message)
        # Recall
        recall = QWidget()
        rrow = QHBoxLayout(recall)
        self.rounds = QListWidget()
        self.rounds.setFixedWidth(260)
        self.rounds.setStyleSheet("font-size: 19px;")
        self.rounds.currentItemChanged.connect(self._show_round)
        self.recall = QTextBrowser()
        rrow.addWidget(self.rounds)
        rrow.addWidget(self.recall, 1)
        self.tabs.addTab(recall, "Recall")
        # Events: in the words of the supervisor's Events tab; a touch opens one whole.
        self.events = EventsList("The table's significant events in the floor's copy, newest "
                                 "first. Touch a row to read it whole.")
        self.tabs.addTab(self.events, "Events")
        # Meters
        self.meters = _table(("Meter", "Rounds", "Wagered", "Paid", "House win", "Hold"), 19)
        self.tabs.addTab(self.meters, "Meters")
        # Chain
        chain = QWidget()
        ccol = QVBoxLayout(chain)
        self.verify_button = QPushButton("Verify the floor's copy of this table's chain")
        self.verify_button.setObjectName("primary")
        self.verify_button.clicked.connect(self.verify)
        self.verify_result = QLabel("")
        self.verify_result.setWordWrap(True)
        self.verify_result.setStyleSheet("font-size: 20px;")
        ccol.addWidget(self.verify_button)
        ccol.addWidget(self.verify_result)
        ccol.addStretch(1)
        self.tabs.addTab(chain, "Chain")
        # Reports
        rep = QWidget()
        pcol = QVBoxLayout(rep)
        intro = QLabel("The station's reports, made from the floor's copy of this table "
                       f"(PDF in {reports_dir}" + (f", printed on {printer})" if printer
                                                   else "; no printer set)"))
        intro.setWordWrap(True)
        pcol.addWidget(intro)
        # The period the events, shift and pit reports cover: a gaming day, one of its
        # shifts, or everything the floor holds.
        when = QHBoxLayout()
        when.addWidget(QLabel("Period: gaming day"))
        self.day_edit = QDateEdit()
        self.day_edit.setCalendarPopup(True)
        self.day_edit.setDisplayFormat("ddd d MMM yyyy")
        today = self.calendar.day_of(utc_now())
        self.day_edit.setDate(QDate(today.year, today.month, today.day))
        self.day_edit.setMinimumSize(260, 48)     # a touch target, as the combo beside it
        self.day_edit.setStyleSheet("font-size: 20px;")
        when.addWidget(self.day_edit)
        self.span = QComboBox()
        self.span.addItems([WHOLE_DAY, *(s.name for s in self.calendar.shifts), EVERYTHING])
        when.addWidget(self.span)
        when.addStretch(1)
        pcol.addLayout(when)
        self.report_buttons: dict[str, QPushButton] = {}
        for kind, label in (("events", "Significant events"), ("shift", "Shift report"),
                            ("recall", "Recall of the selected round"),
                            ("pit", f"Pit report: every table of {pit_scope}")):
            b = QPushButton(label)
            b.clicked.connect(lambda _c=False, k=kind: self.make_report(k))
            self.report_buttons[kind] = b
            pcol.addWidget(b)
        pcol.addStretch(1)
        self.tabs.addTab(rep, "Reports")

    # -- filling --

    def open(self, table_id: str) -> None:
        self.table_id = table_id
        self.title.setText(f"Table {table_id} — the floor's copy")
        self.message.hide()
        self.verify_result.setText("")
        self.rounds.clear()
        self.recall.clear()
        infos = self.journal.recent_rounds(table_id, 200)
        self._games = {info.game for info in infos if info.game}
        for info in infos:
            it = QListWidgetItem(f"{round_word(info.game).title()} {info.round_no} · "
                                 f"{info.status}")
            it.setData(Qt.ItemDataRole.UserRole, info)
            if info.status == "voided":
                it.setForeground(QColor(theme.BAD))
            self.rounds.addItem(it)
        if infos:
            self.rounds.setCurrentRow(0)
        self._fill_events()
        self._fill_meters()
        self.tabs.setCurrentIndex(0)

    def _show_round(self, item: QListWidgetItem | None, _prev: object = None) -> None:
        if item is None:
            return
        from dealer_station.table.recall import recall_round
        from dealer_station.ui.recall_view import recall_html

        info = item.data(Qt.ItemDataRole.UserRole)
        try:
            self.recall.setHtml(recall_html(recall_round(self.journal, info)))
        except StationError as exc:
            self.recall.setPlainText(str(exc))

    def _fill_events(self) -> None:
        events = self.journal.events(self.table_id)[-300:][::-1]
        # The floor's users name the people; the table's sessions its players.
        self.events.close_detail()
        self.events.set_rows(worded(events, people_of(self.journal, self.table_id)))

    def _fill_meters(self) -> None:
        from dealer_station.floor.alerts import Pit

        with self.journal.db.read() as conn:
            money = Pit(self.journal).money(conn, self.table_id)
        meters = sorted(self.journal.meters(self.table_id).values(),
                        key=lambda m: (m.meter == "total", m.meter))
        banked = all(games.REGISTRY[g].banked for g in self._games if g in games.REGISTRY)
        self.meters.setRowCount(max(1, len(meters)))
        if not meters:
            self.meters.setItem(0, 0, _item("no round settled yet", theme.MUTED))
            for c in range(1, self.meters.columnCount()):
                self.meters.setItem(c and 0, c, _item(""))
        for i, m in enumerate(meters):
            hold = f"{m.house_win / m.wagered * 100:.1f}%" if m.wagered and banked else "—"
            bold = m.meter == "total"
            for c, (v, right) in enumerate(((kind_label(m.meter), False), (f"{m.rounds:,}", True),
                                            (money.text(m.wagered), True),
                                            (money.text(m.paid), True),
                                            (money.text(m.house_win), True), (hold, True))):
                self.meters.setItem(i, c, _item(v, right=right, bold=bold))
        self.meters.resizeColumnsToContents()
        self.meters.horizontalHeader().setStretchLastSection(True)

    def verify(self) -> None:
        result = self.journal.verify_table(self.table_id)
        colour = theme.GOOD if result.ok else theme.BAD
        self.verify_result.setText(
            f"<span style='color:{colour}; font-weight:bold'>"
            f"{'Chain intact' if result.ok else 'Chain FAILED'}</span><br>{escape(str(result))}")
        self.message.say(str(result), "good" if result.ok else "bad")

    def period(self) -> tuple[Period, str]:
        """The period chosen for the reports, and its name."""
        span = self.span.currentText()
        if span == EVERYTHING:
            return Period(), ""
        q = self.day_edit.date()
        return gaming_period(date(q.year(), q.month(), q.day()),
                             None if span == WHOLE_DAY else span, self.calendar)

    def make_report(self, kind: str) -> Path | None:
        from dealer_station.reports.events import build_events_report
        from dealer_station.reports.pit_summary import build_pit_report
        from dealer_station.reports.recall import build_recall_report
        from dealer_station.reports.shift import build_shift_report

        self.reports_dir.mkdir(parents=True, exist_ok=True)
        stamp = utc_now().astimezone().strftime("%Y%m%d-%H%M%S")
        out = self.reports_dir / (f"pit-{stamp}.pdf" if kind == "pit" else
                                  f"{kind}-{self.table_id}-{stamp}.pdf")
        try:
            period, name = self.period()
            if kind == "events":
                built = build_events_report(self.journal, self.table_id, period, out=out)
            elif kind == "shift":
                built = build_shift_report(self.journal, self.table_id, period, out=out)
            elif kind == "pit":
                built = build_pit_report(self.journal, self.pit_tables(), period, out=out,
                                         scope=self.pit_scope.capitalize(), period_name=name)
            else:
                item = self.rounds.currentItem()
                round_no = item.data(Qt.ItemDataRole.UserRole).round_no if item else None
                built = build_recall_report(self.journal, self.table_id, round_no, out=out)
            said = f"{built.title}: {built.pages} page(s) saved as {built.path}"
            from dealer_station.reports.printing import printed_if

            said += printed_if(built.path, self.printer, built.title)
        except StationError as exc:
            self.message.say(str(exc), "bad")
            return None
        self.message.say(said, "good")
        return built.path


class PitWindow(QMainWindow):
    """The pit podium's window."""

    def __init__(self, pit: Pit, *, hasher: PasswordHasher | None = None,
                 reports_dir: Path | None = None, printer: str | None = None,
                 auto_refresh: bool = True) -> None:
        super().__init__()
        self.pit = pit
        self.view: PitView | None = None
        #: The floor's users by name, for the grid's Dealer column; read again only when a
        #: dealer the pit has not looked up yet appears.
        self.people = People()
        self._looked_up: set[str] = set()
        self.setWindowTitle(f"Dealer Station — pit {pit.name}")
        self.users = Users(pit.journal, hasher=hasher) if hasher else Users(pit.journal)
        self.stack = QStackedWidget()
        self.setCentralWidget(self.stack)
        self.main = QWidget()
        self.stack.addWidget(self.main)
        self.drill = TableDrill(pit.journal, reports_dir or Path.home() / "pit-reports",
                                printer, calendar=pit_calendar(pit.settings),
                                pit_tables=self._tables, pit_scope=f"pit {pit.name}")
        self.drill.back.connect(lambda: self.stack.setCurrentWidget(self.main))
        self.stack.addWidget(self.drill)
        # A game-protection alert's evidence: the chart, its rounds and their recall.
        self.evidence = EvidencePage(pit.journal, back_text="◀ Pit")
        self.evidence.back.connect(lambda: self.stack.setCurrentWidget(self.main))
        self.stack.addWidget(self.evidence)
        col = QVBoxLayout(self.main)
        col.setContentsMargins(10, 6, 10, 6)
        col.setSpacing(6)
        # Top: the pit, its day, its freshness; who is signed in.
        top = QHBoxLayout()
        self.title = QLabel(f"Pit {pit.name}")
        self.title.setObjectName("title")
        self.day = QLabel("")
        self.day.setObjectName("muted")
        self.message = MessageLabel()
        self.sign = SignInBar(self.users, pit.stream, self.say)
        self.sign.changed.connect(self._enable)
        top.addWidget(self.title)
        top.addWidget(self.day, 1)
        top.addWidget(self.sign)
        col.addLayout(top)
        # Which server the pit reads: the primary (and its standbys), or a standby's lag.
        self.floor_line = FloorLine()
        col.addWidget(self.floor_line)
        lists = QVBoxLayout()
        lists.setSpacing(4)
        col.addLayout(lists, 1)
        # The grid.
        grid_box = QWidget()
        gcol = QVBoxLayout(grid_box)
        gcol.setContentsMargins(0, 0, 0, 0)
        self.grid = _table(GRID_HEADERS, GRID_PX)
        self.grid.cellDoubleClicked.connect(lambda r, _c: self.open_table(r))
        gcol.addWidget(self.grid)
        open_row = QHBoxLayout()
        self.open_button = QPushButton("Open table ▶")
        self.open_button.setAccessibleName("Open the selected table: recall, events, meters, "
                                           "its chain and reports")
        self.open_button.setObjectName("nav")
        self.open_button.clicked.connect(lambda: self.open_table(self.grid.currentRow()))
        # Every table's fills and credits on their way: the title on the line of the grid's
        # button (Open table opens the selected table's recall, events, meters, chain and
        # reports), the list under it.
        self.requests_title = QLabel("")
        self.requests_title.setTextFormat(Qt.TextFormat.RichText)
        self.requests_title.setStyleSheet(f"font-size: 19px; font-weight: bold; "
                                          f"color: {theme.GOLD};")
        open_row.addWidget(self.requests_title, 1)
        open_row.addWidget(self.open_button)
        gcol.addLayout(open_row)
        lists.addWidget(grid_box)
        self.requests = _table(REQUEST_HEADERS, 18)
        self.requests.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.requests.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        lists.addWidget(self.requests)
        # What the tables adopted and the floor lost in a failover (shown only then).
        self.lost_panel = LostPanel()
        self.lost_panel.again_button.clicked.connect(lambda: self.publish_again())
        self.lost_panel.table.itemSelectionChanged.connect(self._enable)
        # The alert queue, and beside it (a tab shown only then) what the floor lost.
        alert_box = QWidget()
        acol = QVBoxLayout(alert_box)
        acol.setContentsMargins(0, 4, 0, 0)
        self.queue = _table(ALERT_HEADERS, 18)
        self.queue.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.queue.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.queue.itemSelectionChanged.connect(self._enable)
        acol.addWidget(self.queue, 1)
        # The selected alert in full (the queue shows one line of each).
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        self.detail.setStyleSheet(f"font-size: 18px; background: {theme.PANEL}; "
                                  f"border-radius: 8px; padding: 6px 10px;")
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        ack = QHBoxLayout()
        self.ack_button = QPushButton("Acknowledge")
        self.ack_button.setToolTip("Acknowledge asks why: touch a reason, or Other… to type "
                                   "one. It is recorded with your name.")
        self.ack_button.setObjectName("primary")
        self.ack_button.setMinimumWidth(220)
        self.ack_button.clicked.connect(lambda: self.acknowledge())
        self.evidence_button = QPushButton("Evidence ▶")
        self.evidence_button.setObjectName("nav")
        self.evidence_button.setAccessibleName("Open the selected game-protection alert's "
                                               "evidence: its chart, rounds and recall")
        self.evidence_button.clicked.connect(lambda: self.open_evidence())
        ack.addWidget(self.detail, 1)
        ack.addWidget(self.evidence_button)
        ack.addWidget(self.ack_button)
        acol.addLayout(ack)
        self.alert_tabs = QTabWidget()
        self.alert_tabs.addTab(alert_box, "Alerts")
        self.alert_tabs.addTab(self.lost_panel, "Lost at the floor")
        self.alert_tabs.tabBar().setTabTextColor(1, QColor(theme.BAD))
        self.alert_tabs.setTabVisible(1, False)
        self.alert_tabs.setStyleSheet("QTabBar::tab { font-size: 19px; font-weight: bold; }")
        lists.addWidget(self.alert_tabs, 1)
        col.addWidget(self.message)
        self.queue.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.reader = _Reader(pit)
        self.reader.ready.connect(self.show_view)
        self.reader.failed.connect(lambda m: self.say(m, "bad"))
        self.timer = QTimer(self)
        self.timer.setInterval(int(pit.settings.refresh_seconds * 1000))
        self.timer.timeout.connect(self.reader.start)
        self.refresh_now()
        if auto_refresh:
            self.timer.start()
        self._enable()

    # -- reading --

    def refresh_now(self) -> None:
        """Read the floor now, on this thread (start-up, after an acknowledgement, tests)."""
        try:
            self.show_view(self.pit.view())
        except (StationError, SQLAlchemyError) as exc:     # a floor failing over, down
            said = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            self.say(f"could not read the floor database: {said}", "bad")

    def say(self, text: str, tone: str = "info") -> None:
        self.message.say(text, tone)

    def show_view(self, view: PitView) -> None:
        self.view = view
        start = view.day_start.astimezone()
        self.day.setText(f"  gaming day from {start:%a %d %b %H:%M} · {len(view.rows)} "
                         f"table(s) · read {view.at.astimezone():%H:%M:%S}")
        self._fill_grid(view)
        self._fill_requests(view)
        self.floor_line.show_view(view, self.pit.settings.lag_seconds)
        self.lost_panel.fill(view.lost)
        self.alert_tabs.setTabVisible(1, bool(view.lost))
        self.alert_tabs.setTabText(1, f"Lost at the floor · {len(view.lost)}")
        self._fill_queue(view)
        if view.changed and view.primary_change is not None:
            c = view.primary_change
            self.say(f"The floor failed over: its primary is now {c.now} (was {c.was})",
                     "bad")
        self._enable()

    def dealer_name(self, dealer: str) -> str:
        """The name the floor's users give a dealer (``dee/dealer`` -> ``Dee Dealer``); the
        user id when the floor knows nobody by it."""
        user_id = dealer.partition("/")[0]
        if user_id not in self._looked_up:
            self.people = people_of(self.pit.journal)
            self._looked_up |= set(self.people.users) | {user_id}
        return self.people.name(user_id)

    def _fill_grid(self, view: PitView) -> None:
        selected = self.selected_table()
        self.grid.setRowCount(len(view.rows))
        for i, row in enumerate(view.rows):
            st = row.status
            word = round_word(st.game).title()
            devices = devices_text(row)
            device_bad = any(d.fault for d in row.devices)
            win = row.day.money.text(row.day.house_win) if row.day.rounds else "—"
            lagging = (st.lag_seconds is None
                       or st.lag_seconds > self.pit.settings.lag_seconds)
            cells = [
                _item(st.table, bold=True),
                _item(games.label(st.game) if st.game else "—"),
                _item(self.dealer_name(st.dealer) if st.dealer else "—"),
                _item(f"{word} {st.round}" if st.round is not None else "—"),
                _item(row.state, STATE_COLOURS.get(row.state), bold=row.state in (
                    "halted", "refused")),
                _item(devices, theme.BAD if device_bad else None),
                _item(str(row.day.last_hour), right=True),
                _item(win, theme.BAD if row.day.house_win < 0 else None, right=True),
                _item(behind_text(row), theme.WARN if lagging else None, right=True),
            ]
            for c, it in enumerate(cells):
                self.grid.setItem(i, c, it)
            if st.table == selected:
                self.grid.selectRow(i)
        self.grid.resizeColumnsToContents()
        # A long name is cut ("…") before the devices' state is.
        self.grid.setColumnWidth(2, min(self.grid.columnWidth(2), DEALER_MOST_PX))
        self.grid.horizontalHeader().setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        # The grid as tall as its tables (up to 5 rows, then it scrolls: at 1280x800 the
        # requests and at least three alerts must stay in sight); the queue takes
        # the rest of the screen.
        header = max(self.grid.horizontalHeader().sizeHint().height(), 30)
        rows = min(GRID_ROWS_SHOWN, max(3, len(view.rows)))
        self.grid.setFixedHeight(header + 6 + self.grid.verticalHeader().defaultSectionSize()
                                 * rows)

    def _fill_requests(self, view: PitView) -> None:
        """The tables' fills and credits on their way; late ones first, in the alert
        colour."""
        reqs = view.requests
        late = sum(r.late for r in reqs)
        said = f"Fills and credits on their way · {len(reqs)} open" if reqs else \
            "Fills and credits on their way · none"
        if late:
            said += (f" · <span style='color:{theme.BAD}'>{late} late</span> (not received "
                     f"within {view.request_minutes} min)")
        if self.pit.accounting_problem:
            said += (f"<br><span style='color:{theme.BAD}; font-size: 17px'>"
                     f"{escape(self.pit.accounting_problem)}</span>")
        self.requests_title.setText(said)
        self.requests.setVisible(bool(reqs))
        self.requests.setRowCount(len(reqs))
        for i, r in enumerate(reqs):
            colour = theme.BAD if r.late else None
            cells = [_item(local_hhmm(r.requested_at)), _item(r.table, bold=True),
                     _item(f"{r.kind.capitalize()} {r.label}", colour, bold=r.late),
                     _item(r.state_words), _item(r.slip or "—"),
                     _item(r.total, right=True),
                     _item(minutes_text(r.minutes) + (" late" if r.late else ""), colour,
                           bold=r.late, right=True)]
            for c, it in enumerate(cells):
                self.requests.setItem(i, c, it)
        self.requests.resizeColumnsToContents()
        self.requests.horizontalHeader().setSectionResizeMode(
            3, QHeaderView.ResizeMode.Stretch)
        header = max(self.requests.horizontalHeader().sizeHint().height(), 30)
        self.requests.setFixedHeight(header + 4 + self.requests.verticalHeader()
                                     .defaultSectionSize() * min(REQUESTS_SHOWN,
                                                                 max(1, len(reqs))))

    def _fill_queue(self, view: PitView) -> None:
        chosen = self.selected_alert()
        keep = chosen.id if chosen else None
        # The selection follows its alert, not its row: an alert gone (acknowledged here or
        # at another podium) leaves nothing selected rather than the alert that moved up.
        self.queue.clearSelection()
        self.queue.setRowCount(len(view.alerts))
        for i, a in enumerate(view.alerts):
            colour = theme.BAD if a.severity >= 2 else theme.WARN
            cells = [_item(local_hhmm(a.at)), _item(a.table, bold=True),
                     _item(a.label, colour, bold=True), _item(a.what)]
            for c, it in enumerate(cells):
                it.setData(Qt.ItemDataRole.UserRole, a.id)
                it.setToolTip(a.what)
                self.queue.setItem(i, c, it)
            if a.id == keep:
                self.queue.selectRow(i)
        for c in range(3):
            self.queue.resizeColumnToContents(c)
        self.queue.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        n = len(view.alerts)
        self.alert_tabs.setTabText(0, f"Alerts · {n} open" if n else "Alerts · none open")

    def _enable(self) -> None:
        alert = self.selected_alert()
        self.ack_button.setEnabled(self.sign.user is not None and alert is not None)
        self.evidence_button.setEnabled(alert is not None and alert.category == "protection"
                                        and alert.seq is not None)
        if alert is None:
            self.detail.setText(f"<span style='color:{theme.MUTED}'>Select an alert to read "
                                f"it in full. Acknowledge asks why (touch a reason, or "
                                f"Other… to type one) and records it with your name.</span>")
        else:
            self.detail.setText(f"<b>{escape(alert.table)} · {escape(alert.label)}</b> at "
                                f"{local_hhmm(alert.at)}: {escape(alert.what)}")
        self.open_button.setEnabled(self.grid.rowCount() > 0)
        self.lost_panel.again_button.setEnabled(self.lost_panel.selected() is not None)

    # -- selection and actions --

    def selected_table(self) -> str | None:
        r = self.grid.currentRow()
        it = self.grid.item(r, 0) if r >= 0 else None
        return it.text() if it else None

    def selected_alert(self) -> Alert | None:
        if self.view is None:
            return None
        rows = self.queue.selectionModel().selectedRows() if self.queue.selectionModel() \
            else []
        if not rows:
            return None
        it = self.queue.item(rows[0].row(), 0)
        alert_id = it.data(Qt.ItemDataRole.UserRole) if it else None
        return next((a for a in self.view.alerts if a.id == alert_id), None)

    def select_alert(self, alert_id: str) -> bool:
        for r in range(self.queue.rowCount()):
            it = self.queue.item(r, 0)
            if it is not None and it.data(Qt.ItemDataRole.UserRole) == alert_id:
                self.queue.selectRow(r)
                return True
        return False

    def acknowledge(self, reason: str | None = None, alert: Alert | None = None) -> None:
        """Acknowledge the selected alert: asks the reason first (``reason`` given: at once).
        The alert is the one selected when Acknowledge was touched, whatever the queue does
        while the reason is chosen."""
        alert = alert or self.selected_alert()
        if alert is None:
            self.say("select an alert first", "bad")
            return
        if reason is None:
            ask_reason(self.ack_button, "acknowledge",
                       f"Acknowledge {alert.table} · {alert.label.lower()}: why?",
                       lambda why: self.acknowledge(why, alert),
                       note=alert.what)
            return
        try:
            self.pit.acknowledge(alert, self.sign.user, reason)
        except StationError as exc:
            self.say(str(exc), "bad")
            return
        self.say(f"acknowledged: {alert.table} {alert.label.lower()} "
                 f"(recorded in the pit's journal)", "good")
        self.refresh_now()

    def publish_again(self, reason: str | None = None,
                      lost: LostAdoption | None = None) -> None:
        """Publish again the selected copy of what the floor lost: an operator signed in,
        then the reason asked (``reason`` given: at once)."""
        lost = lost or self.lost_panel.selected()
        if lost is None:
            self.say("select what the floor lost first", "bad")
            return
        floor = Floor(self.pit.journal)
        try:
            if self.sign.user is None:
                raise PermissionDenied("an operator must sign in at the pit to publish again")
            floor.operator(self.sign.user.user_id)
        except StationError as exc:
            self.say(str(exc), "bad")
            return
        if reason is None:
            ask_reason(self.lost_panel.again_button, "publish_again",
                       f"Publish again {lost.table}'s copy: why?",
                       lambda why: self.publish_again(why, lost), note=lost_words(lost))
            return
        try:
            said = publish_lost_again(floor, lost, self.sign.user, reason)
        except StationError as exc:
            self.say(str(exc), "bad")
            return
        self.say(said, "good")
        self.refresh_now()

    def open_evidence(self, alert: Alert | None = None) -> None:
        """The selected game-protection alert's evidence page (read from the floor's copy of
        the table's chain)."""
        alert = alert or self.selected_alert()
        if alert is None or alert.category != "protection" or alert.seq is None:
            self.say("select a game-protection alert first", "bad")
            return
        try:
            record = alert_record(self.pit.journal, alert.table, alert.seq)
            with self.pit.journal.db.read() as conn:
                money = self.pit.money(conn, alert.table)
            self.people = people_of(self.pit.journal)
            self.evidence.open(alert.table, record, people=self.people, money=money)
        except StationError as exc:
            self.say(str(exc), "bad")
            return
        self.stack.setCurrentWidget(self.evidence)

    def _tables(self) -> list[str]:
        """The pit's tables as the grid last showed them (the pit report's tables)."""
        if self.view is None:
            return sorted(self.pit.tables or ())
        return [r.status.table for r in self.view.rows]

    def open_table(self, row: int) -> None:
        it = self.grid.item(row, 0) if row >= 0 else None
        if it is None:
            self.say("select a table first", "bad")
            return
        try:
            self.drill.open(it.text())
        except StationError as exc:
            self.say(str(exc), "bad")
            return
        self.stack.setCurrentWidget(self.drill)

    def closeEvent(self, event: Any) -> None:
        self.timer.stop()
        super().closeEvent(event)
