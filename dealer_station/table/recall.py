"""Game recall: the last rounds of a table, rebuilt from the journal alone.

The same plain-data form feeds ``dealer-station recall``, the supervisor's recall screen and the
printed dispute report, so all three say the same thing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dealer_station.audit.journal import Journal, Record, RoundInfo
from dealer_station.settlement.lapaire_config import parse_lapaire_config
from dealer_station.table.lapaire_rounds import rebuild_round

#: Record kinds that are exceptions to the normal flow of a round.
EXCEPTION_KINDS = frozenset({"halt", "resolve", "void", "correction", "card.held", "renege",
                             "recovery", "device.fault"})


def _records_view(records: list[Record]) -> list[dict[str, Any]]:
    return [{"seq": r.seq, "ts": r.ts, "actor": r.actor, "kind": r.kind, "payload": r.payload,
             "hash": r.hash} for r in records]


def _exceptions(records: list[Record]) -> list[dict[str, Any]]:
    return [{"seq": r.seq, "ts": r.ts, "actor": r.actor, "kind": r.kind,
             "reason": r.payload.get("reason") or r.payload.get("detail")
             or r.payload.get("note"), "payload": r.payload}
            for r in records if r.kind in EXCEPTION_KINDS]


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
        "exceptions": _exceptions(records),
        "differences": rb.differences,
        "records": _records_view(records),
    }


RECALLERS: dict[str, Callable[[Journal, RoundInfo, list[Record]], dict[str, Any]]] = {
    "lapaire": lapaire_recall,
}


def register_recaller(game: str,
                      func: Callable[[Journal, RoundInfo, list[Record]], dict[str, Any]]
                      ) -> None:
    RECALLERS[game] = func


def recall_round(journal: Journal, info: RoundInfo) -> dict[str, Any]:
    records = journal.round_records(info.table_id, info.round_no)
    if info.game not in RECALLERS:
        from dealer_station.table import bourre_rounds  # noqa: F401  (registers Bourré)
    return RECALLERS[info.game](journal, info, records)


def recall(journal: Journal, table_id: str, last: int = 10) -> list[dict[str, Any]]:
    """The last ``last`` rounds of ``table_id``, newest first."""
    return [recall_round(journal, info) for info in journal.recent_rounds(table_id, last)]
