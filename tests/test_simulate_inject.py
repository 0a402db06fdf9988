"""``dealer-station simulate --inject``: the anomalies the game protection monitor is tested on
(issue 24), on real SQLite journals made by the real command with fixed seeds, read back
through the journal's events.

* ``biased-shoe:VALUE@ROUND``: from the table's round ROUND on, the first card is VALUE one round
  in three, otherwise at random: about 4/54 of first cards are a 7 before, 1/3 + (2/3)(4/54)
  after.
* ``card-knowledge:SEAT@ROUND``: from round ROUND on, in half the rounds, SEAT adds a
  Straight-up on the value of the first card about to be dealt; it is settled and paid like
  any other wager.
* ROUND is the journal's round number: a second run into the same journal continues it.
* Bad specs end in one line naming the bad part (exit 2); Bourré refuses any.
* Without ``--inject`` the journal is exactly what ``simulate`` made before injections existed
  (cards and wagers recorded from the old code for seed 5, plain and with gaming days).

The counts are exact for each fixed seed; the bands they are checked against are binomial
intervals at one in a million (so the checks say what the rates are, not that a seed was lucky).
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from scipy.stats import binom

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.cards import parse_card, parse_cards
from dealer_station.cli.main import main
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.events import (
    CODEC,
    RoundClosed,
    RoundVoided,
    StageSettled,
    WagerPlaced,
)
from dealer_station.games.lapaire.rules.engine import Wager, settle_round
from dealer_station.games.lapaire.table.sim import (
    InjectionError,
    Injections,
    random_wagers,
    simulate_lapaire,
    simulated_table,
)

#: Among the longest files: started first (tests/conftest.py).
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: One in a million: the bands' tail on each side.
TAIL = 1e-6
P_SEVEN = 4 / 54
P_JOKER = 2 / 54


def band(n: int, p: float) -> tuple[float, float]:
    """The binomial interval holding all but TAIL on each side of n draws at rate p."""
    low, high = binom.interval(1 - 2 * TAIL, n, p)
    return float(low), float(high)


@dataclass
class Deal:
    """One round as the journal holds it."""

    round_no: int
    cards: tuple[str, ...] = ()
    wagers: dict[int, Wager] = field(default_factory=dict)
    #: wager id -> (won, win) as the journal settled it.
    settled: dict[int, tuple[bool, int]] = field(default_factory=dict)
    closed: bool = False
    voided: bool = False

    @property
    def first_value(self) -> str:
        return parse_card(self.cards[0]).value

    def knows(self, seat: int) -> list[int]:
        """The ids of ``seat``'s Straight-ups on the first card's value."""
        return [i for i, w in self.wagers.items()
                if w.seat == seat and w.bet == "straight" and w.values == (self.first_value,)]


def store(folder: Path) -> list[str]:
    return ["--db", f"sqlite:///{folder / 'j.db'}", "--key", str(folder / "j.key")]


def read_deals(folder: Path, table: str = "T1") -> list[Deal]:
    """Every round of ``table``, read through the journal's events."""
    db = open_database(f"sqlite:///{folder / 'j.db'}")
    try:
        journal = Journal(db, load_key(folder / "j.key"))
        deals: dict[int, Deal] = {}
        for r in journal.records(table, kinds=["wager.place", "stage.settle", "round.close",
                                               "void"]):
            assert r.round_no is not None
            deal = deals.setdefault(r.round_no, Deal(r.round_no))
            e = CODEC.decode(r.kind, r.payload)
            if isinstance(e, WagerPlaced):
                deal.wagers[e.wager_id] = Wager(e.seat, e.bet, e.values, e.amount)
            elif isinstance(e, StageSettled):
                for res in e.results:
                    deal.settled[int(res["wager_id"])] = (bool(res["won"]), int(res["win"]))
            elif isinstance(e, RoundClosed):
                deal.cards, deal.closed = tuple(e.cards), True
            elif isinstance(e, RoundVoided):
                deal.voided = True
        return [deals[n] for n in sorted(deals)]
    finally:
        db.close()


def simulate(folder: Path, *args: str) -> None:
    assert main(["simulate", "--game", "lapaire", "--quiet", *args, *store(folder)]) == 0


