"""Halts on a real SQLite journal with the simulated shoe: a resume is refused while the shoe
still reports its fault or is not connected; a card read while nobody is signed in is held
and stops play (La Pair'e and Bourré); halts and their resolutions are significant events,
in words with who and why, in `audit events` and in the events report."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from user_support import make_user, start_users

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal, is_significant
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import User
from dealer_station.cards import BOURRE_DECK, LAPAIRE_DECK
from dealer_station.cli.main import main
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.table.live import BourreTable
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.hardware.backends import open_device
from dealer_station.reports.events import build_events_report
from dealer_station.table.base import TableError, TableService, Update

DEALER = "dee/dealer"
WAIT = 5.0
UNATTENDED = "unattended_card"     # the halt's fault (table.base.UNATTENDED)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "journal.db"


@pytest.fixture
def journal(db_path: Path, tmp_path: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{db_path}")
    j = Journal(db, create_key(tmp_path / "journal.key"))
    start_users(j)
    yield j
    db.close()


def kinds(journal: Journal, table: str = "T1") -> list[str]:
    return [r.kind for r in journal.records(table)]


def wait_for(what: Callable[[], bool], timeout: float = WAIT) -> None:
    end = time.monotonic() + timeout
    while not what():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.01)


class Shoe:
    """A simulated shoe on the table, and a way to wait for what the table made of it."""

    def __init__(self, t: TableService, deck: Any, cards: list[str] | None = None) -> None:
        self.t = t
        self.handle = open_device("shoe", "simulated", device_id="S1", deck=deck,
                                  on_event=t.on_device_event, cards=cards)
        t.attach("shoe", self.handle)
        self.sim = self.handle.simulator
        self.seen = threading.Event()
        self.updates: list[Update] = []
        t.subscribe(self._heard)
        wait_for(lambda: t.device_state.get("shoe") == "READY")

    def _heard(self, u: Update) -> None:
        self.updates.append(u)

    def status(self, state: str) -> None:
        self.sim.set_status(state)
        wait_for(lambda: self.t.device_state.get("shoe") == state)

    def close(self) -> None:
        self.handle.close()


@pytest.fixture
def lapaire(journal: Journal) -> Iterator[tuple[LaPaireTable, Shoe]]:
    t = LaPaireTable(journal, "T1", load_lapaire_config(), dealer=DEALER)
    shoe = Shoe(t, LAPAIRE_DECK, ["KH", "5D", "9C", "2S", "3S"])
    yield t, shoe
    shoe.close()


# -- 2. no resume while the shoe still reports its fault --------------------------------------

@pytest.mark.parametrize("state,words", [("JAM", "still reports JAM"),
                                         ("DOOR_OPEN", "still reports DOOR OPEN"),
                                         ("TAMPER", "still reports TAMPER")])
def test_resume_is_refused_while_the_shoe_still_reports_its_fault(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe], state: str, words: str) -> None:
    t, shoe = lapaire
    sup = make_user(journal, "sue", "supervisor")
    t.place(Wager(1, "straight", ("K",), 100))
    shoe.status(state)
    wait_for(lambda: t.halt is not None)        # the halt commits right after the status
    assert t.halt is not None and t.halt.fault == state.lower()
    with pytest.raises(TableError, match=words) as refused:
        t.resume(sup, "looked at it")
    assert "must report READY" in str(refused.value)
    assert t.halt is not None and "resolve" not in kinds(journal)
    # The next card is not taken while stopped.
    shoe.sim.deal()
    wait_for(lambda: "card.held" in kinds(journal))
    assert "card" not in kinds(journal)
    shoe.status("READY")
    t.resume(sup, "cleared and checked")
    assert t.halt is None
    shoe.sim.deal()
    wait_for(lambda: "card" in kinds(journal))


def test_resume_is_refused_while_the_shoe_is_disconnected(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe]) -> None:
    t, shoe = lapaire
    sup = make_user(journal, "sue", "supervisor")
    t.place(Wager(1, "straight", ("K",), 100))
    shoe.sim.inject("disconnect", duration=1.5)
    wait_for(lambda: t.halt is not None and t.device_state.get("shoe") == "disconnected")
    with pytest.raises(TableError, match="the shoe is disconnected and must be connected"):
        t.resume(sup, "cable pushed back in")
    wait_for(lambda: t.device_state.get("shoe") == "READY")
    t.resume(sup, "cable pushed back in")
    assert t.halt is None


# -- 6. a card read while nobody is signed in -------------------------------------------------

def test_a_card_read_while_nobody_is_signed_in_is_held_and_stops_the_round(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe]) -> None:
    t, shoe = lapaire
    sup = make_user(journal, "sue", "supervisor")
    t.set_on_duty(DEALER)
    t.place_many([Wager(1, "straight", ("K",), 100), Wager(1, "red", (), 100)])
    t.set_on_duty(None)                # the station locked: nobody is signed in
    shoe.sim.deal()                    # KH
    wait_for(lambda: t.halt is not None)
    assert t.halt.fault == UNATTENDED and t.halt.card == "KH"
    assert "card read while nobody was signed in" in t.halt.reason
    held = [r for r in journal.records("T1") if r.kind == "card.held"]
    assert [r.payload["card"] for r in held] == ["KH"]
    assert "nobody was signed in" in held[0].payload["note"]
    assert held[0].payload["device_seq"] is not None       # acknowledged, not taken again
    # Nothing settled, betting not even closed: the card was not taken.
    for kind in ("card", "stage.settle", "betting.close"):
        assert kind not in kinds(journal)
    assert t.current is not None and t.current.engine.stage == 0
    # A supervisor resolves it as any halt: here, by entering the card really dealt.
    t.set_on_duty(sup.actor)
    t.correct_card(sup, "KH", "dealt while the station was locked; checked on the felt")
    assert t.halt is None and t.current.engine.stage == 1
    assert "stage.settle" in kinds(journal)


def test_with_someone_signed_in_a_card_settles_as_before(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe]) -> None:
    t, shoe = lapaire
    t.set_on_duty(DEALER)
    t.place(Wager(1, "straight", ("K",), 100))
    shoe.sim.deal()
    wait_for(lambda: "stage.settle" in kinds(journal))
    assert t.halt is None and "card.held" not in kinds(journal)


def test_a_table_no_sign_in_session_manages_takes_cards(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe]) -> None:
    """simulate, the command line and tests drive tables without a session: unchanged."""
    t, shoe = lapaire
    assert t.on_duty is None
    t.place(Wager(1, "straight", ("K",), 100))
    shoe.sim.deal()
    wait_for(lambda: "stage.settle" in kinds(journal))
    assert t.halt is None


def test_a_station_holds_a_card_read_before_anyone_signs_in(journal: Journal) -> None:
    """The station's table is unattended from the moment it opens, before its window and
    sign-in session exist: a card the shoe sends while the station starts is held (a
    restart once let the first cards of a stream through, dealt with nobody signed in)."""
    from dealer_station.app import fast_hasher, open_station

    station = open_station(journal, simulate=True, hasher=fast_hasher(), seed=3)
    try:
        t: Any = station.table
        assert t.unattended
        station.simulator("shoe").deal()
        wait_for(lambda: t.halt is not None)
        assert t.halt.fault == UNATTENDED
        assert "card" not in kinds(journal) and "card.held" in kinds(journal)
    finally:
        station.close()


def test_bourre_holds_a_card_read_while_nobody_is_signed_in(journal: Journal) -> None:
    t = BourreTable(journal, "T1", load_bourre_profiles()["tournament"], dealer=DEALER)
    shoe = Shoe(t, BOURRE_DECK)
    try:
        sup = make_user(journal, "sue", "supervisor")
        t.set_on_duty(DEALER)
        t.start_session([1, 2, 3, 4, 5])
        t.start_hand()
        shoe.sim.deal()
        wait_for(lambda: sum(len(t.hand.held(s)) for s in t.hand.seats) == 1)
        t.set_on_duty(None)
        shoe.sim.deal()
        wait_for(lambda: t.halt is not None)
        assert t.halt.fault == UNATTENDED
        assert sum(len(t.hand.held(s)) for s in t.hand.seats) == 1    # not dealt
        assert kinds(journal).count("card.held") == 1
        t.set_on_duty(sup.actor)
        t.resume(sup, "the card was put back on the shoe")
        assert t.halt is None
    finally:
        shoe.close()


# -- 3. halts and resolutions are significant events -------------------------------------------

def a_jam_resumed(journal: Journal, lapaire: tuple[LaPaireTable, Shoe]) -> User:
    t, shoe = lapaire
    sup = make_user(journal, "sue", "supervisor")
    t.place(Wager(1, "straight", ("K",), 100))
    shoe.status("JAM")
    wait_for(lambda: t.halt is not None)
    shoe.status("READY")
    t.resume(sup, "jam cleared by the floor")
    return sup


def test_halts_and_resolutions_are_significant(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe]) -> None:
    a_jam_resumed(journal, lapaire)
    for kind in ("halt", "resolve", "card.held"):
        assert is_significant(kind)
    shown = [r.kind for r in journal.events("T1")]
    assert "halt" in shown and "resolve" in shown


def test_audit_events_says_who_stopped_and_who_resumed_and_why(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe], db_path: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    a_jam_resumed(journal, lapaire)
    store = ["--db", f"sqlite:///{db_path}", "--key", str(tmp_path / "journal.key")]
    assert main(["audit", "events", "--table", "T1", *store]) == 0
    out = capsys.readouterr().out
    halt = next(line for line in out.splitlines() if "Halt (play stopped)" in line)
    assert "the shoe is jammed" in halt and "stopped by the shoe (S1)" in halt
    resumed = next(line for line in out.splitlines() if "Halt resolved: resumed" in line)
    assert "sue/supervisor" in resumed and "reason: jam cleared by the floor" in resumed


def test_the_events_report_says_who_stopped_and_who_resumed_and_why(
        journal: Journal, lapaire: tuple[LaPaireTable, Shoe], tmp_path: Path) -> None:
    a_jam_resumed(journal, lapaire)
    built = build_events_report(journal, "T1", out=tmp_path / "events.pdf")
    text = " ".join(" ".join(pg.extract_text().split())
                    for pg in PdfReader(str(built.path)).pages)
    assert "Halt (play stopped)" in text and "the shoe is jammed" in text
    assert "Halt resolved" in text and "resumed" in text
    assert "jam cleared by the floor" in text and "Sue (supervisor)" in text
