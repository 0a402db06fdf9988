"""The operator's screen for a La Pair'e table: offered wagers, poker paytable, limits.

A change is built with ``LaPaireConfig.with_changes`` (validated exactly as a file is), its
par sheet is computed by ``lapaire_math.par_sheet`` and shown, and only then can it be
applied, with a reason. The table service records it and puts it in force between rounds.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import User
from dealer_station.errors import StationError
from dealer_station.events.table import ConfigChanged
from dealer_station.games.lapaire.events import RoundClosed, RoundOpened, RoundVoided
from dealer_station.games.lapaire.rules.config import (
    BET_KINDS,
    CHANGES,
    HAND_LABELS,
    KIND_LABELS,
    LaPaireConfig,
    SpotWager,
)
from dealer_station.games.lapaire.rules.house_math import ParSheetRow, par_sheet, percent
from dealer_station.games.lapaire.rules.layout import spot_label
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.ui.models import ParSheetModel
from dealer_station.money import Money
from dealer_station.table.base import Update
from dealer_station.tomlconfig import ConfigError
from dealer_station.ui import theme
from dealer_station.ui.amount_pad import AmountError, parse_amount
from dealer_station.ui.choice_buttons import ChoiceButtons, TouchCheckBox
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.reasons import ReasonSheet, ask_reason
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents
from dealer_station.ui.supervisor import table_view
from dealer_station.ui.touch_fields import TouchAmountField, TouchLineEdit, TouchPinField
from dealer_station.ui.touch_keyboard import InputSheet, open_keypad

MAX_LIMIT = 100_000_000
#: The most changed settings and house edges the comparison lists before "and n more".
MAX_COMPARED = 8
#: A limit's two ends, as the form and the messages name them.
LIMIT_WORDS = {"min": "the least", "max": "the most"}
#: The pages, in their tabs' order.
CHANGE_PAGE, SHEET_PAGE = 0, 1
#: The par sheet page's left column (the comparison, the reason, the approval, Apply).
SIDE_PX = 430
#: The Pays column: "1300 to 1" on a line; the poker paytable wraps in its cell.
PAYS_PX = 130


def problem_text(exc: StationError) -> str:
    """Why a change cannot be made, in the felt's names: ``First Card Red: the most (500.00)
    must be at least the least (600.00)``, never the file's keys or the ``<changes>`` tag."""
    if not isinstance(exc, ConfigError) or exc.file != CHANGES:
        return str(exc)
    parts = exc.key.split(".")
    if len(parts) >= 2 and parts[0] in ("wagers", "limits", "offered"):
        kind, _, spot = parts[1].partition(" ")
        name = KIND_LABELS.get(kind, kind) + (f" {spot}" if spot else "")
        field = " ".join(LIMIT_WORDS.get(x, x.replace("_", " ")) for x in parts[2:])
        return f"{name}{' ' + field if field else ''}: {exc.reason}"
    return f"{exc.key}: {exc.reason}" if exc.key else exc.reason


