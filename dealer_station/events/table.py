"""The record kinds every table writes alike: its life, its devices, its halts and config.

A game whose payload for one of these differs (La Pair'e's void carries the round's summary)
defines its own class of the same kind in its module; its codec takes that one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from dealer_station.events.base import (
    VERSION_KEY,
    Event,
    JsonObject,
    Upcaster,
    card_words,
    lead,
    optional,
    rest,
)
from dealer_station.events.station import STATION


@dataclass(frozen=True, slots=True)
class StationStarted(Event):
    KIND = "startup"
    SIGNIFICANT = True
    version: str
    game: str
    table: str


@dataclass(frozen=True, slots=True)
class StationStopped(Event):
    KIND = "shutdown"
    SIGNIFICANT = True
    version: str


@dataclass(frozen=True, slots=True)
class ConfigChanged(Event):
    """A configuration version for the table; ``content`` is what it settles under (journals
    from before the content was chained hold it only in the config table).

    Version 2 adds ``approved_by``: the second person (a supervisor or another operator) who
    approved the change with their PIN. A change with no second approval is written in its
    version-1 form, byte for byte what was always written (and what an older station
    reads); version 1 is a change nobody approved."""

    KIND = "config.change"
    SIGNIFICANT = True
    VERSION: ClassVar[int] = 2
    # Version 1 had no second approval: read as approved_by None.
    UPCASTERS: ClassVar[Mapping[int, Upcaster]] = {1: lambda d: d}
    version: str
    game: str
    reason: str
    changes: JsonObject
    content: JsonObject | None = optional()
    approved_by: str | None = optional()

    def to_payload(self) -> dict[str, Any]:
        out = Event.to_payload(self)
        if self.approved_by is None:
            out.pop(VERSION_KEY)
        return out


@dataclass(frozen=True, slots=True)
class RoundHalted(Event):
    """The round or hand stops until a supervisor acts. ``detail`` holds what the device said
    (``card``, ``device_seq``) when a device's frame stopped it."""

    KIND = "halt"
    SIGNIFICANT = True
    EXCEPTION = True
    ALERT = "halt"
    reason: str
    fault: str
    remedy: str
    detail: JsonObject = rest()

    def alert_text(self, rnd: str, actor: str) -> str:
        worded = halt_event_text(self.KIND, self.to_payload(), actor)
        return f"{lead(rnd)}play stopped: {worded[1] if worded else self.reason}"

    def told(self, unit: str, round_no: int | None) -> str:
        what = f"{unit} {round_no} stopped" if round_no else "the table stopped"
        # A card held while nobody was signed in is said by its own line already.
        return what if self.fault == "unattended_card" else f"{what}: {self.reason}"


@dataclass(frozen=True, slots=True)
class HaltResolved(Event):
    KIND = "resolve"
    SIGNIFICANT = True
    EXCEPTION = True
    action: str
    reason: str
    halt_seq: int | None

    def halt_settled(self) -> tuple[int, str] | None:
        if self.halt_seq is None:
            return None
        return self.halt_seq, (self.action or "resolved").replace("_", " ")


@dataclass(frozen=True, slots=True)
class CardHeld(Event):
    """A card read that was not dealt or played (the round stopped, no hand under way...)."""

    KIND = "card.held"
    SIGNIFICANT = True
    EXCEPTION = True
    card: str
    note: str
    device: str | None = optional()
    device_seq: int | None = optional()
    seat: int | None = optional()
    source: str | None = optional()

    def told(self, unit: str, round_no: int | None) -> str:
        return f"card {card_words(self.card)} read and held, not dealt"


@dataclass(frozen=True, slots=True)
class TableRecovered(Event):
    """A station restarted with a round or hand under way; ``state`` says where it was."""

    KIND = "recovery"
    EXCEPTION = True
    round_no: int
    differences: tuple[str, ...]
    state: JsonObject = rest()


@dataclass(frozen=True, slots=True)
class DeviceFaulted(Event):
    KIND = "device.fault"
    EXCEPTION = True
    ALERT = "device.fault"
    device: str
    kind: str
    detail: str
    card: str | None
    device_seq: int | None = optional()

    def alert_text(self, rnd: str, actor: str) -> str:
        return (f"{lead(rnd)}{fault_words(self.kind, self.device)}"
                + (f" ({self.detail})" if self.detail else "")
                + (f"; card {self.card}" if self.card else ""))


