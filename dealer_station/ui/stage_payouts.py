"""What each seat is paid and has taken on the card just settled, spot by spot.

A seat's block: a line for each spot it won ("Straight JK   pay 375.00  + stake 15.00", the
amount to pay the largest text on the screen), then one line of the spots it lost ("take
Split 2-8 1.00 · Red 1.00"), wrapped if it is long. Every seat of the table fits the box at
full size for the wagers a stage settles (seven seats with a straight, a split and Red on card
1); a stage with more than that is drawn a little smaller, never cut off.

Drawn, not laid out: the list changes with every card, and a rich-text label that did so made
Qt lay out the whole dealer panel again on each card (the slowest part of showing one). The
box is given its size by the screen and never changes it; a new card only repaints it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QWidget

from dealer_station.ui import theme

#: Sizes tried, largest first, until the stage fits the box (the last is used regardless).
SCALES = (1.0, 0.93, 0.86, 0.8, 0.74, 0.68, 0.62, 0.56, 0.5)
#: Room between seats' blocks and between the parts of a line.
BLOCK_GAP = 2.0
COLUMN_GAP = 12.0


@dataclass(frozen=True, slots=True)
class SpotPayout:
    """One spot of a seat on the card: what to pay on it and the stake that stays with the
    pay, or what to take; money text."""

    spot: str
    pay: str | None = None
    stake: str | None = None
    take: str | None = None

    @property
    def text(self) -> str:
        if self.pay is not None:
            return f"{self.spot} pay {self.pay}" + (f" + stake {self.stake}" if self.stake
                                                     else "")
        return f"{self.spot} take {self.take}"


@dataclass(frozen=True, slots=True)
class SeatPayout:
    """A seat's spots settled on the card."""

    seat: int
    spots: tuple[SpotPayout, ...] = ()

    @property
    def pays(self) -> tuple[SpotPayout, ...]:
        return tuple(s for s in self.spots if s.pay is not None)

    @property
    def takes(self) -> tuple[SpotPayout, ...]:
        return tuple(s for s in self.spots if s.pay is None and s.take is not None)

    @property
    def text(self) -> str:
        return " · ".join(s.text for s in self.pays + self.takes)


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of text drawn at ``rect`` (left-aligned unless ``right``)."""

    rect: QRectF
    text: str
    font: QFont
    colour: str
    right: bool = False


@dataclass(frozen=True, slots=True)
class Line:
    """A drawn line of the list: whose it is, what it says, and where it is."""

    seat: int
    text: str
    rect: QRectF


class StagePayouts(QWidget):
    """The card's line (``head``), then each seat's block, or a ``note`` when nothing
    settles on the card."""

    def __init__(self, seats: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seats = seats
        self.head = ""
        self.note = ""
        self.rows: tuple[SeatPayout, ...] = ()
        self.scale = 1.0
        self.pieces: list[Piece] = []
        self.bands: list[QRectF] = []
        self.lines: list[Line] = []
        self._needed = 0.0                      # the height the last layout took
        self._metrics: dict[int, QFontMetricsF] = {}
        self.setAccessibleName("Payouts for the card")

    def sizeHint(self) -> QSize:
        return QSize(460, 420)

    def fonts(self, scale: float = 1.0) -> dict[str, QFont]:
        """The list's fonts at ``scale``: ``pay`` (amounts to pay), ``text`` (spots, stakes,
        takes), ``bold`` (the card's line, the word take) and ``seat``."""
        def font(px: float, bold: bool) -> QFont:
            f = QFont(self.font())
            f.setPixelSize(max(8, round(px * scale)))
            f.setBold(bold)
            return f

        return {"pay": font(theme.PAY_PX, True), "text": font(theme.TABLE_PX, False),
                "bold": font(theme.TABLE_PX, True), "seat": font(theme.TABLE_PX + 4, True)}

    @property
    def pay_font(self) -> QFont:
        """The font the amounts to pay are drawn in now."""
        return self.fonts(self.scale)["pay"]

    def show_stage(self, head: str, rows: Sequence[SeatPayout], note: str = "") -> None:
        rows = tuple(rows)
        if (head, rows, note) == (self.head, self.rows, self.note):
            return
        if len(rows) > self.seats:
            raise ValueError(f"{len(rows)} seats' payouts for a table of {self.seats} seats")
        self.head, self.rows, self.note = head, rows, note
        self.setAccessibleDescription(self.text())
        self._fit()
        self.update()

    def clear(self) -> None:
        self.show_stage("", ())

    def text(self) -> str:
        """What the list says, a line a seat, as a dealer reads it."""
        lines = [self.head] if self.head else []
        if self.note:
            lines.append(self.note)
        lines += [f"Seat {r.seat}: {r.text}" for r in self.rows]
        return "\n".join(lines)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._fit()
        super().resizeEvent(event)

    # -- laying the list out in the box ----------------------------------------------------

    def _fit(self) -> None:
        """The largest scale at which the whole list fits the box. A list too tall at full
        size starts from the scale its height suggests (text shrinks about in proportion),
        rather than laying it out at every scale in turn: this runs on every card."""
        if self._lay_out(1.0):
            return
        guess = self.height() / self._needed if self._needed > 0 else SCALES[-1]
        start = next((i for i, sc in enumerate(SCALES) if sc <= guess * 1.04), len(SCALES) - 1)
        if start > 1 and self._lay_out(SCALES[start - 1]):
            start -= 1      # a little larger than the guess already fits
            while start > 1 and self._lay_out(SCALES[start - 1]):
                start -= 1
            self._lay_out(SCALES[start])
            return
        for scale in SCALES[start:]:
            if self._lay_out(scale):
                return

    def _lay_out(self, scale: float) -> bool:
        """Place every piece at ``scale``; whether it all fits the box."""
        self.scale = scale
        self.pieces, self.bands, self.lines = [], [], []
        self._needed = 0.0
        if not self.head:
            return True
        width, height = float(self.width()), float(self.height())
        f = self.fonts(scale)
        m = {k: QFontMetricsF(v) for k, v in f.items()}
        self._metrics = {id(f[k]): m[k] for k in f}
        # Lines as tight as their ink: a take line the text's height, a pay line its
        # figures' (no descenders) and a little room.
        text_h = m["text"].height()
        pay_h = m["pay"].capHeight() + 8 * scale
        fits = True

        # The card's line, on two lines where it is long (a poker hand's name), elided past
        # that (the whole of it is the accessible description).
        y = 0.0
        for part in _wrap(self.head, m["bold"], width, 2):
            self.pieces.append(Piece(QRectF(0, y, width, text_h), part, f["bold"], theme.TEXT))
            y += text_h
        y += BLOCK_GAP
        if self.note:
            self.pieces.append(Piece(QRectF(0, y, width, text_h), self.note, f["text"],
                                     theme.MUTED))
            y += text_h

        # The columns of the pay lines, the same for every seat.
        pays = [s for r in self.rows for s in r.pays]
        seat_w = m["seat"].horizontalAdvance("7") + 24 * scale
        name_w = max((m["text"].horizontalAdvance(s.spot) for s in pays), default=0.0)
        word_x = seat_w + name_w + COLUMN_GAP * scale
        amount_x = word_x + m["text"].horizontalAdvance("pay ")
        amount_right = amount_x + max(
            (m["pay"].horizontalAdvance(s.pay or "") for s in pays), default=0.0)
        stake_x = amount_right + COLUMN_GAP * scale
        stake_w = max((m["text"].horizontalAdvance(_stake(s)) for s in pays), default=0.0)
        fits &= stake_x + stake_w <= width
        take_word = "take "
        take_x = seat_w + m["bold"].horizontalAdvance(take_word)

        for n, r in enumerate(self.rows):
            top = y
            for s in r.pays:
                line = QRectF(seat_w, y, width - seat_w, pay_h)
                self._text(QRectF(seat_w, y, name_w, pay_h), s.spot, f["text"], theme.TEXT)
                self._text(QRectF(word_x, y, amount_x - word_x, pay_h), "pay", f["text"],
                           theme.GOOD)
                self.pieces.append(Piece(QRectF(amount_x, y, amount_right - amount_x, pay_h),
                                         s.pay or "", f["pay"], theme.GOOD, right=True))
                if s.stake:
                    self._text(QRectF(stake_x, y, stake_w, pay_h), _stake(s), f["text"],
                               theme.MUTED)
                self.lines.append(Line(r.seat, s.text, line))
                y += pay_h
            if r.takes:
                # "take", then the lost spots, a line as long as the box allows.
                x, start = take_x, y
                said: list[str] = []
                self._text(QRectF(seat_w, y, take_x - seat_w, text_h), take_word.strip(),
                           f["bold"], theme.BAD)
                for i, s in enumerate(r.takes):
                    sep = " · " if i < len(r.takes) - 1 else ""
                    need = m["text"].horizontalAdvance(f"{s.spot} {s.take}{sep}")
                    if x > take_x and x + need > width:
                        self.lines.append(Line(r.seat, " · ".join(said),
                                               QRectF(seat_w, start, width - seat_w, text_h)))
                        x, said = take_x, []
                        y += text_h
                        start = y
                    fits &= x + need <= width
                    x = self._text(QRectF(x, y, width - x, text_h), f"{s.spot} ", f["text"],
                                   theme.TEXT)
                    x = self._text(QRectF(x, y, width - x, text_h), s.take or "", f["text"],
                                   theme.BAD)
                    x = self._text(QRectF(x, y, width - x, text_h), sep, f["text"], theme.MUTED)
                    said.append(f"take {s.spot} {s.take}")
                self.lines.append(Line(r.seat, " · ".join(said),
                                       QRectF(seat_w, start, width - seat_w, text_h)))
                y += text_h
            block = QRectF(0, top, width, y - top)
            if n % 2 == 0:
                self.bands.append(block)
            # The seat's colour and number by its first line.
            first = QRectF(0, top, seat_w, min(y - top, pay_h if r.pays else text_h))
            self.pieces.append(Piece(QRectF(4 * scale, first.top() + 4 * scale, 7 * scale,
                                            first.height() - 8 * scale), "■",
                                     f["seat"], theme.seat_colour(r.seat).name()))
            self._text(QRectF(14 * scale, first.top(), seat_w, first.height()),
                       str(r.seat), f["seat"], theme.TEXT)
            y += BLOCK_GAP
        self._needed = y - BLOCK_GAP
        return fits and y - BLOCK_GAP <= height

    def _text(self, rect: QRectF, text: str, font: QFont, colour: str) -> float:
        """A left-aligned piece; where the next one starts."""
        self.pieces.append(Piece(rect, text, font, colour))
        return rect.left() + self._metrics[id(font)].horizontalAdvance(text)

    # -- drawing ---------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.head:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QColor(theme.PANEL_HI))
        for band in self.bands:
            p.drawRoundedRect(band, 6, 6)
        for piece in self.pieces:
            if piece.text == "■":       # the seat's colour, a bar by its number
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(QColor(piece.colour))
                p.drawRoundedRect(piece.rect, 2, 2)
                continue
            p.setFont(piece.font)
            p.setPen(QColor(piece.colour))
            align = Qt.AlignmentFlag.AlignRight if piece.right else Qt.AlignmentFlag.AlignLeft
            p.drawText(piece.rect, align | Qt.AlignmentFlag.AlignVCenter, piece.text)


def _stake(s: SpotPayout) -> str:
    return f"+ stake {s.stake}" if s.stake else ""


def _wrap(text: str, metrics: QFontMetricsF, width: float, most: int) -> list[str]:
    """``text`` in lines no wider than ``width``, broken between words, at most ``most``
    lines (the last elided)."""
    lines: list[str] = []
    words = text.split(" ")
    while words:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(f"{line} {words[0]}") <= width:
            line += " " + words.pop(0)
        if len(lines) == most - 1 and words:
            line = " ".join([line, *words])
            words = []
        lines.append(metrics.elidedText(line, Qt.TextElideMode.ElideRight, width))
    return lines
