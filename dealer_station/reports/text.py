"""How figures and times are written on paper: local time, money in the table's unit, percent.

Storage is UTC; paper shows the station's local time with its zone, so a supervisor reads the
clock on the wall and a regulator sees which zone it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from dealer_station.events.wording import name_the_player

__all__ = ["MoneyUnit", "local", "local_short", "name_the_player", "percent",
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


@dataclass(frozen=True, slots=True)
class MoneyUnit:
    """The table's money as its configuration version states it: amounts are minor units."""

    currency: str
    minor_units: int

    @classmethod
    def of(cls, content: Mapping[str, Any] | None) -> MoneyUnit:
        """From a configuration version's content (``money.currency``/``money.minor_units``);
        a configuration without money counts in whole chips."""
        money = (content or {}).get("money")
        if isinstance(money, Mapping):
            currency = str(money.get("currency") or "units")
            minor = money.get("minor_units")
            if type(minor) is int and minor > 0:
                return cls(currency, minor)
        return cls("chips", 1)

    @property
    def decimals(self) -> int | None:
        """Digits after the point, or None when minor units are not a power of ten."""
        digits = len(str(self.minor_units)) - 1
        return digits if self.minor_units == 10**digits else None

    @property
    def label(self) -> str:
        """What a column of amounts is in (``USD``, or ``minor units of XYZ``)."""
        return self.currency if self.decimals is not None else f"minor units of {self.currency}"

    def fmt(self, amount: int) -> str:
        """``123456`` -> ``1,234.56`` (USD in cents); exact, from the integer, never a float."""
        digits = self.decimals
        if digits is None:
            return f"{amount:,}"
        sign = "-" if amount < 0 else ""
        whole, frac = divmod(abs(amount), self.minor_units)
        return f"{sign}{whole:,}" + (f".{frac:0{digits}d}" if digits else "")

    def full(self, amount: int) -> str:
        """``1,234.56 USD``."""
        return f"{self.fmt(amount)} {self.label}"

    def major(self, amount: int) -> float:
        """The amount in major units, for chart axes only (never for a figure in print)."""
        return amount / self.minor_units


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
