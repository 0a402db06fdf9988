"""Random La Pair'e play for ``simulate`` and the demo: legal wagers a table would see.

``simulate --inject`` adds anomalies from a given round of the table on, so that the game
protection monitor can be tested and shown (issue 24):

* ``biased-shoe:VALUE@ROUND``: from round ROUND on, the shoe's first card is VALUE one round in
  three (a card of that value not yet dealt, of a random suit or copy); otherwise it deals at
  random.
* ``card-knowledge:SEAT@ROUND``: from round ROUND on, in half the rounds, the player at SEAT
  adds a Straight-up on the value of the first card about to be dealt, besides its usual random
  wagers (the round's deck order is decided before its wagers are placed).
* ``dealer-pays:PCT@ROUND``: from round ROUND on, in PCT percent of the rounds, the dealer lets
  a friend's First Card Red or Black ride on the colour of the first card about to be dealt,
  at the table maximum (a wager placed, or let stand, once the card is known: the dealer pays
  it). The friend is one of the round's seats with a First Card wager, at random; a Joker
  coming first has no colour, and nothing is added.
* ``mispays:DEALER@ROUND`` (with ``--gaming-days``): from round ROUND on, the simulated dealer
  number DEALER (of ``--dealers``, who take the shifts in turn) pays one winning wager in ten
  a chip too many (the smallest): the station settles it right, and only the tray, counted at
  the shift's end, shows it.

ROUND is the table's round number as the journal numbers rounds, so it counts the rounds of
earlier runs into the same journal. The choices come from the run's seeded generator: the same
``--seed`` gives the same run. Without injections the generator is drawn exactly as before.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dealer_station.audit.journal import Journal
from dealer_station.cards import LAPAIRE_DECK, VALUES, Card
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


#: The seats random wagers are placed at (and a seat with card knowledge may sit at).
SEATS = range(1, 8)
BIASED_SHOE = "biased-shoe"
CARD_KNOWLEDGE = "card-knowledge"
DEALER_PAYS = "dealer-pays"
MISPAYS = "mispays"
ANOMALIES = (BIASED_SHOE, CARD_KNOWLEDGE, DEALER_PAYS, MISPAYS)
#: The most simulated dealers (``simulate --dealers``), and how often the one who mispays
#: (``mispays:DEALER@ROUND``) pays a winning wager a chip too many.
MAX_DEALERS = 9
MISPAY_SHARE = 1 / 10
#: How often an injection acts, from its round on: the biased shoe one round in three, the
#: seat with card knowledge in half the rounds.
BIAS_SHARE = 1 / 3
KNOWLEDGE_SHARE = 1 / 2
INJECT_FORM = ("biased-shoe:VALUE@ROUND, card-knowledge:SEAT@ROUND, "
               "dealer-pays:PCT@ROUND or mispays:DEALER@ROUND")


class InjectionError(StationError):
    """An ``--inject`` that cannot be played; the message names the part that is wrong."""


@dataclass(frozen=True, slots=True)
class Injection:
    """One anomaly from round ``round_no`` on: a biased shoe (``value``, the layout value it
    favours), a seat with card knowledge (``seat``) or a dealer who pays a friend in
    ``percent`` of the rounds."""

    anomaly: str
    round_no: int
    value: str | None = None
    seat: int | None = None
    percent: int | None = None
    #: ``mispays``: the simulated dealer's number (1 to ``--dealers``).
    dealer: int | None = None

    @property
    def spec(self) -> str:
        arg = (self.value if self.anomaly == BIASED_SHOE else
               self.percent if self.anomaly == DEALER_PAYS else
               self.dealer if self.anomaly == MISPAYS else self.seat)
        return f"{self.anomaly}:{arg}@{self.round_no}"

    def active(self, round_no: int) -> bool:
        return round_no >= self.round_no

    @classmethod
    def parse(cls, spec: str) -> Injection:
        """``biased-shoe:VALUE@ROUND`` or ``card-knowledge:SEAT@ROUND``; an InjectionError
        names the part that is wrong."""
        bad = f"--inject {spec!r}"
        head, at, round_text = spec.strip().rpartition("@")
        if not at:
            raise InjectionError(f"{bad}: no '@ROUND' (the round it starts at); write "
                                 f"{INJECT_FORM}, e.g. biased-shoe:7@100")
        anomaly, colon, arg = head.partition(":")
        anomaly = anomaly.strip().lower()
        if anomaly not in ANOMALIES:
            what = f"unknown anomaly {anomaly!r}" if anomaly else "no anomaly named"
            raise InjectionError(f"{bad}: {what}; the anomalies are "
                                 f"{', '.join(ANOMALIES[:-1])} and {ANOMALIES[-1]} "
                                 f"(write {INJECT_FORM})")
        arg = arg.strip()
        if not colon or not arg:
            what, example = {BIASED_SHOE: ("VALUE (A, 2 ... 10, J, Q, K, JK)", "7"),
                             DEALER_PAYS: ("PCT (the percent of rounds, 1 to 100)", "50"),
                             MISPAYS: (f"DEALER (the simulated dealer, 1 to {MAX_DEALERS})",
                                       "2")}.get(anomaly, ("SEAT (1 to 7)", "3"))
            raise InjectionError(f"{bad}: {anomaly} needs its {what} after ':', e.g. "
                                 f"{anomaly}:{example}@100")
        round_text = round_text.strip()
        if not round_text.isdigit() or int(round_text) < 1:
            raise InjectionError(f"{bad}: the round after '@' must be a round number from 1 "
                                 f"up, got {round_text!r}")
        round_no = int(round_text)
        if anomaly == BIASED_SHOE:
            value = {"T": "10", "1": "A"}.get(arg.upper(), arg.upper())
            if value not in VALUES:
                raise InjectionError(f"{bad}: {arg!r} is not a value on the layout (the "
                                     f"values are {', '.join(VALUES)})")
            return cls(anomaly, round_no, value=value)
        if anomaly == DEALER_PAYS:
            if not arg.isdigit() or not 1 <= int(arg) <= 100:
                raise InjectionError(f"{bad}: the percent of rounds must be a whole number "
                                     f"from 1 to 100, got {arg!r}")
            return cls(anomaly, round_no, percent=int(arg))
        if anomaly == MISPAYS:
            if not arg.isdigit() or not 1 <= int(arg) <= MAX_DEALERS:
                raise InjectionError(f"{bad}: the dealer must be a simulated dealer's number "
                                     f"from 1 to {MAX_DEALERS} (of --dealers), got {arg!r}")
            return cls(anomaly, round_no, dealer=int(arg))
        if not arg.isdigit() or int(arg) not in SEATS:
            raise InjectionError(f"{bad}: seat {arg} is not a seat at the table (the seats "
                                 f"are {SEATS.start} to {SEATS.stop - 1})")
        return cls(anomaly, round_no, seat=int(arg))


@dataclass(frozen=True, slots=True)
class Injections:
    """The anomalies a run injects (none: the run plays exactly as it always has)."""

    items: tuple[Injection, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.items)

    @classmethod
    def parse(cls, specs: Sequence[str]) -> Injections:
        """Every ``--inject`` of a run: one biased shoe at most, a seat once, one dealer who
        pays a friend at most."""
        items = tuple(Injection.parse(s) for s in specs)
        pays = [i.spec for i in items if i.anomaly == DEALER_PAYS]
        if len(pays) > 1:
            raise InjectionError(f"--inject: one dealer-pays per run, got {', '.join(pays)}")
        shoes = [i.spec for i in items if i.anomaly == BIASED_SHOE]
        if len(shoes) > 1:
            raise InjectionError(f"--inject: one biased shoe per run, got {', '.join(shoes)}")
        mispays = [i.spec for i in items if i.anomaly == MISPAYS]
        if len(mispays) > 1:
            raise InjectionError(f"--inject: one mispays per run, got {', '.join(mispays)}")
        seats = [i.seat for i in items if i.anomaly == CARD_KNOWLEDGE]
        twice = sorted({s for s in seats if seats.count(s) > 1 and s is not None})
        if twice:
            raise InjectionError(f"--inject: card-knowledge is given twice for seat "
                                 f"{twice[0]}; give each seat once")
        return cls(items)

    def bias(self, deck: list[Card], round_no: int, rng: random.Random) -> list[Card]:
        """``deck`` (the round's cards in the order the shoe deals them) with a card of the
        biased value first, one round in three from the injection's round on."""
        for i in self.items:
            if i.anomaly != BIASED_SHOE or not i.active(round_no):
                continue
            if rng.random() >= BIAS_SHARE:
                continue
            favoured = [c for c in deck if c.value == i.value]
            if favoured:
                card = rng.choice(favoured)
                deck = [card, *(c for c in deck if c is not card)]
        return deck

    def knowing(self, first: Card, round_no: int, rng: random.Random, config: LaPaireConfig,
                wagers: Sequence[Wager]) -> list[Wager]:
        """The Straight-ups the seats with card knowledge add on ``first``'s value (the card
        about to be dealt first), in half the rounds from each injection's round on. Always a
        wager the engine takes: within the spot's limits, counting what the seat already has
        on that spot (a spot at its maximum gets nothing more)."""
        straight = config.wager("straight")
        offered = (isinstance(straight, SpotWager)
                   and any(s.values == (first.value,) for s in straight.offered_spots()))
        extra: list[Wager] = []
        for i in self.items:
            if i.anomaly != CARD_KNOWLEDGE or i.seat is None or not i.active(round_no):
                continue
            if rng.random() >= KNOWLEDGE_SHARE:
                continue
            lim = straight.limits
            amount = _amount(rng, lim.minimum, lim.maximum)
            if not offered:
                continue
            spot = ("straight", (first.value,))
            room = lim.maximum - sum(w.amount for w in wagers
                                     if w.seat == i.seat and w.spot == spot)
            if room > 0:
                extra.append(Wager(i.seat, "straight", (first.value,), min(amount, room)))
        return extra


    def friend(self, first: Card, round_no: int, rng: random.Random, config: LaPaireConfig,
               wagers: Sequence[Wager]) -> list[Wager]:
        """The First Card Red or Black on ``first``'s colour that the dealer lets a friend
        ride at the table maximum, in the injection's percent of the rounds from its round
        on (a wager the engine takes: the friend holds a First Card wager, and the spot's
        maximum counts what the friend already has on it)."""
        extra: list[Wager] = []
        for i in self.items:
            if (i.anomaly != DEALER_PAYS or i.percent is None or not i.active(round_no)
                    or rng.random() * 100 >= i.percent or first.is_joker):
                continue
            kind = "red" if first.is_red else "black"
            even = config.wager(kind)
            seats = sorted({w.seat for w in wagers if w.is_first_card})
            if not even.offered or not seats:
                continue
            seat = rng.choice(seats)
            room = even.limits.maximum - sum(w.amount for w in wagers
                                             if w.seat == seat and w.bet == kind)
            if room >= even.limits.minimum:
                extra.append(Wager(seat, kind, (), room))
        return extra


    def mispays(self, dealer: int, round_no: int) -> Injection | None:
        """The injection by which simulated dealer number ``dealer`` mispays in round
        ``round_no``, if any."""
        return next((i for i in self.items if i.anomaly == MISPAYS and i.dealer == dealer
                     and i.active(round_no)), None)

    def check_dealers(self, dealers: int | None) -> None:
        """A mispaying dealer is one of the run's simulated dealers (``None``: a run without
        gaming days, whose tray no one counts)."""
        for i in self.items:
            if i.anomaly != MISPAYS or i.dealer is None:
                continue
            if dealers is None:
                raise InjectionError(f"--inject {i.spec}: a mispay shows only in the tray; "
                                     f"play it with --gaming-days")
            if i.dealer > dealers:
                raise InjectionError(f"--inject {i.spec}: dealer {i.dealer} is not one of the "
                                     f"run's {dealers} simulated dealer"
                                     f"{'s' if dealers != 1 else ''} (--dealers)")


NO_INJECTIONS = Injections()
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
                     config_path: str | None = None, quiet: bool = False,
                     injections: Injections = NO_INJECTIONS) -> int:
    """Play ``rounds`` complete rounds; returns how many were completed (recovered included)."""
    rng = random.Random(seed)
    table, shoe, settled, problems = simulated_table(journal, table_id, config_path, rng)
    done = 0
    try:
        while done < rounds:
            play_round(table, shoe, rng, settled, problems, injections=injections)
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
               problems: list[str], wagers: list[Wager] | None = None, *,
               injections: Injections = NO_INJECTIONS) -> None:
    """Deal one round to its end (finishing the one the journal left open, if any) and pay
    every stage. ``settled`` is set by the caller's listener after each stage or halt.

    A new round's deck order is decided before its wagers are placed (a seat with card
    knowledge bets on the card about to come); the generator is drawn in the same order as
    ever: the wagers, then the shuffle, then only what the injections need."""
    if table.halt is not None:
        raise TableError(f"table {table.table_id} is stopped ({table.halt.reason}): a "
                         f"supervisor must resolve it before simulating")
    if table.current is None:
        round_no = table.last_round_no() + 1
        placing = list(wagers) if wagers is not None else random_wagers(rng, table.config)
        deck = LAPAIRE_DECK.shuffled(rng)
        if injections:
            deck = injections.bias(deck, round_no, rng)
            placing += injections.knowing(deck[0], round_no, rng, table.config, placing)
            placing += injections.friend(deck[0], round_no, rng, table.config, placing)
        table.place_many(placing)
    else:   # the round the journal left open: the cards it has not dealt yet
        left_open = table.current
        dealt = {(c.rank, c.suit) for c in left_open.engine.cards if not c.is_joker}
        jokers = sum(c.is_joker for c in left_open.engine.cards)
        deck = [c for c in LAPAIRE_DECK.shuffled(rng)
                if (c.rank, c.suit) not in dealt and not (c.is_joker and c.copy < jokers)]
        if injections and not left_open.engine.cards:
            deck = injections.bias(deck, left_open.round_no, rng)
    rb = table.current
    assert rb is not None
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
             profile: str | None = None, inject: Sequence[str] = ()) -> int:
    """The registry's ``simulate`` part: ``count`` rounds, with the anomalies ``inject``
    names (``simulate --inject``; see the module)."""
    if profile is not None:
        raise StationError(f"--profile: La Pair'e has no rule profiles to choose from "
                           f"(got {profile!r})")
    injections = Injections.parse(inject)
    injections.check_dealers(None)
    return simulate_lapaire(journal, table_id, rounds=count, seed=seed, config_path=config_path,
                            quiet=quiet, injections=injections)