def fingerprint(deals: list[Deal]) -> str:
    """The cards and wagers (seat, bet, spot, amount) of every round, as one digest."""
    rows = [(d.round_no, " ".join(d.cards),
             tuple((w.seat, w.bet, "-".join(w.values), w.amount)
                   for _, w in sorted(d.wagers.items())))
            for d in deals]
    return hashlib.sha256(repr(rows).encode()).hexdigest()


# --- one journal, two runs: a seat with card knowledge, then a biased shoe as well ---------

FIRST_RUN = 60


@dataclass
class TwoRuns:
    deals: list[Deal]
    after_first_run: list[int]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> TwoRuns:
    """Rounds 1-60 with card-knowledge:3@50, then a second run of 340 into the same journal
    with biased-shoe:7@100 and card-knowledge:3@50 (journal rounds 61-400)."""
    folder = tmp_path_factory.mktemp("inject")
    simulate(folder, "--rounds", str(FIRST_RUN), "--seed", "5",
             "--inject", "card-knowledge:3@50")
    first = [d.round_no for d in read_deals(folder)]
    simulate(folder, "--rounds", "340", "--seed", "6",
             "--inject", "biased-shoe:7@100", "--inject", "card-knowledge:3@50")
    return TwoRuns(read_deals(folder), first)


def test_the_second_run_continues_the_journals_round_numbers(two_runs: TwoRuns) -> None:
    assert two_runs.after_first_run == list(range(1, FIRST_RUN + 1))
    assert [d.round_no for d in two_runs.deals] == list(range(1, 401))
    assert all(d.closed and not d.voided for d in two_runs.deals)


def test_the_biased_shoe_deals_its_value_first_one_round_in_three(two_runs: TwoRuns) -> None:
    deals = two_runs.deals
    before = [d for d in deals if d.round_no < 100]
    after = [d for d in deals if d.round_no >= 100]
    sevens_before = sum(d.first_value == "7" for d in before)
    sevens_after = sum(d.first_value == "7" for d in after)
    biased = 1 / 3 + (2 / 3) * P_SEVEN
    # Before round 100: a fair shoe's 4 in 54.
    low, high = band(len(before), P_SEVEN)
    assert low <= sevens_before <= high, (sevens_before, len(before))
    # From round 100: the biased rate, and far above what a fair shoe could deal.
    low, high = band(len(after), biased)
    assert low <= sevens_after <= high, (sevens_after, len(after))
    assert sevens_after > band(len(after), P_SEVEN)[1] * 2
    # Round 100 is the journal's round 100 (the second run's 40th): rounds 100-159 are biased
    # already, and the second run's rounds before it (61-99) are not.
    early = [d for d in after if d.round_no < 160]
    sevens_early = sum(d.first_value == "7" for d in early)
    assert sevens_early > band(len(early), P_SEVEN)[1], sevens_early
    assert band(len(early), biased)[0] <= sevens_early
    second_before = [d for d in before if d.round_no > FIRST_RUN]
    assert sum(d.first_value == "7" for d in second_before) <= band(len(second_before),
                                                                      P_SEVEN)[1]
    # The other values keep dealing: the bias takes one round in three, not the shoe.
    assert len({d.first_value for d in after}) == 14


def test_the_seat_with_card_knowledge_bets_the_coming_card_in_half_the_rounds(
        two_runs: TwoRuns) -> None:
    deals = two_runs.deals
    before = [d for d in deals if d.round_no < 50]
    after = [d for d in deals if d.round_no >= 50]
    knew_before = sum(bool(d.knows(3)) for d in before)
    knew_after = sum(bool(d.knows(3)) for d in after)
    # Before round 50, only by chance: at most what a seat betting a Straight-up on a random
    # value every round would hit (1 in 14).
    assert knew_before <= band(len(before), 1 / 14)[1], knew_before
    # From round 50 (both runs: the first run's rounds 50-60 too): about half, plus chance.
    assert band(len(after), 1 / 2)[0] <= knew_after <= band(len(after), 1 / 2 + 1 / 14)[1], \
        (knew_after, len(after))
    first_run = [d for d in after if d.round_no <= FIRST_RUN]     # its rounds 50-60
    assert sum(bool(d.knows(3)) for d in first_run) >= len(first_run) // 3
    # Only seat 3 knows: the other seats hit the first card by chance.
    for seat in (1, 2, 4, 5, 6, 7):
        hits = sum(bool(d.knows(seat)) for d in after)
        assert hits <= band(len(after), 1 / 14)[1], (seat, hits)


