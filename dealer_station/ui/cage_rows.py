"""What the cage's screen says of the requests, in words (no widgets here): the requests of
every table grouped in the order a cage cashier works them, each as one row of the list, and
one request's whole story for its sheet.

The groups, top to bottom:

- **Overdue**: open longer than the jurisdiction's ``alert_minutes`` (whatever its step),
  oldest first, each with how long it has waited: the alert;
- **To issue** (Requested): the cashier counts the chips out and signs;
- **Waiting for the runner** (Issued at the cage): security takes the slip and the chips
  (where the jurisdiction has no runner: waiting for the table);
- **In transit**: on their way with security, until the table signs on receipt;
- **Today**: received and voided in this gaming day, newest first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo

from dealer_station.accounting.cage_settings import CageSettings
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.requests import STATE_WORDS, Request, requested_at
from dealer_station.events.wording import ROLE_WORDS
from dealer_station.gaming_day import GamingCalendar

#: The list's columns.
HEADERS = ("Request", "Table", "Slip", "Total", "Chips", "Requested by", "State", "Waiting")


def clock(ts: str, zone: tzinfo | None) -> str:
    """A record's time on the casino's clock: ``14:05``."""
    moment = datetime.fromisoformat(ts)
    return (moment.astimezone(zone) if zone is not None else moment.astimezone()
            ).strftime("%H:%M")


def waited_minutes(req: Request, now: datetime) -> int:
    """Whole minutes since the request was made."""
    return max(0, int((now - requested_at(req)).total_seconds() // 60))


def waited_text(minutes: int) -> str:
    """``7 min``, ``1 h 05 min``."""
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def chips_text(chips: Chips, number: Callable[[int], str]) -> str:
    """Chips by denomination, the largest first: ``5 × 100.00, 20 × 25.00`` (each count and
    its chip kept on one line, should the text wrap)."""
    return ", ".join(f"{n}\u00a0×\u00a0{number(d)}" for d, n in reversed(chips.counts)
                     if n) or "none"


def kind_words(req: Request) -> str:
    return "Fill" if req.kind == "fill" else "Credit"


def people(actors: Iterable[str], names: Mapping[str, str]) -> str:
    """Journal actors (``sue/supervisor``) as the people's names: "Sue Supervisor and Cass
    Cashier"."""
    ids = [a.partition("/")[0] for a in actors]
    return " and ".join(names.get(i, i) for i in ids)


def last_step(req: Request) -> tuple[str, str]:
    """The request's last step and its record's time."""
    name, c = req.steps()[-1]
    return name, c.ts


@dataclass(frozen=True)
class Row:
    """One request as the list shows it (cells in the order of HEADERS)."""

    key: tuple[str, int, int]          # (table, year, request number)
    cells: tuple[str, ...]
    state: str
    late: bool


@dataclass(frozen=True)
class Group:
    """A heading of the list and its requests."""

    name: str
    heading: str
    rows: tuple[Row, ...]
    alert: bool = False


def row_of(req: Request, now: datetime, rules: CageSettings, names: Mapping[str, str],
           money: Callable[[int], str], number: Callable[[int], str],
           zone: tzinfo | None) -> Row:
    e = req.event
    late = req.overdue(now, rules.alert_minutes)
    if req.open:
        waiting = waited_text(waited_minutes(req, now)) + (" late" if late else "")
    else:
        step, ts = last_step(req)
        waiting = f"{step} {clock(ts, zone)}"
    by = people(e.signers[:1], names)
    return Row((req.table, e.year, e.request),
               (req.label, req.table, kind_words(req), money(e.total),
                chips_text(req.chips, number), f"{by} {clock(req.requested.ts, zone)}",
                STATE_WORDS[req.state], waiting),
               req.state, late)


