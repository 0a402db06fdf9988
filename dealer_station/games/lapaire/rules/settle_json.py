"""The scriptable settlement contract for La Pair'e: one JSON round in, one JSON result out.

Input::

    {"game": "lapaire", "round_id": "r1", "cards": ["KH", "JK", "7S"],
     "wagers": [{"seat": 1, "bet": "straight", "values": ["K"], "amount": 10}, ...]}

Output, on success::

    {"round_id": "r1",
     "wagers": [{...the input wager..., "result": "win", "win": 120, "stage": 1}, ...],
     "total_win": 120, "total_lost": 0}

and for a round that cannot be settled ``{"round_id": "r1", "error": "<reason>"}``.
``settle_lapaire_record`` never raises: anything wrong with the record is an error object.
"""

from __future__ import annotations

from typing import Any

from dealer_station.cards import Card, CardError, parse_card
from dealer_station.errors import StationError
from dealer_station.games.lapaire.rules.config import BET_KINDS, LaPaireConfig
from dealer_station.games.lapaire.rules.engine import Wager, settle_round


class _BadRecord(Exception):
    """A record that does not follow the contract; the message is the error to return."""


def _cards(record: dict[str, Any]) -> list[Card]:
    if "cards" not in record:
        raise _BadRecord('"cards" is missing: give the three cards in the order dealt, '
                         'e.g. ["KH", "JK", "7S"]')
    raw = record["cards"]
    if not isinstance(raw, list):
        raise _BadRecord(f'"cards" must be a list of three card codes, got {raw!r}')
    if len(raw) != 3:
        raise _BadRecord(f"a round is settled on exactly three cards, got {len(raw)}")
    cards: list[Card] = []
    for i, code in enumerate(raw):
        try:
            cards.append(parse_card(code))
        except CardError as exc:
            raise _BadRecord(f"card #{i + 1}: {exc}") from None
    return cards


def _int_field(item: dict[str, Any], name: str, where: str) -> int:
    if name not in item:
        raise _BadRecord(f'{where}: "{name}" is missing')
    value = item[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise _BadRecord(f'{where}: "{name}" must be a whole number, got {value!r}')
    return value


def _wagers(record: dict[str, Any]) -> tuple[list[dict[str, Any]], list[Wager]]:
    raw = record.get("wagers", [])
    if not isinstance(raw, list):
        raise _BadRecord(f'"wagers" must be a list of wager objects, got {raw!r}')
    items: list[dict[str, Any]] = []
    wagers: list[Wager] = []
    for i, item in enumerate(raw):
        where = f"wager #{i + 1}"
        if not isinstance(item, dict):
            raise _BadRecord(f"{where} must be an object with seat, bet, values and amount, "
                             f"got {item!r}")
        seat = _int_field(item, "seat", where)
        bet = item.get("bet")
        if not isinstance(bet, str) or bet not in BET_KINDS:
            raise _BadRecord(f'{where}: "bet" must be one of {", ".join(BET_KINDS)}, '
                             f"got {bet!r}")
        values = item.get("values")
        if values is None:
            values = []
        if not isinstance(values, list):
            raise _BadRecord(f'{where}: "values" must be a list of card values such as '
                             f'["2", "8"], got {values!r}')
        amount = _int_field(item, "amount", where)
        try:
            wagers.append(Wager(seat, bet, tuple(values), amount))
        except StationError as exc:
            raise _BadRecord(f"{where} (seat {seat}): {exc}") from None
        items.append(item)
    return items, wagers


def settle_lapaire_record(record: dict[str, Any], config: LaPaireConfig) -> dict[str, Any]:
    """Settle one round given as the contract's JSON object (already parsed) under ``config``.

    Returns the result object, or ``{"round_id": ..., "error": ...}`` for a round that cannot
    be settled. Never raises.
    """
    round_id = record.get("round_id") if isinstance(record, dict) else None
    try:
        if not isinstance(record, dict):
            raise _BadRecord(f"a round must be a JSON object, got {type(record).__name__}")
        game = record.get("game", "lapaire")
        if game != "lapaire":
            raise _BadRecord(f'"game" is {game!r}: this settles only "lapaire" rounds')
        cards = _cards(record)
        items, wagers = _wagers(record)
        result = settle_round(config, wagers, cards)
    except (_BadRecord, StationError, CardError) as exc:
        return {"round_id": round_id, "error": str(exc)}
    except Exception as exc:  # the contract promises an answer per line, even on a defect
        return {"round_id": round_id, "error": f"internal error settling this round: {exc!r}"}
    out = []
    for item, r in zip(items, result.results, strict=True):
        settled = dict(item)
        settled.update(result=r.result, win=r.win, stage=r.stage)
        out.append(settled)
    return {"round_id": round_id, "wagers": out, "total_win": result.total_win,
            "total_lost": result.total_lost}
