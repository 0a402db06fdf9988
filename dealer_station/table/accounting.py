"""A table's chip tray and slips, journaled in the table's own chain (docs/accounting.md).

Every action is checked against the chain as it stands (the :class:`Ledger` of the table's
accounting records, each checked against its keyed hash as it is read) before anything is
written, and again inside the write: if another writer added an accounting record in between,
the action is decided again, so two slips never take one number.

Two people sign every count: the opener and closer a dealer and a supervisor (an operator may
stand for the supervisor); the soft count's drop two different accounting users. Fills and
credits go through the cage (table/cage.py) where the jurisdiction says so, else a dealer and
a supervisor sign them at the table; a void takes the jurisdiction's two signers and a
reason. The callers sign them in by PIN (``Users.authenticate``) and hand over the signed-in
users.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import TypeVar, cast

from dealer_station.accounting.chips import Chips, ChipsError, check_denominations
from dealer_station.accounting.figures import Play
from dealer_station.accounting.ledger import AccountingRefused, Ledger
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.accounting.shifts import shift_index
from dealer_station.audit import schema
from dealer_station.audit.journal import Entry, Journal, Record, iso_utc
from dealer_station.audit.users import User
from dealer_station.events.accounting import (
    CODEC,
    KINDS,
    SLIP_KINDS,
    BuyIn,
    CreditSlip,
    DayPlayed,
    DropCounted,
    FillSlip,
    ShiftPlayed,
    SlipVoided,
    TrayClosed,
    TrayDifference,
    TrayOpened,
    TrayShiftCounted,
)
from dealer_station.events.base import Codec, Event
from dealer_station.events.table import StationStarted
from dealer_station.gaming_day import GamingCalendar
from dealer_station.table.parts import Wins
from dealer_station.table.wins import SpanWins, WinsBySpan

J = schema.journal
SUPERVISING = ("supervisor", "operator")
TENDERS = ("cash", "marker")
MAX_NOTE = 500
_STARTUP = Codec((StationStarted,))
E = TypeVar("E", bound=Event)


def two_signers(first: User | None, second: User | None, *, first_roles: Sequence[str],
                second_roles: Sequence[str], action: str) -> tuple[User, User]:
    """Refuse unless two different people of the right roles signed."""
    if first is None or second is None:
        raise AccountingRefused(f"{action} needs two signatures ({'/'.join(first_roles)} and "
                                f"{'/'.join(second_roles)}); only one was given")
    if first.user_id == second.user_id:
        raise AccountingRefused(f"{action} needs two different people; {first.user_id} "
                                f"cannot sign twice")
    for user, roles in ((first, first_roles), (second, second_roles)):
        if user.role not in roles:
            article = "an" if roles[0][0] in "aeiou" else "a"
            raise AccountingRefused(f"{action}: {user.user_id} is a {user.role}; this "
                                    f"signature is for {article} {' or '.join(roles)} user")
        if not user.active:
            raise AccountingRefused(f"{action}: {user.user_id} is not an active user")
    return first, second


def _actor(*users: User) -> str:
    return "+".join(u.actor for u in users)


def table_game(journal: Journal, table_id: str) -> str | None:
    """The game the table last started up with (None: never started)."""
    startups = journal.events(table_id, kinds=[StationStarted.KIND])
    if not startups:
        return None
    e = _STARTUP.decode(startups[-1].kind, startups[-1].payload)
    return e.game if isinstance(e, StationStarted) else None


def accounting_event(rec: Record, cls: type[E]) -> E:
    """An accounting record (one :class:`TableAccounting` wrote) read as its event ``cls``."""
    return CODEC.decode_as(cls, rec.seq, rec.kind, rec.payload)


def slip_event(rec: Record) -> FillSlip | CreditSlip:
    """A fill or credit slip's record read as its event."""
    # decode_as has checked it is one of the two.
    return cast(FillSlip | CreditSlip,
                CODEC.decode_as((FillSlip, CreditSlip), rec.seq, rec.kind, rec.payload))


def table_wins(journal: Journal, table_id: str) -> Wins | None:
    """The ``wins`` part of the table's game, if it has one (a banked game)."""
    from dealer_station import registry as games
    from dealer_station.table.parts import WINS

    game = table_game(journal, table_id)
    found = games.REGISTRY.get(game) if game is not None else None
    return found.supplies(WINS) if found is not None else None


