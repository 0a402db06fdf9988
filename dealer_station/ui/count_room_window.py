"""The count room's screen (1280x800, touch only): the soft count of the tables' boxes and the
dispositions of the variances, by the accounting staff at the count table
(docs/accounting.md, "The count room's screen").

- **The count team signs in** first (``count_room_team``): two to six accounting users, each
  tapping their name and typing their PIN on the station's PIN pad. The team stays at the top
  of the screen for the session; *Sign out* signs every member out (journaled) and brings the
  sign-in back.
- **The boxes to count** (left; ``count_room_rows``): every table's drop box of a gaming day
  that closed (or of a shift that ended, where the boxes are changed at the shift change) not
  yet counted, and a card room table's rake box as a row of its own, newest gaming day first.
  Touching one opens the count form (``count_room_form``): the notes by denomination, the
  markers apart, the totals as they are typed. *Record the count…* asks every member of the
  team to verify it by PIN, one after the other; the count is journaled with every member's
  signature, or refused in words (nothing journaled).
- **The variances** (right): each table's gaming day whose variance is beyond the threshold,
  with its disposition, or "Needs a disposition" in the alert colour. Touching one opens the
  disposition form (``count_room_dispose``): Explained, Adjusted (the adjusting entry, minus
  or plus) or Referred, a note typed on the on-screen keyboard, and two accounting users who
  sign by name and PIN.

The lists are read in a thread of their own at the start and every minute (a slow journal
never freezes the screen), and at once after each count or disposition. The screen decides no
rule: the counts and the signers go to ``table.count_room.CountRoom``, whose refusal, in
words, is said on the screen.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import STATION_STREAM, User, Users
from dealer_station.errors import StationError
from dealer_station.events.accounting import RAKE_BOX
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.count_room import CountRoom
from dealer_station.ui import theme
from dealer_station.ui.background_read import BackgroundReader, cell
from dealer_station.ui.chips_signing import names_of
from dealer_station.ui.count_room_dispose import DisposeForm
from dealer_station.ui.count_room_form import CountForm, note_face
from dealer_station.ui.count_room_rows import (
    BOX_HEADERS,
    DISPOSITION_WORDS,
    NEEDS,
    VARIANCE_HEADERS,
    Box,
    Variance,
    boxes_to_count,
    disposition_text,
    notes_text,
    signed_money,
    variance_story,
    variances,
)
from dealer_station.ui.count_room_team import (
    MIN_TEAM,
    TeamSignIn,
    ask_team_pins,
    ask_two_signers,
    names_in_words,
    verify,
)
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.session import SignInSession
from dealer_station.ui.touch_sheet import ConfirmSheet

if TYPE_CHECKING:
    from argon2 import PasswordHasher

#: How often the lists are read again (the tables close their days at their own screens).
REFRESH_MS = 60_000
#: A row: a fingertip high, read at a metre.
ROW_PX = 56
LIST_PX = 19
#: A disposition's note in the list is cut after this many characters (the form shows it
#: whole).
NOTE_CHARS = 90
#: What needs the count room: the theme's colour for what needs attention.
ALERT = theme.WARN
#: Where a count sheet's PDF is saved when the screen is given no folder.
SHEETS_DIR = Path.home() / "count-sheets"


@dataclass
class Snapshot:
    """The boxes and variances as one reading found them."""

    boxes: list[Box]
    variances: list[Variance]
    names: dict[str, str]
    at: datetime
    tables: list[str] = field(default_factory=list)


def _list(headers: Sequence[str]) -> QTableWidget:
    t = QTableWidget(0, len(headers))
    t.setHorizontalHeaderLabels(list(headers))
    t.verticalHeader().hide()
    t.verticalHeader().setDefaultSectionSize(ROW_PX)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
    t.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    t.setWordWrap(True)
    t.setTextElideMode(Qt.TextElideMode.ElideRight)
    t.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    t.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
    t.setStyleSheet(f"QTableWidget {{ font-size: {LIST_PX}px; }} "
                    f"QHeaderView::section {{ font-size: 16px; }}")
    return t


class CountRoomWindow(QMainWindow):
    """The count room's screen (see the module). ``tables``: only these tables (None: every
    table of the journal)."""

    def __init__(self, journal: Journal, settings: AccountingSettings,
                 calendar: GamingCalendar, *, tables: Sequence[str] | None = None,
                 sheets_dir: Path | None = None, printer: str = "",
                 hasher: PasswordHasher | None = None, auto_refresh: bool = True) -> None:
        super().__init__()
        self.journal = journal
        self.settings = settings
        self.calendar = calendar
        self.only = list(tables) if tables else None
        self.sheets_dir = sheets_dir or SHEETS_DIR
        self.printer = printer
        self.users = Users(journal, hasher=hasher) if hasher else Users(journal)
        #: The signed-in count team, in the order they signed in.
        self.team: list[User] = []
        self.snapshot: Snapshot | None = None
        self.boxes: list[Box] = []
        self.variances: list[Variance] = []
        self.setWindowTitle("Dealer Station — the count room")
        central = QWidget()
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 6)
        outer.setSpacing(4)
        outer.addWidget(self._build_top())
        self.stack = QStackedWidget()
        outer.addWidget(self.stack, 1)
        self.session = SignInSession(self.users, STATION_STREAM, lock_after=24 * 3600)
        self.sign_in = TeamSignIn(self.session, self.team, self._joined, self.start_count)
        self.stack.addWidget(self.sign_in)
        self.main = QWidget()
        self.stack.addWidget(self.main)
        self._build_lists()
        self.count_form = CountForm(settings)
        self.count_form.back.connect(self.show_lists)
        self.count_form.record.connect(lambda: self.record_now())
        self.count_form.whole_day.connect(lambda: self.count_whole_day())
        self.stack.addWidget(self.count_form)
        self.dispose_form = DisposeForm(settings)
        self.dispose_form.back.connect(self.show_lists)
        self.dispose_form.sign.connect(lambda: self.sign_now())
        self.stack.addWidget(self.dispose_form)
        self.message = MessageLabel()
        msg_row = QHBoxLayout()
        msg_row.setContentsMargins(10, 0, 10, 0)
        msg_row.addWidget(self.message)
        outer.addLayout(msg_row)
        self.reader = BackgroundReader(self.read, name="count-room-reader",
                                       failure="The boxes and variances cannot be read")
        self.reader.ready.connect(self.show_snapshot)
        self.reader.failed.connect(lambda m: self.say(m, "bad"))
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.reader.start)
        self.show_team()
        self.stack.setCurrentWidget(self.sign_in)
        # What is to count shows once the team signed in.
        self.status.hide()
        if auto_refresh:
            self.reader.start()
            self.timer.start()
        else:
            self.refresh_now()

    # -- building ------------------------------------------------------------------------------

    def _build_top(self) -> QFrame:
        bar = QFrame()
        bar.setObjectName("panel")
        bar.setStyleSheet(f"QFrame#panel {{ background: {theme.PANEL}; border: none; "
                          f"border-bottom: 1px solid {theme.BORDER}; border-radius: 0px; }}")
        row = QHBoxLayout(bar)
        row.setContentsMargins(12, 4, 10, 4)
        row.setSpacing(14)
        title = QLabel("Count room")
        title.setObjectName("title")
        title.setStyleSheet(f"color: {theme.GOLD};")
        row.addWidget(title)
        self.team_label = QLabel("")
        self.team_label.setWordWrap(True)
        self.team_label.setTextFormat(Qt.TextFormat.RichText)
        self.team_label.setStyleSheet("font-size: 19px;")
        row.addWidget(self.team_label, 1)
        self.status = QLabel("")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setStyleSheet("font-size: 18px;")
        row.addWidget(self.status)
        self.sign_out_button = QPushButton("Sign out")
        self.sign_out_button.setAccessibleName("Sign the count team out")
        self.sign_out_button.setMinimumHeight(theme.TARGET_PX + 4)
        self.sign_out_button.setMinimumWidth(130)
        self.sign_out_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.sign_out_button.clicked.connect(self.sign_out)
        row.addWidget(self.sign_out_button)
        return bar

    def _panel(self, heading: QLabel, table: QTableWidget, hint: str) -> QVBoxLayout:
        col = QVBoxLayout()
        col.setSpacing(6)
        heading.setStyleSheet(f"font-size: 22px; font-weight: bold; color: {theme.GOLD};")
        col.addWidget(heading)
        col.addWidget(table, 1)
        words = QLabel(hint)
        words.setObjectName("muted")
        words.setWordWrap(True)
        words.setStyleSheet("font-size: 18px;")
        col.addWidget(words)
        return col

    def _build_lists(self) -> None:
        row = QHBoxLayout(self.main)
        row.setContentsMargins(10, 6, 10, 0)
        row.setSpacing(14)
        self.boxes_heading = QLabel("Boxes to count")
        self.box_list = _list(BOX_HEADERS)
        self.box_list.cellClicked.connect(lambda r, _c: self.touched_box(r))
        row.addLayout(self._panel(self.boxes_heading, self.box_list,
                                  "Touch a box to count it."), 50)
        self.variances_heading = QLabel("Variances")
        self.variance_list = _list(VARIANCE_HEADERS)
        self.variance_list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.variance_list.cellClicked.connect(lambda r, _c: self.touched_variance(r))
        row.addLayout(self._panel(self.variances_heading, self.variance_list,
                                  "Touch a variance to record its disposition."), 50)

    # -- the team ------------------------------------------------------------------------------

    def show_team(self) -> None:
        if self.team:
            names = " · ".join(f"<b>{u.name}</b>" for u in self.team)
            self.team_label.setText(f"Count team: {names}")
        else:
            self.team_label.setText(f"<span style='color:{theme.MUTED}'>Count team: nobody "
                                    f"signed in yet</span>")
        self.sign_out_button.setEnabled(bool(self.team))

    def _joined(self, user: User) -> None:
        self.show_team()
        self.message.hide()

    def start_count(self) -> None:
        """The team is complete: the boxes and variances (two people at the least)."""
        n = len(self.team)
        if n < MIN_TEAM:
            who = f" ({self.team[0].name})" if self.team else ""
            self.sign_in.refuse(f"The count team is {MIN_TEAM} to 6 accounting users: {n} "
                                f"signed in{who}. The next member taps their name, then types "
                                f"their PIN.")
            return
        self.status.show()
        self.show_lists()
        self.say(f"The count team: {names_in_words([u.name for u in self.team])}. Touch a box "
                 f"to count it, or a variance to dispose of it.", "info")

    def signed_in(self) -> bool:
        return len(self.team) >= MIN_TEAM and self.stack.currentWidget() is not self.sign_in

    def sign_out(self) -> None:
        """Every member of the team signed out (journaled); the sign-in comes back."""
        for u in self.team:
            try:
                self.users.sign_out(u, "count room: the count team signed out")
            except StationError as exc:
                self.say(f"{u.name} could not be signed out: {exc}", "bad")
        self.team.clear()
        self.show_team()
        self.status.hide()
        self.sign_in.reset()
        self.stack.setCurrentWidget(self.sign_in)
        self.say("The count team signed out.", "info")

    # -- reading -------------------------------------------------------------------------------

    def tables(self) -> list[str] | None:
        return list(self.only) if self.only is not None else None

    def read(self) -> Snapshot:
        """The boxes to count, the variances, and the people's names (any thread)."""
        tables = self.tables()
        return Snapshot(boxes_to_count(self.journal, self.settings, self.calendar, tables),
                        variances(self.journal, self.settings, self.calendar, tables),
                        names_of(self.users), self.journal.clock())

    def refresh_now(self) -> None:
        """Read the lists now, on this thread (at start, after a count, in tests)."""
        try:
            self.show_snapshot(self.read())
        except StationError as exc:
            self.say(f"The boxes and variances cannot be read: {exc}", "bad")

    def show_snapshot(self, snap: Snapshot) -> None:
        self.snapshot = snap
        self.boxes = snap.boxes
        self.variances = snap.variances
        self._fill_boxes()
        self._fill_variances()
        needs = sum(1 for v in self.variances if v.needs)
        n = len(self.boxes)
        self.boxes_heading.setText(f"Boxes to count ({n})" if n else
                                   "Boxes to count: none")
        threshold = self.settings.money.text(self.settings.variance_threshold)
        self.variances_heading.setText(f"Variances beyond {threshold} ({len(self.variances)})")
        alert = (f"<b style='color:{ALERT}'>⚠ {needs} need{'s' if needs == 1 else ''} a "
                 f"disposition</b>" if needs else "")
        self.status.setText(f"{n} box{'' if n == 1 else 'es'} to count"
                            + (f" · {alert}" if alert else ""))

    def _fill_boxes(self) -> None:
        t = self.box_list
        t.setRowCount(len(self.boxes))
        for i, b in enumerate(self.boxes):
            table = f"{b.table}\n{b.game}" if b.game else b.table
            rake = b.box == RAKE_BOX
            cells = (table, b.gaming_day.isoformat(), b.box_words, b.ready)
            for c, text in enumerate(cells):
                t.setItem(i, c, cell(text, theme.GOLD if rake and c == 2 else None,
                                      bold=c == 0 or (rake and c == 2)))
            t.setRowHeight(i, ROW_PX + 6 if b.game else ROW_PX)
        header = t.horizontalHeader()
        for c in range(len(BOX_HEADERS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)

    def _fill_variances(self) -> None:
        t = self.variance_list
        names = self.snapshot.names if self.snapshot is not None else {}
        money = self.settings.money
        t.setRowCount(len(self.variances))
        for i, v in enumerate(self.variances):
            said = disposition_text(v, money.text, names, self.calendar.zone, note_chars=NOTE_CHARS)
            cells = (f"{v.table} rake box" if v.box else v.table, v.gaming_day.isoformat(),
                     money.number(v.variance), said)
            for c, text in enumerate(cells):
                colour = ALERT if v.needs and c == 3 else (theme.MUTED if c == 3 else None)
                t.setItem(i, c, cell(text, colour, bold=c == 0 or (v.needs and c == 3),
                                      right=c == 2))
        header = t.horizontalHeader()
        for c in range(len(VARIANCE_HEADERS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # A disposition is read whole: its row as tall as its words wrap to.
        t.resizeRowsToContents()
        for i in range(t.rowCount()):
            t.setRowHeight(i, max(ROW_PX, t.rowHeight(i) + 8))

    def say(self, text: str, tone: str = "info") -> None:
        self.message.say(text, tone)

    def show_lists(self) -> None:
        self.stack.setCurrentWidget(self.main)
        self.refresh_now()

    def row_of_box(self, box: Box) -> int:
        keys = [b.key for b in self.boxes]
        return keys.index(box.key) if box.key in keys else -1

    def row_of_variance(self, table: str, gaming_day: str) -> int:
        keys = [v.key for v in self.variances]
        return keys.index((table, gaming_day)) if (table, gaming_day) in keys else -1

    # -- counting a box ------------------------------------------------------------------------

    def touched_box(self, row: int) -> None:
        if 0 <= row < len(self.boxes):
            self.open_box(self.boxes[row])

    def open_box(self, box: Box) -> None:
        """The count form for ``box``: the fields empty."""
        self.count_form.show_box(box, [u.name for u in self.team])
        self.stack.setCurrentWidget(self.count_form)
        self.message.hide()

    def count_whole_day(self) -> None:
        """Count the day's box whole instead of its shifts' (boxes not changed at the shift
        change)."""
        box = self.count_form.box
        if box is not None and box.shift is not None:
            self.open_box(box.whole_day())

    def record_now(self) -> None:
        """Check the counts, then every member of the team verifies by PIN; the count
        room's core decides."""
        box = self.count_form.box
        if box is None:
            return
        try:
            notes = self.count_form.notes()
            markers, count = self.count_form.markers()
        except StationError as exc:
            self.say(f"Not counted: {exc}.", "bad")
            return
        if len(self.team) < MIN_TEAM:
            self.say(f"Not counted: the count needs its team: {MIN_TEAM} to 6 accounting "
                     f"users sign in first.", "bad")
            return
        money = self.settings.money.text
        face = partial(note_face, self.settings)
        cash = f"Cash {money(notes.total)} ({notes_text(notes.counts, face)})"
        what = (f"{cash}, markers {money(markers)} ({count}), total "
                f"{money(notes.total + markers)}." if box.box is None else f"{cash}.")
        title = f"The count of {box.words}"
        ask_team_pins(self.count_form.record_button, title, list(self.team), what,
                      lambda pairs: self._record(box, notes, markers, count, pairs))

    def _record(self, box: Box, notes: Chips, markers: int, count: int,
                pairs: list[tuple[str, str]]) -> None:
        try:
            team = verify(self.users, pairs, box.table, f"the count of {box.words}")
            room = CountRoom(TableAccounting(self.journal, box.table, self.settings,
                                             self.calendar))
            room.count(box.gaming_day, notes, markers, count, team, shift=box.shift,
                       box=box.box)
        except StationError as exc:
            self.say(f"Not counted: {exc}.", "bad")
            return
        money = self.settings.money.text
        self.show_lists()
        apart = (f", markers {money(markers)} ({count}), total {money(notes.total + markers)}"
                 if box.box is None else "")
        self.say(f"Counted: {box.words}: cash {money(notes.total)} in "
                 f"{notes.chip_count:,} notes{apart}; verified by "
                 f"{names_in_words([u.name for u in team])}.", "good")
        self.offer_print(box)

    def offer_print(self, box: Box) -> ConfirmSheet:
        where = (f"printed on {self.printer} and saved" if self.printer else
                 "saved as a PDF (no printer is set)")
        sheet = ConfirmSheet(self, "Print the count sheet?",
                             f"The count sheet of {box.words}: the notes by denomination, the "
                             f"markers, the totals and the count team, {where} in "
                             f"{self.sheets_dir}.", "Print the count sheet",
                             lambda: self.print_sheet(box), no="Not now")
        sheet.open()
        return sheet

    def print_sheet(self, box: Box) -> Path | None:
        """The count sheet of a counted box as a PDF in the sheets' folder, sent to the
        printer if one is set."""
        from dealer_station.reports.count_sheet import (
            build_count_sheet_pdf,
            count_number,
            count_record,
        )

        try:
            ledger = TableAccounting(self.journal, box.table, self.settings,
                                     self.calendar).ledger()
            number = count_number(ledger, count_record(ledger, box.gaming_day,
                                                       shift=box.shift, box=box.box))
            self.sheets_dir.mkdir(parents=True, exist_ok=True)
            built = build_count_sheet_pdf(self.journal, ledger, self.settings,
                                          box.gaming_day, out=self.sheets_dir / f"{number}.pdf",
                                          shift=box.shift, box=box.box)
            said = f"Count sheet {number} saved as {built.path}"
            from dealer_station.reports.printing import printed_if

            said += printed_if(built.path, self.printer, built.title)
        except (StationError, OSError) as exc:
            self.say(f"Not printed: {exc}", "bad")
            return None
        self.say(said + ".", "good")
        return built.path

    # -- dispositions --------------------------------------------------------------------------

    def touched_variance(self, row: int) -> None:
        if 0 <= row < len(self.variances):
            self.open_variance(self.variances[row])

    def open_variance(self, v: Variance) -> None:
        names = self.snapshot.names if self.snapshot is not None else names_of(self.users)
        money = self.settings.money.text
        self.dispose_form.show_variance(v, variance_story(
            v, money, names, self.settings.variance_threshold, self.calendar.zone))
        self.stack.setCurrentWidget(self.dispose_form)
        self.message.hide()

    def sign_now(self) -> None:
        """Check the form, then two accounting users sign; the count room's core decides."""
        v = self.dispose_form.variance
        if v is None:
            return
        try:
            disposition, why, adjustment = self.dispose_form.values()
        except StationError as exc:
            self.say(f"Not recorded: {exc}.", "bad")
            return
        words = DISPOSITION_WORDS[disposition]
        if adjustment is not None:
            words += f" (entry {signed_money(adjustment, self.settings.money.text)})"
        what = "rake against its rake box" if v.box else "variance"
        title = f"Disposition of table {v.table}'s {what} of {v.gaming_day.isoformat()}"
        ask_two_signers(self.dispose_form.sign_button, title, self.users,
                        f"{words}: {why}",
                        lambda pairs: self._dispose(v, disposition, why, adjustment, pairs))

    def _dispose(self, v: Variance, disposition: str, why: str, adjustment: int | None,
                 pairs: list[tuple[str, str]]) -> None:
        try:
            signers = verify(self.users, pairs, v.table,
                             f"the disposition of table {v.table}'s variance")
            room = CountRoom(TableAccounting(self.journal, v.table, self.settings,
                                             self.calendar))
            room.dispose(v.gaming_day, v.variance, disposition, why, signers,
                         adjustment=adjustment, box=v.box)
        except StationError as exc:
            self.say(f"Not recorded: {exc}.", "bad")
            return
        money = self.settings.money.text
        words = DISPOSITION_WORDS[disposition].lower()
        if adjustment is not None:
            words += f" with an entry of {signed_money(adjustment, money)}"
        self.show_lists()
        self.say(f"Table {v.table}, gaming day {v.gaming_day.isoformat()}: the variance of "
                 f"{money(v.variance)} {words}, signed by "
                 f"{names_in_words([u.name for u in signers])}.", "good")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.timer.stop()
        super().closeEvent(event)


def run_screen(args: argparse.Namespace) -> int:
    """``dealer-station count-room screen``: open the journal (it must exist: the count room
    writes to the tables' chains, never starts a journal), and show the count room's screen
    until it is closed (the screenshots: ``count_room_demo.count_room_screenshots``)."""
    from dealer_station.ui.journal_window import run_on_journal

    sheets = getattr(args, "sheets", None)
    return run_on_journal(args, lambda c: CountRoomWindow(
        c.journal, c.settings, c.calendar, printer=c.printer,
        sheets_dir=Path(sheets) if sheets else None))


__all__ = ["ALERT", "NEEDS", "CountRoomWindow", "Snapshot", "run_screen"]
