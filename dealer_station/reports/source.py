"""What every report reads from the journal: the period, the records it covers, the money.

Reports read the journal only (records, configuration versions and the chain), never the
station's memory, so a report printed a year later says what it said on the night. Times are
compared as the stored UTC text, which sorts as time does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import select

from dealer_station import registry as games
from dealer_station.audit import schema
from dealer_station.audit.journal import ConfigVersion, Journal, Record, iso_utc
from dealer_station.errors import StationError
from dealer_station.events import Codec
from dealer_station.events.table import ConfigChanged
from dealer_station.gaming_day import GamingCalendar
from dealer_station.money import Money
from dealer_station.reports.text import local

J = schema.journal
_CONFIG = Codec((ConfigChanged,))

def game_label(game: str) -> str:
    return games.label(game)


@dataclass(frozen=True)
class Period:
    """``since`` inclusive, ``until`` exclusive, both UTC; None = from the first record /
    to the last."""

    since: datetime | None = None
    until: datetime | None = None

    def __post_init__(self) -> None:
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and value.tzinfo is None:
                raise StationError(f"the period's {name} time needs a time zone")
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise StationError(f"the period is empty: its start ({local(self.since)}) is not "
                               f"before its end ({local(self.until)}); give --from before --to")

    @property
    def since_iso(self) -> str | None:
        return iso_utc(self.since) if self.since else None

    @property
    def until_iso(self) -> str | None:
        return iso_utc(self.until) if self.until else None

    def contains(self, ts: str) -> bool:
        s, u = self.since_iso, self.until_iso
        return (s is None or ts >= s) and (u is None or ts < u)

    @property
    def is_everything(self) -> bool:
        return self.since is None and self.until is None


def gaming_period(day: date | None, shift: str | None = None,
                  calendar: GamingCalendar | None = None, now: datetime | None = None
                  ) -> tuple[Period, str]:
    """Gaming day ``day`` (None: the one under way at ``now``), or its shift ``shift``, as a
    period with its name; from the station's ``[gaming_day]`` unless ``calendar`` is given."""
    from dealer_station.gameconfig import load_gaming_calendar

    cal = calendar or load_gaming_calendar()
    if day is None:
        day = cal.day_of(now or datetime.now().astimezone())
    if shift is None:
        span = cal.day(day)
    else:
        try:
            span = cal.shift(day, shift)
        except KeyError:
            raise StationError(f"no shift {shift!r}: the gaming day's shifts are "
                               f"{', '.join(s.name for s in cal.shifts)}") from None
    return Period(span.start, span.end), span.label


@dataclass(frozen=True)
class Coverage:
    """The records of one table that fall in a period, and how the period is printed."""

    table: str
    period: Period
    first: Record | None
    last: Record | None

    @property
    def label(self) -> str:
        start = local(self.period.since) if self.period.since else (
            local(self.first.ts) if self.first else "the first record")
        end = local(self.period.until) if self.period.until else (
            local(self.last.ts) if self.last else "the last record")
        text = f"{start} to {end}"
        return text + (" (everything recorded)" if self.period.is_everything else "")


def _record_at(journal: Journal, table: str, seq: int | None) -> Record | None:
    if seq is None:
        return None
    return next(journal.records(table, from_seq=seq, to_seq=seq), None)


def coverage(journal: Journal, table: str, period: Period) -> Coverage:
    """The first and last records of ``table`` whose time is in ``period``."""
    if period.is_everything:
        first = _record_at(journal, table, 1)
        return Coverage(table, period, first, journal.last(table))
    conds = [J.c.table_id == table]
    if period.since_iso:
        conds.append(J.c.ts >= period.since_iso)
    if period.until_iso:
        conds.append(J.c.ts < period.until_iso)
    # Walk the (table, seq) index from each end; ts follows seq except across a clock jump.
    with journal.db.read() as conn:
        first_seq = conn.execute(select(J.c.seq).where(*conds).order_by(J.c.seq).limit(1)
                                 ).scalar()
        last_seq = conn.execute(select(J.c.seq).where(*conds).order_by(J.c.seq.desc())
                                .limit(1)).scalar()
    return Coverage(table, period, _record_at(journal, table, first_seq),
                    _record_at(journal, table, last_seq))


@dataclass(frozen=True)
class CoveredRecords:
    """The records from ``first`` to ``last`` of a table (what a report covers, attached to
    its PDF), with the journal they come from, for their public proofs."""

    journal: Journal
    table: str
    first: Record | None
    last: Record | None

    def __iter__(self) -> Iterator[Record]:
        if self.first is None or self.last is None:
            return iter(())
        return self.journal.records(self.table, from_seq=self.first.seq, to_seq=self.last.seq)


def covered_records(journal: Journal, table: str, first: Record | None,
                    last: Record | None) -> CoveredRecords:
    """The records from ``first`` to ``last`` (what a report covers, attached to its PDF)."""
    return CoveredRecords(journal, table, first, last)


def config_changes(journal: Journal, table: str, to_seq: int | None = None) -> list[Record]:
    """The table's ``config.change`` records, oldest first: who recorded which version, when
    and why (hash-chained, unlike the stored versions' own dates)."""
    # events() walks the (table, kind, time) index: records() would scan the whole chain.
    changes = sorted(journal.events(table, kinds=[ConfigChanged.KIND]), key=lambda r: r.seq)
    return [c for c in changes if to_seq is None or c.seq <= to_seq]


def config_change(rec: Record) -> ConfigChanged:
    """A ``config.change`` record (one :func:`config_changes` gives) read as its event."""
    return _CONFIG.decode_as(ConfigChanged, rec.seq, rec.kind, rec.payload)


def config_in_force(journal: Journal, table: str, at: str | None,
                    versions: list[ConfigVersion] | None = None) -> ConfigVersion | None:
    """The configuration version the last ``config.change`` before ``at`` recorded (or the
    first one recorded, for a time before any)."""
    versions = journal.config_versions(table) if versions is None else versions
    if not versions:
        return None
    by_id = {v.version: v for v in versions}
    changes = [(c.ts, version) for c in config_changes(journal, table)
               if (version := config_change(c).version) in by_id]
    before = [version for ts, version in changes if at is None or ts < at]
    chosen = before[-1] if before else (changes[0][1] if changes else None)
    if chosen is None:
        return versions[-1]
    return by_id[chosen]


def money_for(journal: Journal, table: str, at: str | None) -> Money:
    version = config_in_force(journal, table, at)
    return Money.of(version.content if version else None)


def pick_table(journal: Journal, table: str | None) -> str:
    """``table``, checked, or the journal's only table (the CLI's rule, for the UI too)."""
    tables = [t for t in journal.tables() if t != "station"]
    if table:
        if table not in journal.tables():
            raise StationError(f"table {table!r} has no records in this journal"
                               + (f" (tables: {', '.join(tables)})" if tables else ""))
        return table
    if len(tables) == 1:
        return tables[0]
    if not tables:
        raise StationError("the journal holds no tables yet: nothing to report")
    raise StationError(f"the journal holds several tables ({', '.join(tables)}): choose one "
                       f"with --table")
