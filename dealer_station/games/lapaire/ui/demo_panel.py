"""The demo strip of ``run --simulate``: work the simulated shoe (and its faults) by hand.

Only the simulated devices are touched here; what they send goes through the real drivers to
the table service, exactly as a card from a real shoe would.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from dealer_station.ui.fixed_text import FixedLinesLabel
from dealer_station.ui.formatting import card_text

UNPLUG_SECONDS = 3.0
ROUND_CARDS = 3


class DemoPanel(QFrame):
    """Buttons that make the simulated shoe deal, misread, jam, open its door or unplug."""

    def __init__(self, table: Any, shoe: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("panel")
        self.table = table
        self.shoe = shoe
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 4, 10, 4)
        row.setSpacing(8)
        tag = QLabel("DEMO · simulated shoe:")
        tag.setObjectName("muted")
        row.addWidget(tag)
        self.buttons: dict[str, QPushButton] = {}
        for name, text, slot in (
                ("deal", "Deal next card  (N)", self.deal),
                ("misread", "Deal a misread", self.misread),
                ("jam", "Jam", lambda: self.status("JAM")),
                ("door", "Open door", lambda: self.status("DOOR_OPEN")),
                ("ready", "Clear (ready)", lambda: self.status("READY")),
                ("unplug", f"Unplug {UNPLUG_SECONDS:g} s", self.unplug)):
            b = QPushButton(text)
            b.setObjectName("nav")
            b.clicked.connect(slot)
            self.buttons[name] = b
            row.addWidget(b)
        # One line, cut if long (its tooltip has it whole): the strip keeps its height, so
        # the felt above never moves.
        self.last = FixedLinesLabel(1)
        self.last.setObjectName("muted")
        row.addWidget(self.last, 1)
        self.last.fix_height()
        self.setFixedHeight(self.sizeHint().height())
        # Window-wide, so it works from the dealer screen; a text field still gets its "N".
        QShortcut(QKeySequence("N"), self, self.deal,
                  context=Qt.ShortcutContext.WindowShortcut)

    def _fresh_deck_for_new_round(self) -> None:
        # A shoe is dealt through round after round; it is reshuffled only before a round it
        # could not finish, so no round ever sees a card twice.
        # No card of a round dealt yet (or no round): the read model's cards.
        now = self.table.view()
        starting = now.round_no is None or not now.cards
        if starting and self.shoe.remaining < ROUND_CARDS:
            self.shoe.new_shoe()

    def deal(self) -> None:
        self._fresh_deck_for_new_round()
        card = self.shoe.deal()
        self.last.setText(f"last card: {card_text(card)} ({card.code})")

    def misread(self) -> None:
        self._fresh_deck_for_new_round()
        self.shoe.inject("misread")
        card = self.shoe.deal()
        self.last.setText(f"misread: it was {card_text(card)} ({card.code})")

    def status(self, state: str) -> None:
        self.shoe.set_status(state)

    def unplug(self) -> None:
        self.shoe.inject("disconnect", duration=UNPLUG_SECONDS)
