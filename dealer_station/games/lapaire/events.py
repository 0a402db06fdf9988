"""La Pair'e's record kinds: a round from its opening to its close or void."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer_station.events.base import (
    Codec,
    Event,
    JsonObject,
    Payout,
    card_words,
    optional,
    within,
)
from dealer_station.events.table import COMMON, keyed_words, voided_words


@dataclass(frozen=True, slots=True)
class RoundOpened(Event):
    KIND = "round.open"
    OPENS = True
    game: str
    config_version: str
    dealer: str


@dataclass(frozen=True, slots=True)
class WagerPlaced(Event):
    KIND = "wager.place"
    wager_id: int
    seat: int
    bet: str
    values: tuple[str, ...]
    amount: int


@dataclass(frozen=True, slots=True)
class WagerRemoved(Event):
    KIND = "wager.remove"
    wager_id: int


@dataclass(frozen=True, slots=True)
class BettingClosed(Event):
    KIND = "betting.close"
    wagers: int


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """Card ``n`` of the round: from a device (with its frame's seq), keyed in, or a
    supervisor's correction (with the reason)."""

    KIND = "card"
    n: int
    card: str
    source: str
    device_seq: int | None = optional()
    reason: str | None = optional()

    def told(self, unit: str, round_no: int | None) -> str:
        return f"card {card_words(self.card)} read and dealt{within(unit, round_no)}"


@dataclass(frozen=True, slots=True)
class StageSettled(Event):
    """What a card settled: each wager's result (``wager_id``, ``seat``, ``bet``, ``won``,
    ``win``), the totals and, on the third card, the Poker hand."""

    KIND = "stage.settle"
    stage: int
    card: str
    results: tuple[JsonObject, ...]
    total_win: int
    total_lost: int
    poker: str | None

    def payouts(self) -> tuple[Payout, ...]:
        return tuple(
            Payout(f"w{r.get('wager_id')}", int(r.get("seat") or 0), str(r.get("bet", "")),
                   tuple(str(v) for v in r.get("values") or ()), r["win"],
                   f"stage {self.stage}")
            for r in self.results if isinstance(r.get("win"), int) and r["win"] > 0)


@dataclass(frozen=True, slots=True)
class PayoutConfirmed(Event):
    """The dealer paid a stage (``auto``: the station confirmed a stage with nothing to pay)."""

    KIND = "payout.confirm"
    stage: int
    total_win: int
    auto: bool | None = optional()


@dataclass(frozen=True, slots=True)
class RoundClosed(Event):
    KIND = "round.close"
    CLOSES = "settled"
    cards: tuple[str, ...]
    wagers: int
    wagered: int
    total_win: int
    total_lost: int
    meters: JsonObject

    def told(self, unit: str, round_no: int | None) -> str:
        return f"{unit} {round_no} closed"


@dataclass(frozen=True, slots=True)
class RoundVoided(Event):
    """A supervisor voided the round: wagers not settled are ``returned``; settled stages
    stand and their meters count. ``returned_stakes`` is what those returned wagers staked
    (absent from records written before it was kept: read from the wagers then)."""

    KIND = "void"
    SIGNIFICANT = True
    EXCEPTION = True
    ALERT = "void"
    CLOSES = "voided"
    cards: tuple[str, ...]
    wagers: int
    wagered: int
    total_win: int
    total_lost: int
    voided: bool
    reason: str
    returned: tuple[int, ...]
    halt_seq: int | None
    meters: JsonObject
    returned_stakes: int | None = optional()

    def told(self, unit: str, round_no: int | None) -> str:
        return f"{unit} {round_no} voided"

    def alert_text(self, rnd: str, actor: str) -> str:
        return (voided_words(rnd, actor, self.reason)
                + (f"; {len(self.returned)} wager(s) returned" if self.returned else ""))

    def halt_settled(self) -> tuple[int, str] | None:
        return None if self.halt_seq is None else (self.halt_seq, "voided")


@dataclass(frozen=True, slots=True)
class CardCorrected(Event):
    """A supervisor entered card ``n`` after a misread or an impossible read."""

    KIND = "correction"
    SIGNIFICANT = True
    EXCEPTION = True
    ALERT = "correction"
    n: int
    card: str
    reason: str
    halt_seq: int

    def alert_text(self, rnd: str, actor: str) -> str:
        return keyed_words(rnd, self.card, actor, self.reason)


EVENTS: tuple[type[Event], ...] = (
    RoundOpened, WagerPlaced, WagerRemoved, BettingClosed, CardDealt, StageSettled,
    PayoutConfirmed, RoundClosed, RoundVoided, CardCorrected,
)

CODEC = Codec(COMMON, EVENTS)


def codec() -> Codec:
    """The registry's ``events`` part."""
    return CODEC


# --- fields read from a stored payload without decoding it -----------------------------------
# The theoretical-win read (table/wins.py) goes through every wager of a period, 2.2 million
# records for 100,000 rounds: decoding a wager costs about 22 µs against 4 µs to parse its
# JSON, so it reads these few fields from the parsed payload, here beside the events that
# declare them (a KeyError or TypeError on a payload that is not what its kind says).


def opened_version_and_dealer(stored: Mapping[str, Any]) -> tuple[str, str]:
    """A ``round.open``'s configuration version and dealer."""
    return str(stored["config_version"]), str(stored["dealer"])


def placed_stake(stored: Mapping[str, Any]) -> tuple[int, int, str, tuple[str, ...]]:
    """A ``wager.place``'s wager id, amount, kind and values (as stored: this runs once a
    wager, so it converts nothing)."""
    return stored["wager_id"], stored["amount"], stored["bet"], tuple(stored["values"])


def voided_returned_ids(stored: Mapping[str, Any]) -> list[int]:
    """The wagers a ``void`` handed back unsettled, by id."""
    return list(stored["returned"])


def settled_wager_ids(stored: Mapping[str, Any]) -> list[int]:
    """The wagers a ``stage.settle`` settled, by id."""
    return [r["wager_id"] for r in stored["results"]]
