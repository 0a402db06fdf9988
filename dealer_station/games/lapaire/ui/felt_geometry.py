"""The La Pair'e felt's geometry: where each spot is on the logical felt (LW x LH), its
touch zone and its chips' places, and the price printed on it."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

from PySide6.QtCore import QPointF, QRectF

from dealer_station.cards import JOKER, VALUES
from dealer_station.games.lapaire.rules.config import (
    KIND_LABELS,
    AnyPairWager,
    EvenWager,
    LaPaireConfig,
    SpotWager,
)
from dealer_station.games.lapaire.rules.layout import (
    ACE,
    BOTTOM_ROW,
    TOP_ROW,
    legal_spots,
    sort_values,
    spot_label,
)

SpotKey = tuple[str, tuple[str, ...]]

# Logical size of the felt; the widget scales it to fit, keeping its proportions.
LW, LH = 892.0, 450.0
_X0, _Y0 = 10.0, 10.0
_END_W = 100.0      # the Ace and Joker areas
_CELL_W = 112.0
_ROW_H = 114.0
_EDGE = 40.0        # thickness of a split's touch zone across its edge (a chip's width)
_POINT_R = 24.0     # radius of a three's or a corner's touch zone (it meets the edges')
_LP_TOP, _LP_H = 274.0, 64.0
_BOX_TOP, _BOX_H = 350.0, 90.0
_CHIP_R = 17.0
#: The selected seat's chips are drawn larger, on top of the others'.
_CHIP_R_SELECTED = _CHIP_R + 3
_STACK_STEP = 7.0   # how far each seat's chips sit from the next seat's on one spot
#: The top of a main-grid cell holds its value and its price side by side; its chips sit
#: below them.
_TOP_BAND = 46.0
#: The gold frame of the card dealt lies within this much of a cell's edge: no chip does.
_FRAME = 7.0
#: Table text on the felt (titles, box lines), in felt units: 26 is 21 px on the 1280x800
#: screen, read from a metre (tests/test_ui_felt.py checks it there).
TEXT = 26.0
#: A main-grid cell's price ("12:1"), beside its value: 19 px on the 1280x800 screen.
PRICE_TEXT = 24.0
#: The band between the main grid and the La Pair'e row, where a refusal's bubble goes: it
#: covers no cell there (only the row's title, for a moment).
_BAND_TOP, _BAND_BOTTOM = _Y0 + 2 * _ROW_H, _LP_TOP
CALLOUT_SECONDS = 4.0
CALLOUT_PX = 24.0
_VALUE_PX = 36.0    # a main-grid cell's value, at most
#: The numbered marker on the value a card showed (its number 19 px on the screen).
_MARKER_R, _MARKER_PX = 14.0, 23.0

FIRST_KINDS = ("straight", "split", "three", "corner")
BOX_KINDS = ("red", "black", "any_pair", "poker")
BOX_TITLES = {"red": "RED", "black": "BLACK", "any_pair": "ANY PAIR'E",
              "poker": "3RD CARD POKER"}
#: Each box's share of the row: its title across it in table text (3RD CARD POKER is long).
_BOX_SHARE = {"red": 0.22, "black": 0.22, "any_pair": 0.24, "poker": 0.32}
#: Chips are drawn in layers: a point's over an edge's over a cell's or a box's. A touch
#: goes by the spots' shapes alone (a point's, then an edge's, then a cell's or a box's),
#: never by a chip: each spot's chips are drawn inside its own shape, clear of every other.
_LAYER = {"split": 1, "three": 2, "corner": 2}
#: How a spot's stack is laid in its room: a level row at the room's foot (cells), along
#: the room's length from its middle (an edge), round its middle (a point), or leftwards
#: from its bottom right corner (a box, beside its price).
FAN_ROW, FAN_ALONG, FAN_POINT, FAN_LEFT = "row", "along", "point", "left"


class DrawnChip(NamedTuple):
    """A seat's chip as drawn on the felt, in the widget's coordinates."""

    key: SpotKey
    seat: int
    centre: QPointF
    radius: float
    top: bool          # the last of its spot's stack (it carries the amount)


@dataclass(frozen=True)
class Spot:
    """A place a chip can go: the wager it makes and where it is drawn (logical units)."""

    bet: str
    values: tuple[str, ...]
    rect: QRectF
    round: bool = False      # a three or corner: a circle on a point
    #: Where its chips are drawn: inside its own shape, clear of every other spot's shape
    #: and of the gold frame of the card dealt (see :func:`build_spots`).
    room: QRectF = field(default_factory=QRectF)
    fan: str = FAN_ROW
    #: A straight's value and price (its top band, clear of an edge's zone above it).
    band: QRectF = field(default_factory=QRectF)

    @property
    def key(self) -> SpotKey:
        return (self.bet, self.values)

    @property
    def centre(self) -> QPointF:
        return self.rect.center()

    @property
    def label(self) -> str:
        name = KIND_LABELS[self.bet]
        return f"{name} {spot_label(self.values)}" if self.values else name

    def contains(self, point: QPointF) -> bool:
        if not self.round:
            return self.rect.contains(point)
        d = point - self.rect.center()
        r = self.rect.width() / 2
        return d.x() * d.x() + d.y() * d.y() <= r * r


def value_cells() -> dict[str, QRectF]:
    """The main grid: 2..7 on top, 8..K below, the Ace and the Joker spanning both rows."""
    cells = {ACE: QRectF(_X0, _Y0, _END_W, 2 * _ROW_H)}
    for row, values in enumerate((TOP_ROW, BOTTOM_ROW)):
        for col, v in enumerate(values):
            cells[v] = QRectF(_X0 + _END_W + col * _CELL_W, _Y0 + row * _ROW_H, _CELL_W,
                              _ROW_H)
    cells[JOKER] = QRectF(_X0 + _END_W + len(TOP_ROW) * _CELL_W, _Y0, _END_W, 2 * _ROW_H)
    return cells


def _shared(rects: list[QRectF]) -> tuple[float, float, float, float]:
    """The closed intersection of rectangles: (left, top, right, bottom)."""
    left = max(r.left() for r in rects)
    right = min(r.right() for r in rects)
    top = max(r.top() for r in rects)
    bottom = min(r.bottom() for r in rects)
    return left, top, right, bottom


def _edge_zone(a: QRectF, b: QRectF) -> QRectF:
    """A split's touch zone across the edge cells ``a`` and ``b`` share. An edge between the
    rows runs between the points at its ends; an edge within a row runs beside the two
    cells' chips, between the point at the middle line and the cells' bands (values and
    prices at the grid's top and bottom), so that no zone covers a value."""
    left, top, right, bottom = _shared([a, b])
    if abs(right - left) < 1e-6:           # a vertical edge, within a row
        if top < _Y0 + _ROW_H / 2:         # the top row: its bands at the top
            top, bottom = top + _TOP_BAND, bottom - _POINT_R
        else:                              # the bottom row: its bands at the bottom
            top, bottom = top + _POINT_R, bottom - _TOP_BAND
        return QRectF(left - _EDGE / 2, top, _EDGE, bottom - top)
    length = min(64.0, (right - left) - 2 * _POINT_R - 1)
    mid = (left + right) / 2
    return QRectF(mid - length / 2, top - _EDGE / 2, length, _EDGE)


def build_spots() -> list[Spot]:
    """Every spot of the felt, whatever the configuration offers (in drawing order), each
    with the room its chips are drawn in."""
    cells = value_cells()
    spots: list[Spot] = [Spot("straight", (v,), cells[v]) for v in VALUES]
    for values in sorted((sort_values(s) for s in legal_spots("split")),
                         key=lambda vs: [VALUES.index(v) for v in vs]):
        a, b = (cells[v] for v in values)
        zone = _edge_zone(a, b)
        spots.append(Spot("split", values, zone, room=zone, fan=FAN_ALONG))
    for kind in ("three", "corner"):
        for values in sorted(sort_values(s) for s in legal_spots(kind)):
            left, top, right, bottom = _shared([cells[v] for v in values])
            c = QPointF((left + right) / 2, (top + bottom) / 2)
            zone = QRectF(c.x() - _POINT_R, c.y() - _POINT_R, 2 * _POINT_R, 2 * _POINT_R)
            spots.append(Spot(kind, values, zone, round=True, room=zone, fan=FAN_POINT))
    w = (LW - 2 * _X0) / len(VALUES)
    for i, v in enumerate(VALUES):
        cell = QRectF(_X0 + i * w, _LP_TOP, w, _LP_H)
        # The chips at the cell's foot, under its value (a selected chip's top rim may
        # touch the value's foot: the cell is a chip and a half high).
        foot = _LP_H - 2 - 2 * _CHIP_R_SELECTED
        spots.append(Spot("lapaire", (v,), cell,
                          room=cell.adjusted(_FRAME, foot, -_FRAME, -2)))
    gap = 10.0
    room = LW - 2 * _X0 - gap * (len(BOX_KINDS) - 1)
    x = _X0
    for kind in BOX_KINDS:
        bw = room * _BOX_SHARE[kind]
        box = QRectF(x, _BOX_TOP, bw, _BOX_H)
        spots.append(Spot(kind, (), box, room=box.adjusted(6, 6, -6, -6), fan=FAN_LEFT))
        x += bw + gap
    edges = [s.rect for s in spots if s.bet == "split"]
    out = []
    for s in spots:
        if s.bet == "straight":
            band, chips = _cell_layout(s.rect, s.values[0], edges)
            s = replace(s, band=band, room=chips)
        out.append(s)
    return out


def _cell_layout(cell: QRectF, value: str, edges: list[QRectF]) -> tuple[QRectF, QRectF]:
    """A straight's cell: its band (value and price) at the grid's outer edge (the top of
    the top row, the bottom of the bottom row), and its room (chips) between the band and
    the middle line, inside the gold frame, clear of the edges' touch zones on its sides
    (the points' zones sit on the middle line, away from both)."""
    room = cell.adjusted(_FRAME, _FRAME, -_FRAME, -_FRAME)
    left, top, right, bottom = room.left(), room.top(), room.right(), room.bottom()
    for e in edges:
        if not e.intersects(cell):
            continue
        if e.left() < cell.left() < e.right():
            left = max(left, e.right() + 2)
        if e.left() < cell.right() < e.right():
            right = min(right, e.left() - 2)
        if e.top() < cell.top() < e.bottom():
            top = max(top, e.bottom() + 2)
        if e.top() < cell.bottom() < e.bottom():
            bottom = min(bottom, e.top() - 2)
    height = _TOP_BAND - 6
    if value in (ACE, JOKER):
        # A tall cell: the price in its top corner, the value in its upper half, the chips
        # in its lower half.
        band = QRectF(cell.left() + 5, cell.top() + 2, cell.width() - 10, height)
        top = max(top, cell.center().y() + 16)
    elif cell.top() < _Y0 + _ROW_H / 2:
        band = QRectF(cell.left() + 5, cell.top() + 2, cell.width() - 10, height)
        top = max(top, band.bottom() + 2)
    else:
        band = QRectF(cell.left() + 5, cell.bottom() - 2 - height, cell.width() - 10, height)
        bottom = min(bottom, band.top() - 2)
    return band, QRectF(left, top, right - left, bottom - top)


def stack_centres(s: Spot, radii: list[float]) -> list[QPointF]:
    """Where each chip of a stack of ``len(radii)`` seats' chips on ``s`` is drawn (logical
    units), bottom first, round the middle of the spot's room: up to :data:`_STACK_STEP`
    apart so that each seat's colour shows, closer where the room is small, never outside
    the room."""
    n = len(radii)
    room = s.room
    big = max(radii)
    if s.fan == FAN_LEFT:
        step = min(_STACK_STEP, (room.width() - 2 * big) / max(1, n - 1))
        x, y = room.right() - big, room.bottom() - big
        return [QPointF(x - (n - 1 - i) * step, y) for i in range(n)]
    offsets = [i - (n - 1) / 2 for i in range(n)]
    if s.fan == FAN_POINT:
        half = room.width() / 2
        level = True
    elif s.fan == FAN_ALONG:
        level = room.width() >= room.height()
        half = (room.width() if level else room.height()) / 2
    else:
        level = True
        half = room.width() / 2
    limits = [(half - r) / abs(t) for t, r in zip(offsets, radii, strict=True) if t]
    step = max(0.0, min([_STACK_STEP, *limits]))
    centre = room.center()
    if level:
        return [QPointF(centre.x() + t * step, centre.y()) for t in offsets]
    return [QPointF(centre.x(), centre.y() + t * step) for t in offsets]


def _price(config: LaPaireConfig, bet: str, values: tuple[str, ...]) -> str:
    w = config.wager(bet)
    if isinstance(w, SpotWager):
        s = w.spot(values)
        odds = s.pays if s is not None else w.pays
        return f"{odds.win}:{odds.stake}"
    if isinstance(w, EvenWager):
        return f"{w.pays.win}:{w.pays.stake}"
    if isinstance(w, AnyPairWager):
        return f"{w.pays.win}:{w.pays.stake}"
    return w.paytable
