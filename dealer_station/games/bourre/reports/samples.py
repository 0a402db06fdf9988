"""Bourré's part of the documentation's sample reports (``dealer_station.reports.samples``,
which asks each game for its own through the registry's ``report_samples``)."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer_station.accounting.chips import Chips
from dealer_station.audit.journal import Journal
from dealer_station.audit.users import User
from dealer_station.games.bourre.events import CODEC, HouseCollected
from dealer_station.reports.samples import SampleClock, SampleReport

if TYPE_CHECKING:
    from dealer_station.table.accounting import TableAccounting

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


#: The card room's bank at B2: its opener, the chips each seat buys, the fill and the credit
#: through the cage; the rake the dealer dropped into the drop box instead of the rake box.
BANK_OPENER = Chips.of({100: 600, 500: 100, 2500: 40})
SEAT_CHIPS = Chips.of({100: 100})
BANK_FILL = Chips.of({100: 1000})
BANK_CREDIT = Chips.of({2500: 20})
RAKE_MISDROPPED = 3000
#: The card room's people (user id, name, role), added beside the samples' other users.
CARD_ROOM_PEOPLE = (("dee", "Dee Example", "dealer"), ("amy", "Amy Example", "accounting"),
                    ("ben", "Ben Example", "accounting"), ("cas", "Cass Example", "cage"),
                    ("sid", "Sid Example", "security"))
SAMPLE_PIN = "2468"


def _card_room_people(journal: Journal) -> dict[str, User]:
    """The card room's signers, signed in at B2: the samples' supervisor (Sue) and the card
    room's dealer, count team, cage cashier and security runner, added by the samples'
    operator (Olga) unless they are there already."""
    from dealer_station.audit.users import Users

    users = Users(journal)
    if not users.has_users():
        users.seed([("olga", "Olga Example", "operator", SAMPLE_PIN),
                    ("sue", "Sue Example", "supervisor", SAMPLE_PIN)], actor="setup/operator")
    olga = users.authenticate("olga", SAMPLE_PIN, table_id="B2")
    known = {u.user_id for u in users.list()}
    for uid, name, role in CARD_ROOM_PEOPLE:
        if uid not in known:
            users.add(uid, name, role, SAMPLE_PIN, actor=olga)
    return {uid: users.authenticate(uid, SAMPLE_PIN, table_id="B2")
            for uid in ("sue", *(u for u, _, _ in CARD_ROOM_PEOPLE))}


def _through_cage(book: TableAccounting, signers: dict[str, User], kind: str,
                  chips: Chips) -> None:
    """A fill or credit as MICS has it: the supervisor requests, the cage cashier issues,
    security carries, the dealer and the supervisor sign for it."""
    from dealer_station.events.accounting import SlipRequested
    from dealer_station.table.accounting import accounting_event
    from dealer_station.table.cage import CageDesk

    desk = CageDesk(book)
    asked = accounting_event(desk.request(kind, chips, signers["sue"], note="the bank"),
                             SlipRequested)
    desk.issue(asked.year, asked.request, chips, [signers["cas"]])
    desk.carry(asked.year, asked.request, [signers["sid"]])
    desk.receive(asked.year, asked.request, chips, [signers["dee"], signers["sue"]])


def _cash_bourre(journal: Journal) -> None:
    """Three sessions of the ``cash`` profile at table B2 (one hand a minute): the house's
    collection in money, pots carried from session to session, for the card-room report; and
    the card room's own accounting: the bank opened, each seat buying its chips (one with a
    marker), a fill and a credit through the cage, the closer, and the count room's count of
    the rake box (short: the dealer dropped some rake into the drop box, which is over by as
    much), with its disposition."""
    from dealer_station.events.accounting import RAKE_BOX
    from dealer_station.gameconfig import load_accounting_settings, load_gaming_calendar
    from dealer_station.games.bourre.config_file import load_bourre_profiles
    from dealer_station.games.bourre.table.live import BourreTable
    from dealer_station.table.accounting import TableAccounting
    from dealer_station.table.count_room import CountRoom
    from dealer_station.table.days import notes_for

    t = BourreTable(journal, "B2", load_bourre_profiles()["cash"], dealer="dee/dealer",
                    prefer_journal_config=False)
    t.startup()
    settings = load_accounting_settings()
    book = TableAccounting(journal, "B2", settings, load_gaming_calendar())
    signers = _card_room_people(journal)
    book.opener(BANK_OPENER, signers["dee"], signers["sue"])
    rng = random.Random(9)
    seats = (1, 2, 3, 4, 5)
    bought = Chips()
    for n in range(3):
        players = rng.sample(list(BOURRE_PLAYERS), len(seats))
        for seat in seats:   # each seat buys its 100 one-dollar chips from the bank
            marker = "M-2026-0117" if (n, seat) == (2, 4) else None
            book.buy_in("marker" if marker else "cash", SEAT_CHIPS.total, SEAT_CHIPS,
                        signers["dee"], seat=seat, marker=marker)
            bought = bought.plus(SEAT_CHIPS)
        t.start_session(seats, rng.choice(seats), players=dict(zip(seats, players,
                                                                   strict=True)))
        hands = 0
        while (session := t.session) is not None and not session.is_over(hands * 60):
            _bourre_hand(t, rng, hands * 60)
            hands += 1
        t.end_session(tie_break=sorted(seats))
        if n == 0:
            _through_cage(book, signers, "fill", BANK_FILL)
    _through_cage(book, signers, "credit", BANK_CREDIT)
    book.closer(BANK_OPENER.plus(BANK_FILL).minus(BANK_CREDIT).minus(bought), signers["dee"],
                signers["sue"])
    t.shutdown()
    # The count room, after the closer: the rake box short, the drop box as much over.
    day = book.today()
    rake = sum(CODEC.decode_as(HouseCollected, r.seq, r.kind, r.payload).amount
               for r in journal.events("B2", kinds=[HouseCollected.KIND]))
    team = [signers["amy"], signers["ben"]]
    notes = settings.currency_denominations
    room = CountRoom(book)
    room.count(day, notes_for(rake - RAKE_MISDROPPED, notes), 0, 0, team, box=RAKE_BOX)
    room.count(day, notes_for(bought.total - SEAT_CHIPS.total + RAKE_MISDROPPED, notes),
               SEAT_CHIPS.total, 1, team)
    room.dispose(day, -RAKE_MISDROPPED, "explained",
                 f"the dealer dropped {settings.money.text(RAKE_MISDROPPED)} of rake into the "
                 f"drop box, which is over by as much (seen on the video review); the dealer "
                 f"was retrained", team, box=RAKE_BOX)


def sample_reports(journal: Journal, clock: SampleClock, where: Path, /
                   ) -> list[SampleReport]:
    """Bourré table B1's ten sessions under a profile with a house collection, and table B2's
    three cash sessions with the card room's bank and rake box. The reports to write of
    them."""
    clock.step = timedelta(seconds=0.8)   # a Bourré hand is ~70 records a minute
    _bourre(journal, where)
    _cash_bourre(journal)
    return [SampleReport("bourre-session", "B1", "bourre-session"),
            SampleReport("card-room", "B2", "card-room")]
