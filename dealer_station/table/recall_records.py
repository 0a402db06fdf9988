"""What every game's recall shows alike: the round's records, and its exceptions to the
normal flow of play (halts, voids, corrections, held cards, reneges)."""

from __future__ import annotations

from typing import Any

from dealer_station.audit.journal import Record

#: Record kinds that are exceptions to the normal flow of a round.
EXCEPTION_KINDS = frozenset({"halt", "resolve", "void", "correction", "card.held", "renege",
                             "recovery", "device.fault"})


def records_view(records: list[Record]) -> list[dict[str, Any]]:
    return [{"seq": r.seq, "ts": r.ts, "actor": r.actor, "kind": r.kind, "payload": r.payload,
             "hash": r.hash} for r in records]


def exceptions_view(records: list[Record]) -> list[dict[str, Any]]:
    return [{"seq": r.seq, "ts": r.ts, "actor": r.actor, "kind": r.kind,
             "reason": r.payload.get("reason") or r.payload.get("detail")
             or r.payload.get("note"), "payload": r.payload}
            for r in records if r.kind in EXCEPTION_KINDS]
