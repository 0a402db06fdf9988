"""The Bourré sessions of a period as the journal tells them, for the session report.

Read from ``session.open``, ``hand.open``, ``hand.close``, ``void``, ``renege``,
``session.close``, ``pot.carry`` and ``pot.return`` records, which carry every amount as
settled; nothing is taken from the station's memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from dealer_station.audit.journal import Journal, Record
from dealer_station.events.base import Codec, Event
from dealer_station.games.bourre.events import (
    CODEC,
    HandClosed,
    HandOpened,
    HandVoided,
    PotCarried,
    PotReturned,
    Reneged,
    SessionClosed,
    SessionOpened,
)
from dealer_station.reports.shift import EXCEPTION_KINDS
from dealer_station.reports.source import Coverage, Period, coverage

SESSION_KINDS = (SessionOpened.KIND, SessionClosed.KIND, HandOpened.KIND, HandClosed.KIND,
                 HandVoided.KIND, PotCarried.KIND, PotReturned.KIND)

#: The only records read between sessions (one opening, a pot carried or returned); the
#: table's others then are passed over unread, as they always were: they may be another
#: game's (La Pair'e's void is not Bourré's).
BETWEEN = Codec((SessionOpened, PotCarried, PotReturned))

E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class Decoded(Generic[E]):
    """A journal record beside its event, decoded once: the event says what happened, the
    record when, by whom and where in the chain."""

    record: Record
    event: E

    @property
    def seq(self) -> int:
        return self.record.seq

    @property
    def ts(self) -> str:
        return self.record.ts

    @property
    def actor(self) -> str:
        return self.record.actor

    @property
    def round_no(self) -> int | None:
        return self.record.round_no


@dataclass
class Hand:
    number: int
    opened: Decoded[HandOpened]
    closed: Decoded[HandClosed] | None = None
    voided: Decoded[HandVoided] | None = None
    reneges: list[Reneged] = field(default_factory=list)


@dataclass(frozen=True)
class Misplay:
    """One card that broke a rule of play, and what it cost."""

    hand: int
    seat: str
    trick: int
    card: str
    reason: str
    penalised: bool       # a renege (matches the pot) rather than a plain retraction
    charged: int | None   # chips charged for it; None: not charged (one penalty a hand)
    charged_for: str      # for a misplay not charged: what the one penalty was for


@dataclass
class Session:
    """One session as the journal has it."""

    opened: Decoded[SessionOpened]
    hands: list[Hand] = field(default_factory=list)
    closed: Decoded[SessionClosed] | None = None
    carried: Decoded[PotCarried] | None = None      # the pot left for the next session
    returned: Decoded[PotReturned] | None = None    # that pot given back instead
    #: Voids, reneges, halts and the other exceptions, in the order written.
    exceptions: list[Decoded[Event]] = field(default_factory=list)
    journal: Journal | None = field(default=None, repr=False)

    @property
    def session_id(self) -> str:
        return self.opened.event.session_id

    @property
    def seats(self) -> list[str]:
        return [str(s) for s in self.opened.event.seats]

    @property
    def players(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.opened.event.players.items()}

    def player(self, seat: object) -> str:
        return f"seat {seat} ({self.players.get(str(seat), str(seat))})"

    @property
    def settled(self) -> list[Hand]:
        return [h for h in self.hands if h.closed is not None]

    @property
    def under_way(self) -> list[Hand]:
        return [h for h in self.hands if h.closed is None and h.voided is None]

    @property
    def pot_now(self) -> int:
        """The pot after the last settled hand (the session's opening pot before any)."""
        last = self.settled[-1].closed if self.settled else None
        return last.event.pot if last else self.opened.event.pot

    def chips_track(self) -> list[tuple[int, dict[str, int]]]:
        """Chips per seat at the start (numbered as the hand before the first) and after every
        settled hand, by hand number (a seat out of a hand keeps what it had)."""
        now = {str(s): int(v) for s, v in self.opened.event.chips.items()}
        first = self.hands[0].number if self.hands else 1
        track = [(first - 1, dict(now))]
        for h in self.settled:
            assert h.closed is not None
            for s, v in h.closed.event.chips.items():
                now[str(s)] = int(v)
            track.append((h.number, dict(now)))
        return track

    def profile_content(self) -> dict[str, Any]:
        """The session's rule profile as its configuration version stores it."""
        if self.journal is None:
            return {}
        o = self.opened
        v = self.journal.config(o.record.table_id, o.event.config_version)
        profiles = (v.content if v else {}).get("profiles", {})
        return dict(profiles.get(o.event.profile, {}))

    @property
    def house(self) -> int:
        return sum(h.closed.event.house for h in self.settled if h.closed is not None)

    def busted(self) -> dict[str, int]:
        """Seat -> the hand in which it ran out of chips."""
        out: dict[str, int] = {}
        for h in self.settled:
            assert h.closed is not None
            for seat in h.closed.event.eliminated:
                out.setdefault(str(seat), h.number)
        return out


def _renege(r: Reneged) -> Mapping[str, Any]:
    """A renege record's misplay as a hand's close holds one."""
    return {"seat": r.seat, "trick": r.trick, "card": r.card, "reason": r.reason}


def hand_misplays(h: Hand) -> list[Misplay]:
    """Every misplay of a hand in the order played, each with what it was charged.

    The rules charge a player one penalty a hand, however many times she reneged and whether
    or not she was also bourré: it is set against her first renege; a later one shows what
    the penalty was for."""
    c = h.closed.event if h.closed else None
    found: list[tuple[Mapping[str, Any], bool]]
    if c is not None:
        found = [(m, True) for m in c.reneges] + [(m, False) for m in c.retractions]
    else:   # a hand voided or still under way: its renege records are all there is
        found = [(_renege(r), r.penalised) for r in h.reneges]
    found.sort(key=lambda mp: int(mp[0].get("trick", 0)))
    penalties = {str(k): int(v) for k, v in c.penalties.items()} if c else {}
    first: dict[str, tuple[int, str]] = {}
    out = []
    for m, penalised in found:
        seat = str(m.get("seat"))
        charged: int | None = None
        charged_for = ""
        if penalised and h.closed is not None:
            if seat not in first:
                first[seat] = (int(m.get("trick", 0)), str(m.get("card")))
                charged = penalties.get(seat, 0)
            else:
                trick, card = first[seat]
                charged_for = f"the renege on trick {trick} ({card})"
        out.append(Misplay(h.number, seat, int(m.get("trick", 0)), str(m.get("card", "")),
                           " ".join(str(m.get("reason", "")).split()), penalised, charged,
                           charged_for))
    return out


def gather(journal: Journal, table: str, period: Period) -> tuple[list[Session], Coverage]:
    """The sessions that were under way at some moment of the period."""
    cov = coverage(journal, table, period)
    if cov.last is None:
        return [], cov
    sessions: list[Session] = []
    current: Session | None = None
    hands: dict[int, Hand] = {}
    since, until = period.since_iso, period.until_iso
    kinds = SESSION_KINDS + tuple(k for k in EXCEPTION_KINDS if k != HandVoided.KIND)
    for rec in journal.records(table, to_seq=cov.last.seq, kinds=kinds):
        if until is not None and rec.ts >= until:
            continue
        e = (BETWEEN if current is None else CODEC).decode(rec.kind, rec.payload)
        if isinstance(e, SessionOpened):
            current = Session(Decoded(rec, e), journal=journal)
            sessions.append(current)
            hands = {}
            continue
        if isinstance(e, PotCarried | PotReturned):
            owner = next((s for s in reversed(sessions) if s.session_id == e.session_id),
                         None)
            if owner is not None and isinstance(e, PotCarried):
                owner.carried = Decoded(rec, e)
            elif owner is not None and isinstance(e, PotReturned):
                owner.returned = Decoded(rec, e)
            continue
        if current is None:
            continue
        if isinstance(e, SessionClosed):
            current.closed = Decoded(rec, e)
            current = None
            continue
        # Beyond the session's own records, all but a hand's opening and close are the
        # exceptions the query asked for (a void and a renege among them).
        if not isinstance(e, HandOpened | HandClosed):
            current.exceptions.append(Decoded(rec, e))
        n = rec.round_no
        if n is None:
            continue
        if isinstance(e, HandOpened):
            hands[n] = Hand(n, Decoded(rec, e))
            current.hands.append(hands[n])
        elif n in hands:
            h = hands[n]
            if isinstance(e, HandClosed):
                h.closed = Decoded(rec, e)
            elif isinstance(e, HandVoided):
                h.voided = Decoded(rec, e)
            elif isinstance(e, Reneged):
                h.reneges.append(e)
    if since is not None:
        sessions = [s for s in sessions
                    if s.closed is None or s.closed.ts >= since]
    return sessions, cov
