"""La Pair'e rounds as journal records, and back.

One module holds both directions so they cannot drift: the payloads the live table writes,
and :func:`rebuild_round`, which replays a round's records through the engine. Crash recovery,
``audit replay``, recall and the meters check all read rounds through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer_station.audit.journal import Journal, MeterDelta, Record, RoundInfo
from dealer_station.cards import parse_card
from dealer_station.settlement.lapaire import (
    LaPaireRound,
    StageResult,
    Wager,
    WagerResult,
)
from dealer_station.settlement.lapaire_config import LaPaireConfig, parse_lapaire_config
from dealer_station.table.recall_records import exceptions_view, records_view

GAME = "lapaire"
TOTAL_METER = "total"


def wager_payload(wager_id: int, wager: Wager) -> dict[str, Any]:
    return {"wager_id": wager_id, "seat": wager.seat, "bet": wager.bet,
            "values": list(wager.values), "amount": wager.amount}


def wager_from_payload(p: Mapping[str, Any]) -> Wager:
    return Wager(int(p["seat"]), str(p["bet"]), tuple(p["values"]), int(p["amount"]))


def results_payload(results: Iterable[WagerResult]) -> list[dict[str, Any]]:
    return [{"wager_id": r.wager_id, "seat": r.wager.seat, "bet": r.wager.bet,
             "won": r.won, "win": r.win} for r in results]


def stage_payload(stage: StageResult) -> dict[str, Any]:
    return {"stage": stage.stage, "card": stage.card.code,
            "results": results_payload(stage.results),
            "total_win": stage.total_win, "total_lost": stage.total_lost,
            "poker": stage.poker.hand if stage.poker is not None else None}


def meter_deltas(results: Sequence[WagerResult]) -> dict[str, MeterDelta]:
    """Meters for a closed round: per wager kind and in total, over the wagers it settled.

    ``paid`` is what the house paid out beyond returned stakes; ``house_win`` = stakes lost
    minus amounts paid. Wagers returned by a void were never in action and count nowhere.
    """
    acc: dict[str, list[int]] = {}
    for r in results:
        for key in (r.wager.bet, TOTAL_METER):
            a = acc.setdefault(key, [0, 0, 0])
            a[0] += r.wager.amount
            a[1] += r.win
            a[2] += 0 if r.won else r.wager.amount
    return {k: MeterDelta(rounds=1, wagered=w, paid=p, house_win=lost - p)
            for k, (w, p, lost) in acc.items()}


def meters_payload(deltas: Mapping[str, MeterDelta]) -> dict[str, dict[str, int]]:
    return {k: {"wagered": d.wagered, "paid": d.paid, "house_win": int(d.house_win or 0)}
            for k, d in sorted(deltas.items())}


@dataclass
class RebuiltRound:
    """A round as its records say, replayed through the engine."""

    round_no: int
    config_version: str
    dealer: str
    engine: LaPaireRound
    stages: dict[int, StageResult] = field(default_factory=dict)
    confirmed: set[int] = field(default_factory=set)
    recorded: dict[int, dict[str, Any]] = field(default_factory=dict)
    cards: list[dict[str, Any]] = field(default_factory=list)
    status: str = "open"
    void_reason: str | None = None
    close: dict[str, Any] | None = None
    halts: list[Record] = field(default_factory=list)
    resolves: list[Record] = field(default_factory=list)
    wager_actors: dict[int, str] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)

    @property
    def halted(self) -> Record | None:
        """The last halt not followed by a resolution, if any."""
        if not self.halts:
            return None
        last = self.halts[-1]
        if any(r.seq > last.seq for r in self.resolves):
            return None
        return last


def rebuild_round(records: Sequence[Record], config: LaPaireConfig) -> RebuiltRound:
    """Replay one round's records. Differences between what the engine settles now and what
    was recorded are listed in ``differences`` (replay reports them; recovery refuses them)."""
    opening = records[0]
    if opening.kind != "round.open":
        raise ValueError(f"round {opening.round_no} does not start with round.open")
    rb = RebuiltRound(int(opening.round_no or 0), str(opening.payload["config_version"]),
                      str(opening.payload["dealer"]), LaPaireRound(config))
    for rec in records:
        rb.records.append(rec)
        p = rec.payload
        kind = rec.kind
        if kind == "wager.place":
            placed = rb.engine.place(wager_from_payload(p))
            if placed.wager_id != p["wager_id"]:
                rb.differences.append(f"record {rec.seq}: wager id {p['wager_id']} replays as "
                                      f"{placed.wager_id}")
            rb.wager_actors[placed.wager_id] = rec.actor
        elif kind == "wager.remove":
            rb.engine.remove(int(p["wager_id"]))
        elif kind == "betting.close":
            rb.engine.close_betting()
        elif kind == "card":
            rb.cards.append({"n": p["n"], "card": p["card"], "source": p.get("source"),
                             "actor": rec.actor, "seq": rec.seq, "reason": p.get("reason")})
            stage = rb.engine.deal(parse_card(str(p["card"])))
            rb.stages[stage.stage] = stage
        elif kind == "stage.settle":
            n = int(p["stage"])
            rb.recorded[n] = dict(p)
            mine = rb.stages.get(n)
            if mine is None:
                rb.differences.append(f"record {rec.seq}: stage {n} settled before its card")
            elif results_payload(mine.results) != p["results"]:
                rb.differences.append(
                    f"round {rb.round_no} stage {n}: recorded {_total(p)} paid, settles now "
                    f"as {mine.total_win}" if _total(p) != mine.total_win else
                    f"round {rb.round_no} stage {n}: the recorded results differ from a "
                    f"re-settlement")
        elif kind == "payout.confirm":
            rb.confirmed.add(int(p["stage"]))
        elif kind == "halt":
            rb.halts.append(rec)
        elif kind == "resolve":
            rb.resolves.append(rec)
        elif kind == "round.close":
            rb.status = "settled"
            rb.close = dict(p)
            expected = meters_payload(meter_deltas(rb.engine.results))
            if p.get("meters") != expected:
                rb.differences.append(f"round {rb.round_no}: recorded meters differ from the "
                                      f"re-settled round")
        elif kind == "void":
            rb.status = "voided"
            rb.void_reason = str(p.get("reason"))
            rb.close = dict(p)
    for n in rb.stages:
        if n not in rb.recorded:
            rb.differences.append(f"round {rb.round_no}: card {n} has no recorded settlement")
    return rb


def _total(p: Mapping[str, Any]) -> int:
    return int(p.get("total_win", 0))


def lapaire_recall(journal: Journal, info: RoundInfo, records: list[Record]) -> dict[str, Any]:
    stored = journal.config(info.table_id, info.config_version)
    if stored is None:
        raise ValueError(f"configuration {info.config_version[:12]} is not in the journal")
    rb = rebuild_round(records, parse_lapaire_config(stored.content, "<journal>"))
    settled = {r.wager_id: r for r in rb.engine.results}
    seats: dict[int, list[dict[str, Any]]] = {}
    for wager_id, w in sorted(rb.engine.wagers.items()):
        r = settled.get(wager_id)
        seats.setdefault(w.seat, []).append({
            "wager_id": wager_id, "bet": w.bet, "values": list(w.values), "label": w.label,
            "amount": w.amount, "stage": w.stage,
            "result": r.result if r else ("returned" if rb.status == "voided" else "pending"),
            "win": r.win if r else 0, "placed_by": rb.wager_actors.get(wager_id)})
    stages = [{"stage": n, "card": s.card.code,
               "poker": s.poker.label if s.poker is not None else None,
               "total_win": s.total_win, "total_lost": s.total_lost,
               "confirmed": n in rb.confirmed,
               "results": [{"wager_id": r.wager_id, "seat": r.wager.seat, "label": r.wager.label,
                            "result": r.result, "win": r.win} for r in s.results]}
              for n, s in sorted(rb.stages.items())]
    return {
        "table": info.table_id, "round_no": info.round_no, "game": info.game,
        "status": rb.status, "dealer": info.dealer, "started_at": info.started_at,
        "ended_at": info.ended_at, "config_version": info.config_version,
        "cards": rb.cards, "seats": {str(k): v for k, v in sorted(seats.items())},
        "stages": stages,
        "totals": {"wagered": sum(w["amount"] for ws in seats.values() for w in ws),
                   "paid": sum(s["total_win"] for s in stages),
                   "lost": sum(s["total_lost"] for s in stages)},
        "void_reason": rb.void_reason,
        "exceptions": exceptions_view(records),
        "differences": rb.differences,
        "records": records_view(records),
    }


def replay_round(records: list[Record], configs: Any
                 ) -> tuple[str, list[str], dict[str, MeterDelta]]:
    """``audit replay`` for one round: re-settled under the configuration it was played
    with. A round still open adds nothing to the meters."""
    config = configs.get(str(records[0].payload["config_version"]), parse_lapaire_config)
    rb = rebuild_round(records, config)
    deltas = meter_deltas(rb.engine.results) if rb.status != "open" else {}
    return rb.status, rb.differences, deltas
