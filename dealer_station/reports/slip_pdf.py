"""The fill and credit slip of record, and the fill or credit request, printed
(docs/accounting.md, "The printed slip").

A slip prints one page per copy the jurisdiction names (``[cage] copies``: the original to the
cage, the duplicate to the table's drop box, the triplicate to accounting), each page the whole
slip, so that each copy stands on its own wherever it is filed: the copy's designation in large
type, the slip's control number and its request's number, table and game, gaming day, chips by
denomination and the total in money, when and by whom it was requested, one signature block
per signer in print order (cage cashier, security, dealer, floor supervisor) with the date and
time of that signature (the time of its step's record: the issue, the carry, the receipt), and
the journal's verification of the records it covers, which are attached to the PDF.

A slip still in transit prints too (the cage prints it when it issues), the table's blocks
marked "not yet signed". A voided slip, or one whose request was voided on its way, prints
VOID across every page of every copy, with the void's time, its two signers and its reason, and
covers and attaches the void's own record. A slip signed at the table in one step (a
jurisdiction without a cage signature) prints its two signatures the same way, with its copies.

The request prints on a page of its own: the chips wanted, who asked and when, its state and
every step so far with its time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    PageBreak,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.ledger import Ledger, Slip
from dealer_station.accounting.requests import STATE_WORDS, Request, request_label, slip_label
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal, Record, VerifyResult
from dealer_station.audit.users import Users
from dealer_station.errors import StationError
from dealer_station.events.accounting import RequestVoided, SlipVoided
from dealer_station.events.base import Committed
from dealer_station.registry import label as game_label
from dealer_station.reports.archival import RECORDS_ATTACHMENT, Attachment
from dealer_station.reports.evidence import ProvenAgainst
from dealer_station.reports.pdf_style import (
    ALERT,
    FONT,
    FONT_BOLD,
    FONT_MONO,
    GREY,
    INK,
    MIN_TEXT_PT,
    p,
    rich,
)
from dealer_station.reports.source import covered_records
from dealer_station.reports.template import (
    CHECKPOINT_ATTACHMENT,
    BuiltReport,
    ReportBuilder,
    attached_count,
    facts,
    grid,
    public_evidence,
)
from dealer_station.reports.text import local
from dealer_station.table.accounting import table_game
from dealer_station.table.recall_model import record_label

#: What each signature is called on the slip (the words on the floor and in MICS), by the
#: role of the slot it fills. An operator signs a floor supervisor's slot.
SLOT_WORDS = {"cage": "Cage cashier", "security": "Security", "dealer": "Dealer",
              "supervisor": "Floor supervisor", "operator": "Floor supervisor",
              "accounting": "Accounting"}
#: What a person's own role is called, when it is not the slot's (an operator as supervisor).
ROLE_NAMES = {"cage": "cage cashier", "security": "security officer", "dealer": "dealer",
              "supervisor": "floor supervisor", "operator": "operator",
              "accounting": "accounting"}
#: What each signature attests, by the step it was given at.
STEP_WORDS = {"issue": "issued the chips at the cage", "carry": "carried the chips",
              "receipt": "received at the table", "table": "signed at the table"}
NOT_YET = "not yet signed"
#: A note longer than this prints below the slip's facts, across the page.
LONG_NOTE = 80


@dataclass(frozen=True)
class Signature:
    """One signature block: the slot, what it attests, and who signed it when (``actor``
    None: not signed)."""

    slot: str
    step: str
    actor: str | None = None
    ts: str | None = None
    seq: int | None = None
    missing: str = NOT_YET


@dataclass(frozen=True)
class Void:
    """A void as the slip or the request prints it."""

    record: Committed
    reason: str
    signers: tuple[str, ...]
    meaning: str


@dataclass(frozen=True)
class SlipView:
    """Everything one printed slip says, read from the chain."""

    kind: str
    table: str
    control: str
    gaming_day: str
    chips: Chips
    signatures: tuple[Signature, ...]
    state: str
    note: str | None
    first: Committed
    last: Committed
    request: Request | None = None
    void: Void | None = None


def _role(actor: str) -> str:
    return actor.split("/", 1)[1] if "/" in actor else ""


def _uid(actor: str) -> str:
    return actor.split("/", 1)[0]


def _slot(role: str) -> str:
    return SLOT_WORDS.get(role, role.title())


class _Names:
    """Users' names as the station chain holds them, each looked up once."""

    def __init__(self, journal: Journal) -> None:
        self.users = Users(journal)
        self.known: dict[str, str] = {}

    def __call__(self, actor: str) -> str:
        """``cas/cage`` -> ``Cass Cashier (cas)``."""
        uid = _uid(actor)
        if uid not in self.known:
            u = self.users.get(uid)
            self.known[uid] = f"{u.name} ({uid})" if u is not None else uid
        return self.known[uid]

    def with_role(self, actor: str) -> str:
        """``Sue Supervisor (sue), floor supervisor``."""
        role = _role(actor)
        return self(actor) + (f", {ROLE_NAMES.get(role, role)}" if role else "")


