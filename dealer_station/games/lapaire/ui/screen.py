"""The La Pair'e dealer screen: the felt, seats and chips, the cards, each stage's payouts.

Everything shown is drawn from the table's read model (``LaPaireView``), handed over with
each commit; only the parts the committed events change are drawn again. Every touch becomes
a call on the table, attributed to the signed-in user. A refusal is the table's own reason,
shown by the spot that was touched.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import User
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.errors import StationError
from dealer_station.events import Event
from dealer_station.events.table import ConfigChanged
from dealer_station.games.lapaire.events import (
    BettingClosed,
    CardDealt,
    PayoutConfirmed,
    RoundClosed,
    RoundOpened,
    RoundVoided,
    StageSettled,
    WagerPlaced,
    WagerRemoved,
)
from dealer_station.games.lapaire.rules.config import LaPaireConfig
from dealer_station.games.lapaire.rules.engine import Wager, WagerError
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.table.view import LaPaireView
from dealer_station.games.lapaire.ui.felt import LaPaireLayoutView
from dealer_station.games.lapaire.ui.felt_geometry import SpotKey
from dealer_station.games.lapaire.ui.labels import (
    fixed_lines,
    seat_list,
    short_spot_name,
    spot_name,
)
from dealer_station.games.lapaire.ui.ledger import Ledger
from dealer_station.games.lapaire.ui.models import WagerRow, WagersModel
from dealer_station.games.lapaire.ui.payout_pieces import SeatPayout, SpotPayout
from dealer_station.games.lapaire.ui.rebet_plate import RebetPlate
from dealer_station.games.lapaire.ui.round_totals import RoundTotals
from dealer_station.games.lapaire.ui.seats import SeatButton, SeatRow
from dealer_station.games.lapaire.ui.stage_payouts import StagePayouts
from dealer_station.table.base import Update
from dealer_station.ui import theme
from dealer_station.ui.amount_pad import AmountError, AmountPad, parse_amount, parse_count
from dealer_station.ui.card_view import CardView, warm_when_idle
from dealer_station.ui.chip_button import CHIP_PX, ChipButton
from dealer_station.ui.fixed_text import FixedLinesLabel
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents

if TYPE_CHECKING:
    from dealer_station.app import Station

SEATS = 7
#: The right-hand column (cards, payouts, wagers), fixed so the felt keeps the rest: wide
#: enough for a seat's pay line ("Straight JK  pay 1,375.00  + stake 15.00") at the size
#: read from a metre.
RIGHT_WIDTH = 510
#: The room inside that column: its margins (12 px a side) and its frame (1 px a side) off.
INNER_WIDTH = RIGHT_WIDTH - 2 * 12 - 2
#: Each card's slot beside the round's totals (a card's 5:7).
CARD_PX = (76, 106)
STAGE_NAMES = {1: "First Card", 2: "La Pair'e Card", 3: "Poker card"}
CHIP_KEYS = ("F5", "F6", "F7", "F8", "F9")
ALL_SECTIONS = frozenset({"felt", "cards", "seats", "wagers", "stage", "totals"})
_CHANGES: dict[type[Event], frozenset[str]] = {
    WagerPlaced: frozenset({"felt", "seats", "wagers", "totals"}),
    WagerRemoved: frozenset({"felt", "seats", "wagers", "totals"}),
    BettingClosed: frozenset(),
    CardDealt: frozenset({"felt", "cards"}),
    StageSettled: frozenset({"felt", "seats", "wagers", "stage", "totals"}),
    PayoutConfirmed: frozenset({"cards", "stage"}),
    RoundOpened: ALL_SECTIONS,
    RoundClosed: ALL_SECTIONS,
    RoundVoided: ALL_SECTIONS,
    ConfigChanged: ALL_SECTIONS,
}


def _sections(update: Update) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for c in update.events:
        out |= _CHANGES.get(type(c.event), frozenset())
    return out


class LaPaireScreen(QWidget):
    """The dealer's La Pair'e screen over one :class:`LaPaireTable`."""

    def __init__(self, table: LaPaireTable, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.session = session
        self.config: LaPaireConfig = table.config
        self.seat = 1
        self.chip_value = self.config.money.chips[0]
        self.view: LaPaireView = table.view()
        #: The round the message bar speaks of, when not the one under way.
        self._message_round: int | None = None
        self._build()
        events.listen(self.on_change)
        self.refresh(self.view)

    # -- building --------------------------------------------------------------------------

    def _build(self) -> None:
        root = QHBoxLayout(self)
        root.setContentsMargins(10, 8, 10, 8)
        root.setSpacing(12)

        left = QVBoxLayout()
        left.setSpacing(8)
        root.addLayout(left, 1)
        self.layout_view = LaPaireLayoutView(self.config)
        self.layout_view.spot_activated.connect(self.place_on)
        self.layout_view.spot_remove.connect(self.remove_from)
        left.addWidget(self.layout_view, 1)

        # Two lines, fixed: a longer message is cut (its tooltip has it whole) and the felt
        # above never moves.
        self.message = FixedLinesLabel(2)
        self.message.setObjectName("message")
        theme.set_tone(self.message, "info")
        left.addWidget(self.message)

        self.seat_group = QButtonGroup(self)
        self.seat_buttons: dict[int, SeatButton] = {}
        for n in range(1, SEATS + 1):
            b = SeatButton(n)
            self.seat_group.addButton(b, n)
            self.seat_buttons[n] = b
        # A seat's rebet: a plate under its button while it has nothing on the layout this
        # round.
        self.rebet_plates: dict[int, RebetPlate] = {}
        for n in self.seat_buttons:
            plate = RebetPlate(n)
            plate.clicked.connect(lambda _=False, n=n: self.rebet(n))
            self.rebet_plates[n] = plate
        self.seat_row = SeatRow(list(self.seat_buttons.values()),
                                list(self.rebet_plates.values()))
        for n in self.seat_buttons:
            QShortcut(QKeySequence(str(n)), self, lambda n=n: self.select_seat(n),
                      context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.seat_group.idClicked.connect(self.select_seat)
        left.addWidget(self.seat_row)
        self.message.fix_height()
        QShortcut(QKeySequence("R"), self, lambda: self.rebet(self.seat),
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)

        chips = QHBoxLayout()
        chips.setSpacing(10)
        self.chip_row = chips
        self.chip_group = QButtonGroup(self)
        self.chip_buttons: list[ChipButton] = []
        self._chip_shortcuts: list[QShortcut] = []
        for i, key in enumerate(CHIP_KEYS):
            sc = QShortcut(QKeySequence(key), self, lambda i=i: self._chip_key(i),
                           context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self._chip_shortcuts.append(sc)
        self._build_chips()
        chips.addSpacing(6)
        # What the next touch on a spot places: the chip, or the amount typed on the keypad
        # (two short lines, always whole: the keypad takes at most MAX_CHARS).
        self.next_amount = QLabel("Lines\nLines")
        self.next_amount.setStyleSheet(f"font-size: {theme.LEAST_PX}px;")
        self.next_amount.ensurePolished()
        self.next_amount.setFixedHeight(self.next_amount.sizeHint().height())
        self.next_amount.setMinimumWidth(150)
        chips.addWidget(self.next_amount, 1)
        self.remove_button = QPushButton("Take back  (Del)")
        self.remove_button.setCheckable(True)
        # As high as the chips (in the style sheet, which would otherwise set its least
        # height), so that the felt keeps the room the seats' plates take.
        self.remove_button.setStyleSheet(f"min-height: {CHIP_PX - 2}px; max-height: "
                                         f"{CHIP_PX - 2}px; padding: 0px 14px;")
        self.remove_button.toggled.connect(self._remove_mode)
        chips.addWidget(self.remove_button)
        left.addLayout(chips)
        self.pad = AmountPad()
        self.pad.changed.connect(self._show_next_amount)
        left.addWidget(self.pad)
        self._show_next_amount()

        right_frame = QFrame()
        right_frame.setObjectName("panel")
        right_frame.setFixedWidth(RIGHT_WIDTH)
        root.addWidget(right_frame)
        right = QVBoxLayout(right_frame)
        right.setContentsMargins(12, 6, 12, 6)
        right.setSpacing(6)
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.status.setStyleSheet(f"font-size: {theme.TABLE_PX}px;")
        fixed_lines(self.status, INNER_WIDTH, 1)
        right.addWidget(self.status)

        # The three cards, and beside them the round's totals (room for "collected
        # 100,000.00" at table size).
        top_row = QWidget()
        top_row.setObjectName("cardsRow")
        top_row.setStyleSheet("QWidget#cardsRow { background: transparent; }")
        top = QHBoxLayout(top_row)
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(6)
        self.card_views: list[CardView] = []
        for n in (1, 2, 3):
            cv = CardView(f"Card {n}\n{STAGE_NAMES[n]}")
            cv.setFixedSize(*CARD_PX)
            cv.setToolTip(f"Card {n}: {STAGE_NAMES[n]}")
            self.card_views.append(cv)
            top.addWidget(cv)
        warm_when_idle(self.card_views[0], LAPAIRE_DECK.cards())
        self.totals = RoundTotals()
        lines = math.ceil(self.totals.line_height() * 5)     # a head and 4 figures
        self.totals.setFixedSize(INNER_WIDTH - 3 * CARD_PX[0] - 3 * 6,
                                 max(CARD_PX[1] + 4, lines + 4))
        top.addWidget(self.totals)
        top_row.setFixedSize(INNER_WIDTH, self.totals.height())
        self.top_row = top_row

        self.model = WagersModel(self.config.money, self)
        self.wagers_view = QTableView()
        self.wagers_view.setModel(self.model)
        self.wagers_view.setStyleSheet(
            f"QTableView {{ font-size: {theme.TABLE_PX}px; }}"
            " QHeaderView::section { font-size: 17px; }")
        self.wagers_view.setAlternatingRowColors(True)
        self.wagers_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.wagers_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.wagers_view.verticalHeader().hide()
        self.wagers_view.verticalHeader().setDefaultSectionSize(34)
        header = self.wagers_view.horizontalHeader()
        # Widths are fitted to the rows when they change (_fit_columns): Qt's own fitting asks
        # the model for every cell of every row on each change, for 35 wagers on each card.
        header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header.setSectionResizeMode(WagersModel.WAGER, QHeaderView.ResizeMode.Stretch)
        for col in (WagersModel.ID, WagersModel.STAGE, WagersModel.PAY):
            self.wagers_view.hideColumn(col)
        self.wagers_view.installEventFilter(self)
        # Every seat's pay and take, spot by spot, drawn in the wagers list's room once a
        # card has settled (in pages where it is long, each to be seen before Confirm), and
        # a new card repaints the list without laying out the panel.
        self.payouts = StagePayouts(SEATS)
        self.payouts.seen_changed.connect(self._confirm_state)
        self.ledger = Ledger(self.top_row, self.wagers_view, self.payouts)
        self._columns_fitted = False
        #: The view the wagers list's rows were last made from (they are made again only
        #: where the list is in view: behind the payouts nobody reads it).
        self._rows_from: LaPaireView | None = None
        self.ledger.before_list = self._list_back
        right.addWidget(self.ledger, 1)

        self.confirm_button = QPushButton("Paid — confirm")
        self.confirm_button.setObjectName("primary")
        # Fixed in size, as every text of the panel that changes with the cards is: a change
        # of text then repaints it alone, never lays the panel out again.
        self.confirm_button.setFixedWidth(INNER_WIDTH)
        # Fixed in the style sheet, which would otherwise set its least height (the box
        # inside padding and border: 62 px in all).
        self.confirm_button.setStyleSheet("min-height: 52px; max-height: 52px;")
        self.confirm_button.clicked.connect(self.confirm)
        right.addWidget(self.confirm_button)
        QShortcut(QKeySequence("P"), self, self.confirm,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.seat_buttons[1].setChecked(True)

    def _build_chips(self) -> None:
        for b in self.chip_buttons:
            self.chip_group.removeButton(b)
            b.deleteLater()
        self.chip_buttons = []
        money = self.config.money
        for i, value in enumerate(money.chips[: len(CHIP_KEYS)]):
            b = ChipButton(value, money.chip_face(value))
            self.chip_group.addButton(b, i)
            self.chip_buttons.append(b)
            self.chip_row.insertWidget(i, b)
            b.clicked.connect(lambda _=False, v=value: self.select_chip(v))
            b.dragged.connect(self._chip_dragged)
            b.dropped.connect(self._chip_dropped)
        if self.chip_value not in money.chips:
            self.chip_value = money.chips[0]
        for b in self.chip_buttons:
            b.setChecked(b.value == self.chip_value)

    def banner_room(self) -> QRect:
        """Where the stop banner goes over this screen (see ui/banner.py): the dealer's
        controls under the felt, from the message bar to the keypad, which cannot act while
        play is stopped. The felt keeps its size and place, and the right-hand panel (the
        payouts still to confirm) stays in view."""
        top = self.message.mapTo(self, QPoint(0, 0))
        bottom = self.pad.mapTo(self, QPoint(self.pad.width(), self.pad.height()))
        return QRect(top, bottom - QPoint(1, 1))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # Delete in the wagers list takes the chosen wager back.
        if (watched is self.wagers_view and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent)
                and event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)):
            self.remove_selected()
            return True
        return super().eventFilter(watched, event)

    # -- selections ------------------------------------------------------------------------

    def select_seat(self, seat: int) -> None:
        self.seat = seat
        self.seat_buttons[seat].setChecked(True)
        self.layout_view.set_seat(seat)

    def select_chip(self, value: int) -> None:
        """The chip each touch places from now on (an amount typed and not yet placed is
        dropped: the chip is what the dealer chose last)."""
        self.chip_value = value
        for b in self.chip_buttons:
            b.setChecked(b.value == value)
        self.pad.clear()
        self._show_next_amount()

    def _chip_dragged(self, where: QPoint) -> None:
        """A chip dragged off the chip row: the spot under the finger is lit."""
        self.layout_view.hover_at(QPointF(self.layout_view.mapFromGlobal(where)))

    def _chip_dropped(self, value: int, where: QPoint) -> None:
        """A chip let go on the felt: it is the chip from now on (what was typed stays: a
        count counts this chip), and it is placed on the spot under the finger."""
        view = self.layout_view
        view.hover_at(None)
        pos = view.mapFromGlobal(where)
        spot = view.spot_at(QPointF(pos)) if view.rect().contains(pos) else None
        if spot is None:
            return
        self.chip_value = value
        for b in self.chip_buttons:
            b.setChecked(b.value == value)
        self._show_next_amount()
        self.place_on(spot.bet, spot.values)

    def _show_next_amount(self) -> None:
        money = self.config.money
        typed = self.pad.typed
        if not typed:
            how = "1 chip of" if self.pad.counting else "chip"
            self.next_amount.setText(f"Next wager:\n{how} {money.number(self.chip_value)}")
            return
        try:
            value = self._next_value()
        except AmountError:
            what = "a count" if self.pad.counting else "an amount"
            self.next_amount.setText(f"Typed: {typed}\n(not {what} yet)")
            return
        if self.pad.counting:
            self.next_amount.setText(f"Next: {typed} × {money.number(self.chip_value)}\n"
                                     f"= {money.number(value)}")
        else:
            self.next_amount.setText(f"Next wager:\n{money.number(value)} typed")

    def _next_value(self) -> int:
        """The amount the next touch places: the amount typed, or the chips counted times the
        chip, else the chip's (AmountError if what was typed is neither)."""
        if self.pad.typed:
            if self.pad.counting:
                return parse_count(self.pad.typed) * self.chip_value
            return parse_amount(self.pad.typed, self.config.money)
        return self.chip_value

    def _chip_key(self, i: int) -> None:
        if i < len(self.chip_buttons):
            self.select_chip(self.chip_buttons[i].value)

    def _remove_mode(self, on: bool) -> None:
        self.layout_view.remove_mode = on

    # -- intents ---------------------------------------------------------------------------

    def _user(self) -> User | None:
        user = self.session.user
        if user is None:
            self.say("Sign in first.", "bad")
        return user

    def say(self, text: str, tone: str = "info", about_round: int | None = None) -> None:
        """Show ``text`` in the message bar. ``about_round``: the round it speaks of, when
        that is not the one under way (a round just closed or voided); such a message goes
        when the next round opens."""
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self._message_round = about_round

    def refuse(self, key: SpotKey | None, reason: str) -> None:
        text = reason[:1].upper() + reason[1:]
        self.say(text, "bad")
        if key is not None:
            self.layout_view.show_callout(key, text)

    def place_on(self, bet: str, values: tuple[str, ...]) -> None:
        """A chip of the selected value for the selected seat on (bet, values)."""
        user = self._user()
        if user is None:
            return
        key = (bet, tuple(values))
        try:
            wager = Wager(self.seat, bet, tuple(values), self._next_value())
        except AmountError as exc:
            self.refuse(key, f"what was typed: {exc}")
            return
        except WagerError as exc:
            self.refuse(key, str(exc))
            return
        reason = self.table.place_refusal(wager)
        if reason is not None:
            self.refuse(key, reason)
            return
        try:
            self.table.place(wager, actor=user.actor)
        except StationError as exc:
            self.refuse(key, str(exc))
            return
        self.layout_view.clear_callout()
        self.pad.clear()          # a typed amount is for one wager; the chip stays chosen
        self.say(f"Seat {self.seat}: {self.config.money.number(wager.amount)} on "
                 f"{spot_name(bet, wager.values)}", "good")

    def rebet(self, seat: int) -> None:
        """Seat ``seat``'s wagers from its last round, placed again (the table checks them
        as any placement, and places all of them or none)."""
        user = self._user()
        if user is None:
            return
        try:
            placed = self.table.rebet(seat, actor=user.actor)
        except StationError as exc:
            text = str(exc)
            self.say(text[:1].upper() + text[1:], "bad")
            return
        # The seat selected stays so: a rebet is one touch of a seat's plate, and the dealer
        # goes on with the seat in hand.
        self.layout_view.clear_callout()
        total = sum(p.wager.amount for p in placed)
        self.say(f"Seat {seat}: rebet {len(placed)} wager{'s' if len(placed) != 1 else ''}, "
                 f"{self.config.money.number(total)}, as in its last round", "good")

    def _offer_rebets(self, v: LaPaireView) -> None:
        """A rebet plate on each seat that has a last round and nothing on the layout yet."""
        open_now = v.status == "open"
        playing = {w.seat for w in v.wagers.values()} if open_now else set()
        can_bet = v.halt is None and (v.betting_open if open_now else True)
        money = self.config.money
        for seat, plate in self.rebet_plates.items():
            last = v.rebets.get(seat, ())
            plate.offer(money.number(sum(w.amount for w in last))
                        if last and can_bet and seat not in playing else None)

    def remove_from(self, bet: str, values: tuple[str, ...]) -> None:
        """Take the selected seat's last chip on (bet, values) back (the table decides
        which chip that is)."""
        user = self._user()
        if user is None:
            return
        key = (bet, tuple(values))
        try:
            w = self.table.take_back(self.seat, bet, values, actor=user.actor)
        except StationError as exc:
            self.refuse(key, str(exc))
            return
        self.layout_view.clear_callout()
        self.say(f"Seat {w.seat}: took back {self.config.money.number(w.amount)} from "
                 f"{spot_name(w.bet, w.values)}", "good")

    def remove_selected(self) -> None:
        rows = self.wagers_view.selectionModel().selectedRows()
        if not rows:
            self.say("Choose a wager in the list first.", "bad")
            return
        self.remove_wager(int(self.model.data(rows[0], Qt.ItemDataRole.UserRole)), None)

    def remove_wager(self, wager_id: int, key: SpotKey | None) -> None:
        user = self._user()
        if user is None:
            return
        w = self.view.wagers.get(wager_id)
        try:
            self.table.remove(wager_id, actor=user.actor)
        except StationError as exc:
            self.refuse(key, str(exc))
            return
        if w is not None:
            self.say(f"Seat {w.seat}: took back {self.config.money.number(w.amount)} from "
                     f"{spot_name(w.bet, w.values)}", "good")

    def confirm(self) -> None:
        """The dealer has paid the stage awaiting payment."""
        user = self._user()
        if user is None:
            return
        stage = self.view.to_confirm
        if stage is None:
            self.say("Nothing to confirm: no card is waiting to be paid.", "bad")
            return
        unseen = self._unseen()
        if unseen or self.payouts.key != (self.view.round_no, stage):
            self.say(f"Not confirmed: {seat_list(unseen) or 'the payouts'} of card {stage} "
                     "not yet seen. Touch › at the top of the payouts to see them, then "
                     "confirm.",
                     "bad")
            return
        try:
            closed = self.table.confirm_payout(stage, actor=user.actor)
        except StationError as exc:
            self.say(str(exc), "bad")
            return
        self.say(f"Card {stage} paid." + (" Round complete." if closed else ""), "good")

    # -- following the table ---------------------------------------------------------------

    def on_change(self, update: Update) -> None:
        view = update.view
        if not isinstance(view, LaPaireView):
            return
        if update.has(ConfigChanged) and view.config_pending:
            self.say("New table configuration saved: it takes effect from the next round.",
                     "info")
        money = view.config.money
        if (update.has(RoundOpened) and self._message_round is not None
                and self._message_round != view.round_no):
            # What the last round came to is in the recall; the bar speaks of this one.
            self.say("", "info")
        for closed in update.of(RoundClosed):
            self.say(f"Round {view.last_round_no} complete: paid "
                     f"{money.number(closed.total_win)}, collected "
                     f"{money.number(closed.total_lost)}. Place wagers for the next round.",
                     "good", about_round=view.last_round_no)
        for voided in update.of(RoundVoided):
            back = sum(view.wagers[i].amount for i in voided.returned if i in view.wagers)
            self.say(f"Round {view.last_round_no} voided ({voided.reason}): "
                     + (f"{money.number(back)} in wagers not yet settled returned"
                        if voided.returned else "every wager had settled, none returned")
                     + (", settled cards stand." if voided.cards else "."), "bad",
                     about_round=view.last_round_no)
        self.refresh(view, _sections(update))

    def _adopt_config(self, config: LaPaireConfig) -> None:
        if config is self.config:
            return
        self.config = config
        self.model.money = config.money
        self.layout_view.set_config(config)
        self._build_chips()

    def refresh(self, v: LaPaireView, sections: frozenset[str] = ALL_SECTIONS) -> None:
        """Draw the parts of the screen that ``sections`` names from the table's view."""
        self.view = v
        self._adopt_config(v.config)
        money = self.config.money
        if "felt" in sections:
            self._felt(v)
        if "cards" in sections:
            for i, cv in enumerate(self.card_views):
                cv.set_card(v.cards[i] if i < len(v.cards) else None,
                            highlight=i + 1 == v.to_confirm)
        if "seats" in sections:
            self._offer_rebets(v)
        if "seats" in sections:
            for seat, b in self.seat_buttons.items():
                t = v.seat_totals.get(seat)
                if t is None:
                    b.set_total("")
                    continue
                text = money.number(t.staked)
                if t.win or t.lost:
                    text += f"\n{'+' if t.net >= 0 else '−'}{money.number(abs(t.net))}"
                b.set_total(text)
        # The payouts first: a card that puts them in the list's room then spares the list
        # making its rows for nobody to see (they are made as the list comes back).
        if "stage" in sections:
            self._stage_text(v)
        if "wagers" in sections:
            self._wager_rows(v)
        self._status_text(v)
        if "totals" in sections:
            self._totals(v)

    def _felt(self, v: LaPaireView) -> None:
        """Each seat's chips per spot, and how each spot has settled."""
        chips: dict[SpotKey, dict[int, int]] = {}
        outcomes: dict[SpotKey, bool] = {}
        for wager_id, w in v.wagers.items():
            r = v.results.get(wager_id)
            if v.status == "voided" and r is None:
                continue
            by_seat = chips.setdefault(w.spot, {})
            by_seat[w.seat] = by_seat.get(w.seat, 0) + w.amount
            if r is not None:
                outcomes[w.spot] = outcomes.get(w.spot, False) or r.won
        marks = {v.cards[0].value: 1} if v.cards else {}
        pair = v.cards[1].value if len(v.cards) > 1 else None
        poker = v.stages[3].poker if 3 in v.stages else None
        self.layout_view.set_round(chips, outcomes, marks, pair,
                                   poker.label if poker is not None else None)

    def _wager_rows(self, v: LaPaireView) -> None:
        """The wagers list's rows from ``v``, once the list is in view: while a card's
        payouts cover it, its rows are made as it comes back (:meth:`_list_back`), not in
        the time between the card and its payouts on screen."""
        if self.ledger.showing_payouts or v is self._rows_from:
            return
        self._make_rows(v)
        self._fit_columns()

    def _list_back(self) -> None:
        """The wagers list is coming back into view: its rows as the table is now."""
        if self.view is not self._rows_from:
            self._make_rows(self.view)
        self._fit_columns()

    @property
    def wager_rows(self) -> list[WagerRow]:
        """The wagers list's rows as the table is now (made now if the payouts cover the
        list and it has not been brought up to date)."""
        if self.view is not self._rows_from:
            self._make_rows(self.view)
        return list(self.model.rows)

    def _make_rows(self, v: LaPaireView) -> None:
        """A row for each spot a seat has chips on, its chips there summed (they settle
        together), in the order the seat first bet them."""
        self._rows_from = v
        rows: dict[tuple[int, SpotKey], WagerRow] = {}
        for wager_id, w in sorted(v.wagers.items(), key=lambda kv: (kv[1].seat, kv[0])):
            r = v.results.get(wager_id)
            result = (r.result if r is not None else
                      "returned" if v.status == "voided" else "pending")
            actor = v.actors.get(wager_id, "")
            key = (w.seat, w.spot)
            was = rows.get(key)
            if was is None:
                rows[key] = WagerRow(wager_id, w.seat, short_spot_name(w.bet, w.values), w.amount,
                                     w.stage, result, r.win if r is not None else 0, actor)
                continue
            by = was.placed_by if actor in was.placed_by.split(", ") else \
                ", ".join(filter(None, (was.placed_by, actor)))
            rows[key] = WagerRow(wager_id, w.seat, was.label, was.amount + w.amount, w.stage,
                                 result, was.win + (r.win if r is not None else 0), by)
        self.model.set_rows(list(rows.values()))
        self._columns_fitted = False

    def _fit_columns(self) -> None:
        """Each narrow column as wide as its widest text (amounts are never cut short).
        Done when the list is in view: behind the payouts, on every card, it was wasted."""
        if self._columns_fitted:
            return
        self._columns_fitted = True
        cells = self.wagers_view.fontMetrics()
        heads = self.wagers_view.horizontalHeader().fontMetrics()
        header = self.wagers_view.horizontalHeader()
        for col in (WagersModel.SEAT, WagersModel.STAKE, WagersModel.RESULT):
            widest = max((cells.horizontalAdvance(self.model.text(r, col))
                          for r in self.model.rows), default=0)
            width = max(widest, heads.horizontalAdvance(WagersModel.HEADERS[col])) + 22
            if header.sectionSize(col) != width:
                header.resizeSection(col, width)

    def _totals(self, v: LaPaireView) -> None:
        money = self.config.money
        staked = sum(t.staked for t in v.seat_totals.values())
        won = sum(t.win for t in v.seat_totals.values())
        lost = sum(t.lost for t in v.seat_totals.values())
        pending = sum(t.pending for t in v.seat_totals.values())
        if v.shown_round is None:
            self.totals.show_totals("", [])
            return
        lines = [("wagered", staked, theme.TEXT), ("paid", won, theme.GOOD),
                 ("collected", lost, theme.BAD)]
        if pending:
            lines.append(("in play", pending, theme.MUTED))
        self.totals.show_totals(f"Round {v.shown_round}",
                                [(name, money.number(value), colour)
                                 for name, value, colour in lines])

    def _status_text(self, v: LaPaireView) -> None:
        stage = v.to_confirm
        if v.halted:
            text = "Round stopped — see the banner"
        elif v.round_no is None:
            # (One line: what the round came to is in the message and the totals.)
            text = (f"Round {v.last_round_no} voided · place wagers" if v.status == "voided"
                    else f"Round {v.last_round_no + 1}: place wagers")
        elif v.betting_open:
            n = len({(w.seat, w.spot) for w in v.wagers.values()})
            text = f"Round {v.round_no} · betting open · {n} wager{'s' if n != 1 else ''}"
        elif stage is not None:
            text = f"Pay card {stage}, then confirm"
        else:
            text = f"Waiting for card {len(v.cards) + 1} from the shoe"
        self.status.setText(text)
        self._confirm_state()

    def _unseen(self) -> list[int]:
        """The seats whose pays or takes for the card awaiting payment are on pages of the
        list not yet shown (none when no card awaits payment)."""
        v = self.view
        if v.to_confirm is None or self.payouts.key != (v.round_no, v.to_confirm):
            return []
        return self.payouts.unseen_seats()

    def _confirm_state(self) -> None:
        """Confirm is on once a card awaits payment and every page of its payouts has been
        shown; until then it says which seats are still to be seen."""
        v = self.view
        stage = v.to_confirm
        shown = stage is not None and self.payouts.key == (v.round_no, stage)
        unseen = self._unseen()
        self.confirm_button.setEnabled(shown and not unseen)
        if stage is None:
            text = "Paid — confirm  (P)"
        elif unseen:
            text = f"Touch › to see {seat_list(unseen)}, then confirm"
        else:
            text = f"Paid — confirm card {stage}  (P)"
        self.confirm_button.setText(text)

    def _stage_text(self, v: LaPaireView) -> None:
        # The card awaiting payment; else the last card settled (one with nothing to pay is
        # confirmed by the station, and its takes still have to be collected).
        stage = v.to_confirm
        if stage is None and v.stages:
            stage = max(v.stages)
        if stage is None or stage not in v.stages or v.status == "voided":
            # The wagers list has the room (after a void: what is returned).
            self.payouts.clear()
            self.ledger.show_payouts(False)
            return
        s = v.stages[stage]
        money = self.config.money
        head = f"Card {stage} · {STAGE_NAMES[stage]}: {s.card.label}"
        if s.poker is not None:
            head += f" — {s.poker.label}"
        self.ledger.show_payouts(True)
        key = (v.round_no, stage)
        if not s.results:
            self.payouts.show_stage(head, (), "No wagers settle on this card.", key)
            return
        # Each seat's spots (its chips on a spot summed), in the order it bet them.
        spots: dict[int, dict[SpotKey, list[int]]] = {}
        for r in s.results:
            won_stake = spots.setdefault(r.wager.seat, {}).setdefault(r.wager.spot, [0, 0, 0])
            won_stake[0] += r.win
            won_stake[1 if r.won else 2] += r.wager.amount
        rows = []
        for seat in sorted(spots):
            items = []
            for (bet, values), (win, back, lost) in spots[seat].items():
                name = short_spot_name(bet, values)
                if win or back:
                    items.append(SpotPayout(name, money.number(win), money.number(back)))
                else:
                    items.append(SpotPayout(name, take=money.number(lost)))
            rows.append(SeatPayout(seat, tuple(items)))
        self.payouts.show_stage(head, rows, key=key)


__all__ = ["LaPaireScreen"]



def lapaire_screens(station: Station, events: TableEvents, session: SignInSession
                    ) -> tuple[QWidget, QWidget, QWidget | None]:
    """The registry's ``screens`` part: the dealer's felt, the operator's screen, and the
    demo panel when the devices are simulated."""
    from dealer_station.games.lapaire.ui.demo_panel import DemoPanel
    from dealer_station.games.lapaire.ui.operator_screen import OperatorScreen

    table: Any = station.table
    shoe = station.simulator("shoe")
    demo: QWidget | None = DemoPanel(table, shoe) if station.simulated and shoe else None
    return LaPaireScreen(table, events, session), OperatorScreen(table, events, session), demo
