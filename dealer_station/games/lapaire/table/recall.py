"""Recall of a La Pair'e round: its records replayed through the engine, as typed objects, and
the words of the felt for its stages and wagers.

Built by :func:`lapaire_recall` (the registry's ``recall`` part) from what
:func:`~dealer_station.games.lapaire.table.rounds.rebuild_round` gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer_station.audit.journal import Journal, Record, RoundInfo
from dealer_station.events.base import Event
from dealer_station.games.lapaire import events as ev
from dealer_station.games.lapaire.events import CODEC
from dealer_station.games.lapaire.rules.config import KIND_LABELS, parse_lapaire_config
from dealer_station.games.lapaire.rules.layout import spot_label
from dealer_station.games.lapaire.table.rounds import rebuild_round
from dealer_station.table.recall_model import (
    COLLECTED_LABEL,
    CONFIRMED_LABELS,
    PAID_LABEL,
    RETURNED_LABEL,
    WAGERED_LABEL,
    ExceptionLine,
    Recall,
    RecallHeader,
    RecordLine,
    detail_text,
    exception_lines,
    record_lines,
    result_label,
    source_label,
)

#: The three cards of a round, named as on the felt (each card settles its stage).
STAGE_LABELS: dict[int, str] = {1: "First Card", 2: "La Pair'e Card", 3: "Poker card"}


def stage_label(stage: int) -> str:
    return STAGE_LABELS.get(stage, f"Card {stage}")


def record_event(r: RecordLine | ExceptionLine) -> Event:
    """A recall's record line as its typed event (read by class and field, not by key)."""
    return CODEC.decode(r.kind, r.payload)


def wager_name(bet: str, values: tuple[str, ...]) -> str:
    """``Straight-up K``, ``Corner 2-3-8-9``, ``Any Pair'e``: as on the layout."""
    name = KIND_LABELS.get(bet, bet)
    spot = spot_label(values) if values else ""
    return f"{name} {spot}" if spot else name


@dataclass(frozen=True)
class DealtCard:
    """A card of the round, where it came from, who entered it and (a correction) why."""

    n: int
    card: str
    source: str | None
    actor: str
    seq: int
    reason: str | None

    @property
    def stage_label(self) -> str:
        return stage_label(self.n)

    @property
    def source_label(self) -> str:
        return source_label(self.source)

    @property
    def corrected(self) -> bool:
        return self.source == "correction"

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "card": self.card, "source": self.source, "actor": self.actor,
                "seq": self.seq, "reason": self.reason}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> DealtCard:
        return cls(d["n"], d["card"], d["source"], d["actor"], d["seq"], d["reason"])


@dataclass(frozen=True)
class SeatWager:
    """One wager of a seat: its spot, stake, the card that settles it, and how it ended.
    ``label`` is the engine's short form (``split 2-3``), kept for the JSON; people read
    :attr:`name`."""

    wager_id: int
    bet: str
    values: tuple[str, ...]
    label: str
    amount: int
    stage: int
    result: str
    win: int
    placed_by: str | None

    @property
    def name(self) -> str:
        return wager_name(self.bet, self.values)

    @property
    def result_label(self) -> str:
        return result_label(self.result)

    @property
    def stage_label(self) -> str:
        return stage_label(self.stage)

    def to_json(self) -> dict[str, Any]:
        return {"wager_id": self.wager_id, "bet": self.bet, "values": list(self.values),
                "label": self.label, "amount": self.amount, "stage": self.stage,
                "result": self.result, "win": self.win, "placed_by": self.placed_by}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SeatWager:
        return cls(d["wager_id"], d["bet"], tuple(d["values"]), d["label"], d["amount"],
                   d["stage"], d["result"], d["win"], d["placed_by"])


@dataclass(frozen=True)
class Seat:
    seat: int
    wagers: tuple[SeatWager, ...]


@dataclass(frozen=True)
class StageWager:
    """How one wager settled on a stage's card."""

    wager_id: int
    seat: int
    label: str
    result: str
    win: int

    @property
    def result_label(self) -> str:
        return result_label(self.result)

    def to_json(self) -> dict[str, Any]:
        return {"wager_id": self.wager_id, "seat": self.seat, "label": self.label,
                "result": self.result, "win": self.win}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StageWager:
        return cls(d["wager_id"], d["seat"], d["label"], d["result"], d["win"])


