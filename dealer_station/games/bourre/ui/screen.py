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
from dealer_station.games.bourre.table.view import BourreView
from dealer_station.games.bourre.ui.seats import (
    DEFAULT_SEATS,
    MAX_NAME,
    MAX_SEATS,
    RULE_NAMES,
    SeatBox,
    and_list,
    capital,
    seat_list,
    seat_name,
    seat_who,
)
from dealer_station.table.base import Update
from dealer_station.ui import theme
from dealer_station.ui.card_view import CardView
from dealer_station.ui.formatting import card_text
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents
from dealer_station.ui.touch_keyboard import InputSheet, open_keyboard

if TYPE_CHECKING:
    from dealer_station.app import Station


class BourreScreen(QWidget):
    """The dealer's Bourré screen over one BourreTable."""

    def __init__(self, table: Any, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.session = session
        self._result_shown: Any = None
        #: The players' names typed at the seats before a session: journaled when it starts.
        self.names: dict[int, str] = {}
        #: The phase the message bar speaks of: it is cleared when the hand moves on.
        self._message_phase = "none"
        self._build()
        self.view: BourreView = table.view()
        events.listen(self.on_change)
        self.refresh(self.view)

    def _build(self) -> None:
        root = QHBoxLayout(self)
        root.setContentsMargins(10, 8, 10, 8)
        root.setSpacing(12)
        left = QVBoxLayout()
        root.addLayout(left, 1)
        self.seats_area = QWidget()
        grid = QGridLayout(self.seats_area)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(8)
        self.seat_boxes: dict[int, SeatBox] = {}
        for i in range(MAX_SEATS):
            box = SeatBox(i + 1)
            box.tapped.connect(self.name_seat)
            self.seat_boxes[i + 1] = box
            grid.addWidget(box, i // 4, i % 4)
        left.addWidget(self.seats_area, 1)
        #: The on-screen keyboard open on a seat's name, if any.
        self.name_sheet: InputSheet | None = None
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
        self.pot_label.setWordWrap(True)
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
        self.result.document().setDocumentMargin(2)
        right.addWidget(self.result, 1)

        session_box = QGroupBox("Session")
        sb = QVBoxLayout(session_box)
        # The seats that play are chosen before a session: hidden while one is under way,
        # so that the settlement has the room.
        self.seats_row = QWidget()
        seats_row = QHBoxLayout(self.seats_row)
        seats_row.setContentsMargins(0, 0, 0, 0)
        self.seat_checks: dict[int, QCheckBox] = {}
        for n in range(1, MAX_SEATS + 1):
            cb = QCheckBox(str(n))
            cb.setStyleSheet("QCheckBox { spacing: 2px; }")
            cb.setChecked(n in DEFAULT_SEATS)
            cb.toggled.connect(lambda _on: self.refresh(self.view))
            self.seat_checks[n] = cb
            seats_row.addWidget(cb)
        sb.addWidget(self.seats_row)
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

    def say(self, text: str, tone: str = "info", phase: str | None = None) -> None:
        """Tell the dealer ``text`` until the hand leaves ``phase`` (by default the phase
        shown now): what was said about the draw is gone once the play begins."""
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self._message_phase = self.view.phase if phase is None else phase

    def _do(self, action: Any, done: str, phase: str | None = None) -> Any:
        user = self._user()
        if user is None:
            return None
        try:
            result = action(user)
        except StationError as exc:
            self.say(str(exc)[:1].upper() + str(exc)[1:], "bad")
            return None
        self.say(done, "good", phase)
        return result

    def start_session(self) -> None:
        seats = [n for n, cb in self.seat_checks.items() if cb.isChecked()]
        if not seats:
            self.say("Choose the seats that play.", "bad")
            return
        # The names typed at the seats are journaled with the session's set-up.
        players = {n: self.names[n] for n in seats if self.names.get(n)}
        self._do(lambda u: self.table.start_session(seats, players=players, actor=u.actor),
                 f"Session started: seats {seat_list(seats)}.")

    def name_seat(self, seat: int) -> None:
        """A touch on a seat before a session: the player's name, on the on-screen keyboard."""
        if self.view.session_open:
            self.say("Players are named before the session starts.", "bad")
            return
        self.name_sheet = open_keyboard(
            self, f"Seat {seat}: the player's name", lambda name: self.set_name(seat, name),
            text=self.names.get(seat, ""), words=True, max_length=MAX_NAME,
            placeholder="the player's name",
            note="Done with nothing typed leaves the seat unnamed.",
            check=lambda name: self._name_taken(seat, name))

    def _name_taken(self, seat: int, name: str) -> str | None:
        """Why ``name`` cannot be seat ``seat``'s (another seat has it), or None."""
        taken = next((n for n, other in self.names.items()
                      if n != seat and name and other.casefold() == name.casefold()), None)
        return (f"Seat {taken} is already {name}: give seat {seat} another name."
                if taken is not None else None)

    def set_name(self, seat: int, name: str) -> None:
        taken = self._name_taken(seat, name)
        if taken is not None:
            self.say(taken, "bad")
            return
        if name:
            self.names[seat] = name
            self.seat_checks[seat].setChecked(True)
        else:
            self.names.pop(seat, None)
        self.refresh(self.view)
        self.say(f"Seat {seat}: {name}." if name else f"Seat {seat}: no name.", "info")

    def end_session(self) -> None:
        result = self._do(lambda u: self.table.end_session(actor=u.actor), "Session over.")
        if result is not None:
            standings = ", ".join(f"{seat_who(s.seat, self.view.players)} {s.chips} "
                                  f"({s.outcome.value})" for s in result.standings)
            self.say(f"Session over: {standings}", "good")

    def start_hand(self) -> None:
        self._do(lambda u: self.table.start_hand(actor=u.actor),
                 "New hand: antes in. Deal from the shoe.", "deal")

    def decide(self, stay: bool) -> None:
        seat = self.view.to_act if self.view.phase == "decisions" else None
        if seat is None:
            self.say("No one is deciding now.", "bad")
            return
        self._do(lambda u: self.table.decide(seat, stay, actor=u.actor),
                 f"Seat {seat} {'stays' if stay else 'folds'}.", "decisions")

    def finish_discard(self) -> None:
        seat = self.view.to_act if self.view.phase == "draw" else None
        if seat is None:
            self.say("No one is drawing now.", "bad")
            return
        count = self._do(lambda u: self.table.finish_discard(seat, actor=u.actor), "", "draw")
        if count is not None:
            self.say(f"Seat {seat} discarded {count}: deal {count} from the shoe.", "good",
                     "draw")

    # -- following the table ---------------------------------------------------------------

    def on_change(self, update: Update) -> None:
        if isinstance(update.view, BourreView) and update.events:
            self.refresh(update.view)

    def refresh(self, v: BourreView) -> None:
        """Draw the screen from the table's view."""
        self.view = v
        if v.phase != self._message_phase:
            # The hand has moved on: what the bar said belongs to the phase before.
            self.message.clear()
            theme.set_tone(self.message, "info")
            self._message_phase = v.phase
        # The renege banner belongs to the play: never beside a settled hand's result.
        self._renege(v.renege if v.phase not in ("none", "settled") else None)
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
            name = v.players.get(n, "") if v.session_open else self.names.get(n, "")
            box.show_seat(name=name, chips=v.chips.get(n),
                          status=_status_html(v.seat_status.get(n, "")), dealer=n == v.dealer,
                          to_act=n == v.to_act, tricks=v.tricks.get(n),
                          played=v.played.get(n), renege=n in v.reneged,
                          winning=n == v.winning,
                          hint="" if v.session_open else
                          "touch to change" if name else "touch to name")
        self.trump_view.set_card(v.trump)
        # Between hands there is no trump: the settlement has its room.
        self.trump_view.setVisible(v.hand_under_way)
        # Between hands the pot is the one the next hand opens with, before its antes.
        pot = (f"{'Pot' if v.hand_under_way else 'Next pot'}<br>"
               f"<b style='font-size:34px'>{v.pot}</b>")
        if v.hand_under_way:
            pot += f"<br><span style='color:{theme.MUTED}'>trick {v.trick} of 5</span>"
        if v.winning is not None:
            pot += (f"<br><span style='color:{theme.GOLD}'><b>"
                    f"{escape(capital(seat_who(v.winning, v.players)))}</b> is winning the "
                    f"trick</span>")
        self.pot_label.setText(pot)
        self.status.setText(v.prompt)
        self.stay_button.setEnabled(v.can_stay)
        self.fold_button.setEnabled(v.can_fold)
        self.discard_button.setEnabled(v.phase == "draw" and not v.receiving)
        self.hand_button.setEnabled(v.session_open and not v.hand_under_way)
        self.session_button.setEnabled(not v.session_open)
        self.end_button.setEnabled(v.session_open and not v.hand_under_way)
        self.seats_row.setVisible(not v.session_open)

    def _renege(self, d: Any) -> None:
        """The hand's last renege, announced until the next hand (or a void)."""
        if not d:
            self.renege_label.hide()
            return
        rule = RULE_NAMES.get(str(d.get("rule")), str(d.get("rule")))
        who = seat_who(d.get("seat"), self.view.players)
        then = ("the card stands in the trick" if d.get("stands")
                else f"the card goes back: {who} plays again")
        pen = " and pays the renege penalty" if d.get("penalised") else ""
        self.renege_label.setText(
            f"RENEGE — {escape(who)}, trick {d.get('trick')}: "
            f"{escape(card_text(str(d.get('card'))))} — {rule}. "
            f"{then[:1].upper()}{then[1:]}{pen}.")
        self.renege_label.show()

    def show_result(self, r: dict[str, Any]) -> None:
        """The settled hand, every line of it in the panel without scrolling at 1280x800:
        who takes the pot, who is bourréd, the penalties and what the next pot starts with.
        Players by name, as their seats show them ("Ada (seat 1)")."""
        def line(text: str, colour: str | None = None, size: int = 18) -> str:
            style = f"margin:0 0 5px 0; font-size:{size}px" + (f"; color:{colour}"
                                                              if colour else "")
            return f"<p style='{style}'>{text}</p>"

        players = self.view.players

        def who(seat: object) -> str:
            return escape(seat_who(seat, players))

        pot = int(r.get("pot") or 0)
        if r.get("dead"):
            text = (line("<b>Dead hand</b>", size=20)
                    + line(f"Too few players could stay: the pot of <b>{pot}</b> chips "
                           f"carries to the next hand, before its antes."))
            self.result.setHtml(text)
            return
        winner = r.get("winner")
        tricks = ", ".join(f"{escape(seat_name(k, players))}: {v}"
                           for k, v in (r.get("tricks") or {}).items())
        lines = [line("<b>Hand settled</b>", size=20), line(f"Tricks — {tricks}")]
        if winner:
            lines.append(line(f"<b>{capital(who(winner))} takes the pot: {r.get('won')} "
                              f"chips</b>", theme.GOOD, 19))
        else:
            lines.append(line(f"<b>No winner: the pot of {r.get('pot_end')} chips carries</b>",
                              theme.WARN, 19))
        if r.get("bourre"):
            lines.append(line(f"<b>Bourré:</b> {and_list([who(s) for s in r['bourre']])} "
                              f"took no trick", theme.BAD))
        for m in r.get("reneges") or []:
            lines.append(line(f"<b>Renege:</b> {who(m['seat'])} "
                              f"({RULE_NAMES.get(m['rule'], m['rule'])})", theme.BAD))
        pens = r.get("penalties") or {}
        if pens:
            lines.append(line("<b>Penalties into the next pot:</b> " + ", ".join(
                f"{escape(seat_name(k, players))} pays {v}" for k, v in pens.items())))
        if r.get("house"):
            lines.append(line(f"House collection: {r['house']} chips"))
        following = next_pot_text(pot, int(r.get("pot_end") or 0), bool(winner),
                                  sum(int(v) for v in pens.values()))
        lines.append(line(f"<b>{following}</b>", size=19))
        self.result.setHtml("".join(lines))


def next_pot_text(pot: int, pot_end: int, won: bool, penalties: int) -> str:
    """What the next hand's pot starts with before its antes, and where those chips come
    from: the penalties after a pot was won, the pot itself (and any penalties) when it
    carries."""
    if pot == 0:
        return "Next pot starts with the antes only" + (": the pot was won" if won else "")
    if won:
        return f"Next pot starts with {pot} chips: the penalties, then the antes"
    carried = f"the pot of {pot_end} chips carries"
    more = f", with {penalties} chips of penalties" if penalties else ""
    return f"Next pot starts with {pot} chips: {carried}{more}, then the antes"


def _status_html(status: str) -> str:
    colour = {"out": theme.BAD, "stayed": theme.GOOD, "folded": theme.MUTED}.get(status)
    return f"<span style='color:{colour}'>{status}</span>" if colour else status


def bourre_screens(station: Station, events: TableEvents, session: SignInSession
                   ) -> tuple[QWidget, QWidget, QWidget | None]:
    """The registry's ``screens`` part: the dealer's hand screen, the operator's profile
    screen, and the demo panel when the devices are simulated."""
    from dealer_station.games.bourre.ui.demo import BourreDemoPanel
    from dealer_station.games.bourre.ui.operator_screen import BourreOperatorScreen

    table: Any = station.table
    demo = BourreDemoPanel(table, station) if station.simulated else None
    return (BourreScreen(table, events, session), BourreOperatorScreen(table, events, session),
            demo)