def table_ledger(journal: Journal, table_id: str) -> Ledger:
    """Every accounting record of the table, in chain order, each checked against its keyed
    hash as it is read (what the accounting, the cage and the pit decide and show from)."""
    records = journal.events(table_id, kinds=list(KINDS))
    return Ledger.of(table_id, (
        CODEC.committed(r.seq, r.ts, r.actor, r.round_no, r.kind, r.payload)
        for r in sorted(records, key=lambda r: r.seq)))


def span_play(span: SpanWins) -> Play:
    """A span's summed rounds as the accounting's :class:`Play`."""
    return Play(span.rounds, span.wagered, span.returned, span.paid, span.computed_win,
                span.theoretical_win, span.voided_returned)


class TableAccounting:
    """The accounting of one table: read from its chain, written to it."""

    def __init__(self, journal: Journal, table_id: str, settings: AccountingSettings,
                 calendar: GamingCalendar) -> None:
        self.journal = journal
        self.table_id = table_id
        self.settings = settings
        self.calendar = calendar

    # -- reading ---------------------------------------------------------------------------

    def ledger(self) -> Ledger:
        return table_ledger(self.journal, self.table_id)

    def now(self) -> datetime:
        return self.journal.clock()

    def today(self) -> date:
        return self.calendar.day_of(self.now())

    def shift_now(self) -> str:
        """The name of the shift the journal's clock is in."""
        return self.calendar.shift_of(self.now())[1].name

    def shift_named(self, name: str) -> str:
        """A configured shift's name as configured (``graveyard`` -> ``Graveyard``)."""
        for shift in self.calendar.shifts:
            if shift.name.casefold() == name.strip().casefold():
                return shift.name
        raise AccountingRefused(f"no shift {name!r}: the shifts are "
                                f"{', '.join(s.name for s in self.calendar.shifts)} "
                                f"([gaming_day] of station.toml)")

    @property
    def last_shift(self) -> str:
        return self.calendar.shifts[-1].name

    def chips(self, chips: Chips, what: str) -> Chips:
        check_denominations(chips, self.settings.denominations, what)
        return chips

    # -- checks without signatures (a command refuses bad input before anyone signs in) ----

    def check(self, action: str, *, chips: Chips | None = None, number: int | None = None,
              gaming_day: date | None = None, shift: str | None = None) -> None:
        ledger = self.ledger()
        day = self.today()
        now_shift = self.shift_now()
        if chips is not None:
            self.chips(chips, action)
        if action == "opener":
            ledger.check_opener(day)
        elif action == "closer":
            ledger.check_closer(day, now_shift)
        elif action == "shift-count":
            ledger.check_shift_count(day, now_shift, last_shift=self.last_shift)
        elif action in ("fill", "credit"):
            if self.settings.cage.through_cage:
                raise AccountingRefused(
                    f"a {action}: this jurisdiction's slips are issued by the cage against a "
                    f"request (dealer-station cage request); the table signs on receipt")
            if chips is not None and chips.total <= 0:
                raise ChipsError(f"{action}: no chips given")
            ledger.check_open_shift(day, now_shift, action)
            ledger.check_number(action, day.year, number)
        elif action == "buy-in":
            ledger.check_open_shift(day, now_shift, "buy-in")
        elif action == "drop":
            assert gaming_day is not None
            self.check_drop(ledger, gaming_day, shift)

    def check_drop(self, ledger: Ledger, gaming_day: date, shift: str | None) -> None:
        if shift is None:
            ledger.check_drop(gaming_day, day_over=self.now() >= self.calendar.day(
                gaming_day).end)
            return
        name = self.shift_named(shift)
        day = ledger.days.get(gaming_day)
        closed_by_closer = False
        if day is not None and day.closer is not None:
            spans = self.calendar.shifts_of(gaming_day)
            mine = [s.name for s in self.calendar.shifts].index(name)
            closed_by_closer = shift_index(spans, day.closer.ts) <= mine
        ledger.check_shift_drop(gaming_day, name,
                                shift_over=self.now() >= self.calendar.shift(gaming_day,
                                                                             name).end,
                                closed_by_closer=closed_by_closer)

    # -- writing ---------------------------------------------------------------------------

    def write(self, decide: Callable[[Ledger, date], list[tuple[Event, str]]]) -> list[Record]:
        """Decide against the table's accounting as it stands and journal the decision,
        through the journal's one way in: the decision is made once the chain's writer lock
        is held, so no other record of the table (another process's slip, a round's close
        while a day is summed) can arrive between the ledger read and the commit."""
        def entries() -> list[Entry]:
            return [Entry(e, actor) for e, actor in decide(self.ledger(), self.today())]

        records = self.journal.write(self.table_id, entries)
        self.journal.anchor(records[-1])
        return records

    def opener(self, chips: Chips, dealer: User | None, supervisor: User | None) -> list[Record]:
        d, s = two_signers(dealer, supervisor, first_roles=("dealer",),
                           second_roles=SUPERVISING, action="the opener")
        self.chips(chips, "the opener")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            ledger.check_opener(day)
            prev = ledger.closer_before(day)
            prev_total = prev.event.total if prev is not None else None  # type: ignore[attr-defined]
            out: list[tuple[Event, str]] = [(TrayOpened(
                day.isoformat(), chips.to_payload(), chips.total, (d.actor, s.actor),
                prev.seq if prev is not None else None, prev_total), _actor(d, s))]
            if prev is not None:
                before = Chips.from_payload(prev.event.chips)  # type: ignore[attr-defined]
                diff = chips.total - before.total
                by_denom = {str(k): chips.count(k) - before.count(k)
                            for k in sorted(set(chips.as_dict()) | set(before.as_dict()))
                            if chips.count(k) != before.count(k)}
                if abs(diff) > self.settings.inventory_tolerance or (
                        by_denom and self.settings.inventory_tolerance == 0):
                    out.append((TrayDifference(day.isoformat(), chips.total, prev.seq,
                                               before.total, diff, by_denom), "station"))
            return out

        return self.write(decide)

    def closer(self, chips: Chips, dealer: User | None, supervisor: User | None) -> Record:
        """The closer, and right after it what the station settled in the day (``day.play``,
        for a game whose rounds the house banks)."""
        d, s = two_signers(dealer, supervisor, first_roles=("dealer",),
                           second_roles=SUPERVISING, action="the closer")
        self.chips(chips, "the closer")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            ledger.check_closer(day, self.shift_now())
            out: list[tuple[Event, str]] = [(TrayClosed(
                day.isoformat(), chips.to_payload(), chips.total, (d.actor, s.actor)),
                _actor(d, s))]
            played = self.day_played(day)
            if played is not None:
                out.append((played, "station"))
            return out

        return self.write(decide)[0]

    def shift_count(self, chips: Chips, dealer: User | None, supervisor: User | None
                    ) -> Record:
        """The shift-change inventory: the tray counted at the end of the shift the clock is
        in, signed by the outgoing shift's dealer and a supervisor (or operator). It closes
        this shift and opens the next; the day's last shift is closed by the closer."""
        d, s = two_signers(dealer, supervisor, first_roles=("dealer",),
                           second_roles=SUPERVISING, action="the shift count")
        self.chips(chips, "the shift count")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            shift = self.shift_now()
            ledger.check_shift_count(day, shift, last_shift=self.last_shift)
            return [(TrayShiftCounted(day.isoformat(), shift, chips.to_payload(), chips.total,
                                      (d.actor, s.actor)), _actor(d, s))]

        return self.write(decide)[0]

    def day_played(self, day: date) -> DayPlayed | None:
        """The day's settled rounds summed, in all and shift by shift (each round in the shift
        of the gaming calendar it closed in), from one read of the day's rounds (None for a
        game without a ``wins`` part)."""
        wins = table_wins(self.journal, self.table_id)
        if wins is None:
            return None
        head = self.journal.last(self.table_id)
        through = head.seq if head is not None else 0
        spans = self.calendar.shifts_of(day)
        shifts = [Play() for _ in spans]
        if isinstance(wins, WinsBySpan):
            summed = wins.by_span(self.journal, self.table_id,
                                  [(s.start, s.end) for s in spans], through_seq=through)
            for play, s in zip(shifts, summed, strict=True):
                play.add(span_play(s))
        else:
            for w in wins(self.journal, self.table_id, spans[0].start, spans[-1].end):
                shifts[shift_index(spans, w.closed)].add(Play(
                    1, w.wagered, w.returned, w.paid, w.computed_win, w.theoretical_win,
                    w.voided_returned))
        play = Play()
        for p in shifts:
            play.add(p)
        return DayPlayed(day.isoformat(), play.rounds, play.wagered, play.returned, play.paid,
                         play.computed_win, play.theoretical_text(), through,
                         play.voided_returned, tuple(ShiftPlayed(
                             shift.name, iso_utc(span.start), iso_utc(span.end), p.rounds,
                             p.wagered, p.returned, p.paid, p.computed_win,
                             p.theoretical_text(), p.voided_returned).to_json()
                             for shift, span, p in zip(self.calendar.shifts, spans, shifts,
                                                       strict=True)))

    def slip(self, kind: str, chips: Chips, dealer: User | None, supervisor: User | None, *,
             number: int | None = None, note: str | None = None) -> Record:
        """A fill or credit signed at the table in one step, where the jurisdiction has no
        cage workflow (``[cage]`` without a cage signature); ``number`` (a pre-printed
        slip's) must be the next one."""
        cls = SLIP_KINDS.get(kind)
        if cls is None:
            raise AccountingRefused(f"unknown slip {kind!r}: fill or credit")
        if self.settings.cage.through_cage:
            raise AccountingRefused(
                f"a {kind}: this jurisdiction's slips are issued by the cage against a "
                f"request (dealer-station cage request); the table signs on receipt")
        d, s = two_signers(dealer, supervisor, first_roles=("dealer",),
                           second_roles=SUPERVISING, action=f"a {kind}")
        self.chips(chips, kind)
        if chips.total <= 0:
            raise ChipsError(f"{kind}: no chips given")
        if note is not None:
            note = note.strip() or None
            if note is not None and len(note) > MAX_NOTE:
                raise AccountingRefused(f"{kind}: the note is longer than {MAX_NOTE} "
                                        f"characters")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            ledger.check_open_shift(day, self.shift_now(), kind)
            n = ledger.check_number(kind, day.year, number)
            return [(cls(n, day.year, day.isoformat(), chips.to_payload(), chips.total,
                         (d.actor, s.actor), note), _actor(d, s))]

        return self.write(decide)[0]

    def buy_in(self, tender: str, amount: int, chips: Chips, dealer: User | str, *,
               seat: int | None = None, marker: str | None = None) -> Record:
        """Cash or a marker for chips: the chips given must be worth the amount."""
        if tender not in TENDERS:
            raise AccountingRefused(f"buy-in: tender {tender!r} is not one of "
                                    f"{', '.join(TENDERS)}")
        if type(amount) is not int or amount <= 0:
            raise AccountingRefused(f"buy-in: the amount must be a whole number of minor "
                                    f"units above 0, got {amount!r}")
        self.chips(chips, "buy-in")
        if chips.total != amount:
            raise AccountingRefused(f"buy-in: the chips given are worth {chips.total}, the "
                                    f"{tender} is {amount}; they must be equal")
        if tender == "marker" and not (marker or "").strip():
            raise AccountingRefused("buy-in: a marker needs its number (--marker)")
        actor = dealer if isinstance(dealer, str) else dealer.actor

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            ledger.check_open_shift(day, self.shift_now(), "buy-in")
            return [(BuyIn(day.isoformat(), tender, amount, chips.to_payload(), seat,
                           marker.strip() if marker else None), actor)]

        return self.write(decide)[0]

    def drop(self, gaming_day: date, cash: int, markers: int, first: User | None,
             second: User | None, *, shift: str | None = None) -> Record:
        """The soft count's drop of a gaming day, or of one of its shifts (``shift``: the drop
        boxes changed at the shift change)."""
        shift_name = self.shift_named(shift) if shift is not None else None
        a, b = two_signers(first, second, first_roles=("accounting",),
                           second_roles=("accounting",), action="the soft count's drop")
        for name, value in (("cash", cash), ("markers", markers)):
            if type(value) is not int or value < 0:
                raise AccountingRefused(f"drop: {name} must be a whole number of minor units "
                                        f">= 0, got {value!r}")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            self.check_drop(ledger, gaming_day, shift_name)
            return [(DropCounted(gaming_day.isoformat(), cash, markers, cash + markers,
                                 (a.actor, b.actor), shift_name), _actor(a, b))]

        return self.write(decide)[0]

    def void(self, kind: str, number: int, year: int, signers: Sequence[User | None],
             reason: str) -> Record:
        """Void a slip the table signed: two signers (the jurisdiction's ``[cage]`` void) and
        a reason. A request still on its way is voided through the cage's desk instead."""
        from dealer_station.table.signatures import signed

        users = signed(signers, self.settings.cage.void, f"voiding {kind} slip {number}")
        if not isinstance(reason, str) or not reason.strip():
            raise AccountingRefused("a void needs a reason (it is journaled with the signers' "
                                    "names)")
        why = reason.strip()
        if len(why) > MAX_NOTE:
            raise AccountingRefused(f"a void: the reason is longer than {MAX_NOTE} characters")

        def decide(ledger: Ledger, day: date) -> list[tuple[Event, str]]:
            slip = ledger.slip(kind, year, number)
            return [(SlipVoided(kind, number, year, slip.seq, why,
                                tuple(u.actor for u in users)), _actor(*users))]

        return self.write(decide)[0]
