"""The right-hand column's box on the La Pair'e dealer screen: the cards row, and under it
the wagers list or the payouts of the card settled."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect
from PySide6.QtGui import (
    QResizeEvent,
)
from PySide6.QtWidgets import (
    QSizePolicy,
    QWidget,
)

from dealer_station.games.lapaire.ui.stage_payouts import StagePayouts


class Ledger(QWidget):
    """The cards row, and under it the wagers list or in its room the payouts of the card
    settled: placed by hand, one of the two lists shown at a time. Swapping them when a card
    comes repaints the box and lays nothing else out again (in a layout, showing one and
    hiding the other would have Qt lay out the panel). A payout list too long for its room
    takes the cards row's room too (``StagePayouts.grown``), the card named in its first
    line."""

    GAP = 6

    def __init__(self, top: QWidget, wagers: QWidget, payouts: StagePayouts,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.top, self.wagers, self.payouts = top, wagers, payouts
        for w in (top, wagers, payouts):
            w.setParent(self)
        payouts.hide()
        payouts.on_grow = self._place
        #: Called as the list comes back into view (to bring what it shows up to date).
        self.before_list: Callable[[], None] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(top.height() + self.GAP + 100)

    def show_payouts(self, on: bool) -> None:
        if on != self.payouts.isVisibleTo(self):
            self.payouts.setVisible(on)
            self.wagers.setVisible(not on)
            self._place()
            if not on and self.before_list is not None:
                self.before_list()

    @property
    def showing_payouts(self) -> bool:
        return self.payouts.isVisibleTo(self)

    def _below(self) -> QRect:
        below = self.top.height() + self.GAP
        return QRect(0, below, self.width(), self.height() - below)

    def _place(self) -> None:
        grown = self.showing_payouts and self.payouts.grown
        self.top.setVisible(not grown)
        self.payouts.setGeometry(self.rect() if self.payouts.grown else self._below())
        if grown:
            self.payouts.raise_()

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.top.move(0, 0)
        self.wagers.setGeometry(self._below())
        self.payouts.set_room(self.width(), self._below().height(), self.height())
        self._place()
        super().resizeEvent(event)