def test_the_knowing_wager_is_settled_and_paid_like_any_other(two_runs: TwoRuns) -> None:
    config = load_lapaire_config(ROOT / "config" / "lapaire.toml")
    straight = config.wager("straight").limits
    knowing = 0
    for d in two_runs.deals:
        ids = sorted(d.wagers)
        # The whole round settled again, independently of the table: the same results.
        result = settle_round(config, [d.wagers[i] for i in ids], parse_cards(d.cards))
        again = {ids[r.wager_id]: (r.won, r.win) for r in result.results}
        assert again == d.settled, d.round_no
        if d.round_no < 50:
            continue
        for i in d.knows(3):
            knowing += 1
            won, win = d.settled[i]
            assert won and win > 0
            assert straight.minimum <= d.wagers[i].amount <= straight.maximum
    assert knowing > 150


# --- a biased shoe of Jokers ------------------------------------------------------------------

def test_a_shoe_biased_to_the_joker(tmp_path: Path) -> None:
    simulate(tmp_path, "--rounds", "150", "--seed", "7", "--inject", "biased-shoe:JK@1")
    deals = read_deals(tmp_path)
    jokers = sum(d.first_value == "JK" for d in deals)
    low, high = band(len(deals), 1 / 3 + (2 / 3) * P_JOKER)
    assert low <= jokers <= high, jokers
    assert jokers > 2 * band(len(deals), P_JOKER)[1]
    # Two jokers in the deck: never both first in one round, nor a joker dealt twice more.
    assert all(sum(c == "JK" for c in d.cards) <= 2 for d in deals)


# --- with gaming days -------------------------------------------------------------------------

@pytest.fixture
def day_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    (tmp_path / "lapaire.toml").write_text((ROOT / "config" / "lapaire.toml").read_text())
    return tmp_path


def test_gaming_days_take_the_injections_too(day_config: Path) -> None:
    simulate(day_config, "--rounds", "60", "--gaming-days", "1", "--seed", "3",
             "--inject", "card-knowledge:2@1", "--inject", "biased-shoe:Q@1")
    deals = read_deals(day_config)
    assert len(deals) == 60 and all(d.closed for d in deals)
    assert band(60, 1 / 2)[0] <= sum(bool(d.knows(2)) for d in deals)
    queens = sum(d.first_value == "Q" for d in deals)
    # A fair shoe deals this many Queens first in 60 rounds less than once in 10,000.
    assert binom.sf(queens - 1, 60, 4 / 54) < 1e-4, queens


# --- without --inject: exactly as before ------------------------------------------------------

#: Seed 5, 40 rounds: the first twelve rounds' cards and the digest of every round's cards and
#: wagers, as ``simulate`` made them before ``--inject`` existed (run on the old code).
OLD_SEED5_CARDS = ["5D 9H JC", "JK 8S 2H", "8D AH 6S", "6H AD JD", "JK 10D 10C", "AC QC AD",
                   "2H 7D 5S", "10S 9D 3D", "6H 9S 2S", "10H 8H 6C", "10H 5D 6D", "7C 2D 6C"]
OLD_SEED5 = "476647eb54a9e4db9dc26df5970000253f98f88cfcefd5c3613b9126f60498a4"
#: Seed 5, 2 gaming days of 8 rounds with --mispay-rate 0.2, likewise.
OLD_DAYS_SEED5 = "b02b592502478256abe88ff3402af1f415c6981670054a50386ffc858cdc659c"


def test_without_inject_the_journal_is_as_before(tmp_path: Path) -> None:
    plain, empty = tmp_path / "plain", tmp_path / "empty"
    plain.mkdir()
    empty.mkdir()
    simulate(plain, "--rounds", "40", "--seed", "5")
    deals = read_deals(plain)
    assert [" ".join(d.cards) for d in deals[:12]] == OLD_SEED5_CARDS
    assert fingerprint(deals) == OLD_SEED5
    # The simulation with its injections empty is the very same path.
    db = open_database(f"sqlite:///{empty / 'j.db'}")
    try:
        journal = Journal(db, create_key(empty / "j.key"))
        assert simulate_lapaire(journal, "T1", rounds=40, seed=5, quiet=True,
                                injections=Injections.parse([])) == 40
    finally:
        db.close()
    assert fingerprint(read_deals(empty)) == OLD_SEED5


