"""What the next person to sign in is told happened while nobody was signed in: each event's
own words (``Event.told``), read from a real journal of a La Pair'e and a Bourré table."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from ui_support import make_station

from dealer_station.audit.user_model import AuthError
from dealer_station.cards import parse_card
from dealer_station.events import Event
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.hardware.events import CardRead
from dealer_station.ui.while_away import nobody_since, told_kinds, what_happened

DEALER = "dealer/dealer"


def _away(station: Any) -> int:
    """The dealer signs in at the table's station and signs out: nobody is signed in since."""
    users, table_id = station.users, station.table_id
    user = users.authenticate("dealer", "1111", table_id=table_id)
    out = users.sign_out(user, "signed out", table_id=table_id)
    since = nobody_since(station.journal, table_id)
    assert since == out.seq      # (the simulated devices may have said more since)
    return since


def _told(station: Any, since: int) -> list[str]:
    t = station.table
    with t.lock:
        halt = t.halt
    return what_happened(station.journal, station.table_id, since, codec=t.codec,
                         unit="round" if station.game == "lapaire" else "hand", halt=halt)


def test_a_lapaire_round_a_halt_and_a_lockout_are_told_in_words(tmp_path: Path) -> None:
    station = make_station(tmp_path)
    try:
        t = station.table
        since = _away(station)
        assert _told(station, since) == []
        t.place_many([Wager(1, "straight", ("7",), 500)], actor=DEALER)
        for card in ("7H", "3D", "10S"):
            t.deal(card, actor=DEALER)
            for stage in t.unconfirmed():
                t.confirm_payout(stage, actor=DEALER)
        for _ in range(5):          # the fifth wrong PIN locks the user out
            with contextlib.suppress(AuthError):
                station.users.authenticate("dealer", "0000", table_id=station.table_id)
        t.place_many([Wager(2, "straight", ("9",), 100)], actor=DEALER)
        t.stop_round("the shoe jammed", "device_error", "clear the jam", "device:shoe")
        lines = _told(station, since)
        assert lines[:4] == ["card 7♥ read and dealt (round 1)", "card 3♦ read and dealt (round 1)",
                             "card 10♠ read and dealt (round 1)", "round 1 closed"]
        assert lines[4].startswith("dealer locked out until ") and lines[4].endswith(
            " after 5 wrong PINs (unlock on the Supervisor screen, Lockouts)")
        assert lines[5:] == ["round 2 stopped: the shoe jammed — a supervisor must resolve it"]
        # Up to the next sign-in only: what comes after it is not told.
        station.users.authenticate("super", "2222", table_id=station.table_id)
        for _ in range(5):
            with contextlib.suppress(AuthError):
                station.users.authenticate("super", "0000", table_id=station.table_id)
        assert [r.kind for r in station.journal.records(station.table_id)][-1] == "lockout"
        assert _told(station, since) == lines
    finally:
        station.close()


def test_a_bourre_hand_is_told_with_the_seat_each_card_went_to(tmp_path: Path) -> None:
    station = make_station(tmp_path, game="bourre")
    try:
        since = _away(station)
        t: Any = station.table
        t.start_session([1, 2, 3], 3)
        t.start_hand()

        def read(seq: int, code: str) -> None:
            t.on_device_event(CardRead(device="shoe", device_id="SHOE1", at=0.0, seq=seq,
                                       card=parse_card(code)))
            assert t.worker.drain(10)
        # Two cards dealt while the table is tended (here without a sign-in of its own:
        # one would end what is told), then one read with nobody there.
        t.set_on_duty(DEALER)
        read(1, "AS")
        read(2, "KD")
        t.set_on_duty(None)
        read(3, "QH")
        lines = _told(station, since)
        assert lines[0].startswith("card A♠ read and dealt to seat ")
        assert lines[0].endswith(" (hand 1)")
        assert lines[1].startswith("card K♦ read and dealt to seat ")
        # The held card is said by its own line; the stop says only that it stopped.
        assert lines[2:] == ["card Q♥ read and held, not dealt",
                             "hand 1 stopped — a supervisor must resolve it"]
    finally:
        station.close()


def test_only_events_with_words_are_read() -> None:
    """The kinds read are exactly those whose events say something: a new event with words
    is told without a change here."""
    from dealer_station.games.lapaire.events import CODEC

    kinds = set(told_kinds(CODEC))
    assert {"card", "round.close", "void", "card.held", "halt", "lockout"} <= kinds
    assert not kinds & {"wager.place", "stage.settle", "login", "logout", "startup"}
    assert all(CODEC.classes[k].told is not Event.told for k in kinds)


@pytest.mark.parametrize("code, words", [("KH", "K♥"), ("JK", "Joker"), ("ZZ", "ZZ")])
def test_a_card_is_named_as_people_read_it(code: str, words: str) -> None:
    from dealer_station.events.table import CardHeld

    assert CardHeld(code, "held").told("round", None) == f"card {words} read and held, not dealt"