@dataclass(frozen=True, slots=True)
class DeviceStatusReported(Event):
    KIND = "device.status"
    device: str
    state: str
    device_seq: int | None = optional()


@dataclass(frozen=True, slots=True)
class DeviceConnected(Event):
    KIND = "device.connected"
    device: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True)
class DeviceLost(Event):
    KIND = "device.lost"
    device: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True)
class DeviceStateChanged(Event):
    KIND = "device.state"
    device: str
    state: str
    detail: str


@dataclass(frozen=True, slots=True)
class DeviceIdentified(Event):
    KIND = "device.identified"
    device: str
    model: str
    firmware: str
    serial_no: str
    device_seq: int
    resumed_after: int | None = optional()


@dataclass(frozen=True, slots=True)
class ClockJumped(Event):
    KIND = "clock.jump"
    SIGNIFICANT = True
    seconds: int
    milliseconds: int


#: Each game-protection rule as the pit and the reports name it (dealer_station/monitor/).
PROTECTION_RULES: dict[str, str] = {
    "shoe": "Shoe out of pattern",
    "card-knowledge": "Card knowledge",
    "dealer": "Dealer's win out of band",
    "hold": "Table hold out of band",
    "tray": "Tray variances by dealer",
    "bourre-deal": "Bourré deal out of pattern",
    "chip-dumping": "Chip dumping",
    "soft-play": "Soft play",
    "reneges": "Reneges at one seat",
}


@dataclass(frozen=True, slots=True)
class ProtectionAlerted(Event):
    """An alert of the game-protection monitor (dealer_station/monitor/, docs/monitor.md),
    journaled the moment the round that carried its evidence over the threshold closed:
    the rule, the test, that round (``round_no``: the record itself stands outside the round,
    after its close), the seat and the dealer, the evidence in words; ``evidence`` holds the
    rest of what the monitor said (the p-value, the statistic and its threshold, the
    false-alarm rate, the rounds of the evidence)."""

    KIND = "monitor.alert"
    SIGNIFICANT = True
    ALERT = "protection"
    rule: str
    test: str
    round_no: int
    seat: int | None
    dealer: str | None
    words: str
    evidence: JsonObject = rest()

    @property
    def rule_name(self) -> str:
        return PROTECTION_RULES.get(self.rule, self.rule)

    def number(self, name: str, default: float = 0.0) -> float:
        """One of the evidence's numbers (kept as text: the journal holds no floats)."""
        value = self.evidence.get(name)
        try:
            return float(value) if isinstance(value, str | int) else default
        except ValueError:
            return default

    @property
    def p_value(self) -> float:
        return self.number("p_value", 1.0)

    def alert_text(self, rnd: str, actor: str) -> str:
        seat = f", seat {self.seat}" if self.seat is not None else ""
        return (f"Round {self.round_no}{seat}: {self.rule_name}: {self.words} "
                f"(p-value {self.p_value:.2g})")


COMMON: tuple[type[Event], ...] = (
    StationStarted, StationStopped, ConfigChanged, RoundHalted, HaltResolved, CardHeld,
    TableRecovered, DeviceFaulted, DeviceStatusReported, DeviceConnected, DeviceLost,
    DeviceStateChanged, DeviceIdentified, ClockJumped, ProtectionAlerted, *STATION,
)


def device_kinds() -> frozenset[str]:
    return frozenset(c.KIND for c in COMMON if c.KIND.startswith("device."))


# -- plain words for people: the banner, the supervisor's screen, the events lists ------------

#: What the people at the table call each device (a device event's ``device`` is its role).
DEVICE_NAMES = {"shoe": "the shoe", "reader": "the card reader"}

