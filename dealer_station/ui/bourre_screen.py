"""The Bourré dealer screen, its operator screen (rule profile) and its demo strip.

The dealer sees the seats (chips, dealer button, stayed or folded, tricks won), the pot, the
trump card, whose turn it is and what is expected of her, and the trick on the table as the
card reader reports it. Players' hands are never shown here: the table publishes only what is
on the table. A renege is announced the moment its card is read, with the rule it broke.
"""

from __future__ import annotations

import random
from html import escape
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dealer_station.audit.users import User
from dealer_station.cards import BOURRE_DECK, Card, parse_card
from dealer_station.errors import StationError
from dealer_station.settlement.bourre import Phase
from dealer_station.table.base import Change
from dealer_station.ui import theme
from dealer_station.ui.card_view import CardView
from dealer_station.ui.formatting import card_text
from dealer_station.ui.session import SignInSession
from dealer_station.ui.signals import TableEvents

if TYPE_CHECKING:
    from dealer_station.ui.station import Station

MAX_SEATS = 7
DEFAULT_SEATS = (1, 2, 3, 4, 5)
RULE_NAMES = {
    "lead_highest_trump": "must lead the highest trump (holding A, K and Q of trumps)",
    "follow_suit": "must follow suit",
    "beat_led_suit": "must beat the winning card of the led suit",
    "must_trump": "must trump (no card of the led suit)",
    "beat_trump": "must beat the highest trump in the trick",
}


def _seat_list(values: Any) -> str:
    items = [str(v) for v in values]
    return ", ".join(items) if items else "none"