# --- reading the slip from the chain ----------------------------------------------------------

def _cage_view(req: Request, settings: AccountingSettings) -> SlipView:
    """A slip the cage issued against ``req``: its signatures step by step."""
    issue = req.issue
    assert issue is not None and req.issued is not None
    voided = req.voided is not None   # voided before the table signed
    missing = "not signed: voided" if voided else NOT_YET
    sigs = [Signature(_slot(_role(a)), STEP_WORDS["issue"], a, req.issued.ts, req.issued.seq)
            for a in issue.signers]
    carried: tuple[str, ...] = ()
    if req.carry is not None and req.carried is not None:
        carried = req.carry.signers
        sigs += [Signature(_slot(_role(a)), STEP_WORDS["carry"], a, req.carried.ts,
                           req.carried.seq) for a in carried]
    elif settings.cage.runner:
        sigs += [Signature(_slot(r), STEP_WORDS["carry"], missing=missing)
                 for r in settings.cage.runner]
    received = req.received
    if received is not None:
        everyone = tuple(getattr(received.event, "signers", ()))
        before = (*issue.signers, *carried)
        table = (everyone[len(before):] if everyone[:len(before)] == before else
                 tuple(a for a in everyone if a not in before))
        sigs += [Signature(_slot(_role(a)), STEP_WORDS["receipt"], a, received.ts,
                           received.seq) for a in table]
        e = received.event
        gaming_day = str(getattr(e, "gaming_day", req.event.gaming_day))
        chips = Chips.from_payload(getattr(e, "chips", issue.chips))
    else:
        sigs += [Signature(_slot(r), STEP_WORDS["receipt"], missing=missing)
                 for r in settings.cage.receipt]
        gaming_day = req.event.gaming_day
        chips = Chips.from_payload(issue.chips)
    void = _void_of(req)
    steps = req.steps()
    state = {"issued": "Issued at the cage: not yet carried or received at the table",
             "in transit": "In transit: not yet received at the table",
             "received": "Received at the table: the slip of record",
             "voided": f"VOID: voided {_voided_at(req)}"}.get(
                 req.state, STATE_WORDS.get(req.state, req.state))
    return SlipView(req.kind, req.table, req.slip_label or "", gaming_day, chips, tuple(sigs),
                    state, req.event.note, req.requested, max((c for _, c in steps),
                                                              key=lambda c: c.seq),
                    req, void)


#: When a request was voided, by the state it had reached.
VOIDED_AT = {"requested": "before the cage issued the slip",
             "issued": "after the cage issued the slip, before it was carried",
             "in transit": "in transit, before the table signed for it"}


def _voided_at(req: Request) -> str:
    e = req.voided.event if req.voided is not None else None
    if isinstance(e, RequestVoided):
        return VOIDED_AT.get(e.state, e.state)
    return "after the table signed for it"


def _void_of(req: Request) -> Void | None:
    if req.voided is not None:
        e = req.voided.event
        assert isinstance(e, RequestVoided)
        at = _voided_at(req)
        issued = req.slip_label
        meaning = (f"Voided {at}" + (f"; slip {issued} is void with it and keeps its number"
                                     if issued else "")
                   + ". No chips changed hands at the table; it counts in no figure.")
        return Void(req.voided, e.reason, tuple(e.signers), meaning)
    if req.slip_voided is not None:
        return _slip_void(req.slip_voided)
    return None


