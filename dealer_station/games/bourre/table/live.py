"""One live Bourré table: sessions, hands dealt from the shoe, plays read by the card reader.

Every change is verified against the engine, journaled and committed, and then applied by
replaying the very record just written (bourre_rounds.BourreState.apply), so the live state is
always exactly what the journal rebuilds. Players' hands stay inside the engine: the table
publishes whose turn it is, the trick on the table, tricks won, the pot and any renege.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal import Journal, Record
from dealer_station.audit.users import User, require_role
from dealer_station.cards import Card, CardError, parse_card
from dealer_station.events import Committed
from dealer_station.events.table import (
    CardHeld,
    ConfigChanged,
    HaltResolved,
    TableRecovered,
    device_name,
)
from dealer_station.games.bourre import events as ev
from dealer_station.games.bourre.events import CODEC, HandVoided
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import BourreHand, Phase
from dealer_station.games.bourre.rules.play import trick_winner
from dealer_station.games.bourre.rules.session import (
    BourreSession,
    SessionResult,
    TournamentRecord,
)
from dealer_station.games.bourre.table.pots import WaitingPot, chips_money, split_pot
from dealer_station.games.bourre.table.rounds import (
    GAME,
    BourreState,
    HandState,
    committed,
    event_class,
    misplay_payload,
    profile_content,
    profile_from_content,
    rebuild_state,
    result_payload,
    session_records,
)
from dealer_station.games.bourre.table.view import BourreView
from dealer_station.hardware.events import CardRead
from dealer_station.table.base import (
    CORRECTABLE_FAULTS,
    STATION_ACTOR,
    Step,
    TableError,
    TableService,
    next_halt,
    seat_actor,
)

#: What the supervisor reads for each phase of a hand.
PHASE_TEXT = {Phase.ANTE: "ante", Phase.DEAL: "dealing", Phase.DECISIONS: "stay or fold",
              Phase.DRAW: "drawing", Phase.PLAY: "playing", Phase.SETTLED: "settled",
              Phase.HALTED: "stopped: chip count"}


class BourreTable(TableService):
    game = GAME
    codec = CODEC
    held_note = "read while the hand was stopped; not applied"

    def __init__(self, journal: Journal, table_id: str, profile: BourreProfile, *,
                 dealer: str, prefer_journal_config: bool = True) -> None:
        super().__init__(journal, table_id, dealer=dealer)
        self.profile = profile
        self.version = ""
        self.state = BourreState(self.profile, self.version)
        self.last_result: SessionResult | None = None
        #: A pot carried from the last closed session, waiting for the next (or a return).
        self.waiting: WaitingPot | None = None
        self._last_standings: tuple[Mapping[str, Any], ...] = ()
        content, version = self.adopt_config(profile_content(profile), prefer_journal_config,
                                             changes={"profile": profile.name})
        if version != self.version:      # the journal's, not the file's: nothing was applied
            self.profile, self.version = profile_from_content(content), version
            self.state = BourreState(self.profile, self.version)
        self._recover_waiting_pot()
        self._recover()

    # -- applying committed events -----------------------------------------------------------

    def apply(self, c: Committed) -> None:
        super().apply(c)
        e = c.event
        if isinstance(e, ConfigChanged):
            if e.game == GAME and e.content is not None:
                # Only between sessions (change_profile): no session mixes two rule sets.
                self.profile, self.version = profile_from_content(e.content), e.version
                self.state = BourreState(self.profile, self.version)
            return
        self._keep_pot(c)
        self.state.apply(c)

    def _keep_pot(self, c: Committed) -> None:
        """Where the chips left in a closed session's pot are: waiting, or gone on."""
        e = c.event
        if isinstance(e, ev.SessionClosed):
            self._last_standings = e.standings
        elif isinstance(e, ev.PotCarried):
            self.waiting = WaitingPot(c.seq, e.session_id, e.pot, e.chip_value, e.currency,
                                      self._last_standings)
        elif isinstance(e, ev.PotReturned | ev.SessionOpened):
            self.waiting = None

    # -- configuration ---------------------------------------------------------------------

    def change_profile(self, user: User, profile: BourreProfile, reason: str) -> str:
        """An operator's change of rule profile: only between sessions, so that no session
        mixes two sets of rules."""
        with self.lock:
            self.require_supervisor(user, "change the rule profile")
            reason = self.require_reason(reason)
            if self.session is not None:
                raise TableError("the rule profile changes between sessions: end this "
                                 "session first")
            content = profile_content(profile)
            version = config_version(canonical_json(content))
            if version != self.version:
                self._check_pot_fits(profile, "change the rule profile")
                self.commit([Step(ConfigChanged(version, GAME, reason,
                                                {"profile": profile.name}, content),
                                  user.actor)])
            return version

    def config_may_change(self) -> bool:
        return self.session is None      # between sessions only, as change_profile

    def check_config_content(self, content: Mapping[str, Any]) -> None:
        profile_from_content(dict(content))

    def _check_pot_fits(self, profile: BourreProfile, action: str) -> None:
        """A waiting pot carries only into a session whose chips are the same chips."""
        w = self.waiting
        if w is not None and (w.chip_value, w.currency) != chips_money(profile):
            raise TableError(
                f"cannot {action}: the {w.pot} chips carried from session {w.session_id} are "
                f"{w.describe()}, and the {profile.name} rules play "
                f"{WaitingPot.chips_words(*chips_money(profile))}. A supervisor returns the "
                f"pot first (with a reason).")

    # -- recovery --------------------------------------------------------------------------

    def _recover_waiting_pot(self) -> None:
        kinds = [e.KIND for e in (ev.SessionOpened, ev.SessionClosed, ev.PotCarried,
                                  ev.PotReturned)]
        for rec in self.journal.records(self.table_id, kinds=kinds):
            self._keep_pot(committed(rec))

    def _recover(self) -> None:
        records = session_records(self.journal, self.table_id)
        # A closed session is passed over without decoding its records.
        if not records or any(event_class(r) is ev.SessionClosed for r in records):
            return
        opening = committed(records[0]).event
        if not isinstance(opening, ev.SessionOpened):
            raise TableError(f"record {records[0].seq} does not open a session")
        version = opening.config_version
        stored = self.journal.config(self.table_id, version)
        if stored is None:
            raise TableError(f"configuration version {version[:12]} is not in the journal")
        self.profile, self.version = profile_from_content(stored.content), version
        self.state = rebuild_state(records, self.profile, version)
        st = self.state.current
        if st is None:
            return
        self.record(TableRecovered(st.round_no, tuple(self.state.differences),
                                   {"phase": st.hand.phase.value}), STATION_ACTOR, st.round_no)
        if st.hand.phase is Phase.SETTLED:
            self._close_hand()  # the last play was journaled; its settlement was not yet
            return
        for c in st.records:
            self.halt = next_halt(self.halt, c)

    # -- state -----------------------------------------------------------------------------

    @property
    def session(self) -> BourreSession | None:
        return self.state.session

    @property
    def current(self) -> HandState | None:
        return self.state.current

    @property
    def hand(self) -> BourreHand | None:
        return self.state.current.hand if self.state.current else None

    def in_round(self) -> bool:
        return self.state.current is not None

    @property
    def round_no(self) -> int | None:
        return self.state.current.round_no if self.state.current else None

    def view(self) -> BourreView:
        with self.lock:
            return self.read_model()

    def read_model(self) -> BourreView:
        base = super().read_model()
        common = {f: getattr(base, f) for f in ("table_id", "game", "round_no",
                                                "last_round_no", "halt", "devices", "summary",
                                                "blockers")}
        session = self.session
        if session is None:
            return BourreView(**common, profile=self.profile.name,
                              prompt="No session: choose the seats and start one")
        opened = self.state.session_open or {}
        names = {int(k): str(v) for k, v in (opened.get("players") or {}).items()}
        status = {s: "out" for s in session.out}
        last = self.state.hands[-1] if self.state.hands else None
        result = last.close if last is not None and last.status == "settled" else None
        st = self.state.current
        if st is None:
            return BourreView(**common, profile=self.profile.name, session_open=True,
                              seats=tuple(session.seats), players=names,
                              chips=dict(session.chips), dealer=session.dealer,
                              pot=session.pot, seat_status=status, last_result=result,
                              prompt=f"Seat {session.dealer} deals next: press Deal a new "
                                     f"hand")
        hand = st.hand
        phase, seat = hand.phase, hand.to_act
        status |= {s: "stayed" for s in hand.stayers} | {s: "folded" for s in hand.folded}
        receiving = phase is Phase.DRAW and self._drawing(st)
        discards_read = len(st.discards.get(seat, [])) if seat is not None else 0
        if phase is Phase.DEAL:
            prompt = f"Deal: the shoe deals to seat {seat}"
        elif phase is Phase.DECISIONS:
            prompt = f"Seat {seat}: stay or fold?"
        elif phase is Phase.DRAW:
            prompt = (f"Draw: the shoe deals seat {seat} the cards she discarded" if receiving
                      else f"Draw: seat {seat} discards (up to {hand.profile.draw_limit}); "
                           f"{discards_read} read so far")
        elif phase is Phase.PLAY:
            # Never how many cards she may play: that tells the table about her hand.
            prompt = f"Trick {hand.trick_number}: seat {seat} to play"
        elif phase is Phase.SETTLED:
            prompt = "Hand settled"
        else:
            prompt = f"Hand {phase.value}: call a supervisor"
        deciding = phase is Phase.DECISIONS and seat is not None
        return BourreView(
            **common, profile=self.profile.name, session_open=True,
            seats=tuple(session.seats), players=names, chips=dict(hand.chips),
            dealer=hand.dealer, pot=hand.pot, phase=phase.value, to_act=seat,
            trump=hand.trump_card, trick=min(hand.trick_number, 5), seat_status=status,
            tricks=({s: hand.tricks.get(s, 0) for s in hand.stayers}
                    if phase in (Phase.PLAY, Phase.SETTLED) else {}),
            played=dict(hand.current_trick),
            reneged=frozenset(m.seat for m in hand.misplays if m.penalised),
            prompt=prompt, can_stay=seat is not None and deciding and hand.can_stay(seat),
            can_fold=seat is not None and deciding and hand.can_fold(seat), receiving=receiving,
            discards_read=discards_read, last_result=result, winning=_winning(hand),
            # A renege is announced until the hand is settled: the result then says it.
            renege=None if phase is Phase.SETTLED else next(
                (r.event.to_payload() for r in reversed(st.records)
                 if isinstance(r.event, ev.Reneged)), None))

    def describe_round(self) -> str:
        with self.lock:
            hand = self.hand
            if hand is None:
                return ""
            parts = [PHASE_TEXT.get(hand.phase, hand.phase.value)]
            if hand.phase is Phase.PLAY:
                parts.append(f"trick {hand.trick_number} of 5")
                if hand.trump is not None:
                    parts.append(f"trumps {hand.trump.name.lower()}")
            if hand.to_act is not None:
                parts.append(f"seat {hand.to_act} to act")
            parts.append(f"pot {hand.pot} chips")
            return " · ".join(parts)

    # -- writing ---------------------------------------------------------------------------

    def _write(self, steps: Sequence[Step]) -> None:
        """Commit, and so apply, the events: the live state is the replayed state."""
        self.commit(steps)
        st = self.state.current
        if st is not None and st.hand.phase is Phase.SETTLED and not isinstance(
                steps[-1].event, ev.HandClosed):
            # The last trick (or a dead hand's last decision): settle it in the journal now.
            self._close_hand()

    def _require_hand(self) -> HandState:
        if self.state.current is None:
            raise TableError("no hand is under way: start one")
        return self.state.current

    # -- sessions --------------------------------------------------------------------------

    def start_session(self, seats: Sequence[int], first_dealer: int | None = None, *,
                      players: Mapping[int, str] | None = None,
                      chips: Mapping[int, int] | None = None, actor: str | None = None
                      ) -> str:
        with self.lock:
            if self.session is not None:
                raise TableError("a session is under way: end it first")
            if first_dealer is None:
                # The deal passes to the left: the last seat deals first, so seat 1 is the
                # first to act.
                first_dealer = seats[-1] if seats else 0
            tags = self.tournament()
            names = {s: (players or {}).get(s, str(s)) for s in seats}
            tags.verify_can_seat(list(names.values()))
            start = dict(chips) if chips else {s: self.profile.session_chips for s in seats}
            # Checked by the engine now, so a refused session leaves no trace.
            BourreSession(self.profile, seats, first_dealer, players=names, chips=start)
            self._check_pot_fits(self.profile, "start a session")
            # A pot carried from the last session opens this one (a supervisor may have
            # returned it instead): no pot is ever silently dropped.
            pot = self.waiting.pot if self.waiting is not None else 0
            session_id = uuid.uuid4().hex[:12]
            self._write([Step(ev.SessionOpened(
                GAME, session_id, self.profile.name, self.version, tuple(seats),
                {str(s): n for s, n in names.items()}, {str(s): start[s] for s in seats},
                first_dealer, pot, self.profile.session_minutes), actor or self.dealer)])
            return session_id

    def session_started(self) -> datetime | None:
        opened = self.state.session_open
        recs = session_records(self.journal, self.table_id) if opened else []
        return recs[0].time if recs else None

    def elapsed(self) -> float:
        started = self.session_started()
        if started is None:
            return 0.0
        return (datetime.fromisoformat(self.journal.now()) - started).total_seconds()

    def start_hand(self, *, elapsed: float | None = None, actor: str | None = None) -> int:
        """Deal in a new hand (antes are taken). ``elapsed``: seconds into the session, if
        the caller keeps its own clock (simulation); otherwise the journal's clock."""
        with self.lock:
            self.check_not_halted()
            session = self.session
            if session is None:
                raise TableError("no session is under way: start one")
            if self.state.current is not None:
                raise TableError("a hand is under way")
            secs = self.elapsed() if elapsed is None else elapsed
            session.verify_start_hand(secs)
            round_no = self.last_round_no() + 1
            active = [s for s in session.seats if session.chips[s] > 0]
            actor = actor or self.dealer
            self._write([Step(ev.HandOpened(
                GAME, self.version, self.dealer, session.dealer, tuple(active),
                {str(s): session.chips[s] for s in active}, session.pot, int(secs),
                str(session.session_id)), actor, round_no)])
            self._last_round = round_no
            return round_no

    def end_session(self, *, tie_break: Sequence[int] = (), actor: str | None = None
                    ) -> SessionResult:
        with self.lock:
            session = self.session
            if session is None:
                raise TableError("no session is under way")
            result = session.result(tie_break)
            tags = self.tournament()
            if not self.profile.is_cash:
                tags.record(result)     # game tags are a tournament's; cash games keep none
            steps = [Step(ev.SessionClosed(
                str(session.session_id), result.hands, result.pot, result.house,
                tuple({"seat": st.seat, "player": st.player, "chips": st.chips,
                       "outcome": st.outcome.value} for st in result.standings),
                dict(tags.tags), tuple(tags.eliminated)), actor or self.dealer)]
            if result.pot > 0:
                # The chips left in the pot wait for the next session, by default; a
                # supervisor may return them instead (return_pot).
                value, currency = chips_money(self.profile)
                steps.append(Step(ev.PotCarried(str(session.session_id), result.pot, value,
                                                currency), STATION_ACTOR))
            self._write(steps)
            self.last_result = result
            return result

    def deal_is_fresh(self) -> bool:
        """Whether the hand under way is at its deal with no card dealt yet (a shoe may be
        shuffled for it)."""
        with self.lock:
            hand = self.hand
            return hand is not None and hand.phase is Phase.DEAL and not any(
                hand.held(s) for s in hand.seats)

    def turn(self) -> tuple[int | None, list[Card], list[Card]]:
        """The seat to act, the cards it holds that are not already being discarded, and (in
        play) those it may lawfully play: what the players' part of the demo strip needs."""
        with self.lock:
            hand = self.hand
            if hand is None or hand.to_act is None:
                return None, [], []
            seat = hand.to_act
            held = list(hand.held(seat))
            legal = hand.legal_cards(seat) if hand.phase is Phase.PLAY else []
            current = self.current
            pending = ({parse_card(c) for c in current.discards.get(seat, [])}
                       if current is not None else set())
        return seat, [c for c in held if c not in pending], legal

    def waiting_pot(self) -> int | None:
        """The chips of the pot carried from the last closed session, waiting for the next
        (None when none waits)."""
        with self.lock:
            return self.waiting.pot if self.waiting is not None else None

    def return_pot(self, user: User, reason: str,
                   shares: Mapping[int, int] | None = None) -> dict[int, int]:
        """A supervisor returns the pot carried from the last closed session to its players
        instead of carrying it into the next session. ``shares``: seat -> chips, adding up to
        the pot; by default it is split evenly among the seats that ended the session with
        chips (the odd chips to the lowest seats). Returns the shares journaled."""
        with self.lock:
            require_role(user, "supervisor", action="return a carried pot")
            reason = self.require_reason(reason)
            if self.session is not None:
                raise TableError("a session is under way: a pot is returned between sessions, "
                                 "after the session that left it has ended")
            w = self.waiting
            if w is None:
                raise TableError("no pot is waiting to be returned: the last session left "
                                 "none, or it was already returned or carried on")
            split = split_pot(w, shares)
            players = {str(st["seat"]): str(st["player"]) for st in w.standings}
            self.commit([Step(ev.PotReturned(
                w.session_id, w.seq, w.pot, {str(k): v for k, v in split.items()},
                {str(k): players.get(str(k), str(k)) for k in split}, reason), user.actor)])
            return split

    def tournament(self) -> TournamentRecord:
        """Game tags per player across every session this table has closed."""
        record = TournamentRecord.for_profile(self.profile)
        tags: dict[str, int] = {}
        closes = list(self.journal.records(self.table_id, kinds=[ev.SessionClosed.KIND]))
        if closes:      # the last session's close holds the tags so far
            e = committed(closes[-1]).event
            assert isinstance(e, ev.SessionClosed)
            tags = {str(k): int(v) for k, v in e.tags.items()}
        return TournamentRecord(record.tags_to_eliminate, tags)

    # -- the dealer's intents --------------------------------------------------------------

    def decide(self, seat: int, stay: bool, actor: str | None = None) -> None:
        with self.lock:
            self.check_not_halted()
            st = self._require_hand()
            (st.hand.verify_stay if stay else st.hand.verify_fold)(seat)
            self._write([Step(ev.Decided(seat, stay), actor or self.dealer, st.round_no)])

    def discard_card(self, seat: int, card: Card | str, actor: str | None = None) -> None:
        """One discard, as the reader (or the dealer) identifies it."""
        with self.lock:
            self.check_not_halted()
            self._discard_card(seat, parse_card(card) if isinstance(card, str) else card,
                               actor or self.dealer)

    def _discard_card(self, seat: int, card: Card, actor: str) -> None:
        st = self._require_hand()
        hand = st.hand
        if hand.phase is not Phase.DRAW or hand.to_act != seat:
            raise TableError(f"seat {seat} is not the one drawing now")
        pending = [parse_card(c) for c in st.discards.get(seat, [])]
        hand.verify_discard(seat, [*pending, card])
        self._write([Step(ev.DiscardRead(seat, card.code), actor, st.round_no)])

    def finish_discard(self, seat: int, actor: str | None = None) -> int:
        """The seat has discarded what the reader read (possibly nothing): the shoe now deals
        her as many. Returns how many she draws."""
        with self.lock:
            self.check_not_halted()
            st = self._require_hand()
            cards = [parse_card(c) for c in st.discards.get(seat, [])]
            st.hand.verify_discard(seat, cards)
            self._write([Step(ev.Discarded(seat, tuple(c.code for c in cards)),
                              actor or self.dealer, st.round_no)])
            return len(cards)

    def card(self, card: Card | str, *, source: str = "manual", actor: str | None = None,
             device_seq: int | None = None, position: int | None = None) -> None:
        """A card seen by a device (or keyed in): dealt, drawn, discarded or played, by phase."""
        with self.lock:
            self.check_not_halted()
            c = parse_card(card) if isinstance(card, str) else card
            self._card(c, source, actor or self.dealer, device_seq, position, ())

    def _card(self, card: Card, source: str, actor: str, device_seq: int | None,
              position: int | None, before: Sequence[Step]) -> None:
        st = self._require_hand()
        hand = st.hand
        steps: list[Step]
        if hand.phase is Phase.DEAL:
            seat = hand.to_act
            hand.verify_deal_card(card, seat)
            assert seat is not None
            steps = [Step(ev.BourreCardDealt(seat, card.code, "deal", source, device_seq), actor,
                          st.round_no)]
        elif hand.phase is Phase.DRAW and hand.to_act is not None:
            seat = hand.to_act
            # The reader reads discards; the shoe deals replacements once she has discarded.
            if source == "reader" or (source != "shoe" and not self._drawing(st)):
                if before:
                    self._write(list(before))
                self._discard_card(seat, card, actor)
                return
            if not self._drawing(st):
                raise TableError(f"seat {seat} has not finished discarding: the dealer "
                                 f"confirms her discards before dealing replacements")
            hand.verify_receive(seat, card)
            steps = [Step(ev.BourreCardDealt(seat, card.code, "draw", source, device_seq), actor,
                          st.round_no)]
        elif hand.phase is Phase.PLAY:
            seat = hand.to_act
            assert seat is not None
            if position is not None and position != seat:
                raise TableError(f"the reader saw {card.code} at seat {position}, but it is "
                                 f"seat {seat}'s turn")
            hand.verify_play(seat, card)
            misplay = hand.violation(seat, card)
            if misplay is not None and _sent_back(st) == (seat, card.code):
                # The card just sent back to her hand, read again before anything else was
                # played (still lying under the reader, or laid again): the same misplay, not
                # a second one. Journaled, not applied.
                self._write([*before, Step(CardHeld(
                    card.code, "read again after it went back to the hand for a misplay: the "
                               "same misplay, not applied", source, device_seq, seat, source),
                    actor, st.round_no)])
                return
            # What the engine will record for this card (penalised or a retraction).
            trial = self._trial_misplay(st, seat, card) if misplay is not None else None
            steps = [Step(ev.Played(seat, card.code, hand.trick_number, trial, source,
                                    device_seq), actor, st.round_no)]
            if trial is not None:
                # The player reneged: she is the actor; whoever read the card is the witness.
                steps.append(Step(ev.Reneged(**trial, witness=actor), seat_actor(seat),
                                  st.round_no))
        else:
            raise TableError(f"a card ({card.code}) was read while the hand is in its "
                             f"{hand.phase.value} phase")
        self._write([*before, *steps])

    def sent_back(self) -> tuple[int, str] | None:
        """The seat and card of the hand's last play if it was a misplay sent back to her
        hand (nothing played since); None otherwise (call under the lock)."""
        st = self.state.current
        return None if st is None else _sent_back(st)

    def receiving(self) -> bool:
        """In the draw: whether the seat to act has discarded and is now being dealt to."""
        st = self.state.current
        return st is not None and self._drawing(st)

    @staticmethod
    def _drawing(st: HandState) -> bool:
        seat = st.hand.to_act
        return any(isinstance(r.event, ev.Discarded) and r.event.seat == seat
                   for r in st.records)

    def _trial_misplay(self, st: HandState, seat: int, card: Card) -> dict[str, Any] | None:
        """The misplay record playing ``card`` would make, from a replayed copy of the hand."""
        trial = rebuild_state(self._hand_records(st), self.profile, self.version)
        assert trial.current is not None
        return misplay_payload(trial.current.hand.play(seat, card).misplay)

    def _hand_records(self, st: HandState) -> list[Record]:
        records = session_records(self.journal, self.table_id)
        return [r for r in records if r.round_no is None or r.round_no <= st.round_no]

    def _close_hand(self) -> None:
        st = self._require_hand()
        hand = st.hand
        assert hand.result is not None
        steps: list[Step] = []
        p = self.profile
        if p.is_cash:
            # The house's only win in a cash game, in money, recorded with the hand (before
            # its close: a hand's records end with its hand.close).
            session_id = str(self.session.session_id) if self.session else ""
            steps.append(Step(ev.HouseCollected(
                session_id, p.house_collection.value, hand.result.house, p.chip_value,
                p.currency, p.minor_units, hand.result.house * p.chip_value), STATION_ACTOR,
                st.round_no))
        steps.append(Step(ev.HandClosed.from_payload(result_payload(hand, hand.result)),
                          STATION_ACTOR, st.round_no))
        self._write(steps)

    def card_from_device(self, event: CardRead, actor: str) -> None:
        try:
            self._card(event.card, event.device, actor, event.seq, event.position, ())
        except (CardError, ValueError, TableError) as exc:
            if self.in_round():
                self.stop_round(f"{device_name(event.device)} read {event.card.code}: {exc}",
                                "impossible_card", self.remedy_for("impossible_card"), actor,
                                {"card": event.card.code, "device_seq": event.seq})
            else:
                self.commit([Step(CardHeld(event.card.code, f"no hand under way: {exc}",
                                           event.device, event.seq), actor)])

    # -- supervisor ------------------------------------------------------------------------

    def void(self, user: User, reason: str) -> None:
        """Void the hand under way: every chip goes back as it was before the hand."""
        with self.lock:
            self.require_supervisor(user, "void a hand")
            reason = self.require_reason(reason)
            st = self._require_hand()
            # Applied, the void leaves the session as if the hand had never been dealt.
            self.commit([Step(HandVoided(reason, self.halt.seq if self.halt else None),
                              user.actor, st.round_no)])

    def correct_card(self, user: User, card: Card | str, reason: str) -> None:
        """A supervisor enters the card actually dealt or played after a bad read."""
        with self.lock:
            self.require_supervisor(user, "correct a card")
            reason = self.require_reason(reason)
            st = self._require_hand()
            if self.halt is None or self.halt.fault not in CORRECTABLE_FAULTS:
                raise TableError("a card can be corrected only while the hand is stopped for "
                                 "a card the shoe could not read, one that cannot be in it, "
                                 "or one read while nobody was signed in")
            c = parse_card(card) if isinstance(card, str) else card
            halt = self.halt
            # The correction, the resolution and the card commit together.
            before = [Step(ev.BourreCardCorrected(c.code, reason, halt.seq), user.actor,
                           st.round_no),
                      Step(HaltResolved("correction", reason, halt.seq), user.actor,
                           st.round_no)]
            self._card(c, "correction", user.actor, None, None, before)


