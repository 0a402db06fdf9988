"""A Bourré hand's phases, its errors, and the frozen records of what happened in it (what
``BourreHand``'s actions return and append to ``hand.log``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeAlias

from dealer_station.cards import Card, Suit
from dealer_station.errors import StationError
from dealer_station.games.bourre.rules.play import PlayRule

DECK_SIZE = 52


class Phase(StrEnum):
    ANTE = "ante"
    DEAL = "deal"
    DECISIONS = "decisions"
    DRAW = "draw"
    PLAY = "play"
    SETTLED = "settled"
    #: The chip count failed (ConservationError): every action is refused until a supervisor
    #: resolves it outside this hand.
    HALTED = "halted"


class BourreError(StationError, ValueError):
    """An action the hand refuses. The message says what, where and why."""


class IllegalActionError(BourreError):
    """Not allowed now: wrong phase, out of turn, a card the seat does not hold, a refused fold.
    (A held card that breaks a rule of play is not this: it is a recorded misplay.)"""


class ImpossibleCardError(BourreError):
    """A card that cannot be where it was read: dealt twice, or not in the pile being drawn."""


class ConservationError(StationError, RuntimeError):
    """Chips were created or lost. The hand cannot continue; a supervisor must step in."""


class DrawSource(StrEnum):
    STOCK = "stock"
    FOLDED = "folded"
    DISCARDS = "discards"


# -- records ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnteRecord:
    #: Chips each seat put in (with ``dealer_antes_for_all`` only the dealer pays).
    paid: Mapping[int, int]
    house_drop: int
    pot: int


@dataclass(frozen=True, slots=True)
class DealRecord:
    seat: int
    card: Card
    #: 1..5: this is the seat's n-th card.
    round: int
    #: Set on the dealer's fifth card, which is turned up.
    trump: Suit | None


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    seat: int
    stay: bool
    #: Chips put up to stay (the stay chip), 0 for a fold.
    paid: int


@dataclass(frozen=True, slots=True)
class DiscardRecord:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ReceiveRecord:
    seat: int
    card: Card
    source: DrawSource


@dataclass(frozen=True, slots=True)
class Misplay:
    """A card read that broke a rule of play."""

    seat: int
    #: 1..5
    trick: int
    card: Card
    rule: PlayRule
    reason: str
    #: A renege (matches the pot, cannot win) rather than a plain retraction.
    penalised: bool
    #: The card stayed in the trick (misplay penalty "renege"); otherwise it went back.
    stands: bool


@dataclass(frozen=True, slots=True)
class PlayRecord:
    seat: int
    card: Card
    #: 1..5
    trick: int
    misplay: Misplay | None
    #: False when the card went back to the hand (a retracted misplay).
    accepted: bool
    #: The seat that took the trick, when this card completed it.
    trick_winner: int | None


@dataclass(frozen=True, slots=True)
class HandResult:
    """The settled hand. Chips and pot are after settlement; the pot carries to the next deal
    before its antes."""

    #: True when too few players could afford to stay: no play, the pot carries.
    dead: bool
    trump: Suit | None
    stayers: tuple[int, ...]
    folded: tuple[int, ...]
    #: Tricks per staying seat.
    tricks: Mapping[int, int]
    winner: int | None
    #: The pot at the end of play (carried + antes + stay chips - house drop).
    pot_end: int
    #: Paid to the winner (``pot_end`` less any percentage collection).
    won: int
    bourre: tuple[int, ...]
    #: Penalised misplays, in order (a seat may appear more than once; it pays once).
    reneges: tuple[Misplay, ...]
    #: Misplays under "retraction only": recorded, not penalised.
    retractions: tuple[Misplay, ...]
    #: Chips each penalised seat put into the next pot.
    penalties: Mapping[int, int]
    #: This hand's house collection (drop + percentage), kept apart from the pot.
    house: int
    chips: Mapping[int, int]
    pot: int
    #: Seats left with no chips: out for the session.
    eliminated: tuple[int, ...]


HandEvent: TypeAlias = (AnteRecord | DealRecord | DecisionRecord | DiscardRecord | ReceiveRecord
                        | PlayRecord | HandResult)