def _slip_void(c: Committed) -> Void:
    e = c.event
    assert isinstance(e, SlipVoided)
    return Void(c, e.reason, tuple(e.signers or (c.actor,)),
                "Voided after the table signed for it: the slip keeps its number and counts "
                "in no figure.")


def _table_view(table: str, slip: Slip) -> SlipView:
    """A slip signed at the table in one step (a jurisdiction without a cage signature)."""
    record = Committed(slip.seq, slip.ts, slip.actor, None, slip.event)
    e = slip.event
    sigs = tuple(Signature(_slot(_role(a)), STEP_WORDS["table"], a, slip.ts, slip.seq)
                 for a in e.signers)
    void = None
    last = record
    if slip.void is not None and slip.void_seq is not None:
        last = Committed(slip.void_seq, slip.void_ts or "", slip.void_actor or "", None,
                         slip.void)
        void = _slip_void(last)
    return SlipView(slip.kind, table, slip_label(table, slip.kind, e.year, e.number),
                    e.gaming_day, slip.chips, sigs,
                    "VOID: voided after the table signed" if void else
                    "Signed at the table: the slip of record", e.note,
                    record, last, None, void)


def slip_view(ledger: Ledger, settings: AccountingSettings, kind: str, year: int,
              number: int) -> SlipView:
    """The slip ``kind`` ``number`` of ``year`` as the chain has it: issued by the cage (in
    transit, received or voided), or signed at the table in one step."""
    req = ledger.issued.get((kind, year, number))
    if req is not None and req.issue is not None:
        return _cage_view(req, settings)
    slip = ledger.slips.get((kind, year, number))
    if slip is None:
        raise StationError(f"no {kind} slip {slip_label(ledger.table, kind, year, number)} "
                           f"(number {number} of {year}) at table {ledger.table}")
    return _table_view(ledger.table, slip)


# --- printing ---------------------------------------------------------------------------------

_COPY = ParagraphStyle("slip_copy", fontName=FONT_BOLD, fontSize=20, leading=24, textColor=INK)
_COPY_SIDE = ParagraphStyle("slip_copy_side", fontName=FONT, fontSize=9, leading=11.5,
                            textColor=INK, alignment=2)
_TITLE = ParagraphStyle("slip_title", fontName=FONT_BOLD, fontSize=14, leading=17,
                        textColor=INK, spaceBefore=4, spaceAfter=3)
_CELL = ParagraphStyle("slip_cell", fontName=FONT, fontSize=MIN_TEXT_PT + 0.5, leading=10.5,
                       textColor=INK)
_GREY = GREY.hexval().replace("0x", "#")
_ALERT = ALERT.hexval().replace("0x", "#")


def _game(journal: Journal, table: str) -> str:
    """The game the table runs, by its name on the felt."""
    game = table_game(journal, table)
    return game_label(game) if game else "not recorded (the table has not started a game)"


def _record(journal: Journal, table: str, seq: int) -> Record:
    found = next(iter(journal.records(table, from_seq=seq, to_seq=seq)), None)
    if found is None:
        raise StationError(f"table {table}: journal record {seq} is missing; run "
                           f"'dealer-station audit verify --table {table}'")
    return found


def _total(chips: Chips, s: AccountingSettings) -> str:
    n = chips.chip_count
    return f"{s.money.text(chips.total)} ({n:,} chip{'s' if n != 1 else ''})"


def _chips_grid(chips: Chips, s: AccountingSettings, width: float, what: str) -> Table:
    number = s.money.number
    rows = [[number(d), f"{chips.count(d):,}", number(d * chips.count(d))]
            for d in s.denominations]
    rows.append(["Total", f"{chips.chip_count:,}", number(chips.total)])
    return grid([f"{what} ({s.money.label})", "Chips", "Value"], rows,
                [width * 0.44, width * 0.2, width * 0.36], numeric=(0, 1, 2), bold_last=True)


def _side_by_side(left: Flowable, right: Flowable, width: float, split: float = 0.56) -> Table:
    t = Table([[left, right]], colWidths=[width * split, width * (1 - split)], hAlign="LEFT")
    # Every table names the report's font: reportlab's default is a core font, never embedded.
    t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
                           ("VALIGN", (0, 0), (-1, -1), "TOP"),
                           ("LEFTPADDING", (0, 0), (-1, -1), 0),
                           ("RIGHTPADDING", (0, 0), (0, -1), 4 * mm),
                           ("RIGHTPADDING", (1, 0), (1, -1), 0),
                           ("TOPPADDING", (0, 0), (-1, -1), 0),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 0)]))
    return t