class LimitField(TouchAmountField):
    """A limit: a whole number of minor units, shown as money ("1,250.00"). Touched, it opens
    the keypad with a point, which types it as money ("25", "12.50") and refuses, on the
    keypad, what is not (a third decimal, nothing, over the largest limit)."""

    valueChanged = Signal(int)

    def __init__(self, money: Money, prompt: str, parent: QWidget | None = None) -> None:
        super().__init__(prompt, parent, max_length=12)
        self.money = money
        self._value = 0
        self.setMinimumWidth(150)
        self.setMaximumWidth(175)
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # A physical keyboard still types here: what it typed is read when it is left.
        self.editingFinished.connect(self._typed_here)

    def value(self) -> int:
        return self._value

    def setValue(self, value: int) -> None:
        changed = value != self._value
        self._value = value
        self.setText(self.money.number(value))
        if changed:
            self.valueChanged.emit(value)

    def problem(self, text: str) -> str | None:
        """Why ``text`` is not a limit, in words (None: it is one)."""
        try:
            value = parse_amount(text.replace(",", ""), self.money)
        except AmountError as exc:
            return str(exc)[:1].upper() + str(exc)[1:] + "."
        if value > MAX_LIMIT:
            return f"At most {self.money.number(MAX_LIMIT)}."
        return None

    def open_input(self) -> InputSheet:
        # The keypad starts empty, what is set now shown in its place: a new amount is typed
        # whole, as a dealer types one.
        self.sheet = open_keypad(self, self.prompt, self._put, mode="amount",
                                 placeholder=self.text(), max_length=self.maxLength(),
                                 note=f"Now {self.text()}. Type the amount, such as 25 or "
                                      f"12.50.", required=True, check=self.problem)
        return self.sheet

    def _put(self, text: str) -> None:
        self.setValue(parse_amount(text.replace(",", ""), self.money))
        self.done.emit(self.text())

    def _typed_here(self) -> None:
        if self.problem(self.text()) is None:
            self.setValue(parse_amount(self.text().replace(",", ""), self.money))
        else:
            self.setText(self.money.number(self._value))


def _spot_options(config: LaPaireConfig) -> list[tuple[str, str]]:
    """(key for with_changes, label) of the spots a configuration prices or offers apart."""
    out: list[tuple[str, str]] = []
    for w in config.wagers():
        if isinstance(w, SpotWager):
            for s in w.spots:
                if s.pays != w.pays or not s.offered:
                    out.append((f"{w.kind} {s.label}",
                                f"{KIND_LABELS[w.kind]} {spot_label(s.values)} ({s.pays})"))
    return out


