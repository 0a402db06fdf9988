"""The Bourré session report and the events report on a table where players renege often:
every misplay is listed (a second renege by the same player in a hand too) with what was
charged for it, penalties say what they were for, the session still open says since when and
what its pot holds, and the events report names the seat and the player. Played through the
real table service (cards keyed in as the devices send them), so the records are the station's
own; every figure is checked against the journal."""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from card_room_support import DEALER, SEATS, profile
from test_reports_journal import pdf_text

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal, Record
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import Users
from dealer_station.cards import BOURRE_DECK
from dealer_station.games.bourre.reports.session import build_bourre_session_report
from dealer_station.games.bourre.rules.engine import DrawSource, Phase
from dealer_station.games.bourre.table.live import BourreTable
from dealer_station.reports.charts import nice_ticks
from dealer_station.reports.events import build_events_report
from dealer_station.reports.text import name_the_player

TABLE = "B1"
NAMES = {1: "Ann Arceneaux", 2: "Boudreaux", 3: "Clotile Thibodeaux", 4: "Dud Hebert",
         5: "Eve Guidry"}


def _play_hand(t: BourreTable, rng: random.Random, elapsed: float, renege: float) -> None:
    t.start_hand(elapsed=elapsed)
    hand = t.hand
    assert hand is not None
    deck = BOURRE_DECK.shuffled(rng)
    while hand.phase is Phase.DEAL:
        t.card(deck.pop(0), source="shoe")
    while hand.phase is Phase.DECISIONS:
        seat = hand.to_act
        assert seat is not None
        t.decide(seat, hand.can_stay(seat))
    while hand.phase is Phase.DRAW:
        seat = hand.to_act
        assert seat is not None
        for _ in range(t.finish_discard(seat)):
            source = hand.draw_source()
            assert source is DrawSource.STOCK
            t.card(rng.choice(list(hand.unseen)), source="shoe")
    while hand.phase is Phase.PLAY:
        seat = hand.to_act
        assert seat is not None
        legal = hand.legal_cards(seat)
        illegal = [c for c in hand.held(seat) if c not in legal]
        t.card(rng.choice(illegal) if illegal and rng.random() < renege
               else rng.choice(legal), source="reader")


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Journal]:
    shm = Path("/dev/shm")
    where = tmp_path_factory.mktemp("misplays")
    if shm.is_dir():   # commits cost nothing in memory: the test stays fast
        where = Path(tempfile.mkdtemp(dir=shm))
    db = open_database(f"sqlite:///{where / 'journal.db'}")
    j = Journal(db, create_key(where / "journal.key"))
    Users(j).seed([("olga", "Olga Example", "operator", "2468"),
                   ("sue", "Sue Example", "supervisor", "2468")], actor="setup/operator")
    t = BourreTable(j, TABLE, profile("tournament", minutes=3), dealer=DEALER,
                    prefer_journal_config=False)
    t.startup()
    rng = random.Random(7)
    for session in range(3):
        t.start_session(SEATS, SEATS[-1], players={s: f"{NAMES[s]} {session}" for s in SEATS})
        for n in range(3 if session < 2 else 2):
            _play_hand(t, rng, n * 60, renege=0.45)
        if session < 2:
            t.end_session(tie_break=sorted(SEATS))
    yield j
    db.close()


def _kinds(j: Journal, *kinds: str) -> list[Record]:
    return list(j.records(TABLE, kinds=list(kinds)))


@pytest.fixture(scope="module")
def sessions_text(journal: Journal, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("r") / "s.pdf"
    build_bourre_session_report(journal, TABLE, out=out)
    return pdf_text(out)


def test_every_misplay_is_listed_with_what_was_charged(journal: Journal,
                                                       sessions_text: str) -> None:
    reneges = _kinds(journal, "renege")
    twice = Counter((r.round_no, r.payload["seat"]) for r in reneges)
    assert max(twice.values()) >= 2, "a player reneges twice in one hand"
    opens = _kinds(journal, "session.open")
    closes = {c.round_no: c.payload for c in _kinds(journal, "hand.close")}
    charged: set[tuple[int | None, int]] = set()
    for r in reneges:
        p = r.payload
        names = next(o for o in reversed(opens) if o.seq < r.seq).payload["players"]
        reason = name_the_player(" ".join(p["reason"].split()), f"seat {p['seat']}")
        row = (f"{r.round_no} seat {p['seat']} ({names[str(p['seat'])]}) {p['trick']} "
               f"{p['card']} renege: {reason}")
        assert row in sessions_text, row
        close = closes.get(r.round_no)
        if close is None:
            continue
        key = (r.round_no, p["seat"])
        if key not in charged:   # the first renege of the hand carries the one penalty
            charged.add(key)
            assert f"{row} {close['penalties'][str(p['seat'])]} charged" in sessions_text
        else:
            assert f"{row} not charged again: one penalty a hand, charged for the renege on " \
                   f"trick" in sessions_text
    assert sessions_text.count(" renege: ") == len(reneges)
    assert " she " not in sessions_text and " her " not in sessions_text


def test_an_open_session_says_since_when_and_its_pot(journal: Journal,
                                                     sessions_text: str) -> None:
    from dealer_station.reports.text import local

    last_open = _kinds(journal, "session.open")[-1]
    pot = _kinds(journal, "hand.close")[-1].payload["pot"]
    assert f"not ended: under way since {local(last_open.ts)}" in sessions_text
    assert f"{pot} in the pot after the last settled hand" in sessions_text
    carried = _kinds(journal, "pot.carry")
    for c in carried:
        assert f"{c.payload['pot']}, carried to the next session" in sessions_text


def test_events_name_the_seat_and_the_player_and_list_sessions(
        journal: Journal, tmp_path: Path) -> None:
    built = build_events_report(journal, TABLE, out=tmp_path / "e.pdf")
    text = pdf_text(built.path)
    for r in _kinds(journal, "renege"):
        name = next(o for o in reversed(_kinds(journal, "session.open"))
                    if o.seq < r.seq).payload["players"][str(r.payload["seat"])]
        assert f"Renege seat {r.payload['seat']} ({name})" in text
    assert " she " not in text
    assert text.count("Session started") == 1 + 3      # the count by kind, and each row
    assert text.count("Session ended") == 1 + 2
    assert "Pot carried to the next session" in text
    assert "User added" in text and "station 1" in text   # the station's user administration


def test_axes_have_whole_distinct_ticks() -> None:
    for lo, hi in ((0, 0), (0, 0.4), (0, 3), (-7, 2), (0, 264), (0, 5930), (0, 12_345_678)):
        t = nice_ticks(lo, hi)
        values = range(t.low, t.high + 1, t.step)
        labels = [t.label()(v) for v in values]
        assert len(set(labels)) == len(labels) >= 2, (lo, hi, labels)
        assert t.low <= min(0, lo) and t.high >= hi
