"""``apply`` alone rebuilds every table's state from its journal: after every step of random
La Pair'e rounds and Bourré hands (wagers, removals, cards, payouts, halts, resumes, voids,
configuration changes, decisions, discards, plays and reneges), a fresh state that is given
nothing but the table's journal records, one by one, equals the live table's state.

The live table decides each intent on a trial copy and commits typed events; the fresh state
reads the stored payloads back through the codec. Equal states show that the two paths are
one, and that what is stored says everything the table acts on.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_station.app import fast_hasher
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import User, Users
from dealer_station.cards import BOURRE_DECK, LAPAIRE_DECK
from dealer_station.errors import StationError
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.rules.engine import Phase
from dealer_station.games.bourre.table.live import BourreTable
from dealer_station.games.bourre.table.rounds import BourreState
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.events import CODEC as LAPAIRE_CODEC
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.table.sim import random_wagers
from dealer_station.games.lapaire.table.state import LaPaireState
from dealer_station.table.base import Halt, TableService, next_halt

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def journal() -> Iterator[Journal]:
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'j.db'}")
        try:
            yield Journal(db, create_key(Path(tmp) / "j.key"))
        finally:
            db.close()


def supervisor(j: Journal, table_id: str) -> User:
    users = Users(j, hasher=fast_hasher())
    users.seed([("olga", "Olga", "operator", "2468"), ("sue", "Sue", "supervisor", "2468")],
               actor="setup/operator")
    return users.authenticate("sue", "2468", table_id=table_id)


def halt_from_journal(t: TableService) -> Halt | None:
    halt: Halt | None = None
    for r in t.journal.records(t.table_id):
        halt = next_halt(halt, t.codec.committed(r.seq, r.ts, r.actor, r.round_no, r.kind,
                                                 r.payload))
    return halt


def lapaire_from_journal(t: LaPaireTable) -> LaPaireState:
    fresh = LaPaireState(t.state.config, "", lambda v: t.state.config_for(v))
    for r in t.journal.records(t.table_id):
        fresh.apply(LAPAIRE_CODEC.committed(r.seq, r.ts, r.actor, r.round_no, r.kind,
                                            r.payload))
    return fresh


def check_lapaire(t: LaPaireTable) -> None:
    with t.lock:
        assert lapaire_from_journal(t).snapshot() == t.state.snapshot()
        assert halt_from_journal(t) == t.halt


LAPAIRE_STEPS = st.lists(st.tuples(
    st.sampled_from(["wagers", "wagers", "remove", "deal", "deal", "deal", "confirm",
                     "confirm", "halt", "resume", "void", "config"]),
    st.integers(0, 2**32)), min_size=5, max_size=40)


@SETTINGS
@given(steps=LAPAIRE_STEPS)
def test_lapaire_state_is_what_its_journal_applies_to(steps: list[tuple[str, int]]) -> None:
    with journal() as j:
        sue = supervisor(j, "T1")
        t = LaPaireTable(j, "T1", load_lapaire_config(), dealer="dee/dealer")
        t.startup()
        check_lapaire(t)
        for action, n in steps:
            rng = random.Random(n)
            try:
                if action == "wagers":
                    t.place_many(random_wagers(rng, t.pending[0] if t.pending else t.config,
                                               seats=rng.randint(1, 3)))
                elif action == "remove" and t.current is not None:
                    t.remove(rng.choice(sorted(t.current.engine.wagers) or [1]))
                elif action == "deal":
                    dealt = t.current.engine.cards if t.current else ()
                    codes = {c.code for c in dealt}
                    t.deal(rng.choice([c for c in LAPAIRE_DECK.cards()
                                       if c.code not in codes]))
                elif action == "confirm" and t.unconfirmed():
                    t.confirm_payout(t.unconfirmed()[0])
                elif action == "halt" and t.in_round() and t.halt is None:
                    t.stop_round("the shoe's door is open", "door_open", "Close it.",
                                 "device:shoe")
                elif action == "resume":
                    t.resume(sue, "door closed")
                elif action == "void":
                    t.void(sue, "a dispute at the table")
                elif action == "config":
                    new = load_lapaire_config().with_changes(offered={"poker": rng.random() < 0.5})
                    t.change_config(sue, new, "offer the Poker wager or not")
            except StationError:
                pass    # refused: nothing is written, and the states must still agree
            check_lapaire(t)
        t.shutdown()


def bourre_from_journal(t: BourreTable) -> BourreState:
    fresh = BourreState(t.state.profile, t.state.config_version)
    opens = list(t.journal.records(t.table_id, kinds=["session.open"]))
    for r in t.journal.records(t.table_id, from_seq=opens[-1].seq if opens else 1):
        fresh.apply(r)
    return fresh


def check_bourre(t: BourreTable) -> None:
    with t.lock:
        assert bourre_from_journal(t).snapshot() == t.state.snapshot()
        assert halt_from_journal(t) == t.halt


BOURRE_STEPS = st.lists(st.tuples(
    st.sampled_from(["play"] * 40 + ["renege"] * 3 + ["halt", "resume", "resume", "void"]),
    st.integers(0, 2**32)), min_size=80, max_size=160)


def advance(t: BourreTable, rng: random.Random, shoe: list, *, renege: bool) -> None:
    """The next thing that happens at the table, as the hand's phase asks (the players'
    choices, and the cards, drawn at random)."""
    hand = t.hand
    if hand is None:
        t.start_hand(elapsed=0.0)
        shoe[:] = BOURRE_DECK.shuffled(rng)
        return
    seat = hand.to_act
    if hand.phase is Phase.DEAL or (hand.phase is Phase.DRAW and t.receiving()):
        seen = {c.code for s in hand.seats for c in hand.held(s)}
        card = next(c for c in shoe if c.code not in seen)
        t.card(card, source="shoe")
        shoe.remove(card)       # dealt (a refused card stays in the shoe)
    elif hand.phase is Phase.DECISIONS and seat is not None:
        t.decide(seat, not hand.can_fold(seat) or (hand.can_stay(seat)
                                                   and rng.random() < 0.7))
    elif hand.phase is Phase.DRAW and seat is not None:
        pending = len(t.current.discards.get(seat, [])) if t.current else 0
        if hand.held(seat) and pending < 2 and rng.random() < 0.5:
            t.card(rng.choice(hand.held(seat)), source="reader")
        else:
            t.finish_discard(seat)
    elif hand.phase is Phase.PLAY and seat is not None:
        legal = hand.legal_cards(seat)
        wrong = [c for c in hand.held(seat) if c not in legal]
        t.card(rng.choice(wrong if renege and wrong else legal), source="reader",
               position=seat)


@SETTINGS
@given(steps=BOURRE_STEPS)
def test_bourre_state_is_what_its_journal_applies_to(steps: list[tuple[str, int]]) -> None:
    with journal() as j:
        sue = supervisor(j, "B1")
        t = BourreTable(j, "B1", load_bourre_profiles()["tournament"], dealer="dee/dealer")
        t.startup()
        t.start_session([1, 2, 3, 4])
        check_bourre(t)
        shoe: list = []
        for action, n in steps:
            rng = random.Random(n)
            try:
                if action == "halt" and t.in_round() and t.halt is None:
                    t.stop_round("the reader is jammed", "jam", "Clear it.", "device:reader")
                elif action == "resume":
                    t.resume(sue, "cleared")
                elif action == "void" and rng.random() < 0.3:
                    t.void(sue, "a misdeal")
                else:
                    advance(t, rng, shoe, renege=action == "renege")
            except StationError:
                pass
            check_bourre(t)
        t.shutdown()
