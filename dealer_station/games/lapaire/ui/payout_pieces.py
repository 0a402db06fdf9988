"""What a card's payout list holds and draws: each seat's pays and takes, and the pieces of
text, lines and pages the list (``games/lapaire/ui/stage_payouts.py``) lays them out in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont

#: Room between seats' blocks.
BLOCK_GAP = 2.0

#: (seat, index of the spot in the seat's spots): one pay or take the dealer must see.
Entry = tuple[int, int]


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
    """A piece of text drawn at ``rect`` (left-aligned unless ``right``). ``role`` says what
    it is: ``amount`` (to pay), ``spot``, ``stake``, ``take`` (an amount to take), ``word``
    (pay, take), ``seat`` (its number), ``bar`` (its colour), ``head``, ``note``, ``more``
    (a seat continued on another page)."""

    rect: QRectF
    text: str
    font: QFont
    colour: str
    right: bool = False
    role: str = "text"


@dataclass(frozen=True, slots=True)
class Line:
    """A drawn line of the list: whose it is, what it says, where it is, and the spots it
    names."""

    seat: int
    text: str
    rect: QRectF
    spots: tuple[str, ...] = ()


#: What a page draws: its pieces of text, the bands behind alternate seats, and its lines.
Drawn = tuple[tuple[Piece, ...], tuple[QRectF, ...], tuple[Line, ...]]


class Page:
    """One page of the list: the seats on it, the pays and takes it shows, and what is
    drawn. What is drawn is placed when first asked for: a card's list in pages shows one
    page, and placing the others can wait until they are turned to."""

    __slots__ = ("_drawn", "_lay", "entries", "seats")

    def __init__(self, seats: tuple[int, ...], entries: frozenset[Entry],
                 lay: Callable[[], Drawn]) -> None:
        self.seats = seats
        self.entries = entries
        self._lay: Callable[[], Drawn] | None = lay
        self._drawn: Drawn | None = None

    def _placed(self) -> Drawn:
        if self._drawn is None:
            assert self._lay is not None
            self._drawn, self._lay = self._lay(), None
        return self._drawn

    @property
    def pieces(self) -> tuple[Piece, ...]:
        return self._placed()[0]

    @property
    def bands(self) -> tuple[QRectF, ...]:
        return self._placed()[1]

    @property
    def lines(self) -> tuple[Line, ...]:
        return self._placed()[2]


@dataclass(slots=True)
class Row:
    """A row of a seat's block, laid out from y = 0."""

    height: float
    pieces: list[Piece]
    line: Line | None = None
    entries: tuple[Entry, ...] = ()
    #: Drawn too where the row is the first of a page (the word "take" before a take line
    #: continued from the page before).
    lead: Piece | None = None


@dataclass(slots=True)
class Built:
    """The list laid out at one scale, before it is cut into pages."""

    scale: float
    width: float
    seat_w: float
    fits_width: bool
    head: list[Piece]
    head_h: float
    blocks: list[tuple[int, list[Row]]]
    text_h: float

    @property
    def body_h(self) -> float:
        """The height of every seat's block one under the other."""
        if not self.blocks:
            return 0.0
        return (sum(r.height for _, rows in self.blocks for r in rows)
                + BLOCK_GAP * (len(self.blocks) - 1))
