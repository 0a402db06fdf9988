"""Bourré hands as JSON records: the ``settle`` contract, replay, and random hands.

``settle_bourre_record(record, profiles)`` takes one hand as the ``dealer-station settle``
command reads it and answers the settled hand, or ``{"hand_id": ..., "error": "..."}`` for an
impossible one. It never raises. Seats are ints in the engine and strings in the output.

Input::

    {"game": "bourre", "rules": "tournament", "hand_id": "h1", "seats": [1, 2, 3],
     "dealer": 3, "chips": {"1": 100, "2": 100, "3": 100}, "pot": 0,
     "deal": {"1": ["AS", ...], ...}, "trump_card": "9S",
     "stay": {"1": true, "2": false, "3": true},
     "draws": {"1": {"discard": ["2H"], "receive": ["QH"]}},
     "plays": [[1, "AS"], [3, "3S"], ...]}

``chips`` are before the ante, ``pot`` is carried in before the antes, ``deal`` is each seat's
cards in the order dealt (the dealer's last card is ``trump_card``), and ``plays`` is every card
read in order, including misplays that were then taken back.

Output::

    {"hand_id": "h1", "trump": "S", "tricks": {"1": 3, "3": 2}, "reneges": [...],
     "winner": "1", "bourre": [], "chips": {...}, "pot": 0, "eliminated": []}

plus ``"house"`` when the profile has a house collection, ``"retractions"`` under the
"retraction" misplay penalty, and ``"dead": true`` for a hand too few players could stay in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dealer_station.cards import Card, CardError, parse_card
from dealer_station.errors import StationError
from dealer_station.games.bourre.rules.config import (
    DEFAULT_PROFILE,
    HAND_SIZE,
    BourreProfile,
    HouseCollection,
    MisplayPenalty,
)
from dealer_station.games.bourre.rules.engine import (
    BourreError,
    BourreHand,
    HandResult,
    Misplay,
    Phase,
)

RECORD_KEYS = frozenset({"game", "rules", "hand_id", "seats", "dealer", "chips", "pot", "deal",
                         "trump_card", "stay", "draws", "plays"})


class RecordError(StationError, ValueError):
    """A record whose shape or content cannot be a Bourré hand."""


# -- reading the record -------------------------------------------------------------------------


def _seat(value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise RecordError(f"{where}: a seat is a number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    raise RecordError(f"{where}: a seat is a number, got {value!r}")


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{where}: must be a whole number of chips, got {value!r}")
    if value < 0:
        raise RecordError(f"{where}: must not be negative, got {value}")
    return value


#: Parsed codes, so a hand's fifty-odd codes cost a dictionary look-up each.
_CARD_CODES: dict[str, Card] = {}


def _card(value: Any, where: str) -> Card:
    if isinstance(value, str):
        known = _CARD_CODES.get(value)
        if known is not None:
            return known
    try:
        card = parse_card(value)
    except CardError as exc:
        raise RecordError(f"{where}: {exc}") from None
    if card.is_joker:
        raise RecordError(f"{where}: the Bourré deck has no jokers")
    if len(_CARD_CODES) < 1024:  # bounded: odd spellings cannot grow it without limit
        _CARD_CODES[value] = card
    return card


def _cards(value: Any, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(f"{where}: must be a list of card codes, got {value!r}")
    out: list[Card] = []
    for i, v in enumerate(value):
        # The usual code is already parsed; the message is only built for one that is not.
        known = _CARD_CODES.get(v) if type(v) is str else None
        out.append(known if known is not None else _card(v, f"{where}[{i}]"))
    return out


def _per_seat(value: Any, where: str, seats: Sequence[int]) -> dict[int, Any]:
    """A JSON object keyed by seat ("1"); every key must be a seated seat."""
    if not isinstance(value, dict):
        raise RecordError(f"{where}: must be an object keyed by seat, got {value!r}")
    out: dict[int, Any] = {}
    for key, item in value.items():
        seat = _seat(key, where)
        if seat not in seats:
            raise RecordError(f"{where}: seat {seat} is not one of the seats {list(seats)}")
        if seat in out:
            raise RecordError(f"{where}: seat {seat} is given twice")
        out[seat] = item
    return out


def _profile(record: Mapping[str, Any], profiles: Mapping[str, BourreProfile]) -> BourreProfile:
    name = record.get("rules", DEFAULT_PROFILE)
    if not isinstance(name, str):
        raise RecordError(f"rules: must be a profile name, got {name!r}")
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise RecordError(f"rules: unknown Bourré profile {name!r} (known: {known})")
    return profiles[name]


def replay_record(record: Mapping[str, Any],
                  profiles: Mapping[str, BourreProfile]) -> BourreHand:
    """Drive a real ``BourreHand`` through every step of ``record``; the hand returned is
    settled. Raises RecordError, BourreError (ImpossibleCardError / IllegalActionError) or
    ConservationError naming the step that cannot be."""
    if not isinstance(record, dict):
        raise RecordError(f"a Bourré hand must be a JSON object, got {type(record).__name__}")
    unknown = sorted(set(record) - RECORD_KEYS)
    if unknown:
        raise RecordError(f"{unknown[0]}: unknown key (expected {', '.join(sorted(RECORD_KEYS))})")
    game = record.get("game", "bourre")
    if game != "bourre":
        raise RecordError(f"game: expected \"bourre\", got {game!r}")
    profile = _profile(record, profiles)
    for key in ("seats", "dealer", "chips", "deal", "stay", "plays"):
        if key not in record:
            raise RecordError(f"{key}: is required")
    raw_seats = record["seats"]
    if not isinstance(raw_seats, list) or not raw_seats:
        raise RecordError(f"seats: must be a list of seat numbers, got {raw_seats!r}")
    seats = [_seat(s, f"seats[{i}]") for i, s in enumerate(raw_seats)]
    if len(set(seats)) != len(seats):
        raise RecordError(f"seats: a seat is listed twice in {seats}")
    dealer = _seat(record["dealer"], "dealer")
    chips_raw = _per_seat(record["chips"], "chips", seats)
    chips = {s: _count(v, f"chips.{s}") for s, v in chips_raw.items()}
    missing = [s for s in seats if s not in chips]
    if missing:
        raise RecordError(f"chips: seat {missing[0]} has no chip count")
    pot = _count(record.get("pot", 0), "pot")
    deal_raw = _per_seat(record["deal"], "deal", seats)
    deal = {s: _cards(v, f"deal.{s}") for s, v in deal_raw.items()}
    for s in seats:
        if s not in deal:
            raise RecordError(f"deal: seat {s} has no cards")
        if len(deal[s]) != HAND_SIZE:
            raise RecordError(f"deal.{s}: {len(deal[s])} cards dealt; a Bourré deal is "
                              f"{HAND_SIZE} each")
    stay_raw = _per_seat(record["stay"], "stay", seats)
    stay: dict[int, bool] = {}
    for s, v in stay_raw.items():
        if not isinstance(v, bool):
            raise RecordError(f"stay.{s}: must be true (stays) or false (folds), got {v!r}")
        stay[s] = v
    draws = _per_seat(record.get("draws", {}), "draws", seats)
    plays_raw = record["plays"]
    if not isinstance(plays_raw, list):
        raise RecordError(f"plays: must be a list of [seat, card] pairs, got {plays_raw!r}")
    plays: list[tuple[int, Card]] = []
    for i, item in enumerate(plays_raw):
        if not isinstance(item, list) or len(item) != 2:
            raise RecordError(f"plays[{i}]: must be a [seat, card] pair, got {item!r}")
        seat_value, code = item
        known = _CARD_CODES.get(code) if type(code) is str else None
        plays.append((seat_value if type(seat_value) is int else _seat(seat_value, f"plays[{i}]"),
                      known if known is not None else _card(code, f"plays[{i}]")))

    try:
        hand = BourreHand.from_deal(profile, seats, dealer, chips, pot, deal)
    except BourreError as exc:
        raise RecordError(f"deal: {exc}") from None
    if "trump_card" in record:
        trump_card = _card(record["trump_card"], "trump_card")
        if trump_card != hand.trump_card:
            assert hand.trump_card is not None
            raise RecordError(f"trump_card: {trump_card.code} is not the dealer's fifth card "
                              f"({hand.trump_card.code}), which is turned up for trumps")

    if _settled(hand):  # a dead hand: too few could stay, nothing more happens
        if draws or plays:
            raise RecordError("plays: too few players could put up the stay chip, so this hand "
                              "is not played; it can have no draws or plays")
        return hand

    for seat in hand.order:
        if seat not in stay:
            raise RecordError(f"stay: seat {seat} has no decision (true to stay, false to fold)")
        try:
            if stay[seat]:
                hand.stay(seat)
            else:
                hand.fold(seat)
        except BourreError as exc:
            raise RecordError(f"stay.{seat}: {exc}") from None
    for seat, value in draws.items():
        if seat not in hand.stayers:
            raise RecordError(f"draws.{seat}: seat {seat} folded and does not draw")
        if hand.profile.draw_limit == 0 and _draw(value, seat)[0]:
            raise RecordError(f"draws.{seat}: the {hand.profile.name} rules have no draw")

    for seat in hand.stayers:
        if hand.phase is not Phase.DRAW:
            break
        discard, receive = _draw(draws.get(seat), seat)
        try:
            hand.discard(seat, discard)
            for card in receive:
                hand.receive(seat, card)
        except BourreError as exc:
            raise RecordError(f"draws.{seat}: {exc}") from None

    for i, (seat, card) in enumerate(plays):
        if _settled(hand):
            raise RecordError(f"plays[{i}]: [{seat}, \"{card.code}\"] comes after the fifth "
                              f"trick; the hand is over")
        try:
            hand.play(seat, card)
        except BourreError as exc:
            raise RecordError(f"plays[{i}]: {exc}") from None
    if hand.phase is not Phase.SETTLED:
        raise RecordError(f"plays: the hand is incomplete: trick {hand.trick_number} of 5 is "
                          f"under way and seat {hand.to_act} is to play")
    return hand


def _settled(hand: BourreHand) -> bool:
    # A function, so that type checkers do not carry a narrowed phase across actions.
    return hand.phase is Phase.SETTLED


def _draw(value: Any, seat: int) -> tuple[list[Card], list[Card]]:
    if value is None:
        return [], []
    where = f"draws.{seat}"
    if not isinstance(value, dict):
        raise RecordError(f"{where}: must be {{\"discard\": [...], \"receive\": [...]}}, got "
                          f"{value!r}")
    unknown = sorted(set(value) - {"discard", "receive"})
    if unknown:
        raise RecordError(f"{where}.{unknown[0]}: unknown key (expected discard, receive)")
    discard = _cards(value.get("discard", []), f"{where}.discard")
    receive = _cards(value.get("receive", []), f"{where}.receive")
    if len(discard) != len(receive):
        raise RecordError(f"{where}: discards {len(discard)} card(s) but receives "
                          f"{len(receive)}; a player is dealt as many as she discards")
    return discard, receive


# -- writing the answer -------------------------------------------------------------------------


def _misplay_data(m: Misplay) -> dict[str, Any]:
    return {"seat": str(m.seat), "trick": m.trick, "card": m.card.code, "rule": m.rule.value}


def result_data(hand: BourreHand, hand_id: Any) -> dict[str, Any]:
    """The contract's answer for a settled hand."""
    result = hand.result
    assert result is not None
    return _result_data(hand.profile, hand.seats, result, hand_id)


