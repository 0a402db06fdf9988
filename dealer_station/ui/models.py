"""Thin table models over the domain's plain data, one per list a screen shows (a game's
own lists, such as La Pair'e's wagers, have theirs in the game's own modules).

Each model has named column constants (``MetersModel.METER``...) and holds a list of rows it is
given; it computes nothing but text and colour. ``set_rows`` replaces the rows (a reset: the
lists are short and a reset keeps the views simple and correct), or, when the same rows come
back with new values, says they changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor

from dealer_station.audit.journal import Meter
from dealer_station.money import CHIPS, Money
from dealer_station.reports.text import percent
from dealer_station.table.recall_model import Recall
from dealer_station.ui import theme
from dealer_station.ui.formatting import local_time
from dealer_station.ui.recall_view import STATUS_COLOURS

Row = TypeVar("Row")
Index = QModelIndex | QPersistentModelIndex
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_LEFT = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
_CENTRE = int(Qt.AlignmentFlag.AlignCenter)
#: The roles a cell answers, and where each is kept in a cell's tuple.
_ROLE_SLOT = {int(Qt.ItemDataRole.DisplayRole): 0, int(Qt.ItemDataRole.TextAlignmentRole): 1,
              int(Qt.ItemDataRole.ForegroundRole): 2, int(Qt.ItemDataRole.ToolTipRole): 3}


class RowsModel(QAbstractTableModel, Generic[Row]):
    """A read-only table of ``Row`` objects; subclasses say how a cell reads."""

    HEADERS: ClassVar[tuple[str, ...]] = ()
    #: Columns whose text is right-aligned (amounts).
    NUMERIC: ClassVar[frozenset[int]] = frozenset()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Row] = []
        self._cells: dict[tuple[int, int], tuple[Any, ...]] = {}

    def set_rows(self, rows: Sequence[Row]) -> None:
        new = list(rows)
        self._cells.clear()
        if new and [self.key(r) for r in new] == [self.key(r) for r in self.rows] and all(
                self.key(r) is not None for r in new):
            # The same rows with new values (a card settled them): changed in place, so the
            # view keeps its layout, scroll position and selection.
            self.rows = new
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(new) - 1, len(self.HEADERS) - 1))
            return
        self.beginResetModel()
        self.rows = new
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.HEADERS[section] if 0 <= section < len(self.HEADERS) else None
        return str(section + 1)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # A view asks for every role of every visible cell on each paint: the cell is worked
        # out once for its row and kept until the rows change.
        slot = _ROLE_SLOT.get(role)
        if slot is None:
            if role == Qt.ItemDataRole.UserRole and index.isValid() and \
                    0 <= index.row() < len(self.rows):
                return self.key(self.rows[index.row()])
            return None
        r, col = index.row(), index.column()
        cell = self._cells.get((r, col))
        if cell is None:
            if not index.isValid() or not 0 <= r < len(self.rows):
                return None
            row = self.rows[r]
            colour = self.colour(row, col)
            cell = self._cells[(r, col)] = (
                self.text(row, col), _RIGHT if col in self.NUMERIC else _LEFT,
                QColor(colour) if colour else None, self.tooltip(row, col))
        return cell[slot]

    def text(self, row: Row, col: int) -> str:
        raise NotImplementedError

    def colour(self, row: Row, col: int) -> str | None:
        return None

    def tooltip(self, row: Row, col: int) -> str | None:
        return None

    def key(self, row: Row) -> Any:
        return None


# --- recall, events, meters -------------------------------------------------------------------

class RecallModel(RowsModel[Recall]):
    """Rounds as ``table.recall`` gives them (newest first), in the recall model's words."""

    ROUND, STATUS, CARDS, WAGERED, PAID, DEALER, ENDED = range(7)
    HEADERS = ("Round", "Status", "Cards", "Wagered", "Paid", "Dealer", "Ended")
    NUMERIC = frozenset({ROUND, WAGERED, PAID})

    def __init__(self, money: Money = CHIPS, parent: Any = None) -> None:
        super().__init__(parent)
        self.money = money   # the table's, for a round whose configuration names none

    def _amount(self, row: Recall, value: int) -> str:
        """In the round's money, or the table's for a round whose configuration names none."""
        return (row.money if row.money is not None else self.money).number(value)

    def text(self, row: Recall, col: int) -> str:
        if col == self.ROUND:
            return str(row.round_no)
        if col == self.STATUS:
            return row.status_label
        if col == self.CARDS:
            return "  ".join(row.dealt())
        if col == self.WAGERED:
            return self._amount(row, row.wagered())
        if col == self.PAID:
            return self._amount(row, row.paid())
        if col == self.DEALER:
            return row.header.dealer
        if col == self.ENDED:
            return local_time(row.header.ended_at)
        return ""

    def colour(self, row: Recall, col: int) -> str | None:
        if col == self.STATUS:
            return STATUS_COLOURS.get(row.status)
        return None

    def key(self, row: Recall) -> Any:
        return row.round_no


class MetersModel(RowsModel[Meter]):
    METER, ROUNDS, WAGERED, PAID, HOUSE_WIN, HOLD = range(6)
    HEADERS = ("Meter", "Rounds", "Wagered", "Paid", "House win", "Hold")
    NUMERIC = frozenset({ROUNDS, WAGERED, PAID, HOUSE_WIN, HOLD})

    def __init__(self, money: Money = CHIPS, parent: Any = None, *,
                 banked: bool = True) -> None:
        super().__init__(parent)
        self.money = money
        #: A hold is shown for a banked game only (a pot game's house earns its collection).
        self.banked = banked

    def text(self, row: Meter, col: int) -> str:
        if col == self.METER:
            from dealer_station.reports.shift import kind_label

            return kind_label(row.meter)     # the felt's names, as the reports print them
        if col == self.ROUNDS:
            return str(row.rounds)
        if col == self.WAGERED:
            return self.money.number(row.wagered)
        if col == self.PAID:
            return self.money.number(row.paid)
        if col == self.HOUSE_WIN:
            return self.money.number(row.house_win)
        if col == self.HOLD:
            if not row.wagered or not self.banked:
                return "-"
            from fractions import Fraction
            return percent(Fraction(row.house_win, row.wagered))
        return ""

    def colour(self, row: Meter, col: int) -> str | None:
        if col == self.HOUSE_WIN:
            return theme.GOOD if row.house_win >= 0 else theme.BAD
        return None

    def key(self, row: Meter) -> str:
        return row.meter
