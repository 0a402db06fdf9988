"""The parts of a game the screens call through the registry (registry.py), typed as they call
them (see table/parts.py for the tables' own)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from dealer_station.registry import Part

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from dealer_station.app import Station
    from dealer_station.money import Money
    from dealer_station.table.recall_model import Recall
    from dealer_station.ui.pit_demo import DemoTable
    from dealer_station.ui.session import SignInSession
    from dealer_station.ui.signals import TableEvents


class Screens(Protocol):
    """(the dealer's screen, the operator's screen, the demo panel or None)."""

    def __call__(self, station: Station, events: TableEvents, session: SignInSession, /
                 ) -> tuple[QWidget, QWidget, QWidget | None]: ...


class Screenshots(Protocol):
    """Draw the game's screens for docs/screens into ``out``; the files saved."""

    def __call__(self, out: Path, /) -> list[Path]: ...


class RecallHtml(Protocol):
    """The supervisor's recall panel (``money``: the table's, for a deal whose configuration
    names none)."""

    def __call__(self, r: Recall, money: Money | None = None, /) -> str: ...


class DemoHalts(Protocol):
    """The demo pit's table whose shoe stops its rounds: one voided by a supervisor, the next
    left stopped by an error the shoe reports (``hasher``: the users' PIN hasher)."""

    def __call__(self, table: DemoTable, hasher: object, /) -> None: ...


SCREENS: Part[Screens] = Part("screens")
SCREENSHOTS: Part[Screenshots] = Part("screenshots")
RECALL_HTML: Part[RecallHtml] = Part("recall_html")
DEMO_HALTS: Part[DemoHalts] = Part("demo_halts", optional=True)
