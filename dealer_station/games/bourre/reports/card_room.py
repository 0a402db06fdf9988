"""The card room's figures for Bourré (a pot game, not banked): per table and gaming day, the
hands and sessions, the house collection (money in a cash game), the pots carried in and out
and returned, and the chip reconciliation, read from the journal alone.

Bourré's players play against each other: what they put in and take out is not the house's.
The house earns its collection only. So this report shows no "wagered, paid, hold"; it shows
the collection and proves, hand by hand and session by session, that every chip is where the
journal says it is:

    chips the players started with + the pot carried in
        = chips in the players' stacks + the pot + the house collection

A session's pot at its end is then carried to the next session (``pot.carry``) or returned
by a supervisor (``pot.return``). A hand belongs to the gaming day its ``hand.close`` falls
in; a session's balance is shown on the day it ends (or, under way, on the last day shown).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.journal import Journal, Record
from dealer_station.games.bourre.events import (
    CODEC,
    HandClosed,
    HandOpened,
    HandVoided,
    HouseCollected,
    PotCarried,
    PotReturned,
    SessionClosed,
    SessionOpened,
)
from dealer_station.games.bourre.reports.card_room_bank import (
    Bank,
    Collection,
    RakeBox,
    bank_of,
    rake_box_of,
)
from dealer_station.games.bourre.reports.session_data import BETWEEN, Decoded
from dealer_station.gaming_day import GamingCalendar, Span
from dealer_station.money import CHIPS, Money

#: The record kinds the card-room figures are read from.
KINDS = (SessionOpened.KIND, SessionClosed.KIND, HandOpened.KIND, HandClosed.KIND,
         HandVoided.KIND, HouseCollected.KIND, PotCarried.KIND, PotReturned.KIND)


@dataclass(frozen=True)
class Chips:
    """What a session's chips are: tournament chips (no money) or cash chips."""

    cash: bool = False
    currency: str = ""
    minor_units: int = 1
    chip_value: int = 0

    def money(self, chips: int) -> int | None:
        """``chips`` in minor units; None for tournament chips."""
        return chips * self.chip_value if self.cash else None

    @property
    def unit(self) -> Money:
        """What the session's amounts are written in: its money, or whole chips."""
        return Money(self.currency, self.minor_units) if self.cash else CHIPS

    @property
    def words(self) -> str:
        if not self.cash:
            return "tournament chips (no money)"
        return f"cash chips worth {self.unit.text(self.chip_value)} each"


@dataclass
class HandLine:
    """One settled hand: the chips before and after it, as its ``hand.close`` says."""

    round_no: int
    session_id: str
    opened: Decoded[HandOpened]
    closed: Decoded[HandClosed]
    collection: HouseCollected | None = None

    @property
    def stacks_before(self) -> int:
        return sum(int(v) for v in self.closed.event.chips_before.values())

    @property
    def stacks_after(self) -> int:
        return sum(int(v) for v in self.closed.event.chips.values())

    @property
    def pot_before(self) -> int:
        return self.closed.event.pot_before

    @property
    def pot_after(self) -> int:
        return self.closed.event.pot

    @property
    def house(self) -> int:
        return self.closed.event.house

    @property
    def balanced(self) -> bool:
        return (self.stacks_before + self.pot_before
                == self.stacks_after + self.pot_after + self.house)


@dataclass
class PotMove:
    """A pot carried in or out of a session, or returned (who, why, to whom)."""

    session_id: str
    pot: int
    amount: int | None
    record: Record
    by: str = ""
    reason: str = ""
    shares: Mapping[str, int] = field(default_factory=dict)
    players: Mapping[str, str] = field(default_factory=dict)
    #: A pot carried in: the session it was carried from.
    from_session: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"session_id": self.session_id, "chips": self.pot,
                               "amount": self.amount, "seq": self.record.seq,
                               "time": self.record.ts}
        if self.from_session:
            out["from_session"] = self.from_session
        if self.by or self.reason:
            out |= {"by": self.by, "reason": self.reason, "shares": dict(self.shares),
                    "players": dict(self.players)}
        return out


