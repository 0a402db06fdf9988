"""The parts of a game the reports call through the registry (registry.py), typed as they call
them (see table/parts.py for the tables' own)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from dealer_station.registry import Part

if TYPE_CHECKING:
    from datetime import date
    from pathlib import Path

    from reportlab.platypus import Flowable

    from dealer_station.accounting.settings import AccountingSettings
    from dealer_station.audit.journal import ConfigVersion, Journal
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.money import Money
    from dealer_station.reports.samples import SampleClock, SampleReport
    from dealer_station.reports.source import Period
    from dealer_station.reports.template import BuiltReport, ReportBuilder
    from dealer_station.table.recall_model import Recall


class RecallSection(Protocol):
    """The recall report's section of the game's own (its cards, wagers or tricks)."""

    def __call__(self, r: ReportBuilder, rc: Recall, money: Money, /) -> None: ...


class ConfigBody(Protocol):
    """The configuration report's body for one version (and what changed since
    ``previous``)."""

    def __call__(self, r: ReportBuilder, version: ConfigVersion,
                 previous: ConfigVersion | None = None, /) -> list[Flowable]: ...


class ConfigWords(Protocol):
    """The felt's name for a key of the game's own configuration, or None where the game has
    none (the report words it): a stored setting (``wagers.any_pair.min`` -> ``Any Pair'e:
    minimum``) or, ``entered``, a key of what the operator entered (``any_pair`` -> ``Any
    Pair'e``)."""

    def __call__(self, key: str, /, *, entered: bool = False) -> str | None: ...


class HouseEdges(Protocol):
    """Per wager kind, the lowest and highest house edge of its offered spots (a banked
    game; a pot game has none)."""

    def __call__(self, content: Mapping[str, Any], /
                 ) -> dict[str, tuple[Fraction, Fraction]]: ...


class BuildsReport(Protocol):
    """Write the game's own report ``kind`` (one of its ``Game.reports``) for ``table`` over
    ``period``; ``calendar`` and ``settings``, where given (the command line's
    ``--station-config`` and ``--accounting-config``), instead of the station's files."""

    def __call__(self, kind: str, journal: Journal, table: str, period: Period | None, /, *,
                 out: Path | str, paper: str = "A4", calendar: GamingCalendar | None = None,
                 settings: AccountingSettings | None = None) -> BuiltReport: ...


class PlaysSamples(Protocol):
    """The game's tables in the documentation's sample reports: play them into ``journal``
    (whose ``clock`` the game may pace; ``where`` for files it needs) and say which reports
    to write of them."""

    def __call__(self, journal: Journal, clock: SampleClock, where: Path, /
                 ) -> list[SampleReport]: ...


class RakeVariances(Protocol):
    """A card room's game: each gaming day from ``first`` to ``last`` (None: every one) with a
    counted rake box, and its variance (the box as counted - the rake the hands journaled;
    None when the two cannot be set against each other)."""

    def __call__(self, journal: Journal, table_id: str, settings: AccountingSettings,
                 calendar: GamingCalendar, first: date | None, last: date | None, /
                 ) -> list[tuple[date, int | None]]: ...


REPORT_RECALL: Part[RecallSection] = Part("report_recall")
REPORT_SAMPLES: Part[PlaysSamples] = Part("report_samples", optional=True)
REPORT: Part[BuildsReport] = Part("report", optional=True)
REPORT_CONFIG: Part[ConfigBody] = Part("report_config")
CONFIG_WORDS: Part[ConfigWords] = Part("config_words", optional=True)
HOUSE_EDGES: Part[HouseEdges] = Part("house_edges", optional=True)
RAKE_VARIANCES: Part[RakeVariances] = Part("rake_variances", optional=True)