class OperatorScreen(QWidget):
    def __init__(self, table: LaPaireTable, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.session = session
        self.proposal: LaPaireConfig | None = None
        self.shown_for: LaPaireConfig | None = None
        self.rows: list[ParSheetRow] = []
        #: The par sheet of the configuration a change starts from, by its version.
        self._base_sheet: tuple[str, list[ParSheetRow]] | None = None
        #: A change recorded to take effect after the round: its note goes once it has.
        self._waiting_for: str | None = None
        self._loading = False
        #: The reasons asked for, once Apply is touched.
        self.reason_sheet: ReasonSheet | None = None
        self._build()
        events.listen(self.on_change)
        self.load()

    def base_config(self) -> LaPaireConfig:
        """What a change starts from: the configuration waiting for the next round, if any,
        else the one in force."""
        return self._base()[0]

    def _base(self) -> tuple[LaPaireConfig, str, bool]:
        """The configuration a change starts from, its version, and whether it is saved for
        the next round (not yet in force)."""
        config, version, pending = self.table.configuration()
        if pending is not None:
            return pending[0], pending[1], True
        return config, version, False

    def base_sheet(self) -> list[ParSheetRow]:
        """The par sheet of the configuration a change starts from (worked out once)."""
        config, version, _ = self._base()
        if self._base_sheet is None or self._base_sheet[0] != version:
            self._base_sheet = (version, par_sheet(config))
        return self._base_sheet[1]

    # -- building --------------------------------------------------------------------------

    def _build(self) -> None:
        root = QVBoxLayout(self)
        root.setContentsMargins(10, 6, 10, 6)
        root.setSpacing(6)
        # Two pages, one touch apart: the change (what is offered, the paytable, the limits)
        # and its par sheet with the comparison and the Apply. The par sheet has the page's
        # whole height and enough width for every column, never a sideways scroll.
        self.pages = QTabWidget()
        self.pages.setDocumentMode(False)
        root.addWidget(self.pages, 1)
        corner = QWidget()
        bar = QHBoxLayout(corner)
        bar.setContentsMargins(0, 0, 0, 4)
        self.revert_button = QPushButton("Start again")
        self.revert_button.setObjectName("nav")
        self.revert_button.clicked.connect(self.load)
        bar.addWidget(self.revert_button)
        self.preview_button = QPushButton("Show the par sheet ›")
        self.preview_button.setObjectName("primary")
        self.preview_button.clicked.connect(self.preview)
        bar.addWidget(self.preview_button)
        self.pages.setCornerWidget(corner, Qt.Corner.TopRightCorner)

        # -- the change: what is offered, the spots priced apart and the paytable, the
        # limits, side by side on one page --
        change_page = QWidget()
        page = QVBoxLayout(change_page)
        page.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.form_scroll = scroll
        form = QWidget()
        scroll.setWidget(form)
        columns = QHBoxLayout(form)
        columns.setContentsMargins(8, 0, 8, 4)
        columns.setSpacing(14)
        kinds_col, spots_col, limits_col = QVBoxLayout(), QVBoxLayout(), QVBoxLayout()
        columns.addLayout(kinds_col, 0)
        columns.addLayout(spots_col, 1)
        columns.addLayout(limits_col, 0)
        page.addWidget(scroll, 1)

        offered = QGroupBox("Wagers offered")
        kinds = QVBoxLayout(offered)
        kinds.setSpacing(2)
        self.kind_boxes: dict[str, QCheckBox] = {}
        for kind in BET_KINDS:
            cb = TouchCheckBox(KIND_LABELS[kind])
            cb.toggled.connect(self.edited)
            self.kind_boxes[kind] = cb
            kinds.addWidget(cb)
        kinds_col.addWidget(offered)
        self.in_force = QLabel("")
        self.in_force.setWordWrap(True)
        self.in_force.setObjectName("muted")
        kinds_col.addWidget(self.in_force)
        kinds_col.addStretch(1)

        spots = QGroupBox("Spots priced apart")
        self.spots_group = spots
        self.offered_grid = QVBoxLayout(spots)
        self.offered_grid.setSpacing(2)
        self.spot_boxes: dict[str, QCheckBox] = {}
        spots_col.addWidget(spots)
        poker = QGroupBox("3rd Card Poker paytable")
        pcol = QVBoxLayout(poker)
        self.paytable = ChoiceButtons()      # a touch on a paytable's name
        self.paytable.currentIndexChanged.connect(self.edited)
        pcol.addWidget(self.paytable)
        self.paytable_text = QLabel("")
        self.paytable_text.setObjectName("muted")
        self.paytable_text.setWordWrap(True)
        pcol.addWidget(self.paytable_text)
        spots_col.addWidget(poker)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        spots_col.addWidget(self.summary)
        spots_col.addStretch(1)

        limits = QGroupBox("Table limits per seat and spot")
        self.limits_group = limits
        lgrid = QGridLayout(limits)
        lgrid.setVerticalSpacing(2)
        for c, text in enumerate(("Wager", "Minimum", "Maximum")):
            h = QLabel(text)
            h.setObjectName("muted")
            lgrid.addWidget(h, 0, c)
        self.limit_boxes: dict[str, tuple[LimitField, LimitField]] = {}
        money = self.table.config.money
        for r, kind in enumerate(BET_KINDS, start=1):
            lgrid.addWidget(QLabel(KIND_LABELS[kind]), r, 0)
            lo = LimitField(money, f"{KIND_LABELS[kind]}: the least a seat may wager")
            hi = LimitField(money, f"{KIND_LABELS[kind]}: the most a seat may wager")
            lo.setAccessibleName(f"{kind} minimum")
            hi.setAccessibleName(f"{kind} maximum")
            lo.valueChanged.connect(self.edited)
            hi.valueChanged.connect(self.edited)
            lgrid.addWidget(lo, r, 1)
            lgrid.addWidget(hi, r, 2)
            self.limit_boxes[kind] = (lo, hi)
        limits_col.addWidget(limits)
        limits_col.addStretch(1)
        self.pages.addTab(change_page, "The change")

        # -- the par sheet --
        sheet_page = QWidget()
        sheet = QHBoxLayout(sheet_page)
        sheet.setContentsMargins(8, 6, 8, 6)
        sheet.setSpacing(12)
        side = QVBoxLayout()
        side.setSpacing(6)
        side_box = QWidget()
        side_box.setLayout(side)
        side_box.setFixedWidth(SIDE_PX)
        sheet.addWidget(side_box)
        self.changes = QLabel("No change yet.")
        self.changes.setWordWrap(True)
        self.changes.setTextFormat(Qt.TextFormat.RichText)
        self.changes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        changes_scroll = QScrollArea()
        changes_scroll.setWidgetResizable(True)
        changes_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        changes_scroll.setFrameShape(QFrame.Shape.NoFrame)
        changes_scroll.setWidget(self.changes)
        side.addWidget(changes_scroll, 1)
        # An optional second person: a supervisor or another operator approves with their
        # PIN, and the change records who (the configuration report prints it). The user id
        # on the keyboard, then the PIN on the keypad.
        approval_title = QLabel("Approved by (optional): a supervisor or another operator")
        approval_title.setObjectName("muted")
        approval_title.setWordWrap(True)
        side.addWidget(approval_title)
        approval = QHBoxLayout()
        self.approver_id = TouchLineEdit("Who approves the change: their user id",
                                         placeholder="user id", max_length=40)
        self.approver_id.setAccessibleName("Second approval: user id")
        self.approver_pin = TouchPinField("Their PIN", placeholder="their PIN")
        self.approver_pin.setAccessibleName("Second approval: PIN")
        # Done on the user id goes on to the PIN (the keyboard has no Next key of its own).
        self.approver_id.done.connect(
            lambda user_id: self.approver_pin.open_input() if user_id.strip() else None)
        approval.addWidget(self.approver_id, 3)
        approval.addWidget(self.approver_pin, 2)
        side.addLayout(approval)
        # Touched, it asks why (the operator's reasons, or Other… typed), then applies.
        self.apply_button = QPushButton("Apply the change…")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply)
        side.addWidget(self.apply_button)
        table_col = QVBoxLayout()
        table_col.setSpacing(4)
        self.sheet_caption = QLabel("")
        self.sheet_caption.setObjectName("muted")
        self.sheet_caption.setWordWrap(True)
        table_col.addWidget(self.sheet_caption)
        self.par_model = ParSheetModel(self)
        self.par_view = table_view(self.par_model)
        header = self.par_view.horizontalHeader()
        # Every column on the page: the figures as wide as their text, the pays (the poker
        # paytable is one long line) and the warnings wrapped in their cells, the warnings
        # taking what is left. Nothing is only in a tooltip: a touch screen cannot hover.
        header.setStretchLastSection(False)
        header.setSectionResizeMode(ParSheetModel.PAYS, QHeaderView.ResizeMode.Fixed)
        header.resizeSection(ParSheetModel.PAYS, PAYS_PX)
        header.setSectionResizeMode(ParSheetModel.WARNING, QHeaderView.ResizeMode.Stretch)
        self.par_view.setWordWrap(True)
        self.par_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.par_view.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        table_col.addWidget(self.par_view, 1)
        sheet.addLayout(table_col, 1)
        self.pages.addTab(sheet_page, "Par sheet")
        self.message = MessageLabel()
        root.addWidget(self.message)

    # -- form <-> configuration ------------------------------------------------------------

    def load(self) -> None:
        """Fill the form from the configuration a change would start from."""
        config = self.base_config()
        self._loading = True
        try:
            for kind, cb in self.kind_boxes.items():
                cb.setChecked(config.wager(kind).offered)
            for cb in self.spot_boxes.values():
                self.offered_grid.removeWidget(cb)
                cb.deleteLater()
            self.spot_boxes = {}
            for key, label in _spot_options(config):
                kind, _, spot = key.partition(" ")
                w = config.wager(kind)
                assert isinstance(w, SpotWager)
                s = w.spot(spot.split("-"))
                cb = TouchCheckBox(label)
                cb.setChecked(bool(s and s.offered))
                cb.toggled.connect(self.edited)
                self.spot_boxes[key] = cb
                self.offered_grid.addWidget(cb)
            self.spots_group.setVisible(bool(self.spot_boxes))
            self.paytable.clear()
            names = [p.name for p in config.paytables]
            self.paytable.addItems(names)
            self.paytable.setCurrentIndex(names.index(config.poker.paytable))
            for kind, (lo, hi) in self.limit_boxes.items():
                lim = config.wager(kind).limits
                lo.money = hi.money = config.money
                lo.setValue(lim.minimum)
                hi.setValue(lim.maximum)
        finally:
            self._loading = False
        self.edited()
        self._show_in_force()

    def _show_in_force(self) -> None:
        _, version, pending = self.table.configuration()
        if self._waiting_for is not None and (pending is None
                                              or pending[1] != self._waiting_for):
            # The round is over and the change is in force: "takes effect when this round
            # is over" is no longer true.
            self._waiting_for = None
            self.message.hide()
            if self.shown_for is None:
                self.show_current_sheet()
        text = f"In force: configuration {version[:12]}."
        if pending is not None:
            text += (f" A change ({pending[1][:12]}) is saved and takes effect from the next "
                     f"round; a new change starts from it.")
        self.in_force.setText(text)

    def proposed(self) -> tuple[LaPaireConfig, dict[str, Any]]:
        """The configuration the form describes and what differs from the base (raises
        ConfigError naming the bad entry)."""
        base = self.base_config()
        for kind, (lo, hi) in self.limit_boxes.items():
            if hi.value() < lo.value():
                # Said here in money: the file's check would say it in minor units.
                raise ConfigError(CHANGES, f"limits.{kind}",
                                  f"the most ({base.money.number(hi.value())}) must be at "
                                  f"least the least ({base.money.number(lo.value())})")
        offered: dict[str, bool] = {}
        for kind, cb in self.kind_boxes.items():
            if cb.isChecked() != base.wager(kind).offered:
                offered[kind] = cb.isChecked()
        for key, cb in self.spot_boxes.items():
            kind, _, spot = key.partition(" ")
            w = base.wager(kind)
            assert isinstance(w, SpotWager)
            s = w.spot(spot.split("-"))
            if s is not None and cb.isChecked() != s.offered:
                offered[key] = cb.isChecked()
        paytable = self.paytable.currentText()
        limits: dict[str, tuple[int, int]] = {}
        for kind, (lo, hi) in self.limit_boxes.items():
            lim = base.wager(kind).limits
            if (lo.value(), hi.value()) != (lim.minimum, lim.maximum):
                limits[kind] = (lo.value(), hi.value())
        new = base.with_changes(offered=offered or None,
                                poker_paytable=paytable if paytable != base.poker.paytable
                                else None, limits=limits or None)
        what: dict[str, Any] = {}
        if offered:
            what["offered"] = offered
        if paytable != base.poker.paytable:
            what["poker_paytable"] = paytable
        if limits:
            what["limits"] = {k: {"min": a, "max": b} for k, (a, b) in limits.items()}
        return new, what

    def _describe(self, what: dict[str, Any], money: Money) -> str:
        items = []
        for key, on in what.get("offered", {}).items():
            kind, _, spot = key.partition(" ")
            name = KIND_LABELS.get(kind, kind) + (f" {spot}" if spot else "")
            items.append(f"{name}: <b>{'offered' if on else 'withdrawn'}</b>")
        if "poker_paytable" in what:
            items.append(f"poker paytable: <b>{what['poker_paytable']}</b>")
        for kind, lim in what.get("limits", {}).items():
            items.append(f"{KIND_LABELS[kind]} limits: <b>{money.number(lim['min'])} – "
                         f"{money.number(lim['max'])}</b>")
        return "; ".join(items)

    # -- actions ---------------------------------------------------------------------------

    def edited(self, *_args: Any) -> None:
        if self._loading:
            return
        name = self.paytable.currentText()
        base = self.base_config()
        try:
            pt = base.paytable(name)
            self.paytable_text.setText(", ".join(f"{HAND_LABELS[h]} {o}" for h, o in pt.pays))
        except KeyError:
            self.paytable_text.setText("")
        self.shown_for = None
        self.apply_button.setEnabled(False)
        self.show_current_sheet()
        try:
            new, what = self.proposed()
        except StationError as exc:
            self.proposal = None
            self._propose(f"<span style='color:{theme.BAD}'>This change cannot be made: "
                          f"{escape(problem_text(exc))}</span>")
            return
        self.proposal = new
        if not what:
            self._propose("No change yet: choose what to offer, the paytable or the limits.")
        else:
            self._propose(f"Proposed: {self._describe(what, base.money)}.<br>"
                          f"<span style='color:{theme.WARN}'>Show its par sheet before "
                          f"applying it.</span>")

    def _propose(self, text: str) -> None:
        """What the form proposes, said under the limits and beside the par sheet."""
        self.summary.setText(text)
        self.changes.setText(text)

    def show_current_sheet(self) -> None:
        """Under the form, until a proposal's par sheet is shown: the current configuration's,
        said to be so (never a sheet that belongs to no one)."""
        if not self.isVisible():
            return      # worked out when the operator opens the screen
        _config, version, pending = self._base()
        self.rows = self.base_sheet()
        self.par_model.set_rows(self.rows)
        self.sheet_caption.setText(
            f"Par sheet of the current configuration ({version[:12]}"
            + (", saved for the next round)" if pending else ", in force)"))

    def preview(self) -> None:
        """Compute and show the par sheet of the proposed configuration."""
        try:
            new, what = self.proposed()
        except StationError as exc:
            self._say(f"This change cannot be made: {problem_text(exc)}", "bad")
            return
        if not what:
            self._say("Nothing has been changed yet.", "bad")
            return
        before = self.base_sheet()
        self.rows = par_sheet(new)
        self.par_model.set_rows(self.rows)
        self.sheet_caption.setText("Par sheet of the proposed change")
        self.shown_for = new
        self.proposal = new
        warnings = [r for r in self.rows if r.warning]
        # Written out beside the sheet too: its row may be further down the list.
        note = "".join(f"<br><span style='color:{theme.WARN}'>Warning: {escape(r.label)}: "
                       f"{escape(str(r.warning))}</span>" for r in warnings[:MAX_COMPARED])
        if len(warnings) > MAX_COMPARED:
            note += (f"<br><span style='color:{theme.WARN}'>… and {len(warnings) - MAX_COMPARED}"
                     f" more warnings: see the Warning column.</span>")
        self.changes.setText(self.comparison(self.base_config(), what, before, self.rows)
                             + note)
        self.summary.setText(f"Proposed: {self._describe(what, self.base_config().money)}."
                             f"<br>Its par sheet is on the Par sheet page.")
        self.apply_button.setEnabled(True)
        self.message.hide()
        self.pages.setCurrentIndex(SHEET_PAGE)

    def comparison(self, base: LaPaireConfig, what: dict[str, Any],
                   before: list[ParSheetRow], after: list[ParSheetRow]) -> str:
        """Before and after: each changed setting, now → proposed, and each wager whose house
        edge the change moves."""
        money = base.money
        rows: list[tuple[str, str, str]] = []
        for key, on in what.get("offered", {}).items():
            kind, _, spot = key.partition(" ")
            name = KIND_LABELS.get(kind, kind) + (f" {spot}" if spot else "")
            rows.append((name, "withdrawn" if on else "offered",
                         "offered" if on else "withdrawn"))
        if "poker_paytable" in what:
            rows.append(("3rd Card Poker paytable", base.poker.paytable,
                         what["poker_paytable"]))
        for kind, lim in what.get("limits", {}).items():
            now = base.wager(kind).limits
            rows.append((f"{KIND_LABELS[kind]} limits",
                         f"{money.number(now.minimum)} – {money.number(now.maximum)}",
                         f"{money.number(lim['min'])} – {money.number(lim['max'])}"))
        was = {(r.bet, r.values): r for r in before}
        now_rows = {(r.bet, r.values): r for r in after}
        edges: list[tuple[str, str, str]] = []
        for key in [*was, *(k for k in now_rows if k not in was)]:
            a, b = was.get(key), now_rows.get(key)
            if a is not None and b is not None and a.house_edge == b.house_edge:
                continue
            row = a if a is not None else b
            assert row is not None
            edges.append((row.label, percent(a.house_edge) if a else "not offered",
                          percent(b.house_edge) if b else "not offered"))

        def table(title: str, items: list[tuple[str, str, str]]) -> str:
            shown = items[:MAX_COMPARED]
            more = (f"<tr><td colspan='3'>… and {len(items) - len(shown)} more</td></tr>"
                    if len(items) > len(shown) else "")
            return (f"<tr><td colspan='3' style='color:{theme.MUTED}'>{title}</td></tr>"
                    + "".join(f"<tr><td>{escape(n)}</td><td align='right'>{escape(x)}</td>"
                              f"<td>&nbsp;→&nbsp;<b>{escape(y)}</b></td></tr>"
                              for n, x, y in shown) + more)

        house = (table("House edge: now → proposed", edges) if edges else
                 f"<tr><td colspan='3' style='color:{theme.MUTED}'>House edge: unchanged "
                 f"on every wager</td></tr>")
        return ("<table cellspacing='0' cellpadding='2'>"
                + table("Setting: now → proposed", rows) + house + "</table>")

    def _check_apply(self) -> tuple[User, LaPaireConfig, dict[str, Any]] | None:
        """Who applies what, once the par sheet shown is the form's (None: said why not)."""
        user = self.session.user
        if user is None:
            self._say("Sign in first.", "bad")
            return None
        if self.shown_for is None:
            self._say("Show the par sheet of this change first.", "bad")
            return None
        try:
            new, what = self.proposed()
        except StationError as exc:
            self._say(f"This change cannot be made: {exc}", "bad")
            return None
        if new != self.shown_for:
            self._say("The form changed after the par sheet was shown: show it again.", "bad")
            return None
        return user, new, what

    def apply(self) -> None:
        """Ask why (the reasons for a configuration change, or Other… typed), then apply."""
        if self._check_apply() is None:
            return
        self.reason_sheet = ask_reason(
            self.apply_button, "config_change", "Apply the change: why?", self.apply_with,
            note="The change, its par sheet and the reason are recorded.")

    def apply_with(self, reason: str) -> None:
        """Apply the change shown, for ``reason``."""
        checked = self._check_apply()
        if checked is None:
            return
        user, new, what = checked
        try:
            approver = self._approver()
            version = self.table.change_config(user, new, reason, what, approver=approver)
        except StationError as exc:
            self._say(f"Not applied: {exc}", "bad")
            return
        finally:
            self.approver_pin.clear()
        self.approver_id.clear()
        pending = self.table.configuration()[2] is not None
        when = ("it takes effect when this round is over" if pending
                else "it is in force from now")
        self.load()
        approved = f", approved by {approver.actor}" if approver else ""
        self._say(f"Configuration {version[:12]} recorded by {user.actor}{approved}, for "
                  f"“{reason}”: {when}.", "good")
        self._waiting_for = version if pending else None

    def _approver(self) -> User | None:
        """The second person, signed in with their PIN (the attempt is journaled like any
        sign-in), or None when nobody is named."""
        user_id = self.approver_id.text().strip()
        if not user_id:
            return None
        return self.session.users.authenticate(user_id, self.approver_pin.text(),
                                               table_id=self.table.table_id)

    def _say(self, text: str, tone: str) -> None:
        self.message.say(text, tone)

    def on_change(self, update: Update) -> None:
        # A round's opening or close can put a pending configuration in force.
        if update.has(ConfigChanged, RoundOpened, RoundClosed, RoundVoided):
            self._show_in_force()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._show_in_force()
        if self.shown_for is None:
            self.show_current_sheet()