@dataclass
class SessionLedger:
    """One session's chips from its opening to its end, and where its last pot went."""

    opened: Decoded[SessionOpened]
    chips: Chips
    closed: Decoded[SessionClosed] | None = None
    hands: list[HandLine] = field(default_factory=list)
    voided: list[Decoded[HandVoided]] = field(default_factory=list)
    carried_out: PotMove | None = None
    returned: PotMove | None = None
    #: The pot the journal says was waiting when the session opened (None: none waiting).
    waiting: PotMove | None = None
    breaks: list[str] = field(default_factory=list)

    @property
    def session_id(self) -> str:
        return self.opened.event.session_id

    @property
    def started_with(self) -> int:
        return sum(int(v) for v in self.opened.event.chips.values())

    @property
    def pot_in(self) -> int:
        return self.opened.event.pot

    @property
    def collected(self) -> int:
        return sum(h.house for h in self.hands)

    @property
    def stacks_end(self) -> int:
        """The players' chips at the end (the standings), or after the last hand so far."""
        if self.closed is not None:
            return sum(int(s["chips"]) for s in self.closed.event.standings)
        track = {str(k): int(v) for k, v in self.opened.event.chips.items()}
        for h in self.hands:
            track.update({str(k): int(v) for k, v in h.closed.event.chips.items()})
        return sum(track.values())

    @property
    def pot_end(self) -> int:
        if self.closed is not None:
            return self.closed.event.pot
        return self.hands[-1].pot_after if self.hands else self.pot_in

    @property
    def balanced(self) -> bool:
        return self.started_with + self.pot_in == self.stacks_end + self.pot_end + self.collected

    @property
    def unaccounted(self) -> int:
        """Chips left in the pot at the end that neither a carry nor a return accounts for
        (a journal written before pots were carried)."""
        if self.closed is None or self.carried_out is not None or self.returned is not None:
            return 0
        return self.pot_end

    def to_json(self) -> dict[str, Any]:
        c = self.chips
        return {
            "session_id": self.session_id, "opened": self.opened.ts,
            "closed": self.closed.ts if self.closed else None,
            "hands": len(self.hands), "voided": len(self.voided),
            "started_with": self.started_with, "pot_in": self.pot_in,
            "stacks_end": self.stacks_end, "pot_end": self.pot_end,
            "collected": self.collected, "collected_amount": c.money(self.collected),
            "pot_end_went": self.pot_end_went, "balanced": self.balanced,
            "breaks": list(self.breaks),
        }

    @property
    def pot_end_went(self) -> str:
        if self.closed is None:
            return "session under way"
        if self.pot_end == 0:
            return "no pot left"
        if self.returned is not None:
            return "returned"
        if self.carried_out is not None:
            return "carried"
        return "not recorded"


@dataclass
class CardRoomDay:
    """One table's card-room figures for one gaming day (or the part of it in the period)."""

    table: str
    day: date
    span: Span
    hands: list[HandLine] = field(default_factory=list)
    voided: int = 0
    sessions: list[SessionLedger] = field(default_factory=list)
    carried_in: list[PotMove] = field(default_factory=list)
    carried_out: list[PotMove] = field(default_factory=list)
    returned: list[PotMove] = field(default_factory=list)
    unaccounted: list[PotMove] = field(default_factory=list)
    play_seconds: int = 0
    breaks: list[str] = field(default_factory=list)
    #: The card room's own accounting of the (whole) gaming day: its bank, and its rake
    #: against the counted rake box.
    bank: Bank = field(default_factory=Bank)
    rake_box: RakeBox | None = None

    @property
    def collected(self) -> int:
        return sum(h.house for h in self.hands)

    @property
    def collected_amount(self) -> int | None:
        """The collection in money (minor units), from the ``bourre.collection`` records;
        None when no hand of the day was played for cash."""
        amounts = [h.collection.amount for h in self.hands if h.collection is not None]
        return sum(amounts) if amounts else None

    @property
    def hands_per_hour(self) -> float | None:
        if self.play_seconds <= 0:
            return None
        return len(self.hands) * 3600 / self.play_seconds

    @property
    def chips(self) -> Chips:
        kinds = {s.chips for s in self.sessions}
        return kinds.pop() if len(kinds) == 1 else Chips()

    @property
    def balanced(self) -> bool:
        return not self.breaks

    def to_json(self) -> dict[str, Any]:
        c = self.chips
        mixed = len({s.chips for s in self.sessions}) > 1
        hph = self.hands_per_hour
        return {
            "table": self.table, "gaming_day": self.day.isoformat(),
            "from": self.span.start.isoformat(), "to": self.span.end.isoformat(),
            "chips": "mixed" if mixed else ("cash" if c.cash else "tournament"),
            "currency": c.currency or None, "minor_units": c.minor_units if c.cash else None,
            "chip_value": c.chip_value if c.cash else None,
            "hands": len(self.hands), "voided": self.voided,
            "sessions": [s.to_json() for s in self.sessions],
            "collection": {"chips": self.collected, "amount": self.collected_amount},
            "pots_carried_in": [m.to_json() for m in self.carried_in],
            "pots_carried_out": [m.to_json() for m in self.carried_out],
            "pots_returned": [m.to_json() for m in self.returned],
            "pots_not_recorded": [m.to_json() for m in self.unaccounted],
            "reconciliation": {
                "hands_checked": len(self.hands),
                "hands_balanced": sum(1 for h in self.hands if h.balanced),
                "sessions_checked": len(self.sessions),
                "sessions_balanced": sum(1 for s in self.sessions if s.balanced),
                "breaks": list(self.breaks), "ok": not self.breaks},
            "play_seconds": self.play_seconds,
            "hands_per_hour": None if hph is None else round(hph, 1),
            "bank": self.bank.to_json(),
            "rake_box": self.rake_box.to_json() if self.rake_box is not None else None,
        }


