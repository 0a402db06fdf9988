"""The journal's values: a stored record, a fact to append, and the rows of the tables the
chain proves (rounds, meters, configuration versions). Plain data, shared by the journal and
its projections (which must not import each other)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dealer_station.errors import StationError
from dealer_station.events.base import Event


class JournalError(StationError):
    """A journal operation was refused; nothing was written."""


@dataclass(frozen=True, slots=True)
class Record:
    """One stored journal record, its payload decoded."""

    table_id: str
    seq: int
    ts: str
    actor: str
    kind: str
    round_no: int | None
    payload: dict[str, Any]
    prev_hash: str
    hash: str

    @property
    def time(self) -> datetime:
        return datetime.fromisoformat(self.ts)


@dataclass(frozen=True, slots=True)
class Entry:
    """A typed event to journal, with who did it and the round it belongs to: what the
    station writes, and the only thing (see :meth:`Journal.write`)."""

    event: Event
    actor: str
    round_no: int | None = None


@dataclass(frozen=True, slots=True)
class Copied:
    """A record copied as another chain holds it, kind and payload byte for byte (a user's
    facts adopted from the floor): read as its event where it is decided on, written as it
    was (see :meth:`Journal.write`)."""

    kind: str
    payload: Mapping[str, Any]
    actor: str
    round_no: int | None = None


@dataclass(frozen=True, slots=True)
class Fact:
    """A record as the chain appends it, kind and payload (see :meth:`Journal.append_many`):
    made from a typed event (:meth:`of`), or copied verbatim from another chain."""

    kind: str
    payload: Mapping[str, Any]
    actor: str
    round_no: int | None = None

    @classmethod
    def of(cls, event: Event, actor: str, round_no: int | None = None) -> Fact:
        """The record of a typed event: its kind and its payload as the event writes it."""
        return cls(event.KIND, event.to_payload(), actor, round_no)


@dataclass(frozen=True, slots=True)
class MeterDelta:
    """Amounts to add to one meter. ``house_win`` defaults to ``wagered - paid``."""

    rounds: int = 0
    wagered: int = 0
    paid: int = 0
    house_win: int | None = None

    def __post_init__(self) -> None:
        for name in ("rounds", "wagered", "paid", "house_win"):
            value = getattr(self, name)
            if value is not None and type(value) is not int:
                raise JournalError(f"meter delta {name} must be an integer amount in minor "
                                   f"units, got {value!r}")
        if self.house_win is None:
            object.__setattr__(self, "house_win", self.wagered - self.paid)


@dataclass(frozen=True, slots=True)
class Meter:
    table_id: str
    meter: str
    rounds: int
    wagered: int
    paid: int
    house_win: int


@dataclass(frozen=True, slots=True)
class RoundInfo:
    """A row of the rounds projection (for recall: the records are ``first_seq..last_seq``)."""

    table_id: str
    round_no: int
    game: str
    config_version: str
    status: str
    dealer: str
    started_at: str
    ended_at: str | None
    first_seq: int
    last_seq: int
    summary: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ConfigVersion:
    table_id: str
    version: str
    game: str
    content: dict[str, Any]
    created_at: str
    created_by: str
    reason: str
