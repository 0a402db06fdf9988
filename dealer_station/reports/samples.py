"""Sample reports for the documentation, from a journal made the way a floor makes one.

    .venv/bin/python -m dealer_station.reports.samples docs/samples

A La Pair'e table T1 plays an eight-hour shift through the real table service and simulated
shoe (two dealers, a misread corrected by a supervisor, a device fault and a void, three
configuration changes, two of them approved by a second person), and a Bourré table B1 plays
ten 30-minute sessions of named players (bourrés, reneges, carried pots; the last session left
under way) under a profile with a house collection. Every report is written from that journal,
and its pages rendered to PNG with pdftoppm where it is installed.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.games.lapaire.table.live import LaPaireTable

SHIFT_START = datetime(2026, 3, 6, 23, 0, tzinfo=UTC)   # 17:00 in Louisiana
SECONDS_PER_APPEND = 11
ROUNDS_PER_DEALER = 230


class _Clock:
    def __init__(self, start: datetime, step: float) -> None:
        self.now, self.step = start, timedelta(seconds=step)
        self.lock = threading.Lock()

    def __call__(self) -> datetime:
        with self.lock:
            self.now += self.step
            return self.now


def _play(t: LaPaireTable, rounds: int, rng: random.Random) -> None:
    """Rounds as a dealer plays them: random legal wagers, three cards from the shoe."""
    from dealer_station.cards import LAPAIRE_DECK
    from dealer_station.games.lapaire.table.sim import random_wagers

    for _ in range(rounds):
        t.place_many(random_wagers(rng, t.config))
        for card in LAPAIRE_DECK.shuffled(rng)[:3]:
            t.deal(card, source="shoe", actor="device:shoe:SHOE-07")
            for stage in t.unconfirmed():
                t.confirm_payout(stage)


def _lapaire(journal: Journal, clock: _Clock) -> None:
    from dealer_station.audit.users import Users
    from dealer_station.cards import LAPAIRE_DECK
    from dealer_station.events.table import RoundHalted
    from dealer_station.gameconfig import load_lapaire_config
    from dealer_station.games.lapaire.rules.engine import Wager
    from dealer_station.hardware.backends import open_device

    users = Users(journal)
    users.seed([(uid, name, role, "2468") for uid, name, role in (
        ("olga", "Olga Example", "operator"), ("ann", "Ann Example", "dealer"),
        ("bob", "Bob Example", "dealer"), ("sue", "Sue Example", "supervisor"))],
        actor="setup/operator")
    t = LaPaireTable(journal, "T1", load_lapaire_config(), dealer="ann/dealer")
    t.startup()
    _play(t, ROUNDS_PER_DEALER, random.Random(25))
    sue = users.authenticate("sue", "2468", table_id="T1")
    olga = users.authenticate("olga", "2468", table_id="T1")
    def pay() -> None:
        for stage in t.unconfirmed():
            t.confirm_payout(stage)

    halted = threading.Event()
    t.subscribe(lambda u: halted.set() if u.has(RoundHalted) else None)
    shoe = open_device("shoe", "simulated", device_id="SHOE-07", deck=LAPAIRE_DECK,
                       on_event=t.on_device_event)
    t.attach("shoe", shoe)
    sim = shoe.simulator
    assert sim is not None
    try:
        t.place_many([Wager(1, "straight", ("K",), 2500), Wager(1, "any_pair", (), 500),
                      Wager(3, "split", ("7", "K"), 1000), Wager(5, "corner",
                                                                 ("2", "3", "8", "9"), 2000)])
        t.deal("KH")
        pay()
        sim.report_error("MISREAD", "card not recognised")
        halted.wait(10)
        halted.clear()
        t.correct_card(sue, "QS", "card turned face up by the dealer was QS; camera 4 agrees")
        pay()
        t.deal("9D")
        pay()
        t.place_many([Wager(2, "corner", ("2", "3", "8", "9"), 3000), Wager(2, "red", (), 1000),
                      Wager(2, "poker", (), 500)])
        t.deal("3H")
        pay()
        sim.report_error("JAM", "card jammed in the shoe")
        halted.wait(10)
        t.void(sue, "shoe jammed after card 1; stage 1 stands, the rest returned")
    finally:
        shoe.close()
        t.devices.clear()
    # Three changes by the operator: two approved by the supervisor with her PIN, one not.
    new = t.config.with_changes(offered={"poker": False}, limits={"straight": (200, 5000)})
    t.change_config(olga, new, "poker withdrawn for the night; straight-up minimum raised",
                    {"offered": {"poker": False}, "limits": {"straight": {"min": 200,
                                                                         "max": 5000}}},
                    approver=users.authenticate("sue", "2468", table_id="T1"))
    t.dealer = "bob/dealer"   # the dealers change over at the break
    _play(t, ROUNDS_PER_DEALER // 2, random.Random(31))
    new = t.config.with_changes(offered={"poker": True}, poker_paytable="alternative")
    t.change_config(olga, new, "poker back on the alternative paytable for the late crowd",
                    {"offered": {"poker": True}, "poker_paytable": "alternative"},
                    approver=users.authenticate("sue", "2468", table_id="T1"))
    _play(t, ROUNDS_PER_DEALER // 4, random.Random(32))
    new = t.config.with_changes(limits={"any_pair": (100, 2500)})
    t.change_config(olga, new, "Any Pair'e maximum halved after a run of large wagers",
                    {"limits": {"any_pair": {"min": 100, "max": 2500}}})
    _play(t, ROUNDS_PER_DEALER - ROUNDS_PER_DEALER // 2 - ROUNDS_PER_DEALER // 4,
          random.Random(33))
    t.shutdown()
    journal.checkpoint("T1", "console:operator")


#: The Bourré sample's players: ten sessions of five, drawn from these.
BOURRE_PLAYERS = ("Ann Arceneaux", "Boudreaux", "Clotile Thibodeaux", "Dud Hebert", "Eve Guidry",
                  "Fontenot", "Gus Landry", "Hazel Broussard", "Ida Melancon", "Jules Savoie",
                  "Kate LeBlanc", "Lou Doucet", "Marie Trahan", "Nonc Pierre", "Odile Comeaux",
                  "Paul Richard", "Rose Babineaux", "Sid Romero", "Theo Bergeron",
                  "Viv Sonnier", "Wade Guillory", "Yvette Dugas")
BOURRE_SESSIONS = 10
BOURRE_RENEGE_RATE = 0.03


def _bourre_hand(t: Any, rng: random.Random, elapsed: float) -> None:
    """One hand as the shoe and the reader would send it: players choose at random among what
    the rules allow, with an occasional renege."""
    from dealer_station.cards import BOURRE_DECK
    from dealer_station.games.bourre.rules.engine import DrawSource, Phase

    t.start_hand(elapsed=elapsed)
    hand = t.hand
    deck = BOURRE_DECK.shuffled(rng)
    while hand.phase is Phase.DEAL:
        t.card(deck.pop(0), source="shoe", actor="device:shoe:SHOE-B1")
    while hand.phase is Phase.DECISIONS:
        seat = hand.to_act
        t.decide(seat, hand.can_stay(seat) and (not hand.can_fold(seat) or rng.random() < 0.7))
    while hand.phase is Phase.DRAW:
        seat = hand.to_act
        held = list(hand.held(seat))
        for c in rng.sample(held, rng.randint(0, min(hand.profile.draw_limit, len(held)))):
            t.discard_card(seat, c, actor="device:reader:READER-B1")
        for _ in range(t.finish_discard(seat)):
            source = hand.draw_source()
            pile = (list(hand.unseen) if source is DrawSource.STOCK else
                    list(hand.folded_pile) if source is DrawSource.FOLDED else
                    list(hand.discard_pile))
            t.card(rng.choice(pile), source="shoe", actor="device:shoe:SHOE-B1")
    while hand.phase is Phase.PLAY:
        seat = hand.to_act
        legal = hand.legal_cards(seat)
        illegal = [c for c in hand.held(seat) if c not in legal]
        card = (rng.choice(illegal) if illegal and rng.random() < BOURRE_RENEGE_RATE
                else rng.choice(legal))
        t.card(card, source="reader", actor="device:reader:READER-B1")


def _bourre(journal: Journal, where: Path) -> None:
    """Ten 30-minute sessions of named players (one hand a minute) under a profile with a
    house collection: bourrés, reneges, pots carried from hand to hand and from session to
    session; the last session is left under way."""
    from dealer_station.gameconfig import config_dir, load_bourre_profiles
    from dealer_station.games.bourre.table.live import BourreTable

    text = (config_dir() / "bourre.toml").read_text()
    text = text.replace('collection = "none"', 'collection = "percent"', 1)
    text = text.replace("percent = 0", "percent = 10", 1).replace('cap = "none"', "cap = 3", 1)
    config = where / "bourre-house.toml"
    config.write_text(text)
    profile = load_bourre_profiles(config)["tournament"]
    t = BourreTable(journal, "B1", profile, dealer="dee/dealer", prefer_journal_config=False)
    t.startup()
    rng = random.Random(5)
    seats = (1, 2, 3, 4, 5)
    for n in range(BOURRE_SESSIONS):
        out = set(t.tournament().eliminated)   # three game tags: not seated again
        players = rng.sample([x for x in BOURRE_PLAYERS if x not in out], len(seats))
        t.start_session(seats, rng.choice(seats), players=dict(zip(seats, players,
                                                                   strict=True)))
        hands = 0
        while (session := t.session) is not None and not session.is_over(hands * 60) and (
                n < BOURRE_SESSIONS - 1 or hands < 12):
            _bourre_hand(t, rng, hands * 60)
            hands += 1
        if n < BOURRE_SESSIONS - 1:
            t.end_session(tie_break=sorted(seats))
    t.shutdown()


def _cash_bourre(journal: Journal) -> None:
    """Three sessions of the ``cash`` profile at table B2 (one hand a minute): the house's
    collection in money, pots carried from session to session, for the card-room report."""
    from dealer_station.gameconfig import load_bourre_profiles
    from dealer_station.games.bourre.table.live import BourreTable

    t = BourreTable(journal, "B2", load_bourre_profiles()["cash"], dealer="dee/dealer",
                    prefer_journal_config=False)
    t.startup()
    rng = random.Random(9)
    seats = (1, 2, 3, 4, 5)
    for _ in range(3):
        players = rng.sample(list(BOURRE_PLAYERS), len(seats))
        t.start_session(seats, rng.choice(seats), players=dict(zip(seats, players,
                                                                   strict=True)))
        hands = 0
        while (session := t.session) is not None and not session.is_over(hands * 60):
            _bourre_hand(t, rng, hands * 60)
            hands += 1
        t.end_session(tie_break=sorted(seats))
    t.shutdown()


@contextmanager
def _witnessed(journal: Journal, where: Path, out: Path) -> Iterator[None]:
    """The regulator's witness, in this process, cosigning each checkpoint the sample table
    signs; the station's and the witness's public keys are written beside the samples, so
    that the samples' pages can be checked with them alone (docs/journal.md)."""
    from dealer_station.floor.witness_push import WitnessConfig, WitnessPusher
    from dealer_station.witness.files import init_state, open_state
    from dealer_station.witness.server import WitnessServer
    from dealer_station.witness.service import Witness

    assert journal.signer is not None
    init_state(where / "witness", "regulator.example/witness-1")
    signer, state = open_state(where / "witness")
    server = WitnessServer(Witness(signer, [journal.signer.verifier], state), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    pusher = WitnessPusher(journal, [WitnessConfig(server.url, signer.verifier)])
    pusher.start()
    try:
        yield
        journal.anchor_written()
        pusher.flush(timeout=60)
    finally:
        pusher.stop()
        server.shutdown()
        server.server_close()
        thread.join()
        state.close()
    (out / "station.pub").write_text(journal.signer.verifier.vkey() + "\n")
    (out / "witness.pub").write_text(signer.verifier.vkey() + "\n")


def make_samples(out: Path) -> list[Path]:
    from dealer_station.reports.catalog import build_report

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        db = open_database(f"sqlite:///{where / 'journal.db'}")
        try:
            clock = _Clock(SHIFT_START, SECONDS_PER_APPEND)
            journal = Journal(db, create_key(where / "journal.key", "casino.example/pit1"),
                              clock=clock)
            with _witnessed(journal, where, out):
                _lapaire(journal, clock)
                clock.step = timedelta(seconds=0.8)   # a Bourré hand is ~70 records a minute
                _bourre(journal, where)
                _cash_bourre(journal)
            for kind, table, name, round_no in (
                    ("shift", "T1", "shift", None),
                    ("recall", "T1", "recall", ROUNDS_PER_DEALER + 1),        # a misread
                    ("recall", "T1", "recall-void", ROUNDS_PER_DEALER + 2),   # the void
                    ("events", "T1", "events", None), ("config", "T1", "config", None),
                    ("bourre-session", "B1", "bourre-session", None),
                    ("card-room", "B2", "card-room", None)):
                report = build_report(kind, journal, table, out=out / f"{name}.pdf",
                                      round_no=round_no)
                written.append(report.path)
        finally:
            db.close()
    exe = shutil.which("pdftoppm")
    for pdf in written:
        for old in out.glob(f"{pdf.stem}-*.png"):
            old.unlink()
        if exe:
            subprocess.run([exe, "-r", "72", "-png", str(pdf), str(out / pdf.stem)],
                           check=True)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/samples")
    for path in make_samples(target):
        print(f"wrote {path}")
