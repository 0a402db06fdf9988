"""Random Bourré play for ``simulate`` and the demo: a simulated shoe deals, a simulated reader
reads discards and plays, and the players choose at random among what the rules allow
(with an occasional renege, so that the penalty path is exercised too).

``simulate --inject`` plays anomalies for the game-protection monitor (chip dumping, soft
play, reneges at one seat): games/bourre/table/inject.py."""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence

from dealer_station.audit.journal import Journal
from dealer_station.cards import BOURRE_DECK
from dealer_station.events.table import CardHeld, RoundHalted
from dealer_station.games.bourre.events import BourreCardDealt, DiscardRead, Played
from dealer_station.games.bourre.rules.engine import DrawSource, Phase
from dealer_station.games.bourre.table.inject import Injections
from dealer_station.games.bourre.table.live import BourreTable
from dealer_station.table.base import TableError, Update

SIM_DEALER = "sim-dealer/dealer"
EVENT_TIMEOUT = 10.0
#: Simulated minutes per hand: a 30-minute session is about 30 hands.
SECONDS_PER_HAND = 60
SEATS = (1, 2, 3, 4, 5)
RENEGE_RATE = 0.02


class _Waiter:
    """Waits for the table to take each card a simulated device sends."""

    def __init__(self, table: BourreTable) -> None:
        self.table = table
        self.event = threading.Event()
        self.problems: list[str] = []
        table.subscribe(self._on_change)

    def _on_change(self, update: Update) -> None:
        halts = update.of(RoundHalted)
        if halts or update.problem:
            self.problems.append(halts[-1].reason if halts else str(update.problem))
            self.event.set()
        elif update.has(BourreCardDealt, DiscardRead, Played, CardHeld):
            self.event.set()

    def send(self, action: object) -> None:
        self.event.clear()
        action()  # type: ignore[operator]
        if not self.event.wait(EVENT_TIMEOUT):
            raise TableError(f"a simulated device's card was not taken within "
                             f"{EVENT_TIMEOUT:.0f} s")
        with self.table.lock:
            pass    # the table's worker has finished with the card (a hand's close too)
        if self.problems:
            raise TableError(f"the hand stopped: {self.problems[-1]}")


NO_INJECTIONS = Injections()


def play_hand(table: BourreTable, shoe: object, reader: object, rng: random.Random,
              waiter: _Waiter, elapsed: float, inject: Injections = NO_INJECTIONS) -> None:
    """Play the table's hand under way (or a new one) to its end through the devices.

    A hand under way was left by a station that stopped (a crash, a kill): the simulated shoe
    is new, so it is loaded with the cards the hand can still be dealt, in every phase."""
    resumed = table.hand is not None
    if table.hand is None:
        table.start_hand(elapsed=elapsed)
    hand = table.hand
    assert hand is not None
    sim_shoe = shoe.simulator  # type: ignore[attr-defined]
    sim_reader = reader.simulator  # type: ignore[attr-defined]
    if hand.phase is Phase.DEAL:
        held = {c for s in hand.seats for c in hand.held(s)}
        sim_shoe.set_order([c for c in BOURRE_DECK.shuffled(rng) if c not in held])
        while hand.phase is Phase.DEAL:
            waiter.send(sim_shoe.deal)
    elif resumed and hand.phase in (Phase.DECISIONS, Phase.DRAW):
        # The stock is what nobody has seen yet (the new shoe's own order holds dealt cards).
        sim_shoe.set_order(rng.sample(hand.unseen, len(hand.unseen)))
    hand_no = table.round_no
    while hand.phase is Phase.DECISIONS:
        seat = hand.to_act
        assert seat is not None
        designed = inject.stays(seat, hand_no, hand) if inject else None
        if designed is not None and (hand.can_stay(seat) if designed
                                     else hand.can_fold(seat)):
            stay = designed
        else:
            stay = hand.can_stay(seat) and (not hand.can_fold(seat) or rng.random() < 0.7)
        table.decide(seat, stay)
    # The pile the shoe was last loaded from: a resumed draw may already be past the stock.
    source: DrawSource | None = DrawSource.STOCK
    while hand.phase is Phase.DRAW:
        seat = hand.to_act
        assert seat is not None
        if not table.receiving():
            pending = set(table.current.discards.get(seat, []))  # type: ignore[union-attr]
            left = [c for c in hand.held(seat) if c.code not in pending]
            chosen = inject.discards(seat, hand_no, hand) if inject else None
            if chosen is not None:
                throw = [c for c in chosen if c.code not in pending]
            else:
                want = rng.randint(0, min(hand.profile.draw_limit, len(left)))
                throw = rng.sample(left, max(0, want - len(pending)))
            for discard in throw:
                waiter.send(lambda c=discard, s=seat: sim_reader.send_card(c, s))
            table.finish_discard(seat)
            continue
        now = hand.draw_source()
        if now is not source:
            # The stock is out: the folded hands, then the discards, are shuffled and dealt.
            pile = hand.folded_pile if now is DrawSource.FOLDED else hand.discard_pile
            sim_shoe.set_order(rng.sample(list(pile), len(pile)))
            source = now
        waiter.send(sim_shoe.deal)
    while hand.phase is Phase.PLAY:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_cards(seat)
        # A player whose misplay was just handed back lays another card, not the same one
        # again (the table would hold that as the same misplay read twice).
        with table.lock:
            back = table.sent_back()
        illegal = [c for c in hand.held(seat) if c not in legal and (seat, c.code) != back]
        share = inject.renege_share(seat, hand_no, RENEGE_RATE) if inject else RENEGE_RATE
        card = (rng.choice(illegal) if illegal and rng.random() < share
                      else rng.choice(legal))
        designed_card = inject.card(seat, hand_no, hand, legal) if inject and card in legal \
            else None
        if designed_card is not None:
            card = designed_card
        waiter.send(lambda c=card, s=seat: sim_reader.send_card(c, s))


