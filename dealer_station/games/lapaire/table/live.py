"""One live La Pair'e table: wagers, cards from the shoe, staged settlement, payouts, voids.

Every change is verified, journaled and committed, then applied and announced (see base.py).
A round opens with its first wager (or its first card), closes when the dealer has confirmed
the payouts of all three stages, and is settled under exactly one configuration version.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User
from dealer_station.cards import LAPAIRE_DECK, Card, CardError, parse_card
from dealer_station.events import Committed
from dealer_station.events.table import (
    ConfigChanged,
    HaltResolved,
    TableRecovered,
    device_name,
)
from dealer_station.games.lapaire.events import (
    CODEC,
    BettingClosed,
    CardCorrected,
    CardDealt,
    PayoutConfirmed,
    RoundClosed,
    RoundOpened,
    RoundVoided,
    StageSettled,
    WagerPlaced,
    WagerRemoved,
)
from dealer_station.games.lapaire.rules.config import (
    KIND_LABELS,
    LaPaireConfig,
    parse_lapaire_config,
)
from dealer_station.games.lapaire.rules.engine import (
    LaPaireRound,
    Placement,
    SeatTotal,
    StageResult,
    Wager,
    WagerError,
)
from dealer_station.games.lapaire.rules.layout import spot_label
from dealer_station.games.lapaire.table.rounds import (
    GAME,
    RebuiltRound,
    apply_round,
    open_round,
    rebuild_round,
    returned_stakes,
    round_events,
    round_meters,
    stage_payload,
)
from dealer_station.games.lapaire.table.state import LaPaireState
from dealer_station.games.lapaire.table.view import LaPaireView
from dealer_station.hardware.events import CardRead
from dealer_station.money import Money
from dealer_station.table.base import (
    CORRECTABLE_FAULTS,
    STATION_ACTOR,
    Step,
    TableError,
    TableService,
)

STAGES = (1, 2, 3)


class LaPaireTable(TableService):
    """Each intent is decided on a trial copy of the round (nothing changes), committed as
    typed events, and applied by :meth:`apply`, the one path that recovery shares."""

    game = GAME
    codec = CODEC
    held_note = "read while the round was stopped; not dealt"

    def __init__(self, journal: Journal, table_id: str, config: LaPaireConfig, *,
                 dealer: str, prefer_journal_config: bool = True) -> None:
        super().__init__(journal, table_id, dealer=dealer)
        self.state = LaPaireState(config, "", self._stored_config)
        content, version = self.adopt_config(config.to_data(), prefer_journal_config)
        if version != self.state.version:   # the journal's, not the file's: nothing applied
            self.state = LaPaireState(parse_lapaire_config(content, "<journal>"), version,
                                      self._stored_config)
        self._remember_seats()
        self._recover()

    def _remember_seats(self, rounds: int = 20) -> None:
        """Each seat's last round (for a rebet) from the journal's recent closed rounds, as
        the live table keeps it while it runs."""
        for info in reversed(self.journal.recent_rounds(self.table_id, rounds)):
            if info.game == GAME and info.status in ("settled", "voided"):
                self.state.remember_seats(self._rebuild(info.round_no))

    # -- applying committed events -----------------------------------------------------------

    def apply(self, c: Committed) -> None:
        super().apply(c)
        self.state.apply(c)
        if self.state.last_round_no is not None:
            self._last_round = self.state.last_round_no

    def _stored_config(self, version: str) -> LaPaireConfig:
        stored = self.journal.config(self.table_id, version)
        if stored is None:
            raise TableError(f"configuration version {version[:12]} is not in the journal")
        return parse_lapaire_config(stored.content, "<journal>")

    @property
    def config(self) -> LaPaireConfig:
        return self.state.config

    @property
    def version(self) -> str:
        return self.state.version

    @property
    def pending(self) -> tuple[LaPaireConfig, str] | None:
        return self.state.pending

    @property
    def current(self) -> RebuiltRound | None:
        return self.state.current

    @property
    def last_closed(self) -> RebuiltRound | None:
        return self.state.last_closed

    # -- configuration ---------------------------------------------------------------------

    def change_config(self, user: User, new: LaPaireConfig, reason: str,
                      what: dict[str, Any] | None = None, *,
                      approver: User | None = None) -> str:
        """An operator's change: journaled now, in force from the next round. Returns the
        version. The caller shows the par sheet of ``new`` before calling this.
        ``approver``: a second person (supervisor or operator, signed in with their PIN) who
        approved it; recorded in the change."""
        with self.lock:
            self.require_supervisor(user, "change the table configuration")
            if approver is not None:
                self.require_supervisor(approver, "approve a configuration change")
                if approver.user_id == user.user_id:
                    raise TableError("the second approval must be another person's")
            reason = self.require_reason(reason)
            content = new.to_data()
            version = config_version(canonical_json(content))
            if version == (self.pending[1] if self.pending else self.version):
                raise TableError("that configuration is already the one in force")
            self.commit([Step(ConfigChanged(version, GAME, reason, what or {}, content,
                                            approver.actor if approver else None),
                              user.actor)])
            return version

    def upcoming_config_version(self) -> str:
        return self.pending[1] if self.pending else self.version

    def check_config_content(self, content: Mapping[str, Any]) -> None:
        parse_lapaire_config(dict(content), "<floor>")

    # -- recovery --------------------------------------------------------------------------

    def _config_for(self, version: str) -> LaPaireConfig:
        return self.state.config_for(version)

    def _rebuild(self, round_no: int) -> RebuiltRound:
        records = self.journal.round_records(self.table_id, round_no)
        first = records[0]
        opened = CODEC.decode_as(RoundOpened, first.seq, first.kind, first.payload)
        return rebuild_round(records, self._config_for(opened.config_version))

    def _recover(self) -> None:
        """Restore an open round at the stage it reached (after a crash or power cut): its
        records, applied as they were when live."""
        for info in self.journal.open_rounds(self.table_id):
            if info.game != GAME:
                continue
            events = round_events(self.journal.round_records(self.table_id, info.round_no))
            for c in events:
                self.apply(c)
            rb = self.current
            if rb is None:
                continue
            for n in rb.stages:
                if n not in rb.recorded:
                    rb.differences.append(f"round {rb.round_no}: card {n} has no recorded "
                                          f"settlement")
            self.commit([Step(TableRecovered(rb.round_no, tuple(rb.differences), {
                "stage": rb.engine.stage, "wagers": len(rb.engine.wagers),
                "confirmed": sorted(rb.confirmed)}), STATION_ACTOR, rb.round_no)])
            if rb.differences:
                self.stop_round("the recovered round does not re-settle as recorded: "
                                + "; ".join(rb.differences), "replay_mismatch",
                                "A supervisor voids the round with a reason.", STATION_ACTOR)

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

    def view(self) -> LaPaireView:
        with self.lock:
            return self.read_model()

    def configuration(self) -> tuple[LaPaireConfig, str, tuple[LaPaireConfig, str] | None]:
        """The configuration in force, its version, and a change saved for the next round
        (or None), taken together under the lock (the operator's screen reads them)."""
        with self.lock:
            return self.config, self.version, self.pending

    def read_model(self) -> LaPaireView:
        base = super().read_model()
        rb = self.current or self.last_closed
        layout = (self.current.engine.config if self.current else
                  self.pending[0] if self.pending else self.config)
        common = {f: getattr(base, f) for f in ("table_id", "game", "round_no",
                                                "last_round_no", "halt", "devices", "summary",
                                                "blockers")}
        common["rebets"] = dict(self.state.seat_last)
        if rb is None:
            return LaPaireView(**common, config=layout, config_pending=self.pending is not None)
        engine = rb.engine
        return LaPaireView(
            **common, config=layout, config_pending=self.pending is not None,
            status=rb.status, betting_open=engine.betting_open and rb.status == "open",
            wagers=engine.wagers, results={r.wager_id: r for r in engine.results},
            cards=engine.cards, stages=dict(rb.stages), confirmed=frozenset(rb.confirmed),
            seat_totals=engine.seat_totals(), actors=dict(rb.wager_actors),
            void_reason=rb.void_reason,
            to_confirm=next((n for n in sorted(rb.stages) if n not in rb.confirmed), None)
            if rb.status == "open" else None)

    def take_back(self, seat: int, bet: str, values: Sequence[str],
                  actor: str | None = None) -> Wager:
        """Take back the seat's last chip on a spot (the wager placed last there)."""
        with self.lock:
            spot = (bet, tuple(values))
            wagers = self.current.engine.wagers if self.current else {}
            mine = [i for i, w in wagers.items() if w.seat == seat and w.spot == spot]
            if not mine:
                where = KIND_LABELS.get(bet, bet) + (f" {spot_label(values)}" if values else "")
                raise TableError(f"seat {seat} has no chip on {where}")
            rb = self._require_round()
            wager = rb.engine.wagers[max(mine)]
            self.remove(max(mine), actor)
            return wager

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

    # -- deciding --------------------------------------------------------------------------

    def _trial(self) -> tuple[RebuiltRound, list[Step]]:
        """A copy of the round under way to decide on, or a new round and its opening step.

        Nothing is consumed here: the round number and an operator's pending configuration
        are taken only when the opening is applied.
        """
        if self.current is not None:
            return self.current.trial(), []
        config, version = self.pending if self.pending else (self.config, self.version)
        round_no = self.last_round_no() + 1
        opening = Step(RoundOpened(GAME, version, self.dealer), self.dealer, round_no)
        trial = open_round(_uncommitted(opening), config)
        return trial, [opening]

    @staticmethod
    def _try(trial: RebuiltRound, steps: list[Step], step: Step) -> None:
        """Decide ``step``: apply it to the trial round (which raises if the engine refuses)
        and keep it."""
        apply_round(trial, _uncommitted(step))
        steps.append(step)

    def _payout_steps(self, trial: RebuiltRound, steps: list[Step], actor: str,
                      confirm: int | None) -> bool:
        """The confirmations due now, and the round's close when all three are in.

        ``confirm`` is the stage the dealer has just paid; after it, every settled stage with
        nothing to pay is confirmed by the station (a dealer is not asked to confirm paying
        nothing). Returns whether the round closes.
        """
        n_round = trial.round_no
        if confirm is not None:
            self._try(trial, steps, Step(PayoutConfirmed(confirm,
                                                         trial.stages[confirm].total_win),
                                         actor, n_round))
        for n in STAGES:
            if n in trial.confirmed:
                continue
            if n not in trial.stages or trial.stages[n].total_win or any(
                    m not in trial.confirmed for m in STAGES if m < n):
                break
            self._try(trial, steps, Step(PayoutConfirmed(n, 0, True), STATION_ACTOR, n_round))
        if not (trial.engine.is_complete and trial.confirmed >= set(STAGES)):
            return False
        summary = self._summary(trial)
        meters = round_meters(trial.engine.results, trial.engine.config)
        self._try(trial, steps, Step(RoundClosed(meters=meters, **summary), STATION_ACTOR,
                                     n_round))
        return True

    # -- intents ---------------------------------------------------------------------------

    def _commit(self, steps: list[Step]) -> list[Committed]:
        opening = self.current is None
        done = self.commit(steps)
        if opening and self.current is not None:
            for handle in self.devices.values():
                handle.start_round(LAPAIRE_DECK)
        return done

    def place(self, wager: Wager, actor: str | None = None) -> Placement:
        return self.place_many([wager], actor)[0]

    def place_many(self, wagers: Sequence[Wager], actor: str | None = None) -> list[Placement]:
        """Place wagers in order as one journaled step (all or none)."""
        with self.lock:
            self.check_not_halted()
            actor = actor or self.dealer
            trial, steps = self._trial()
            placed: list[Placement] = []
            for w in wagers:
                wager_id = trial.engine.place(w).wager_id
                placed.append(Placement(wager_id, w))
                steps.append(Step(WagerPlaced(wager_id, w.seat, w.bet, tuple(w.values),
                                              w.amount), actor, trial.round_no))
            self._commit(steps)
            return placed

    def rebet(self, seat: int, actor: str | None = None) -> list[Placement]:
        """Place seat ``seat``'s wagers from the last round it played again, as ordinary
        wager placements in one commit: all of them, or (refused) none.

        Refused with the table's reason when the seat has no last round, already has
        wagers in this round (a second tap must not double them), or when any one of them
        may not be placed now (a spot no longer offered, a limit broken, betting closed).
        """
        with self.lock:
            last = self.state.seat_last.get(seat, ())
            if not last:
                raise TableError(f"seat {seat} has no wagers from a last round to place again")
            if self.current is not None and any(
                    w.seat == seat for w in self.current.engine.wagers.values()):
                raise TableError(f"seat {seat} already has wagers in this round: a rebet "
                                 f"places a seat's last round only before its first wager")
            try:
                return self.place_many(last, actor)
            except (WagerError, TableError) as exc:
                raise TableError(f"seat {seat}'s rebet was not placed (nothing was): "
                                 f"{exc}") from None

    def remove(self, wager_id: int, actor: str | None = None) -> None:
        with self.lock:
            self.check_not_halted()
            rb = self._require_round()
            rb.engine.verify_remove(wager_id)
            self._commit([Step(WagerRemoved(wager_id), actor or self.dealer, rb.round_no)])

    def close_betting(self, actor: str | None = None) -> None:
        with self.lock:
            self.check_not_halted()
            rb = self._require_round()
            rb.engine.verify_close_betting()
            self._commit([Step(BettingClosed(len(rb.engine.wagers)), actor or self.dealer,
                               rb.round_no)])

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
              reason: str | None, before: Sequence[Step] = ()) -> StageResult:
        trial, steps = self._trial()
        trial.engine.verify_deal(card)
        n_round = trial.round_no
        steps += before
        if trial.engine.betting_open:
            self._try(trial, steps, Step(BettingClosed(len(trial.engine.wagers)), actor,
                                         n_round))
        n = trial.engine.stage + 1
        self._try(trial, steps, Step(CardDealt(n, card.code, source, device_seq, reason or None),
                                     actor, n_round))
        stage = trial.stages[n]
        self._try(trial, steps, Step(StageSettled.from_payload(stage_payload(stage)),
                                     STATION_ACTOR, n_round))
        closing = self._payout_steps(trial, steps, actor, None)
        self._commit(steps)
        if closing:
            self._finish()
        return stage

    def card_from_device(self, event: CardRead, actor: str) -> None:
        try:
            self._deal(event.card, event.device, actor, event.seq, None)
        except (CardError, ValueError) as exc:
            self.stop_round(f"{device_name(event.device)} read {event.card.code}: {exc}",
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
            trial, steps = self._trial()
            closing = self._payout_steps(trial, steps, actor or self.dealer, stage)
            self._commit(steps)
            if closing:
                self._finish()
            return closing

    @staticmethod
    def _summary(rb: RebuiltRound) -> dict[str, Any]:
        results = rb.engine.results
        return {"cards": tuple(c.code for c in rb.engine.cards),
                "wagers": len(rb.engine.wagers),
                "wagered": sum(r.wager.amount for r in results),
                "total_win": sum(r.win for r in results),
                "total_lost": sum(r.wager.amount for r in results if not r.won)}

    def _finish(self) -> None:
        """The round is closed or voided: the devices stop checking its cards."""
        for handle in self.devices.values():
            handle.end_round()

    # -- supervisor ------------------------------------------------------------------------

    def void(self, user: User, reason: str) -> None:
        """Void the open round: wagers not yet settled are returned; settled stages stand."""
        with self.lock:
            self.require_supervisor(user, "void a round")
            reason = self.require_reason(reason)
            rb = self._require_round()
            returned = tuple(i for i, _ in rb.engine.pending())
            meters = (round_meters(rb.engine.results, rb.engine.config)
                      if rb.engine.results else {})
            # The void record carries the round's summary: the rounds row is derived from it.
            self._commit([Step(RoundVoided(
                **self._summary(rb), voided=True, reason=reason, returned=returned,
                halt_seq=self.halt.seq if self.halt else None,
                meters=meters, returned_stakes=returned_stakes(rb.engine)), user.actor,
                rb.round_no)])
            self._finish()

    def correct_card(self, user: User, card: Card | str, reason: str) -> StageResult:
        """A supervisor enters the card actually dealt after a misread or an impossible read,
        which settles its stage and lets the round go on."""
        with self.lock:
            self.require_supervisor(user, "correct a card")
            reason = self.require_reason(reason)
            rb = self._require_round()
            if self.halt is None or self.halt.fault not in CORRECTABLE_FAULTS:
                raise TableError("a card can be corrected only while the round is stopped for "
                                 "a card the shoe could not read, one that cannot be in it, "
                                 "or one read while nobody was signed in")
            c = parse_card(card) if isinstance(card, str) else card
            rb.engine.verify_deal(c)
            halt = self.halt
            # The correction, the resolution and the card's settlement commit together.
            before = [Step(CardCorrected(rb.engine.stage + 1, c.code, reason, halt.seq),
                           user.actor, rb.round_no),
                      Step(HaltResolved("correction", reason, halt.seq), user.actor,
                           rb.round_no)]
            stage = self._deal(c, "correction", user.actor, None, reason, before)
            return stage

    def resolved_rounds(self, last: int = 10) -> list[RebuiltRound]:
        """The last rounds rebuilt from the journal (game recall)."""
        return [self._rebuild(info.round_no)
                for info in self.journal.recent_rounds(self.table_id, last)
                if info.game == GAME]


def _uncommitted(step: Step) -> Committed:
    """A step as a trial applies it (it has no place in the chain yet)."""
    return Committed(0, "", step.actor, step.round_no, step.event)


def wagers_from(items: Iterable[tuple[int, str, Sequence[str], int]]) -> list[Wager]:
    return [Wager(seat, bet, tuple(values), amount) for seat, bet, values, amount in items]


def open_lapaire_table(journal: Journal, table_id: str, *, config_path: str | None = None,
                       dealer: str, prefer_journal_config: bool | None = None) -> LaPaireTable:
    """The registry's ``table`` part: the live table on the journal's latest configuration
    unless a file is named (then that file's is recorded as a new version if it differs)."""
    from dealer_station.games.lapaire.config_file import load_lapaire_config

    prefer = config_path is None if prefer_journal_config is None else prefer_journal_config
    return LaPaireTable(journal, table_id, load_lapaire_config(config_path), dealer=dealer,
                        prefer_journal_config=prefer)
