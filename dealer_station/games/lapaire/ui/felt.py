"""The La Pair'e felt, drawn and touchable: every spot a chip can go on.

The geometry is the felt's own (``felt_geometry.py``); which spots exist comes from
``games.lapaire.rules.layout`` (a split is drawn on the edge its two values share, a three or a
corner on the point where its values meet) and which are offered, and at what price, from
the table configuration.
The widget never decides whether a wager is allowed or what it pays: a tap emits
``spot_activated(bet, values)`` and the screen asks the table service.

```
  +-----+---+---+---+---+---+---+-----+
  |     | 2 | 3 | 4 | 5 | 6 | 7 |     |     values and prices at the grid's outer edges,
  |  A  +---+---+---+---+---+---+ JK  |     chips toward the middle line;
  |     | 8 | 9 |10 | J | Q | K |     |     splits on shared edges,
  +-----+---+---+---+---+---+---+-----+     threes and corners where cells meet
  LA PAIR'E CARD  A 2 3 ... K JK
  [ RED ] [ BLACK ] [ ANY PAIR'E ] [ 3RD CARD POKER ]
```

A touch lands on the spot whose shape holds it: a point's, then an edge's, then a cell's or a
box's. Each spot's chips are drawn inside its own shape (a cell's under its value and price,
inside the gold frame and clear of the edges' zones), so a chip never takes a touch aimed at
another spot, and the gold frame of a card dealt is drawn over everything.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping

from PySide6.QtCore import QPoint, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
    QTransform,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from dealer_station.cards import JOKER
from dealer_station.games.lapaire.rules.config import (
    LaPaireConfig,
    SpotWager,
)
from dealer_station.games.lapaire.rules.layout import (
    ACE,
    sort_values,
)
from dealer_station.games.lapaire.ui.felt_geometry import (
    _BAND_BOTTOM,
    _BAND_TOP,
    _CHIP_R,
    _CHIP_R_SELECTED,
    _LAYER,
    _MARKER_PX,
    _MARKER_R,
    _VALUE_PX,
    _X0,
    BOX_KINDS,
    BOX_TITLES,
    CALLOUT_PX,
    CALLOUT_SECONDS,
    FIRST_KINDS,
    LH,
    LW,
    PRICE_TEXT,
    TEXT,
    DrawnChip,
    Spot,
    SpotKey,
    _price,
    build_spots,
    stack_centres,
)
from dealer_station.ui import theme
from dealer_station.ui.paint_cache import Pictures

#: How far past a spot's rectangle (felt units: left, top, right, bottom) the ink of what is
#: drawn on it may reach: a line's width, or for a La Pair'e cell's marker the title band
#: above the cell.
_SPOT_REACH = (-3.0, -3.0, 3.0, 3.0)
_MARKER_REACH = (-3.0, -(2 * _MARKER_R + 6), 3.0, 3.0)

class LaPaireLayoutView(QWidget):
    """The felt. Emits ``spot_activated`` / ``spot_remove`` with (bet, values)."""

    spot_activated = Signal(str, object)
    spot_remove = Signal(str, object)

    def __init__(self, config: LaPaireConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(560, 260)
        self.setAccessibleName("La Pair'e layout")
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self._all = build_spots()
        self._by_key = {s.key: s for s in self._all}
        self.config = config
        self.spots: list[Spot] = []
        self.chips: dict[SpotKey, dict[int, int]] = {}
        self.outcomes: dict[SpotKey, bool] = {}
        self.marks: dict[str, int] = {}       # main-grid value -> card number (the marker)
        self.pair_mark: str | None = None     # La Pair'e row value of card 2
        self.seat = 1
        self.remove_mode = False
        self.poker_hand: str | None = None
        self._cursor: SpotKey | None = None
        self._hover: SpotKey | None = None
        self._callout: tuple[SpotKey, str, str] | None = None
        self._callout_timer = QTimer(self)
        self._callout_timer.setSingleShot(True)
        self._callout_timer.timeout.connect(self._clear_callout)
        # The felt as it is with no round on it (lines, values, prices), drawn once per size
        # and configuration: a card or a chip repaints only the spots it changes on top.
        self._base: QPixmap | None = None
        self._base_for: tuple[object, ...] = ()
        self._neutral = False
        self._fonts: dict[tuple[str, float, float, bool], QFont] = {}
        self._drawn: list[DrawnChip] | None = None   # where the chips are, once worked out
        # Each drawn chip's picture and place, as it looks won or lost: a card settles the
        # chips and moves none, so a card's repaint only looks them up.
        self._chip_copies: dict[tuple[int, bool], tuple[QPoint, QPixmap]] = {}
        self._chip_copies_of: tuple[object, ...] = ()
        # Each spot as it looks now (see _copy_spot), and each chip as drawn at this scale.
        self._pictures = Pictures()
        self._spot_boxes: dict[tuple[object, ...], tuple[int, int, int, int]] = {}
        self.set_config(config)

    # -- state from the screen -------------------------------------------------------------

    def set_config(self, config: LaPaireConfig) -> None:
        """Show the spots ``config`` offers: optional kinds not offered are not drawn; a First
        Card spot not offered stays touchable so the refusal can be explained."""
        self.config = config
        shown: list[Spot] = []
        for s in self._all:
            w = config.wager(s.bet)
            if s.bet in FIRST_KINDS or w.offered:
                shown.append(s)
        self.spots = shown
        self._shown_keys = frozenset(s.key for s in shown)
        self._base = None
        self._drawn = None
        self._pictures.clear()
        if self._cursor not in {s.key for s in shown}:
            self._cursor = None
        self.update()

    def offered(self, spot: Spot) -> bool:
        w = self.config.wager(spot.bet)
        if not w.offered:
            return False
        if isinstance(w, SpotWager):
            s = w.spot(spot.values)
            return s is not None and s.offered
        return True

    def set_round(self, chips: Mapping[SpotKey, Mapping[int, int]],
                  outcomes: Mapping[SpotKey, bool], marks: Mapping[str, int],
                  pair_mark: str | None, poker_hand: str | None) -> None:
        kept = {k: dict(v) for k, v in chips.items()}
        if kept != self.chips:
            # Where each chip goes depends on the chips alone (and the seat selected): a
            # card, which settles them and moves none, keeps the places worked out.
            self.chips = kept
            self._drawn = None
        self.outcomes = dict(outcomes)
        self.marks = dict(marks)
        self.pair_mark = pair_mark
        self.poker_hand = poker_hand
        self.update()

    def set_seat(self, seat: int) -> None:
        self.seat = seat
        self._drawn = None
        self.update()

    def show_callout(self, key: SpotKey, text: str, tone: str = "bad",
                     seconds: float = CALLOUT_SECONDS) -> None:
        """A refusal said on the felt: the spot ringed, and the reason in the band between the
        main grid and the La Pair'e row, where it covers no cell."""
        self._callout = (key, text, tone)
        self._callout_timer.start(int(seconds * 1000))
        self.update()

    def clear_callout(self) -> None:
        """Take the refusal away (a chip has since been placed or taken back)."""
        if self._callout is not None:
            self._callout_timer.stop()
            self._clear_callout()

    def _clear_callout(self) -> None:
        self._callout = None
        self.update()

    @property
    def callout(self) -> tuple[SpotKey, str, str] | None:
        """The refusal shown now: (spot, text, tone)."""
        return self._callout

    # -- geometry --------------------------------------------------------------------------

    def _transform(self) -> QTransform:
        scale = min(self.width() / LW, self.height() / LH)
        t = QTransform()
        # Centred across, at the top: any height to spare goes under the felt, not over it.
        t.translate((self.width() - LW * scale) / 2, 0)
        t.scale(scale, scale)
        return t

    def spot(self, bet: str, values: Iterable[str] = ()) -> Spot:
        return self._by_key[(bet, sort_values(values))]

    def spot_centre(self, bet: str, values: Iterable[str] = ()) -> QPointF:
        """Where ``(bet, values)`` is on the widget (for a click)."""
        s = self.spot(bet, values)
        return self._transform().map(self._anchor(s))

    def chips_drawn(self) -> list[DrawnChip]:
        """Every chip on the felt in drawing order, the topmost last. A seat's chips on a spot
        are spread across the spot's room (:func:`stack_centres`), the selected seat's on
        top."""
        if self._drawn is not None:
            return self._drawn
        t = self._transform()
        scale = t.m11()
        drawn: list[DrawnChip] = []
        shown = {s.key for s in self.spots}
        for key in sorted(self.chips, key=lambda k: _LAYER.get(k[0], 0)):
            by_seat = self.chips[key]
            s = self._by_key.get(key)
            if s is None or not by_seat or key not in shown:
                continue
            seats = sorted(by_seat, key=lambda seat: (seat == self.seat, seat))
            radii = [_CHIP_R_SELECTED if seat == self.seat else _CHIP_R for seat in seats]
            centres = stack_centres(s, radii)
            n = len(seats)
            for i, (seat, c, r) in enumerate(zip(seats, centres, radii, strict=True)):
                drawn.append(DrawnChip(key, seat, t.map(c), r * scale, i == n - 1))
        self._drawn = drawn
        return drawn

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._drawn = None
        super().resizeEvent(event)

    def spot_at(self, pos: QPointF) -> Spot | None:
        """The spot whose shape holds ``pos``: a three's or a corner's point first, then a
        split's edge, then a cell or a box. The shapes do not overlap within a kind, and a
        chip is drawn inside its own spot's shape, so a chip never takes a touch aimed at
        another spot."""
        inv, ok = self._transform().inverted()
        if not ok:
            return None
        p = inv.map(pos)
        for group in (True, False):   # points first: they sit on top of edges and cells
            for s in self.spots:
                if s.round == group and s.bet != "straight" and s.contains(p):
                    return s
        for s in self.spots:
            if s.bet == "straight" and s.contains(p):
                return s
        return None

    @staticmethod
    def _anchor(s: Spot) -> QPointF:
        """Where a single chip on ``s`` sits (and where a click lands on it)."""
        return stack_centres(s, [_CHIP_R_SELECTED])[0]

    def sizeHint(self) -> QSize:
        return QSize(860, 390)

    # -- input -----------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        s = self.spot_at(event.position())
        if s is None:
            return
        self._cursor = s.key
        remove = event.button() == Qt.MouseButton.RightButton or self.remove_mode
        if event.button() in (Qt.MouseButton.LeftButton, Qt.MouseButton.RightButton):
            (self.spot_remove if remove else self.spot_activated).emit(s.bet, s.values)
        self.update()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self.hover_at(event.position())

    def hover_at(self, pos: QPointF | None) -> None:
        """Light the spot under ``pos`` (a mouse over the felt, or a chip dragged onto it),
        or (None) none."""
        s = self.spot_at(pos) if pos is not None else None
        key = s.key if s else None
        if key != self._hover:
            self._hover = key
            self.update()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        moves = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0),
                 Qt.Key.Key_Up: (0, -1), Qt.Key.Key_Down: (0, 1)}
        if key in moves:
            self._move_cursor(*moves[key])
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self._cursor:
            bet, values = self._cursor
            (self.spot_remove if self.remove_mode else self.spot_activated).emit(bet, values)
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self._cursor:
            self.spot_remove.emit(*self._cursor)
        else:
            super().keyPressEvent(event)

    def _move_cursor(self, dx: int, dy: int) -> None:
        if self._cursor is None:
            self._cursor = self.spots[0].key
            self.update()
            return
        here = self._anchor(self._by_key[self._cursor])
        best: tuple[float, Spot] | None = None
        for s in self.spots:
            if s.key == self._cursor:
                continue
            d = self._anchor(s) - here
            along = d.x() * dx + d.y() * dy
            if along <= 1:
                continue
            across = abs(d.y() if dx else d.x())
            score = along + 2.5 * across
            if best is None or score < best[0]:
                best = (score, s)
        if best is not None:
            self._cursor = best[1].key
            self.update()

    @property
    def cursor_spot(self) -> SpotKey | None:
        return self._cursor

    # -- painting --------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.drawPixmap(0, 0, self._base_pixmap())
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setTransform(self._transform())
        line = QPen(QColor(theme.FELT_LINE), 2.2)
        # Only the spots that look different from the bare felt are drawn again, each as
        # the copy of a picture of it looking so.
        changed = [spot for spot in self.spots if self._changed(spot)]
        if changed:
            p.save()
            p.resetTransform()
            for spot in changed:
                self._copy_spot(p, spot, line)
            p.restore()
        self._paint_zones(p)
        self._paint_chips(p)
        self._paint_marks(p)
        self._paint_cursor(p)
        self._paint_callout(p)

    def _base_pixmap(self) -> QPixmap:
        ratio = self.devicePixelRatioF()
        key = (self.width(), self.height(), ratio, id(self.config))
        if self._base is None or self._base_for != key:
            pix = QPixmap(max(1, round(self.width() * ratio)),
                          max(1, round(self.height() * ratio)))
            pix.setDevicePixelRatio(ratio)
            # Opaque (the screen's background around the felt's rounded corners): copied
            # without blending, and nothing beneath the felt has to be painted first.
            pix.fill(QColor(theme.BG))
            p = QPainter(pix)
            p.setRenderHint(QPainter.RenderHint.Antialiasing)
            p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            p.setTransform(self._transform())
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(theme.FELT))
            p.drawRoundedRect(QRectF(0, 0, LW, LH), 18, 18)
            line = QPen(QColor(theme.FELT_LINE), 2.2)
            self._neutral = True
            try:
                self._paint_grid(p, line)
                self._paint_lapaire_row(p, line)
                self._paint_boxes(p, line)
            finally:
                self._neutral = False
                p.end()
            self._base, self._base_for = pix, key
        return self._base

    def _changed(self, s: Spot) -> bool:
        """Whether spot ``s`` looks different from the bare felt now."""
        if s.bet in ("split", "three", "corner"):
            return False    # drawn by _paint_zones when they matter
        return (s.key == self._hover or s.key in self.outcomes
                or self._mark_of(s) is not None
                or (s.bet in BOX_KINDS and len(self.chips.get(s.key, ())) > 1)
                or (s.bet == "poker" and bool(self.poker_hand)))

    def _look(self, s: Spot) -> tuple[object, ...]:
        """Everything the way spot ``s`` is drawn depends on besides the configuration and
        the felt's size."""
        return (s.key == self._hover, self.outcomes.get(s.key), self._mark_of(s),
                len(self.chips.get(s.key, ())) if s.bet in BOX_KINDS else 0,
                self.poker_hand if s.bet == "poker" else None)

    def _copy_spot(self, p: QPainter, s: Spot, line: QPen) -> None:
        """Spot ``s`` as :meth:`_paint_spot` draws it, from a picture of it kept per look."""
        self._copy(p, s, ("spot", self._look(s)), lambda q: self._paint_spot(q, s, line))

    def _copy(self, p: QPainter, s: Spot, look: tuple[object, ...],
              paint: Callable[[QPainter], None],
              reach: tuple[float, float, float, float] = _SPOT_REACH) -> None:
        """What ``paint`` draws of spot ``s`` (in the felt's coordinates), from a picture of
        it kept per ``look``: on a whole pixel of the widget, the spot drawn inside the
        picture exactly where it falls between pixels, so the copy is what drawing it there
        would have made. ``p`` paints in the widget's own coordinates."""
        where = (s.key, reach, self.width(), self.height())
        box = self._spot_boxes.get(where)
        if box is None:
            ink = self._transform().mapRect(s.rect.adjusted(*reach))
            x0, y0 = math.floor(ink.left()), math.floor(ink.top())
            box = self._spot_boxes[where] = (x0, y0, math.ceil(ink.right()) - x0,
                                             math.ceil(ink.bottom()) - y0)
        x0, y0, w, h = box

        def draw(q: QPainter) -> None:
            q.setRenderHint(QPainter.RenderHint.Antialiasing)
            q.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            q.translate(-x0, -y0)
            q.setTransform(self._transform(), True)
            paint(q)

        key = (s.key, look, id(self.config), self.width(), self.height(), self.font().key())
        p.drawPixmap(QPoint(x0, y0),
                     self._pictures.get(key, w, h, self.devicePixelRatioF(), draw))

    def _paint_spot(self, p: QPainter, s: Spot, line: QPen) -> None:
        if s.bet == "straight":
            (v,) = s.values
            self._paint_cell(p, s, line, "JOKER" if v == JOKER else v, _VALUE_PX,
                             _price(self.config, s.bet, s.values))
        elif s.bet == "lapaire":
            (v,) = s.values
            self._paint_cell(p, s, line, "JK" if v == JOKER else v, TEXT, None)
        elif s.bet in BOX_KINDS:
            self._paint_box(p, s, line)

    def _font(self, px: float, bold: bool = True) -> QFont:
        f = QFont(self.font())
        f.setPixelSize(max(6, int(px)))
        f.setBold(bold)
        return f

    def _fitted(self, text: str, px: float, width: float, bold: bool = True) -> QFont:
        """The label font at ``px``, made smaller until ``text`` fits ``width`` (a word such
        as JOKER must never be clipped by its cell)."""
        key = (text, px, width, bold)
        found = self._fonts.get(key)
        if found is None:
            f = self._font(px, bold)
            while px > 8 and QFontMetricsF(f).horizontalAdvance(text) > width:
                px -= 1
                f = self._font(px, bold)
            found = self._fonts[key] = f
        return found

    def _paint_cell(self, p: QPainter, s: Spot, line: QPen, text: str, px: float,
                    price: str | None) -> None:
        r = s.rect
        offered = self.offered(s)
        won = None if self._neutral else self.outcomes.get(s.key)
        marked = None if self._neutral else self._mark_of(s)
        fill = QColor(theme.FELT)
        if s.key == self._hover and not self._neutral:
            fill = QColor("#137048")
        if won is True:
            fill = QColor("#1f8a55")
        if marked:
            fill = QColor("#7a6217")
        p.setBrush(fill)
        p.setPen(line)
        p.drawRect(r)
        colour = QColor(theme.FELT_LINE if offered else "#5d8f76")
        bottom = Qt.AlignmentFlag.AlignBottom
        if s.bet == "straight":
            # The price in the top right corner; the value beside it (a grid cell) or under
            # it (the Ace's and the Joker's tall cells); the chips below both.
            band = s.band
            shown = price if offered and price else ""
            tall = s.values[0] in (ACE, JOKER)
            # A grid cell keeps room for its value beside the price ("10" at 20 px).
            price_font = self._fitted(shown or "12:1", PRICE_TEXT,
                                      band.width() - (0 if tall else 44), bold=False)
            if shown:
                p.setFont(price_font)
                p.setPen(QColor("#cfe6d7"))
                p.drawText(band, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignRight,
                           shown)
            if tall:
                value = QRectF(r.left(), r.top() + PRICE_TEXT + 4, r.width(),
                               s.room.top() - r.top() - PRICE_TEXT - 4)
                font = self._fitted(text, px, r.width() - 10)
                align = Qt.AlignmentFlag.AlignCenter
            else:
                # Every grid value at one size: the size "10" fits beside "12:1".
                room = band.width() - QFontMetricsF(price_font).horizontalAdvance("12:1") - 4
                value = QRectF(band.left(), band.top(), room, band.height())
                font = self._fitted("10", px, room)
                align = bottom | Qt.AlignmentFlag.AlignHCenter
            p.setFont(font)
            p.setPen(colour)
            p.drawText(value, align, text)
        else:
            # A La Pair'e cell: its value at the top, its chips at its foot.
            p.setPen(colour)
            p.setFont(self._fitted(text, px, r.width() - 10))
            p.drawText(QRectF(r.left(), r.top() + 2, r.width(), px + 6),
                       Qt.AlignmentFlag.AlignCenter, text)
        if not offered:
            small = r.adjusted(5, 1, -5, -1)
            p.setPen(colour)
            p.setFont(self._fitted("not offered", TEXT, small.width(), bold=False))
            p.drawText(small, bottom | Qt.AlignmentFlag.AlignHCenter, "not offered")

    def _paint_marks(self, p: QPainter) -> None:
        """The gold frame and the numbered marker on the values the cards showed: drawn over
        everything, so that no chip ever hides them (each copied from a picture of it)."""
        # The marked cells looked up by value, not every spot asked (a heavy card's repaint).
        keys = [("straight", (v,)) for v in self.marks]
        if self.pair_mark is not None:
            keys.append(("lapaire", (self.pair_mark,)))
        shown = self._shown_keys
        p.save()
        p.resetTransform()
        for key in keys:
            s = self._by_key.get(key)
            marked = self._mark_of(s) if s is not None and key in shown else None
            if s is None or not marked:
                continue
            # A La Pair'e cell's marker stands above the cell, in the row's title band.
            reach = _MARKER_REACH if s.bet == "lapaire" else _SPOT_REACH
            self._copy(p, s, ("mark", marked), functools.partial(self._paint_mark, s, marked),
                       reach)
        p.restore()

    def _paint_mark(self, s: Spot, marked: int, p: QPainter) -> None:
        r = s.rect
        p.setPen(QPen(QColor(theme.GOLD), 5))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(r.adjusted(3, 3, -3, -3))
        # The marker in a corner of the chips' room, away from the value and the price
        # (over the bottom seat's chip of a wide stack, never the top one's amount); a
        # La Pair'e cell, a chip and a half high, has it just above.
        room = s.room
        if s.bet == "lapaire":         # over the cell, in the row's title band
            c = QPointF(r.center().x(), r.top() - _MARKER_R - 2)
        elif room.top() > s.band.bottom():      # chips under the band
            c = QPointF(room.left() + _MARKER_R, room.bottom() - _MARKER_R)
        else:                                    # chips over it (the bottom row)
            c = QPointF(room.left() + _MARKER_R, room.top() + _MARKER_R)
        p.setPen(QPen(QColor("#6b4e00"), 1.5))
        p.setBrush(QColor(theme.GOLD))
        p.drawEllipse(c, _MARKER_R, _MARKER_R)
        p.setPen(QColor("#1a1a1a"))
        p.setFont(self._font(_MARKER_PX))
        p.drawText(QRectF(c.x() - _MARKER_R, c.y() - _MARKER_R, 2 * _MARKER_R,
                          2 * _MARKER_R), Qt.AlignmentFlag.AlignCenter, str(marked))

    def _paint_grid(self, p: QPainter, line: QPen) -> None:
        for s in self.spots:
            if s.bet != "straight":
                continue
            (v,) = s.values
            self._paint_cell(p, s, line, "JOKER" if v == JOKER else v, _VALUE_PX,
                             _price(self.config, s.bet, s.values))

    def _mark_of(self, s: Spot) -> int | None:
        """The number of the card whose value this cell shows (the dealer's marker): card 1
        on the main grid, card 2 on the La Pair'e row."""
        if s.bet == "straight":
            return self.marks.get(s.values[0])
        if s.bet == "lapaire" and s.values[0] == self.pair_mark:
            return 2
        return None

    def _paint_lapaire_row(self, p: QPainter, line: QPen) -> None:
        row = [s for s in self.spots if s.bet == "lapaire"]
        if not row:
            return
        p.setPen(QColor(theme.FELT_LINE))
        w = self.config.wager("lapaire")
        price = f"{w.pays.win}:{w.pays.stake}" if isinstance(w, SpotWager) else ""
        title = f"LA PAIR'E CARD  ·  {price}"
        band = QRectF(_X0 + 2, _BAND_TOP + 1, LW - 2 * _X0 - 4, _BAND_BOTTOM - _BAND_TOP - 2)
        p.setFont(self._fitted(title, TEXT, band.width()))
        p.drawText(band, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        for s in row:
            (v,) = s.values
            self._paint_cell(p, s, line, "JK" if v == JOKER else v, TEXT, None)

    def _paint_boxes(self, p: QPainter, line: QPen) -> None:
        for s in self.spots:
            if s.bet in BOX_KINDS:
                self._paint_box(p, s, line)

    def _paint_box(self, p: QPainter, s: Spot, line: QPen) -> None:
        r = s.rect
        won = None if self._neutral else self.outcomes.get(s.key)
        hover = s.key == self._hover and not self._neutral
        fill = QColor("#1f8a55") if won else QColor("#137048" if hover else theme.FELT_DARK)
        p.setBrush(fill)
        p.setPen(line)
        p.drawRoundedRect(r, 10, 10)
        colour = {"red": "#ff6b5b", "black": "#f4f4f4"}.get(s.bet, theme.FELT_LINE)
        p.setPen(QColor(colour))
        # The title across the top, the price (the paytable, the poker hand) below it, clear
        # of the chips stacked at the box's bottom right.
        width = r.width() - 12
        title = BOX_TITLES[s.bet]
        p.setFont(self._fitted(title, TEXT, width))
        p.drawText(QRectF(r.left() + 6, r.top() + 6, width, 32), Qt.AlignmentFlag.AlignCenter,
                   title)
        p.setPen(QColor("#cfe6d7"))
        sub = _price(self.config, s.bet, ())
        if s.bet == "poker" and self.poker_hand and not self._neutral:
            sub = self.poker_hand
        # The price keeps clear of the chips: a stack is wider the more seats are on it.
        seats = 1 if self._neutral else max(1, len(self.chips.get(s.key, ())))
        stack = stack_centres(s, [_CHIP_R] * (seats - 1) + [_CHIP_R_SELECTED])
        left = stack[0].x() - _CHIP_R_SELECTED - 4
        below = QRectF(r.left() + 6, r.bottom() - 38, left - r.left() - 6, 32)
        p.setFont(self._fitted(sub, TEXT, below.width(), bold=False))
        p.drawText(below, Qt.AlignmentFlag.AlignCenter, sub)

    def _paint_zones(self, p: QPainter) -> None:
        """Edges and points are only drawn when they matter: hover, cursor or a result (each
        copied from a picture of it: a heavy card lights tens of them)."""
        p.save()
        p.resetTransform()
        for s in self.spots:
            if s.bet not in ("split", "three", "corner"):
                continue
            won = self.outcomes.get(s.key)
            if s.key != self._hover and won is None:
                continue
            self._copy(p, s, ("zone", won), functools.partial(_paint_zone, s, won))
        p.restore()

    def _paint_chips(self, p: QPainter) -> None:
        # Each chip is drawn once at the felt's scale and then copied: a round of 35 wagers
        # would otherwise redraw dozens of dashed, antialiased rings on every paint.
        scale = p.transform().m11()
        drawn = self.chips_drawn()
        # The list itself, not its id: a list made anew may take a freed one's id.
        of = (drawn, scale, self.devicePixelRatioF())
        if (len(self._chip_copies_of) != 3 or self._chip_copies_of[0] is not drawn
                or of[1:] != self._chip_copies_of[1:]):
            self._chip_copies, self._chip_copies_of = {}, of
        copies, outcomes = self._chip_copies, self.outcomes
        p.save()
        p.resetTransform()
        for i, chip in enumerate(drawn):
            lost = outcomes.get(chip.key) is False
            found = copies.get((i, lost))
            if found is None:
                pix = self._chip_pixmap(chip.seat, self.chips[chip.key][chip.seat], lost,
                                        chip.top, scale)
                half = pix.deviceIndependentSize() / 2
                c = chip.centre
                # On a whole pixel: a straight copy, not a blend across four pixels each.
                found = copies[(i, lost)] = (
                    QPoint(round(c.x() - half.width()), round(c.y() - half.height())), pix)
            p.drawPixmap(*found)
        p.restore()

    def _chip_pixmap(self, seat: int, value: int, lost: bool, top: bool,
                     scale: float) -> QPixmap:
        text = self.config.money.chip_face(value) if top else ""
        side = 2 * (_CHIP_R + 6) * scale

        def draw(painter: QPainter) -> None:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            painter.scale(scale, scale)
            centre = _CHIP_R + 6
            self._paint_chip(painter, QPointF(centre, centre), seat, text, lost)

        key = ("chip", seat, text, lost, seat == self.seat, round(scale, 4))
        return self._pictures.get(key, side, side, self.devicePixelRatioF(), draw)

    def _paint_chip(self, p: QPainter, c: QPointF, seat: int, text: str, lost: bool) -> None:
        colour = theme.seat_colour(seat)
        if lost:
            colour.setAlpha(90)
        selected = seat == self.seat
        r = _CHIP_R + (3 if selected else 0)
        p.setPen(QPen(QColor("#ffffff" if not lost else "#888888"), 2.5 if selected else 1.5,
                      Qt.PenStyle.SolidLine if not lost else Qt.PenStyle.DotLine))
        p.setBrush(colour)
        p.drawEllipse(c, r, r)
        p.setPen(QPen(QColor(255, 255, 255, 150), 1.5, Qt.PenStyle.DashLine))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawEllipse(c, r - 4, r - 4)
        if text:
            p.setPen(QColor("#111111"))
            p.setFont(self._font(14 if len(text) <= 3 else 11))
            p.drawText(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r), Qt.AlignmentFlag.AlignCenter,
                       text)

    def _paint_cursor(self, p: QPainter) -> None:
        if self._cursor is None or not self.hasFocus():
            return
        s = self._by_key[self._cursor]
        p.setPen(QPen(QColor(theme.INFO), 5))
        p.setBrush(Qt.BrushStyle.NoBrush)
        if s.round:
            p.drawEllipse(s.rect.adjusted(-3, -3, 3, 3))
        else:
            p.drawRoundedRect(s.rect.adjusted(2, 2, -2, -2), 6, 6)

    def _paint_callout(self, p: QPainter) -> None:
        if self._callout is None:
            return
        key, text, tone = self._callout
        s = self._by_key.get(key)
        if s is None:
            return
        colour = QColor(theme.BAD if tone == "bad" else theme.GOOD)
        # The spot ringed where it is, covering nothing.
        p.setPen(QPen(colour, 5))
        p.setBrush(Qt.BrushStyle.NoBrush)
        if s.round:
            p.drawEllipse(s.rect.adjusted(-2, -2, 2, 2))
        else:
            p.drawRoundedRect(s.rect.adjusted(2, 2, -2, -2), 6, 6)
        # The reason, on one line, in the band between the main grid and the La Pair'e row
        # (the message bar has it in full).
        box = QRectF(_X0, _BAND_TOP + 1, LW - 2 * _X0, _BAND_BOTTOM - _BAND_TOP - 2)
        p.setPen(QPen(colour, 2))
        p.setBrush(QColor("#5a1c17" if tone == "bad" else "#173f2a"))
        p.drawRoundedRect(box, 8, 8)
        inner = box.adjusted(12, 0, -12, 0)
        font = self._font(CALLOUT_PX)
        p.setFont(font)
        p.setPen(QColor("#ffffff"))
        shown = QFontMetricsF(font).elidedText(text, Qt.TextElideMode.ElideRight,
                                               inner.width())
        p.drawText(inner, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, shown)


def _paint_zone(s: Spot, won: bool | None, p: QPainter) -> None:
    """A split's edge or a three's or corner's point: won, lost (dim, as its chips are, never
    a bright highlight) or under the finger (``won`` None)."""
    if won is False:
        p.setPen(QPen(QColor("#888888"), 1.5, Qt.PenStyle.DotLine))
        p.setBrush(QColor(0, 0, 0, 70))
    else:
        colour = QColor(theme.GOOD if won else "#ffffff")
        colour.setAlpha(120 if won is None else 200)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(colour)
    if s.round:
        p.drawEllipse(s.rect)
    else:
        p.drawRoundedRect(s.rect, 8, 8)
