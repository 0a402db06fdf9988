"""Chip dumping at Bourré as ``dealer-station simulate --game bourre --inject
'chip-dumping:A>B@HAND'`` plays it (games/bourre/table/inject.py), found by the monitor
(docs/monitor.md, "Bourré"): on journals made by the real command with a fixed seed, the pair
plays as designed, B takes the pots both stayed for beyond chance, the monitor's
``chip-dumping:A>B`` alert names the pair within the run, and the same seed played clean
raises no alert.

Seed 16 with the pair 2>4 from hand 1 is one of the quicker runs to find (hand 80, where the
20 measured runs of docs/monitor.md took 131 to 358 hands from hand 21): it keeps the test
short; the counts are exact for the seed.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from monitor_support import Files

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import load_key
from dealer_station.cards import Suit, parse_card, parse_cards
from dealer_station.cli.main import main
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.table.inject import STRONG_HAND, for_partner, strong, to_take
from dealer_station.monitor.hands import PlayedHand
from dealer_station.table.monitor_rounds import monitor_rounds

#: Among the longer files: started first (tests/conftest.py).
pytestmark = pytest.mark.slow

SEED = 16
A, B = 2, 4
HANDS = 82
SPEC = f"chip-dumping:{A}>{B}@1"


# --- the pair's choices, card by card (hearts are trumps) --------------------------------------

H = Suit.HEARTS


def test_a_ducks_under_b_and_takes_from_a_third_player() -> None:
    profile = BourreProfile()
    # B (seat 4) leads the King of spades and is taking the trick: A lays its lowest spade
    # that does not take it, though it holds the Ace.
    a_holds = parse_cards(["AS", "3S", "9S"])
    card = for_partner(a_holds, [(4, parse_card("KS"))], H, 4, [], set(a_holds), profile)
    assert card == parse_card("3S")
    # A third player (seat 5) is taking a trick B already lost: A takes it with its highest.
    trick = [(4, parse_card("2S")), (5, parse_card("QS"))]
    assert for_partner(a_holds, trick, H, 4, [], set(a_holds), profile) == parse_card("AS")
    # B is still to play and can beat the Queen: A ducks.
    trick = [(5, parse_card("QS"))]
    b_holds = parse_cards(["KS", "4D"])
    assert for_partner(a_holds, trick, H, 4, b_holds, set(a_holds), profile) == \
        parse_card("3S")
    # To lead, A plays into a suit where B holds the best card left (the Ace of clubs).
    a_holds = parse_cards(["2C", "5D", "9S"])
    b_holds = parse_cards(["AC", "3D"])
    assert for_partner(a_holds, [], H, 4, b_holds, set(a_holds), profile) == parse_card("2C")


def test_b_takes_cheaply_when_only_a_follows_and_leads_what_nobody_beats() -> None:
    b_holds = parse_cards(["KS", "10S", "4D"])
    trick = [(5, parse_card("9S"))]
    # Only B, then A, still to play: the lowest spade that takes the trick.
    assert to_take(b_holds[:2], trick, H, 2, set(b_holds), (5, 4, 2)) == parse_card("10S")
    # Seat 1 still to play after B besides A: its highest.
    assert to_take(b_holds[:2], trick, H, 2, set(b_holds), (5, 4, 1, 2)) == parse_card("KS")
    # To lead: the Ace of trumps (nothing beats it) before anything else.
    b_holds = parse_cards(["AH", "KS", "4D"])
    assert to_take(b_holds, [], H, 2, set(b_holds), (4, 2)) == parse_card("AH")
    # B's hand is strong with two trumps and Aces (the Ace of trumps counts once).
    assert strong(parse_cards(["AH", "2H", "KS"]), H) and strong(parse_cards(["AS", "AD"]), H)
    assert not strong(parse_cards(["AH", "KS", "QD"]), H)


def _simulate(where: Path, *inject: str) -> Files:
    files = Files(where / "journal.db", where / "journal.key")
    args = ["simulate", "--game", "bourre", "--profile", "cash", "--rounds", str(HANDS),
            "--seed", str(SEED), "--quiet", *files.args]
    for spec in inject:
        args += ["--inject", spec]
    assert main(args) == 0
    return files


@pytest.fixture(scope="module")
def dumped(tmp_path_factory: pytest.TempPathFactory) -> Files:
    return _simulate(tmp_path_factory.mktemp("chip-dumping"), SPEC)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Files:
    return _simulate(tmp_path_factory.mktemp("clean"))


def _hands(files: Files) -> list[PlayedHand]:
    db = open_database(f"sqlite:///{files.db}", upgrade=False)
    try:
        hands = [m.round for m in monitor_rounds(Journal(db, load_key(files.key)), "T1")]
    finally:
        db.close()
    assert all(isinstance(h, PlayedHand) for h in hands)
    return [h for h in hands if isinstance(h, PlayedHand)]


def _alerts(files: Files) -> list[dict[str, object]]:
    con = sqlite3.connect(files.db)
    try:
        return [json.loads(str(r[0])) for r in con.execute(
            "select payload from journal where kind = 'monitor.alert' order by seq")]
    finally:
        con.close()


def _strong(hand: PlayedHand, seat: int) -> bool:
    """B's dealt hand holds STRONG_HAND trumps and Aces or more (the pair's rule to stay)."""
    return sum(c[-1] == hand.trump or c[:-1] == "A" for c in hand.dealt(seat)) >= STRONG_HAND


def _forced(hand: PlayedHand, seat: int) -> bool:
    """The rules made ``seat`` stay: those who stayed before it and those still to decide
    after it are too few without it (three must stay at a table of four or more, the cash
    profile's rule; two at a smaller one)."""
    order = [s for s, _ in hand.decisions]
    at = order.index(seat)
    need = 3 if len(hand.seats) >= 4 else 2
    return sum(stayed for _, stayed in hand.decisions[:at]) + len(order) - at - 1 < need


def test_the_pair_stays_together_on_bs_strong_hands(dumped: Files) -> None:
    hands = [h for h in _hands(dumped) if A in h.seats and B in h.seats and not h.voided]
    assert len(hands) >= 60
    both = [h for h in hands if A in h.stayers and B in h.stayers]
    strong = [h for h in hands if _strong(h, B)]
    # A stays only with B's strong hands, unless the rules made it stay, and in all of them
    # beside B (both can afford the stay chip in this run).
    a_stayed = [h for h in hands if A in h.stayers]
    assert all(_forced(h, A) for h in a_stayed if not _strong(h, B))
    assert sum(not _strong(h, B) for h in a_stayed) == 8 and len(a_stayed) == 56
    assert {h.hand_no for h in strong} <= {h.hand_no for h in both}
    assert (len(strong), len(both)) == (48, 53)
    # The players of the pair come back to their seats.
    assert {h.player(A) for h in hands} <= {f"player-pair-{A}-{n}" for n in range(1, 9)}
    assert {h.player(B) for h in hands} <= {f"player-pair-{B}-{n}" for n in range(1, 9)}


def test_b_takes_the_pots_both_stayed_for_beyond_chance(dumped: Files, clean: Files) -> None:
    def share(hands: list[PlayedHand]) -> tuple[int, int, float]:
        looks = [h for h in hands if A in h.stayers and B in h.stayers
                 and h.winner is not None and not h.voided]
        return len(looks), sum(h.winner == B for h in looks), sum(
            1 / len(h.stayers) for h in looks)

    looks, took, chance = share(_hands(dumped))
    assert looks >= 20 and took >= 2 * chance, (looks, took, chance)
    looks, took, chance = share(_hands(clean))
    assert looks >= 20 and took <= 1.5 * chance, (looks, took, chance)


def test_the_monitor_names_the_pair_within_the_run(
        dumped: Files, capsys: pytest.CaptureFixture[str]) -> None:
    live = _alerts(dumped)
    assert [(a["rule"], a["test"], a["seat"]) for a in live] == \
        [("chip-dumping", f"chip-dumping:{A}>{B}", A)], live
    assert live[0]["round_no"] <= HANDS        # type: ignore[operator]
    assert main(["monitor", *dumped.args, "--json"]) == 0
    offline = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(a["test"], a["round_no"], a["seat"], a["other_seat"]) for a in offline] == \
        [(f"chip-dumping:{A}>{B}", live[0]["round_no"], A, B)]
    assert offline[0]["players"] == [f"player-pair-{A}-1", f"player-pair-{B}-1"]
    assert main(["monitor", *dumped.args]) == 0
    words = capsys.readouterr().out
    assert "Chip dumping: pots pass from one player to another" in words
    assert f"Seat {B} (player-pair-{B}-1) took the pot" in words


def test_the_same_seed_played_clean_raises_no_alert(
        clean: Files, capsys: pytest.CaptureFixture[str]) -> None:
    assert _alerts(clean) == []
    assert main(["monitor", *clean.args, "--json"]) == 0
    assert capsys.readouterr().out.strip() == ""
