"""A card room table's rake against its counted rake box, by gaming day, through its game's
``rake_variances`` part: what the count room's command and screen list beside the table
games' variances, and dispose of."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from dealer_station import registry as games
from dealer_station.accounting.figures import Disposition
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal
from dealer_station.events.accounting import RAKE_BOX, DropCounted
from dealer_station.gaming_day import GamingCalendar
from dealer_station.reports.master_game import disposition_of
from dealer_station.reports.parts import RAKE_VARIANCES
from dealer_station.table.accounting import TableAccounting, table_game


@dataclass(frozen=True)
class RakeVariance:
    table: str
    gaming_day: date
    variance: int | None
    #: The box as counted, and the rake the hands journaled (minor units).
    counted: int | None
    rake: int | None
    disposition: Disposition | None


def rake_variances(journal: Journal, table: str, settings: AccountingSettings,
                   calendar: GamingCalendar, first: date | None = None,
                   last: date | None = None) -> list[RakeVariance]:
    """Each gaming day of ``table`` with a counted rake box (none for a game without a rake
    box), with its variance and the count room's disposition of it."""
    name = table_game(journal, table)
    game = games.REGISTRY.get(name) if name is not None else None
    part = game.supplies(RAKE_VARIANCES) if game is not None else None
    if part is None:
        return []
    ledger = TableAccounting(journal, table, settings, calendar).ledger()
    out = []
    for day, variance in part(journal, table, settings, calendar, first, last):
        d = ledger.days.get(day)
        box = d.rake_box if d is not None else None
        count = box.event if box is not None and isinstance(box.event, DropCounted) else None
        counted = count.total if count is not None else None
        out.append(RakeVariance(table, day, variance, counted,
                                None if counted is None or variance is None
                                else counted - variance,
                                disposition_of(d.disposition(box=RAKE_BOX))
                                if d is not None else None))
    return out
