"""Which shape an event has, for the monitor's readers: the first of an ordered list of
Protocols it satisfies, found once per event class (an isinstance against a Protocol is slow,
and the readers ask it for every record)."""

from __future__ import annotations

from collections.abc import Sequence


class Shapes:
    """``Shapes([(ROLE, Protocol), ...], other)``: ``of(event)`` is the role of the first
    Protocol the event satisfies (``other`` for none), remembered by the event's class."""

    def __init__(self, shapes: Sequence[tuple[int, type]], other: int) -> None:
        self.shapes = tuple(shapes)
        self.other = other
        self._by_class: dict[type, int] = {}

    def of(self, event: object) -> int:
        cls = type(event)
        role = self._by_class.get(cls)
        if role is None:
            role = self._by_class[cls] = next(
                (r for r, shape in self.shapes if isinstance(event, shape)), self.other)
        return role
