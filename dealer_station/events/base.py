"""Typed journal events: one frozen class per record kind, a version, and upcasting.

Modelled on eventsourcing's Mapper: an event class knows its ``KIND`` (the journal's record
kind) and ``VERSION``, turns itself into the payload that is stored (``to_payload``) and back
(``from_payload``), and lifts a payload written by an older version to the current one through
``UPCASTERS`` (version N to N+1), so old journals are read without being rewritten.

The stored bytes do not change: a version-1 payload carries no version key (every record
written so far is version 1), and ``to_payload(from_payload(p)) == p`` for every payload the
station has ever written (tests/test_events.py holds it to that on real journals). A later
version stores ``"schema": N`` beside its fields.

Pure: no database, Qt, serial or PDF library.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union, cast

from dealer_station.cards import parse_card
from dealer_station.errors import StationError

#: The payload key that names a version above 1.
VERSION_KEY = "schema"

JsonObject = Mapping[str, Any]
Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
E = TypeVar("E", bound="Event")


class EventError(StationError, ValueError):
    """A stored payload that is not what its kind says; the message names the kind and key."""


def optional(default: Any = None) -> Any:
    """A key left out of the payload when its value is None (and read back as None)."""
    return field(default=default, metadata={"omit_none": True})


def rest() -> Any:
    """The keys no other field names, kept as they are (an open-ended part of a payload)."""
    return field(default_factory=dict, metadata={"rest": True})


@dataclass(frozen=True, slots=True)
class Payout:
    """One wager's win that an event pays, as the pit's large-payout alert names it."""

    key: str                  # the wager within its record ("w12": wager 12)
    seat: int
    bet: str                  # the wager's kind, as the game's records name it
    values: tuple[str, ...]
    win: int                  # minor units paid beyond the stake
    part: str                 # where in the round ("stage 1")


@dataclass(frozen=True, slots=True)
class Event:
    """The base of every journal event. Subclasses are frozen dataclasses with ``KIND``."""

    KIND: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    UPCASTERS: ClassVar[Mapping[int, Upcaster]] = {}
    #: The pit's alert this event raises by itself ("halt", "void"...; "" for none): said by
    #: the event, so that the floor names no kind.
    ALERT: ClassVar[str] = ""
    #: Whether this event opens a round or hand (its row beside the chain starts with it)...
    OPENS: ClassVar[bool] = False
    #: ...or closes one, and the round's status then ("settled", "voided"; "" for neither).
    CLOSES: ClassVar[str] = ""
    #: A significant event (AGCO / NIGC 543 / GLI style): what `audit events` and the events
    #: report show by default, and what a supervisor and a regulator look for first.
    SIGNIFICANT: ClassVar[bool] = False
    #: An exception to the normal flow of a round or hand (a halt, a void, a correction...):
    #: recall lists it beside the round.
    EXCEPTION: ClassVar[bool] = False

    def told(self, unit: str, round_no: int | None) -> str:
        """What the next person to sign in at the station is told of this event when it
        happened while nobody was signed in there (``unit``: "round" or "hand"); "" for
        nothing, as for most events."""
        return ""

    def alert_text(self, rnd: str, actor: str) -> str:
        """What the pit's alert of this event says (``rnd``: "Round 12", "Hand 3" or "";
        ``actor``: the record's). Only events with an ``ALERT`` have one."""
        return ""

    def halt_settled(self) -> tuple[int, str] | None:
        """The halt this event ends, by its record's seq, and how in a word or two
        ("voided", "resumed"); None for an event that ends none."""
        return None

    def payouts(self) -> tuple[Payout, ...]:
        """Each wager's win this event pays (none for most)."""
        return ()

    def to_payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, rest, omit_none in _layout(type(self)):
            value = getattr(self, name)
            if rest:
                out.update({k: _plain(v) for k, v in value.items()})
            elif value is None and omit_none:
                continue
            else:
                out[name] = _plain(value)
        if self.VERSION > 1:
            out[VERSION_KEY] = self.VERSION
        return out

    @classmethod
    def from_payload(cls: type[E], payload: Mapping[str, Any]) -> E:
        if not isinstance(payload, Mapping):
            raise EventError(f"a {cls.KIND} record's payload is not a JSON object")
        data = upcast(cls, dict(payload))
        kwargs: dict[str, Any] = {}
        rest_field: str | None = None
        for f in dataclasses.fields(cls):
            if f.metadata.get("rest"):
                rest_field = f.name
                continue
            if f.name in data:
                kwargs[f.name] = _convert(cls.KIND, f.name, _hints(cast(Any, cls))[f.name],
                                          data.pop(f.name))
            elif (f.default is dataclasses.MISSING
                  and f.default_factory is dataclasses.MISSING):
                raise EventError(f"a {cls.KIND} record has no {f.name!r}")
        if rest_field is not None:
            kwargs[rest_field] = data
        elif data:
            raise EventError(f"a {cls.KIND} record has keys its version-{cls.VERSION} form "
                             f"does not know: {', '.join(sorted(data))}")
        return cls(**kwargs)


def card_words(code: str) -> str:
    """A card as people read it (``K♥``, ``10♠``, ``JK``); a code no card has, as it is."""
    try:
        return parse_card(code).label
    except (StationError, ValueError):
        return code


def lead(rnd: str) -> str:
    """``Round 12: `` before what happened in it; nothing outside a round."""
    return f"{rnd}: " if rnd else ""