#: A halt's fault (a device fault kind, a halting status, the station's own) in plain words;
#: ``{device}`` is the device's name.
FAULT_WORDS = {
    "gap": "{device} sent cards the station may have missed",
    "heartbeat_lost": "nothing has been heard from {device}",
    "disconnected": "{device} was disconnected",
    "misread": "{device} could not read a card",
    "impossible_card": "{device} read a card that cannot be in this shoe",
    "bad_frame": "{device} sent a message the station cannot read",
    "device_error": "{device} reports an error",
    "restarted": "{device} restarted",
    "wrong_device": "a different device answered in place of {device}",
    "repeat_mismatch": "{device} sent a card again, but a different one",
    "jam": "{device} is jammed",
    "door_open": "{device}'s door is open",
    "tamper": "{device} reports tampering",
    "station_error": "the station could not record what {device} sent",
    "unattended_card": "a card was read while nobody was signed in",
}
#: What a halt resolution did.
RESOLUTION_WORDS = {"resume": "resumed", "correction": "card entered by hand"}
#: Labels of the halt records in the events lists (the kinds stay in the journal).
HALT_KIND_LABELS = {"halt": "Halt (play stopped)", "resolve": "Halt resolved",
                    "card.held": "Card held (not taken)"}


def device_name(device: str | None) -> str:
    """``shoe`` -> "the shoe"; a device the station does not know keeps its name."""
    if not device:
        return "the device"
    return DEVICE_NAMES.get(device, f"the {device}")


def fault_words(fault: str, device: str | None = None) -> str:
    """A fault in plain words ("impossible_card" -> "the shoe read a card that cannot be in
    this shoe"); one it does not know is said with its underscores as spaces."""
    words = FAULT_WORDS.get(fault)
    if words is None:
        return fault.replace("_", " ")
    return words.format(device=device_name(device))


def reason_beyond_fault(reason: str, fault: str, device: str | None = None) -> str:
    """A halt's reason when it says more than its fault in words ("" when it does not: "the
    shoe reports JAM" adds nothing to "the shoe is jammed")."""
    if fault in ("jam", "door_open", "tamper") or fault_words(fault, device) in reason:
        return ""
    return reason


def voided_words(rnd: str, actor: str, reason: str) -> str:
    """A void as the pit's alert says it: "Round 12 voided by sue/supervisor; reason: ..."."""
    return f"{rnd or 'Round'} voided by {actor_words(actor)}; reason: {reason or '—'}"


def keyed_words(rnd: str, card: str, actor: str, reason: str) -> str:
    """A card a supervisor entered by hand, as the pit's alert says it."""
    return (f"{lead(rnd)}card {card} entered by hand by {actor_words(actor)}; "
            f"reason: {reason or '—'}")


def actor_words(actor: str) -> str:
    """Who did it, for people: ``device:shoe:S1`` -> "the shoe (S1)"; a person stays as
    ``user_id/role``."""
    if actor.startswith("device:"):
        _, _, rest = actor.partition(":")
        device, _, device_id = rest.partition(":")
        return device_name(device) + (f" ({device_id})" if device_id else "")
    if actor == "station":
        return "the station"
    if actor.startswith("seat:"):
        return f"the player at seat {actor.partition(':')[2]}"
    return actor


def halt_event_text(kind: str, payload: dict[str, object], actor: str, *,
                    who: str | None = None) -> tuple[str, str] | None:
    """(label, detail) of a halt, a resolution or a held card as the events lists show it,
    with who (``who``, by default the actor in words) and why; None for any other kind."""
    by = actor_words(actor) if who is None else who
    if kind == "halt":
        reason = str(payload.get("reason") or "")
        fault = str(payload.get("fault") or "")
        device = actor.split(":")[1] if actor.startswith("device:") else None
        words = fault_words(fault, device) if fault else reason
        more = reason_beyond_fault(reason, fault, device) if fault else ""
        detail = words + (f" ({more})" if more and more != words else "")
        card = payload.get("card")
        if card and str(card) not in detail:
            detail += f"; card {card}"
        return HALT_KIND_LABELS["halt"], f"{detail} — stopped by {by}"
    if kind == "resolve":
        action = str(payload.get("action") or "")
        done = RESOLUTION_WORDS.get(action, action.replace("_", " "))
        seq = payload.get("halt_seq")
        of = f" (the halt at record {seq})" if seq is not None else ""
        return (f"{HALT_KIND_LABELS['resolve']}: {done}",
                f"{done} by {by}{of}; reason: {payload.get('reason') or '—'}")
    if kind == "card.held":
        return (HALT_KIND_LABELS["card.held"],
                f"card {payload.get('card')} {payload.get('note') or 'not taken'}"
                f" — read by {by}")
    return None

