"""Turning cards and times into short text for the screens (no rules here; amounts are
:class:`dealer_station.money.Money`'s)."""

from __future__ import annotations

from datetime import datetime

from dealer_station.cards import Card, parse_card


def card_text(card: Card | str) -> str:
    """``"K♥"``, ``"10♠"``, ``"JK"``."""
    c = parse_card(card) if isinstance(card, str) else card
    return c.label


def read_card_text(code: str) -> str:
    """A card as a device read it, in the felt's words where it is a card at all (a code
    no card has is shown as read)."""
    try:
        return card_text(code)
    except ValueError:
        return code


def local_time(ts: str | None) -> str:
    if not ts:
        return "-"
    return datetime.fromisoformat(ts).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def short_time(ts: str | None) -> str:
    if not ts:
        return "-"
    return datetime.fromisoformat(ts).astimezone().strftime("%H:%M:%S")
