"""The supervisor's Chips tab: the table's tray counts and slips, entered at the table.

Opener, shift count, closer, fill and credit: the chips counted by denomination (one large
field per configured denomination; touched, it opens the keypad, and *Next ›* goes on to the
next chip; the total shows as money as it is typed), signed by the signed-in supervisor and
the dealer, who is chosen by name and types their PIN on the PIN pad. Nothing needs a
keyboard. A closer is confirmed on a sheet before it is recorded: it closes the gaming day.

Fills and credits follow the jurisdiction (``[cage]`` of the accounting settings):

- through the cage (the default, as MICS describes it): the supervisor *requests* the chips
  (counted the same way, signed by the signed-in supervisor); the table's requests are listed
  with their state, and one not received within ``alert_minutes`` is in the alert colour with
  how long it has waited. When the chips come (in transit with security, or issued where
  there is no runner), *Receive* turns the form into the receipt: the dealer counts what
  arrived, each count beside the slip's, and the dealer and the supervisor sign (the
  jurisdiction's receipt signers); counts that differ from the slip are refused in words.
  *Void* voids a request at any step, or a received slip: a reason, then the two void
  signers (default a supervisor and a cage cashier, who comes to the table), each choosing
  their name and typing their PIN (``chips_signing``, ``chips_requests``);
- signed at the table in one step (no cage signature): the fill or credit is recorded at once
  with the dealer's and the supervisor's signatures, and a void takes the jurisdiction's two
  void signers.

The screen decides no rule: it hands the counts and the signers to the table's accounting
(``dealer_station/table/accounting.py``) and the cage's desk (``table/cage.py``) and shows
their answer, a refusal in words. Beside the form: the gaming day and shift, what was counted
in it, and the day's win (what the rounds the station settled won, and once the drop is
counted, the count room's win and hold). The last slips are listed with their numbers and
signers' names; one is printed on the station's printer when one is set, else saved as a PDF.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from dealer_station.accounting.chips import Chips, ChipsError, chips_from_counts
from dealer_station.accounting.ledger import Ledger
from dealer_station.accounting.requests import Request, slip_label
from dealer_station.accounting.settings import AccountingSettings
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
from dealer_station.reports.printing import configured_printer
from dealer_station.table.accounting import TableAccounting, accounting_event, slip_event
from dealer_station.table.cage import CageDesk
from dealer_station.ui import theme
from dealer_station.ui.chips_cage import CageSteps, VoidTarget, cage_words
from dealer_station.ui.chips_requests import (
    RequestsBox,
    listed,
    request_detail,
    row_of,
    without_zeros,
)
from dealer_station.ui.chips_signing import (
    SignerRow,
    names_of,
    people_for,
    role_words,
    signed_in,
)
from dealer_station.ui.chips_slips import SlipsList
from dealer_station.ui.chips_state import day_win_html, signed_by, tray_state
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.session import SignInSession
from dealer_station.ui.touch_fields import TouchLineEdit, TouchNumberField, TouchPinField
from dealer_station.ui.touch_sheet import confirm

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
FIELD_PX = 26
#: A count's field: a fingertip's height, five of them above the signature.
COUNT_PX = 46
#: The form's width (the counts, the total, the signatures).
ENTRY_PX = 420
#: The requests are read again this often while the tab shows (the cage issues, security
#: carries, at their own screens).
REFRESH_MS = 10_000


class ChipsPanel(CageSteps, SlipsList, QWidget):
    """The Chips tab of the supervisor's screen (see the module)."""

    def __init__(self, journal: Journal, table_id: str, session: SignInSession, *,
                 settings: AccountingSettings | None = None,
                 calendar: GamingCalendar | None = None, printer: str | None = None,
                 slips_dir: Path | None = None, parent: QWidget | None = None) -> None:
        QWidget.__init__(self, parent)
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
        self.desk = CageDesk(self.book)
        self.cage = settings.cage
        #: Fills and credits are requested and received (else signed here in one step).
        self.through_cage = self.cage.through_cage
        self.receiving: Request | None = None
        self.printer = printer if printer is not None else configured_printer()
        self.slips_dir = slips_dir or Path.cwd() / "slips"
        self.action = "fill"
        outer = QVBoxLayout(self)
        outer.setContentsMargins(12, 8, 12, 8)
        outer.setSpacing(6)
        outer.addLayout(self._build_top())
        columns = QHBoxLayout()
        columns.setSpacing(14)
        # The form keeps its width whatever it shows (a count, a request, a receipt); the
        # lists take the rest.
        entry = QWidget()
        entry.setFixedWidth(ENTRY_PX)
        entry.setLayout(self._build_entry())
        columns.addWidget(entry)
        columns.addLayout(self._build_side(), 1)
        outer.addLayout(columns, 1)
        self.choose("fill")
        session.user_changed.connect(lambda _u: self.show_signer())
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self._tick)
        if self.through_cage:
            self.timer.start()

    # -- building --------------------------------------------------------------------------

    def _build_top(self) -> QHBoxLayout:
        """What is counted (the actions), and where the tray stands in the gaming day."""
        row = QHBoxLayout()
        row.setSpacing(8)
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
        row.addSpacing(10)
        where = QVBoxLayout()
        where.setSpacing(0)
        self.state = QLabel("")
        self.state.setWordWrap(True)
        self.state.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.state.setStyleSheet(f"color: {theme.GOLD}; font-size: 18px;")
        where.addWidget(self.state)
        self.win = QLabel("")
        self.win.setWordWrap(True)
        self.win.setTextFormat(Qt.TextFormat.RichText)
        self.win.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.win.setStyleSheet("font-size: 18px;")
        where.addWidget(self.win)
        row.addLayout(where, 1)
        return row

    def _build_entry(self) -> QVBoxLayout:
        col = QVBoxLayout()
        col.setContentsMargins(0, 0, 0, 0)
        # Tight: the tab's height must leave the stop banner room above it at 1280x800 (what
        # the form is for is said beside it, over the message).
        col.setSpacing(3)
        chips = QGridLayout()
        chips.setHorizontalSpacing(10)
        chips.setVerticalSpacing(2)
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
            chips.addWidget(value, i, 2, alignment=Qt.AlignmentFlag.AlignLeft)
            self.fields[denom], self.values[denom] = field, value
        chips.setColumnStretch(2, 1)
        col.addLayout(chips)
        self.total = QLabel("")
        self.total.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {theme.GOLD};")
        self.total.setWordWrap(True)
        self.total.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.total)
        self.note = TouchLineEdit("A note for the slip",
                                  placeholder="Note (e.g. tray low on 25.00 chips)",
                                  max_length=120)
        self.note.setAccessibleName("Note")
        col.addWidget(self.note)
        col.addStretch(1)
        # Who signs: the signed-in supervisor (said here), and the dealer (and whoever else
        # the jurisdiction's receipt needs), each by name and their PIN on the pad.
        self.signer = QLabel("")
        self.signer.setWordWrap(True)
        self.signer.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.signer)
        sign = QGridLayout()
        sign.setHorizontalSpacing(8)
        sign.setVerticalSpacing(6)
        others = self.receipt_slots()[1] if self.through_cage else []
        self.signers = [SignerRow(self.session.users, slot, self, self.record)
                        for slot in (others if len(others) > 1 else ["dealer"])]
        for i, signer in enumerate(self.signers):
            sign.addWidget(signer.button, i, 0)
            sign.addWidget(signer.pin, i, 1)
        self.record_button = QPushButton("Record")
        self.record_button.setObjectName("primary")
        self.record_button.setMinimumHeight(theme.TOUCH_PX)
        self.record_button.clicked.connect(self.record)
        sign.addWidget(self.record_button, 0, 2, len(self.signers), 1)
        sign.setColumnStretch(0, 3)
        sign.setColumnStretch(2, 4)
        col.addLayout(sign)
        return col

    def _build_side(self) -> QVBoxLayout:
        col = QVBoxLayout()
        col.setSpacing(6)
        self.what = QLabel("")
        self.what.setObjectName("muted")
        self.what.setWordWrap(True)
        self.what.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.what)
        self.message = MessageLabel()
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.message)
        self.requests = RequestsBox()
        self.requests.receive_button.clicked.connect(lambda: self.start_receipt())
        self.requests.void_button.clicked.connect(lambda: self.void_request())
        # A row touched is told whole (the lists show one line of each).
        self.requests.table.cellClicked.connect(lambda _r, _c: self.tell_request())
        self.requests.setVisible(self.through_cage)
        col.addWidget(self.requests, 5)
        box = self.build_slips(beside=self.through_cage)
        col.addWidget(box, 2 if self.through_cage else 1)
        return col

    # -- the signature on the form (the dealer's, as the form has always had) --------------

    @property
    def dealer_button(self) -> QPushButton:
        return self.signers[0].button

    @property
    def dealer_pin(self) -> TouchPinField:
        return self.signers[0].pin

    @property
    def dealer_user_id(self) -> str:
        return self.signers[0].user_id

    def set_dealer(self, user_id: str) -> None:
        """The person who signs the form's first signature (the dealer; by user id)."""
        self.signers[0].set_user(user_id)

    def choose_dealer(self) -> None:
        self.signers[0].choose()

    def dealers(self) -> list[User]:
        """The active dealers, by name: who may sign the dealer's signature."""
        return people_for(self.session.users, "dealer")

    # -- state -----------------------------------------------------------------------------

    def choose(self, action: str) -> None:
        self.receiving = None
        self.action = action
        _, what, button = ACTIONS[action]
        if self.requesting():
            what, button = cage_words(action, self.cage)
        self.action_buttons[action].setChecked(True)
        self.what.setText(what)
        self.what.setStyleSheet("")
        # Beside a signature, the button's words on two lines ("Record the / shift count").
        self.record_button.setText(button if self.requesting() else
                                   button.replace(" the ", " the\n", 1))
        self.note.setVisible(action in ("fill", "credit"))
        self.sign_with([] if self.requesting() else ["dealer"])
        self.show_signer()
        self.update_total()

    def requesting(self) -> bool:
        return self.action in ("fill", "credit") and self.through_cage

    def sign_with(self, slots: list[str]) -> None:
        """The form's signatures besides the signed-in supervisor's: one row per slot."""
        for i, signer in enumerate(self.signers):
            shown = i < len(slots)
            if shown:
                signer.set_slot(slots[i])
            signer.button.setVisible(shown)
            signer.pin.setVisible(shown)

    def show_signer(self) -> None:
        user = self.session.user
        if user is None:
            self.signer.setText("Sign in as a supervisor first.")
        elif self.requesting():
            self.signer.setText(f"You request as {user.name}.")
        elif self.receiving is not None:
            others = self.receipt_slots(user.role)[1]
            them = " and ".join(f"the {role_words(s)}" for s in others)
            self.signer.setText(f"You sign the receipt as {user.name}; {them} sign"
                                f"{'s' if len(others) == 1 else ''} too: name, then PIN.")
        else:
            self.signer.setText(f"You sign as {user.name}; the dealer counting with you signs "
                                f"second: name, then PIN.")
        dealer = self.session.dealer
        first = self.signers[0]
        if dealer is not None and not first.user_id and first.slot == "dealer":
            first.set_user(dealer.user_id)

    def _names(self) -> dict[str, str]:
        return names_of(self.session.users)

    def signed_by(self, signers: tuple[str, ...] | list[str],
                  names: dict[str, str] | None = None) -> str:
        """Journal actors (``dana/dealer``) as the people's names."""
        return signed_by(signers, self._names() if names is None else names)

    def counts(self) -> Chips:
        """The chips typed (ChipsError, in words, for a count that is not whole chips)."""
        return chips_from_counts({d: f.text() for d, f in self.fields.items()},
                                 self.book.settings.denominations, what=self.action_name(),
                                 allow_empty=True, shown=self.book.settings.money.number)

    def action_name(self) -> str:
        if self.action == "receive":
            return "the receipt"
        name = ACTIONS[self.action][0].lower()
        return f"{name} request" if self.requesting() else name

    def update_total(self) -> None:
        money = self.book.settings.money.text
        issue = self.receiving.issue if self.receiving is not None else None
        slip = Chips.from_payload(issue.chips) if issue is not None else None
        for d, f in self.fields.items():
            typed = f.text().strip()
            whole = typed.isascii() and typed.isdigit()
            text = money(d * int(typed)) if whole else ("" if not typed else "not whole chips")
            colour = theme.TEXT if whole or not typed else theme.BAD
            if slip is not None:          # the receipt: each count beside the slip's
                wanted = slip.count(d)
                if not typed:
                    text, colour = (f"slip: {wanted}" if wanted else ""), theme.MUTED
                elif whole and int(typed) == wanted:
                    text += " ✓"
                elif whole:
                    text, colour = f"slip: {wanted}", theme.BAD
            self.values[d].setText(text)
            self.values[d].setStyleSheet(f"font-size: 19px; color: {colour};")
        try:
            chips = self.counts()
        except ChipsError as exc:
            self.total.setText(str(exc))
            self.total.setStyleSheet(f"font-size: 18px; font-weight: bold; color: {theme.BAD};")
            return
        self.total.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {theme.GOLD};")
        if slip is not None and chips.total and without_zeros(chips) != slip:
            self.total.setStyleSheet(f"font-size: 24px; font-weight: bold; color: {theme.BAD};")
        self.total.setText(f"Total {money(chips.total)} ({chips.chip_count:,} chips)")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        self.show_signer()
        if self.config_problem is not None:
            self.message.say(self.config_problem, "bad")
            self.record_button.setEnabled(False)
        self.update_total()
        try:
            ledger = self.book.ledger()
        except StationError as exc:
            self.message.say(f"The table's accounting cannot be read: {exc}", "bad")
            return
        self.list_slips(ledger)
        self.state.setText(tray_state(self.book, ledger))
        self.win.setText(day_win_html(self.book, ledger))
        self._list_requests(ledger)

    def day_win_html(self, ledger: Ledger) -> str:
        return day_win_html(self.book, ledger)

    def _tick(self) -> None:
        if self.isVisible():
            self.refresh_requests()

    def refresh_requests(self) -> None:
        """Read the requests again (the cage and security move them on at their screens)."""
        try:
            self._list_requests(self.book.ledger())
        except StationError as exc:
            self.message.say(f"The table's accounting cannot be read: {exc}", "bad")

    def _list_requests(self, ledger: Ledger) -> None:
        if self.through_cage:
            now, money = self.book.now(), self.book.settings.money.text
            self.requests.show_rows([row_of(r, now, self.cage.alert_minutes, money)
                                     for r in listed(list(ledger.requests.values()))])

    def tell_request(self) -> None:
        """The selected request's story in the message line: each step, when, by whom."""
        req = self.selected_request()
        if req is not None:
            money = self.book.settings.money
            self.message.say(request_detail(req, self._names(), money.text, money.number),
                             "info")

    # -- acting ----------------------------------------------------------------------------

    def record(self) -> None:
        """Check the counts and the signatures, confirm a closer, then sign the signers in
        and hand them to the table's accounting (or the cage's desk: a request, a
        receipt)."""
        user = self.session.user
        if self.config_problem is not None:
            self.message.say(self.config_problem, "bad")
            return
        if user is None:
            self.message.say("Not done: sign in first.", "bad")
            return
        if self.action == "receive":
            self.receive(user)
            return
        if self.requesting():
            self.request(user)
            return
        what = self.action_name()
        money = self.book.settings.money.text
        try:
            chips = self.counts()
            if chips.total == 0:
                raise ChipsError(f"{what}: no chips typed (every count is 0)")
            self.book.check(self.action, chips=chips)
            self.signers[0].given(what)
        except StationError as exc:
            self.dealer_pin.clear()
            self.message.say(f"Not done: {exc}", "bad")
            return
        if self.action == "closer":
            day = self.book.today().isoformat()
            confirm(self.record_button, f"Record the closer of gaming day {day}?",
                    f"{money(chips.total)} ({chips.chip_count:,} chips), signed by "
                    f"{self.signers[0].name()} and {user.name}. The closer ends the gaming "
                    f"day: no fill, credit or other count can be added to {day} after it.",
                    "Record the closer", lambda: self._sign_and_write(chips, user),
                    danger=True)
            return
        self._sign_and_write(chips, user)

    def done(self, said: str) -> None:
        """A step recorded: the form emptied, the answer said, the lists read again."""
        for signer in self.signers:
            signer.pin.clear()
        self.note.clear()
        for f in self.fields.values():
            f.clear()
        self.message.say(said, "good")
        self.refresh()

    def _sign_and_write(self, chips: Chips, user: User) -> None:
        what = self.action_name()
        try:
            (dealer,) = signed_in(self.session.users, [self.signers[0].given(what)],
                                  self.book.table_id, f"the {what}", present=[user])
            said = self._write(chips, dealer, user)
        except StationError as exc:
            self.dealer_pin.clear()
            self.message.say(f"Not done: {exc}", "bad")
            return
        self.done(said)

    def _write(self, chips: Chips, dealer: User, supervisor: User) -> str:
        book, money = self.book, self.book.settings.money.text(chips.total)
        signed = f"signed by {dealer.name} and {supervisor.name}"
        if self.action in ("fill", "credit"):
            slip = slip_event(book.slip(self.action, chips, dealer, supervisor, number=None,
                                        note=self.note.text() or None))
            return (f"{self.action.capitalize()} slip "
                    f"{slip_label(book.table_id, self.action, slip.year, slip.number)} "
                    f"recorded: {money}, {signed}.")
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


__all__ = ["ACTIONS", "ChipsPanel", "VoidTarget", "cage_words"]