# --- reading the journal ---------------------------------------------------------------------

def _chips_of(journal: Journal, table: str, opened: SessionOpened,
              cache: dict[str, Chips]) -> Chips:
    """The session's chips, from its configuration version's profile."""
    version = opened.config_version
    if version not in cache:
        stored = journal.config(table, version)
        profiles = (stored.content if stored else {}).get("profiles", {})
        profile = profiles.get(opened.profile, {}) if isinstance(
            profiles, Mapping) else {}
        money = profile.get("money") if profile.get("chips") == "cash" else None
        cache[version] = Chips(True, str(money["currency"]), int(money["minor_units"]),
                               int(money["chip_value"])) if isinstance(money, Mapping) \
            else Chips()
    return cache[version]


def read_sessions(journal: Journal, table: str, records: Iterable[Record] | None = None
                  ) -> list[SessionLedger]:
    """Every Bourré session of ``table`` with its hands, collections and pots, checked.

    ``records``: the table's records of :data:`KINDS` in order (read here when None)."""
    if records is None:
        records = journal.records(table, kinds=KINDS)
    cache: dict[str, Chips] = {}
    sessions: list[SessionLedger] = []
    current: SessionLedger | None = None
    last_closed: SessionLedger | None = None
    waiting: PotMove | None = None
    opens: dict[int, Decoded[HandOpened]] = {}
    collections: dict[int, HouseCollected] = {}
    carries: dict[int, PotMove] = {}
    for rec in records:
        e = (BETWEEN if current is None else CODEC).decode(rec.kind, rec.payload)
        if isinstance(e, SessionOpened):
            current = SessionLedger(Decoded(rec, e), _chips_of(journal, table, e, cache),
                                    waiting=waiting)
            waiting = None
            sessions.append(current)
            opens, collections = {}, {}
        elif isinstance(e, SessionClosed) and current is not None:
            current.closed = Decoded(rec, e)
            last_closed, current = current, None
        elif isinstance(e, PotCarried):
            move = PotMove(e.session_id, e.pot, e.pot * e.chip_value if e.currency else None,
                           rec)
            carries[rec.seq] = move
            if last_closed is not None and last_closed.session_id == move.session_id:
                last_closed.carried_out = move
            waiting = move
        elif isinstance(e, PotReturned):
            carry = carries.get(e.carry_seq)
            move = PotMove(e.session_id, e.pot, carry.amount if carry is not None else None,
                           rec, rec.actor, e.reason,
                           {str(k): int(v) for k, v in e.shares.items()},
                           {str(k): str(v) for k, v in e.players.items()})
            owner = next((s for s in reversed(sessions) if s.session_id == move.session_id),
                         None)
            if owner is not None:
                owner.returned = move
            waiting = None
        elif current is not None and rec.round_no is not None:
            if isinstance(e, HandOpened):
                opens[rec.round_no] = Decoded(rec, e)
            elif isinstance(e, HouseCollected):
                collections[rec.round_no] = e
            elif isinstance(e, HandClosed) and rec.round_no in opens:
                current.hands.append(HandLine(rec.round_no, current.session_id,
                                              opens[rec.round_no], Decoded(rec, e),
                                              collections.get(rec.round_no)))
            elif isinstance(e, HandVoided):
                current.voided.append(Decoded(rec, e))
    for s in sessions:
        check_session(s)
    return sessions


