"""Turning amounts, cards and times into short text for the screens (no rules here)."""

from __future__ import annotations

from datetime import datetime

from dealer_station.cards import Card, parse_card
from dealer_station.settlement.lapaire_config import Money


def amount(money: Money, value: int) -> str:
    """``123456`` -> ``"1,234.56"``: the currency's usual form with thousands separators,
    without the code (tables, chips), exactly from the integer. A table whose minor units are
    not a power of ten shows them as its ``Money`` says (``"1250 minor units of XYZ"``)."""
    digits = len(str(money.minor_units)) - 1
    if money.minor_units != 10**digits:
        return money.format(value)
    sign = "-" if value < 0 else ""
    whole, frac = divmod(abs(value), money.minor_units)
    return f"{sign}{whole:,}.{frac:0{digits}d}" if digits else f"{sign}{whole:,}"


def chip(money: Money, value: int) -> str:
    """A chip's face: ``500`` -> ``"5"``, ``2550`` -> ``"25.50"``, ``100000`` -> ``"1,000"``."""
    text = amount(money, value)
    whole, _, frac = text.partition(".")
    return whole if frac and set(frac) == {"0"} else text


def card_text(card: Card | str) -> str:
    """``"K♥"``, ``"10♠"``, ``"JK"``."""
    c = parse_card(card) if isinstance(card, str) else card
    return c.label


def local_time(ts: str | None) -> str:
    if not ts:
        return "-"
    return datetime.fromisoformat(ts).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def short_time(ts: str | None) -> str:
    if not ts:
        return "-"
    return datetime.fromisoformat(ts).astimezone().strftime("%H:%M:%S")