class SeatBox(QFrame):
    """One seat as the dealer sees it: never the cards in the player's hand."""

    def __init__(self, seat: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seat = seat
        self.setObjectName("panel")
        col = QVBoxLayout(self)
        col.setContentsMargins(8, 6, 8, 6)
        col.setSpacing(2)
        self.title = QLabel(f"Seat {seat}")
        self.title.setStyleSheet("font-size: 19px; font-weight: bold;")
        col.addWidget(self.title)
        self.info = QLabel("")
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.info.setWordWrap(True)
        col.addWidget(self.info)
        self.played = CardView("")
        self.played.setMinimumHeight(84)
        col.addWidget(self.played, 1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def show_seat(self, *, name: str, chips: int | None, status: str, dealer: bool,
                  to_act: bool, tricks: int | None, played: Card | None,
                  renege: bool) -> None:
        colour = theme.seat_colour(self.seat).name()
        button = " <span style='background:#f2f4f6; color:#111; border-radius:8px'>" \
                 "&nbsp;D&nbsp;</span>" if dealer else ""
        self.title.setText(f"<span style='color:{colour}'>■</span> Seat {self.seat}"
                           f"{button}")
        lines = [f"<span style='color:{theme.MUTED}'>{escape(name)}</span>"]
        if chips is not None:
            lines.append(f"<b>{chips}</b> chips")
        if status:
            lines.append(status)
        if tricks is not None:
            lines.append(f"tricks: <b>{tricks}</b>")
        if renege:
            lines.append(f"<span style='color:{theme.BAD}'><b>RENEGE</b></span>")
        self.info.setText("<br>".join(lines))
        border = theme.GOLD if to_act else theme.BORDER
        self.setStyleSheet(f"QFrame#panel {{ border: {4 if to_act else 1}px solid {border};"
                           f" border-radius: 10px; background: {theme.PANEL}; }}")
        self.played.set_card(played)
        self.played.placeholder = "" if played is None else self.played.placeholder


class BourreScreen(QWidget):
    """The dealer's Bourré screen over one BourreTable."""

    def __init__(self, table: Any, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.session = session
        self.last_renege: dict[str, Any] | None = None
        self._build()
        events.listen(self.on_change)
        self.refresh()

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
        self._do(lambda u: self.table.start_session(seats, seats[-1], actor=u.actor),
                 f"Session started: seats {_seat_list(seats)}; seat {seats[-1]} deals first.")

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
        hand = self.table.hand
        seat = hand.to_act if hand is not None else None
        if seat is None:
            self.say("No one is deciding now.", "bad")
            return
        self._do(lambda u: self.table.decide(seat, stay, actor=u.actor),
                 f"Seat {seat} {'stays' if stay else 'folds'}.")

    def finish_discard(self) -> None:
        hand = self.table.hand
        seat = hand.to_act if hand is not None else None
        if seat is None:
            self.say("No one is drawing now.", "bad")
            return
        count = self._do(lambda u: self.table.finish_discard(seat, actor=u.actor), "")
        if count is not None:
            self.say(f"Seat {seat} discarded {count}: deal {count} from the shoe.", "good")

    # -- following the table ---------------------------------------------------------------

    def on_change(self, change: Change) -> None:
        if change.kind == "renege":
            d = change.data
            self.last_renege = dict(d)
            rule = RULE_NAMES.get(str(d.get("rule")), str(d.get("rule")))
            then = ("the card stands in the trick" if d.get("stands")
                    else f"the card goes back: seat {d.get('seat')} plays again")
            pen = " and pays the renege penalty" if d.get("penalised") else ""
            self.renege_label.setText(
                f"RENEGE — seat {d.get('seat')}, trick {d.get('trick')}: "
                f"{escape(card_text(str(d.get('card'))))} — {rule}. "
                f"{then[:1].upper()}{then[1:]}{pen}.")
            self.renege_label.show()
        elif change.kind in ("hand.opened", "session.opened", "round.voided"):
            self.last_renege = None
            self.renege_label.hide()
        if change.kind == "hand.closed":
            self.show_result(dict(change.data.get("result") or {}))
        self.refresh()

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
                             f"{_seat_list(r['bourre'])} took no trick</p>")
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

    def refresh(self) -> None:
        t = self.table
        with t.lock:
            session = t.session
            hand = t.hand
            names = dict((t.state.session_open or {}).get("players") or {})
            view = self._snapshot(session, hand)
        seats_in = set(view["seats"])
        for n, box in self.seat_boxes.items():
            if n not in seats_in:
                box.hide()
                continue
            box.show()
            box.show_seat(name=str(names.get(str(n), "")), chips=view["chips"].get(n),
                          status=view["status"].get(n, ""), dealer=n == view["dealer"],
                          to_act=n == view["to_act"], tricks=view["tricks"].get(n),
                          played=view["played"].get(n), renege=n in view["reneges"])
        trump = view["trump"]
        self.trump_view.set_card(trump)
        self.pot_label.setText(f"Pot<br><b style='font-size:34px'>{view['pot']}</b><br>"
                               f"<span style='color:{theme.MUTED}'>trick "
                               f"{view['trick']} of 5</span>" if hand is not None else
                               f"Pot<br><b style='font-size:34px'>{view['pot']}</b>")
        self.status.setText(view["prompt"])
        phase = view["phase"]
        self.stay_button.setEnabled(phase == "decisions" and view["can_stay"])
        self.fold_button.setEnabled(phase == "decisions" and view["can_fold"])
        self.discard_button.setEnabled(phase == "draw" and not view["receiving"])
        self.hand_button.setEnabled(session is not None and hand is None)
        self.session_button.setEnabled(session is None)
        self.end_button.setEnabled(session is not None and hand is None)
        for cb in self.seat_checks.values():
            cb.setEnabled(session is None)

    def _snapshot(self, session: Any, hand: Any) -> dict[str, Any]:
        """Everything the screen shows, read from the table under its lock."""
        v: dict[str, Any] = {"seats": [], "chips": {}, "status": {}, "dealer": None,
                             "to_act": None, "tricks": {}, "played": {}, "reneges": set(),
                             "trump": None, "pot": 0, "trick": 0, "phase": "none",
                             "prompt": "", "can_stay": False, "can_fold": False,
                             "receiving": False}
        if session is None:
            v["prompt"] = "No session: choose the seats and start one"
            v["seats"] = [n for n, cb in self.seat_checks.items() if cb.isChecked()]
            return v
        v["seats"] = list(session.seats)
        v["chips"] = dict(session.chips)
        v["dealer"] = session.dealer
        v["pot"] = session.pot
        for s in session.out:
            v["status"][s] = f"<span style='color:{theme.BAD}'>out</span>"
        if hand is None:
            v["prompt"] = f"Seat {session.dealer} deals next: press Deal a new hand"
            return v
        phase = hand.phase
        v["phase"] = phase.value
        v["chips"] = dict(hand.chips)
        v["dealer"] = hand.dealer
        v["pot"] = hand.pot
        v["to_act"] = hand.to_act
        v["trump"] = hand.trump_card
        v["trick"] = min(hand.trick_number, 5)
        for s in hand.stayers:
            v["status"][s] = f"<span style='color:{theme.GOOD}'>stayed</span>"
        for s in hand.folded:
            v["status"][s] = f"<span style='color:{theme.MUTED}'>folded</span>"
        if phase in (Phase.PLAY, Phase.SETTLED):
            v["tricks"] = {s: hand.tricks.get(s, 0) for s in hand.stayers}
        v["played"] = dict(hand.current_trick)
        v["reneges"] = {m.seat for m in hand.misplays if m.penalised}
        seat = hand.to_act
        if phase is Phase.DEAL:
            v["prompt"] = f"Deal: the shoe deals to seat {seat}"
        elif phase is Phase.DECISIONS:
            v["prompt"] = f"Seat {seat}: stay or fold?"
            v["can_stay"] = hand.can_stay(seat)
            v["can_fold"] = hand.can_fold(seat)
        elif phase is Phase.DRAW:
            v["receiving"] = self.table.receiving()
            pending = len(self.table.current.discards.get(seat, []))
            if v["receiving"]:
                v["prompt"] = f"Draw: the shoe deals seat {seat} the cards she discarded"
            else:
                v["prompt"] = (f"Draw: seat {seat} discards (up to "
                               f"{hand.profile.draw_limit}); {pending} read so far")
        elif phase is Phase.PLAY:
            v["prompt"] = (f"Trick {hand.trick_number}: seat {seat} to play "
                           f"({self.table.legal_count()} legal)")
        elif phase is Phase.SETTLED:
            v["prompt"] = "Hand settled"
        else:
            v["prompt"] = f"Hand {phase.value}: call a supervisor"
        return v


class BourreOperatorScreen(QWidget):
    """The rule profile of a Bourré table, changed between sessions with a reason."""

    def __init__(self, table: Any, events: TableEvents, session: SignInSession,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from dealer_station.gameconfig import load_bourre_profiles

        self.table = table
        self.session = session
        self.profiles = load_bourre_profiles()
        col = QVBoxLayout(self)
        col.setContentsMargins(14, 10, 14, 10)
        self.current = QLabel("")
        self.current.setWordWrap(True)
        col.addWidget(self.current)
        self.choice = QComboBox()
        self.choice.addItems(list(self.profiles))
        self.choice.currentTextChanged.connect(self.preview)
        col.addWidget(self.choice)
        self.details = QTextBrowser()
        col.addWidget(self.details, 1)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason for the change (required)")
        col.addWidget(self.reason)
        self.apply_button = QPushButton("Apply the rule profile")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply)
        col.addWidget(self.apply_button)
        self.message = QLabel("")
        self.message.setObjectName("message")
        self.message.setWordWrap(True)
        self.message.hide()
        col.addWidget(self.message)
        events.listen(lambda _c: self._show_current())
        self._show_current()
        self.preview(self.choice.currentText())

    def _show_current(self) -> None:
        p = self.table.profile
        note = (" A session is under way: the profile can change once it ends."
                if self.table.session is not None else "")
        self.current.setText(f"In force: profile <b>{escape(p.name)}</b> ({escape(p.description)}"
                             f"), configuration {self.table.version[:12]}.{note}")

    def preview(self, name: str) -> None:
        p = self.profiles.get(name)
        if p is None:
            return
        rows = "".join(f"<tr><td style='padding-right:18px'>{escape(str(k))}</td>"
                       f"<td><b>{escape(str(v))}</b></td></tr>"
                       for k, v in p.to_data().items() if not isinstance(v, dict))
        subs = "".join(f"<tr><td style='padding-right:18px'>{escape(str(k))}.{escape(str(k2))}"
                       f"</td><td><b>{escape(str(v2))}</b></td></tr>"
                       for k, v in p.to_data().items() if isinstance(v, dict)
                       for k2, v2 in v.items())
        self.details.setHtml(f"<h3>{escape(p.name)}: {escape(p.description)}</h3>"
                             f"<table>{rows}{subs}</table>")

    def apply(self) -> None:
        user = self.session.user
        if user is None:
            return
        p = self.profiles[self.choice.currentText()]
        try:
            version = self.table.change_profile(user, p, self.reason.text())
        except StationError as exc:
            self._say(f"Not applied: {exc}", "bad")
            return
        self.reason.clear()
        self._say(f"Profile {p.name} in force (configuration {version[:12]}), recorded by "
                  f"{user.actor}.", "good")

    def _say(self, text: str, tone: str) -> None:
        self.message.setText(text)
        theme.set_tone(self.message, tone)
        self.message.show()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._show_current()


class BourreDemoPanel(QFrame):
    """Plays the players' part with the simulated shoe and reader (demo and tests only):
    the shoe deals, and the reader reads a discard, a legal card or a renege."""

    def __init__(self, table: Any, station: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        self.table = table
        self.shoe = station.simulator("shoe")
        self.reader = station.simulator("reader")
        self.rng = random.Random(5)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 10, 4)
        tag = QLabel("DEMO · players:")
        tag.setObjectName("muted")
        row.addWidget(tag)
        self.buttons: dict[str, QPushButton] = {}
        for name, text, slot in (("deal", "Shoe: deal a card", self.deal),
                                 ("discard", "Reader: a discard", self.discard),
                                 ("play", "Reader: a legal card", self.play),
                                 ("renege", "Reader: a renege", self.renege),
                                 ("jam", "Jam", lambda: self.shoe.set_status("JAM")),
                                 ("ready", "Clear", lambda: self.shoe.set_status("READY"))):
            b = QPushButton(text)
            b.setObjectName("nav")
            b.clicked.connect(slot)
            self.buttons[name] = b
            row.addWidget(b)
        self.last = QLabel("")
        self.last.setObjectName("muted")
        self.last.setMinimumWidth(1)
        row.addWidget(self.last, 1)

    def deal(self) -> None:
        with self.table.lock:
            hand = self.table.hand
            fresh = hand is not None and hand.phase is Phase.DEAL and not any(
                hand.held(s) for s in hand.seats)
        if fresh or self.shoe.remaining == 0:
            self.shoe.set_order(BOURRE_DECK.shuffled(self.rng))
        card = self.shoe.deal()
        self.last.setText(f"dealt {card.label}")

    def _seat_cards(self) -> tuple[int | None, list[Card], list[Card]]:
        with self.table.lock:
            hand = self.table.hand
            if hand is None or hand.to_act is None:
                return None, [], []
            seat = hand.to_act
            held = list(hand.held(seat))
            legal = hand.legal_cards(seat) if hand.phase is Phase.PLAY else []
            pending = {parse_card(c) for c in self.table.current.discards.get(seat, [])}
        return seat, [c for c in held if c not in pending], legal

    def discard(self) -> None:
        seat, held, _ = self._seat_cards()
        if seat is not None and held:
            card = held[0]
            self.reader.send_card(card, seat)
            self.last.setText(f"seat {seat} discards {card.label}")

    def play(self) -> None:
        seat, _, legal = self._seat_cards()
        if seat is not None and legal:
            self.reader.send_card(legal[0], seat)
            self.last.setText(f"seat {seat} plays {legal[0].label}")

    def renege(self) -> None:
        seat, held, legal = self._seat_cards()
        wrong = [c for c in held if c not in legal]
        if seat is None or not wrong:
            self.last.setText("no card would be a renege now")
            return
        self.reader.send_card(wrong[0], seat)
        self.last.setText(f"seat {seat} plays {wrong[0].label}")


def drive_to_play(app: QApplication, station: Any, window: Any, wait_for: Any) -> None:
    """Start a session and a hand and bring it to the play (for screenshots, benchmarks)."""
    t = station.table
    t.start_session([1, 2, 3, 4, 5], 5, players={1: "Ada", 2: "Ben", 3: "Cy", 4: "Dee",
                                                  5: "Eve"}, actor="dealer/dealer")
    t.start_hand(actor="dealer/dealer")
    demo: BourreDemoPanel = window.demo
    demo.rng = random.Random(3)
    while t.hand.phase is Phase.DEAL:
        n = sum(len(t.hand.held(s)) for s in t.hand.seats)
        demo.deal()
        wait_for(app, lambda n=n: t.hand.phase is not Phase.DEAL
                 or sum(len(t.hand.held(s)) for s in t.hand.seats) > n)
    while t.hand.phase is Phase.DECISIONS:
        seat = t.hand.to_act
        t.decide(seat, (seat != 2 and t.hand.can_stay(seat)) or not t.hand.can_fold(seat))
    while t.hand.phase is Phase.DRAW:
        t.finish_discard(t.hand.to_act)
    wait_for(app, lambda: t.hand.phase is Phase.PLAY)


def screenshot_scene(app: QApplication, station: Any, window: Any, path: Any, save: Any,
                     wait_for: Any) -> Any:
    window.session.sign_in("dealer", "1111")
    drive_to_play(app, station, window, wait_for)
    t = station.table
    demo: BourreDemoPanel = window.demo
    screen: BourreScreen = window.screens["dealer"]
    # A trick and a half, with a renege announced on the way.
    reneged = False
    for _ in range(8):
        _seat, held, legal = demo._seat_cards()
        if not reneged and [c for c in held if c not in legal]:
            before = len(t.hand.misplays)
            demo.renege()
            wait_for(app, lambda b=before: len(t.hand.misplays) > b)
            reneged = True
            continue
        before_played = len(t.hand.current_trick) + 5 * t.hand.trick_number
        demo.play()
        wait_for(app, lambda b=before_played: len(t.hand.current_trick)
                 + 5 * t.hand.trick_number != b)
        if reneged and t.hand.current_trick and len(t.hand.current_trick) >= 2 \
                and t.hand.trick_number >= 2:
            break
    wait_for(app, lambda: screen.status.text().startswith("Trick"))
    return save(app, window, path)


def bourre_screens(station: Station, events: TableEvents, session: SignInSession
                   ) -> tuple[QWidget, QWidget, QWidget | None]:
    """The registry's ``screens`` part: the dealer's hand screen, the operator's profile
    screen, and the demo panel when the devices are simulated."""
    table: Any = station.table
    demo = BourreDemoPanel(table, station) if station.simulated else None
    return (BourreScreen(table, events, session), BourreOperatorScreen(table, events, session),
            demo)
