"""A table's monitor across gaming days: the evidence starts afresh with each gaming day.

Surveillance reviews a table by gaming day, and so does the monitor: a test's evidence is
the rounds of one gaming day (the day a round opened in, by ``[gaming_day]`` of
config/station.toml). Starting afresh only lowers the false alarms, and it keeps what a
station must read again when it restarts to the day under way; the live monitor at a table
and ``dealer-station monitor`` over any copy of the journal then raise the very same alerts.

A pot game's table (Bourré's) is fed hands (:class:`PlayedHand`), which go to its own rules
(:class:`~dealer_station.monitor.bourre.BourreMonitor`); a banked game's rounds go to
:class:`Monitor`.
"""

from __future__ import annotations

from datetime import date, datetime

from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.alerts import Alert
from dealer_station.monitor.bourre import BourreMonitor
from dealer_station.monitor.hands import PlayedHand
from dealer_station.monitor.monitor import Monitor
from dealer_station.monitor.rounds import DealtRound
from dealer_station.monitor.settings import MonitorSettings


class TableMonitor:
    """The monitor of table ``table``, day by day (``monitor``: the day's)."""

    def __init__(self, table: str, settings: MonitorSettings | None = None,
                 calendar: GamingCalendar | None = None) -> None:
        self.table = table
        self.settings = settings or MonitorSettings()
        self.calendar = calendar or GamingCalendar()
        #: The day's monitor: a banked game's until the table's first hand says otherwise.
        self.monitor: Monitor | BourreMonitor = Monitor(table, self.settings)
        #: The gaming day of the rounds fed so far (None before the first).
        self.day: date | None = None
        #: Rounds fed across every day.
        self.rounds = 0

    def feed(self, rnd: DealtRound | PlayedHand, opened: datetime) -> list[Alert]:
        """One finished round or hand, opened at ``opened`` (aware); the alerts it raises."""
        day = self.calendar.day_of(opened)
        kind = BourreMonitor if isinstance(rnd, PlayedHand) else Monitor
        if day != self.day or type(self.monitor) is not kind:
            if self.day is not None or kind is not Monitor:
                self.monitor = kind(self.table, self.settings)
            self.day = day
        self.rounds += 1
        if isinstance(rnd, PlayedHand):
            assert isinstance(self.monitor, BourreMonitor)
            return self.monitor.feed(rnd)
        assert isinstance(self.monitor, Monitor)
        return self.monitor.feed(rnd)