@dataclass(frozen=True)
class Stage:
    """A card and the wagers it settled: the poker hand (card 3), paid, lost, confirmed."""

    stage: int
    card: str
    poker: str | None
    total_win: int
    total_lost: int
    confirmed: bool
    results: tuple[StageWager, ...]

    @property
    def label(self) -> str:
        return stage_label(self.stage)

    @property
    def confirmed_label(self) -> str:
        return CONFIRMED_LABELS[self.confirmed]

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "card": self.card, "poker": self.poker,
                "total_win": self.total_win, "total_lost": self.total_lost,
                "confirmed": self.confirmed, "results": [r.to_json() for r in self.results]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Stage:
        return cls(d["stage"], d["card"], d["poker"], d["total_win"], d["total_lost"],
                   d["confirmed"], tuple(StageWager.from_json(r) for r in d["results"]))


#: Who confirmed a stage's payout when the station did it itself (nothing was owed).
STATION_CONFIRMED_LABEL = "the station (nothing to pay)"


@dataclass(frozen=True)
class PayoutConfirmation:
    """Who confirmed that a stage was paid, and when (``auto``: the station, nothing owed).
    Read from the round's ``payout.confirm`` record: not a field of the JSON, which keeps
    the records themselves."""

    stage: int
    actor: str
    ts: str
    seq: int
    auto: bool

    @property
    def by(self) -> str:
        """``dealer/dealer``, or the station when it had nothing to pay."""
        return STATION_CONFIRMED_LABEL if self.auto else self.actor

    @classmethod
    def of(cls, r: RecordLine, e: ev.PayoutConfirmed) -> PayoutConfirmation:
        return cls(e.stage, r.actor, r.ts, r.seq, bool(e.auto))


@dataclass(frozen=True)
class RemovedWager:
    """A wager placed and taken back before betting closed: what it was, who placed it and
    who took it back (from the round's ``wager.place`` and ``wager.remove`` records)."""

    wager_id: int
    seat: int
    bet: str
    values: tuple[str, ...]
    amount: int
    placed_by: str | None
    removed_by: str
    ts: str
    seq: int

    @property
    def name(self) -> str:
        return wager_name(self.bet, self.values)


@dataclass(frozen=True)
class Totals:
    """The round's totals as ``recall --json`` has always printed them: ``wagered`` there is
    every stake on the layout, settled or returned (a contract, kept). People read
    :meth:`LaPaireRecall.wagered` (settled) and :meth:`LaPaireRecall.returned` instead."""

    wagered: int
    paid: int
    lost: int

    def to_json(self) -> dict[str, Any]:
        return {"wagered": self.wagered, "paid": self.paid, "lost": self.lost}


