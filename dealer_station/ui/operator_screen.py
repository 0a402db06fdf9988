"""The operator's screen for a La Pair'e table: offered wagers, poker paytable, limits.

A change is built with ``LaPaireConfig.with_changes`` (validated exactly as a file is), its
par sheet is computed by ``lapaire_math.par_sheet`` and shown, and only then can it be
applied, with a reason. The table service records it and puts it in force between rounds.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent, QValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from dealer_station.errors import StationError
from dealer_station.events.lapaire import RoundClosed, RoundOpened, RoundVoided
from dealer_station.events.table import ConfigChanged
from dealer_station.settlement.lapaire_config import (
    BET_KINDS,
    HAND_LABELS,
    KIND_LABELS,
    LaPaireConfig,
    Money,
    SpotWager,
)
from dealer_station.settlement.lapaire_layout import spot_label
from dealer_station.settlement.lapaire_math import ParSheetRow, par_sheet
from dealer_station.table.base import Update
from dealer_station.table.lapaire_table import LaPaireTable
from dealer_station.ui import theme
from dealer_station.ui.formatting import amount
from dealer_station.ui.models import ParSheetModel
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents
from dealer_station.ui.supervisor import table_view

MAX_LIMIT = 100_000_000


class MoneySpinBox(QSpinBox):
    """A whole number of minor units, shown and typed as money (``12.50``)."""

    def __init__(self, money: Money, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.money = money
        self.setRange(1, MAX_LIMIT)
        self.setSingleStep(money.chips[0])
        self.setMinimumWidth(150)
        self.setAlignment(Qt.AlignmentFlag.AlignRight)

    def textFromValue(self, value: int) -> str:
        return amount(self.money, value)

    def valueFromText(self, text: str) -> int:
        parsed = self._parse(text)
        return parsed if parsed is not None else self.value()

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        t = text.strip()
        if self._parse(t) is not None:
            state = QValidator.State.Acceptable
        elif t in ("", ".") or (t.endswith(".") and self._parse(t[:-1]) is not None):
            state = QValidator.State.Intermediate   # on the way to an amount
        else:
            state = QValidator.State.Invalid        # the keystroke is refused
        return state, text, pos

    def _parse(self, text: str) -> int | None:
        digits = len(str(self.money.minor_units)) - 1
        t = text.strip()
        whole, _, frac = t.partition(".")
        if not whole.isdigit() or (frac and not frac.isdigit()) or len(frac) > digits:
            return None
        return int(whole) * self.money.minor_units + (int(frac.ljust(digits, "0"))
                                                      if digits else 0)


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
        self._loading = False
        self._build()
        events.listen(self.on_change)
        self.load()

    def base_config(self) -> LaPaireConfig:
        """What a change starts from: the configuration waiting for the next round, if any,
        else the one in force."""
        with self.table.lock:
            return self.table.pending[0] if self.table.pending else self.table.config

    # -- building --------------------------------------------------------------------------

    def _build(self) -> None:
        root = QHBoxLayout(self)
        root.setContentsMargins(10, 8, 10, 8)
        root.setSpacing(12)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFixedWidth(560)
        form = QWidget()
        scroll.setWidget(form)
        self.form = QVBoxLayout(form)
        self.form.setSpacing(10)
        root.addWidget(scroll)

        self.in_force = QLabel("")
        self.in_force.setWordWrap(True)
        self.in_force.setObjectName("muted")
        self.form.addWidget(self.in_force)

        offered = QGroupBox("Wagers offered")
        self.offered_grid = QGridLayout(offered)
        self.kind_boxes: dict[str, QCheckBox] = {}
        for i, kind in enumerate(BET_KINDS):
            cb = QCheckBox(KIND_LABELS[kind])
            cb.toggled.connect(self.edited)
            self.kind_boxes[kind] = cb
            self.offered_grid.addWidget(cb, i // 2, i % 2)
        self.spot_boxes: dict[str, QCheckBox] = {}
        self.form.addWidget(offered)

        poker = QGroupBox("3rd Card Poker paytable")
        pcol = QVBoxLayout(poker)
        self.paytable = QComboBox()
        self.paytable.currentIndexChanged.connect(self.edited)
        pcol.addWidget(self.paytable)
        self.paytable_text = QLabel("")
        self.paytable_text.setObjectName("muted")
        self.paytable_text.setWordWrap(True)
        pcol.addWidget(self.paytable_text)
        self.form.addWidget(poker)

        limits = QGroupBox("Table limits per seat and spot")
        lgrid = QGridLayout(limits)
        for c, text in enumerate(("Wager", "Minimum", "Maximum")):
            h = QLabel(text)
            h.setObjectName("muted")
            lgrid.addWidget(h, 0, c)
        self.limit_boxes: dict[str, tuple[MoneySpinBox, MoneySpinBox]] = {}
        money = self.table.config.money
        for r, kind in enumerate(BET_KINDS, start=1):
            lgrid.addWidget(QLabel(KIND_LABELS[kind]), r, 0)
            lo, hi = MoneySpinBox(money), MoneySpinBox(money)
            lo.setAccessibleName(f"{kind} minimum")
            hi.setAccessibleName(f"{kind} maximum")
            lo.valueChanged.connect(self.edited)
            hi.valueChanged.connect(self.edited)
            lgrid.addWidget(lo, r, 1)
            lgrid.addWidget(hi, r, 2)
            self.limit_boxes[kind] = (lo, hi)
        self.form.addWidget(limits)
        self.form.addStretch(1)

        right = QVBoxLayout()
        root.addLayout(right, 1)
        bar = QHBoxLayout()
        self.preview_button = QPushButton("Show the par sheet")
        self.preview_button.clicked.connect(self.preview)
        bar.addWidget(self.preview_button)
        self.revert_button = QPushButton("Start again")
        self.revert_button.setObjectName("nav")
        self.revert_button.clicked.connect(self.load)
        bar.addWidget(self.revert_button)
        right.addLayout(bar)
        self.changes = QLabel("No change yet.")
        self.changes.setWordWrap(True)
        self.changes.setTextFormat(Qt.TextFormat.RichText)
        right.addWidget(self.changes)
        self.par_model = ParSheetModel(self)
        self.par_view = table_view(self.par_model, ParSheetModel.WARNING)
        # Long poker payouts are cut here; the cell's tooltip has them whole.
        header = self.par_view.horizontalHeader()
        header.setSectionResizeMode(ParSheetModel.PAYS, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(ParSheetModel.PAYS, 150)
        right.addWidget(self.par_view, 1)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason for the change (required)")
        self.reason.setAccessibleName("Reason for the change")
        right.addWidget(self.reason)
        self.apply_button = QPushButton("Apply the change")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply)
        right.addWidget(self.apply_button)
        self.message = QLabel("")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.hide()
        right.addWidget(self.message)

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
            base_row = (len(BET_KINDS) + 1) // 2
            for i, (key, label) in enumerate(_spot_options(config)):
                kind, _, spot = key.partition(" ")
                w = config.wager(kind)
                assert isinstance(w, SpotWager)
                s = w.spot(spot.split("-"))
                cb = QCheckBox(label)
                cb.setChecked(bool(s and s.offered))
                cb.toggled.connect(self.edited)
                self.spot_boxes[key] = cb
                self.offered_grid.addWidget(cb, base_row + i, 0, 1, 2)
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
        self.reason.clear()
        self.edited()
        self._show_in_force()

    def _show_in_force(self) -> None:
        with self.table.lock:
            version, pending = self.table.version, self.table.pending
        text = f"In force: configuration {version[:12]}."
        if pending is not None:
            text += (f" A change ({pending[1][:12]}) is saved and takes effect from the next "
                     f"round; a new change starts from it.")
        self.in_force.setText(text)

    def proposed(self) -> tuple[LaPaireConfig, dict[str, Any]]:
        """The configuration the form describes and what differs from the base (raises
        ConfigError naming the bad entry)."""
        base = self.base_config()
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
            items.append(f"{KIND_LABELS[kind]} limits: <b>{amount(money, lim['min'])} – "
                         f"{amount(money, lim['max'])}</b>")
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
        try:
            new, what = self.proposed()
        except StationError as exc:
            self.proposal = None
            self.changes.setText(f"<span style='color:{theme.BAD}'>This change cannot be "
                                 f"made: {exc}</span>")
            return
        self.proposal = new
        if not what:
            self.changes.setText("No change yet: choose what to offer, the paytable or the "
                                 "limits.")
        else:
            self.changes.setText(f"Proposed: {self._describe(what, base.money)}.<br>"
                                 f"<span style='color:{theme.WARN}'>Show its par sheet before "
                                 f"applying it.</span>")

    def preview(self) -> None:
        """Compute and show the par sheet of the proposed configuration."""
        try:
            new, what = self.proposed()
        except StationError as exc:
            self._say(f"This change cannot be made: {exc}", "bad")
            return
        if not what:
            self._say("Nothing has been changed yet.", "bad")
            return
        self.rows = par_sheet(new)
        self.par_model.set_rows(self.rows)
        self.shown_for = new
        self.proposal = new
        warnings = [r for r in self.rows if r.warning]
        note = (f"<br><span style='color:{theme.WARN}'>{len(warnings)} wager(s) have a "
                f"warning: see the last column.</span>" if warnings else "")
        self.changes.setText(f"Par sheet of: {self._describe(what, new.money)}.{note}")
        self.apply_button.setEnabled(True)
        self.message.hide()

    def apply(self) -> None:
        user = self.session.user
        if user is None:
            self._say("Sign in first.", "bad")
            return
        if self.shown_for is None:
            self._say("Show the par sheet of this change first.", "bad")
            return
        try:
            new, what = self.proposed()
        except StationError as exc:
            self._say(f"This change cannot be made: {exc}", "bad")
            return
        if new != self.shown_for:
            self._say("The form changed after the par sheet was shown: show it again.", "bad")
            return
        try:
            version = self.table.change_config(user, new, self.reason.text(), what)
        except StationError as exc:
            self._say(f"Not applied: {exc}", "bad")
            return
        with self.table.lock:
            pending = self.table.pending is not None
        when = ("it takes effect when this round is over" if pending
                else "it is in force from now")
        self.load()
        self._say(f"Configuration {version[:12]} recorded by {user.actor}: {when}.", "good")

    def _say(self, text: str, tone: str) -> None:
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self.message.show()

    def on_change(self, update: Update) -> None:
        # A round's opening or close can put a pending configuration in force.
        if update.has(ConfigChanged, RoundOpened, RoundClosed, RoundVoided):
            self._show_in_force()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._show_in_force()