def _copy_banner(designation: str, n: int, total: int, control: str, width: float) -> Table:
    """The copy's designation, large, boxed across the top of its page."""
    t = Table([[Paragraph(escape(designation), _COPY),
                Paragraph(f"Copy {n} of {total}<br/><b>{escape(control)}</b>", _COPY_SIDE)]],
              colWidths=[width * 0.66, width * 0.34], hAlign="LEFT")
    t.setStyle(TableStyle([("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
                           ("BOX", (0, 0), (-1, -1), 2, INK),
                           ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
                           ("LEFTPADDING", (0, 0), (-1, -1), 8),
                           ("RIGHTPADDING", (0, 0), (-1, -1), 8),
                           ("TOPPADDING", (0, 0), (-1, -1), 5),
                           ("BOTTOMPADDING", (0, 0), (-1, -1), 7)]))
    return t


def _signer_name(names: _Names, sig: Signature) -> str:
    assert sig.actor is not None
    role = _role(sig.actor)
    # An operator standing for the floor supervisor is named as what they are.
    stands_in = role == "operator" or (role and _slot(role) != sig.slot)
    own = f", {ROLE_NAMES.get(role, role)}" if stands_in else ""
    return escape(names(sig.actor) + own)


def _signatures(sigs: Sequence[Signature], names: _Names, width: float, *,
                compact: bool = False) -> Flowable:
    """A block per signature in print order: the slot, what it attests, the person's name and
    id as signed in by PIN, the date and time of the signature, and a line to sign on."""
    head = [p("Signature of", "note"), p("Name (signed in by PIN)", "note"),
            p("Date and time signed", "note"), p("Signature", "note")]
    body: list[list[Flowable | str]] = []
    for s in sigs:
        slot = Paragraph(f"<b>{escape(s.slot)}</b><br/><font color='{_GREY}'>"
                         f"{escape(s.step)}</font>", _CELL)
        if s.actor is None:
            body.append([slot, Paragraph(f"<font color='{_ALERT}'><b>{escape(s.missing)}"
                                         f"</b></font>", _CELL), p("-", "cell"), ""])
            continue
        when = (f"{escape(local(s.ts))}<br/><font color='{_GREY}'>journal record "
                f"{s.seq:,}</font>" if s.ts and s.seq is not None else "-")
        body.append([slot, Paragraph(_signer_name(names, s), _CELL), Paragraph(when, _CELL),
                     ""])
    # Each row tall enough to sign on paper too, where the jurisdiction asks for ink.
    t = Table([head, *body], colWidths=[width * x for x in (0.21, 0.28, 0.25, 0.26)],
              hAlign="LEFT")
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
        ("VALIGN", (0, 0), (-1, 0), "BOTTOM"),
        ("VALIGN", (0, 1), (-1, -1), "MIDDLE"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, GREY),
        ("LINEBELOW", (0, 1), (2, -2), 0.3, GREY),
        ("LINEBELOW", (3, 1), (3, -1), 0.8, INK),
        ("LEFTPADDING", (0, 0), (-1, -1), 2),
        ("TOPPADDING", (0, 1), (-1, -1), 1 if compact else 4),
        ("BOTTOMPADDING", (0, 1), (-1, -1), 1 if compact else 4),
    ]))
    return KeepTogether([rich("Signatures", "h2"), t])


def _void_block(void: Void, names: _Names, width: float) -> Flowable:
    """When the void was journaled, its two signers, why, and what it means."""
    who = " and ".join(escape(names.with_role(a)) for a in void.signers)
    rows: list[tuple[str, Flowable | str]] = [
        ("Voided", f"{local(void.record.ts)} (journal record {void.record.seq:,}, signed as "
                   f"{' and '.join(void.signers)})"),
        ("Voided by", rich(who, "cell")),
        ("Reason", void.reason),
        ("What it means", void.meaning),
    ]
    return KeepTogether([rich(f"<font color='{_ALERT}'>VOID</font>", "h2"),
                         facts(rows, widths=(32 * mm, width - 32 * mm))])


