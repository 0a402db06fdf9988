"""The pot a Bourré session leaves when it ends: it waits at the table for the next session,
which opens with it, unless a supervisor returns it to the players (docs/card-room.md).

A pot is never silently lost: ``end_session`` journals ``pot.carry`` with the ``session.close``,
``start_session`` opens the next session with the waiting pot, and ``return_pot`` journals a
supervisor's ``pot.return`` (with a reason and the chips each seat gets back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.table.base import TableError


def chips_money(profile: BourreProfile) -> tuple[int, str]:
    """What a chip of ``profile`` is worth: (minor units, currency); (0, "") for tournament
    chips, which are worth no money."""
    return (profile.chip_value, profile.currency) if profile.is_cash else (0, "")


@dataclass(frozen=True, slots=True)
class WaitingPot:
    """A pot carried from a closed session (its ``pot.carry`` record ``seq``)."""

    seq: int
    session_id: str
    pot: int
    chip_value: int
    currency: str
    #: The closed session's standings (seat, player, chips, outcome).
    standings: tuple[Mapping[str, Any], ...] = ()

    @staticmethod
    def chips_words(chip_value: int, currency: str) -> str:
        return (f"cash chips worth {chip_value} minor units of {currency} each" if currency
                else "tournament chips")

    def describe(self) -> str:
        return self.chips_words(self.chip_value, self.currency)


def split_pot(pot: WaitingPot, shares: Mapping[int, int] | None) -> dict[int, int]:
    """The chips each seat gets back: ``shares`` checked (seats of the closed session, whole
    chips, adding up to the pot), or by default an even split among the seats that ended the
    session with chips (all its seats if none did), the odd chips to the lowest seats."""
    seats = sorted(int(st["seat"]) for st in pot.standings)
    if shares is None:
        with_chips = sorted(int(st["seat"]) for st in pot.standings if int(st["chips"]) > 0)
        takers = with_chips or seats
        if not takers:
            raise TableError("the closed session's seats are not known: give the shares")
        each, odd = divmod(pot.pot, len(takers))
        return {s: each + (1 if i < odd else 0) for i, s in enumerate(takers)}
    out: dict[int, int] = {}
    for seat, chips in shares.items():
        if seats and seat not in seats:
            raise TableError(f"seat {seat} did not play session {pot.session_id} (its seats: "
                             f"{', '.join(map(str, seats))})")
        if isinstance(chips, bool) or not isinstance(chips, int) or chips < 0:
            raise TableError(f"seat {seat}'s share must be a whole number of chips, not "
                             f"{chips!r}")
        if chips:
            out[seat] = chips
    if sum(out.values()) != pot.pot:
        raise TableError(f"the shares add up to {sum(out.values())} chips, but the pot holds "
                         f"{pot.pot}: every chip goes back to someone")
    return dict(sorted(out.items()))
