"""What a Bourré table shows of itself: the read model its screens render.

Built by :meth:`BourreTable.read_model` under the table's lock after each commit and handed to
the listeners with the committed events. Players' hands stay inside the engine: the view has
whose turn it is, what each seat has done, the trick on the table, tricks won, the pot, and
what the dealer is asked to do next, with the rules' answers (may this seat stay or fold?)
already worked out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dealer_station.cards import Card
from dealer_station.table.base import TableView


@dataclass(frozen=True, slots=True)
class BourreView(TableView):
    profile: str = ""
    session_open: bool = False
    seats: tuple[int, ...] = ()
    players: Mapping[int, str] = field(default_factory=dict)
    chips: Mapping[int, int] = field(default_factory=dict)
    dealer: int | None = None       # who deals the hand under way, or the next one
    pot: int = 0
    phase: str = "none"             # none (between hands), or the hand's phase
    to_act: int | None = None
    trump: Card | None = None
    trick: int = 0                  # the trick being played, 1 to 5
    seat_status: Mapping[int, str] = field(default_factory=dict)   # stayed, folded, out
    tricks: Mapping[int, int] = field(default_factory=dict)
    played: Mapping[int, Card] = field(default_factory=dict)       # the trick on the table
    winning: int | None = None      # the seat whose card is winning the trick on the table
    reneged: frozenset[int] = frozenset()                          # penalised this hand
    prompt: str = ""                # what the dealer does next, in a line
    can_stay: bool = False
    can_fold: bool = False
    receiving: bool = False         # in the draw: the seat to act is being dealt to
    discards_read: int = 0
    last_result: Mapping[str, Any] | None = None   # the last hand's settlement, this session
    renege: Mapping[str, Any] | None = None        # the hand's last renege, for the banner

    @property
    def hand_under_way(self) -> bool:
        return self.phase != "none"
