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
from dealer_station.events import Committed
from dealer_station.settlement.bourre import BourreHand, HandResult, Misplay, Phase
from dealer_station.settlement.bourre_rules import BourreProfile, parse_bourre_profiles
from dealer_station.settlement.bourre_session import BourreSession

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
    records: list[Record | Committed] = field(default_factory=list)


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
        """One committed record, live or read back: the only change of a session's state."""
        p = rec.payload
        kind = rec.kind
        if kind == "session.open":
            self.session_open = dict(p)
            chips = {int(k): int(v) for k, v in p["chips"].items()}
            players = {int(k): str(v) for k, v in p["players"].items()}
            self.session = BourreSession(self.profile, [int(x) for x in p["seats"]],
                                         int(p["first_dealer"]), players=players, chips=chips,
                                         pot=int(p.get("pot", 0)),
                                         session_id=str(p["session_id"]))
            return
        if kind == "session.close":
            self.session = None
            return
        if rec.round_no is None or rec.round_no in self.voided:
            return
        if kind == "hand.open":
            if self.session is None:
                raise ReplayError(f"record {rec.seq}: a hand opens with no session")
            hand = self.session.start_hand(float(p.get("elapsed", 0)))
            hand.ante()
            self.current = HandState(rec.round_no, str(p["config_version"]), str(p["dealer"]),
                                     hand)
            self.current.records.append(rec)
            return
        st = self.current
        if st is None or st.round_no != rec.round_no:
            return  # a device or halt record of a hand we do not hold: nothing to apply
        st.records.append(rec)
        hand = st.hand
        if kind == "bourre.card":
            card, seat = parse_card(str(p["card"])), int(p["seat"])
            if p["phase"] == "deal":
                hand.deal_card(card, seat)
            else:
                hand.receive(seat, card)
            st.cards.append({"seat": seat, "card": card.code, "phase": p["phase"],
                             "source": p.get("source"), "seq": rec.seq})
        elif kind == "bourre.decision":
            seat = int(p["seat"])
            (hand.stay if p["stay"] else hand.fold)(seat)
            st.decisions[seat] = bool(p["stay"])
        elif kind == "bourre.discard.card":
            st.discards.setdefault(int(p["seat"]), []).append(str(p["card"]))
        elif kind == "bourre.discard":
            seat = int(p["seat"])
            hand.discard(seat, [parse_card(c) for c in p["cards"]])
            st.discards[seat] = list(p["cards"])
        elif kind == "bourre.play":
            seat, card = int(p["seat"]), parse_card(str(p["card"]))
            played = hand.play(seat, card)
            mine = misplay_payload(played.misplay)
            if mine != p.get("misplay"):
                self.differences.append(f"hand {st.round_no} record {rec.seq}: the play of "
                                        f"{card.code} by seat {seat} replays as "
                                        f"{mine or 'legal'}, recorded {p.get('misplay')}")
            st.plays.append({"seat": seat, "card": card.code, "trick": played.trick,
                             "misplay": mine, "accepted": played.accepted,
                             "trick_winner": played.trick_winner, "seq": rec.seq})
        elif kind == "hand.close":
            result = self.finish()
            mine = result_payload(hand, result)
            if mine != p:
                changed = sorted(k for k in set(mine) | set(p) if mine.get(k) != p.get(k))
                self.differences.append(f"hand {st.round_no}: recorded settlement differs in "
                                        f"{', '.join(changed)}")
            st.status, st.close = "settled", dict(p)
        elif kind == "void":
            st.status, st.void_reason = "voided", str(p.get("reason"))
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


def session_records(journal: Journal, table_id: str) -> list[Record]:
    """The records of the table's latest session, from its ``session.open`` on."""
    opens = list(journal.records(table_id, kinds=["session.open"]))
    if not opens:
        return []
    return list(journal.records(table_id, from_seq=opens[-1].seq))


def rebuild_state(records: Sequence[Record], profile: BourreProfile, version: str
                  ) -> BourreState:
    """Apply a session's records; a voided hand is skipped as if it had never been dealt."""
    voided = {r.round_no for r in records if r.kind == "void" and r.round_no is not None}
    state = BourreState(profile, version, voided=set())
    for rec in records:
        if rec.round_no in voided and rec.kind == "void":
            state.apply(rec)
            continue
        if rec.round_no in voided:
            if rec.kind == "hand.open":
                state.hands.append(HandState(rec.round_no, str(rec.payload["config_version"]),
                                             str(rec.payload["dealer"]), _empty_hand(state)))
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
    p = opening.payload
    profile = configs.get(str(p["config_version"]), lambda c, _f: profile_from_content(c))
    seats = [int(x) for x in p["seats"]]
    chips = {int(k): int(v) for k, v in p["chips"].items()}
    session = BourreSession(profile, seats, int(p["dealer_seat"]), chips=chips,
                            pot=int(p["pot"]))
    state = BourreState(profile, str(p["config_version"]), session=session)
    status = "open"
    for rec in records:
        try:
            state.apply(rec)
        except ValueError as exc:
            return "unreadable", [f"hand {opening.round_no} record {rec.seq}: {exc}"], {}
        if rec.kind == "void":
            status = "voided"
    deltas: dict[str, Any] = {}
    if state.hands and state.hands[-1].status == "settled":
        status = "settled"
        st = state.hands[-1]
        assert st.hand.result is not None
        deltas = hand_meters(st.hand, st.hand.result)
    return status, state.differences, deltas
