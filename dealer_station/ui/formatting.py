"""Turning amounts, cards and times into short text for the screens (no rules here)."""

from __future__ import annotations

from datetime import datetime

from dealer_station.cards import Card, parse_card
from dealer_station.settlement.lapaire_config import Money


def amount(money: Money, value: int) -> str:
    """``1250`` -> ``"12.50"``: the currency's usual form, without the code (tables, chips)."""
    text = money.format(value)
    suffix = f" {money.currency}"
    return text[: -len(suffix)] if text.endswith(suffix) else text


def chip(money: Money, value: int) -> str:
    """A chip's face: ``500`` -> ``"5"``, ``2550`` -> ``"25.50"``."""
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