def groups(requests: Sequence[Request], now: datetime, rules: CageSettings,
           calendar: GamingCalendar, names: Mapping[str, str], money: Callable[[int], str],
           number: Callable[[int], str]) -> list[Group]:
    """The requests of every table in the list's groups (see the module); an empty group is
    kept (its heading says none), but for Overdue, shown only when there is one."""
    zone = calendar.zone
    today = calendar.day_of(now)

    def rows(reqs: Iterable[Request]) -> tuple[Row, ...]:
        return tuple(row_of(r, now, rules, names, money, number, zone) for r in reqs)

    open_ = sorted((r for r in requests if r.open), key=requested_at)
    late = [r for r in open_ if r.overdue(now, rules.alert_minutes)]
    on_time = [r for r in open_ if r not in late]
    closed = [r for r in requests if not r.open and _day(r, calendar) == today]
    closed.sort(key=lambda r: last_step(r)[1], reverse=True)
    issued = ("Waiting for the runner · Issued at the cage" if rules.runner else
              "Waiting for the table · Issued at the cage")
    out = []
    if late:
        out.append(Group("overdue", f"Overdue · waiting over {rules.alert_minutes} min",
                         rows(late), alert=True))
    out += [Group("requested", "To issue · Requested",
                  rows(r for r in on_time if r.state == "requested")),
            Group("issued", issued, rows(r for r in on_time if r.state == "issued"))]
    if rules.runner:
        out.append(Group("in transit", "In transit · with security",
                         rows(r for r in on_time if r.state == "in transit")))
    out.append(Group("today", f"Today ({today.isoformat()}) · Received and Voided",
                     rows(closed)))
    return out


def _day(req: Request, calendar: GamingCalendar) -> date:
    return calendar.day_of(datetime.fromisoformat(last_step(req)[1]))


def slot_words(slots: Sequence[str]) -> str:
    """The signatures a step takes, in words: "a cage cashier", "a supervisor and a cage
    cashier"."""
    def a(role: str) -> str:
        w = ROLE_WORDS.get(role, role)
        return f"{'an' if w[0] in 'aeiou' else 'a'} {w}"

    return " and ".join(a(s) for s in slots)


def detail_lines(req: Request, now: datetime, rules: CageSettings, names: Mapping[str, str],
                 money: Callable[[int], str], number: Callable[[int], str],
                 zone: tzinfo | None) -> list[str]:
    """The request's story for its sheet: the chips, each step with its time and who
    signed it, and where it stands."""
    e = req.event
    lines = [f"{kind_words(req)} of {money(e.total)} for table {req.table}: "
             f"{chips_text(req.chips, number)} ({req.chips.chip_count:,} chips)."]
    lines.append(f"Requested {clock(req.requested.ts, zone)} by "
                 f"{people(e.signers, names)}." + (f" Note: {e.note}" if e.note else ""))
    issue = req.issue
    if issue is not None and req.issued is not None:
        lines.append(f"Issued {clock(req.issued.ts, zone)} as slip {req.slip_label} by "
                     f"{people(issue.signers, names)}.")
    carry = req.carry
    if carry is not None and req.carried is not None:
        lines.append(f"Carried from {clock(req.carried.ts, zone)} by "
                     f"{people(carry.signers, names)}.")
    if req.received is not None:
        lines.append(f"Received at the table {clock(req.received.ts, zone)}, signed by "
                     f"{people(req.received.actor.split('+'), names)}.")
    for voided in (req.voided, req.slip_voided):
        if voided is not None:
            v = voided.event
            signers = getattr(v, "signers", None) or voided.actor.split("+")
            lines.append(f"Voided {clock(voided.ts, zone)} by {people(signers, names)}: "
                         f"{getattr(v, 'reason', '')}.")
    if req.open:
        waited = waited_text(waited_minutes(req, now))
        late = req.overdue(now, rules.alert_minutes)
        lines.append(f"{STATE_WORDS[req.state]}; waiting {waited}"
                     + (f", over the {rules.alert_minutes} min allowed." if late else "."))
    else:
        lines.append(f"{STATE_WORDS[req.state]}.")
    return lines


__all__ = ["HEADERS", "Group", "Row", "chips_text", "clock", "detail_lines", "groups",
           "kind_words", "people", "row_of", "slot_words", "waited_minutes", "waited_text"]