def _winning(hand: BourreHand) -> int | None:
    """The seat whose card is winning the trick on the table (None before its first card)."""
    trick, trump = hand.current_trick, hand.trump
    if hand.phase is not Phase.PLAY or not trick or trump is None:
        return None
    return trick[trick_winner([c for _s, c in trick], trump)][0]


def open_bourre_table(journal: Journal, table_id: str, *, config_path: str | None = None,
                      dealer: str, prefer_journal_config: bool | None = None) -> BourreTable:
    """The registry's ``table`` part: the tournament profile of the file named (or of
    config/bourre.toml), unless the journal already holds the table's profile."""
    from dealer_station.games.bourre.config_file import load_bourre_profiles

    profiles = load_bourre_profiles(config_path)
    profile = profiles.get("tournament") or next(iter(profiles.values()))
    prefer = config_path is None if prefer_journal_config is None else prefer_journal_config
    return BourreTable(journal, table_id, profile, dealer=dealer, prefer_journal_config=prefer)


def _sent_back(st: HandState) -> tuple[int, str] | None:
    """The seat and card of the hand's last play if it was a misplay sent back to her hand
    (nothing has been played since)."""
    last = next((r.event for r in reversed(st.records) if isinstance(r.event, ev.Played)), None)
    if last is None or last.misplay is None or last.misplay.get("stands"):
        return None
    return last.seat, last.card
