"""The gaming day and its shifts (dealer_station/gaming_day.py), read from station.toml."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from dealer_station.gameconfig import load_gaming_calendar
from dealer_station.gaming_day import GamingCalendar, Shift, load_calendar
from dealer_station.tomlconfig import ConfigError

CHICAGO = ZoneInfo("America/Chicago")


def test_a_moment_before_the_start_belongs_to_the_day_before() -> None:
    cal = GamingCalendar(zone=CHICAGO)
    assert cal.day_of(datetime(2026, 11, 25, 5, 59, tzinfo=CHICAGO)) == date(2026, 11, 24)
    assert cal.day_of(datetime(2026, 11, 25, 6, 0, tzinfo=CHICAGO)) == date(2026, 11, 25)
    # The same moment in UTC is placed by the casino's zone, not UTC's date.
    assert cal.day_of(datetime(2026, 11, 26, 3, 0, tzinfo=UTC)) == date(2026, 11, 25)


def test_shifts_cover_the_day_exactly_including_one_past_midnight() -> None:
    cal = GamingCalendar(zone=CHICAGO)
    day = date(2026, 11, 25)
    shifts = cal.shifts_of(day)
    assert [p.label for p in shifts] == ["2026-11-25 Day", "2026-11-25 Swing",
                                         "2026-11-25 Graveyard"]
    assert shifts[0].start == cal.day(day).start and shifts[-1].end == cal.day(day).end
    assert all(a.end == b.start for a, b in pairwise(shifts))
    late = datetime(2026, 11, 26, 2, 30, tzinfo=CHICAGO)
    assert cal.shift_of(late) == (day, Shift("Graveyard", time(22, 0)))


def test_a_gaming_day_across_a_daylight_saving_change_has_its_wall_clock_length() -> None:
    cal = GamingCalendar(zone=CHICAGO)
    spring = cal.day(date(2026, 3, 7))      # clocks go forward on 8 March at 02:00
    autumn = cal.day(date(2026, 10, 31))    # and back on 1 November
    assert spring.end - spring.start == timedelta(hours=23)
    assert autumn.end - autumn.start == timedelta(hours=25)


def test_shifts_out_of_order_or_not_starting_the_day_are_refused() -> None:
    with pytest.raises(ValueError, match="first shift"):
        GamingCalendar(time(6), (Shift("A", time(7)),))
    with pytest.raises(ValueError, match="follow one another"):
        GamingCalendar(time(6), (Shift("A", time(6)), Shift("B", time(22)), Shift("C", time(14))))


def test_station_toml_gaming_day(tmp_path: Path) -> None:
    f = tmp_path / "station.toml"
    f.write_text('[gaming_day]\nstarts = "04:00"\ntimezone = "America/Chicago"\n'
                 'shifts = [{name = "Early", starts = "04:00"}, {name = "Late", starts = '
                 '"16:00"}]\n')
    cal = load_calendar(f)
    assert cal.day_starts == time(4) and [s.name for s in cal.shifts] == ["Early", "Late"]
    assert cal.shift(date(2026, 1, 2), "late").start == datetime(2026, 1, 2, 22, tzinfo=UTC)
    # No file, or no [gaming_day]: the defaults.
    assert load_calendar(tmp_path / "none.toml") == GamingCalendar()
    assert load_gaming_calendar().day_starts == time(6)


@pytest.mark.parametrize("body, key", [
    ('starts = "25:00"', "gaming_day.starts"),
    ('timezone = "Mars/Olympus"', "gaming_day.timezone"),
    ('shifts = ["Day"]', "gaming_day.shifts[0]"),
    ('shifts = [{name = "Day", starts = "07:00"}]', "gaming_day.shifts"),
    ('shifts = [{name = "A", starts = "06:00"}, {name = "a", starts = "12:00"}]',
     "gaming_day.shifts"),
    ('startz = "06:00"', "gaming_day"),
])
def test_a_bad_gaming_day_names_the_file_and_key(tmp_path: Path, body: str, key: str) -> None:
    f = tmp_path / "station.toml"
    f.write_text(f"[gaming_day]\n{body}\n")
    with pytest.raises(ConfigError) as e:
        load_calendar(f)
    assert str(f) in str(e.value) and key in str(e.value)