def _evidence(journal: Journal, table: str, first: Record, last: Record
              ) -> tuple[list[Attachment], ProvenAgainst | None]:
    if not attached_count(first, last):
        return [], None
    return public_evidence(covered_records(journal, table, first, last), table,
                           RECORDS_ATTACHMENT, CHECKPOINT_ATTACHMENT)


def _verified(r: ReportBuilder, verification: VerifyResult) -> None:
    """The footer's line, as the report template words it."""
    if verification.ok:
        r.meta.verified = f"Journal verified intact to record {verification.last_seq:,}"
    else:
        r.meta.verified = f"JOURNAL VERIFICATION FAILED at record {verification.bad_seq}"
        r.meta.verified_ok = False


def _kind_words(kind: str) -> str:
    return "Fill" if kind == "fill" else "Credit"


def build_slip_pdf(journal: Journal, ledger: Ledger, settings: AccountingSettings, kind: str,
                   year: int, number: int, *, out: Path | str, paper: str = "A4"
                   ) -> BuiltReport:
    """The fill or credit slip ``number`` of ``year``, a page per copy (``[cage] copies``):
    issued by the cage (received, in transit or voided) or signed at the table; voided, VOID
    across every page. Attached: the records it covers, from its request (or itself) to its
    last step (its void's record included)."""
    if kind not in ("fill", "credit"):
        raise StationError(f"unknown slip {kind!r}: fill or credit")
    view = slip_view(ledger, settings, kind, year, number)
    table = ledger.table
    first = _record(journal, table, view.first.seq)
    last = _record(journal, table, view.last.seq)
    verification = journal.verify_table(table)
    attachments, against = _evidence(journal, table, first, last)
    title = f"{_kind_words(kind)} slip" + (" (VOID)" if view.void else "")
    names = _Names(journal)
    game = _game(journal, table)
    copies = settings.cage.copies or ("Original",)
    # Laid out as usual; should a copy run over its page (the longest note and void reason
    # on letter paper), again closer set, so that every copy keeps to one page.
    for compact in (False, True):
        r = ReportBuilder(kind="slip", title=title, table=table,
                          period=f"{view.control}, gaming day {view.gaming_day}",
                          subject=f"amounts in {settings.money.label}", paper=paper)
        r.meta.printed = local(journal.clock())
        if view.void is not None:
            r.meta.stamp = "VOID"
        w = r.width
        for n, designation in enumerate(copies, 1):
            if n > 1:
                r.add(PageBreak())
            r.add(*_slip_page(view, names, game, settings, w, designation, n, len(copies),
                              compact=compact))
            r.add(_journal_block(verification, first, last, against, w, compact=compact))
        _verified(r, verification)
        r._write(Path(out), attachments)
        if r.meta.pages <= len(copies):
            break
    m = r.meta
    return BuiltReport(Path(out), r.kind, m.title, table, m.pages, verification, last, view)


def _journal_block(result: VerifyResult, first: Record, last: Record,
                   against: ProvenAgainst | None, width: float, *, compact: bool = False
                   ) -> Flowable:
    """The journal's verification of what the slip covers, on every copy (each copy is filed
    on its own): the chain's verdict and head, the records covered and the last one's hash,
    what is attached and how to check it. The report template's closing section, made short
    enough for every copy to keep to its page."""
    mono = f"<font name='{FONT_MONO}'>"
    if result.ok:
        verdict = (f"<font color='#1b5e20'><b>Journal verified: intact.</b></font> Table "
                   f"{escape(result.table_id)}: chain intact from record 1 to record "
                   f"{result.last_seq:,}; {result.checkpoints} checkpoint(s) confirmed. "
                   f"Chain head hash {mono}{result.last_hash}</font>")
    else:
        verdict = (f"<font color='{_ALERT}'><b>JOURNAL VERIFICATION FAILED at record "
                   f"{result.bad_seq}:</b> {escape(result.problem or '')}</font> Records after "
                   f"{result.last_seq:,} cannot be relied on; call the operator and keep this "
                   f"paper.")
    count = last.seq - first.seq + 1
    if attached_count(first, last):
        proof = ("; no signed checkpoint covers them yet" if against is None else
                 f", each with its inclusion proof ({CHECKPOINT_ATTACHMENT})" if compact else
                 f", each with its inclusion proof, {against.words()} (attached as "
                 f"{CHECKPOINT_ATTACHMENT})")
        if against is not None and last.seq > against.size:
            proof += f"; records after {against.size:,} are not yet covered"
        attached = f"the {count:,} records covered, as {RECORDS_ATTACHMENT}{proof}"
    else:
        attached = (f"none: the {count:,} records covered are more than a report carries; "
                    f"the journal database holds them")
    rows: list[tuple[str, Flowable | str]] = [
        ("Verification", rich(verdict, "small")),
        ("Records covered", rich(
            f"{first.seq:,} to {last.seq:,} (the last at {escape(local(last.ts))}: "
            f"{escape(record_label(last.kind))}); last record hash {mono}{last.hash}</font>",
            "small")),
        ("Attached", p(attached, "small"))]
    if not compact:
        rows.append(("How to check", p(
            f"'dealer-station audit verify --table {result.table_id}' on the journal with its "
            f"key: each record numbered here must carry the hash printed.", "small")))
    return KeepTogether([Spacer(1, 2 * mm), rich("Journal verification", "h2"),
                         facts(rows, widths=(32 * mm, width - 32 * mm))])


