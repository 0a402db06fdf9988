"""How figures and times are written on paper: local time and percent (money is
:class:`dealer_station.money.Money`'s).

Storage is UTC; paper shows the station's local time with its zone, so a supervisor reads the
clock on the wall and a regulator sees which zone it was.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

from dealer_station.events.wording import name_the_player

__all__ = ["local", "local_short", "name_the_player", "percent",
           "percent_range", "ratio", "short_hash", "zone_name"]


def local(moment: str | datetime | None) -> str:
    """``2026-03-01T18:00:00+00:00`` -> ``2026-03-01 19:00:00 CET`` (the station's zone)."""
    if moment is None:
        return "-"
    dt = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return dt.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


def local_short(moment: str | datetime) -> str:
    """Local time without seconds and zone (table cells; the zone is in the page header)."""
    dt = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return dt.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def zone_name(moment: datetime | None = None) -> str:
    return (moment or datetime.now()).astimezone().strftime("%Z (UTC%z)")


def percent(value: Fraction | None, places: int = 2) -> str:
    """``Fraction(1, 27)`` -> ``3.70%``, rounded half away from zero; None -> ``-``."""
    if value is None:
        return "-"
    scaled = value * 100 * 10**places
    n = int(abs(scaled) + Fraction(1, 2))
    sign = "-" if scaled < 0 and n else ""
    whole, frac = divmod(n, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}%" if places else f"{sign}{whole}%"


def percent_range(lo: Fraction | None, hi: Fraction | None, places: int = 2) -> str:
    if lo is None or hi is None:
        return "-"
    a, b = percent(lo, places), percent(hi, places)
    return a if a == b else f"{a} to {b}"


def ratio(part: int, whole: int) -> Fraction | None:
    return Fraction(part, whole) if whole else None


def short_hash(h: str | None, n: int = 16) -> str:
    return (h[:n] + "...") if h else "-"


#: No table deals faster than one round or hand every 12 seconds: a pace above this is that of
#: a simulation or a script, and the report says so beside it.
LIVE_PACE_LIMIT = 300


def pace_words(per_hour: float | Fraction | None, unit: str) -> str:
    """``"52.3 hands per hour"``; a pace no live table reaches is said to be one."""
    if per_hour is None:
        return "-"
    text = f"{float(per_hour):,.1f} {unit} per hour"
    if per_hour > LIVE_PACE_LIMIT:
        text += (f" (faster than any table deals, one every {3600 // LIVE_PACE_LIMIT} "
                 f"seconds at most: these {unit} were played by a simulation or a script, "
                 f"not at a live table)")
    return text
