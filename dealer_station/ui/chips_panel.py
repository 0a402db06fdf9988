"""The supervisor's Chips tab: the table's tray counts and slips, entered at the table.

Opener, shift count, closer, fill and credit: the chips counted by denomination (one large
field per configured denomination; touched, it opens the keypad, and *Next ›* goes on to the
next chip; the total shows as money as it is typed), signed by the signed-in supervisor and
the dealer, who is chosen by name and types their PIN on the PIN pad. Nothing needs a
keyboard. A closer is confirmed on a sheet before it is recorded: it closes the gaming day.

The screen decides no rule: it hands the counts and the two signers to the table's accounting
(``dealer_station/table/accounting.py``) and shows its answer, a refusal in words. Beside the
form: the gaming day and shift, what was counted in it, and the day's win (what the rounds the
station settled won, and once the drop is counted, the count room's win and hold). The last
slips are listed with their numbers and signers' names; one is printed on the station's
printer when one is set, else saved as a PDF.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.chips import Chips, ChipsError, chips_from_counts
from dealer_station.accounting.figures import hold, statistical_win
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.accounting.shifts import day_drop
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User
from dealer_station.errors import StationError
from dealer_station.events.accounting import (
    TrayClosed,
    TrayDifference,
    TrayOpened,
    TrayShiftCounted,
)
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.accounting import TableAccounting, accounting_event, slip_event
from dealer_station.ui import theme
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.session import SignInSession
from dealer_station.ui.touch_fields import TouchLineEdit, TouchNumberField, TouchPinField
from dealer_station.ui.touch_sheet import choose, confirm

#: action -> (button, what it is, the record button's words)
ACTIONS = {
    "opener": ("Opener", "The tray counted at the start of the gaming day.",
               "Record the opener"),
    "shift-count": ("Shift count", "The tray counted at the shift change, before the next "
                    "shift starts: it closes this shift and opens the next.",
                    "Record the shift count"),
    "closer": ("Closer", "The tray counted at the end of the gaming day.",
               "Record the closer"),
    "fill": ("Fill", "Chips brought from the cage to the tray.", "Record the fill"),
    "credit": ("Credit", "Chips taken from the tray back to the cage.", "Record the credit"),
}
SLIPS_SHOWN = 8
FIELD_PX = 26
#: The longest dealer's name on the button (a longer one ends in "…").
NAME_CHARS = 16
#: A count's field: a fingertip's height, five of them above the signature.
COUNT_PX = 46
#: A slip's row in the list: read at a metre, touched to select it for printing.
SLIP_ROW_PX = 40


class ChipsPanel(QWidget):
    """The Chips tab of the supervisor's screen (see the module)."""

    def __init__(self, journal: Journal, table_id: str, session: SignInSession, *,
                 settings: AccountingSettings | None = None,
                 calendar: GamingCalendar | None = None, printer: str | None = None,
                 slips_dir: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar

        self.journal = journal
        self.session = session
        #: A configuration file that cannot be read: said on the tab, nothing can be recorded.
        self.config_problem: str | None = None
        try:
            settings = settings or load_accounting_settings()
            calendar = calendar or load_gaming_calendar()
        except StationError as exc:
            self.config_problem = (f"The Chips tab is off: {exc}. Fix the file (dealer-station "
                                   f"doctor checks it) and restart the station.")
            settings, calendar = AccountingSettings(), GamingCalendar()
        self.book = TableAccounting(journal, table_id, settings, calendar)
        self.printer = printer if printer is not None else _configured_printer()
        self.slips_dir = slips_dir or Path.cwd() / "slips"
        self.action = "fill"
        grid = QGridLayout(self)
        grid.setContentsMargins(12, 8, 12, 8)
        grid.setHorizontalSpacing(14)
        grid.addLayout(self._build_entry(), 0, 0)
        grid.addLayout(self._build_side(), 0, 1)
        grid.setColumnStretch(0, 5)
        grid.setColumnStretch(1, 6)
        self.choose("fill")
        session.user_changed.connect(lambda _u: self._show_signer())

    # -- building --------------------------------------------------------------------------

    def _build_entry(self) -> QVBoxLayout:
        col = QVBoxLayout()
        col.setSpacing(6)
        row = QHBoxLayout()
        self.action_group = QButtonGroup(self)
        self.action_buttons: dict[str, QPushButton] = {}
        for key, (label, _, _) in ACTIONS.items():
            b = QPushButton(label)
            b.setCheckable(True)
            b.setObjectName("nav")
            b.clicked.connect(lambda _c=False, k=key: self.choose(k))
            self.action_group.addButton(b)
            self.action_buttons[key] = b
            row.addWidget(b)
        col.addLayout(row)
        self.what = QLabel("")
        self.what.setObjectName("muted")
        self.what.setWordWrap(True)
        col.addWidget(self.what)
        chips = QGridLayout()
        chips.setHorizontalSpacing(10)
        chips.setVerticalSpacing(4)
        self.fields: dict[int, TouchNumberField] = {}
        self.values: dict[int, QLabel] = {}
        number = self.book.settings.money.number     # a denomination, as its tray label says
        for i, denom in enumerate(self.book.settings.denominations, start=1):
            chip = QLabel(number(denom))
            chip.setStyleSheet(f"font-size: {FIELD_PX - 4}px; font-weight: bold; "
                               f"color: {theme.GOLD};")
            chips.addWidget(chip, i, 0, alignment=Qt.AlignmentFlag.AlignRight)
            field = TouchNumberField(f"How many {number(denom)} chips?",
                                     placeholder="0 chips", max_length=5)
            field.setAccessibleName(f"Chips of {number(denom)}")
            field.setMaximumWidth(170)
            field.setMinimumHeight(COUNT_PX)
            # Style sheet heights are the content's: padding and border come on top.
            field.setStyleSheet(f"font-size: {FIELD_PX}px; min-height: {COUNT_PX - 6}px; "
                                f"padding: 2px 10px;")
            field.textChanged.connect(lambda _t: self.update_total())
            if self.fields:
                list(self.fields.values())[-1].next_field = field
            chips.addWidget(field, i, 1)
            value = QLabel("")
            value.setStyleSheet("font-size: 19px;")
            chips.addWidget(value, i, 2, alignment=Qt.AlignmentFlag.AlignRight)
            self.fields[denom], self.values[denom] = field, value
        col.addLayout(chips)
        self.total = QLabel("")
        self.total.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {theme.GOLD};")
        self.total.setWordWrap(True)
        self.total.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.total)
        self.note = TouchLineEdit("A note for the slip",
                                  placeholder="Note for the slip (e.g. tray low on 25.00 chips)",
                                  max_length=120)
        self.note.setAccessibleName("Note")
        col.addWidget(self.note)
        col.addStretch(1)
        # The second signature: the dealer, by name, and their PIN on the pad.
        sign = QGridLayout()
        sign.setHorizontalSpacing(8)
        sign.setVerticalSpacing(6)
        #: The dealer who signs: chosen by name from the active dealers.
        self.dealer_user_id = ""
        self.dealer_button = QPushButton("Choose\nthe dealer")
        self.dealer_button.setAccessibleName("The dealer who signs")
        self.dealer_button.clicked.connect(self.choose_dealer)
        self.dealer_button.setMinimumHeight(theme.TOUCH_PX)
        self.dealer_button.setStyleSheet("padding: 2px 8px; font-size: 18px;")
        sign.addWidget(self.dealer_button, 0, 0)
        self.dealer_pin = TouchPinField("The dealer's PIN")
        self.dealer_pin.setAccessibleName("Dealer PIN")
        self.dealer_pin.setFixedWidth(120)
        self.dealer_pin.setMinimumHeight(theme.TOUCH_PX)
        self.dealer_pin.setStyleSheet("font-size: 24px;")
        self.dealer_pin.returnPressed.connect(self.record)
        sign.addWidget(self.dealer_pin, 0, 1)
        self.record_button = QPushButton("Record")
        self.record_button.setObjectName("primary")
        self.record_button.setMinimumHeight(theme.TOUCH_PX)
        self.record_button.clicked.connect(self.record)
        sign.addWidget(self.record_button, 0, 2)
        sign.setColumnStretch(0, 3)
        sign.setColumnStretch(2, 4)
        col.addLayout(sign)
        return col

    def _build_side(self) -> QVBoxLayout:
        col = QVBoxLayout()
        col.setSpacing(6)
        # Where the tray stands, and the day's win.
        self.state = QLabel("")
        self.state.setWordWrap(True)
        self.state.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.state.setStyleSheet(f"color: {theme.GOLD}; font-size: 18px;")
        col.addWidget(self.state)
        self.win = QLabel("")
        self.win.setWordWrap(True)
        self.win.setTextFormat(Qt.TextFormat.RichText)
        self.win.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.win.setStyleSheet("font-size: 19px;")
        col.addWidget(self.win)
        self.signer = QLabel("")
        self.signer.setWordWrap(True)
        self.signer.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.signer)
        self.message = MessageLabel()
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.message)
        box = QGroupBox("Last slips and counts")
        inner = QVBoxLayout(box)
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
        inner.addWidget(self.slips, 1)
        where = f"on {self.printer}" if self.printer else "as a PDF (no printer is set)"
        self.print_button = QPushButton(f"Print the selected slip {where}")
        self.print_button.clicked.connect(self.print_selected)
        inner.addWidget(self.print_button)
        col.addWidget(box, 1)
        return col

    # -- state -----------------------------------------------------------------------------

    def choose(self, action: str) -> None:
        self.action = action
        _, what, button = ACTIONS[action]
        self.action_buttons[action].setChecked(True)
        self.what.setText(what)
        self.record_button.setText(button)
        self.note.setVisible(action in ("fill", "credit"))

    def _show_signer(self) -> None:
        user = self.session.user
        if user is None:
            self.signer.setText("Sign in as a supervisor first.")
        else:
            self.signer.setText(f"You sign as {user.name}; the dealer counting with you signs "
                                f"second: their name, then their PIN.")
        if self.session.dealer is not None and not self.dealer_user_id:
            self.set_dealer(self.session.dealer.user_id)

    def dealers(self) -> list[User]:
        """The active dealers, by name: who may sign second."""
        try:
            users = self.session.users.list()
        except StationError:
            return []
        return sorted((u for u in users if u.active and u.role == "dealer"),
                      key=lambda u: u.name.lower())

    def set_dealer(self, user_id: str) -> None:
        """The dealer who signs (by user id); their PIN is typed again."""
        self.dealer_user_id = user_id
        self.dealer_pin.clear()
        name = self._names().get(user_id, user_id)
        shown = name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"
        self.dealer_button.setText(f"Dealer:\n{shown}" if user_id else "Choose\nthe dealer")
        self.dealer_button.setAccessibleName(f"The dealer who signs: {name}" if user_id
                                             else "The dealer who signs")
        self.dealer_pin.prompt = f"{name}'s PIN" if user_id else "The dealer's PIN"

    def choose_dealer(self) -> None:
        """Choose the dealer who signs, by name; then their PIN on the pad."""
        def chosen(user_id: str) -> None:
            self.set_dealer(user_id)
            self.dealer_pin.open_input()

        choose(self.dealer_button, "Who counts with you?",
               [(u.name, u.user_id) for u in self.dealers()], chosen,
               note="The dealer signs second, with their PIN.",
               empty="No active dealer: an operator adds one (dealer-station users add).")

    def _names(self) -> dict[str, str]:
        try:
            return {u.user_id: u.name for u in self.session.users.list()}
        except StationError:
            return {}

    def signed_by(self, signers: tuple[str, ...] | list[str],
                  names: dict[str, str] | None = None) -> str:
        """Journal actors (``dana/dealer``) as the people's names."""
        names = self._names() if names is None else names
        return " + ".join(names.get(a.partition("/")[0], a) for a in signers)

    def counts(self) -> Chips:
        """The chips typed (ChipsError, in words, for a count that is not whole chips)."""
        return chips_from_counts({d: f.text() for d, f in self.fields.items()},
                                 self.book.settings.denominations, what=self.action_name(),
                                 allow_empty=True, shown=self.book.settings.money.number)

    def action_name(self) -> str:
        return ACTIONS[self.action][0].lower()

    def update_total(self) -> None:
        money = self.book.settings.money.text
        for d, f in self.fields.items():
            typed = f.text().strip()
            self.values[d].setText(money(d * int(typed)) if typed.isascii() and
                                   typed.isdigit() else ("" if not typed else "not whole chips"))
        try:
            chips = self.counts()
        except ChipsError as exc:
            self.total.setText(str(exc))
            self.total.setStyleSheet(f"font-size: 18px; font-weight: bold; color: {theme.BAD};")
            return
        self.total.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {theme.GOLD};")
        self.total.setText(f"Total {money(chips.total)} ({chips.chip_count:,} chips)")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        self._show_signer()
        if self.config_problem is not None:
            self.message.say(self.config_problem, "bad")
            self.record_button.setEnabled(False)
        self.update_total()
        try:
            ledger = self.book.ledger()
        except StationError as exc:
            self.message.say(f"The table's accounting cannot be read: {exc}", "bad")
            return
        self._list(ledger)
        self._state(ledger)

    def _state(self, ledger: Ledger) -> None:
        """Where the tray stands: the gaming day and shift, what was counted in it, and the
        day's win."""
        money = self.book.settings.money.text
        today = self.book.today()
        day = ledger.days.get(today)
        opening = ledger.opening_count(today)
        parts = [f"Gaming day {today.isoformat()}, {self.book.shift_now()} shift."]
        if day is not None and day.opener is not None:
            parts.append(f"Opener {money(getattr(day.opener.event, 'total', 0))}.")
        elif opening is not None:
            parts.append(f"No opener yet (the last closer was "
                         f"{money(getattr(opening.event, 'total', 0))}).")
        else:
            parts.append("No opener yet.")
        if day is not None and day.shift_counts:
            parts.append("Counted at the end of " + ", ".join(day.shift_counts) + ".")
        if day is not None and day.closer is not None:
            parts.append(f"Closed: closer {money(getattr(day.closer.event, 'total', 0))}.")
        self.state.setText(" ".join(parts))
        self.win.setText(self.day_win_html(ledger))

    def day_win_html(self, ledger: Ledger) -> str:
        """The day's win: what the rounds the station settled won (as recorded at the closer,
        else summed now), and the count room's win and hold once the drop is counted."""
        money = self.book.settings.money.text
        today = self.book.today()
        day = ledger.days.get(today)
        lines = []
        played: tuple[int, int] | None = None
        if day is not None and day.play is not None:
            played = (day.play.computed_win, day.play.rounds)
        else:
            try:
                now = self.book.day_played(today)
            except StationError:
                now = None
            if now is not None:
                played = (now.computed_win, now.rounds)
        if played is not None:
            win, rounds = played
            colour = theme.GOOD if win >= 0 else theme.BAD
            lines.append(f"Day's win: <b style='color:{colour}; font-size: 24px'>"
                         f"{escape(money(win))}</b> over {rounds:,} round"
                         f"{'' if rounds == 1 else 's'} settled")
        opening = ledger.opening_count(today)
        drop = day_drop(day, [s.name for s in self.book.calendar.shifts]) \
            if day is not None else None
        if day is not None and day.closer is not None and opening is not None:
            if drop is None:
                lines.append("The count room's win follows once the drop is counted.")
            else:
                stat = statistical_win(
                    drop=drop, credits=day.credits, fills=day.fills,
                    opener=int(getattr(opening.event, "total", 0)),
                    closer=int(getattr(day.closer.event, "total", 0)))
                held = hold(stat, drop)
                lines.append(f"Count room's win: <b>{escape(money(stat))}</b>"
                             + (f", hold {float(held):.1%}" if held is not None else ""))
        return "<br>".join(lines)

    def _list(self, ledger: Ledger) -> None:
        names = self._names()
        rows: list[tuple[int, str, str, str, str, tuple[str, int, int] | None]] = []
        for (kind, year, number), s in ledger.slips.items():
            state = " VOID" if s.void is not None else ""
            rows.append((s.seq, kind.capitalize() + state, f"{year}-{number:05d}",
                         self.book.settings.money.text(s.event.total),
                         self.signed_by(s.event.signers, names), (kind, year, number)))
        for day in ledger.days.values():
            counts = [("Opener", day.opener), ("Closer", day.closer)] + [
                (f"Shift count ({name})", c) for name, c in day.shift_counts.items()]
            for label, c in counts:
                if c is not None:
                    e = c.event
                    rows.append((c.seq, label, day.gaming_day.isoformat(),
                                 self.book.settings.money.text(getattr(e, "total", 0)),
                                 self.signed_by(getattr(e, "signers", ()), names), None))
        rows.sort(key=lambda r: r[0], reverse=True)
        rows = rows[:SLIPS_SHOWN]
        self.slips.setRowCount(len(rows))
        for i, (_, *texts, key) in enumerate(rows):
            for j, text in enumerate(texts):
                item = QTableWidgetItem(text)
                if j == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight |
                                          Qt.AlignmentFlag.AlignVCenter)
                item.setData(Qt.ItemDataRole.UserRole, key)
                self.slips.setItem(i, j, item)

    # -- acting ----------------------------------------------------------------------------

    def record(self) -> None:
        """Check the counts and the dealer's signature, confirm a closer, then sign the
        dealer in and hand both signers to the table's accounting."""
        user = self.session.user
        if self.config_problem is not None:
            self.message.say(self.config_problem, "bad")
            return
        if user is None:
            self.message.say("Not done: sign in first.", "bad")
            return
        what = self.action_name()
        money = self.book.settings.money.text
        try:
            chips = self.counts()
            if chips.total == 0:
                raise ChipsError(f"{what}: no chips typed (every count is 0)")
            self.book.check(self.action, chips=chips)
            if not self.dealer_user_id:
                raise StationError(f"{what} needs the dealer's signature: choose the dealer, "
                                   f"then their PIN")
            if not self.dealer_pin.text():
                name = self._names().get(self.dealer_user_id, self.dealer_user_id)
                raise StationError(f"{what} needs {name}'s PIN")
        except StationError as exc:
            self.dealer_pin.clear()
            self.message.say(f"Not done: {exc}", "bad")
            return
        if self.action == "closer":
            day = self.book.today().isoformat()
            dealer = self._names().get(self.dealer_user_id, self.dealer_user_id)
            confirm(self.record_button, f"Record the closer of gaming day {day}?",
                    f"{money(chips.total)} ({chips.chip_count:,} chips), signed by {dealer} "
                    f"and {user.name}. The closer ends the gaming day: no fill, credit or "
                    f"other count can be added to {day} after it.",
                    "Record the closer", lambda: self._sign_and_write(chips, user),
                    danger=True)
            return
        self._sign_and_write(chips, user)

    def _sign_and_write(self, chips: Chips, user: User) -> None:
        try:
            dealer = self.session.users.authenticate(self.dealer_user_id,
                                                     self.dealer_pin.text(),
                                                     table_id=self.book.table_id)
            said = self._write(chips, dealer, user)
        except StationError as exc:
            self.dealer_pin.clear()
            self.message.say(f"Not done: {exc}", "bad")
            return
        self.dealer_pin.clear()
        self.note.clear()
        for f in self.fields.values():
            f.clear()
        self.message.say(said, "good")
        self.refresh()

    def _write(self, chips: Chips, dealer: User, supervisor: User) -> str:
        book, money = self.book, self.book.settings.money.text(chips.total)
        signed = f"signed by {dealer.name} and {supervisor.name}"
        if self.action in ("fill", "credit"):
            slip = slip_event(book.slip(self.action, chips, dealer, supervisor, number=None,
                                        note=self.note.text() or None))
            return (f"{self.action.capitalize()} slip {slip.year}-{slip.number:05d} recorded: "
                    f"{money}, {signed}.")
        if self.action == "opener":
            records = book.opener(chips, dealer, supervisor)
            opener = accounting_event(records[0], TrayOpened)
            said = f"Opener of gaming day {opener.gaming_day}: {money}, {signed}."
            for extra in records[1:]:
                difference = accounting_event(extra, TrayDifference).difference
                said += (f" EXCEPTION: it differs from the previous closer by "
                         f"{book.settings.money.text(difference)}.")
            return said
        if self.action == "shift-count":
            counted = accounting_event(book.shift_count(chips, dealer, supervisor),
                                       TrayShiftCounted)
            return f"Shift count at the end of the {counted.shift} shift: {money}, {signed}."
        closer = accounting_event(book.closer(chips, dealer, supervisor), TrayClosed)
        return f"Closer of gaming day {closer.gaming_day}: {money}, {signed}."

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
            said = f"{built.title} {year}-{number:05d} saved as {built.path}"
            if self.printer:
                from dealer_station.reports.printing import print_pdf

                said += "; " + print_pdf(built.path, self.printer, title=built.title)
        except StationError as exc:
            self.message.say(f"Not printed: {exc}", "bad")
            return None
        self.message.say(said, "good")
        return built.path


def _configured_printer() -> str:
    from dealer_station.reports.printing import load_print_settings

    try:
        return load_print_settings().printer
    except StationError:
        return ""


__all__ = ["ACTIONS", "ChipsPanel"]
