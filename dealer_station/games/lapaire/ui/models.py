"""La Pair'e's table models: the round's wagers on the dealer's screen, and the par sheet
on the operator's (the shared ``RowsModel`` they build on is in ``ui/models.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dealer_station.games.lapaire.rules.house_math import ParSheetRow, percent
from dealer_station.money import Money
from dealer_station.ui import theme
from dealer_station.ui.models import RowsModel


@dataclass(frozen=True)
class WagerRow:
    """One wager on the layout as the engine reports it."""

    wager_id: int
    seat: int
    label: str
    amount: int
    stage: int
    result: str        # pending, win, lose, returned
    win: int
    placed_by: str = ""


class WagersModel(RowsModel[WagerRow]):
    """The wagers of the round, a row for each spot a seat has chips on (its chips there
    summed; ``wager_id`` is its last chip's, the one Delete takes back). The dealer's screen
    shows Seat, Wager, Stake and Result: the result says what to pay ("pay 60.00")."""

    ID, SEAT, WAGER, STAKE, STAGE, RESULT, PAY = range(7)
    HEADERS = ("#", "Seat", "Wager", "Stake", "Card", "Result", "Pay")
    NUMERIC = frozenset({ID, STAKE, PAY})
    RESULT_TEXT: ClassVar[dict[str, str]] = {
        "pending": "—", "win": "pay", "lose": "lost", "returned": "returned"}

    def __init__(self, money: Money, parent: Any = None) -> None:
        super().__init__(parent)
        self.money = money

    def text(self, row: WagerRow, col: int) -> str:
        if col == self.ID:
            return str(row.wager_id)
        if col == self.SEAT:
            return str(row.seat)
        if col == self.WAGER:
            return row.label
        if col == self.STAKE:
            return self.money.number(row.amount)
        if col == self.STAGE:
            return str(row.stage)
        if col == self.RESULT:
            text = self.RESULT_TEXT.get(row.result, row.result)
            return f"{text} {self.money.number(row.win)}" if row.result == "win" else text
        if col == self.PAY:
            return self.money.number(row.win) if row.result == "win" else ""
        return ""

    def colour(self, row: WagerRow, col: int) -> str | None:
        if col in (self.RESULT, self.PAY):
            return {"win": theme.GOOD, "lose": theme.BAD, "returned": theme.WARN}.get(
                row.result)
        if col == self.SEAT:
            return theme.SEAT_COLOURS[(row.seat - 1) % len(theme.SEAT_COLOURS)]
        return None

    def tooltip(self, row: WagerRow, col: int) -> str | None:
        return f"placed by {row.placed_by}" if row.placed_by else None

    def key(self, row: WagerRow) -> int:
        return row.wager_id


class ParSheetModel(RowsModel[ParSheetRow]):
    WAGER, PAYS, WIN_CHANCE, RTP, HOUSE_EDGE, WARNING = range(6)
    HEADERS = ("Wager", "Pays", "Wins", "Return", "House edge", "Warning")
    NUMERIC = frozenset({WIN_CHANCE, RTP, HOUSE_EDGE})

    def text(self, row: ParSheetRow, col: int) -> str:
        if col == self.WAGER:
            return row.label
        if col == self.PAYS:
            return row.payout
        if col == self.WIN_CHANCE:
            return percent(row.probability, 3)
        if col == self.RTP:
            return percent(row.rtp)
        if col == self.HOUSE_EDGE:
            return percent(row.house_edge)
        if col == self.WARNING:
            return row.warning or ""
        return ""

    def colour(self, row: ParSheetRow, col: int) -> str | None:
        if row.warning and col in (self.HOUSE_EDGE, self.WARNING):
            return theme.WARN
        return None

    def tooltip(self, row: ParSheetRow, col: int) -> str | None:
        return row.payout if col == self.PAYS else None

    def key(self, row: ParSheetRow) -> tuple[str, tuple[str, ...]]:
        return (row.bet, row.values)
