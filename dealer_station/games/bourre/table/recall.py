"""Recall of a Bourré hand: its records applied through :class:`BourreState` from the chips and
pot its ``hand.open`` recorded, as typed objects, and the words of the rules (docs/bourre.md)
for its decisions, deals and misplays.

Built by :func:`bourre_recall` (the registry's ``recall`` part).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer_station.audit.journal import Journal, Record, RoundInfo
from dealer_station.games.bourre.events import CODEC, HandOpened
from dealer_station.games.bourre.rules.session import BourreSession
from dealer_station.games.bourre.table.rounds import GAME, BourreState, profile_from_content
from dealer_station.table.recall_model import (
    Recall,
    RecallHeader,
    exception_lines,
    record_label,
    record_lines,
    source_label,
)

#: A player's decision after the deal.
DECISION_LABELS: dict[bool, str] = {True: "Stayed", False: "Folded"}
#: When a card reached a player's hand.
PHASE_LABELS: dict[str, str] = {"deal": "Dealt", "draw": "Drawn"}
#: What became of a card played: it counts in the trick, or goes back to the hand.
PLAY_LABELS: dict[bool, str] = {True: "Stands", False: "Taken back"}
#: A misplay the rules penalise is a renege (the record kind's word); one they do not, a
#: retraction.
RETRACTION_LABEL = "Retraction"


def _seat_pairs(d: Mapping[str, Any]) -> tuple[tuple[int, Any], ...]:
    # JSON keys are seat numbers as text; the order they were recorded in is kept.
    return tuple((int(k), v) for k, v in d.items())


def _seat_dict(pairs: tuple[tuple[int, Any], ...]) -> dict[str, Any]:
    return {str(k): v for k, v in pairs}


@dataclass(frozen=True)
class HandCard:
    """A card dealt or drawn to a seat, and where it was read."""

    seat: int
    card: str
    phase: str
    source: str | None
    seq: int

    @property
    def phase_label(self) -> str:
        return PHASE_LABELS.get(self.phase, self.phase)

    @property
    def source_label(self) -> str:
        return source_label(self.source)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": self.card, "phase": self.phase,
                "source": self.source, "seq": self.seq}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HandCard:
        return cls(d["seat"], d["card"], d["phase"], d["source"], d["seq"])


@dataclass(frozen=True)
class Misplay:
    """A card played against a rule of play: a renege, or (not penalised) a retraction."""

    seat: int
    trick: int
    card: str
    rule: str
    reason: str
    penalised: bool
    stands: bool

    @property
    def label(self) -> str:
        return record_label("renege") if self.penalised else RETRACTION_LABEL

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "trick": self.trick, "card": self.card, "rule": self.rule,
                "reason": self.reason, "penalised": self.penalised, "stands": self.stands}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Misplay:
        return cls(d["seat"], d["trick"], d["card"], d["rule"], d["reason"], d["penalised"],
                   d["stands"])


@dataclass(frozen=True)
class Play:
    """A card played to a trick; ``trick_winner`` is set on the card that ends the trick."""

    seat: int
    card: str
    trick: int
    misplay: Misplay | None
    accepted: bool
    trick_winner: int | None
    seq: int

    @property
    def play_label(self) -> str:
        return PLAY_LABELS[self.accepted]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "card": self.card, "trick": self.trick,
                "misplay": self.misplay.to_json() if self.misplay else None,
                "accepted": self.accepted, "trick_winner": self.trick_winner, "seq": self.seq}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Play:
        m = d["misplay"]
        return cls(d["seat"], d["card"], d["trick"], Misplay.from_json(m) if m else None,
                   d["accepted"], d["trick_winner"], d["seq"])


@dataclass(frozen=True)
class Settlement:
    """The hand's settlement as its ``hand.close`` record states it. The record is kept as
    written (``to_json`` gives it back unchanged); the properties read it typed."""

    recorded: Mapping[str, Any]

    @property
    def winner(self) -> int | None:
        w = self.recorded.get("winner")
        return None if w is None else int(w)

    @property
    def won(self) -> int:
        return int(self.recorded.get("won", 0))

    @property
    def pot_end(self) -> int:
        return int(self.recorded.get("pot_end", 0))

    @property
    def pot(self) -> int:
        """The next pot."""
        return int(self.recorded.get("pot", 0))

    @property
    def house(self) -> int:
        return int(self.recorded.get("house", 0))

    @property
    def put_in(self) -> int:
        """What the players put in this hand (antes, stays, penalties)."""
        meters = self.recorded.get("meters") or {}
        return int((meters.get("total") or {}).get("wagered", 0))

    @property
    def tricks(self) -> tuple[tuple[int, int], ...]:
        return _seat_pairs(self.recorded.get("tricks") or {})

    @property
    def penalties(self) -> tuple[tuple[int, int], ...]:
        return _seat_pairs(self.recorded.get("penalties") or {})

    @property
    def chips(self) -> tuple[tuple[int, int], ...]:
        return _seat_pairs(self.recorded.get("chips") or {})

    @property
    def bourre(self) -> tuple[int, ...]:
        """The seats that stayed and took no trick."""
        return tuple(int(s) for s in self.recorded.get("bourre") or ())

    @property
    def eliminated(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self.recorded.get("eliminated") or ())

    @property
    def reneges(self) -> tuple[Misplay, ...]:
        return tuple(Misplay.from_json(m) for m in self.recorded.get("reneges") or ())

    def to_json(self) -> dict[str, Any]:
        return dict(self.recorded)


@dataclass(frozen=True, kw_only=True)
class BourreRecall(Recall):
    """A Bourré hand: seats and chips before it, the cards, decisions, discards, every play
    trick by trick, and the settlement its ``hand.close`` recorded."""

    profile: str
    dealer_seat: int
    seats: tuple[int, ...]
    chips_before: tuple[tuple[int, int], ...]
    pot_before: int
    trump: str | None
    cards: tuple[HandCard, ...]
    decisions: tuple[tuple[int, bool], ...]
    discards: tuple[tuple[int, tuple[str, ...]], ...]
    plays: tuple[Play, ...]
    tricks: tuple[tuple[int, int], ...]
    result: Settlement | None

    def dealt(self) -> tuple[str, ...]:
        return tuple(c.card for c in self.cards)

    def wagered(self) -> int:
        return self.result.put_in if self.result else 0

    def paid(self) -> int:
        return self.result.won if self.result else 0

    def decision(self, seat: int) -> bool | None:
        return dict(self.decisions).get(seat)

    def decision_label(self, seat: int) -> str:
        stays = self.decision(seat)
        return "-" if stays is None else DECISION_LABELS[stays]

    def body_json(self) -> dict[str, Any]:
        return {"profile": self.profile, "dealer_seat": self.dealer_seat,
                "seats": list(self.seats), "chips_before": _seat_dict(self.chips_before),
                "pot_before": self.pot_before, "trump": self.trump,
                "cards": [c.to_json() for c in self.cards],
                "decisions": _seat_dict(self.decisions),
                "discards": {str(k): list(v) for k, v in self.discards},
                "plays": [p.to_json() for p in self.plays],
                "tricks": _seat_dict(self.tricks),
                "result": self.result.to_json() if self.result else None}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> BourreRecall:
        return cls(**cls.common_json(d), profile=d["profile"], dealer_seat=d["dealer_seat"],
                   seats=tuple(d["seats"]), chips_before=_seat_pairs(d["chips_before"]),
                   pot_before=d["pot_before"], trump=d["trump"],
                   cards=tuple(HandCard.from_json(c) for c in d["cards"]),
                   decisions=_seat_pairs(d["decisions"]),
                   discards=tuple((int(k), tuple(v)) for k, v in d["discards"].items()),
                   plays=tuple(Play.from_json(p) for p in d["plays"]),
                   tricks=_seat_pairs(d["tricks"]),
                   result=Settlement(d["result"]) if d["result"] is not None else None)


def bourre_recall(journal: Journal, info: RoundInfo, records: list[Record]) -> BourreRecall:
    """The registry's ``recall`` part: the hand replayed from its recorded chips and pot."""
    stored = journal.config(info.table_id, info.config_version)
    if stored is None:
        raise ValueError(f"configuration {info.config_version[:12]} is not in the journal")
    profile = profile_from_content(stored.content)
    first = records[0]
    o = CODEC.decode_as(HandOpened, first.seq, first.kind, first.payload)
    session = BourreSession(profile, list(o.seats), o.dealer_seat,
                            chips={int(k): int(v) for k, v in o.chips.items()}, pot=o.pot)
    state = BourreState(profile, info.config_version, session=session)
    for rec in records:
        state.apply(rec)
    st = state.hands[-1] if state.hands else state.current
    assert st is not None
    hand = st.hand
    return BourreRecall(
        header=RecallHeader.of(info, st.status, GAME, records),
        profile=profile.name, dealer_seat=o.dealer_seat, seats=tuple(o.seats),
        chips_before=_seat_pairs(o.chips), pot_before=o.pot,
        trump=hand.trump_card.code if hand.trump_card else None,
        cards=tuple(HandCard.from_json(c) for c in st.cards),
        decisions=tuple(st.decisions.items()),
        discards=tuple((k, tuple(v)) for k, v in st.discards.items()),
        plays=tuple(Play.from_json(pl) for pl in st.plays),
        tricks=tuple(hand.tricks.items()),
        result=Settlement(st.close) if st.close is not None else None,
        void_reason=st.void_reason, exceptions=exception_lines(records),
        differences=tuple(state.differences), records=record_lines(records))
