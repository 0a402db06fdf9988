"""The Bourré demo strip: plays the players' part with the simulated shoe and reader (demo,
screenshots and tests only). It looks into the players' hands to pick a legal card or a
renege, as only a player could; no screen does."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from dealer_station.cards import BOURRE_DECK, Card
from dealer_station.games.bourre.rules.engine import Phase

if TYPE_CHECKING:
    from dealer_station.games.bourre.table.live import BourreTable
    from dealer_station.games.bourre.ui.screen import BourreScreen


class BourreDemoPanel(QFrame):
    """Plays the players' part with the simulated shoe and reader (demo and tests only):
    the shoe deals, and the reader reads a discard, a legal card or a renege."""

    def __init__(self, table: BourreTable, station: Any, parent: QWidget | None = None
                 ) -> None:
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
        if self.table.deal_is_fresh() or self.shoe.remaining == 0:
            self.shoe.set_order(BOURRE_DECK.shuffled(self.rng))
        card = self.shoe.deal()
        self.last.setText(f"dealt {card.label}")

    def _seat_cards(self) -> tuple[int | None, list[Card], list[Card]]:
        return self.table.turn()

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
