"""Turning cards and times into short text for the screens (no rules here; amounts are
:class:`dealer_station.money.Money`'s)."""

from __future__ import annotations

from datetime import datetime

from dealer_station.cards import Card, parse_card


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
