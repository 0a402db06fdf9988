"""The count room (docs/accounting.md, "The count room"): the soft count of a table's drop box
(or a card room table's rake box) by note denomination, with the markers or counter checks
apart from the cash, verified by the count team (two accounting users or more, each by PIN);
and the disposition of a variance above the threshold (explained, adjusted or referred),
signed by two accounting users. Journaled in the table's own chain, each decided under its
writer lock like every accounting record (table/accounting.py).

The count that completes a gaming day's shifts is the tray rule's look (the game-protection
monitor's test of each dealer's share of the tray's variances, table/monitor_tray.py): an
alert it raises is journaled right after the count, as a ``monitor.alert`` record.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from dealer_station.accounting.chips import Chips, check_denominations
from dealer_station.accounting.ledger import AccountingRefused, Ledger
from dealer_station.audit.journal import Record
from dealer_station.audit.users import User
from dealer_station.events.accounting import (
    DISPOSITIONS,
    RAKE_BOX,
    DropCounted,
    VarianceDisposed,
)
from dealer_station.events.base import Event
from dealer_station.table.accounting import MAX_NOTE, TableAccounting
from dealer_station.table.signatures import signed

if TYPE_CHECKING:
    from dealer_station.monitor.settings import MonitorSettings

#: The most people a count team signs with.
MAX_TEAM = 6


def _team(users: Sequence[User | None], action: str) -> tuple[User, ...]:
    given = [u for u in users if u is not None]
    if not 2 <= len(given) <= MAX_TEAM:
        raise AccountingRefused(f"{action} needs the count team's signatures: 2 to {MAX_TEAM} "
                                f"accounting users; {len(given)} given")
    return signed(given, ("accounting",) * len(given), action)


class CountRoom:
    """The count room's entries for one table."""

    def __init__(self, book: TableAccounting, monitor: MonitorSettings | None = None) -> None:
        self.book = book
        #: The monitor's settings (``[monitor]`` of config/station.toml when None).
        self.monitor = monitor

    def count(self, gaming_day: date, currency: Chips, markers: int, marker_count: int,
              team: Sequence[User | None], *, shift: str | None = None,
              box: str | None = None) -> Record:
        """The count of one box: the notes by denomination, and the markers (or counter
        checks) apart, their number and total."""
        what = "rake box" if box == RAKE_BOX else "drop box"
        action = f"the count of the {what} of gaming day {gaming_day}"
        if box not in (None, RAKE_BOX):
            raise AccountingRefused(f"{action}: unknown box {box!r}; the drop box or the "
                                    f"rake box")
        if box == RAKE_BOX and shift is not None:
            raise AccountingRefused(f"{action}: a rake box is counted for the whole day")
        users = _team(team, action)
        check_denominations(currency, self.book.settings.currency_denominations,
                            f"{action}: the notes", kind="note")
        for name, value in (("markers", markers), ("the number of markers", marker_count)):
            if type(value) is not int or value < 0:
                raise AccountingRefused(f"{action}: {name} must be a whole number >= 0, got "
                                        f"{value!r}")
        if (markers == 0) != (marker_count == 0):
            raise AccountingRefused(f"{action}: {marker_count} markers cannot total "
                                    f"{self.book.settings.money.text(markers)}")
        shift_name = self.book.shift_named(shift) if shift is not None else None
        cash = currency.total

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            if box == RAKE_BOX:
                self._check_rake(ledger, gaming_day)
            else:
                self.book.check_drop(ledger, gaming_day, shift_name)
            return [(DropCounted(gaming_day.isoformat(), cash, markers, cash + markers,
                                 tuple(u.actor for u in users), shift_name,
                                 currency.to_payload(), marker_count, box),
                     "+".join(u.actor for u in users))]

        record = self.book.write(decide)[0]
        if box is None:
            self.watch_tray(gaming_day)
        return record

    def watch_tray(self, gaming_day: date) -> list[Record]:
        """The tray rule's look at ``gaming_day`` (once its every shift is counted): each
        alert the chain does not hold yet, journaled. The count is already on the chain, and
        a failing monitor never undoes it: an alert not journaled now is at the next count."""
        from dealer_station.audit.journal import Entry
        from dealer_station.table.base import STATION_ACTOR
        from dealer_station.table.monitor_tray import tray_look

        if self.monitor is None:
            from dealer_station.gameconfig import STATION_FILE, config_dir
            from dealer_station.monitor.settings import load_monitor_settings

            self.monitor = load_monitor_settings(config_dir() / STATION_FILE)
        book = self.book
        try:
            alerts = tray_look(book.journal, book.table_id, book.calendar, self.monitor,
                               gaming_day)
            if not alerts:
                return []
            return book.journal.write(book.table_id,
                                      lambda: [Entry(a, STATION_ACTOR) for a in alerts])
        except Exception:       # never let the monitor refuse a count already journaled
            logging.getLogger(__name__).exception(
                "table %s: the tray rule's look at gaming day %s failed", book.table_id,
                gaming_day)
            return []

    def _check_rake(self, ledger: Ledger, gaming_day: date) -> None:
        day = ledger.days.get(gaming_day)
        if day is not None and day.rake_box is not None:
            raise AccountingRefused(f"table {self.book.table_id}: the rake box of gaming day "
                                    f"{gaming_day} was already counted (record "
                                    f"{day.rake_box.seq})")
        closed = day is not None and day.closer is not None
        over = self.book.now() >= self.book.calendar.day(gaming_day).end
        if not (closed or over):
            raise AccountingRefused(f"table {self.book.table_id}: gaming day {gaming_day} has "
                                    f"not closed; its rake box is counted after the day")

    def dispose(self, gaming_day: date, variance: int, disposition: str, note: str,
                signers: Sequence[User | None], *, shift: str | None = None,
                box: str | None = None, adjustment: int | None = None) -> Record:
        """The count room's decision about a variance: explained, adjusted (with the amount
        of the adjusting entry) or referred (to the compliance officer), with why."""
        action = f"the disposition of the variance of gaming day {gaming_day}"
        if disposition not in DISPOSITIONS:
            raise AccountingRefused(f"{action}: {disposition!r} is not one of "
                                    f"{', '.join(DISPOSITIONS)}")
        why = note.strip() if isinstance(note, str) else ""
        if not why:
            raise AccountingRefused(f"{action} needs a note saying why (it is journaled with "
                                    f"the signers' names)")
        if len(why) > MAX_NOTE:
            raise AccountingRefused(f"{action}: the note is longer than {MAX_NOTE} characters")
        if disposition == "adjusted":
            if type(adjustment) is not int or adjustment == 0:
                raise AccountingRefused(f"{action}: an adjustment needs its amount (minor "
                                        f"units, not 0)")
        elif adjustment is not None:
            raise AccountingRefused(f"{action}: only an adjusted variance has an adjustment")
        if type(variance) is not int:
            raise AccountingRefused(f"{action}: the variance must be whole minor units")
        users = signed(signers, ("accounting", "accounting"), action)
        shift_name = self.book.shift_named(shift) if shift is not None else None

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            return [(VarianceDisposed(gaming_day.isoformat(), variance, disposition, why,
                                      tuple(u.actor for u in users), shift_name, box,
                                      adjustment), "+".join(u.actor for u in users))]

        return self.book.write(decide)[0]