@dataclass(frozen=True, kw_only=True)
class LaPaireRecall(Recall):
    """A La Pair'e round: cards in order, each seat's wagers, each stage's settlement."""

    cards: tuple[DealtCard, ...]
    seats: tuple[Seat, ...]
    stages: tuple[Stage, ...]
    totals: Totals

    def dealt(self) -> tuple[str, ...]:
        return tuple(c.card for c in self.cards)

    @property
    def confirmations(self) -> tuple[PayoutConfirmation, ...]:
        """Each stage's payout confirmation, in the order they were journaled."""
        return tuple(PayoutConfirmation.of(r, e) for r in self.records
                     if isinstance(e := record_event(r), ev.PayoutConfirmed))

    def confirmed_by(self, stage: int) -> PayoutConfirmation | None:
        return next((c for c in self.confirmations if c.stage == stage), None)

    @property
    def removed_wagers(self) -> tuple[RemovedWager, ...]:
        """The wagers taken back, in the order they were: they are in no seat's list, which
        holds what stayed on the layout."""
        placed: dict[int, tuple[RecordLine, ev.WagerPlaced]] = {}
        out: list[RemovedWager] = []
        for r in self.records:
            e = record_event(r)
            if isinstance(e, ev.WagerPlaced):
                placed[e.wager_id] = (r, e)
            elif isinstance(e, ev.WagerRemoved):
                found = placed.get(e.wager_id)
                if found is None:       # no record placed it: what it was is not known
                    out.append(RemovedWager(e.wager_id, 0, "", (), 0, None, r.actor, r.ts,
                                            r.seq))
                    continue
                p, w = found
                out.append(RemovedWager(e.wager_id, w.seat, w.bet, w.values, w.amount,
                                        p.actor, r.actor, r.ts, r.seq))
        return tuple(out)

    def _stakes(self, *results: str) -> int:
        return sum(w.amount for s in self.seats for w in s.wagers if w.result in results)

    def wagered(self) -> int:
        """The stakes a card settled: what the meters and the shift report count."""
        return self._stakes("win", "lose")

    def returned(self) -> int:
        """The stakes a void gave back unsettled."""
        return self._stakes("returned")

    def pending(self) -> int:
        """The stakes of an open round not settled yet."""
        return self._stakes("pending")

    def paid(self) -> int:
        return self.totals.paid

    def wager(self, wager_id: int) -> SeatWager | None:
        return next((w for s in self.seats for w in s.wagers if w.wager_id == wager_id), None)

    def totals_text(self) -> str:
        """``wagered 40.00 USD, returned 5.00 USD, paid 70.00 USD, collected 0.00 USD``
        (returned, and not yet settled, only when there are such stakes)."""
        t = self.totals
        figures = [(WAGERED_LABEL, self.wagered())]
        if self.returned():
            figures.append((RETURNED_LABEL, self.returned()))
        if self.pending():
            figures.append(("Not yet settled", self.pending()))
        figures += [(PAID_LABEL, t.paid), (COLLECTED_LABEL, t.lost)]
        return ", ".join(f"{label.lower()} {self.written_in.text(value)}"
                         for label, value in figures)

    def returned_text(self, wager_ids: Any) -> str:
        """``wager #3 (3rd Card Poker, 5.00 USD)``: a void's returned wagers as the felt
        names them."""
        parts = []
        for wager_id in wager_ids:
            w = self.wager(int(wager_id))
            parts.append(f"wager #{wager_id}" if w is None else
                         f"wager #{wager_id} ({w.name}, {self.written_in.text(w.amount)})")
        return ", ".join(parts)

    def exception_detail(self, e: ExceptionLine) -> str:
        said = record_event(e)
        return detail_text(e.payload, self.returned_text(
            said.returned if isinstance(said, ev.RoundVoided) else ()), self.written_in.text)

    def body_json(self) -> dict[str, Any]:
        return {"cards": [c.to_json() for c in self.cards],
                "seats": {str(s.seat): [w.to_json() for w in s.wagers] for s in self.seats},
                "stages": [s.to_json() for s in self.stages],
                "totals": self.totals.to_json()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LaPaireRecall:
        t = d["totals"]
        return cls(**cls.common_json(d),
                   cards=tuple(DealtCard.from_json(c) for c in d["cards"]),
                   seats=tuple(Seat(int(k), tuple(SeatWager.from_json(w) for w in ws))
                               for k, ws in d["seats"].items()),
                   stages=tuple(Stage.from_json(s) for s in d["stages"]),
                   totals=Totals(t["wagered"], t["paid"], t["lost"]))


def lapaire_recall(journal: Journal, info: RoundInfo, records: list[Record]) -> LaPaireRecall:
    """The registry's ``recall`` part: the round re-settled under its own configuration."""
    stored = journal.config(info.table_id, info.config_version)
    if stored is None:
        raise ValueError(f"configuration {info.config_version[:12]} is not in the journal")
    config = parse_lapaire_config(stored.content, "<journal>")
    rb = rebuild_round(records, config)
    settled = {r.wager_id: r for r in rb.engine.results}
    seats: dict[int, list[SeatWager]] = {}
    for wager_id, w in sorted(rb.engine.wagers.items()):
        r = settled.get(wager_id)
        seats.setdefault(w.seat, []).append(SeatWager(
            wager_id, w.bet, tuple(w.values), w.code, w.amount, w.stage,
            r.result if r else ("returned" if rb.status == "voided" else "pending"),
            r.win if r else 0, rb.wager_actors.get(wager_id)))
    stages = tuple(
        Stage(n, s.card.code, s.poker.label if s.poker is not None else None, s.total_win,
              s.total_lost, n in rb.confirmed,
              tuple(StageWager(r.wager_id, r.wager.seat, r.wager.code, r.result, r.win)
                    for r in s.results))
        for n, s in sorted(rb.stages.items()))
    return LaPaireRecall(
        header=RecallHeader.of(info, rb.status, records=records),
        cards=tuple(DealtCard(c["n"], c["card"], c["source"], c["actor"], c["seq"],
                              c["reason"]) for c in rb.cards),
        seats=tuple(Seat(k, tuple(v)) for k, v in sorted(seats.items())),
        stages=stages,
        totals=Totals(sum(w.amount for ws in seats.values() for w in ws),
                      sum(s.total_win for s in stages), sum(s.total_lost for s in stages)),
        void_reason=rb.void_reason, exceptions=exception_lines(records),
        differences=tuple(rb.differences), records=record_lines(records),
        money=config.money)
