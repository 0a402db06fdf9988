"""The cage's own screen (1280x800, touch only): every table's fill and credit requests, and
the cage's steps of each, signed where the cage stands (docs/accounting.md, "The cage's
screen").

The list groups the requests in the order a cage cashier works them (``cage_rows``): an
overdue one first, in the theme's colour for what needs attention, with how long it has
waited; then those to issue (Requested), those issued and waiting for the runner, those in
transit, and the gaming day's received and voided ones below. It is read again every few
seconds in a thread of its own (as the pit podium reads the floor), so a slow journal never
freezes the screen; the table signs on receipt at its own screen, and the receipt shows here
at the next reading.

Touching a request opens its sheet: its chips, each step with its time and signers, and the
actions of its state:

- **Issue the slip** (Requested): the issue form (``cage_issue``), the chips counted out by
  denomination beside the request's; the cage cashier signs (name, then PIN) and the cage's
  desk issues the slip, or refuses it in words (counts that differ from the request); once
  issued, the screen offers to print the slip (saved as a PDF, and sent to the station's
  printer when one is set);
- **Runner takes it** (Issued): the security officer signs, name then PIN;
- **Void** (Requested, Issued, In transit): a reason (the station's ``slip_void`` reasons,
  or one typed), then the jurisdiction's two void signers (``[cage] void``, default a
  supervisor and a cage cashier), each choosing their name and typing their PIN;
- **Print the slip**, once the cage issued it.

Every signature is asked on the touch kit's sheets as at the table (``chips_signing``): the
active people whose role may sign it, by name (a step's names leave out whoever already
signed it), then that person's PIN on the PIN pad, checked as a sign-in in the table's chain.
The screen decides no rule: the signers and the counts go to ``table.cage.CageDesk``, whose
answer, a refusal in words (a wrong role, one person signing a slip twice, other chips than
the request's), is said on the screen; no step is journaled then.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QStackedWidget,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.requests import STATE_WORDS, Request
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User, Users
from dealer_station.errors import StationError
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.cage import CageDesk, table_requests
from dealer_station.ui import theme
from dealer_station.ui.background_read import BackgroundReader, cell
from dealer_station.ui.cage_issue import IssueForm
from dealer_station.ui.cage_rows import (
    HEADERS,
    Group,
    detail_lines,
    groups,
    kind_words,
    slot_words,
)
from dealer_station.ui.chips_signing import ask_signers, names_of, role_words, signed_in
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.reasons import ask_reason
from dealer_station.ui.touch_sheet import ChoiceSheet, ConfirmSheet

if TYPE_CHECKING:
    from argon2 import PasswordHasher

#: How often the requests are read again (the tables request and receive at their screens).
REFRESH_MS = 3000
#: A request's row: a fingertip high, read at a metre.
ROW_PX = 54
HEADING_PX = 38
LIST_PX = 19
#: An overdue request: the theme's colour for what needs attention.
ALERT = theme.BAD    # late, as the table and the pit show it
#: Where a slip's PDF is saved when the screen is given no folder.
SLIPS_DIR = Path.home() / "cage-slips"

Key = tuple[str, int, int]


@dataclass
class Snapshot:
    """The requests of the cage's tables as one reading found them."""

    requests: list[Request]
    names: dict[str, str]
    at: datetime
    tables: list[str] = field(default_factory=list)


