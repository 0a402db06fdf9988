"""The Chips tab's steps of a fill or credit through the cage, and its voids (the acting
part of :class:`~dealer_station.ui.chips_panel.ChipsPanel`, which mixes it in).

- *Request*: the chips typed on the form, signed by the signed-in supervisor
  (``CageDesk.request``).
- *Receive*: the selected request, once in transit (or issued, where no runner signs), turns
  the form into its receipt: the dealer counts what arrived, each count beside the slip's;
  counts that differ from the slip are refused in words before anyone signs; the signed-in
  supervisor and the other receipt signers, each by name and PIN, sign (``CageDesk.receive``).
- *Void*: a request at any step, or a slip: a reason, then the jurisdiction's two void signers
  on sheets, each choosing their name and typing their PIN (``CageDesk.void``, or
  ``TableAccounting.void`` for a slip signed at the table in one step).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QButtonGroup, QLabel, QPushButton, QTableWidget, QWidget

from dealer_station.accounting.cage_settings import CageSettings, may_sign
from dealer_station.accounting.chips import Chips, ChipsError
from dealer_station.accounting.requests import STATE_WORDS, Request, request_label, slip_label
from dealer_station.audit.users import User
from dealer_station.errors import StationError
from dealer_station.events.accounting import SlipRequested
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.cage import CageDesk
from dealer_station.ui import theme
from dealer_station.ui.chips_requests import (
    RequestsBox,
    chips_differences,
    request_words,
    without_zeros,
)
from dealer_station.ui.chips_signing import SignerRow, ask_signers, role_words, signed_in
from dealer_station.ui.message import MessageLabel
from dealer_station.ui.reasons import ask_reason
from dealer_station.ui.session import SignInSession
from dealer_station.ui.touch_fields import TouchLineEdit, TouchNumberField


def cage_words(kind: str, cage: CageSettings) -> tuple[str, str]:
    """What a request is, and its button's words, in a jurisdiction with the cage."""
    runner = role_words(cage.runner[0]) if cage.runner else ""
    # One line over the message: the cage issues the slip, the runner carries, the table signs.
    if kind == "fill":
        carry = f", the {runner} brings them" if runner else ""
        return f"Chips wanted: the cage issues the slip{carry}.", "Request the fill"
    carry = f", the {runner} takes them" if runner else ""
    return f"Chips going back: the cage issues the slip{carry}.", "Request the credit"


@dataclass(frozen=True)
class VoidTarget:
    """What a void is about: a request (at any step; received, its slip of record), or a
    slip signed at the table in one step."""

    words: str
    request: tuple[int, int] | None = None
    slip: tuple[str, int, int] | None = None