def test_without_inject_gaming_days_are_as_before(day_config: Path) -> None:
    simulate(day_config, "--rounds", "8", "--gaming-days", "2", "--mispay-rate", "0.2",
             "--seed", "5")
    assert fingerprint(read_deals(day_config)) == OLD_DAYS_SEED5


# --- bad specs, through the real command ------------------------------------------------------

def run_proc(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], capture_output=True,
                          cwd=ROOT, timeout=120, check=False)


@pytest.mark.parametrize(("spec", "says"), [
    ("biased-shoe:Z@10", "'Z' is not a value on the layout (the values are A, 2, 3, 4, 5, 6, 7, "
                         "8, 9, 10, J, Q, K, JK)"),
    ("card-knowledge:9@10", "seat 9 is not a seat at the table (the seats are 1 to 7)"),
    ("biased-shoe:7", "no '@ROUND' (the round it starts at)"),
    ("foo:1@1", "unknown anomaly 'foo'; the anomalies are biased-shoe, card-knowledge, "
                "dealer-pays and mispays"),
    ("dealer-pays:101@5", "the percent of rounds must be a whole number from 1 to 100, got "
                          "'101'"),
    ("@", "no anomaly named"),
    ("biased-shoe:7@0", "the round after '@' must be a round number from 1 up, got '0'"),
    ("card-knowledge:@3", "card-knowledge needs its SEAT (1 to 7) after ':'"),
])
def test_a_bad_spec_is_refused_naming_its_bad_part(spec: str, says: str, tmp_path: Path) -> None:
    proc = run_proc(["simulate", "--rounds", "1", "--inject", spec, *store(tmp_path)])
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith(f"dealer-station simulate: error: --inject {spec!r}: {says}"), err
    assert err.count("\n") == 1 and proc.stdout == b"", err


def test_bourre_refuses_la_paire_injections(tmp_path: Path) -> None:
    # Bourré's own (chip dumping, soft play, reneges) are tested in test_monitor_bourre.py.
    proc = run_proc(["simulate", "--game", "bourre", "--rounds", "1",
                     "--inject", "biased-shoe:7@1", *store(tmp_path)])
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith("dealer-station simulate: error: --inject 'biased-shoe:7@1': "
                          "'biased-shoe' is La Pair'e's (--game lapaire), not Bourré's; "
                          "Bourré's anomalies are chip-dumping, soft-play, reneges"), err
    assert err.count("\n") == 1 and proc.stdout == b"", err


def test_two_biased_shoes_or_a_seat_twice_are_refused() -> None:
    with pytest.raises(InjectionError, match="one biased shoe per run"):
        Injections.parse(["biased-shoe:7@1", "biased-shoe:K@5"])
    with pytest.raises(InjectionError, match="card-knowledge is given twice for seat 3"):
        Injections.parse(["card-knowledge:3@1", "card-knowledge:3@9"])
    both = Injections.parse(["biased-shoe:jk@5", "card-knowledge:3@1", "card-knowledge:4@2"])
    assert [i.spec for i in both.items] == ["biased-shoe:JK@5", "card-knowledge:3@1",
                                            "card-knowledge:4@2"]


def test_a_round_left_open_is_finished_then_the_injections_play_on(tmp_path: Path) -> None:
    """A round the journal left open (wagers placed, no card dealt) is finished first, with
    its wagers as they were; the run's rounds after it take the injections."""
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    try:
        journal = Journal(db, create_key(tmp_path / "j.key"))
        rng = random.Random(1)
        table, shoe, _, _ = simulated_table(journal, "T1", None, rng)
        try:
            placed = random_wagers(rng, table.config)
            table.place_many(placed)
        finally:
            shoe.close()
            table.devices.clear()
            table.shutdown()
    finally:
        db.close()
    simulate(tmp_path, "--rounds", "60", "--seed", "2", "--inject", "biased-shoe:7@1",
             "--inject", "card-knowledge:4@1")
    deals = read_deals(tmp_path)
    assert [d.round_no for d in deals] == list(range(1, 61))
    assert all(d.closed and not d.voided for d in deals)
    assert list(deals[0].wagers.values()) == placed
    later = deals[1:]
    assert binom.sf(sum(d.first_value == "7" for d in later) - 1, len(later), P_SEVEN) < 1e-4
    assert band(len(later), 1 / 2)[0] <= sum(bool(d.knows(4)) for d in later)