def _slip_page(view: SlipView, names: _Names, game: str, s: AccountingSettings, w: float,
               designation: str, n: int, total: int, *, compact: bool = False
               ) -> list[Flowable]:
    """One copy of the slip: everything it says but the journal's verification."""
    kind = _kind_words(view.kind)
    out: list[Flowable] = [_copy_banner(designation, n, total, view.control, w),
                           Spacer(1, 2 * mm)]
    head = f"{kind} slip {escape(view.control)}"
    if view.void is not None:
        head += f" <font color='{_ALERT}'>VOID</font>"
    out.append(Paragraph(head, _TITLE))
    rows: list[tuple[str, Flowable | str]] = [("Control number", rich(
        f"<b>{escape(view.control)}</b>", "cell"))]
    req = view.request
    if req is not None:
        asked = req.event.signers[0] if req.event.signers else req.requested.actor
        rows.append(("Request", rich(f"<b>{escape(req.label)}</b>", "cell")))
        rows.append(("Requested", f"{local(req.requested.ts)} by {names.with_role(asked)} "
                                  f"(journal record {req.requested.seq:,})"))
    else:
        rows.append(("Request", "none: signed at the table in one step (this "
                                "jurisdiction's slips have no cage signature)"))
    rows += [("Table", view.table), ("Game", game), ("Gaming day", view.gaming_day)]
    # A long note goes below, the page's whole width: every copy keeps to its page.
    long_note = bool(view.note) and len(view.note or "") > LONG_NOTE
    if view.note and not long_note:
        rows.append(("Note", view.note))
    state = (rich(f"<font color='{_ALERT}'><b>{escape(view.state)}</b></font>", "cell")
             if view.void or view.state.startswith(("In transit", "Issued")) else view.state)
    rows.append(("State", state))
    rows.append(("Total", rich(f"<b>{escape(_total(view.chips, s))}</b>", "cell")))
    left = facts(rows, widths=(27 * mm, w * 0.56 - 31 * mm))
    out.append(_side_by_side(left, _chips_grid(view.chips, s, w * 0.44, "Denomination"), w))
    if long_note:
        out.append(facts([("Note", view.note or "")], widths=(27 * mm, w - 27 * mm)))
    out.append(_signatures(view.signatures, names, w, compact=compact))
    if view.void is not None:
        out.append(_void_block(view.void, names, w))
    return out


# --- the request ------------------------------------------------------------------------------

#: Each step of a request as the request form names it.
STEP_NAMES = {"requested": "Requested at the table", "issued": "Issued at the cage",
              "in transit": "Carried by security", "received": "Received at the table",
              "voided": "Voided"}


def _step_signers(req: Request, step: str, c: Committed) -> tuple[str, ...]:
    signers = tuple(getattr(c.event, "signers", None) or (c.actor,))
    if step == "received":      # the slip of record lists every signer: the table's are last
        before = (*(req.issue.signers if req.issue else ()),
                  *(req.carry.signers if req.carry else ()))
        return signers[len(before):] if signers[:len(before)] == before else signers
    return signers


