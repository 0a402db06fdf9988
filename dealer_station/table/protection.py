"""The game-protection monitor watching a live table (dealer_station/monitor/, docs/monitor.md).

The table hands it every event it commits; when a round closes, the round goes to the
table's monitor, and each alert it raises is journaled by the table at once as a
``monitor.alert`` record (a significant event the pit raises as an alert). The alert is
committed just after the round's close, under the table's lock, so that it is on the
chain before the next round can open.

**A restart.** The monitor's evidence starts afresh with each gaming day
(:class:`~dealer_station.monitor.by_day.TableMonitor`), so at a table's start it reads the
rounds of the gaming day under way again (each record's keyed hash checked) and is where it
was. An alert those rounds raise that the chain does not hold (the station stopped between a
round's close and its alert) is journaled then.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from dealer_station.events import Committed
from dealer_station.events.table import ProtectionAlerted
from dealer_station.gaming_day import GamingCalendar
from dealer_station.monitor.by_day import TableMonitor
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.table.monitor_rounds import MonitoredRound, RoundReader

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


class Protection:
    """The monitor of one live table."""

    def __init__(self, table_id: str, settings: MonitorSettings,
                 calendar: GamingCalendar) -> None:
        self.table_id = table_id
        self.monitor = TableMonitor(table_id, settings, calendar)
        self.reader = RoundReader(table_id)

    def catch_up(self, journal: Journal, now: datetime) -> list[ProtectionAlerted]:
        """Read the gaming day under way at ``now`` again; the alerts its rounds raise that
        the chain does not hold yet (the caller journals them)."""
        self.reader.journal = journal     # the configurations' contents (round laws)
        start = self.monitor.calendar.day(self.monitor.calendar.day_of(now)).start
        first = journal.first_seq_opened_since(self.table_id, start)
        if first is None:
            return []
        raised: list[ProtectionAlerted] = []
        held: set[tuple[str, int]] = set()
        codec = None
        for r in journal.proven_records(self.table_id, from_seq=first):
            if r.kind == ProtectionAlerted.KIND:
                if codec is None:
                    from dealer_station.events import Codec

                    codec = Codec((ProtectionAlerted,))
                e = codec.decode(r.kind, r.payload)
                if isinstance(e, ProtectionAlerted):
                    held.add((e.test, e.round_no))
                continue
            read = self.reader.record(r)
            if read is not None:
                raised += self._feed(read)
        return [e for e in raised if (e.test, e.round_no) not in held]

    def saw(self, done: Sequence[Committed]) -> list[ProtectionAlerted]:
        """Events the table just committed; the alerts of any round they closed."""
        raised: list[ProtectionAlerted] = []
        for c in done:
            read = self.reader.committed(c)
            if read is not None:
                raised += self._feed(read)
        return raised

    def _feed(self, read: MonitoredRound) -> list[ProtectionAlerted]:
        return [a.to_event() for a in self.monitor.feed(read.round, read.opened_at)]
