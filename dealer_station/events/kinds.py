"""Which record kinds open and close a round or hand, as the events of every registered game
declare them (``Event.OPENS``, ``Event.CLOSES``). The rows beside the chain (rounds, meters)
are kept and proven from these, so the journal names no game's kinds."""

from __future__ import annotations

from collections.abc import Mapping

from dealer_station import registry as games
from dealer_station.events.base import Codec, Event
from dealer_station.events.parts import EVENTS
from dealer_station.events.table import COMMON

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
