"""The supervisor's screen: act on the round (resume, correct a card, void), and look back
(game recall, significant events, meters, verifying the journal).

Every action goes to the table service with the signed-in user and a reason; the service
checks the role and records who did what and why. The screen only shows the answer.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dealer_station import registry as games
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User
from dealer_station.audit.whole_check import check_everything
from dealer_station.errors import StationError
from dealer_station.events.table import CardHeld, ProtectionAlerted, device_name, fault_words
from dealer_station.money import Money
from dealer_station.table.base import CORRECTABLE_FAULTS, TableService, TableView, Update
from dealer_station.table.capabilities import CarriesPots
from dealer_station.ui import theme
from dealer_station.ui.card_picker import CardPicker
from dealer_station.ui.chips_panel import ChipsPanel
from dealer_station.ui.events_tab import EventsTab
from dealer_station.ui.formatting import card_text, read_card_text
from dealer_station.ui.lockouts import LockoutsPanel
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.models import MetersModel, RecallModel, RowsModel
from dealer_station.ui.protection_tab import ProtectionTab
from dealer_station.ui.reasons import ask_reason
from dealer_station.ui.recall_view import recall_html
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents

if TYPE_CHECKING:
    from dealer_station.integrity import IntegrityGate

RECALL_ROUNDS = 20
#: While cards keep being read and held, the round panel is drawn again at most once a frame.
HELD_FRAME_MS = 100
#: The Protection tab's title (it counts the alerts not opened yet after it).
PROTECTION = "Protection"


def table_view(model: RowsModel[Any], stretch: int | None = None) -> QTableView:
    view = QTableView()
    view.setModel(model)
    view.setAlternatingRowColors(True)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(34)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if stretch is not None:
        header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    else:
        header.setStretchLastSection(True)
    return view


class SupervisorScreen(QWidget):
    def __init__(self, table: TableService, events: TableEvents, session: SignInSession,
                 journal: Journal, parent: QWidget | None = None, *,
                 integrity: IntegrityGate | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.session = session
        self.journal = journal
        self.integrity = integrity
        self.tabs = QTabWidget()
        col = QVBoxLayout(self)
        col.setContentsMargins(10, 8, 10, 8)
        col.addWidget(self.tabs)
        self._build_round_tab()
        self._build_recall_tab()
        # The significant events, in words (ui/events_tab.py).
        self.events_tab = EventsTab(journal, table.table_id)
        self.tabs.addTab(self.events_tab, "Events")
        self._build_meters_tab()
        self._build_verify_tab()
        # The table's tray and slips, signed by the supervisor and the dealer.
        self.chips = ChipsPanel(journal, table.table_id, session)
        self.tabs.addTab(self.chips, "Chips")
        # Users locked out after wrong PINs, and the unlock (journaled, with a reason).
        self.lockouts = LockoutsPanel(session)
        self.tabs.addTab(self.lockouts, "Lockouts")
        # The game-protection monitor's alerts of the day, each with its evidence.
        self.protection = ProtectionTab(journal, table.table_id, table.money)
        self.protection.seen.connect(self._title_protection)
        self.tabs.addTab(self.protection, PROTECTION)
        # The cards read and held since the halt at record ``_held_since``, kept as they come
        # (read from the journal once a halt, then taken from each update's typed events):
        # a station flooded with held cards must not read every one of them again each card.
        self._held_since: int | None = None
        self._held: list[str] = []
        self._held_last = -1
        # An update that only adds held cards is drawn at once, or (within a frame of the last
        # drawing) with the frame's last view at its end: the list of held cards grows with
        # each, and a flood of them must not draw it again for every card.
        self._frame = QTimer(self)
        self._frame.setSingleShot(True)
        self._frame.setInterval(HELD_FRAME_MS)
        self._frame.timeout.connect(self._end_frame)
        self._pending: TableView | None = None
        self.tabs.currentChanged.connect(lambda _i: self.refresh_current())
        events.listen(self.on_change)
        self.refresh_round()

    # -- round actions ---------------------------------------------------------------------

    def _build_round_tab(self) -> None:
        # Two columns that fit the 1280x800 screen under a stop banner: what happened and the
        # actions on the left (each asks its reason on a sheet); the card picker, every rank
        # and suit in sight, on the right.
        page = QWidget()
        grid = QGridLayout(page)
        grid.setContentsMargins(12, 10, 12, 10)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(8)
        left = QVBoxLayout()
        left.setSpacing(8)
        self.round_state = QLabel("")
        self.round_state.setWordWrap(True)
        self.round_state.setTextFormat(Qt.TextFormat.RichText)
        self.round_state.setStyleSheet("font-size: 18px;")
        self.round_state.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        left.addWidget(self.round_state)

        buttons = QHBoxLayout()
        self.resume_button = QPushButton("Resume — the fault is resolved")
        self.resume_button.setObjectName("primary")
        self.resume_button.clicked.connect(lambda: self.resume())
        buttons.addWidget(self.resume_button, 3)
        self.void_button = QPushButton(f"Void the {games.game(self.table.game).unit}")
        self.void_button.setObjectName("danger")
        self.void_button.clicked.connect(lambda: self.void())
        buttons.addWidget(self.void_button, 2)
        left.addLayout(buttons)
        note = QLabel("Each button asks why: touch a reason, or Other… to type one. Voiding "
                      "returns every wager not yet settled; settled cards stand.")
        note.setObjectName("muted")
        note.setWordWrap(True)
        left.addWidget(note)
        # A pot game's closed session may leave chips in the pot: they open the next session
        # unless a supervisor gives them back (shown only while such a pot waits).
        self.pot_button = QPushButton("Return the carried pot to the players")
        self.pot_button.clicked.connect(lambda: self.return_pot())
        self.pot_button.hide()
        left.addWidget(self.pot_button)

        self.message = MessageLabel()
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        left.addWidget(self.message)
        left.addStretch(1)
        grid.addLayout(left, 0, 0)

        fix = QGroupBox("Correct a misread card")
        fcol = QVBoxLayout(fix)
        self.picker = CardPicker(jokers=games.game(self.table.game).deck.jokers > 0)
        fcol.addWidget(self.picker)
        self.correct_button = QPushButton("Enter the card actually dealt")
        self.correct_button.clicked.connect(lambda: self.correct())
        fcol.addWidget(self.correct_button)
        fcol.addStretch(1)
        grid.addWidget(fix, 0, 1, Qt.AlignmentFlag.AlignTop)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        self.tabs.addTab(page, "Round")

    def _say(self, text: str, tone: str) -> None:
        self.message.say(text, tone)

    def _user(self) -> User | None:
        user = self.session.user
        if user is None:
            self._say("Sign in first.", "bad")
        return user

    def _act(self, what: str, action: Any, reason: str) -> bool:
        """Do ``action(user, reason)``; say what came of it. True when it was done."""
        user = self._user()
        if user is None:
            return False
        try:
            action(user, reason)
        except StationError as exc:
            self._say(f"Not done: {exc}", "bad")
            return False
        except ValueError as exc:  # a card the round cannot take
            self._say(f"Not done: {exc}", "bad")
            return False
        self._say(f"{what}. Recorded as {user.name}: {reason.strip()}", "good")
        self.refresh_round()
        return True

    def _ask(self, action: str, anchor: QWidget, title: str, then: Any,
             note: str = "") -> None:
        """Ask why (the operator's reasons, or one typed), then ``then(reason)``."""
        if self._user() is None:
            return
        self.message.hide()
        ask_reason(anchor, action, title, then, note=note)

    def _round_words(self) -> str:
        unit = games.game(self.table.game).unit
        n = self.table.view().round_no
        return f"{unit} {n}" if n is not None else f"the {unit}"

    def resume(self, reason: str | None = None) -> None:
        """Resume the stopped round: asks the reason first (``reason`` given: at once). A
        device that still reports a fault is said at once, before any reason is asked."""
        if reason is None:
            now = self.table.view()
            blockers = list(now.blockers) if now.halt else []
            if blockers:
                self._say("Not done: cannot resume yet: " + "; ".join(blockers)
                          + ". Clear it first, or void the round.", "bad")
                return
            self._ask("resume", self.resume_button, f"Resume {self._round_words()}: why?",
                      self.resume)
            return
        self._act("Round resumed", self.table.resume, reason)

    def void(self, reason: str | None = None) -> None:
        unit = games.game(self.table.game).unit
        if reason is None:
            self._ask("void", self.void_button, f"Void {self._round_words()}: why?", self.void,
                      note="Every wager not yet settled goes back; settled cards stand.")
            return
        self._act(f"{unit.capitalize()} voided", self.table.void, reason)

    def return_pot(self, reason: str | None = None) -> None:
        table = self.table
        if not isinstance(table, CarriesPots):
            return
        give_back = table.return_pot
        if reason is None:
            self._ask("return_pot", self.pot_button,
                      "Return the carried pot to the players: why?", self.return_pot)
            return
        self._act("Pot returned to the players", lambda user, why: give_back(user, why),
                  reason)

    def correct(self, reason: str | None = None) -> None:
        problem = self.picker.card_error()
        if problem is not None:
            self._say(f"Not done: {problem}", "bad")
            return
        code = self.picker.code
        if reason is None:
            self._ask("correction", self.correct_button,
                      f"Enter {card_text(code)} as the card dealt: why?", self.correct)
            return
        if self._act(f"Card {card_text(code)} entered",
                     lambda user, why: self.table.correct_card(user, code, why), reason):
            self.picker.clear()

    def refresh_round(self, view: TableView | None = None) -> None:
        self._pending = None
        self._frame.start()
        t = self.table
        unit = games.game(t.game).unit
        if view is None:
            view = t.view()
        halt, round_no, detail = view.halt, view.round_no, view.summary
        lines = [f"<b>{unit.capitalize()} {round_no}</b> · {escape(detail)}"
                 if round_no is not None else f"<b>No {unit} is open.</b>"]
        if halt is not None:
            # The fault in words, then the halt's own reason as journaled.
            cause = fault_words(halt.fault, halt.device)
            lines.append(f"<span style='color:{theme.BAD}'><b>Stopped:</b> {escape(cause)}"
                         f"</span>" + ("" if cause in halt.reason else
                                       f" — {escape(halt.reason)}"))
            if halt.card:
                lines.append(f"Card read: <b>{escape(halt.card)}</b>")
            if halt.device_id or halt.said:
                # The device's own words and id, in small print.
                said = f"{device_name(halt.device)}" + (
                    f" · id {halt.device_id}" if halt.device_id else "") + (
                    f" · it said: {halt.said}" if halt.said else "")
                lines.append(f"<span style='color:{theme.MUTED}; font-size: 18px'>"
                             f"{escape(said)}</span>")
            held = self._held_cards(halt.seq)
            if held:
                lines.append(f"<b>Read while stopped, not taken:</b> {escape(', '.join(held))}")
            blockers = view.blockers
            if blockers:
                lines.append(f"<span style='color:{theme.WARN}'><b>Before resuming:</b> "
                             f"{escape('; '.join(blockers))}.</span>")
            lines.append(f"<b>What to do:</b> {escape(halt.remedy)}")
        else:
            lines.append(f"<span style='color:{theme.GOOD}'>Not stopped: nothing to resume."
                         f"</span>")
        # Resume only what is stopped; void only what is open; correct only a card the
        # shoe could not read (or read while nobody was signed in).
        self.resume_button.setEnabled(halt is not None)
        self.void_button.setEnabled(round_no is not None)
        self.correct_button.setEnabled(halt is not None and halt.fault in CORRECTABLE_FAULTS)
        waiting = t.waiting_pot() if isinstance(t, CarriesPots) else None
        if waiting is not None:
            lines.append(f"<b>Pot carried from the last session:</b> {waiting:,} chips. It "
                         f"opens the next session unless a supervisor returns it to the "
                         f"players.")
        self.pot_button.setVisible(waiting is not None)
        self.round_state.setText("<br>".join(lines))

    def _held_cards(self, since: int) -> list[str]:
        """The cards read and held (not taken) since the halt at record ``since``: read from
        the journal once for a halt, then kept from the updates (:meth:`_keep_held`)."""
        if self._held_since != since:
            try:
                records = list(self.journal.records(self.table.table_id, from_seq=since,
                                                    kinds=[CardHeld.KIND]))
                cards = [read_card_text(self.table.codec.decode_as(CardHeld, r.seq, r.kind,
                                                                   r.payload).card)
                         for r in records]
            except Exception:   # the panel still shows the halt if the journal cannot be read
                return []
            self._held_since, self._held = since, cards
            self._held_last = records[-1].seq if records else since
        return self._held

    def _keep_held(self, update: Update) -> None:
        """Add the update's held cards to those kept since the halt. An update queued before
        the journal was read carries records already read (their seq is not past the last)."""
        if self._held_since is None:
            return
        for c in update.events:
            if isinstance(c.event, CardHeld) and c.seq > self._held_last:
                self._held.append(read_card_text(c.event.card))
                self._held_last = c.seq

    # -- recall ----------------------------------------------------------------------------

    def _money(self) -> Money:
        return self.table.money

    def _build_recall_tab(self) -> None:
        page = QWidget()
        col = QVBoxLayout(page)
        bar = QHBoxLayout()
        bar.addWidget(QLabel(f"The last {RECALL_ROUNDS} rounds, from the journal"))
        bar.addStretch(1)
        b = QPushButton("Refresh")
        b.setObjectName("nav")
        b.clicked.connect(self.refresh_recall)
        bar.addWidget(b)
        col.addLayout(bar)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.recall_model = RecallModel(self._money(), self)
        self.recall_view = table_view(self.recall_model, RecallModel.CARDS)
        self.recall_view.hideColumn(RecallModel.ENDED)
        self.recall_view.hideColumn(RecallModel.DEALER)   # in the detail, beside it
        self.recall_view.selectionModel().currentRowChanged.connect(
            lambda cur, _prev: self.show_recalled(cur.row()))
        split.addWidget(self.recall_view)
        self.recall_detail = QTextBrowser()
        split.addWidget(self.recall_detail)
        split.setSizes([470, 760])
        col.addWidget(split, 1)
        self.tabs.addTab(page, "Recall")

    def refresh_recall(self) -> None:
        from dealer_station.table.recall import recall

        try:
            rounds = recall(self.journal, self.table.table_id, RECALL_ROUNDS)
        except Exception as exc:  # a journal that cannot be read is shown, not raised
            self.recall_detail.setHtml(f"<p style='color:{theme.BAD}'>Recall failed: "
                                       f"{escape(str(exc))}</p>")
            return
        self.recall_model.money = self._money()
        self.recall_model.set_rows(rounds)
        if rounds:
            self.recall_view.selectRow(0)
            self.show_recalled(0)
        else:
            self.recall_detail.setHtml("<p>No rounds recorded yet.</p>")

    def show_recalled(self, row: int) -> None:
        if 0 <= row < len(self.recall_model.rows):
            self.recall_detail.setHtml(recall_html(self.recall_model.rows[row], self._money()))

    # -- meters, verify ------------------------------------------------------------

    def _build_meters_tab(self) -> None:
        page = QWidget()
        col = QVBoxLayout(page)
        bar = QHBoxLayout()
        bar.addWidget(QLabel("Meters of this table (settled and voided rounds)"))
        bar.addStretch(1)
        b = QPushButton("Refresh")
        b.setObjectName("nav")
        b.clicked.connect(self.refresh_meters)
        bar.addWidget(b)
        col.addLayout(bar)
        self.meters_model = MetersModel(self._money(), self,
                                        banked=games.game(self.table.game).banked)
        col.addWidget(table_view(self.meters_model), 1)
        self.tabs.addTab(page, "Meters")

    def refresh_meters(self) -> None:
        self.meters_model.money = self._money()
        # The meters as the chain sums them (from the newest checkpoint that carries them),
        # never the stored meters table, which anyone with the database could edit.
        meters = self.journal.proven_state(self.table.table_id, since_checkpoint=True).meters
        self.meters_model.set_rows(sorted(meters.values(),
                                          key=lambda m: (m.meter != "total", m.meter)))

    def _build_verify_tab(self) -> None:
        page = QWidget()
        col = QVBoxLayout(page)
        intro = QLabel("Walk the hash chain of every table in this journal and check its "
                       "checkpoints. The result is recorded in the journal with your name.")
        intro.setWordWrap(True)
        col.addWidget(intro)
        self.verify_button = QPushButton("Verify the journal")
        self.verify_button.setObjectName("primary")
        self.verify_button.clicked.connect(self.verify)
        row = QHBoxLayout()
        row.addWidget(self.verify_button)
        row.addStretch(1)
        col.addLayout(row)
        self.verify_result = QLabel("")
        self.verify_result.setWordWrap(True)
        self.verify_result.setTextFormat(Qt.TextFormat.RichText)
        self.verify_result.setStyleSheet("font-size: 19px;")
        col.addWidget(self.verify_result)
        software = QGroupBox("Software (checked at every start against the build's manifest)")
        scol = QVBoxLayout(software)
        self.software_label = QLabel(software_html(self.integrity))
        self.software_label.setWordWrap(True)
        self.software_label.setTextFormat(Qt.TextFormat.RichText)
        self.software_label.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse)
        scol.addWidget(self.software_label)
        col.addWidget(software)
        col.addStretch(1)
        self.tabs.addTab(page, "Verify")

    def verify(self) -> None:
        user = self.session.user
        if user is None:
            self.verify_result.setText("Sign in first.")
            return
        # The same findings as `audit verify`: chains, anchors, projections and users.
        check = check_everything(self.journal)
        lines = []
        for f in check.findings:
            colour = theme.GOOD if f.ok and not f.warning else theme.BAD
            lines.append(f"<span style='color:{colour}'>{'✔' if f.ok else '✘'}</span> "
                         f"{escape(str(f))}")
        self.table.record_verification(check, user)
        ok = check.ok
        head = ("<b>The journal is intact.</b>" if ok else
                f"<b style='color:{theme.BAD}'>The journal, or a table the station acts on, "
                f"has been altered: see below. Call the operator and keep this station's "
                f"database as it is.</b>")
        self.verify_result.setText(head + "<br>" + "<br>".join(lines))

    # -- following -------------------------------------------------------------------------

    def on_change(self, update: Update) -> None:
        self._keep_held(update)
        # Every change of play may change the round panel (a Bourré hand moves on with each
        # decision, draw and card); the devices' and the clock's news cannot.
        # While stopped, a device's news changes what must be cleared before resuming.
        if any(not c.kind.startswith(("device.", "clock.")) for c in update.events) or (
                update.view.halt is not None and update.events):
            if self._frame.isActive() and all(isinstance(c.event, CardHeld)
                                              for c in update.events):
                self._pending = update.view       # drawn at the frame's end
            else:
                self.refresh_round(update.view)
        if any(c.event.CLOSES for c in update.events) and self.isVisible():
            self.refresh_current()
        alerts = [c for c in update.events if isinstance(c.event, ProtectionAlerted)]
        if alerts:
            self.protection.unseen |= {c.seq for c in alerts}
            last = alerts[-1].event
            assert isinstance(last, ProtectionAlerted)
            self._say(f"Game protection: {last.alert_text('', '')} — see the Protection "
                      f"tab", "bad")
            self.protection.refresh()
            self._title_protection()

    def _end_frame(self) -> None:
        if self._pending is not None:
            self.refresh_round(self._pending)

    def _title_protection(self) -> None:
        """The Protection tab's title counts the alerts not opened yet."""
        n = len(self.protection.unseen)
        i = self.tabs.indexOf(self.protection)
        self.tabs.setTabText(i, f"{PROTECTION} ({n} new)" if n else PROTECTION)
        self.tabs.tabBar().setTabTextColor(i, QColor(theme.BAD if n else theme.TEXT))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh_round()
        self.refresh_current()

    def refresh_current(self) -> None:
        self.software_label.setText(software_html(self.integrity))
        page = self.tabs.tabText(self.tabs.currentIndex())
        if page == "Recall":
            self.refresh_recall()
        elif page == "Events":
            self.events_tab.refresh()
        elif page == "Meters":
            self.refresh_meters()
        elif page == "Chips":
            self.chips.refresh()
        elif page.startswith(PROTECTION):
            self.protection.refresh()


