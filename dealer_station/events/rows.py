"""The few fields that code reading records of every game and kind at once takes from a
record, read from its stored form as the events declare it.

The rows beside the chain and their checks, the floor's day at a table, the replay's choice
of game and a device's resume point read records whose game (and so whose event class) they
do not know yet, or read thousands of them for one field. Every event that opens a round
names ``game``, ``config_version`` and ``dealer``; every close that adds to the meters carries
them as ``meters``; a record made from a device's frame carries ``device_seq`` (and ``card``);
a user's record names ``user_id``; an exception says why in ``reason``, ``detail`` or
``note``. The reads are here, beside the events that declare those fields, so that nothing
outside ``events/`` reads a payload. A field that is missing or of the wrong type reads as
absent: the chain's verification and the typed reads say what is wrong with such a record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer_station.events.kinds import closing_statuses, opening_kinds


@dataclass(frozen=True, slots=True)
class Opening:
    """What every round's or hand's opening record names."""

    game: str
    config_version: str
    dealer: str


def opening(kind: str, payload: Mapping[str, Any]) -> Opening | None:
    """The opening a record is (None for a record that opens no round)."""
    if kind not in opening_kinds():
        return None
    game, version, dealer = ("" if v is None else str(v)
                             for v in (payload.get(k) for k in ("game", "config_version",
                                                                 "dealer")))
    return Opening(game, version, dealer)


def closing_meters(kind: str, payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The meters a round's closing record adds, by meter kind (each with ``wagered``,
    ``paid`` and ``house_win``; ``total`` for all); None for a record that closes no round
    or carries none (a Bourré hand's void)."""
    if kind not in closing_statuses():
        return None
    meters = payload.get("meters")
    return meters if isinstance(meters, Mapping) else None


def closing_theoretical(meter: Mapping[str, Any]) -> tuple[int, int] | None:
    """A closing meter's theoretical win as the station writes it, ``[numerator,
    denominator]`` (whole numbers, the denominator above 0); None for a meter without one (a
    record written before meters carried it, or a game that has none)."""
    t = meter.get("theoretical")
    if type(t) is not list or len(t) != 2:
        return None
    n, d = t
    return (n, d) if type(n) is int and type(d) is int and d > 0 else None


def closing_returned(payload: Mapping[str, Any]) -> int | None:
    """The stakes a void handed back unsettled (``returned_stakes``), where its record says;
    None where it does not."""
    r = payload.get("returned_stakes")
    return r if type(r) is int and r >= 0 else None


def device_frame(payload: Mapping[str, Any]) -> tuple[int, str | None] | None:
    """The device frame a record was made from: its ``device_seq`` and the card it read
    (None when it read none); None for a record made from no frame."""
    seq, card = payload.get("device_seq"), payload.get("card")
    if type(seq) is not int:
        return None
    return seq, card if isinstance(card, str) else None


def user_named(payload: Mapping[str, Any]) -> str | None:
    """The user a user's record is about."""
    uid = payload.get("user_id")
    return uid if isinstance(uid, str) else None


def why(payload: Mapping[str, Any]) -> str:
    """Why an exception happened, in the words its record gives (a reason, a device's
    detail, a note); "" when it gives none."""
    for key in ("reason", "detail", "note"):
        value = payload.get(key)
        if value:
            return str(value)
    return ""


@dataclass(frozen=True, slots=True)
class ConfigNamed:
    """What a ``config.change`` record names, as stored (its content may be absent: journals
    from before the content was chained hold it only in the config table)."""

    version: str
    game: str
    reason: str
    content: Mapping[str, Any] | None


def config_named(payload: Mapping[str, Any]) -> ConfigNamed:
    version, game, reason, content = (payload.get(k)
                                      for k in ("version", "game", "reason", "content"))
    return ConfigNamed("" if version is None else str(version),
                       "" if game is None else str(game),
                       "" if reason is None else str(reason),
                       content if isinstance(content, Mapping) else None)
