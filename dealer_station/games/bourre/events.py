"""Bourré's record kinds: sessions, hands, the deal and draw, decisions, plays and reneges,
a cash game's house collection, and the pot a session leaves (carried or returned).

Hands carry their number as the record's ``round_no``; session records have none.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.events.base import (
    Codec,
    Event,
    JsonObject,
    card_words,
    lead,
    optional,
    within,
)
from dealer_station.events.table import COMMON, keyed_words, voided_words


@dataclass(frozen=True, slots=True)
class SessionOpened(Event):
    KIND = "session.open"
    game: str
    session_id: str
    profile: str
    config_version: str
    seats: tuple[int, ...]
    players: JsonObject
    chips: JsonObject
    first_dealer: int
    pot: int
    minutes: int


@dataclass(frozen=True, slots=True)
class HandOpened(Event):
    """Antes are in; ``chips`` and ``pot`` are as they stood before them."""

    KIND = "hand.open"
    OPENS = True
    game: str
    config_version: str
    dealer: str
    dealer_seat: int
    seats: tuple[int, ...]
    chips: JsonObject
    pot: int
    elapsed: int
    session_id: str


@dataclass(frozen=True, slots=True)
class BourreCardDealt(Event):
    """A card to a seat: ``phase`` is ``deal`` (the first five) or ``draw``."""

    KIND = "bourre.card"
    seat: int
    card: str
    phase: str
    source: str | None = optional()
    device_seq: int | None = optional()

    def told(self, unit: str, round_no: int | None) -> str:
        return (f"card {card_words(self.card)} read and dealt to seat {self.seat}"
                f"{within(unit, round_no)}")


@dataclass(frozen=True, slots=True)
class Decided(Event):
    KIND = "bourre.decision"
    seat: int
    stay: bool


@dataclass(frozen=True, slots=True)
class DiscardRead(Event):
    """One discard, as the reader (or the dealer) identified it."""

    KIND = "bourre.discard.card"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    KIND = "bourre.discard"
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Played(Event):
    """A card played to the trick; ``misplay`` is what the engine found wrong with it."""

    KIND = "bourre.play"
    seat: int
    card: str
    trick: int
    misplay: JsonObject | None
    source: str | None = optional()
    device_seq: int | None = optional()


@dataclass(frozen=True, slots=True)
class Reneged(Event):
    """A misplay as an exception to the flow of play: the player is the record's actor, and
    ``witness`` whoever read the card."""

    KIND = "renege"
    EXCEPTION = True
    ALERT = "renege"
    seat: int
    trick: int
    card: str
    rule: str
    reason: str
    penalised: bool
    stands: bool
    witness: str

    def alert_text(self, rnd: str, actor: str) -> str:
        return (f"{lead(rnd)}renege by the player at seat {self.seat} (played {self.card} in "
                f"trick {self.trick}): {self.reason}{'; penalised' if self.penalised else ''}")


@dataclass(frozen=True, slots=True)
class HandClosed(Event):
    KIND = "hand.close"
    CLOSES = "settled"
    dead: bool
    trump: str | None
    stayers: tuple[str, ...]
    folded: tuple[str, ...]
    tricks: JsonObject
    winner: str | None
    pot_end: int
    won: int
    bourre: tuple[str, ...]
    reneges: tuple[JsonObject, ...]
    retractions: tuple[JsonObject, ...]
    penalties: JsonObject
    house: int
    chips_before: JsonObject
    chips: JsonObject
    pot_before: int
    pot: int
    eliminated: tuple[str, ...]
    meters: JsonObject

    def told(self, unit: str, round_no: int | None) -> str:
        return f"{unit} {round_no} closed"


@dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """Every chip goes back as it was before the hand."""

    KIND = "void"
    SIGNIFICANT = True
    EXCEPTION = True
    ALERT = "void"
    CLOSES = "voided"
    reason: str
    halt_seq: int | None

    def told(self, unit: str, round_no: int | None) -> str:
        return f"{unit} {round_no} voided"

    def alert_text(self, rnd: str, actor: str) -> str:
        return voided_words(rnd, actor, self.reason)

    def halt_settled(self) -> tuple[int, str] | None:
        return None if self.halt_seq is None else (self.halt_seq, "voided")


@dataclass(frozen=True, slots=True)
class BourreCardCorrected(Event):
    KIND = "correction"
    SIGNIFICANT = True
    EXCEPTION = True
    ALERT = "correction"
    card: str
    reason: str
    halt_seq: int

    def alert_text(self, rnd: str, actor: str) -> str:
        return keyed_words(rnd, self.card, actor, self.reason)


@dataclass(frozen=True, slots=True)
class SessionClosed(Event):
    KIND = "session.close"
    session_id: str
    hands: int
    pot: int
    house: int
    standings: tuple[JsonObject, ...]
    tags: JsonObject
    eliminated: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HouseCollected(Event):
    """A cash game's house collection from one hand (the house's only win), in chips and in
    money: ``amount`` = ``chips`` x ``chip_value`` minor units of ``currency``. Written with
    the hand's ``hand.close`` (whose ``house`` holds the same chips), for every settled hand
    of a cash game, a hand that collected nothing included."""

    KIND = "bourre.collection"
    session_id: str
    rule: str
    chips: int
    chip_value: int
    currency: str
    minor_units: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotCarried(Event):
    """Chips left in the pot when a session closed: they wait at the table for the next
    session, which opens with them (its ``session.open`` ``pot``), unless a supervisor returns
    them (``pot.return``). Written with the ``session.close``. ``chip_value`` (minor units of
    ``currency``) says what the chips are worth: 0 and "" for tournament chips."""

    KIND = "pot.carry"
    session_id: str
    pot: int
    chip_value: int
    currency: str


@dataclass(frozen=True, slots=True)
class PotReturned(Event):
    """A supervisor returns a pot carried from a closed session (record ``carry_seq``) to its
    players instead of carrying it on: ``shares`` seat -> chips (they add up to ``pot``),
    ``players`` seat -> player, and why. The supervisor is the record's actor."""

    KIND = "pot.return"
    SIGNIFICANT = True
    session_id: str
    carry_seq: int
    pot: int
    shares: JsonObject
    players: JsonObject
    reason: str


EVENTS: tuple[type[Event], ...] = (
    SessionOpened, HandOpened, BourreCardDealt, Decided, DiscardRead, Discarded, Played,
    Reneged, HandClosed, HandVoided, BourreCardCorrected, SessionClosed, HouseCollected,
    PotCarried, PotReturned,
)

CODEC = Codec(COMMON, EVENTS)


def codec() -> Codec:
    """The registry's ``events`` part."""
    return CODEC