class CageWindow(QMainWindow):
    """The cage's screen (see the module). ``tables``: only these tables (None: every table
    of the journal)."""

    def __init__(self, journal: Journal, settings: AccountingSettings,
                 calendar: GamingCalendar, *, tables: Sequence[str] | None = None,
                 printer: str = "", slips_dir: Path | None = None,
                 hasher: PasswordHasher | None = None, auto_refresh: bool = True) -> None:
        super().__init__()
        self.journal = journal
        self.settings = settings
        self.calendar = calendar
        self.rules = settings.cage
        self.only = list(tables) if tables else None
        self.printer = printer
        self.slips_dir = slips_dir or SLIPS_DIR
        self.users = Users(journal, hasher=hasher) if hasher else Users(journal)
        self.snapshot: Snapshot | None = None
        self.requests: dict[Key, Request] = {}
        #: The key of each row of the list (None: a group's heading).
        self.row_keys: list[Key | None] = []
        self._desks: dict[str, CageDesk] = {}
        self.setWindowTitle("Dealer Station — the cage")
        central = QWidget()
        self.setCentralWidget(central)
        outer = QVBoxLayout(central)
        outer.setContentsMargins(0, 0, 0, 6)
        outer.setSpacing(4)
        self.stack = QStackedWidget()
        outer.addWidget(self.stack, 1)
        self.main = QWidget()
        self.stack.addWidget(self.main)
        self.issue_form = IssueForm(settings)
        self.issue_form.back.connect(self.show_list)
        self.issue_form.issue.connect(lambda: self.issue_now())
        self.stack.addWidget(self.issue_form)
        self.message = MessageLabel()
        msg_row = QHBoxLayout()
        msg_row.setContentsMargins(10, 0, 10, 0)
        msg_row.addWidget(self.message)
        outer.addLayout(msg_row)
        self._build_list()
        self.reader = BackgroundReader(self.read, name="cage-reader",
                                       failure="The requests cannot be read")
        self.reader.ready.connect(self.show_snapshot)
        self.reader.failed.connect(lambda m: self.say(m, "bad"))
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.reader.start)
        self.refresh_now()
        if not self.rules.through_cage:
            self.say("This jurisdiction's fills and credits are signed at the table in one "
                     "step ([cage] of the accounting settings has no cage signature): the cage "
                     "issues no slip here.", "bad")
        if auto_refresh:
            self.timer.start()

    def _build_list(self) -> None:
        col = QVBoxLayout(self.main)
        col.setContentsMargins(10, 6, 10, 0)
        col.setSpacing(6)
        top = QHBoxLayout()
        self.title = QLabel("The cage · fills and credits")
        self.title.setObjectName("title")
        self.day = QLabel("")
        self.day.setObjectName("muted")
        self.day.setStyleSheet("font-size: 18px;")
        self.alert = QLabel("")
        self.alert.setStyleSheet(f"font-size: 22px; font-weight: bold; color: {ALERT};")
        top.addWidget(self.title)
        top.addSpacing(14)
        top.addWidget(self.day, 1)
        top.addWidget(self.alert)
        col.addLayout(top)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(list(HEADERS))
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(ROW_PX)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # The chips wrap onto a second line rather than being cut.
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setStyleSheet(f"QTableWidget {{ font-size: {LIST_PX}px; }} "
                                 f"QHeaderView::section {{ font-size: 16px; }}")
        self.table.cellClicked.connect(lambda r, _c: self.touched(r))
        col.addWidget(self.table, 1)
        hint = QLabel("Touch a request to issue its slip, send it with the runner, void it or "
                      "print it.")
        hint.setObjectName("muted")
        hint.setStyleSheet("font-size: 18px;")
        col.addWidget(hint)

    # -- reading -------------------------------------------------------------------------------

    def tables(self) -> list[str]:
        return list(self.only) if self.only is not None else self.journal.tables()

    def read(self) -> Snapshot:
        """Every request of the cage's tables, and the people's names (any thread)."""
        tables = self.tables()
        requests: list[Request] = []
        for t in tables:
            requests += table_requests(self.journal, t)
        return Snapshot(requests, names_of(self.users), self.journal.clock(),
                        sorted({r.table for r in requests}))

    def refresh_now(self) -> None:
        """Read the requests now, on this thread (at start, after a step, in tests)."""
        try:
            self.show_snapshot(self.read())
        except StationError as exc:
            self.say(f"The requests cannot be read: {exc}", "bad")

    def show_snapshot(self, snap: Snapshot) -> None:
        self.snapshot = snap
        self.requests = {(r.table, r.event.year, r.event.request): r for r in snap.requests}
        money = self.settings.money
        found = groups(snap.requests, snap.at, self.rules, self.calendar, snap.names,
                       money.text, money.number)
        self._fill(found)
        day = self.calendar.day_of(snap.at)
        n = len(snap.tables)
        at = (snap.at.astimezone(self.calendar.zone) if self.calendar.zone is not None
              else snap.at.astimezone())
        self.day.setText(f"Gaming day {day.isoformat()} · {n} table{'' if n == 1 else 's'} "
                         f"with requests · read {at:%H:%M:%S}")
        late = sum(len(g.rows) for g in found if g.alert)
        self.alert.setText(f"⚠ {late} overdue" if late else "")
        self.alert.setVisible(bool(late))

    def _fill(self, found: list[Group]) -> None:
        keys: list[Key | None] = []
        rows: list[tuple[Group, Any]] = []
        for g in found:
            keys.append(None)
            rows.append((g, None))
            for r in g.rows:
                keys.append(r.key)
                rows.append((g, r))
        self.table.clearSpans()
        self.table.setRowCount(len(rows))
        for i, (g, r) in enumerate(rows):
            if r is None:
                heading = ALERT if g.alert else theme.GOLD
                count = f"{len(g.rows)}" if g.rows else "none"
                item = cell(f"{g.heading} ({count})", heading, bold=True)
                item.setBackground(QColor(theme.PANEL_HI))
                self.table.setItem(i, 0, item)
                for c in range(1, len(HEADERS)):
                    blank = cell("")
                    blank.setBackground(QColor(theme.PANEL_HI))
                    self.table.setItem(i, c, blank)
                self.table.setSpan(i, 0, 1, len(HEADERS))
                self.table.setRowHeight(i, HEADING_PX)
                continue
            late = r.late
            muted = r.state == "voided"
            for c, text in enumerate(r.cells):
                colour = ALERT if late else (theme.MUTED if muted else None)
                bold = c in (0, 1) or (late and c == 7)
                self.table.setItem(i, c, cell(text, colour, bold=bold, right=c == 3))
            self.table.setRowHeight(i, ROW_PX)
        self.row_keys = keys
        header = self.table.horizontalHeader()
        for c in range(len(HEADERS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)

    def say(self, text: str, tone: str = "info") -> None:
        self.message.say(text, tone)

    def row_of(self, key: Key) -> int:
        """The list's row of the request (-1: not listed)."""
        return self.row_keys.index(key) if key in self.row_keys else -1

    # -- the request's sheet -------------------------------------------------------------------

    def desk(self, table: str) -> CageDesk:
        if table not in self._desks:
            self._desks[table] = CageDesk(TableAccounting(self.journal, table, self.settings,
                                                          self.calendar))
        return self._desks[table]

    def fresh(self, key: Key) -> Request | None:
        """The request as its table's chain has it now (another screen may have moved it
        on since the list was read)."""
        table, year, number = key
        try:
            found = {r.key: r for r in table_requests(self.journal, table)}
        except StationError as exc:
            self.say(f"The requests cannot be read: {exc}", "bad")
            return None
        return found.get((year, number))

    def touched(self, row: int) -> None:
        if 0 <= row < len(self.row_keys):
            key = self.row_keys[row]
            if key is not None:
                self.open_request(key)

    def story(self, req: Request) -> list[str]:
        names = self.snapshot.names if self.snapshot is not None else names_of(self.users)
        money = self.settings.money
        return detail_lines(req, self.journal.clock(), self.rules, names, money.text,
                            money.number, self.calendar.zone)

    def story_html(self, req: Request) -> str:
        """The story as the sheet shows it: a line a step, the wait in the alert colour when
        the request is overdue."""
        lines = [escape(line) for line in self.story(req)]
        if req.overdue(self.journal.clock(), self.rules.alert_minutes):
            lines[-1] = f"<b style='color:{ALERT}'>{lines[-1]}</b>"
        return "<br>".join(lines)

    def actions_of(self, req: Request) -> list[tuple[str, str, str]]:
        """The sheet's buttons for the request's state: (words, action, kind)."""
        out: list[tuple[str, str, str]] = []
        if not self.rules.through_cage:
            return out
        state = req.state
        if state == "requested":
            out.append(("Issue the slip…", "issue", "primary"))
        if state == "issued" and self.rules.runner:
            out.append(("Runner takes it…", "carry", "primary"))
        if req.slip_number is not None:
            out.append(("Print the slip", "print", ""))
        if state in ("requested", "issued", "in transit"):
            out.append(("Void…", "void", "danger"))
        return out

    def open_request(self, key: Key) -> ChoiceSheet[str] | None:
        """The request's sheet: its story and the actions of its state."""
        req = self.fresh(key)
        if req is None:
            self.refresh_now()
            return None
        options = self.actions_of(req)
        title = (f"{kind_words(req)} {req.label} · table {req.table} · "
                 f"{STATE_WORDS[req.state]}")
        sheet: ChoiceSheet[str] = ChoiceSheet(
            self, title, [(words, action) for words, action, _ in options],
            lambda action: self.act(key, action), note=self.story_html(req),
            columns=max(1, min(3, len(options))), cancel="Close", width=980)
        sheet.note.setTextFormat(Qt.TextFormat.RichText)
        for words, _, kind in options:
            if kind:
                sheet.buttons[words].setObjectName(kind)
        sheet.open()
        return sheet

    def act(self, key: Key, action: str) -> None:
        req = self.fresh(key)
        if req is None:
            return
        if action == "issue":
            self.start_issue(req)
        elif action == "carry":
            self.ask_carry(req)
        elif action == "void":
            self.ask_void(req)
        elif action == "print":
            self.print_slip(req)

    # -- issuing -------------------------------------------------------------------------------

    def start_issue(self, req: Request) -> None:
        """The issue form for ``req``: the counts empty, the request's beside them."""
        self.issue_form.show_request(req, self.story(req), slot_words(self.rules.issue))
        self.stack.setCurrentWidget(self.issue_form)
        self.message.hide()

    def show_list(self) -> None:
        self.stack.setCurrentWidget(self.main)
        self.refresh_now()

    def issue_now(self) -> None:
        """Check the counts, then ask the cashier's signature; the desk decides."""
        req = self.issue_form.request
        if req is None:
            return
        try:
            chips = self.issue_form.counts()
        except StationError as exc:
            self.say(f"Not issued: {exc}", "bad")
            return
        if chips.total == 0:
            self.say(f"Not issued: no chips counted out yet for {req.label}: type how many "
                     f"of each chip.", "bad")
            return
        ask_signers(self.issue_form.issue_button,
                    f"Issue the {req.kind} slip for {req.label}", self.rules.issue,
                    self.users, lambda pairs: self._issue(req, chips, pairs),
                    note=f"The {_words(self.rules.issue)} touches their name, then types "
                         f"their PIN.")

    def _issue(self, req: Request, chips: Chips, pairs: list[tuple[str, str]]) -> None:
        year, number = req.key
        try:
            signers = signed_in(self.users, pairs, req.table, f"issuing {req.label}")
            self.desk(req.table).issue(year, number, chips, signers)
        except StationError as exc:
            # The desk's refusal names each denomination that differs; the form marks them.
            self.say(f"Not issued: {exc}", "bad")
            return
        done = self.fresh((req.table, year, number)) or req
        money = self.settings.money.text
        self.show_list()
        self.say(f"{kind_words(done)} slip {done.slip_label} issued against {done.label} "
                 f"for table {done.table}: {money(chips.total)}, signed by "
                 f"{_names(signers)}.", "good")
        self.offer_print(done)

    def offer_print(self, req: Request) -> ConfirmSheet:
        copies = ", ".join(self.rules.copies)
        where = (f"printed on {self.printer} and saved" if self.printer else
                 "saved as a PDF (no printer is set)")
        sheet = ConfirmSheet(self, f"Print slip {req.slip_label}?",
                             f"{kind_words(req)} slip {req.slip_label} for table {req.table}, "
                             f"{len(self.rules.copies)} copies ({copies}), {where} in "
                             f"{self.slips_dir}.", "Print the slip",
                             lambda: self.print_slip(req), no="Not now")
        sheet.open()
        return sheet

    # -- the runner, voids, printing -----------------------------------------------------------

    def ask_carry(self, req: Request) -> None:
        ask_signers(self, f"The runner takes slip {req.slip_label}", self.rules.runner,
                    self.users, lambda pairs: self._carry(req, pairs),
                    note=f"The {_words(self.rules.runner)} touches their name, then types "
                         f"their PIN.")

    def _carry(self, req: Request, pairs: list[tuple[str, str]]) -> None:
        try:
            signers = signed_in(self.users, pairs, req.table, f"carrying {req.label}")
            self.desk(req.table).carry(*req.key, signers)
        except StationError as exc:
            self.say(f"Not carried: {exc}", "bad")
            return
        self.refresh_now()
        self.say(f"{kind_words(req)} slip {req.slip_label} ({req.label}) in transit to "
                 f"table {req.table}, carried by {_names(signers)}.", "good")

    def ask_void(self, req: Request) -> None:
        def signers(reason: str) -> None:
            ask_signers(self, f"Void {req.label}", self.rules.void, self.users,
                        lambda pairs: self._void(req, reason, pairs),
                        note=f"The void of {req.label} ({STATE_WORDS[req.state].lower()}) "
                             f"takes {slot_words(self.rules.void)}: each touches their "
                             f"name, then types their PIN. Reason: {reason}")

        ask_reason(self, "slip_void", f"Void {req.label} ({kind_words(req).lower()}, "
                                      f"{STATE_WORDS[req.state].lower()}): why?", signers,
                   note=f"Table {req.table}, {self.settings.money.text(req.event.total)}.")

    def _void(self, req: Request, reason: str, pairs: list[tuple[str, str]]) -> None:
        try:
            signers = signed_in(self.users, pairs, req.table, f"voiding {req.label}")
            self.desk(req.table).void(*req.key, reason, signers)
        except StationError as exc:
            self.say(f"Not voided: {exc}", "bad")
            return
        self.refresh_now()
        self.say(f"{req.label} ({kind_words(req).lower()} for table {req.table}) voided by "
                 f"{_names(signers)}: {reason}.", "good")

    def print_slip(self, req: Request) -> Path | None:
        """The request's slip as a PDF in the slips' folder, sent to the printer if set."""
        from dealer_station.reports.accounting_pdf import build_slip_pdf

        fresh = self.fresh((req.table, *req.key)) or req
        slip = fresh.slip_number
        if slip is None:
            self.say(f"Not printed: {fresh.label} has no slip yet (the cage issues it).", "bad")
            return None
        year, number = slip
        out = self.slips_dir / f"{fresh.kind}-{fresh.table}-{year}-{number:05d}.pdf"
        try:
            self.slips_dir.mkdir(parents=True, exist_ok=True)
            book = self.desk(fresh.table).book
            built = build_slip_pdf(self.journal, book.ledger(), self.settings, fresh.kind,
                                   year, number, out=out)
            said = f"{built.title} {fresh.slip_label} saved as {built.path}"
            from dealer_station.reports.printing import printed_if

            said += printed_if(built.path, self.printer, built.title)
        except (StationError, OSError) as exc:
            self.say(f"Not printed: {exc}", "bad")
            return None
        self.say(said, "good")
        return built.path

    def closeEvent(self, event: QCloseEvent) -> None:
        self.timer.stop()
        super().closeEvent(event)


def _words(slots: Sequence[str]) -> str:
    """The roles of a step's signatures in words: "cage cashier", "security officer"."""
    return " and the ".join(role_words(s) for s in slots)


def _names(users: Sequence[User]) -> str:
    return " and ".join(u.name for u in users)


def run_screen(args: argparse.Namespace) -> int:
    """``dealer-station cage screen``: open the journal (it must exist: the cage writes to
    the tables' chains, never starts a journal), and show the cage's screen until it is
    closed (``cage screen --screenshots`` is the command's, from a demo journal)."""
    from dealer_station.ui.journal_window import run_on_journal

    tables = None
    if args.tables is not None:
        tables = [t.strip() for t in args.tables.split(",") if t.strip()]
        if not tables:
            raise StationError("--tables: give at least one table, e.g. --tables T1,T2")
    slips = getattr(args, "slips", None)
    return run_on_journal(args, lambda c: CageWindow(
        c.journal, c.settings, c.calendar, tables=tables, printer=c.printer,
        slips_dir=Path(slips) if slips else None))


__all__ = ["CageWindow", "Snapshot", "run_screen"]
