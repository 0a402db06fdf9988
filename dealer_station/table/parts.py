"""The parts of a game that the tables' layer, and the layers above it, call through the
registry (registry.py): each a ``Part`` key typed by how it is called here.

The registry names where a game's part lives; this module says what shape it has. Shared code
asks ``games.game(name).part(TABLE)`` and gets a ``OpensTable``, never ``Any``; a game that
lacks an optional part (``supplies`` gives None) simply has no such capability.
tests/test_game_registry.py checks every game's entry against these signatures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from dealer_station.registry import Part

if TYPE_CHECKING:
    from dealer_station.accounting.settings import AccountingSettings
    from dealer_station.audit.journal import Journal, MeterDelta, Record, RoundInfo
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.table.base import TableService
    from dealer_station.table.days import DaysResult
    from dealer_station.table.recall_model import Recall
    from dealer_station.table.wins import RoundWin

T = TypeVar("T")


class OpensTable(Protocol):
    """Open (or recover) the game's table service on ``journal``."""

    def __call__(self, journal: Journal, table_id: str, /, *, config_path: str | None = None,
                 dealer: str, prefer_journal_config: bool | None = None) -> TableService: ...


class Simulates(Protocol):
    """Play ``count`` simulated deals through the real table; how many were played. A game
    with rule profiles plays ``profile``; one without refuses it. ``inject``: the anomalies
    to inject (``simulate --inject`` specs, the game's own); a game that has none refuses any."""

    def __call__(self, journal: Journal, table_id: str, count: int, /, *, seed: int | None,
                 config_path: str | None = None, quiet: bool = False,
                 profile: str | None = None, inject: Sequence[str] = ()) -> int: ...


class SimulatesDays(Protocol):
    """Whole gaming days with the table's chip tray and accounting (a banked game), with the
    anomalies ``inject`` names as ``Simulates`` plays them, the shifts dealt in turn by
    ``dealers`` simulated dealers."""

    def __call__(self, journal: Journal, table_id: str, rounds_per_day: int, /, *, days: int,
                 mispay_rate: float, seed: int | None, config_path: str | None = None,
                 settings: AccountingSettings | None = None,
                 calendar: GamingCalendar | None = None, start: date | None = None,
                 quiet: bool = False, inject: Sequence[str] = (),
                 dealers: int = 1) -> DaysResult: ...


class Wins(Protocol):
    """Each round's computed and theoretical win in ``[since, until)`` (a banked game)."""

    def __call__(self, journal: Journal, table_id: str, since: datetime | None,
                 until: datetime | None, /, *, check_hashes: bool = True) -> list[RoundWin]: ...


class Recalls(Protocol):
    """A deal's recall, the game's own subclass of :class:`Recall`."""

    def __call__(self, journal: Journal, info: RoundInfo, records: list[Record], /
                 ) -> Recall: ...


class StoredConfigs(Protocol):
    """The configuration versions a replay reads, parsed once each."""

    def get(self, version: str, parse: Callable[[Mapping[str, Any], str], T], /) -> T: ...


class Replays(Protocol):
    """Settle a deal's records again: (status, differences, meter deltas)."""

    def __call__(self, records: list[Record], configs: StoredConfigs, /
                 ) -> tuple[str, list[str], Mapping[str, MeterDelta]]: ...


#: A round's wagers in action as (kind, the values its spot names, stake in minor units).
StakedWager = tuple[str, tuple[str, ...], int]
#: The law of a round's house win: (its values in minor units, how many of ``total``
#: equally likely deals give each, ``total``).
WinLawCounts = tuple[tuple[int, ...], tuple[int, ...], int]


class RoundLaws(Protocol):
    """For one configuration (its ``content`` as the journal holds it), the exact law of a
    round's house win given the wagers placed and how many of its cards were dealt (the
    wagers of stages not dealt were handed back); the law is None when a wager is on a spot
    the configuration does not price. A banked game's par sheet (the game-protection
    monitor's dealer and hold rules)."""

    def __call__(self, content: Mapping[str, Any], /
                 ) -> Callable[[Sequence[StakedWager], int], WinLawCounts | None]: ...


class RecallText(Protocol):
    """A recall as the command line prints it (``records``: every record below it)."""

    def __call__(self, r: Recall, /, *, records: bool = False) -> str: ...


TABLE: Part[OpensTable] = Part("table")
SIMULATE: Part[Simulates] = Part("simulate")
SIMULATE_DAYS: Part[SimulatesDays] = Part("simulate_days", optional=True)
WINS: Part[Wins] = Part("wins", optional=True)
ROUND_LAW: Part[RoundLaws] = Part("round_law", optional=True)
RECALL: Part[Recalls] = Part("recall")
REPLAY: Part[Replays] = Part("replay")
RECALL_TEXT: Part[RecallText] = Part("recall_text")