def simulate_bourre(journal: Journal, table_id: str, *, hands: int, seed: int | None,
                    config_path: str | None = None, quiet: bool = False,
                    profile_name: str | None = None,
                    inject: Injections = NO_INJECTIONS) -> int:
    """Play ``hands`` complete hands in sessions of five players; returns how many.

    ``profile_name`` (default tournament) is played from the file even if the journal holds
    another profile for the table (it is journaled as a configuration change)."""
    chosen = profile_name is not None
    profile_name = profile_name or "tournament"
    from dealer_station.games.bourre.config_file import load_bourre_profiles
    from dealer_station.hardware.backends import open_device

    rng = random.Random(seed)
    profiles = load_bourre_profiles(config_path)
    if profile_name not in profiles:
        raise TableError(f"no Bourré profile {profile_name!r} (have {', '.join(profiles)})")
    table = BourreTable(journal, table_id, profiles[profile_name], dealer=SIM_DEALER,
                        prefer_journal_config=config_path is None and not chosen)
    waiter = _Waiter(table)
    table.startup()
    shoe = open_device("shoe", "simulated", device_id="SIMSHOE", deck=BOURRE_DECK,
                       on_event=table.on_device_event, seed=rng.randrange(2**32))
    reader = open_device("reader", "simulated", device_id="SIMREAD", deck=BOURRE_DECK,
                         on_event=table.on_device_event)
    table.attach("shoe", shoe)
    table.attach("reader", reader)
    done = 0
    session_hands = 0
    entries: dict[int, int] = {}
    try:
        while done < hands:
            if table.halt is not None:
                raise TableError(f"table {table_id} is stopped ({table.halt.reason}): a "
                                 f"supervisor must resolve it before simulating")
            session = table.session
            if session is not None and table.hand is None and session.is_over(
                    session_hands * SECONDS_PER_HAND):
                # A tournament's players tied across the winners' line: the simulated
                # judge breaks the tie by lot (the run stopped there before).
                tie: list[int] = []
                if not table.profile.is_cash and not session.result().decided:
                    tie = rng.sample(list(session.seats), len(session.seats))
                result = table.end_session(tie_break=tie)
                if not quiet:
                    print("session over: " + ", ".join(
                        f"{s.player} {s.chips} chips ({s.outcome.value})"
                        for s in result.standings))
                session = None
            if session is None:
                players = {s: f"player-{rng.randrange(1000):03d}-{s}" for s in SEATS}
                # The players of an injected pair come back to their seats every session
                # (a tournament's player eliminated by game tags is followed by a new entry).
                kept = inject.kept_seats()
                out = set(table.tournament().eliminated) if kept else set()
                for s in kept:
                    while f"player-pair-{s}-{entries.get(s, 1)}" in out:
                        entries[s] = entries.get(s, 1) + 1
                    players[s] = f"player-pair-{s}-{entries.get(s, 1)}"
                table.start_session(SEATS, rng.choice(SEATS), players=players)
                session_hands = 0
            play_hand(table, shoe, reader, rng, waiter, session_hands * SECONDS_PER_HAND,
                      inject)
            session_hands += 1
            done += 1
            if not quiet:
                last = table.state.hands[-1]
                r = last.close or {}
                print(f"hand {last.round_no}: trump {r.get('trump')}  winner "
                      f"{r.get('winner') or 'none (pot carries)'}  pot {r.get('pot_end')} chips  "
                      f"bourré {','.join(r.get('bourre', [])) or '-'}  reneges "
                      f"{len(r.get('reneges', []))}")
    finally:
        shoe.close()
        reader.close()
        table.devices.clear()
        table.shutdown()
    return done


def simulate(journal: Journal, table_id: str, count: int, *, seed: int | None,
             config_path: str | None = None, quiet: bool = False,
             profile: str | None = None, inject: Sequence[str] = ()) -> int:
    """The registry's ``simulate`` part: ``count`` hands (of rule profile ``profile``), with
    the anomalies ``inject`` names (games/bourre/table/inject.py), each refused clearly when
    Bourré does not know it (the biased shoe and card knowledge are La Pair'e's)."""
    injections = Injections.parse(inject, SEATS)
    return simulate_bourre(journal, table_id, hands=count, seed=seed, config_path=config_path,
                           quiet=quiet, profile_name=profile, inject=injections)