def within(unit: str, round_no: int | None) -> str:
    """`` (round 12)``: where an event happened, when it was in a round or hand."""
    return f" ({unit} {round_no})" if round_no else ""


def upcast(cls: type[Event], data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a stored payload) lifted to ``cls.VERSION``."""
    version = data.pop(VERSION_KEY, 1)
    if type(version) is not int or not 1 <= version <= cls.VERSION:
        raise EventError(f"a {cls.KIND} record says it is version {version!r}; this station "
                         f"reads versions 1 to {cls.VERSION}")
    while version < cls.VERSION:
        step = cls.UPCASTERS.get(version)
        if step is None:
            raise EventError(f"no way to read a version-{version} {cls.KIND} record")
        data = step(data)
        version += 1
    return data


@dataclass(frozen=True, slots=True)
class Unregistered(Event):
    """A record of a kind this codec does not apply (users, integrity, checkpoints): its
    payload as stored. Tables pass over it."""

    kind: str = ""
    payload: JsonObject = field(default_factory=dict)

    def to_payload(self) -> dict[str, Any]:
        return dict(self.payload)


@dataclass(frozen=True, slots=True)
class Committed:
    """An event as the journal holds it: its place in the chain, who did it, and when."""

    seq: int
    ts: str
    actor: str
    round_no: int | None
    event: Event

    @property
    def kind(self) -> str:
        return self.event.kind if isinstance(self.event, Unregistered) else self.event.KIND

    @property
    def payload(self) -> dict[str, Any]:
        """The payload as stored (for code that reads a record and an event alike)."""
        return self.event.to_payload()


class Codec:
    """Record kinds to event classes, for one game (its own kinds over the common ones)."""

    def __init__(self, *groups: Iterable[type[Event]]) -> None:
        self.classes: dict[str, type[Event]] = {}
        for group in groups:
            for cls in group:
                if not cls.KIND:
                    raise ValueError(f"{cls.__name__} has no KIND")
                self.classes[cls.KIND] = cls   # a later group overrides (a game's own void)

    def decode(self, kind: str, payload: Mapping[str, Any]) -> Event:
        cls = self.classes.get(kind)
        if cls is None:
            return Unregistered(kind=kind, payload=dict(payload))
        return cls.from_payload(payload)

    def decode_as(self, cls: type[E] | tuple[type[E], ...], seq: int, kind: str,
                  payload: Mapping[str, Any]) -> E:
        """Record ``seq`` read as an event of ``cls`` (a class, or a tuple of them): an
        EventError naming the record if it is of another kind or does not read as its own."""
        event = self.committed(seq, "", "", None, kind, payload).event
        if not isinstance(event, cls):
            wanted = " or ".join(c.KIND for c in (cls if isinstance(cls, tuple) else (cls,)))
            raise EventError(f"record {seq} is a {kind}, not a {wanted}")
        return event

    def committed(self, seq: int, ts: str, actor: str, round_no: int | None, kind: str,
                  payload: Mapping[str, Any]) -> Committed:
        try:
            event = self.decode(kind, payload)
        except EventError as exc:
            raise EventError(f"record {seq}: {exc}") from None
        return Committed(seq, ts, actor, round_no, event)


# --- values between the payload and the fields ----------------------------------------------

def _plain(value: Any) -> Any:
    """A field's value as JSON data (tuples become lists)."""
    kind = type(value)
    # The common cases by exact type first: a card's stage holds hundreds of values, and
    # asking the abstract Mapping about each costs more than the rest of the conversion.
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if kind is tuple or kind is list:
        return [_plain(v) for v in value]
    if kind is dict or isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _layout(cls: type[Event]) -> tuple[tuple[str, bool, bool], ...]:
    """Each field of an event class: its name, whether it holds the rest of the payload, and
    whether it is left out when None (asked once a class, not on every record)."""
    found = _LAYOUTS.get(cls)
    if found is None:
        found = _LAYOUTS[cls] = tuple(
            (f.name, bool(f.metadata.get("rest")), bool(f.metadata.get("omit_none")))
            for f in dataclasses.fields(cls))
    return found


_LAYOUTS: dict[type[Event], tuple[tuple[str, bool, bool], ...]] = {}


@functools.cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _convert(kind: str, name: str, hint: Any, value: Any) -> Any:
    """``value`` checked against the field's type; lists become tuples."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        last: EventError | None = None
        for option in options:
            if option is type(None):
                continue
            try:
                return _convert(kind, name, option, value)
            except EventError as exc:
                last = exc
        raise last or EventError(f"a {kind} record's {name!r} is {value!r}")
    if hint is Any:
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise EventError(f"a {kind} record's {name!r} should be a list, not {value!r}")
        (item, *_) = typing.get_args(hint)
        return tuple(_convert(kind, name, item, v) for v in value)
    if origin in (Mapping, dict) or hint in (Mapping, dict):
        if not isinstance(value, dict):
            raise EventError(f"a {kind} record's {name!r} should be an object, not {value!r}")
        return value
    if hint is bool:
        if type(value) is not bool:
            raise EventError(f"a {kind} record's {name!r} should be true or false, not "
                             f"{value!r}")
        return value
    if hint is int:
        if type(value) is not int:
            raise EventError(f"a {kind} record's {name!r} should be a whole number, not "
                             f"{value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise EventError(f"a {kind} record's {name!r} should be text, not {value!r}")
        return value
    return value
