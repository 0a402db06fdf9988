"""What each seat is paid and has taken on the card just settled, spot by spot, every line of
it seen before the card can be confirmed.

A seat's block: a line for each spot it won ("Straight JK   pay 375.00  + stake 15.00", the
amount to pay the largest text on the screen), then the spots it lost ("take Split 2-8 1.00 ·
Red 1.00"), wrapped where they are long. The list is drawn as large as the box allows, from
full size down to the least a dealer reads from a metre (amounts to pay 24 px, every other
text 18 px), and never smaller:

- it fits the box: one page;
- it fits the box and the room of the cards row above it (``grown``): one page there, the card
  still named in the list's first line;
- else pages, each a whole number of seats where a seat fits a page ("Seat 3 continues on the
  next page" where one does not), with ‹ and › buttons a fingertip tall and what the next page
  holds ("Seats 5–7 of 7 ›"). Every page must have been shown before ``all_seen`` is true;
  the screen keeps Confirm off until then.

A pay line too wide for the box at the least size puts its stake under its amount, and then
its spot above its amount: nothing is cut. Two columns of seats do not fit the panel at these
sizes (a pay line of the largest table amounts needs about 480 px), so pages it is.

Drawn, not laid out: the list changes with every card, and a rich-text label that did so made
Qt lay out the whole dealer panel again on each card (the slowest part of showing one). The
box is given its room by the screen and never asks for another; a new card repaints it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QPushButton, QWidget

from dealer_station.games.lapaire.ui.payout_pieces import (
    BLOCK_GAP,
    Built,
    Drawn,
    Entry,
    Line,
    Page,
    Piece,
    Row,
    SeatPayout,
    SpotPayout,
)
from dealer_station.ui import theme
from dealer_station.ui.paint_cache import Texts

#: The least sizes, read from a metre: amounts to pay, and every other text of the list.
PAY_MIN_PX = 24
TEXT_MIN_PX = 18
#: Sizes tried, largest first, for the list on one page; pages use the last (the least
#: sizes above: each font is held at its least).
SCALES = (1.0, 0.95, 0.9, 0.86)
#: Room between the columns of a pay line (between seats' blocks: BLOCK_GAP).
COLUMN_GAP = 10.0
#: The page buttons' height (a fingertip: at least 44 px) and the room between them.
BAR_PX = 48
BAR_GAP = 6
#: How a pay line is set, tried in turn until the widest one fits the box: all on one row;
#: the stake under the amount; the spot, the amount and the stake each on a row.
FORMS = ("row", "stake below", "stacked")

class StagePayouts(QWidget):
    """The card's line (``head``), then each seat's block, or a ``note`` when nothing
    settles on the card; in pages where it needs them."""

    #: The pages seen, or the list shown, changed (``all_seen`` may have).
    seen_changed = Signal()

    def __init__(self, seats: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.seats = seats
        self.head = ""
        self.note = ""
        self.key: object = None
        self.rows: tuple[SeatPayout, ...] = ()
        self.scale = 1.0
        self.pages: list[Page] = []
        self.page = 0
        #: Whether the list takes the room of the cards row too (see ``set_room``).
        self.grown = False
        #: Called when ``grown`` changes, for the owner to give the box its new room.
        self.on_grow: Callable[[], None] | None = None
        self._room: tuple[float, float, float] | None = None
        self._seen: set[Entry] = set()
        self._entries: frozenset[Entry] = frozenset()
        self._fonts: dict[float, tuple[dict[str, QFont], dict[str, QFontMetricsF]]] = {}
        #: Widths of texts measured before, by scale, font and text (most of a card's texts
        #: were on the last card too: spots, stakes, the words).
        self._widths: dict[tuple[float, str, str], float] = {}
        self._bar_text = ""
        self._page_line = QRectF()
        self.prev_button = self._bar_button("‹", -1)
        self.next_button = self._bar_button("›", 1)
        self.setAccessibleName("Payouts for the card")

    def _bar_button(self, text: str, step: int) -> QPushButton:
        b = QPushButton(text, self)
        b.setStyleSheet(f"QPushButton {{ min-height: 0px; padding: 0px 10px;"
                        f" font-size: {TEXT_MIN_PX}px; }}")
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        b.clicked.connect(lambda _=False: self.show_page(self.page + step))
        b.hide()
        return b

    def sizeHint(self) -> QSize:
        return QSize(460, 420)

    # -- what is drawn now (the page shown) ------------------------------------------------

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return self.pages[self.page].pieces if self.pages else ()

    @property
    def bands(self) -> tuple[QRectF, ...]:
        return self.pages[self.page].bands if self.pages else ()

    @property
    def lines(self) -> tuple[Line, ...]:
        """The lines of the page shown, where they are drawn."""
        return self.pages[self.page].lines if self.pages else ()

    @property
    def all_seen(self) -> bool:
        """Whether every pay and take of the list has been on screen."""
        return self._entries <= self._seen

    def unseen_seats(self) -> list[int]:
        """The seats with a pay or a take not yet on screen."""
        return sorted({seat for seat, _ in self._entries - self._seen})

    def fonts(self, scale: float = 1.0) -> dict[str, QFont]:
        """The list's fonts at ``scale`` (each held at its least size): ``pay`` (amounts to
        pay), ``text`` (spots, stakes, takes), ``bold`` (the card's line, the words pay and
        take) and ``seat``."""
        return self._fonts_at(scale)[0]

    def _fonts_at(self, scale: float) -> tuple[dict[str, QFont], dict[str, QFontMetricsF]]:
        found = self._fonts.get(scale)
        if found is None:
            def font(px: int, least: int, bold: bool) -> QFont:
                f = QFont(self.font())
                f.setPixelSize(max(least, round(px * scale)))
                f.setBold(bold)
                return f

            fonts = {"pay": font(theme.PAY_PX, PAY_MIN_PX, True),
                     "text": font(theme.TABLE_PX, TEXT_MIN_PX, False),
                     "bold": font(theme.TABLE_PX, TEXT_MIN_PX, True),
                     "seat": font(theme.TABLE_PX + 4, TEXT_MIN_PX + 4, True)}
            found = self._fonts[scale] = (fonts, {k: QFontMetricsF(v)
                                                  for k, v in fonts.items()})
        return found

    @property
    def pay_font(self) -> QFont:
        """The font the amounts to pay are drawn in now."""
        return self.fonts(self.scale)["pay"]

    # -- what to show ----------------------------------------------------------------------

    def show_stage(self, head: str, rows: Sequence[SeatPayout], note: str = "",
                   key: object = None) -> None:
        """Show a card's payouts. ``key`` names the card (its round and stage): the same
        list under another key is another card, whose pages are all still to be seen."""
        rows = tuple(rows)
        if (head, rows, note, key) == (self.head, self.rows, self.note, self.key):
            return
        if len(rows) > self.seats:
            raise ValueError(f"{len(rows)} seats' payouts for a table of {self.seats} seats")
        self.head, self.rows, self.note, self.key = head, rows, note, key
        self._entries = frozenset((r.seat, i) for r in rows for i, s in enumerate(r.spots)
                                  if s.pay is not None or s.take is not None)
        self._seen = set()
        self.setAccessibleDescription(self.text())
        self._fit(keep_page=False)

    def clear(self) -> None:
        self.show_stage("", ())

    def text(self) -> str:
        """What the list says, a line a seat, as a dealer reads it (every page)."""
        lines = [self.head] if self.head else []
        if self.note:
            lines.append(self.note)
        lines += [f"Seat {r.seat}: {r.text}" for r in self.rows]
        return "\n".join(lines)

    def set_room(self, width: float, height: float, grown: float) -> None:
        """The box's room as its owner gives it: ``height`` below the cards row, or
        ``grown`` over it too. The owner places the box by ``self.grown`` (and is told by
        ``on_grow`` when that changes); the box then lays nothing out again on a resize."""
        room = (float(width), float(height), float(grown))
        if room != self._room:
            self._room = room
            self._fit(keep_page=True)

    def show_page(self, n: int) -> None:
        if not self.pages:
            return
        n = max(0, min(n, len(self.pages) - 1))
        changed = n != self.page
        self.page = n
        self._bar()
        self._mark_seen()
        if changed:
            self.seen_changed.emit()
        self.update()

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self._room is None:
            self._fit(keep_page=True)
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._mark_seen()

    def _mark_seen(self) -> None:
        """The page shown is seen (only while the list is on screen)."""
        if not self.pages or not self.isVisible():
            return
        was = self.all_seen
        new = self.pages[self.page].entries - self._seen
        self._seen |= new
        if new:
            self._bar()
        if self.all_seen != was:
            self.seen_changed.emit()

    # -- laying the list out in the box ----------------------------------------------------

    def _fit(self, keep_page: bool) -> None:
        """The list at the largest scale at which it is all on one page in the box; else on
        one page in the grown box; else in pages of the grown box at the least sizes. This
        runs on every card: most lists fit at full size, the first tried; else the least
        size is tried next, and a list too long even then goes to pages at once."""
        width, height, grown = (self._room if self._room is not None
                                else (float(self.width()), float(self.height()),
                                      float(self.height())))
        first = self.pages[self.page].entries if keep_page and self.pages else frozenset()
        if not self.head:
            self._use(None, height, False)
        else:
            built: dict[float, Built] = {}

            def at(scale: float) -> Built:
                if scale not in built:
                    built[scale] = self._build(scale, width)
                return built[scale]

            rooms = (height, grown) if grown > height else (height,)
            chosen: tuple[Built, float] | None = None
            if (self._least_height(SCALES[0]) <= height
                    and self._one_page(at(SCALES[0]), height)):   # most cards: full size
                chosen = (at(SCALES[0]), height)
            for room in rooms if chosen is None else ():
                if self._one_page(at(SCALES[-1]), room):
                    chosen = (next(at(s) for s in SCALES if self._least_height(s) <= room
                                   and self._one_page(at(s), room)), room)
                    break
            best, room = chosen if chosen is not None else (at(SCALES[-1]), rooms[-1])
            self._use(best, room, room > height)
        # The page that holds what was shown before, if the list was only laid out again.
        self.page = next((i for i, p in enumerate(self.pages) if first & p.entries), 0)
        self._bar()
        self._mark_seen()
        self.seen_changed.emit()
        self.update()

    def _least_height(self, scale: float) -> float:
        """No less than the list's height at ``scale`` (a pay line a spot won, a take line
        a seat that lost any), found without laying it out."""
        m = self._fonts_at(scale)[1]
        text_h = m["text"].height()
        pay_h = max(m["pay"].capHeight() + 8 * scale, text_h)
        return text_h + sum(len(r.pays) * pay_h + (text_h if r.takes else 0.0) + BLOCK_GAP
                            for r in self.rows)

    def _one_page(self, built: Built, height: float) -> bool:
        return built.fits_width and built.head_h + built.body_h <= height

    def fits_one_page(self, scale: float) -> bool:
        """Whether the list is all on one page of the box at ``scale``."""
        width, height, _ = (self._room if self._room is not None
                            else (float(self.width()), float(self.height()), 0.0))
        return self._one_page(self._build(scale, width), height)

    def _use(self, built: Built | None, height: float, grown: bool) -> None:
        if built is None:
            self.scale, self.pages = 1.0, []
        else:
            self.scale = built.scale
            self.pages = self._paginate(built, height)
        if grown != self.grown:
            self.grown = grown
            if self.on_grow is not None:
                self.on_grow()

    def _advance(self, scale: float, kind: str, text: str) -> float:
        key = (scale, kind, text)
        found = self._widths.get(key)
        if found is None:
            if len(self._widths) > 4096:
                self._widths.clear()
            found = self._widths[key] = self._fonts_at(scale)[1][kind].horizontalAdvance(text)
        return found

    def _build(self, scale: float, width: float) -> Built:
        """Every row of the list at ``scale``, each seat's rows from y = 0."""
        f, m = self._fonts_at(scale)

        def adv(kind: str, text: str) -> float:
            return self._advance(scale, kind, text)
        text_h = m["text"].height()
        # A pay row as tight as its figures' ink (no descenders) and a little room.
        pay_h = max(m["pay"].capHeight() + 8 * scale, text_h)
        gap = COLUMN_GAP * scale

        head: list[Piece] = []
        y = 0.0
        for part in _wrap(self.head, m["bold"], width, 2):
            head.append(Piece(QRectF(0, y, width, text_h), part, f["bold"], theme.TEXT,
                              role="head"))
            y += text_h
        y += BLOCK_GAP
        if self.note:
            for part in _wrap(self.note, m["text"], width, 2):
                head.append(Piece(QRectF(0, y, width, text_h), part, f["text"], theme.MUTED,
                                  role="note"))
                y += text_h
            y += BLOCK_GAP
        head_h = y

        # The columns of the pay lines, the same for every seat.
        pays = [s for r in self.rows for s in r.pays]
        seat_w = 13 + adv("seat", "7") + 6 * scale
        name_w = max((adv("text", s.spot) for s in pays), default=0.0)
        word_w = adv("text", "pay ")
        amount_w = max((adv("pay", s.pay or "") for s in pays), default=0.0)
        stake_w = max((adv("text", _stake(s)) for s in pays), default=0.0)
        need = {"row": seat_w + name_w + gap + word_w + amount_w + gap + stake_w,
                "stake below": max(seat_w + name_w + gap + word_w + amount_w,
                                   seat_w + stake_w),
                "stacked": seat_w + max(name_w, word_w + amount_w, stake_w)}
        form = next((k for k in FORMS if need[k] <= width), None)
        fits = form is not None
        form = form or "stacked"
        take_word = "take "
        take_x = seat_w + adv("bold", take_word)
        if form == "stacked":
            amount_x = seat_w + word_w
            amount_right = min(width, amount_x + amount_w)
        else:
            amount_x = seat_w + name_w + gap + word_w
            amount_right = amount_x + amount_w
        stake_x = amount_right + gap

        blocks: list[tuple[int, list[Row]]] = []
        for r in self.rows:
            rows: list[Row] = []
            for i, s in enumerate(r.spots):
                if s.pay is None:
                    continue
                pieces: list[Piece] = []
                y = 0.0
                if form == "stacked":
                    spot = m["text"].elidedText(s.spot, Qt.TextElideMode.ElideRight,
                                                width - seat_w)
                    pieces.append(Piece(QRectF(seat_w, 0, width - seat_w, text_h), spot,
                                        f["text"], theme.TEXT, role="spot"))
                    y = text_h
                else:
                    pieces.append(Piece(QRectF(seat_w, 0, name_w, pay_h), s.spot, f["text"],
                                        theme.TEXT, role="spot"))
                word_x = amount_x - word_w
                pieces.append(Piece(QRectF(word_x, y, word_w, pay_h), "pay", f["text"],
                                    theme.GOOD, role="word"))
                pieces.append(Piece(QRectF(amount_x, y, amount_right - amount_x, pay_h),
                                    s.pay or "", f["pay"], theme.GOOD, right=True,
                                    role="amount"))
                height = y + pay_h
                if s.stake:
                    if form == "row":
                        at = QRectF(stake_x, 0, stake_w, pay_h)
                        pieces.append(Piece(at, _stake(s), f["text"], theme.MUTED,
                                            role="stake"))
                    else:
                        at = QRectF(seat_w, height, amount_right - seat_w, text_h)
                        pieces.append(Piece(at, _stake(s), f["text"], theme.MUTED,
                                            right=True, role="stake"))
                        height += text_h
                rows.append(Row(height, pieces,
                                 Line(r.seat, s.text, QRectF(seat_w, 0, width - seat_w, height),
                                      (s.spot,)),
                                 ((r.seat, i),)))
            takes = [(i, s) for i, s in enumerate(r.spots) if s.pay is None and s.take]
            if takes:
                # "take", then the lost spots, a line as long as the box allows.
                word = Piece(QRectF(seat_w, 0, take_x - seat_w, text_h), "take", f["bold"],
                             theme.BAD, role="word")
                row = Row(text_h, [word])
                x = take_x
                said: list[tuple[int, SpotPayout]] = []
                for n, (i, s) in enumerate(takes):
                    sep = " · " if n < len(takes) - 1 else ""
                    item = adv("text", f"{s.spot} {s.take}")
                    if said and x + item > width:
                        rows.append(self._take_row(row, r.seat, said, seat_w, width, text_h))
                        row, x, said = Row(text_h, [], lead=word), take_x, []
                    if x + item > width:
                        fits = False
                    spot_w = adv("text", f"{s.spot} ")
                    row.pieces.append(Piece(QRectF(x, 0, spot_w, text_h), s.spot, f["text"],
                                            theme.TEXT, role="spot"))
                    x += spot_w
                    take_w = adv("text", s.take or "")
                    row.pieces.append(Piece(QRectF(x, 0, take_w, text_h), s.take or "",
                                            f["text"], theme.BAD, role="take"))
                    x += take_w
                    if sep:
                        sep_w = adv("text", sep)
                        row.pieces.append(Piece(QRectF(x, 0, sep_w, text_h), sep, f["text"],
                                                theme.MUTED, role="sep"))
                        x += sep_w
                    said.append((i, s))
                rows.append(self._take_row(row, r.seat, said, seat_w, width, text_h))
            blocks.append((r.seat, rows))
        return Built(scale, width, seat_w, fits, head, head_h, blocks, text_h)

    @staticmethod
    def _take_row(row: Row, seat: int, said: list[tuple[int, SpotPayout]], seat_w: float,
                  width: float, text_h: float) -> Row:
        row.line = Line(seat, " · ".join(f"take {s.spot} {s.take}" for _, s in said),
                        QRectF(seat_w, 0, width - seat_w, text_h),
                        tuple(s.spot for _, s in said))
        row.entries = tuple((seat, i) for i, _ in said)
        return row

    def _paginate(self, built: Built, height: float) -> list[Page]:
        """The seats' blocks on pages of ``height``: whole seats where a seat fits a page,
        a seat that does not continued from page to page, said so at both ends."""
        f, m = self._fonts_at(built.scale)
        text_h, width, seat_w = built.text_h, built.width, built.seat_w
        head = list(built.head)
        self._page_line = QRectF()
        paged = built.head_h + built.body_h > height
        if not paged:
            body_top = built.head_h
        else:
            # Pages: the card's line beside the page buttons, and under it which page this
            # is and how many are still to be seen.
            head_w = width - self._buttons_width() - BAR_GAP
            parts = _wrap(self.head, m["bold"], head_w, 2)
            head = [Piece(QRectF(0, i * text_h, head_w, text_h), part, f["bold"], theme.TEXT,
                          role="head") for i, part in enumerate(parts)]
            self._page_line = QRectF(0, len(parts) * text_h, head_w, text_h)
            body_top = max((len(parts) + 1) * text_h, BAR_PX) + BLOCK_GAP
        body_h = height - body_top

        def note(text: str) -> Row:
            return Row(text_h, [Piece(QRectF(seat_w, 0, width - seat_w, text_h), text,
                                       f["bold"], theme.MUTED, role="more")])

        pages: list[list[tuple[int, list[Row]]]] = [[]]
        used = 0.0

        def room() -> float:
            return body_h - used - (BLOCK_GAP if pages[-1] else 0.0)

        def new_page() -> None:
            nonlocal used
            pages.append([])
            used = 0.0

        heights = [sum(r.height for r in rows) for _, rows in built.blocks]
        if paged and heights and max(heights) <= body_h:
            body_h = _balanced(heights, body_h)
        for (seat, rows), block_h in zip(built.blocks, heights, strict=True):
            if block_h <= body_h:
                # A seat that fits a page is kept whole, on the next page if need be.
                if block_h > room():
                    new_page()
                used += block_h + (BLOCK_GAP if pages[-1] else 0.0)
                pages[-1].append((seat, list(rows)))
                continue
            # A seat taller than a page: its rows over as many pages as they take, from
            # here.
            left, continued = list(rows), False
            while left:
                if pages[-1] and room() < text_h * 4:
                    new_page()
                space = room() - (text_h if continued else 0.0)
                part: list[Row] = []
                while left and (not part or sum(r.height for r in part) + left[0].height
                                + (text_h if len(left) > 1 else 0.0) <= space):
                    part.append(left.pop(0))
                if continued:
                    first = part[0]
                    if first.lead is not None:
                        part[0] = Row(first.height, [first.lead, *first.pieces], first.line,
                                       first.entries)
                    part.insert(0, note(f"Seat {seat}, continued"))
                if left:
                    part.append(note(f"Seat {seat} continues on the next page ›"))
                used += sum(r.height for r in part) + (BLOCK_GAP if pages[-1] else 0.0)
                pages[-1].append((seat, part))
                continued = True
                if left:
                    new_page()

        def lay(segments: list[tuple[int, list[Row]]]) -> Drawn:
            pieces = list(head)
            bands: list[QRectF] = []
            lines: list[Line] = []
            y = body_top
            for n, (seat, rows) in enumerate(segments):
                top = y
                for r in rows:
                    pieces += [_moved(p, y) for p in r.pieces]
                    if r.line is not None:
                        lines.append(Line(r.line.seat, r.line.text,
                                          r.line.rect.translated(0, y), r.line.spots))
                    y += r.height
                block = QRectF(0, top, width, y - top)
                if n % 2 == 0:
                    bands.append(block)
                # The seat's colour down its block, its number by the first line.
                first_h = rows[0].height if rows else text_h
                pieces.append(Piece(QRectF(4, top + 4, 6, block.height() - 8), "", f["seat"],
                                    theme.seat_colour(seat).name(), role="bar"))
                pieces.append(Piece(QRectF(13, top, 40, first_h), str(seat), f["seat"],
                                    theme.TEXT, role="seat"))
                y += BLOCK_GAP
            return tuple(pieces), tuple(bands), tuple(lines)

        out = []
        for segments in pages:
            entries = frozenset(e for _, rows in segments for r in rows for e in r.entries)
            out.append(Page(tuple(dict.fromkeys(s for s, _ in segments)), entries,
                            functools.partial(lay, segments)))
        return out

    # -- the page bar ----------------------------------------------------------------------

    def _buttons_width(self) -> int:
        """The page buttons side by side: ‹, and › as wide as its longest text can be."""
        m = QFontMetricsF(self.next_button.font())
        last = f"Seats {self.seats - 1}–{self.seats} of {self.seats} ›"
        return BAR_PX + BAR_GAP + int(m.horizontalAdvance(last)) + 28

    def _bar(self) -> None:
        """The page buttons, and what the page line says, for the page shown."""
        many = len(self.pages) > 1
        self.prev_button.setVisible(many)
        self.next_button.setVisible(many)
        if not many:
            self._bar_text = ""
            return
        n, total = self.page, len(self.pages)
        self.next_button.setText(f"{_seats(self.pages[n + 1].seats)} of {self.seats} ›"
                                 if n < total - 1 else "›")
        self.prev_button.setEnabled(n > 0)
        self.next_button.setEnabled(n < total - 1)
        unseen = sum(1 for p in self.pages if not p.entries <= self._seen)
        self._bar_text = f"Page {n + 1} of {total} · " + (f"{unseen} to see" if unseen
                                                           else "all seen")
        width = int(self._room[0] if self._room is not None else self.width())
        next_w = self._buttons_width() - BAR_PX - BAR_GAP
        self.next_button.setGeometry(width - next_w, 0, next_w, BAR_PX)
        self.prev_button.setGeometry(width - next_w - BAR_GAP - BAR_PX, 0, BAR_PX, BAR_PX)

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
            if piece.role == "bar":       # the seat's colour, a bar by its block
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(QColor(piece.colour))
                p.drawRoundedRect(piece.rect, 2, 2)
                continue
            p.setPen(_colour(piece.colour))
            _TEXTS.draw(p, piece.rect, piece.text, piece.font, piece.right)
        if len(self.pages) > 1:
            # Beside the buttons: which page, and how many are still to be seen.
            f, _ = self._fonts_at(SCALES[-1])
            p.setFont(f["text"])
            p.setPen(QColor(theme.GOOD if self.all_seen else theme.WARN))
            p.drawText(self._page_line, Qt.AlignmentFlag.AlignLeft
                       | Qt.AlignmentFlag.AlignVCenter, self._bar_text)

