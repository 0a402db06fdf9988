"""Bourré sessions and hands as journal records, and back.

The live table journals a fact, then applies the very same record through :class:`BourreState`
(``apply``), which is also what crash recovery, ``audit replay`` and recall use: the live path
and the replay path cannot drift apart.

Records (``round_no`` is the hand's number; session records have none):
``session.open``, ``hand.open``, ``bourre.card`` (deal or draw), ``bourre.decision``,
``bourre.discard.card`` (one discard read), ``bourre.discard``, ``bourre.play`` (with any
misplay), ``renege`` (the misplay again, as an exception), ``hand.close``, ``void``,
``session.close``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer_station.audit.journal import Journal, MeterDelta, Record
from dealer_station.cards import parse_card
from dealer_station.errors import StationError
from dealer_station.events import Committed, Event
from dealer_station.games.bourre import events as ev
from dealer_station.games.bourre.events import CODEC
from dealer_station.games.bourre.rules.config import BourreProfile, parse_bourre_profiles
from dealer_station.games.bourre.rules.engine import BourreHand, HandResult, Misplay, Phase
from dealer_station.games.bourre.rules.session import BourreSession

GAME = "bourre"
METER = "bourre"
TOTAL_METER = "total"


def profile_content(profile: BourreProfile) -> dict[str, Any]:
    """A profile as a configuration version's content (a one-profile Bourré config file)."""
    return {"profiles": {profile.name: profile.to_data()}}


def profile_from_content(content: Mapping[str, Any]) -> BourreProfile:
    profiles = parse_bourre_profiles(dict(content), "<journal>")
    (profile,) = profiles.values()
    return profile


