"""What a La Pair'e table shows of itself: the read model its screens render.

Built by :meth:`LaPaireTable.read_model` under the table's lock after each commit and handed
to the listeners with the committed events, so a screen never reads the engine, never takes
the table's lock to draw, and never works out a rule (what is still to be paid, which chip
"take back" removes) for itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dealer_station.cards import Card
from dealer_station.games.lapaire.rules.config import LaPaireConfig
from dealer_station.games.lapaire.rules.engine import SeatTotal, StageResult, Wager, WagerResult
from dealer_station.table.base import TableView


@dataclass(frozen=True, slots=True)
class LaPaireView(TableView):
    """The round under way, or between rounds the one just closed (``status`` settled or
    voided), and the configuration the layout shows (the round's, else the next round's)."""

    config: LaPaireConfig
    config_pending: bool = False   # an operator's change waits for the next round
    status: str = "none"           # none, open, settled, voided
    betting_open: bool = True
    wagers: Mapping[int, Wager] = field(default_factory=dict)
    results: Mapping[int, WagerResult] = field(default_factory=dict)
    cards: tuple[Card, ...] = ()
    stages: Mapping[int, StageResult] = field(default_factory=dict)
    confirmed: frozenset[int] = frozenset()
    seat_totals: Mapping[int, SeatTotal] = field(default_factory=dict)
    actors: Mapping[int, str] = field(default_factory=dict)
    void_reason: str | None = None
    to_confirm: int | None = None  # the stage the dealer pays next
    #: Each seat's wagers from the last round it played: what a rebet places again.
    rebets: Mapping[int, tuple[Wager, ...]] = field(default_factory=dict)

    @property
    def halted(self) -> bool:
        return self.halt is not None

    @property
    def shown_round(self) -> int | None:
        """The round the screen shows (the open one, else the one just closed)."""
        return self.round_no if self.round_no is not None else (
            self.last_round_no if self.status in ("settled", "voided") else None)
