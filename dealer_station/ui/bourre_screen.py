"""The Bourré dealer screen.

The dealer sees the seats (chips, dealer button, stayed or folded, tricks won), the pot, the
trump card, whose turn it is and what is expected of her, and the trick on the table as the
card reader reports it. Everything is drawn from the table's read model (BourreView), handed
over with each commit: players' hands are never shown here, and the rules' answers (may this
seat stay?) come worked out. A renege is announced the moment its card is read, with the rule
it broke.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import User
from dealer_station.errors import StationError
from dealer_station.table.base import Update
from dealer_station.table.bourre_view import BourreView
from dealer_station.ui import theme
from dealer_station.ui.bourre_seats import (
    DEFAULT_SEATS,
    MAX_SEATS,
    RULE_NAMES,
    SeatBox,
    seat_list,
)
from dealer_station.ui.card_view import CardView
from dealer_station.ui.formatting import card_text
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents

if TYPE_CHECKING:
    from dealer_station.ui.station import Station


class BourreScreen(QWidget):
    """The dealer's Bourré screen over one BourreTable."""

    def __init__(self, table: Any, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.session = session
        self._result_shown: Any = None
        self._build()
        with table.lock:
            self.view: BourreView = table.read_model()
        events.listen(self.on_change)
        self.refresh(self.view)

    def _build(self) -> None:
        root = QHBoxLayout(self)
        root.setContentsMargins(10, 8, 10, 8)
        root.setSpacing(12)
        left = QVBoxLayout()
        root.addLayout(left, 1)
        grid = QGridLayout()
        grid.setSpacing(8)
        self.seat_boxes: dict[int, SeatBox] = {}
        for i in range(MAX_SEATS):
            box = SeatBox(i + 1)
            self.seat_boxes[i + 1] = box
            grid.addWidget(box, i // 4, i % 4)
        left.addLayout(grid, 1)
        self.message = QLabel("")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.setMinimumHeight(44)
        theme.set_tone(self.message, "info")
        left.addWidget(self.message)

        actions = QHBoxLayout()
        self.stay_button = QPushButton("Stay")
        self.stay_button.setObjectName("primary")
        self.stay_button.clicked.connect(lambda: self.decide(True))
        self.fold_button = QPushButton("Fold")
        self.fold_button.clicked.connect(lambda: self.decide(False))
        self.discard_button = QPushButton("Discards done — deal the draw")
        self.discard_button.clicked.connect(self.finish_discard)
        self.hand_button = QPushButton("Deal a new hand")
        self.hand_button.setObjectName("primary")
        self.hand_button.clicked.connect(self.start_hand)
        for b in (self.stay_button, self.fold_button, self.discard_button, self.hand_button):
            actions.addWidget(b)
        left.addLayout(actions)

        right_frame = QFrame()
        right_frame.setObjectName("panel")
        right_frame.setFixedWidth(400)
        root.addWidget(right_frame)
        right = QVBoxLayout(right_frame)
        self.status = QLabel("")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        right.addWidget(self.status)
        row = QHBoxLayout()
        self.trump_view = CardView("Trump\nnot turned yet")
        self.trump_view.setMinimumHeight(150)
        row.addWidget(self.trump_view, 1)
        self.pot_label = QLabel("")
        self.pot_label.setTextFormat(Qt.TextFormat.RichText)
        self.pot_label.setStyleSheet("font-size: 20px;")
        row.addWidget(self.pot_label, 1)
        right.addLayout(row)
        self.renege_label = QLabel("")
        self.renege_label.setObjectName("message")
        self.renege_label.setWordWrap(True)
        theme.set_tone(self.renege_label, "bad")
        self.renege_label.hide()
        right.addWidget(self.renege_label)
        self.result = QTextBrowser()
        self.result.setPlaceholderText("Who takes the pot, who is bourréd and what carries "
                                       "appear here when the hand is settled.")
        right.addWidget(self.result, 1)

        session_box = QGroupBox("Session")
        sb = QVBoxLayout(session_box)
        seats_row = QHBoxLayout()
        self.seat_checks: dict[int, QCheckBox] = {}
        for n in range(1, MAX_SEATS + 1):
            cb = QCheckBox(str(n))
            cb.setStyleSheet("QCheckBox { spacing: 2px; }")
            cb.setChecked(n in DEFAULT_SEATS)
            self.seat_checks[n] = cb
            seats_row.addWidget(cb)
        sb.addLayout(seats_row)
        brow = QHBoxLayout()
        self.session_button = QPushButton("Start session")
        self.session_button.clicked.connect(self.start_session)
        self.end_button = QPushButton("End session")
        self.end_button.clicked.connect(self.end_session)
        brow.addWidget(self.session_button)
        brow.addWidget(self.end_button)
        sb.addLayout(brow)
        right.addWidget(session_box)

    # -- intents ---------------------------------------------------------------------------

    def _user(self) -> User | None:
        user = self.session.user
        if user is None:
            self.say("Sign in first.", "bad")
        return user

    def say(self, text: str, tone: str = "info") -> None:
        self.message.setText(text)
        theme.set_tone(self.message, tone)

    def _do(self, action: Any, done: str) -> Any:
        user = self._user()
        if user is None:
            return None
        try:
            result = action(user)
        except StationError as exc:
            self.say(str(exc)[:1].upper() + str(exc)[1:], "bad")
            return None
        self.say(done, "good")
        return result

    def start_session(self) -> None:
        seats = [n for n, cb in self.seat_checks.items() if cb.isChecked()]
        if not seats:
            self.say("Choose the seats that play.", "bad")
            return
        self._do(lambda u: self.table.start_session(seats, actor=u.actor),
                 f"Session started: seats {seat_list(seats)}.")

    def end_session(self) -> None:
        result = self._do(lambda u: self.table.end_session(actor=u.actor), "Session over.")
        if result is not None:
            standings = ", ".join(f"seat {s.seat} {s.chips} ({s.outcome.value})"
                                  for s in result.standings)
            self.say(f"Session over: {standings}", "good")

    def start_hand(self) -> None:
        self._do(lambda u: self.table.start_hand(actor=u.actor),
                 "New hand: antes in. Deal from the shoe.")

    def decide(self, stay: bool) -> None:
        seat = self.view.to_act if self.view.phase == "decisions" else None
        if seat is None:
            self.say("No one is deciding now.", "bad")
            return
        self._do(lambda u: self.table.decide(seat, stay, actor=u.actor),
                 f"Seat {seat} {'stays' if stay else 'folds'}.")

    def finish_discard(self) -> None:
        seat = self.view.to_act if self.view.phase == "draw" else None
        if seat is None:
            self.say("No one is drawing now.", "bad")
            return
        count = self._do(lambda u: self.table.finish_discard(seat, actor=u.actor), "")
        if count is not None:
            self.say(f"Seat {seat} discarded {count}: deal {count} from the shoe.", "good")

    # -- following the table ---------------------------------------------------------------

    def on_change(self, update: Update) -> None:
        if isinstance(update.view, BourreView) and update.events:
            self.refresh(update.view)

    def refresh(self, v: BourreView) -> None:
        """Draw the screen from the table's view."""
        self.view = v
        self._renege(v.renege)
        if v.last_result != self._result_shown:
            self._result_shown = v.last_result
            if v.last_result is None:
                self.result.clear()
            else:
                self.show_result(dict(v.last_result))
        seats = v.seats if v.session_open else tuple(
            n for n, cb in self.seat_checks.items() if cb.isChecked())
        for n, box in self.seat_boxes.items():
            if n not in seats:
                box.hide()
                continue
            box.show()
            box.show_seat(name=v.players.get(n, ""), chips=v.chips.get(n),
                          status=_status_html(v.seat_status.get(n, "")), dealer=n == v.dealer,
                          to_act=n == v.to_act, tricks=v.tricks.get(n),
                          played=v.played.get(n), renege=n in v.reneged)
        self.trump_view.set_card(v.trump)
        self.pot_label.setText(f"Pot<br><b style='font-size:34px'>{v.pot}</b><br>"
                               f"<span style='color:{theme.MUTED}'>trick "
                               f"{v.trick} of 5</span>" if v.hand_under_way else
                               f"Pot<br><b style='font-size:34px'>{v.pot}</b>")
        self.status.setText(v.prompt)
        self.stay_button.setEnabled(v.can_stay)
        self.fold_button.setEnabled(v.can_fold)
        self.discard_button.setEnabled(v.phase == "draw" and not v.receiving)
        self.hand_button.setEnabled(v.session_open and not v.hand_under_way)
        self.session_button.setEnabled(not v.session_open)
        self.end_button.setEnabled(v.session_open and not v.hand_under_way)
        for cb in self.seat_checks.values():
            cb.setEnabled(not v.session_open)

    def _renege(self, d: Any) -> None:
        """The hand's last renege, announced until the next hand (or a void)."""
        if not d:
            self.renege_label.hide()
            return
        rule = RULE_NAMES.get(str(d.get("rule")), str(d.get("rule")))
        then = ("the card stands in the trick" if d.get("stands")
                else f"the card goes back: seat {d.get('seat')} plays again")
        pen = " and pays the renege penalty" if d.get("penalised") else ""
        self.renege_label.setText(
            f"RENEGE — seat {d.get('seat')}, trick {d.get('trick')}: "
            f"{escape(card_text(str(d.get('card'))))} — {rule}. "
            f"{then[:1].upper()}{then[1:]}{pen}.")
        self.renege_label.show()

    def show_result(self, r: dict[str, Any]) -> None:
        if r.get("dead"):
            text = (f"<h3>Dead hand</h3><p>Too few players could stay: the pot of "
                    f"<b>{r.get('pot')}</b> carries.</p>")
        else:
            winner = r.get("winner")
            tricks = ", ".join(f"seat {k}: {v}" for k, v in (r.get("tricks") or {}).items())
            lines = [f"<h3>Hand settled</h3><p>Tricks — {tricks}</p>"]
            if winner:
                lines.append(f"<p style='color:{theme.GOOD}; font-size:20px'><b>Seat {winner}"
                             f" takes the pot: {r.get('won')} chips</b></p>")
            else:
                lines.append(f"<p style='color:{theme.WARN}; font-size:20px'><b>No winner: "
                             f"the pot of {r.get('pot_end')} carries</b></p>")
            if r.get("bourre"):
                lines.append(f"<p style='color:{theme.BAD}'><b>Bourré:</b> seat(s) "
                             f"{seat_list(r['bourre'])} took no trick</p>")
            for m in r.get("reneges") or []:
                lines.append(f"<p style='color:{theme.BAD}'><b>Renege:</b> seat {m['seat']} "
                             f"({RULE_NAMES.get(m['rule'], m['rule'])})</p>")
            pens = r.get("penalties") or {}
            if pens:
                lines.append("<p><b>Penalties into the next pot:</b> " + ", ".join(
                    f"seat {k} pays {v}" for k, v in pens.items()) + "</p>")
            if r.get("house"):
                lines.append(f"<p>House collection: {r['house']}</p>")
            lines.append(f"<p><b>Next pot (carry): {r.get('pot')}</b></p>")
            text = "".join(lines)
        self.result.setHtml(text)


def _status_html(status: str) -> str:
    colour = {"out": theme.BAD, "stayed": theme.GOOD, "folded": theme.MUTED}.get(status)
    return f"<span style='color:{colour}'>{status}</span>" if colour else status


def bourre_screens(station: Station, events: TableEvents, session: SignInSession
                   ) -> tuple[QWidget, QWidget, QWidget | None]:
    """The registry's ``screens`` part: the dealer's hand screen, the operator's profile
    screen, and the demo panel when the devices are simulated."""
    from dealer_station.ui.bourre_demo import BourreDemoPanel
    from dealer_station.ui.bourre_operator import BourreOperatorScreen

    table: Any = station.table
    demo = BourreDemoPanel(table, station) if station.simulated else None
    return (BourreScreen(table, events, session), BourreOperatorScreen(table, events, session),
            demo)