def software_html(gate: IntegrityGate | None) -> str:
    """The start-up software check for the supervisor: the overall hash a regulator compares
    with the approved build's."""
    if gate is None:
        return "Not checked in this window."
    r = gate.report
    if r.development:
        return f"<span style='color:{theme.WARN}'>{escape(r.summary())}</span>"
    lines = [f"Overall hash: <b style='font-family: monospace'>{escape(r.overall)}</b>",
             f"{r.files} files in {escape(str(r.root))}"
             + (f" · version {escape(r.version)}" if r.version else "")
             + (f" · commit {escape(r.commit[:12])}" if r.commit else "")]
    if r.ok:
        lines.insert(0, f"<span style='color:{theme.GOOD}'>✔ The software matches its "
                        f"manifest.</span>")
    else:
        lines.insert(0, f"<span style='color:{theme.BAD}'>✘ {escape(r.summary())}</span>")
        lines.append(f"Manifest's overall hash: {escape(r.expected or 'none')}")
        if gate.acknowledged_by:
            lines.append(f"Acknowledged by {escape(gate.acknowledged_by)} (recorded).")
    return "<br>".join(lines)


def _headline_html(report: Any) -> str:
    if report.first_file:
        return (f"The file <b>{escape(report.first_file)}</b> does not match the approved "
                f"build's manifest.")
    return escape(report.headline())


