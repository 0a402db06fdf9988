"""What only some games' tables can do, asked for by type (``isinstance(table, CarriesPots)``),
never by looking for an attribute: a game's table has the capability by having its methods."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from dealer_station.audit.users import User


@runtime_checkable
class CarriesPots(Protocol):
    """A pot game's table (Bourré): a pot left in a closed session waits for the next one,
    unless a supervisor returns it to the players."""

    def waiting_pot(self) -> int | None:
        """The chips of the pot waiting for the next session, or None (read under the
        table's lock)."""
        ...

    def return_pot(self, user: User, reason: str) -> object:
        """Return the waiting pot to its players, signed by ``user`` with ``reason``."""
        ...
