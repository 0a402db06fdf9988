"""La Pair'e rounds as journal records, and back.

One module holds both directions so they cannot drift: the payloads the live table writes,
and :func:`rebuild_round`, which replays a round's records through the engine. Crash recovery,
``audit replay``, recall and the meters check all read rounds through here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from dealer_station.audit.journal import MeterDelta, Record
from dealer_station.cards import parse_card
from dealer_station.events import Committed
from dealer_station.events.table import HaltResolved, RoundHalted
from dealer_station.games.lapaire import events as ev
from dealer_station.games.lapaire.events import CODEC
from dealer_station.games.lapaire.rules.config import LaPaireConfig, parse_lapaire_config
from dealer_station.games.lapaire.rules.engine import (
    LaPaireRound,
    StageResult,
    Wager,
    WagerResult,
)
from dealer_station.games.lapaire.rules.house_math import scaled_edges

GAME = "lapaire"
TOTAL_METER = "total"


def wager_payload(wager_id: int, wager: Wager) -> dict[str, Any]:
    return {"wager_id": wager_id, "seat": wager.seat, "bet": wager.bet,
            "values": list(wager.values), "amount": wager.amount}



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


def theoretical_meters(results: Sequence[WagerResult], config: LaPaireConfig
                       ) -> dict[str, tuple[int, int]]:
    """Per wager kind and in total, the settled wagers' theoretical win, exactly: (each
    stake x its own spot's house edge, summed over the configuration's one denominator;
    that denominator). Wagers returned by a void were never in action and count nowhere."""
    edges, den = scaled_edges(config)
    acc: dict[str, int] = {}
    for r in results:
        t = r.wager.amount * edges.get((r.wager.bet, tuple(r.wager.values)), 0)
        for key in (r.wager.bet, TOTAL_METER):
            acc[key] = acc.get(key, 0) + t
    return {k: (n, den) for k, n in acc.items()}


def meters_payload(deltas: Mapping[str, MeterDelta],
                   theoretical: Mapping[str, tuple[int, int]] | None = None
                   ) -> dict[str, dict[str, Any]]:
    """A closing record's meters; with ``theoretical``, each meter also carries its
    theoretical win as ``[numerator, denominator]`` (reports sum these rather than read
    every wager again)."""
    out: dict[str, dict[str, Any]] = {
        k: {"wagered": d.wagered, "paid": d.paid, "house_win": int(d.house_win or 0)}
        for k, d in sorted(deltas.items())}
    if theoretical is not None:
        for k, m in out.items():
            n, den = theoretical.get(k, (0, 1))
            m["theoretical"] = [n, den]
    return out


def round_meters(results: Sequence[WagerResult], config: LaPaireConfig
                 ) -> dict[str, dict[str, Any]]:
    """The meters a round's closing record carries (:func:`meters_payload` with the
    theoretical win), over the wagers it settled."""
    return meters_payload(meter_deltas(results), theoretical_meters(results, config))


def returned_stakes(engine: LaPaireRound) -> int:
    """The stakes a void hands back: every wager not yet settled."""
    return sum(w.amount for _, w in engine.pending())


@dataclass
class RebuiltRound:
    """A round as its events say, applied to the engine (:func:`apply_round`)."""

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
    halted: Committed | None = None     # the halt not yet resolved, if any
    wager_actors: dict[int, str] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)

    def trial(self) -> RebuiltRound:
        """A copy to decide an intent on: applying events to it leaves this round as it is."""
        return replace(self, engine=self.engine.copy(), stages=dict(self.stages),
                       confirmed=set(self.confirmed), recorded=dict(self.recorded),
                       cards=list(self.cards), wager_actors=dict(self.wager_actors),
                       differences=list(self.differences))


def open_round(c: Committed, config: LaPaireConfig) -> RebuiltRound:
    """A round as its opening event starts it."""
    e = c.event
    if not isinstance(e, ev.RoundOpened):
        raise ValueError(f"round {c.round_no} does not start with round.open")
    return RebuiltRound(int(c.round_no or 0), e.config_version, e.dealer, LaPaireRound(config))


def apply_round(rb: RebuiltRound, c: Committed) -> None:
    """One committed event of the round, applied: the only code that changes a round, live,
    in recovery, in replay and in recall. Where the engine settles differently from what was
    recorded, the difference is listed (replay reports it; recovery refuses the round)."""
    e = c.event
    if isinstance(e, ev.WagerPlaced):
        placed = rb.engine.place(Wager(e.seat, e.bet, e.values, e.amount))
        if placed.wager_id != e.wager_id:
            rb.differences.append(f"record {c.seq}: wager id {e.wager_id} replays as "
                                  f"{placed.wager_id}")
        rb.wager_actors[placed.wager_id] = c.actor
    elif isinstance(e, ev.WagerRemoved):
        rb.engine.remove(e.wager_id)
    elif isinstance(e, ev.BettingClosed):
        rb.engine.close_betting()
    elif isinstance(e, ev.CardDealt):
        rb.cards.append({"n": e.n, "card": e.card, "source": e.source, "actor": c.actor,
                         "seq": c.seq, "reason": e.reason})
        stage = rb.engine.deal(parse_card(e.card))
        rb.stages[stage.stage] = stage
    elif isinstance(e, ev.StageSettled):
        n = e.stage
        rb.recorded[n] = e.to_payload()
        mine = rb.stages.get(n)
        if mine is None:
            rb.differences.append(f"record {c.seq}: stage {n} settled before its card")
        elif results_payload(mine.results) != [dict(r) for r in e.results]:
            rb.differences.append(
                f"round {rb.round_no} stage {n}: recorded {e.total_win} paid, settles now "
                f"as {mine.total_win}" if e.total_win != mine.total_win else
                f"round {rb.round_no} stage {n}: the recorded results differ from a "
                f"re-settlement")
    elif isinstance(e, ev.PayoutConfirmed):
        rb.confirmed.add(e.stage)
    elif isinstance(e, RoundHalted):
        rb.halted = c
    elif isinstance(e, HaltResolved):
        rb.halted = None
    elif isinstance(e, ev.RoundClosed):
        rb.status = "settled"
        rb.close = e.to_payload()
        rb.halted = None
        # A record written before closing meters carried the theoretical win has none.
        theo = any(isinstance(m, Mapping) and "theoretical" in m for m in e.meters.values())
        if e.meters != (round_meters(rb.engine.results, rb.engine.config) if theo
                        else meters_payload(meter_deltas(rb.engine.results))):
            rb.differences.append(f"round {rb.round_no}: recorded meters differ from the "
                                  f"re-settled round")
    elif isinstance(e, ev.RoundVoided):
        rb.status = "voided"
        rb.void_reason = e.reason
        rb.close = e.to_payload()
        rb.halted = None


def round_events(records: Sequence[Record]) -> list[Committed]:
    """A round's records as typed events (a payload that is not what its kind says is an
    EventError naming the record)."""
    return [CODEC.committed(r.seq, r.ts, r.actor, r.round_no, r.kind, r.payload)
            for r in records]


def rebuild_round(records: Sequence[Record], config: LaPaireConfig) -> RebuiltRound:
    """Replay one round's records through :func:`apply_round`."""
    return rebuild_events(round_events(records), config)


def rebuild_events(events: Sequence[Committed], config: LaPaireConfig) -> RebuiltRound:
    """Replay one round's events (its records decoded) through :func:`apply_round`."""
    if not events:
        raise ValueError("a round with no records")
    rb = open_round(events[0], config)
    for c in events:
        apply_round(rb, c)
    for n in rb.stages:
        if n not in rb.recorded:
            rb.differences.append(f"round {rb.round_no}: card {n} has no recorded settlement")
    return rb




def replay_round(records: list[Record], configs: Any
                 ) -> tuple[str, list[str], dict[str, MeterDelta]]:
    """``audit replay`` for one round: re-settled under the configuration it was played
    with. A round still open adds nothing to the meters."""
    events = round_events(records)
    opening = events[0].event if events else None
    if not isinstance(opening, ev.RoundOpened):
        raise ValueError(f"round {records[0].round_no} does not start with round.open")
    config = configs.get(opening.config_version, parse_lapaire_config)
    rb = rebuild_events(events, config)
    deltas = meter_deltas(rb.engine.results) if rb.status != "open" else {}
    return rb.status, rb.differences, deltas