def check_session(s: SessionLedger) -> None:
    """Fill ``s.breaks``: every way its chips fail to reconcile."""
    out = s.breaks
    out.clear()
    want_in = s.waiting.pot if s.waiting is not None else 0
    if s.pot_in != want_in:
        out.append(f"session {s.session_id} opened with a pot of {s.pot_in} chips, but "
                   f"{want_in} were waiting from the last session")
    stacks = {str(k): int(v) for k, v in s.opened.event.chips.items()}
    pot = s.pot_in
    for h in s.hands:
        before = {str(k): int(v) for k, v in h.closed.event.chips_before.items()}
        if any(stacks.get(k) != v for k, v in before.items()) or h.pot_before != pot:
            out.append(f"hand {h.round_no} began with chips {before} and a pot of "
                       f"{h.pot_before}, but the hand before left {stacks} and {pot}")
        if not h.balanced:
            out.append(f"hand {h.round_no}: {h.stacks_before} in stacks + {h.pot_before} in "
                       f"the pot before it, but {h.stacks_after} + {h.pot_after} + "
                       f"{h.house} collected after it")
        c = h.collection
        if s.chips.cash:
            if c is None:
                out.append(f"hand {h.round_no}: a cash hand with no collection record")
            elif (c.chips != h.house or c.amount != h.house * c.chip_value
                  or c.chip_value != s.chips.chip_value):
                out.append(f"hand {h.round_no}: the collection record says "
                           f"{c.chips} chips = {c.amount} minor units; "
                           f"the hand collected {h.house} chips of {s.chips.chip_value}")
        stacks.update({str(k): int(v) for k, v in h.closed.event.chips.items()})
        pot = h.pot_after
    if s.closed is not None:
        ends = {str(st["seat"]): int(st["chips"]) for st in s.closed.event.standings}
        if any(stacks.get(k, 0) != v for k, v in ends.items()) or s.pot_end != pot:
            out.append(f"session {s.session_id} ended with stacks {ends} and a pot of "
                       f"{s.pot_end}, but its last hand left {stacks} and {pot}")
        if s.closed.event.house != s.collected:
            out.append(f"session {s.session_id} says it collected "
                       f"{s.closed.event.house} chips; its hands collected "
                       f"{s.collected}")
    if not s.balanced:
        out.append(f"session {s.session_id}: started with {s.started_with} + pot {s.pot_in}, "
                   f"but {s.stacks_end} in stacks + pot {s.pot_end} + {s.collected} collected")
    moved = (s.carried_out.pot if s.carried_out else 0)
    if s.carried_out is not None and moved != s.pot_end:
        out.append(f"session {s.session_id} left {s.pot_end} chips in the pot but carried "
                   f"{moved}")
    if s.returned is not None and s.returned.pot != s.pot_end:
        out.append(f"session {s.session_id} left {s.pot_end} chips in the pot but "
                   f"{s.returned.pot} were returned")
    if s.returned is not None and sum(s.returned.shares.values()) != s.returned.pot:
        out.append(f"the pot returned from session {s.session_id} ({s.returned.pot} chips) "
                   f"was shared out as {sum(s.returned.shares.values())}")


def card_room_tables(journal: Journal, table: str | None = None) -> list[str]:
    """The tables whose journal holds a Bourré session (or just ``table``)."""
    tables = [table] if table else journal.tables()
    return [t for t in tables
            if next(journal.records(t, kinds=[SessionOpened.KIND]), None) is not None]


def _overlap(a: datetime, b: datetime, span: Span) -> int:
    start, end = max(a, span.start), min(b, span.end)
    return max(0, int((end - start).total_seconds()))


def days_of(calendar: GamingCalendar, start: datetime, end: datetime) -> list[Span]:
    """The gaming days that ``[start, end)`` touches, each cut to it."""
    first = calendar.day_of(start)
    last = calendar.day_of(end - timedelta(microseconds=1))
    out = []
    for span in calendar.days(first, last):
        s, e = max(span.start, start), min(span.end, end)
        if s < e:
            out.append(Span(span.label, s, e))
    return out


