"""One live La Pair'e table: wagers, cards from the shoe, staged settlement, payouts, voids.

Every change is verified, journaled and committed, then applied and announced (see base.py).
A round opens with its first wager (or its first card), closes when the dealer has confirmed
the payouts of all three stages, and is settled under exactly one configuration version.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Fact, Journal
from dealer_station.audit.users import User
from dealer_station.cards import LAPAIRE_DECK, Card, CardError, parse_card
from dealer_station.hardware.events import CardRead
from dealer_station.settlement.lapaire import (
    LaPaireRound,
    Placement,
    SeatTotal,
    StageResult,
    Wager,
)
from dealer_station.settlement.lapaire_config import LaPaireConfig, Money, parse_lapaire_config
from dealer_station.table.base import STATION_ACTOR, Halt, TableError, TableService
from dealer_station.table.lapaire_rounds import (
    GAME,
    RebuiltRound,
    meter_deltas,
    meters_payload,
    rebuild_round,
    stage_payload,
    wager_payload,
)

STAGES = (1, 2, 3)


class LaPaireTable(TableService):
    game = GAME

    def __init__(self, journal: Journal, table_id: str, config: LaPaireConfig, *,
                 dealer: str, prefer_journal_config: bool = True) -> None:
        super().__init__(journal, table_id, dealer=dealer)
        self.config = config
        self.version = ""
        self.pending: tuple[LaPaireConfig, str] | None = None
        self.current: RebuiltRound | None = None
        self.last_closed: RebuiltRound | None = None
        self._adopt_config(prefer_journal_config)
        self._recover()

    # -- configuration ---------------------------------------------------------------------

    def _adopt_config(self, prefer_journal: bool) -> None:
        """Use the journal's latest version for this table unless told to load the file's.

        Operators change the configuration on the station and those changes live in the journal;
        a restart must not silently undo them by re-reading the file.
        """
        versions = self.journal.config_versions(self.table_id)
        mine = [v for v in versions if v.game == GAME]
        if mine and prefer_journal:
            latest = mine[-1]
            self.config = parse_lapaire_config(latest.content, "<journal>")
            self.version = latest.version
            return
        content = self.config.to_data()
        version = config_version(canonical_json(content))
        if not mine or mine[-1].version != version:
            self._record_config(content, version, STATION_ACTOR,
                                "configuration loaded at start-up", {"source": "file"})
        self.version = version

    def _record_config(self, content: dict[str, Any], version: str, actor: str, reason: str,
                       what: dict[str, Any]) -> None:
        def also(conn: Any) -> None:
            self.journal.record_config_version(conn, table_id=self.table_id, game=GAME,
                                               content=content, created_by=actor,
                                               reason=reason, created_at=self.journal.now())
        # The content is in the record itself, so the chain alone establishes what is paid.
        self.append([Fact("config.change", {"version": version, "game": GAME,
                                            "reason": reason, "changes": what,
                                            "content": content}, actor)], also)

    def change_config(self, user: User, new: LaPaireConfig, reason: str,
                      what: dict[str, Any] | None = None) -> str:
        """An operator's change: journaled now, in force from the next round. Returns the
        version. The caller shows the par sheet of ``new`` before calling this."""
        with self.lock:
            self.require_supervisor(user, "change the table configuration")
            reason = self.require_reason(reason)
            content = new.to_data()
            version = config_version(canonical_json(content))
            if version == (self.pending[1] if self.pending else self.version):
                raise TableError("that configuration is already the one in force")
            self._record_config(content, version, user.actor, reason, what or {})
            if self.current is None:
                self.config, self.version = new, version
            else:
                self.pending = (new, version)
            self.emit("config.changed", version=version, pending=self.current is not None)
            return version

    # -- recovery --------------------------------------------------------------------------

    def _config_for(self, version: str) -> LaPaireConfig:
        if version == self.version:
            return self.config
        stored = self.journal.config(self.table_id, version)
        if stored is None:
            raise TableError(f"configuration version {version[:12]} is not in the journal")
        return parse_lapaire_config(stored.content, "<journal>")

    def _rebuild(self, round_no: int) -> RebuiltRound:
        records = self.journal.round_records(self.table_id, round_no)
        info = records[0].payload
        return rebuild_round(records, self._config_for(str(info["config_version"])))

    def _recover(self) -> None:
        """Restore an open round at the stage it reached (after a crash or power cut)."""
        for info in self.journal.open_rounds(self.table_id):
            if info.game != GAME:
                continue
            rb = self._rebuild(info.round_no)
            self.current = rb
            self.config = self._config_for(rb.config_version)
            self.record("recovery", {"round_no": rb.round_no, "stage": rb.engine.stage,
                                     "wagers": len(rb.engine.wagers),
                                     "confirmed": sorted(rb.confirmed),
                                     "differences": rb.differences}, STATION_ACTOR,
                        rb.round_no)
            halt = rb.halted
            if rb.differences:
                self.stop_round("the recovered round does not re-settle as recorded: "
                                + "; ".join(rb.differences), "replay_mismatch",
                                "A supervisor voids the round with a reason.", STATION_ACTOR)
            elif halt is not None:
                self.halt = Halt(str(halt.payload["reason"]), str(halt.payload["fault"]),
                                 halt.seq, str(halt.payload.get("remedy", "")))

    # -- state -----------------------------------------------------------------------------

    def in_round(self) -> bool:
        return self.current is not None

    @property
    def round_no(self) -> int | None:
        return self.current.round_no if self.current else None

    @property
    def engine(self) -> LaPaireRound | None:
        return self.current.engine if self.current else None

    @property
    def money(self) -> Money:
        return self.config.money

    def describe_round(self) -> str:
        with self.lock:
            engine = self.engine
            if engine is None:
                return ""
            cards = " ".join(c.label for c in engine.cards) or "none yet"
            bets = "open" if engine.betting_open else "closed"
            return f"cards dealt: {cards} · betting {bets} · {len(engine.wagers)} wagers"

    def seat_totals(self) -> dict[int, SeatTotal]:
        return self.current.engine.seat_totals() if self.current else {}

    def unconfirmed(self) -> list[int]:
        if self.current is None:
            return []
        return [n for n in sorted(self.current.stages) if n not in self.current.confirmed]

    def can_place(self, wager: Wager) -> bool:
        """Whether ``wager`` may be placed now (:meth:`place_refusal` says why not)."""
        return self.place_refusal(wager) is None

    def place_refusal(self, wager: Wager) -> str | None:
        """None if ``wager`` may be placed now, else the reason it may not."""
        if self.halt is not None:
            return f"the round is stopped: {self.halt.reason}"
        # Between rounds, the next round's configuration decides (an operator's pending one).
        upcoming = self.pending[0] if self.pending else self.config
        engine = self.current.engine if self.current else LaPaireRound(upcoming)
        try:
            engine.verify_place(wager)
        except ValueError as exc:
            return str(exc)
        return None

    # -- intents ---------------------------------------------------------------------------

    def _start_round(self) -> tuple[RebuiltRound, list[Fact]]:
        """A fresh in-memory round and the fact that opens it (written with the caller's).

        Nothing is consumed here: the round number and an operator's pending configuration
        are taken only once the opening is committed (see ``_opened``).
        """
        config, version = self.pending if self.pending else (self.config, self.version)
        round_no = self.last_round_no() + 1
        rb = RebuiltRound(round_no, version, self.dealer, LaPaireRound(config))
        return rb, [Fact("round.open", {"game": GAME, "config_version": version,
                                        "dealer": self.dealer}, self.dealer, round_no)]

    def _opened(self, rb: RebuiltRound) -> None:
        self._last_round = rb.round_no
        if self.pending is not None and self.pending[1] == rb.config_version:
            self.config, self.version = self.pending
            self.pending = None
        for handle in self.devices.values():
            handle.start_round(LAPAIRE_DECK)

    def _commit(self, rb: RebuiltRound, facts: list[Fact], opening: bool,
                closing: bool = False) -> None:
        # The rounds row is written when a round opens and when it closes; in between, the
        # round's records are found by round number.
        deltas = meter_deltas(rb.engine.results) if closing else {}

        def also(conn: Any) -> None:
            if opening:
                self.journal.upsert_round(conn, self.table_id, rb.round_no, game=GAME,
                                          config_version=rb.config_version, dealer=self.dealer)
            if closing:
                self.journal.upsert_round(conn, self.table_id, rb.round_no, status="settled")
                self.journal.add_meters(conn, self.table_id, deltas)
        try:
            rb.records.extend(self.append(facts, also if opening or closing else None))
        except Exception:
            # Memory ran ahead of the journal: put it back to what is recorded.
            self.current = None if opening else self._rebuild(rb.round_no)
            raise
        if opening:
            self._opened(rb)
        self.current = rb

    def _payout_facts(self, rb: RebuiltRound, actor: str, confirm: int | None
                      ) -> tuple[list[Fact], list[int], bool]:
        """The confirmations due now, and the round's close when all three are in.

        ``confirm`` is the stage the dealer has just paid; after it, every settled stage with
        nothing to pay is confirmed by the station (a dealer is not asked to confirm paying
        nothing). Returns the facts, the stages they confirm, and whether the round closes.
        """
        facts: list[Fact] = []
        confirmed: list[int] = []
        if confirm is not None:
            facts.append(Fact("payout.confirm", {"stage": confirm,
                                                 "total_win": rb.stages[confirm].total_win},
                              actor, rb.round_no))
            confirmed.append(confirm)
        done = set(rb.confirmed) | set(confirmed)
        for n in STAGES:
            if n in done:
                continue
            if n not in rb.stages or rb.stages[n].total_win or any(
                    m not in done for m in STAGES if m < n):
                break
            facts.append(Fact("payout.confirm", {"stage": n, "total_win": 0, "auto": True},
                              STATION_ACTOR, rb.round_no))
            confirmed.append(n)
            done.add(n)
        closing = rb.engine.is_complete and done == set(STAGES)
        if closing:
            deltas = meter_deltas(rb.engine.results)
            facts.append(Fact("round.close", {**self._summary(rb),
                                              "meters": meters_payload(deltas)},
                              STATION_ACTOR, rb.round_no))
        return facts, confirmed, closing

    def _after_payouts(self, rb: RebuiltRound, confirmed: list[int], closing: bool) -> None:
        for n in confirmed:
            self.emit("payout.confirmed", round_no=rb.round_no, stage=n)
        if closing:
            rb.status, rb.close = "settled", dict(rb.records[-1].payload)
            self._finish(rb)

    def place(self, wager: Wager, actor: str | None = None) -> Placement:
        return self.place_many([wager], actor)[0]

    def place_many(self, wagers: Sequence[Wager], actor: str | None = None) -> list[Placement]:
        """Place wagers in order as one journaled step (all or none)."""
        with self.lock:
            self.check_not_halted()
            actor = actor or self.dealer
            opening = self.current is None
            rb, facts = self._start_round() if opening else (self.current, [])
            assert rb is not None
            placed: list[Placement] = []
            try:
                for w in wagers:
                    placed.append(rb.engine.place(w))
            except ValueError:
                if placed and not opening:  # undo the ones applied before the refusal
                    self.current = self._rebuild(rb.round_no)
                raise
            facts += [Fact("wager.place", wager_payload(p.wager_id, p.wager), actor,
                           rb.round_no) for p in placed]
            self._commit(rb, facts, opening)
            for p in placed:
                rb.wager_actors[p.wager_id] = actor
                self.emit("wager.placed", round_no=rb.round_no, wager_id=p.wager_id,
                          wager=p.wager)
            return placed

    def remove(self, wager_id: int, actor: str | None = None) -> None:
        with self.lock:
            self.check_not_halted()
            rb = self._require_round()
            rb.engine.verify_remove(wager_id)
            removal = rb.engine.remove(wager_id)
            self._commit(rb, [Fact("wager.remove", {"wager_id": wager_id},
                                   actor or self.dealer, rb.round_no)], False)
            self.emit("wager.removed", round_no=rb.round_no, wager_id=wager_id,
                      wager=removal.wager)

    def close_betting(self, actor: str | None = None) -> None:
        with self.lock:
            self.check_not_halted()
            rb = self._require_round()
            rb.engine.close_betting()
            self._commit(rb, [Fact("betting.close", {"wagers": len(rb.engine.wagers)},
                                   actor or self.dealer, rb.round_no)], False)
            self.emit("betting.closed", round_no=rb.round_no)

    def _require_round(self) -> RebuiltRound:
        if self.current is None:
            raise TableError("no round is open: place a wager to start one")
        return self.current

    def deal(self, card: Card | str, *, source: str = "manual", actor: str | None = None,
             device_seq: int | None = None, reason: str | None = None) -> StageResult:
        """Accept the next card and settle its stage (journaled in one commit)."""
        with self.lock:
            self.check_not_halted()
            return self._deal(parse_card(card) if isinstance(card, str) else card, source,
                              actor or self.dealer, device_seq, reason)

    def _deal(self, card: Card, source: str, actor: str, device_seq: int | None,
              reason: str | None, before: Sequence[Fact] = ()) -> StageResult:
        opening = self.current is None
        rb, facts = self._start_round() if opening else (self.current, [])
        assert rb is not None
        rb.engine.verify_deal(card)
        facts += before
        if rb.engine.betting_open:
            facts.append(Fact("betting.close", {"wagers": len(rb.engine.wagers)}, actor,
                              rb.round_no))
        stage = rb.engine.deal(card)
        rb.stages[stage.stage] = stage
        payload: dict[str, Any] = {"n": stage.stage, "card": card.code, "source": source}
        if device_seq is not None:
            payload["device_seq"] = device_seq
        if reason:
            payload["reason"] = reason
        facts.append(Fact("card", payload, actor, rb.round_no))
        facts.append(Fact("stage.settle", stage_payload(stage), STATION_ACTOR, rb.round_no))
        rb.cards.append({"n": stage.stage, "card": card.code, "source": source,
                         "actor": actor, "reason": reason})
        more, confirmed, closing = self._payout_facts(rb, actor, None)
        self._commit(rb, facts + more, opening, closing)
        rb.confirmed.update(confirmed)
        self.emit("card", round_no=rb.round_no, n=stage.stage, card=card, source=source)
        self.emit("stage.settled", round_no=rb.round_no, stage=stage)
        self._after_payouts(rb, confirmed, closing)
        return stage

    def card_from_device(self, event: CardRead, actor: str) -> None:
        if self.halt is not None:
            self.record("card.held", {"card": event.card.code, "device": event.device,
                                      "device_seq": event.seq,
                                      "note": "read while the round was stopped; not dealt"},
                        actor, self.round_no)
            self.emit("card.held", card=event.card)
            return
        try:
            self._deal(event.card, event.device, actor, event.seq, None)
        except (CardError, ValueError) as exc:
            self.stop_round(f"{event.device} read {event.card.code}: {exc}",
                            "impossible_card", self.remedy_for("impossible_card"), actor,
                            {"card": event.card.code, "device_seq": event.seq})

    def confirm_payout(self, stage: int, actor: str | None = None) -> bool:
        """The dealer has paid stage ``stage``. Returns True if this closed the round.

        A stage already confirmed (by the dealer, or by the station because it had nothing to
        pay) is not confirmed twice: the call returns False and writes nothing.
        """
        with self.lock:
            rb = self._require_round()
            if stage not in rb.stages:
                raise TableError(f"stage {stage} has not been settled yet: its card is not in")
            if stage in rb.confirmed:
                return False
            earlier = [n for n in STAGES if n < stage and n not in rb.confirmed]
            if earlier:
                raise TableError(f"confirm stage {earlier[0]} first")
            facts, confirmed, closing = self._payout_facts(rb, actor or self.dealer, stage)
            self._commit(rb, facts, False, closing)
            rb.confirmed.update(confirmed)
            self._after_payouts(rb, confirmed, closing)
            return closing

    def _commit_closing(self, rb: RebuiltRound, facts: list[Fact], deltas: dict[str, Any],
                        fields: dict[str, Any]) -> None:
        def also(conn: Any) -> None:
            self.journal.upsert_round(conn, self.table_id, rb.round_no, **fields)
            if deltas:
                self.journal.add_meters(conn, self.table_id, deltas)
        try:
            rb.records.extend(self.append(facts, also))
        except Exception:
            self.current = self._rebuild(rb.round_no)
            raise

    @staticmethod
    def _summary(rb: RebuiltRound) -> dict[str, Any]:
        results = rb.engine.results
        return {"cards": [c.code for c in rb.engine.cards],
                "wagers": len(rb.engine.wagers),
                "wagered": sum(r.wager.amount for r in results),
                "total_win": sum(r.win for r in results),
                "total_lost": sum(r.wager.amount for r in results if not r.won)}

    def _finish(self, rb: RebuiltRound) -> None:
        self.current = None
        self.last_closed = rb
        for handle in self.devices.values():
            handle.end_round()
        self.emit("round.closed", round_no=rb.round_no, summary=self._summary(rb))

    # -- supervisor ------------------------------------------------------------------------

    def void(self, user: User, reason: str) -> None:
        """Void the open round: wagers not yet settled are returned; settled stages stand."""
        with self.lock:
            self.require_supervisor(user, "void a round")
            reason = self.require_reason(reason)
            rb = self._require_round()
            returned = [i for i, _ in rb.engine.pending()]
            deltas = meter_deltas(rb.engine.results) if rb.engine.results else {}
            # The void record carries the round's summary: the rounds row is derived from it.
            facts = [Fact("void", {**self._summary(rb), "voided": True, "reason": reason,
                                   "returned": returned,
                                   "halt_seq": self.halt.seq if self.halt else None,
                                   "meters": meters_payload(deltas)}, user.actor,
                          rb.round_no)]
            self._commit_closing(rb, facts, deltas, {"status": "voided"})
            rb.status, rb.void_reason = "voided", reason
            self.halt = None
            self.emit("round.voided", round_no=rb.round_no, reason=reason, returned=returned)
            self._finish(rb)

    def correct_card(self, user: User, card: Card | str, reason: str) -> StageResult:
        """A supervisor enters the card actually dealt after a misread or an impossible read,
        which settles its stage and lets the round go on."""
        with self.lock:
            self.require_supervisor(user, "correct a card")
            reason = self.require_reason(reason)
            rb = self._require_round()
            if self.halt is None or self.halt.fault not in ("misread", "impossible_card"):
                raise TableError("a card can be corrected only while the round is stopped for "
                                 "a misread or an impossible card")
            c = parse_card(card) if isinstance(card, str) else card
            rb.engine.verify_deal(c)
            halt = self.halt
            # The correction, the resolution and the card's settlement commit together.
            before = [Fact("correction", {"n": rb.engine.stage + 1, "card": c.code,
                                          "reason": reason, "halt_seq": halt.seq},
                           user.actor, rb.round_no),
                      Fact("resolve", {"action": "correction", "reason": reason,
                                       "halt_seq": halt.seq}, user.actor, rb.round_no)]
            stage = self._deal(c, "correction", user.actor, None, reason, before)
            self.halt = None
            self.emit("resolved", action="correction", reason=reason)
            return stage

    def resolved_rounds(self, last: int = 10) -> list[RebuiltRound]:
        """The last rounds rebuilt from the journal (game recall)."""
        return [self._rebuild(info.round_no)
                for info in self.journal.recent_rounds(self.table_id, last)
                if info.game == GAME]


def wagers_from(items: Iterable[tuple[int, str, Sequence[str], int]]) -> list[Wager]:
    return [Wager(seat, bet, tuple(values), amount) for seat, bet, values, amount in items]


def open_lapaire_table(journal: Journal, table_id: str, *, config_path: str | None = None,
                       dealer: str, prefer_journal_config: bool | None = None) -> LaPaireTable:
    """The registry's ``table`` part: the live table on the journal's latest configuration
    unless a file is named (then that file's is recorded as a new version if it differs)."""
    from dealer_station.gameconfig import load_lapaire_config

    prefer = config_path is None if prefer_journal_config is None else prefer_journal_config
    return LaPaireTable(journal, table_id, load_lapaire_config(config_path), dealer=dealer,
                        prefer_journal_config=prefer)