def _still_to_come(req: Request, s: AccountingSettings) -> str:
    if not req.open:
        return ""
    left = []
    if req.issued is None:
        left.append("issued at the cage (" + ", ".join(_slot(r).lower() for r in s.cage.issue)
                    + ")")
    if req.carried is None and s.cage.runner:
        left.append("carried (" + ", ".join(_slot(r).lower() for r in s.cage.runner) + ")")
    left.append("received at the table (" + ", ".join(_slot(r).lower()
                                                      for r in s.cage.receipt) + ")")
    return "; ".join(left)


def build_request_pdf(journal: Journal, ledger: Ledger, settings: AccountingSettings,
                      year: int, request_no: int, *, out: Path | str, paper: str = "A4"
                      ) -> BuiltReport:
    """The fill or credit request ``request_no`` of ``year``: the chips wanted, who asked and
    when, its state and every step so far with its time and signers; voided, VOID across the
    page. Attached: the records from the request to its last step."""
    req = ledger.requests.get((year, request_no))
    if req is None:
        raise StationError(f"no request {request_label(ledger.table, year, request_no)} at "
                           f"table {ledger.table}")
    table = ledger.table
    steps = req.steps()
    first = _record(journal, table, req.requested.seq)
    last = _record(journal, table, max(c.seq for _, c in steps))
    kind = _kind_words(req.kind)
    void = _void_of(req)
    r = ReportBuilder(kind="request", title=f"{kind} request" + (" (VOID)" if void else ""),
                      table=table, period=f"{req.label}, gaming day {req.event.gaming_day}",
                      subject=f"amounts in {settings.money.label}", paper=paper)
    r.meta.printed = local(journal.clock())
    if void is not None:
        r.meta.stamp = "VOID"
    names = _Names(journal)
    w = r.width
    head = f"{kind} request {escape(req.label)}"
    if void is not None:
        head += f" <font color='{_ALERT}'>VOID</font>"
    r.add(Paragraph(head, _TITLE))
    asked = req.event.signers[0] if req.event.signers else req.requested.actor
    state = STATE_WORDS.get(req.state, req.state)
    rows: list[tuple[str, Flowable | str]] = [
        ("Request", rich(f"<b>{escape(req.label)}</b>", "cell")),
        ("Table", table), ("Game", _game(journal, table)),
        ("Gaming day", req.event.gaming_day),
        ("Requested", f"{local(req.requested.ts)} (journal record {req.requested.seq:,})"),
        ("Requested by", names.with_role(asked))]
    if req.event.note:
        rows.append(("Note", req.event.note))
    rows.append(("State", rich(f"<b>{escape(state)}</b>", "cell")))
    if req.slip_label:
        rows.append(("Slip", f"{kind} slip {req.slip_label}, issued against this request"))
    rows.append(("Total wanted", rich(f"<b>{escape(_total(req.chips, settings))}</b>",
                                      "cell")))
    left = facts(rows, widths=(27 * mm, w * 0.56 - 31 * mm))
    r.add(_side_by_side(left, _chips_grid(req.chips, settings, w * 0.44, "Denomination"), w))
    r.heading("Steps so far")
    step_rows = []
    for step, c in steps:
        what = STEP_NAMES.get(step, step)
        if step == "issued" and req.slip_label:
            what += f": slip {req.slip_label}"
        elif step == "received":
            what += ": the slip of record"
        who = "; ".join(names.with_role(a) for a in _step_signers(req, step, c))
        step_rows.append([what, local(c.ts), who, f"{c.seq:,}"])
    r.add(grid(["Step", "Date and time", "Signed by", "Journal record"], step_rows,
               [w * 0.27, w * 0.22, w * 0.39, w * 0.12], numeric=(3,), wrap=(0, 2)))
    to_come = _still_to_come(req, settings)
    if to_come:
        r.add(p(f"Still to come: {to_come}. A request not received within "
                f"{settings.cage.alert_minutes} minutes is an alert on the pit, the cage and "
                f"the table.", "note"))
    if void is not None:
        r.add(_void_block(void, names, w))
    return r.build(out, journal.verify_table(table), first, last, data=req,
                   evidence=covered_records(journal, table, first, last))


__all__ = ["SLOT_WORDS", "Signature", "SlipView", "build_request_pdf", "build_slip_pdf",
           "slip_view"]