def misplay_payload(m: Misplay | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {"seat": m.seat, "trick": m.trick, "card": m.card.code, "rule": m.rule.value,
            "reason": m.reason, "penalised": m.penalised, "stands": m.stands}


def hand_meters(hand: BourreHand, result: HandResult) -> dict[str, MeterDelta]:
    """What the players put in this hand, what the winner took, what the house collected."""
    put_in = sum(hand.chips_before.values()) - sum(result.chips.values()) + result.won
    delta = MeterDelta(rounds=1, wagered=put_in, paid=result.won, house_win=result.house)
    return {METER: delta, TOTAL_METER: delta}


def result_payload(hand: BourreHand, result: HandResult) -> dict[str, Any]:
    s = str
    return {
        "dead": result.dead, "trump": result.trump.value if result.trump else None,
        "stayers": [s(x) for x in result.stayers], "folded": [s(x) for x in result.folded],
        "tricks": {s(k): v for k, v in sorted(result.tricks.items())},
        "winner": s(result.winner) if result.winner is not None else None,
        "pot_end": result.pot_end, "won": result.won,
        "bourre": [s(x) for x in result.bourre],
        "reneges": [misplay_payload(m) for m in result.reneges],
        "retractions": [misplay_payload(m) for m in result.retractions],
        "penalties": {s(k): v for k, v in sorted(result.penalties.items())},
        "house": result.house,
        "chips_before": {s(k): v for k, v in sorted(hand.chips_before.items())},
        "chips": {s(k): v for k, v in sorted(result.chips.items())},
        "pot_before": hand.pot_before, "pot": result.pot,
        "eliminated": [s(x) for x in result.eliminated],
        "meters": {k: {"wagered": d.wagered, "paid": d.paid, "house_win": int(d.house_win or 0)}
                   for k, d in sorted(hand_meters(hand, result).items())},
    }


class ReplayError(StationError, ValueError):
    """Records that the engine refuses or settles differently."""


@dataclass
class HandState:
    round_no: int
    config_version: str
    dealer: str
    hand: BourreHand
    discards: dict[int, list[str]] = field(default_factory=dict)
    plays: list[dict[str, Any]] = field(default_factory=list)
    cards: list[dict[str, Any]] = field(default_factory=list)
    decisions: dict[int, bool] = field(default_factory=dict)
    status: str = "open"
    close: dict[str, Any] | None = None
    void_reason: str | None = None
    records: list[Committed] = field(default_factory=list)     # the hand's, as applied


@dataclass
class BourreState:
    """A session and its hand under way, as the journal builds them."""

    profile: BourreProfile
    config_version: str
    session: BourreSession | None = None
    session_open: dict[str, Any] | None = None
    current: HandState | None = None
    hands: list[HandState] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    voided: set[int] = field(default_factory=set)

    def apply(self, rec: Record | Committed) -> None:
        """One committed event, live or read back from the journal (a stored record is read
        as its typed event first): the only change of a session's state."""
        c = rec if isinstance(rec, Committed) else committed(rec)
        e = c.event
        if isinstance(e, ev.SessionOpened):
            self.session_open = e.to_payload()
            self.session = BourreSession(
                self.profile, list(e.seats), e.first_dealer,
                players={int(k): str(v) for k, v in e.players.items()},
                chips={int(k): int(v) for k, v in e.chips.items()}, pot=e.pot,
                session_id=e.session_id)
            return
        if isinstance(e, ev.SessionClosed):
            self.session = None
            return
        if c.round_no is None or c.round_no in self.voided:
            return
        if isinstance(e, ev.HandOpened):
            if self.session is None:
                raise ReplayError(f"record {c.seq}: a hand opens with no session")
            hand = self.session.start_hand(float(e.elapsed))
            hand.ante()
            self.current = HandState(c.round_no, e.config_version, e.dealer, hand)
            self.current.records.append(c)
            return
        st = self.current
        if st is None or st.round_no != c.round_no:
            return  # a device or halt record of a hand we do not hold: nothing to apply
        st.records.append(c)
        hand = st.hand
        if isinstance(e, ev.BourreCardDealt):
            card = parse_card(e.card)
            if e.phase == "deal":
                hand.deal_card(card, e.seat)
            else:
                hand.receive(e.seat, card)
            st.cards.append({"seat": e.seat, "card": card.code, "phase": e.phase,
                             "source": e.source, "seq": c.seq})
        elif isinstance(e, ev.Decided):
            (hand.stay if e.stay else hand.fold)(e.seat)
            st.decisions[e.seat] = e.stay
        elif isinstance(e, ev.DiscardRead):
            st.discards.setdefault(e.seat, []).append(e.card)
        elif isinstance(e, ev.Discarded):
            hand.discard(e.seat, [parse_card(x) for x in e.cards])
            st.discards[e.seat] = list(e.cards)
        elif isinstance(e, ev.Played):
            card = parse_card(e.card)
            played = hand.play(e.seat, card)
            mine = misplay_payload(played.misplay)
            recorded = dict(e.misplay) if e.misplay is not None else None
            if mine != recorded:
                self.differences.append(f"hand {st.round_no} record {c.seq}: the play of "
                                        f"{card.code} by seat {e.seat} replays as "
                                        f"{mine or 'legal'}, recorded {recorded}")
            st.plays.append({"seat": e.seat, "card": card.code, "trick": played.trick,
                             "misplay": mine, "accepted": played.accepted,
                             "trick_winner": played.trick_winner, "seq": c.seq})
        elif isinstance(e, ev.HandClosed):
            result = self.finish()
            mine, recorded = result_payload(hand, result), e.to_payload()
            if mine != recorded:
                changed = sorted(k for k in set(mine) | set(recorded)
                                 if mine.get(k) != recorded.get(k))
                self.differences.append(f"hand {st.round_no}: recorded settlement differs in "
                                        f"{', '.join(changed)}")
            st.status, st.close = "settled", recorded
        elif isinstance(e, ev.HandVoided):
            st.status, st.void_reason = "voided", e.reason
            self.voided.add(st.round_no)
            if self.session is not None:
                self.session.abandon_hand()
            self.hands.append(st)
            self.current = None

    def finish(self) -> HandResult:
        """Take the settled hand into the session (its hand.close is being written)."""
        assert self.session is not None and self.current is not None
        if self.current.hand.phase is not Phase.SETTLED:
            raise ReplayError(f"hand {self.current.round_no} closed before its play ended")
        result = self.session.finish_hand()
        self.hands.append(self.current)
        self.current = None
        return result

    def snapshot(self) -> dict[str, Any]:
        """Everything the state holds, as plain data (to compare two states)."""
        s = self.session
        return {
            "config_version": self.config_version, "session_open": self.session_open,
            "session": None if s is None else {
                "seats": s.seats, "chips": dict(s.chips), "pot": s.pot, "house": s.house,
                "dealer": s.dealer, "hands": len(s.hands),
                "hand": s.hand is not None},
            "current": _hand_snapshot(self.current),
            "hands": [_hand_snapshot(h) for h in self.hands],
            "differences": self.differences, "voided": sorted(self.voided),
        }


def _hand_snapshot(st: HandState | None) -> dict[str, Any] | None:
    if st is None:
        return None
    h = st.hand
    return {
        "round_no": st.round_no, "status": st.status, "close": st.close,
        "void_reason": st.void_reason, "discards": st.discards, "plays": st.plays,
        "cards": st.cards, "decisions": st.decisions,
        "records": [r.seq for r in st.records],
        "phase": h.phase.value, "to_act": h.to_act, "chips": dict(h.chips), "pot": h.pot,
        "trump": h.trump_card.code if h.trump_card else None, "stayers": h.stayers,
        "folded": h.folded, "tricks": dict(h.tricks), "trick": h.trick_number,
        "on_table": [(seat, c.code) for seat, c in h.current_trick],
        "held": {seat: sorted(c.code for c in h.held(seat)) for seat in h.seats},
        "misplays": [misplay_payload(m) for m in h.misplays],
    }


def committed(rec: Record) -> Committed:
    """A stored record as its typed event (a payload that is not what its kind says is an
    EventError naming the record)."""
    return CODEC.committed(rec.seq, rec.ts, rec.actor, rec.round_no, rec.kind, rec.payload)


def event_class(rec: Record) -> type[Event] | None:
    """The event class a record is of, its payload not read: to pass over records cheaply."""
    return CODEC.classes.get(rec.kind)


def session_records(journal: Journal, table_id: str) -> list[Record]:
    """The records of the table's latest session, from its ``session.open`` on."""
    opens = list(journal.records(table_id, kinds=[ev.SessionOpened.KIND]))
    if not opens:
        return []
    return list(journal.records(table_id, from_seq=opens[-1].seq))


def rebuild_state(records: Sequence[Record], profile: BourreProfile, version: str
                  ) -> BourreState:
    """Apply a session's records; a voided hand is skipped as if it had never been dealt
    (its records other than its opening and its void are not even decoded)."""
    voided = {r.round_no for r in records
              if event_class(r) is ev.HandVoided and r.round_no is not None}
    state = BourreState(profile, version, voided=set())
    for rec in records:
        if rec.round_no in voided and event_class(rec) is ev.HandVoided:
            state.apply(rec)
            continue
        if rec.round_no in voided:
            if event_class(rec) is ev.HandOpened:
                e = committed(rec).event
                assert isinstance(e, ev.HandOpened)
                state.hands.append(HandState(rec.round_no, e.config_version, e.dealer,
                                             _empty_hand(state)))
            continue
        state.apply(rec)
    return state


def _empty_hand(state: BourreState) -> BourreHand:
    assert state.session is not None
    s = state.session
    seats = [x for x in s.seats if s.chips[x] > 0]
    return BourreHand(state.profile, seats, s.dealer, {x: s.chips[x] for x in seats}, s.pot)


def replay_hand(records: list[Record], configs: Any) -> tuple[str, list[str], dict[str, Any]]:
    """``audit replay`` for one hand on its own, from its recorded starting chips and pot."""
    opening = records[0]
    try:
        p = committed(opening).event
    except ValueError as exc:
        return "unreadable", [f"hand {opening.round_no} record {opening.seq}: {exc}"], {}
    if not isinstance(p, ev.HandOpened):
        raise ReplayError(f"hand {opening.round_no} does not start with hand.open")
    profile = configs.get(p.config_version, lambda c, _f: profile_from_content(c))
    chips = {int(k): int(v) for k, v in p.chips.items()}
    session = BourreSession(profile, list(p.seats), p.dealer_seat, chips=chips, pot=p.pot)
    state = BourreState(profile, p.config_version, session=session)
    status = "open"
    for rec in records:
        try:
            c = committed(rec)
            state.apply(c)
        except ValueError as exc:
            return "unreadable", [f"hand {opening.round_no} record {rec.seq}: {exc}"], {}
        if isinstance(c.event, ev.HandVoided):
            status = "voided"
    deltas: dict[str, Any] = {}
    if state.hands and state.hands[-1].status == "settled":
        status = "settled"
        st = state.hands[-1]
        assert st.hand.result is not None
        deltas = hand_meters(st.hand, st.hand.result)
    return status, state.differences, deltas
