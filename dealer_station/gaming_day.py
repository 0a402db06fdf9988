"""The gaming day and its shifts: the periods a casino's accounting counts by.

A gaming day starts at a set local time (often 06:00) and runs 24 hours of wall-clock time (23
or 25 across a daylight-saving change); it is named by the calendar date it starts on. Shifts
divide it, each from its own start until the next shift's. Both come from the ``[gaming_day]``
table of ``config/station.toml``; every report asked for "by gaming day" or "by shift" cuts its
period with a :class:`GamingCalendar`.

Pure (stdlib only): times in, periods out.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dealer_station.tomlconfig import ConfigError, Section, load_toml


@dataclass(frozen=True)
class Shift:
    """A named part of the gaming day, from ``starts`` (local time) to the next shift's start."""

    name: str
    starts: time


@dataclass(frozen=True)
class Span:
    """A half-open span of time ``[start, end)``, both in UTC, with the name people read."""

    label: str
    start: datetime
    end: datetime

    def __contains__(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


DEFAULT_DAY_STARTS = time(6, 0)
DEFAULT_SHIFTS = (Shift("Day", time(6, 0)), Shift("Swing", time(14, 0)),
                  Shift("Graveyard", time(22, 0)))


@dataclass(frozen=True)
class GamingCalendar:
    """When the gaming day starts, its shifts, and the time zone the casino counts in.

    ``zone`` None counts in the machine's local time (the table PC's clock setting)."""

    day_starts: time = DEFAULT_DAY_STARTS
    shifts: tuple[Shift, ...] = DEFAULT_SHIFTS
    zone: tzinfo | None = None

    def __post_init__(self) -> None:
        if not self.shifts:
            raise ValueError("a gaming day needs at least one shift")
        if self.shifts[0].starts != self.day_starts:
            raise ValueError("the first shift starts when the gaming day starts")
        offsets = [self._offset(s.starts) for s in self.shifts]
        if offsets != sorted(set(offsets)):
            raise ValueError("shifts must follow one another through the day, each starting "
                             "at a different time")

    def _offset(self, t: time) -> timedelta:
        """How far ``t`` is into a gaming day (wall-clock)."""
        delta = (datetime.combine(date.min, t) - datetime.combine(date.min, self.day_starts))
        return delta if delta >= timedelta(0) else delta + timedelta(days=1)

    def _at(self, day: date, t: time) -> datetime:
        """The aware moment of local wall time ``t`` on calendar date ``day``."""
        naive = datetime.combine(day, t)
        # Kept in UTC: Python compares and subtracts two moments of one zone by their wall
        # clocks, which is an hour off across a daylight-saving change.
        if self.zone is None:
            return naive.astimezone().astimezone(UTC)  # the machine's local time, DST included
        return naive.replace(tzinfo=self.zone).astimezone(UTC)

    def _local(self, moment: datetime) -> datetime:
        if moment.tzinfo is None:
            raise ValueError("a moment without a time zone cannot be placed in a gaming day")
        return moment.astimezone(self.zone) if self.zone is not None else moment.astimezone()

    # --- gaming days -------------------------------------------------------------------------

    def day_of(self, moment: datetime) -> date:
        """The gaming day (its starting date) that ``moment`` falls in."""
        local = self._local(moment)
        day = local.date()
        return day if local.time() >= self.day_starts else day - timedelta(days=1)

    def day(self, day: date) -> Span:
        """Gaming day ``day`` as a span of time."""
        return Span(f"gaming day {day.isoformat()}", self._at(day, self.day_starts),
                      self._at(day + timedelta(days=1), self.day_starts))

    def days(self, first: date, last: date) -> Iterator[Span]:
        """Every gaming day from ``first`` to ``last``, both included."""
        d = first
        while d <= last:
            yield self.day(d)
            d += timedelta(days=1)

    # --- shifts ------------------------------------------------------------------------------

    def shifts_of(self, day: date) -> list[Span]:
        """The shifts of gaming day ``day``, in order; they cover the day exactly."""
        out: list[Span] = []
        for i, shift in enumerate(self.shifts):
            start_day = day + timedelta(days=1) if self._crosses(shift.starts) else day
            start = self._at(start_day, shift.starts)
            if i + 1 < len(self.shifts):
                nxt = self.shifts[i + 1].starts
                end_day = day + timedelta(days=1) if self._crosses(nxt) else day
                end = self._at(end_day, nxt)
            else:
                end = self.day(day).end
            out.append(Span(f"{day.isoformat()} {shift.name}", start, end))
        return out

    def _crosses(self, t: time) -> bool:
        """Whether local time ``t`` in a gaming day falls on the next calendar date."""
        return t < self.day_starts

    def shift(self, day: date, name: str) -> Span:
        """Shift ``name`` of gaming day ``day``."""
        for shift, period in zip(self.shifts, self.shifts_of(day), strict=True):
            if shift.name.casefold() == name.casefold():
                return period
        raise KeyError(name)

    def shift_of(self, moment: datetime) -> tuple[date, Shift]:
        """The gaming day and shift ``moment`` falls in."""
        day = self.day_of(moment)
        for shift, period in zip(self.shifts, self.shifts_of(day), strict=True):
            if moment in period:
                return day, shift
        return day, self.shifts[-1]  # not reached: the shifts cover the day

    # --- month and year to date --------------------------------------------------------------

    @staticmethod
    def month_to_date(day: date) -> tuple[date, date]:
        """The gaming days from the first of ``day``'s month to ``day``."""
        return day.replace(day=1), day

    @staticmethod
    def year_to_date(day: date) -> tuple[date, date]:
        """The gaming days from 1 January of ``day``'s year to ``day``."""
        return day.replace(month=1, day=1), day


def _local_time(sec: Section, name: str, default: time) -> time:
    text = sec.str(name, default.strftime("%H:%M"))
    try:
        t = time.fromisoformat(text)
    except ValueError:
        raise sec.error(name, f'must be a local time like "06:00", got {text!r}') from None
    if t.tzinfo is not None:
        raise sec.error(name, f"must be a local time without a zone, got {text!r} (set the "
                              "zone with gaming_day.timezone)")
    return t


def calendar_from(sec: Section) -> GamingCalendar:
    """The calendar in a ``[gaming_day]`` section:

    ```toml
    [gaming_day]
    starts = "06:00"                 # local time
    timezone = "America/Chicago"     # optional; the machine's local time when left out
    shifts = [{name = "Day", starts = "06:00"}, {name = "Swing", starts = "14:00"},
              {name = "Graveyard", starts = "22:00"}]
    ```
    """
    starts = _local_time(sec, "starts", DEFAULT_DAY_STARTS)
    zone: tzinfo | None = None
    name = sec.str("timezone", "")
    if name:
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise sec.error("timezone", f"unknown time zone {name!r} (an IANA name such as "
                                        '"America/Chicago")') from None
    shifts: list[Shift] = []
    raw = sec.list("shifts", [])
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise sec.error(f"shifts[{i}]", 'must be a table like {name = "Day", starts = '
                                            '"06:00"}')
        s = Section(item, sec.file, sec.key(f"shifts[{i}]"))
        label = s.str("name").strip()
        if not label:
            raise s.error("name", "must not be empty")
        shifts.append(Shift(label, _local_time(s, "starts", starts)))
        s.finish()
    if not shifts:
        shifts = [Shift(s.name, s.starts) for s in DEFAULT_SHIFTS] if starts == \
            DEFAULT_DAY_STARTS else [Shift("Day", starts)]
    if len({s.name.casefold() for s in shifts}) != len(shifts):
        raise sec.error("shifts", "two shifts have the same name")
    sec.finish()
    try:
        return GamingCalendar(starts, tuple(shifts), zone)
    except ValueError as e:
        raise ConfigError(sec.file, sec.key("shifts"), str(e)) from None


def load_calendar(path: Path | str | None) -> GamingCalendar:
    """The ``[gaming_day]`` table of the station file at ``path``; the defaults (06:00, three
    eight-hour shifts, local time) where the file or the table is missing."""
    if path is None or not Path(path).exists():
        return GamingCalendar()
    data = load_toml(path)
    if "gaming_day" not in data:
        return GamingCalendar()
    return calendar_from(Section(data, str(path)).section("gaming_day"))


def local_time(iso: str, now: datetime | None = None) -> str:
    """A journaled moment (UTC, ISO 8601) as the station's clock on the wall shows it:
    ``14:05``, with the day when it is not today (``Sun 1 Mar 14:05``)."""
    moment = datetime.fromisoformat(iso).astimezone()
    today = (now or datetime.now(moment.tzinfo)).astimezone().date()
    if moment.date() == today:
        return moment.strftime("%H:%M")
    return f"{moment:%a} {moment.day} {moment:%b %H:%M}"
