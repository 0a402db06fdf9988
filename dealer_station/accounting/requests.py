"""A fill or credit request and what became of it, as the table's chain establishes it:
requested at the table, issued by the cage, carried by security, received at the table, or
voided on the way (pure: events in, answers out)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from dealer_station.accounting.chips import Chips
from dealer_station.events.accounting import (
    RequestVoided,
    SlipCarried,
    SlipIssued,
    SlipRequested,
)
from dealer_station.events.base import Committed

#: The states of a request, in the order it moves through them.
STATES = ("requested", "issued", "in transit", "received", "voided")
#: What each state is called where people read it.
STATE_WORDS = {"requested": "Requested", "issued": "Issued at the cage",
               "in transit": "In transit", "received": "Received at the table",
               "voided": "Voided"}


@dataclass
class Request:
    """One request of one table, with each step's record as it was journaled."""

    table: str
    requested: Committed
    issued: Committed | None = None
    carried: Committed | None = None
    #: The slip of record (a fill or credit) the table signed, by its record.
    received: Committed | None = None
    voided: Committed | None = None
    #: A void after receipt (``slip.void`` of the received slip).
    slip_voided: Committed | None = None

    @property
    def event(self) -> SlipRequested:
        e = self.requested.event
        assert isinstance(e, SlipRequested)
        return e

    @property
    def kind(self) -> str:
        return self.event.slip

    @property
    def key(self) -> tuple[int, int]:
        return (self.event.year, self.event.request)

    @property
    def label(self) -> str:
        """The request's number as printed: ``T1-R-2026-00007``."""
        return request_label(self.table, self.event.year, self.event.request)

    @property
    def issue(self) -> SlipIssued | None:
        e = self.issued.event if self.issued is not None else None
        return e if isinstance(e, SlipIssued) else None

    @property
    def carry(self) -> SlipCarried | None:
        e = self.carried.event if self.carried is not None else None
        return e if isinstance(e, SlipCarried) else None

    @property
    def void(self) -> RequestVoided | None:
        e = self.voided.event if self.voided is not None else None
        return e if isinstance(e, RequestVoided) else None

    @property
    def chips(self) -> Chips:
        return Chips.from_payload(self.event.chips)

    @property
    def state(self) -> str:
        if self.voided is not None or self.slip_voided is not None:
            return "voided"
        if self.received is not None:
            return "received"
        if self.carried is not None:
            return "in transit"
        if self.issued is not None:
            return "issued"
        return "requested"

    @property
    def open(self) -> bool:
        """Still on its way: neither received nor voided."""
        return self.state in ("requested", "issued", "in transit")

    @property
    def slip_number(self) -> tuple[int, int] | None:
        """The issued slip's (year, number), once the cage issued it."""
        issue = self.issue
        return (issue.year, issue.number) if issue is not None else None

    @property
    def slip_label(self) -> str | None:
        issue = self.issue
        return None if issue is None else slip_label(self.table, self.kind, issue.year,
                                                     issue.number)

    def overdue(self, now: datetime, minutes: int) -> bool:
        """Open longer than the jurisdiction allows a request to take."""
        return self.open and now - requested_at(self) > timedelta(minutes=minutes)

    def steps(self) -> list[tuple[str, Committed]]:
        """Each step taken, in order, with its record."""
        out = [("requested", self.requested)]
        for name, c in (("issued", self.issued), ("in transit", self.carried),
                        ("received", self.received), ("voided", self.voided),
                        ("voided", self.slip_voided)):
            if c is not None:
                out.append((name, c))
        return out


def requested_at(r: Request) -> datetime:
    return datetime.fromisoformat(r.requested.ts)


def request_label(table: str, year: int, number: int) -> str:
    return f"{table}-R-{year}-{number:05d}"


def slip_label(table: str, kind: str, year: int, number: int) -> str:
    """A slip's control number as printed: ``T1-F-2026-00042`` (the table's id makes it
    unique across the casino; the number runs per table, kind and year)."""
    return f"{table}-{'F' if kind == 'fill' else 'C'}-{year}-{number:05d}"
