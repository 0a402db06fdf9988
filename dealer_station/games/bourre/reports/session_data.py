"""The Bourré sessions of a period as the journal tells them, for the session report.

Read from ``session.open``, ``hand.open``, ``hand.close``, ``void``, ``renege``,
``session.close``, ``pot.carry`` and ``pot.return`` records, which carry every amount as
settled; nothing is taken from the station's memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dealer_station.audit.journal import Journal, Record
from dealer_station.reports.shift import EXCEPTION_KINDS
from dealer_station.reports.source import Coverage, Period, coverage

SESSION_KINDS = ("session.open", "session.close", "hand.open", "hand.close", "void",
                 "pot.carry", "pot.return")


@dataclass
class Hand:
    number: int
    opened: Record
    closed: Record | None = None
    voided: Record | None = None
    reneges: list[Record] = field(default_factory=list)


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

    opened: Record
    hands: list[Hand] = field(default_factory=list)
    closed: Record | None = None
    carried: Record | None = None      # pot.carry: the pot left for the next session
    returned: Record | None = None     # pot.return: that pot given back instead
    exceptions: list[Record] = field(default_factory=list)
    journal: Journal | None = field(default=None, repr=False)

    @property
    def session_id(self) -> str:
        return str(self.opened.payload.get("session_id", ""))

    @property
    def seats(self) -> list[str]:
        return [str(s) for s in self.opened.payload.get("seats", [])]

    @property
    def players(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.opened.payload.get("players", {}).items()}

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
        return int(last.payload.get("pot", 0)) if last else int(self.opened.payload.get("pot",
                                                                                       0))

    def chips_track(self) -> list[tuple[int, dict[str, int]]]:
        """Chips per seat at the start (numbered as the hand before the first) and after every
        settled hand, by hand number (a seat out of a hand keeps what it had)."""
        now = {str(s): int(v) for s, v in self.opened.payload.get("chips", {}).items()}
        first = self.hands[0].number if self.hands else 1
        track = [(first - 1, dict(now))]
        for h in self.settled:
            assert h.closed is not None
            for s, v in h.closed.payload.get("chips", {}).items():
                now[str(s)] = int(v)
            track.append((h.number, dict(now)))
        return track

    def profile_content(self) -> dict[str, Any]:
        """The session's rule profile as its configuration version stores it."""
        if self.journal is None:
            return {}
        v = self.journal.config(self.opened.table_id,
                                str(self.opened.payload.get("config_version")))
        profiles = (v.content if v else {}).get("profiles", {})
        return dict(profiles.get(str(self.opened.payload.get("profile")), {}))

    @property
    def house(self) -> int:
        return sum(int(h.closed.payload.get("house", 0)) for h in self.settled
                   if h.closed is not None)

    def busted(self) -> dict[str, int]:
        """Seat -> the hand in which it ran out of chips."""
        out: dict[str, int] = {}
        for h in self.settled:
            assert h.closed is not None
            for seat in h.closed.payload.get("eliminated", []):
                out.setdefault(str(seat), h.number)
        return out


def hand_misplays(h: Hand) -> list[Misplay]:
    """Every misplay of a hand in the order played, each with what it was charged.

    The rules charge a player one penalty a hand, however many times she reneged and whether
    or not she was also bourré: it is set against her first renege; a later one shows what
    the penalty was for."""
    c = h.closed.payload if h.closed else {}
    if h.closed is not None:
        found = [(m, True) for m in c.get("reneges", [])] + \
                [(m, False) for m in c.get("retractions", [])]
    else:   # a hand voided or still under way: its renege records are all there is
        found = [(r.payload, bool(r.payload.get("penalised"))) for r in h.reneges]
    found.sort(key=lambda mp: int(mp[0].get("trick", 0)))
    penalties = {str(k): int(v) for k, v in c.get("penalties", {}).items()}
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
    kinds = SESSION_KINDS + tuple(k for k in EXCEPTION_KINDS if k != "void")
    for rec in journal.records(table, to_seq=cov.last.seq, kinds=kinds):
        if until is not None and rec.ts >= until:
            continue
        if rec.kind == "session.open":
            current = Session(rec, journal=journal)
            sessions.append(current)
            hands = {}
            continue
        if rec.kind in ("pot.carry", "pot.return"):
            owner = next((s for s in reversed(sessions)
                          if s.session_id == rec.payload.get("session_id")), None)
            if owner is not None:
                setattr(owner, "carried" if rec.kind == "pot.carry" else "returned", rec)
            continue
        if current is None:
            continue
        if rec.kind == "session.close":
            current.closed = rec
            current = None
            continue
        if rec.kind in EXCEPTION_KINDS:
            current.exceptions.append(rec)
        n = rec.round_no
        if n is None:
            continue
        if rec.kind == "hand.open":
            hands[n] = Hand(n, rec)
            current.hands.append(hands[n])
        elif n in hands:
            h = hands[n]
            if rec.kind == "hand.close":
                h.closed = rec
            elif rec.kind == "void":
                h.voided = rec
            elif rec.kind == "renege":
                h.reneges.append(rec)
    if since is not None:
        sessions = [s for s in sessions
                    if s.closed is None or s.closed.ts >= since]
    return sessions, cov