#: The list's lines, laid out once per font (shared by every list: one screen shows one).
_TEXTS = Texts()
_COLOURS: dict[str, QColor] = {}


def _colour(name: str) -> QColor:
    """The colour named ``name`` (made once: a list draws a hundred pieces in a few)."""
    found = _COLOURS.get(name)
    if found is None:
        found = _COLOURS[name] = QColor(name)
    return found


def _stake(s: SpotPayout) -> str:
    return f"+ stake {s.stake}" if s.stake else ""


def _moved(piece: Piece, dy: float) -> Piece:
    return Piece(piece.rect.translated(0, dy), piece.text, piece.font, piece.colour,
                 piece.right, piece.role)


def _count(heights: Sequence[float], room: float) -> int:
    """Pages the blocks of ``heights`` take in turn on pages of ``room``."""
    pages, used = 1, -BLOCK_GAP
    for h in heights:
        if used + BLOCK_GAP + h > room and used >= 0:
            pages, used = pages + 1, -BLOCK_GAP
        used += BLOCK_GAP + h
    return pages


def _balanced(heights: Sequence[float], room: float) -> float:
    """The least page height that still takes no more pages than ``room`` does: seats
    shared out evenly ("Seats 1–4", "Seats 5–7" rather than six and one)."""
    pages = _count(heights, room)
    low, high = max(heights), room
    for _ in range(12):
        mid = (low + high) / 2
        if _count(heights, mid) <= pages:
            high = mid
        else:
            low = mid
    return high


def _seats(seats: Sequence[int]) -> str:
    """``Seat 3``, ``Seats 5–7``: the seats a page holds."""
    if not seats:
        return ""
    if len(seats) == 1:
        return f"Seat {seats[0]}"
    return f"Seats {seats[0]}–{seats[-1]}"


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