def gather_card_room(journal: Journal, table: str, calendar: GamingCalendar,
                     start: datetime | None = None, end: datetime | None = None, *,
                     settings: AccountingSettings | None = None) -> list[CardRoomDay]:
    """``table``'s card-room figures for each gaming day of ``[start, end)`` (default: from
    the first record to the last), each with its bank and its rake against the counted rake
    box (``settings``: the accounting settings' money and variance threshold, default
    ``config/accounting.toml``'s). Days without a hand, a session or a record of the bank or
    the rake box are left out."""
    records = list(journal.records(table, kinds=KINDS))
    sessions = read_sessions(journal, table, records)
    if not records:
        return []
    if settings is None:
        from dealer_station.gameconfig import load_accounting_settings

        settings = load_accounting_settings()
    everything = start is None and end is None
    t0 = datetime.fromisoformat(records[0].ts)
    t_last = datetime.fromisoformat(records[-1].ts)
    start = start or t0
    end = end or (t_last + timedelta(seconds=1))
    days: list[CardRoomDay] = []
    for span in days_of(calendar, start, end):
        day = CardRoomDay(table, calendar.day_of(span.start), span)

        def inside(at: Record | Decoded[Any], span: Span = span) -> bool:
            return datetime.fromisoformat(at.ts) in span

        for s in sessions:
            opened = datetime.fromisoformat(s.opened.ts)
            closed = (datetime.fromisoformat(s.closed.ts) if s.closed else
                      datetime.fromisoformat(s.hands[-1].closed.ts) if s.hands else opened)
            hands = [h for h in s.hands if inside(h.closed)]
            voids = [v for v in s.voided if inside(v)]
            touches = hands or voids or inside(s.opened) or (s.closed and inside(s.closed)) \
                or (opened < span.start and closed >= span.end)
            if not touches:
                continue
            day.sessions.append(s)
            day.hands.extend(hands)
            day.voided += len(voids)
            day.play_seconds += _overlap(opened, closed, span)
            if inside(s.opened) and s.pot_in:
                day.carried_in.append(PotMove(
                    s.session_id, s.pot_in, s.chips.money(s.pot_in), s.opened.record,
                    from_session=s.waiting.session_id if s.waiting else ""))
            # A pot carried and returned on the same day is counted once, as returned: the
            # same chips are not also "carried out".
            if s.carried_out is not None and inside(s.carried_out.record) and not (
                    s.returned is not None and inside(s.returned.record)):
                day.carried_out.append(s.carried_out)
            if s.returned is not None and inside(s.returned.record):
                day.returned.append(s.returned)
            if s.closed is not None and inside(s.closed) and s.unaccounted:
                day.unaccounted.append(PotMove(s.session_id, s.unaccounted,
                                               s.chips.money(s.unaccounted),
                                               s.closed.record))
            # A session's own checks are printed on the day it ends (or the last day shown).
            ends_here = (s.closed is not None and inside(s.closed)) or (
                s.closed is None and span.end >= end)
            if ends_here:
                day.breaks.extend(s.breaks)
        if day.sessions:
            days.append(day)
    _accounting(journal, table, calendar, settings, sessions, days, start, end, everything)
    return days


def _accounting(journal: Journal, table: str, calendar: GamingCalendar,
                settings: AccountingSettings, sessions: list[SessionLedger],
                days: list[CardRoomDay], start: datetime, end: datetime,
                everything: bool) -> None:
    """Each day's bank and rake box, from the table's accounting records; a day the period
    touches with a record of the bank or the box but no session is added (in order)."""
    from dealer_station.table.accounting import TableAccounting

    ledger = TableAccounting(journal, table, settings, calendar).ledger()
    shown = {d.day for d in days}
    for gaming_day in sorted(ledger.days):
        if gaming_day in shown:
            continue
        whole = calendar.day(gaming_day)
        cut = Span(whole.label, max(whole.start, start), min(whole.end, end))
        if everything:
            cut = whole
        elif cut.start >= cut.end:
            continue
        days.append(CardRoomDay(table, gaming_day, cut))
    days.sort(key=lambda d: d.day)
    for day in days:
        whole = calendar.day(day.day)
        # The rake box holds the whole gaming day's rake, whatever part of it is shown.
        collections = [Collection(h.collection.chips, h.collection.amount,
                                  h.collection.currency, h.collection.minor_units)
                       for s in sessions for h in s.hands
                       if h.collection is not None
                       and datetime.fromisoformat(h.closed.ts) in whole]
        day.bank = bank_of(ledger, day.day)
        day.rake_box = rake_box_of(ledger, day.day, collections, settings)


def rake_variances(journal: Journal, table: str, settings: AccountingSettings,
                   calendar: GamingCalendar, first: date | None, last: date | None
                   ) -> list[tuple[date, int | None]]:
    """Each gaming day from ``first`` to ``last`` whose rake box was counted, with the box
    against the day's rake (the count room's ``rake_variances`` part)."""
    start = calendar.day(first).start if first is not None else None
    end = calendar.day(last).end if last is not None else None
    return [(d.day, d.rake_box.variance)
            for d in gather_card_room(journal, table, calendar, start, end, settings=settings)
            if d.rake_box is not None and d.rake_box.counted is not None]