def _result_data(profile: BourreProfile, seats: Sequence[int], result: HandResult,
                 hand_id: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "hand_id": hand_id,
        "trump": result.trump.value if result.trump is not None else None,
        "tricks": {str(s): result.tricks[s] for s in result.stayers},
        "reneges": [_misplay_data(m) for m in result.reneges],
        "winner": str(result.winner) if result.winner is not None else None,
        "bourre": [str(s) for s in result.bourre],
        "chips": {str(s): result.chips[s] for s in seats},
        "pot": result.pot,
        "eliminated": [str(s) for s in result.eliminated],
    }
    if profile.house_collection is not HouseCollection.NONE:
        out["house"] = result.house
    if profile.misplay_penalty is MisplayPenalty.RETRACTION:
        out["retractions"] = [_misplay_data(m) for m in result.retractions]
    if result.dead:
        out["dead"] = True
    return out


def settle_bourre_record(record: dict[str, Any],
                         profiles: Mapping[str, BourreProfile]) -> dict[str, Any]:
    """Settle one Bourré hand record. Never raises: an impossible hand gives
    ``{"hand_id": ..., "error": "<reason>"}``."""
    hand_id = record.get("hand_id") if isinstance(record, dict) else None
    try:
        hand = replay_record(record, profiles)
        return result_data(hand, hand_id)
    except (StationError, CardError) as exc:
        return {"hand_id": hand_id, "error": str(exc)}
    except Exception as exc:  # the contract is one answer per line, whatever the input
        return {"hand_id": hand_id, "error": f"could not settle this hand ({type(exc).__name__}:"
                                             f" {exc}); please report it with the input line"}