class IntegrityTiltScreen(QWidget):
    """The station stopped because its software does not match the approved build's manifest.

    It names the changed file and stays until a supervisor (or operator) signs in and
    acknowledges with a reason; the acknowledgement is journaled (``integrity.ack``).
    """

    acknowledged = Signal()
    sign_in_requested = Signal()

    def __init__(self, gate: IntegrityGate, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gate = gate
        self.session = session
        r = gate.report
        col = QVBoxLayout(self)
        col.setContentsMargins(40, 30, 40, 30)
        col.setSpacing(14)
        title = QLabel("STATION STOPPED — the software has changed")
        title.setObjectName("title")
        title.setStyleSheet(f"font-size: 30px; color: {theme.BAD};")
        col.addWidget(title)
        problems = r.problems()
        shown = "".join(f"<li>{escape(p)}</li>" for p in problems[:8])
        more = f"<li>… and {len(problems) - 8} more</li>" if len(problems) > 8 else ""
        self.detail = QLabel(
            f"<p style='font-size: 22px'>{_headline_html(r)}</p><ul>{shown}{more}</ul>"
            f"<p>Overall hash now: <tt>{escape(r.overall or '-')}</tt><br>"
            f"In the manifest: <tt>{escape(r.expected or '-')}</tt></p>"
            f"<p>No game may be dealt on software that is not the approved build. Call the "
            f"operator to reinstall it. A supervisor may acknowledge to run this software "
            f"anyway: the acknowledgement, their name and the reason are recorded in the "
            f"journal.</p>")
        self.detail.setWordWrap(True)
        self.detail.setTextFormat(Qt.TextFormat.RichText)
        col.addWidget(self.detail)
        row = QHBoxLayout()
        self.ack_button = QPushButton("Acknowledge and run this software")
        self.ack_button.setObjectName("danger")
        self.ack_button.clicked.connect(lambda: self.acknowledge())
        row.addWidget(self.ack_button)
        self.sign_in_button = QPushButton("Supervisor sign-in")
        self.sign_in_button.setObjectName("primary")
        self.sign_in_button.clicked.connect(self.sign_in_requested.emit)
        row.addWidget(self.sign_in_button)
        row.addStretch(1)
        col.addLayout(row)
        self.message = MessageLabel()
        col.addWidget(self.message)
        col.addStretch(1)
        self.refresh()

    def refresh(self) -> None:
        """Show what the signed-in person may do here."""
        user = self.session.user
        may = user is not None and user.role in ("supervisor", "operator")
        self.ack_button.setVisible(may)
        self.sign_in_button.setVisible(user is None)
        if user is not None and not may:
            self._say(f"{user.name} is a {user.role}: only a supervisor or operator may "
                      f"acknowledge. Lock the station and let a supervisor sign in.", "info")
        elif user is None:
            self.message.hide()

    def _say(self, text: str, tone: str) -> None:
        self.message.say(text, tone)

    def acknowledge(self, reason: str | None = None) -> None:
        """Acknowledge the changed software: asks the reason first (``reason`` given: at
        once); the acknowledgement, the name and the reason are journaled."""
        user = self.session.user
        if user is None:
            self._say("Sign in first.", "bad")
            return
        if reason is None:
            ask_reason(self.ack_button, "acknowledge",
                       "Run the software that does not match its manifest: why?",
                       self.acknowledge,
                       note="The acknowledgement is recorded in the journal.")
            return
        try:
            self.gate.acknowledge(user, reason)
        except StationError as exc:
            self._say(f"Not done: {exc}", "bad")
            return
        self.acknowledged.emit()
