"""Which record kinds open and close a round or hand, which are significant and which are
exceptions to a round's flow, as the events declare them (``Event.OPENS``, ``Event.CLOSES``,
``Event.SIGNIFICANT``, ``Event.EXCEPTION``). The rows beside the chain (rounds, meters), the
significant events and the recall's exceptions are found from these, so the journal names no
feature's kinds."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import ModuleType

from dealer_station import registry as games
from dealer_station.events import accounting, station, table, tournament
from dealer_station.events.base import Codec, Event
from dealer_station.events.parts import EVENTS
from dealer_station.events.table import COMMON

#: Families of kinds that are significant whole, whatever their event (a device's, a user's,
#: the software check's, the floor link's and the witness's): a kind of one of them that this
#: release has no class for is still shown.
SIGNIFICANT_FAMILIES: tuple[str, ...] = ("device.", "user.", "integrity.", "floor.", "witness.")
#: Kinds older journals hold that no event class reads now, still significant there.
LEGACY_SIGNIFICANT: tuple[str, ...] = ("misread",)
_STATION_MODULES: tuple[ModuleType, ...] = (station, table, accounting, tournament)

_FOUND: dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, str]]] = {}
_CODECS: dict[tuple[str, ...], tuple[Codec, ...]] = {}


def codecs() -> tuple[Codec, ...]:
    """Every registered game's codec, and the kinds every table shares (made once for the
    games registered; a game registered later is read then)."""
    key = tuple(games.REGISTRY)
    found = _CODECS.get(key)
    if found is None:
        found = _CODECS[key] = (*(g.part(EVENTS)() for g in games.REGISTRY.values()),
                                Codec(COMMON))
    return found


def halt_ending_kinds(codec: Codec) -> list[str]:
    """The kinds whose events end a halt (its resolution, a void of its round)."""
    return [kind for kind, cls in codec.classes.items()
            if cls.halt_settled is not Event.halt_settled]


def _found() -> tuple[tuple[str, ...], dict[str, str]]:
    key = tuple(games.REGISTRY)          # a game registered later is read then
    found = _FOUND.get(key)
    if found is None:
        opening: dict[str, None] = {}
        closing: dict[str, str] = {}
        for codec in codecs():
            for kind, cls in codec.classes.items():
                if cls.OPENS:
                    opening[kind] = None
                if cls.CLOSES and closing.setdefault(kind, cls.CLOSES) != cls.CLOSES:
                    raise ValueError(f"two games close a round with {kind!r} differently")
        found = _FOUND[key] = (tuple(opening), closing)
    return found


def opening_kinds() -> tuple[str, ...]:
    """The kinds that open a round or hand."""
    return _found()[0]


def closing_statuses() -> Mapping[str, str]:
    """The kinds that close a round or hand, each with the round's status then."""
    return _found()[1]


def _every_event() -> Iterator[type[Event]]:
    """Every event class: the station's own modules' and every registered game's."""
    for module in _STATION_MODULES:
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Event) and value.KIND:
                yield value
    for codec in codecs():
        yield from codec.classes.values()


def significant_kinds() -> tuple[frozenset[str], tuple[str, ...]]:
    """The significant kinds the events declare (and the legacy ones), and the families of
    kinds significant whole (``device.`` ...)."""
    key = tuple(games.REGISTRY)
    found = _SIGNIFICANT.get(key)
    if found is None:
        found = _SIGNIFICANT[key] = frozenset(
            {cls.KIND for cls in _every_event() if cls.SIGNIFICANT} | set(LEGACY_SIGNIFICANT))
    return found, SIGNIFICANT_FAMILIES


def exception_kinds() -> frozenset[str]:
    """The kinds whose events are exceptions to a round's or hand's flow."""
    key = tuple(games.REGISTRY)
    found = _EXCEPTIONS.get(key)
    if found is None:
        found = _EXCEPTIONS[key] = frozenset(cls.KIND for cls in _every_event()
                                             if cls.EXCEPTION)
    return found


_SIGNIFICANT: dict[tuple[str, ...], frozenset[str]] = {}
_EXCEPTIONS: dict[tuple[str, ...], frozenset[str]] = {}
