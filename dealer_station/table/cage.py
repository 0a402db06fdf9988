"""Fills and credits through the cage, as MICS describes them (docs/accounting.md, "The
cage"): the table's supervisor requests; the cage issues the slip against the request, signed
by a cage cashier; security carries the chips; the dealer and the supervisor sign on receipt,
and only then does the slip of record (the ``fill`` or ``credit``) change the tray. A void
takes two signers and a reason at any step.

Every step is journaled in the table's own chain, decided under its writer lock, so two steps
of one request never race. Who signs each step, and the slip's copies, are the jurisdiction's
(``[cage]`` of the accounting settings). Each signer signs in by PIN where they stand (the
callers hand over the signed-in users); one person never signs two signatures of one slip.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from dealer_station.accounting.cage_settings import CageSettings
from dealer_station.accounting.chips import Chips, ChipsError
from dealer_station.accounting.ledger import AccountingRefused, Ledger
from dealer_station.accounting.requests import Request, request_label
from dealer_station.audit.journal import Journal, Record
from dealer_station.audit.users import User
from dealer_station.events.accounting import (
    SLIP_KINDS,
    RequestVoided,
    SlipCarried,
    SlipIssued,
    SlipRequested,
    SlipVoided,
)
from dealer_station.events.base import Event
from dealer_station.money import Money
from dealer_station.table.accounting import MAX_NOTE, TableAccounting, table_ledger
from dealer_station.table.signatures import signed

SLIPS = ("fill", "credit")


def _ids(c: Event | None) -> set[str]:
    signers = getattr(c, "signers", None) or ()
    return {s.split("/", 1)[0] for s in signers}


def _not_again(req: Request, users: Sequence[User], action: str) -> None:
    """One person signs one signature of a slip: the cage's, the runner's and the table's are
    different people (the request's supervisor may sign the receipt)."""
    earlier = _ids(req.issue) | _ids(req.carry)
    for u in users:
        if u.user_id in earlier:
            raise AccountingRefused(f"{action}: {u.user_id} already signed "
                                    f"{req.slip_label or req.label}; one person signs once")


def _same_chips(what: Chips, expected: Chips, action: str, against: str, money: Money) -> None:
    """Refuse chips that differ from the step before by any denomination, saying which."""
    if what.to_payload() == expected.to_payload():     # a count typed as 0 is no chip
        return
    apart = [f"{money.text(d)} chips: {what.count(d)} here, {expected.count(d)} on {against}"
             for d in sorted(set(what.as_dict()) | set(expected.as_dict()))
             if what.count(d) != expected.count(d)]
    raise AccountingRefused(f"{action}: the chips differ from {against} ({'; '.join(apart)}); "
                            f"count again, or void and request anew")


def _actor(users: Sequence[User]) -> str:
    return "+".join(u.actor for u in users)


class CageDesk:
    """The fill and credit requests of one table: read from its chain, written to it."""

    def __init__(self, book: TableAccounting) -> None:
        self.book = book

    @property
    def rules(self) -> CageSettings:
        return self.book.settings.cage

    @property
    def table_id(self) -> str:
        return self.book.table_id

    def ledger(self) -> Ledger:
        return self.book.ledger()

    def requests(self) -> list[Request]:
        return list(self.ledger().requests.values())

    def _through_cage(self, action: str) -> None:
        if not self.rules.through_cage:
            raise AccountingRefused(f"{action}: this jurisdiction's fills and credits are "
                                    f"signed at the table in one step ([cage] of the "
                                    f"accounting settings has no cage signature)")

    def _chips(self, kind: str, chips: Chips, action: str) -> Chips:
        if kind not in SLIPS:
            raise AccountingRefused(f"unknown slip {kind!r}: fill or credit")
        self.book.chips(chips, action)
        if chips.total <= 0:
            raise ChipsError(f"{action}: no chips given")
        return chips

    # -- the steps -----------------------------------------------------------------------------

    def request(self, kind: str, chips: Chips, supervisor: User | None, *,
                note: str | None = None) -> Record:
        """A fill or credit requested at the table by its supervisor (or an operator)."""
        action = f"a {kind} request"
        self._through_cage(action)
        (sup,) = signed([supervisor], ("supervisor",), action)
        self._chips(kind, chips, action)
        if note is not None:
            note = note.strip() or None
            if note is not None and len(note) > MAX_NOTE:
                raise AccountingRefused(f"{action}: the note is longer than {MAX_NOTE} "
                                        f"characters")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            ledger.check_open_shift(day, self.book.shift_now(), action)
            n = ledger.next_request(day.year)
            return [(SlipRequested(kind, n, day.year, day.isoformat(), chips.to_payload(),
                                   chips.total, (sup.actor,), note), sup.actor)]

        return self.book.write(decide)[0]

    def issue(self, year: int, number: int, chips: Chips, cashiers: Sequence[User | None]
              ) -> Record:
        """The cage's slip against request ``number`` of ``year``: the chips counted out must
        be the chips requested."""
        action = f"issuing the slip for {request_label(self.table_id, year, number)}"
        self._through_cage(action)
        users = signed(cashiers, self.rules.issue, action)

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            req = ledger.request(year, number)
            self._state(req, ("requested",), "issued")
            self._chips(req.kind, chips, action)
            _same_chips(chips, req.chips, action, f"the request ({req.label})",
                        self.book.settings.money)
            n = ledger.next_number(req.kind, day.year)
            return [(SlipIssued(req.kind, number, year, n, day.year, chips.to_payload(),
                                chips.total, tuple(u.actor for u in users)), _actor(users))]

        return self.book.write(decide)[0]

    def carry(self, year: int, number: int, runners: Sequence[User | None]) -> Record:
        """The runner takes the issued slip, and its chips, on their way."""
        action = f"carrying {request_label(self.table_id, year, number)}"
        if not self.rules.runner:
            raise AccountingRefused(f"{action}: this jurisdiction's slips have no runner's "
                                    f"signature ([cage] runner is empty)")
        users = signed(runners, self.rules.runner, action)

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            req = ledger.request(year, number)
            self._state(req, ("issued",), "carried")
            _not_again(req, users, action)
            issue = req.issue
            assert issue is not None
            return [(SlipCarried(req.kind, issue.number, issue.year,
                                 tuple(u.actor for u in users)), _actor(users))]

        return self.book.write(decide)[0]

    def receive(self, year: int, number: int, chips: Chips,
                signers: Sequence[User | None]) -> Record:
        """The table signs for the slip (a fill's chips into the tray, a credit's out of it):
        the slip of record, counted in the table's figures from here."""
        action = f"receiving {request_label(self.table_id, year, number)}"
        self._through_cage(action)
        users = signed(signers, self.rules.receipt, action)

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            req = ledger.request(year, number)
            self._state(req, ("in transit",) if self.rules.runner else ("issued",),
                        "received")
            _not_again(req, users, action)
            issue = req.issue
            assert issue is not None
            self._chips(req.kind, chips, action)
            _same_chips(chips, Chips.from_payload(issue.chips), action,
                        f"the slip ({req.slip_label})", self.book.settings.money)
            ledger.check_open_shift(day, self.book.shift_now(), req.kind)
            carried = req.carry.signers if req.carry is not None else ()
            everyone = (*issue.signers, *carried, *(u.actor for u in users))
            cls = SLIP_KINDS[req.kind]
            return [(cls(issue.number, issue.year, day.isoformat(), chips.to_payload(),
                         chips.total, everyone, req.event.note, number, year), _actor(users))]

        return self.book.write(decide)[0]

    def void(self, year: int, number: int, reason: str, signers: Sequence[User | None]
             ) -> Record:
        """Void request ``number`` of ``year`` at whatever step it has reached: before the
        table signed, the request (and any issued slip's number); after, the slip of record."""
        label = request_label(self.table_id, year, number)
        action = f"voiding {label}"
        users = signed(signers, self.rules.void, action)
        why = (reason or "").strip() if isinstance(reason, str) else ""
        if not why:
            raise AccountingRefused(f"{action} needs a reason (it is journaled with the "
                                    f"signers' names)")
        if len(why) > MAX_NOTE:
            raise AccountingRefused(f"{action}: the reason is longer than {MAX_NOTE} "
                                    f"characters")
        actors = tuple(u.actor for u in users)

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            req = ledger.request(year, number)
            state = req.state
            if state == "voided":
                raise AccountingRefused(f"{action}: it is already voided")
            issue = req.issue
            if state == "received":
                assert issue is not None and req.received is not None
                return [(SlipVoided(req.kind, issue.number, issue.year, req.received.seq, why,
                                    actors), _actor(users))]
            return [(RequestVoided(req.kind, number, year, req.requested.seq, state, why,
                                   actors, issue.number if issue else None,
                                   issue.year if issue else None), _actor(users))]

        return self.book.write(decide)[0]

    @staticmethod
    def _state(req: Request, allowed: tuple[str, ...], doing: str) -> None:
        if req.state not in allowed:
            raise AccountingRefused(
                f"{req.label} is {req.state}; it can be {doing} only when "
                f"{' or '.join(allowed)}")


def table_requests(journal: Journal, table_id: str) -> list[Request]:
    """Every request of one table, as its chain establishes them (for the cage and the pit,
    which read every table's)."""
    return list(table_ledger(journal, table_id).requests.values())


__all__ = ["CageDesk", "RequestVoided", "signed", "table_requests"]
