"""Bourré's part of the documentation's sample reports (``dealer_station.reports.samples``,
which asks each game for its own through the registry's ``report_samples``)."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

from dealer_station.audit.journal import Journal
from dealer_station.reports.samples import SampleClock, SampleReport

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
    from dealer_station.gameconfig import config_dir
    from dealer_station.games.bourre.config_file import load_bourre_profiles
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
    from dealer_station.games.bourre.config_file import load_bourre_profiles
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


def sample_reports(journal: Journal, clock: SampleClock, where: Path, /
                   ) -> list[SampleReport]:
    """Bourré table B1's ten sessions under a profile with a house collection, and table B2's
    three cash sessions. The reports to write of them."""
    clock.step = timedelta(seconds=0.8)   # a Bourré hand is ~70 records a minute
    _bourre(journal, where)
    _cash_bourre(journal)
    return [SampleReport("bourre-session", "B1", "bourre-session"),
            SampleReport("card-room", "B2", "card-room")]