class CageSteps:
    """Request, receipt and voids on the Chips tab (see the module). The panel that mixes it
    in has the form (fields, signers, buttons) and the lists."""

    book: TableAccounting
    desk: CageDesk
    cage: CageSettings
    session: SignInSession
    message: MessageLabel
    requests: RequestsBox
    signers: list[SignerRow]
    fields: dict[int, TouchNumberField]
    note: TouchLineEdit
    what: QLabel
    record_button: QPushButton
    action_group: QButtonGroup
    action_buttons: dict[str, QPushButton]
    slips: QTableWidget
    void_slip_button: QPushButton
    action: str
    #: The request being received, while the form counts what came.
    receiving: Request | None

    # The panel's own (the form).
    def choose(self, action: str) -> None:
        raise NotImplementedError

    def counts(self) -> Chips:
        raise NotImplementedError

    def refresh(self) -> None:
        raise NotImplementedError

    def update_total(self) -> None:
        raise NotImplementedError

    def show_signer(self) -> None:
        raise NotImplementedError

    def sign_with(self, slots: list[str]) -> None:
        raise NotImplementedError

    def done(self, said: str) -> None:
        raise NotImplementedError

    # -- who signs the receipt -------------------------------------------------------------

    def receipt_slots(self, role: str = "supervisor") -> tuple[int | None, list[str]]:
        """Which receipt signature the signed-in ``role`` signs (its index, None: none), and
        the others, each signed on the form by name and PIN."""
        slots = list(self.cage.receipt)
        mine = next((i for i, slot in enumerate(slots) if may_sign(role, slot)), None)
        return mine, [slot for i, slot in enumerate(slots) if i != mine]

    def receivable(self) -> tuple[str, ...]:
        """The states a request is received in: in transit, or issued with no runner."""
        return ("in transit",) if self.cage.runner else ("issued",)

    # -- request ---------------------------------------------------------------------------

    def request(self, user: User) -> None:
        """The fill or credit typed, requested from the cage, signed by ``user``."""
        money = self.book.settings.money.text
        kind = self.action
        try:
            chips = without_zeros(self.counts())
            if chips.total == 0:
                raise ChipsError(f"{kind} request: no chips typed (every count is 0)")
            e = accounting_event(self.desk.request(kind, chips, user,
                                                   note=self.note.text() or None),
                                 SlipRequested)
        except StationError as exc:
            self.message.say(f"Not requested: {exc}", "bad")
            return
        label = request_label(self.book.table_id, e.year, e.request)
        self.done(f"{kind.capitalize()} request {label}: {money(chips.total)} "
                  f"({chips.chip_count:,} chips), signed by {user.name}. The cage issues the "
                  f"slip; the table signs on receipt.")
        self.requests.select((e.year, e.request))

    def selected_request(self) -> Request | None:
        key = self.requests.selected_key()
        if key is None:
            return None
        try:
            return self.book.ledger().requests.get(key)
        except StationError:
            return None

    # -- receipt ---------------------------------------------------------------------------

    def start_receipt(self, req: Request | None = None) -> None:
        """The form becomes the receipt of ``req`` (the selected request): the dealer counts
        what arrived, each count beside the slip's."""
        req = req or self.selected_request()
        if req is None:
            self.message.say("Not yet: select the request whose chips arrived.", "bad")
            return
        ready = self.receivable()
        if req.state not in ready:
            self.message.say(f"Not yet: {request_words(req)} is {STATE_WORDS[req.state]}; "
                             f"it is received once it is {STATE_WORDS[ready[0]]}.", "bad")
            return
        self.receiving = req
        self.action = "receive"
        self.action_group.setExclusive(False)
        for b in self.action_buttons.values():
            b.setChecked(False)
        self.action_group.setExclusive(True)
        money = self.book.settings.money.text(req.event.total)
        moving = "that came" if req.kind == "fill" else "going back"
        self.what.setText(f"Receipt of {req.kind} slip {req.slip_label}, {money}: count the "
                          f"chips {moving} against the slip.")
        self.what.setStyleSheet(f"color: {theme.GOLD}; font-size: 19px;")
        self.record_button.setText("Sign the\nreceipt")
        self.note.setVisible(False)
        for f in self.fields.values():
            f.clear()
        role = self.session.user.role if self.session.user is not None else "supervisor"
        self.sign_with(self.receipt_slots(role)[1])
        self.show_signer()
        self.update_total()
        self.message.say(f"Receiving {req.slip_label}: count the chips, then sign.", "info")

    def receive(self, user: User) -> None:
        """The receipt of the request on the form, signed by ``user`` (the signed-in
        supervisor) and the form's signers."""
        req = self.receiving
        assert req is not None and req.issue is not None
        money, number = self.book.settings.money.text, self.book.settings.money.number
        mine, others = self.receipt_slots(user.role)
        try:
            chips = without_zeros(self.counts())
            if chips.total == 0:
                raise ChipsError("the receipt: no chips typed (every count is 0)")
            slip = Chips.from_payload(req.issue.chips)
            if chips != slip:
                raise ChipsError(
                    f"the chips counted ({money(chips.total)}) differ from {req.kind} slip "
                    f"{req.slip_label} ({money(slip.total)}): "
                    f"{'; '.join(chips_differences(chips, slip, number))}. Count again; if "
                    f"the slip is wrong, void the request")
            pairs = [signer.given("the receipt") for signer in self.signers[:len(others)]]
            users = signed_in(self.session.users, pairs, self.book.table_id, "the receipt",
                              present=[user] if mine is not None else [])
            if mine is not None:
                users.insert(mine, user)
            self.desk.receive(*req.key, chips, users)
        except StationError as exc:
            for signer in self.signers:
                signer.pin.clear()
            self.message.say(f"Not received: {exc}", "bad")
            return
        self.leave_receipt(req.kind)
        self.done(f"{req.kind.capitalize()} slip {req.slip_label} received: "
                  f"{money(chips.total)}, signed by {' and '.join(u.name for u in users)}. "
                  f"It counts in the table's figures from now.")

    def leave_receipt(self, kind: str) -> None:
        """The form back to requesting (``kind``)."""
        self.what.setStyleSheet("")
        self.choose(kind)

    # -- voids -----------------------------------------------------------------------------

    def void_request(self, reason: str | None = None,
                     signers: list[tuple[str, str]] | None = None) -> None:
        """Void the selected request at whatever step it is (received: its slip of record):
        asks the reason, then the two signers, on sheets (both given: at once)."""
        req = self.selected_request()
        if req is None:
            self.message.say("Not voided: select a request first.", "bad")
            return
        words = request_words(req) + (f" (slip {req.slip_label})" if req.slip_label else "")
        self._void(self.requests.void_button, VoidTarget(words, request=req.key), reason,
                   signers)

    def void_slip(self, reason: str | None = None,
                  signers: list[tuple[str, str]] | None = None) -> None:
        """Void the fill or credit slip selected in the list (see :meth:`void_request`)."""
        row = self.slips.currentRow()
        item = self.slips.item(row, 0) if row >= 0 else None
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not key:
            self.message.say("Not voided: select a fill or credit slip in the list first.",
                             "bad")
            return
        kind, year, number = key
        words = f"{kind.capitalize()} slip {slip_label(self.book.table_id, kind, year, number)}"
        try:
            req = self.book.ledger().issued.get((kind, year, number))
        except StationError as exc:
            self.message.say(f"Not voided: {exc}", "bad")
            return
        target = VoidTarget(words, request=req.key) if req is not None else \
            VoidTarget(words, slip=(kind, year, number))
        self._void(self.void_slip_button, target, reason, signers)

    def _void(self, anchor: QWidget, target: VoidTarget, reason: str | None,
              signers: list[tuple[str, str]] | None) -> None:
        if reason is not None and signers is not None:
            self.void(target, reason, signers)
            return
        slots = self.cage.void
        who = " and ".join(f"a {role_words(s)}" for s in slots)

        def why(reason: str) -> None:
            ask_signers(anchor, f"Void {target.words}", slots, self.session.users,
                        lambda pairs: self.void(target, reason, pairs),
                        note=f"Reason: {reason}. Each signer chooses their name, then types "
                             f"their PIN.")

        ask_reason(anchor, "slip_void", f"Void {target.words}: why?", why,
                   note=f"Two people sign the void: {who}.")

    def void(self, target: VoidTarget, reason: str, signers: list[tuple[str, str]]) -> bool:
        """Void ``target`` with ``reason``, signed by ``signers`` ((user id, PIN) pairs, in
        the jurisdiction's order); the answer, or the refusal, in words."""
        try:
            users = signed_in(self.session.users, signers, self.book.table_id, "a void")
            if target.request is not None:
                self.desk.void(*target.request, reason, users)
            else:
                assert target.slip is not None
                kind, year, number = target.slip
                self.book.void(kind, number, year, users, reason)
        except StationError as exc:
            self.message.say(f"Not voided: {exc}", "bad")
            return False
        if self.receiving is not None and self.receiving.key == target.request:
            self.leave_receipt(self.receiving.kind)
        self.message.say(f"{target.words} voided ({reason.strip()}), signed by "
                         f"{' and '.join(u.name for u in users)}.", "good")
        self.refresh()
        return True


__all__ = ["CageSteps", "VoidTarget", "cage_words"]
