"""La Pair'e's part of the documentation's sample reports (``dealer_station.reports.samples``,
which asks each game for its own through the registry's ``report_samples``)."""

from __future__ import annotations

import random
import threading
from pathlib import Path

from dealer_station.audit.journal import Journal
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.reports.samples import SampleClock, SampleReport

ROUNDS_PER_DEALER = 230


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


def sample_reports(journal: Journal, clock: SampleClock, where: Path, /
                   ) -> list[SampleReport]:
    """An eight-hour shift at La Pair'e table T1 through the real table service and simulated
    shoe: two dealers, a misread corrected by a supervisor, a device fault and a void, three
    configuration changes (two approved by a second person). The reports to write of it."""
    from dealer_station.audit.users import Users
    from dealer_station.cards import LAPAIRE_DECK
    from dealer_station.events.table import RoundHalted
    from dealer_station.games.lapaire.config_file import load_lapaire_config
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
    return [SampleReport("shift", "T1", "shift"),
            SampleReport("recall", "T1", "recall", ROUNDS_PER_DEALER + 1),        # a misread
            SampleReport("recall", "T1", "recall-void", ROUNDS_PER_DEALER + 2),   # the void
            SampleReport("events", "T1", "events"), SampleReport("config", "T1", "config")]
