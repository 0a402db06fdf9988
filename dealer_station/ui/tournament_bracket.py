"""The double-elimination bracket drawn as a bracket (Pedro, Euchre): a box per match with its
two teams, their scores and the winner, lines from each match to the one its winner goes on
to, the winners' side above the losers' side and the finals on the right. The layout is
:func:`dealer_station.tournament.display.bracket_layout`'s; this only scales and paints it.
A large bracket (64 teams) scrolls; touching a box selects its match.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QMouseEvent, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from dealer_station.tournament.bracket import BYE, Side, Status
from dealer_station.tournament.display import BracketLayout, bracket_layout, slot_text
from dealer_station.tournament.tournament import Tournament
from dealer_station.ui import theme

BOX_W = 230
BOX_H = 86
COL_W = 290
ROW_H = 104
TOP = 44
TEAM_PX = 19
ID_PX = 15
STATUS_COLOURS = {Status.READY: theme.GOLD, Status.PLAYED: theme.BORDER,
                  Status.WAITING: theme.BORDER, Status.BYE: "#2a323c",
                  Status.FORFEIT: theme.BAD, Status.VOID: "#2a323c"}


def _text(scene: QGraphicsScene, text: str, px: int, colour: str, *, bold: bool = False
          ) -> QGraphicsSimpleTextItem:
    item = scene.addSimpleText(text)
    f = QFont("DejaVu Sans")
    f.setPixelSize(px)
    f.setBold(bold)
    item.setFont(f)
    item.setBrush(QBrush(QColor(colour)))
    return item


def _fit(item: QGraphicsSimpleTextItem, width: float) -> None:
    """Shorten a long team name with an ellipsis rather than run out of its box."""
    text = item.text()
    while item.boundingRect().width() > width and len(text) > 2:
        text = text[:-1]
        item.setText(text + "…")


class MatchBox(QGraphicsRectItem):
    def __init__(self, match: str) -> None:
        super().__init__(0, 0, BOX_W, BOX_H)
        self.match = match
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)


class BracketView(QGraphicsView):
    """The bracket of a tournament; ``chosen`` is a touched match's id."""

    chosen = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setScene(QGraphicsScene(self))
        self.setBackgroundBrush(QBrush(QColor(theme.BG)))
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setStyleSheet(f"QScrollBar:horizontal {{ height: 22px; background: {theme.BG}; }} "
                           f"QScrollBar::handle:horizontal {{ background: {theme.BORDER}; "
                           f"min-width: 48px; border-radius: 8px; }}")
        self.boxes: dict[str, MatchBox] = {}
        self.layout_: BracketLayout | None = None
        self.selected = ""

    def show_tournament(self, t: Tournament) -> None:
        scene = self.scene()
        scene.clear()
        self.boxes = {}
        if t.bracket is None:
            self.layout_ = None
            return
        bracket = t.bracket
        lay = bracket_layout(bracket)
        self.layout_ = lay
        rows = {r.view.id: r for r in t.matches()}

        def origin(mid: str) -> tuple[float, float]:
            b = lay.boxes[mid]
            return 20 + b.column * COL_W, TOP + b.row * ROW_H

        line = QPen(QColor(theme.MUTED))
        line.setWidth(2)
        for src, dst in lay.links:
            x1, y1 = origin(src)
            x2, y2 = origin(dst)
            path = QPainterPath()
            path.moveTo(x1 + BOX_W, y1 + BOX_H / 2)
            mid_x = x1 + BOX_W + (x2 - x1 - BOX_W) / 2
            path.lineTo(mid_x, y1 + BOX_H / 2)
            path.lineTo(mid_x, y2 + BOX_H / 2)
            path.lineTo(x2, y2 + BOX_H / 2)
            scene.addPath(path, line)
        for col, side, title in lay.headings:
            y = 6 if side is not Side.LOSERS else TOP + lay.losers_top * ROW_H - 8
            _text(scene, title, 18, theme.GOLD, bold=True).setPos(20 + col * COL_W, y)
        for mid in lay.boxes:
            row = rows[mid]
            v = row.view
            x, y = origin(mid)
            box = MatchBox(mid)
            box.setPos(x, y)
            fill = theme.PANEL if v.status is not Status.BYE else "#1b2128"
            box.setBrush(QBrush(QColor(fill)))
            pen = QPen(QColor(theme.GOLD if mid == self.selected else
                              STATUS_COLOURS.get(v.status, theme.BORDER)))
            pen.setWidth(4 if mid == self.selected or v.status is Status.READY else 2)
            box.setPen(pen)
            scene.addItem(box)
            self.boxes[mid] = box
            word = {Status.READY: "to play", Status.BYE: "bye", Status.FORFEIT: "forfeit",
                    Status.VOID: "not needed", Status.WAITING: "", Status.PLAYED:
                    "forfeit" if row.forfeit else ""}[v.status]
            head = _text(scene, f"{mid}  {word}".rstrip(), ID_PX, theme.MUTED)
            head.setParentItem(box)
            head.setPos(8, 3)
            for i in (0, 1):
                team = v.teams[i]
                name = slot_text(bracket, mid, i)
                known = team is not None and team != BYE
                won = v.winner is not None and v.winner == team and known
                lost = v.status is Status.PLAYED and known and not won
                colour = theme.GOOD if won else theme.MUTED if (lost or not known) else theme.TEXT
                item = _text(scene, name, TEAM_PX if known else 16, colour, bold=won)
                item.setParentItem(box)
                _fit(item, BOX_W - 60)
                item.setPos(10, 24 + i * 29)
                score = row.scores.get(team or "") if known else None
                if score is not None:
                    s = _text(scene, str(score), TEAM_PX, colour, bold=won)
                    s.setParentItem(box)
                    s.setPos(BOX_W - 10 - s.boundingRect().width(), 24 + i * 29)
        scene.setSceneRect(QRectF(0, 0, 40 + lay.columns * COL_W,
                                  TOP + lay.rows * ROW_H + 20))

    def zoom(self, factor: float) -> None:
        """``0``: the whole bracket on the screen; ``1``: actual size; else scale by it."""
        if factor == 0:
            self.fitInView(self.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        elif factor == 1:
            self.resetTransform()
        else:
            self.scale(factor, factor)

    def select(self, mid: str) -> None:
        self.selected = mid
        box = self.boxes.get(mid)
        if box is not None:
            self.ensureVisible(box, 40, 40)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, MatchBox):
            item = item.parentItem()
        if isinstance(item, MatchBox):
            self.chosen.emit(item.match)
        super().mousePressEvent(event)
