"""Random La Pair'e play for ``simulate`` and the demo: legal wagers a table would see."""

from __future__ import annotations

import random
import threading
from typing import TYPE_CHECKING, Any

from dealer_station.audit.journal import Journal
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.errors import StationError
from dealer_station.events.table import CardHeld, RoundHalted
from dealer_station.games.lapaire.events import StageSettled
from dealer_station.games.lapaire.rules.config import LaPaireConfig, SpotWager
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.table.base import TableError, Update

if TYPE_CHECKING:
    from dealer_station.games.lapaire.table.live import LaPaireTable

FIRST_KINDS = ("straight", "split", "three", "corner")
OPTIONAL_KINDS = ("red", "black", "lapaire", "any_pair", "poker")


def _amount(rng: random.Random, minimum: int, maximum: int) -> int:
    steps = max(1, min(10, maximum // minimum))
    return min(maximum, minimum * rng.randint(1, steps))


def random_wagers(rng: random.Random, config: LaPaireConfig, *, seats: int | None = None
                  ) -> list[Wager]:
    """A First Card wager for each playing seat, then some offered optional wagers."""
    wagers: list[Wager] = []
    n_seats = seats if seats is not None else rng.randint(1, 7)
    spots: list[tuple[str, tuple[str, ...]]] = []
    for k in FIRST_KINDS:
        kind_config = config.wager(k)
        if isinstance(kind_config, SpotWager):
            spots += [(k, s.values) for s in kind_config.offered_spots()]
    for seat in rng.sample(range(1, 8), n_seats):
        kind, values = rng.choice(spots)
        lim = config.wager(kind).limits
        wagers.append(Wager(seat, kind, values, _amount(rng, lim.minimum, lim.maximum)))
        for kind in OPTIONAL_KINDS:
            w = config.wager(kind)
            if not w.offered or rng.random() > 0.3:
                continue
            if isinstance(w, SpotWager):
                offered = w.offered_spots()
                if not offered:
                    continue
                values = rng.choice(offered).values
            else:
                values = ()
            wagers.append(Wager(seat, kind, values,
                                _amount(rng, w.limits.minimum, w.limits.maximum)))
    return wagers


SIM_DEALER = "sim-dealer/dealer"
STAGE_TIMEOUT = 10.0


def simulated_table(journal: Journal, table_id: str, config_path: str | None,
                    rng: random.Random
                    ) -> tuple[LaPaireTable, Any, threading.Event, list[str]]:
    """The table, started, with a simulated shoe attached: (table, shoe, settled, problems).
    ``settled`` is set after each stage settles or the round stops; ``problems`` collects
    why it stopped. The caller closes the shoe and shuts the table down."""
    from dealer_station.games.lapaire.config_file import load_lapaire_config
    from dealer_station.games.lapaire.table.live import LaPaireTable
    from dealer_station.hardware.backends import open_device

    table = LaPaireTable(journal, table_id, load_lapaire_config(config_path), dealer=SIM_DEALER,
                         prefer_journal_config=config_path is None)
    settled = threading.Event()
    problems: list[str] = []

    def watch(update: Update) -> None:
        halts = update.of(RoundHalted)
        if halts or update.problem:
            problems.append(halts[-1].reason if halts else str(update.problem))
            settled.set()
        elif update.has(StageSettled, CardHeld):
            settled.set()

    table.subscribe(watch)
    table.startup()
    shoe = open_device("shoe", "simulated", device_id="SIMSHOE", deck=LAPAIRE_DECK,
                       on_event=table.on_device_event, seed=rng.randrange(2**32))
    table.attach("shoe", shoe)
    assert shoe.simulator is not None
    return table, shoe, settled, problems


def simulate_lapaire(journal: Journal, table_id: str, *, rounds: int, seed: int | None,
                     config_path: str | None = None, quiet: bool = False) -> int:
    """Play ``rounds`` complete rounds; returns how many were completed (recovered included)."""
    rng = random.Random(seed)
    table, shoe, settled, problems = simulated_table(journal, table_id, config_path, rng)
    done = 0
    try:
        while done < rounds:
            play_round(table, shoe, rng, settled, problems)
            done += 1
            if not quiet:
                closed = table.last_closed
                assert closed is not None
                s = closed.close or {}
                money = table.money.text     # money as money, never minor units
                print(f"round {closed.round_no}: {' '.join(s.get('cards', []))}  wagers "
                      f"{s.get('wagers')}  wagered {money(int(s.get('wagered') or 0))}  paid "
                      f"{money(int(s.get('total_win') or 0))}")
    finally:
        shoe.close()
        table.devices.clear()
        table.shutdown()
    return done


def play_round(table: LaPaireTable, shoe: Any, rng: random.Random, settled: threading.Event,
               problems: list[str], wagers: list[Wager] | None = None) -> None:
    """Deal one round to its end (finishing the one the journal left open, if any) and pay
    every stage. ``settled`` is set by the caller's listener after each stage or halt."""
    if table.halt is not None:
        raise TableError(f"table {table.table_id} is stopped ({table.halt.reason}): a "
                         f"supervisor must resolve it before simulating")
    if table.current is None:
        table.place_many(wagers if wagers is not None else random_wagers(rng, table.config))
    rb = table.current
    assert rb is not None
    dealt = {(c.rank, c.suit) for c in rb.engine.cards if not c.is_joker}
    jokers = sum(c.is_joker for c in rb.engine.cards)
    deck = [c for c in LAPAIRE_DECK.shuffled(rng)
            if (c.rank, c.suit) not in dealt and not (c.is_joker and c.copy < jokers)]
    shoe.simulator.set_order(deck)
    while not rb.engine.is_complete:
        settled.clear()
        shoe.simulator.deal()
        if not settled.wait(STAGE_TIMEOUT):
            raise TableError(f"no card arrived from the simulated shoe within "
                             f"{STAGE_TIMEOUT:.0f} s")
        with table.lock:
            pass    # the table's worker has finished with the card
        if problems:
            raise TableError(f"the round stopped: {problems[-1]}")
    while table.unconfirmed():   # the dealer pays each stage in turn
        table.confirm_payout(table.unconfirmed()[0])


def simulate(journal: Journal, table_id: str, count: int, *, seed: int | None,
             config_path: str | None = None, quiet: bool = False,
             profile: str | None = None) -> int:
    """The registry's ``simulate`` part: ``count`` rounds."""
    if profile is not None:
        raise StationError(f"--profile: La Pair'e has no rule profiles to choose from "
                           f"(got {profile!r})")
    return simulate_lapaire(journal, table_id, rounds=count, seed=seed, config_path=config_path,
                            quiet=quiet)
