"""The La Pair'e table service on a real journal: journaled before acknowledged, halts,
voids, corrections, configuration versions, recovery, recall, replay and meters."""

from __future__ import annotations

import threading
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest
from user_support import make_user, start_users

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Fact, Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import PermissionDenied
from dealer_station.cards import LAPAIRE_DECK
from dealer_station.events.table import RoundHalted
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.events import StageSettled
from dealer_station.games.lapaire.rules.engine import Wager, WagerError
from dealer_station.games.lapaire.table.live import LaPaireTable
from dealer_station.games.lapaire.table.recall import LaPaireRecall
from dealer_station.hardware.backends import open_device
from dealer_station.table.audit_checks import meter_differences, replay
from dealer_station.table.base import Halted, TableError, Update
from dealer_station.table.recall import recall

DEALER = "dee/dealer"


@pytest.fixture
def journal(db_url: str, tmp_path: Path) -> Iterator[Journal]:
    db = open_database(db_url)
    j = Journal(db, create_key(tmp_path / "journal.key"))
    start_users(j)
    yield j
    db.close()


@pytest.fixture
def sqlite_journal(tmp_path: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    j = Journal(db, create_key(tmp_path / "journal.key"))
    start_users(j)
    yield j
    db.close()


def table(journal: Journal) -> LaPaireTable:
    return LaPaireTable(journal, "T1", load_lapaire_config(), dealer=DEALER)


def pay_all(t: LaPaireTable) -> None:
    while t.unconfirmed():
        t.confirm_payout(t.unconfirmed()[0])


K_STRAIGHT = Wager(1, "straight", ("K",), 100)
RED = Wager(1, "red", (), 200)


def test_a_round_is_journaled_before_each_step_is_acknowledged(journal: Journal) -> None:
    t = table(journal)
    seen: list[tuple[str, int]] = []

    def listener(update: Update) -> None:
        # When a listener hears of an event, the journal already holds it.
        last = journal.last("T1")
        assert last is not None
        for c in update.events:
            assert c.seq <= last.seq
            seen.append((c.kind, c.seq))

    t.subscribe(listener)
    t.place_many([K_STRAIGHT, RED, Wager(2, "split", ("7", "K"), 100)])
    stage1 = t.deal("KH")
    assert [r.win for r in stage1.results] == [1200, 200, 500]
    kinds = [r.kind for r in journal.records("T1")]
    assert kinds[-3:] == ["betting.close", "card", "stage.settle"]
    assert t.unconfirmed() == [1]
    t.confirm_payout(1)
    t.deal("2C")
    assert t.unconfirmed() == []   # nothing to pay on stage 2: the dealer is not asked
    t.deal("9D")
    assert t.current is None       # nor on stage 3, so the round closed with its card
    auto = [r for r in journal.records("T1", kinds=["payout.confirm"])]
    assert [(r.payload["stage"], r.actor) for r in auto] == [
        (1, DEALER), (2, "station"), (3, "station")]
    info = journal.recent_rounds("T1", 1)[0]
    assert info.status == "settled"
    assert info.summary["total_win"] == 1900
    assert ("stage.settle", kinds.index("stage.settle") + 1) in seen
    meters = journal.meters("T1")
    assert meters["total"].wagered == 400 and meters["total"].paid == 1900
    assert meters["straight"].house_win == -1200


def test_refusals_leave_no_trace(journal: Journal) -> None:
    t = table(journal)
    before = journal.last("T1")
    with pytest.raises(WagerError, match="no First Card wager"):
        t.place(RED)
    with pytest.raises(WagerError, match="over the table maximum"):
        t.place(Wager(1, "straight", ("K",), 10**9))
    assert journal.last("T1") == before
    assert t.current is None
    t.place(K_STRAIGHT)
    n = journal.last("T1")
    # A batch is all or nothing: the good wager before the bad one is not kept either.
    with pytest.raises(WagerError):
        t.place_many([Wager(2, "straight", ("2",), 100), Wager(3, "poker", (), 100)])
    assert journal.last("T1") == n
    assert len(t.current.engine.wagers) == 1  # type: ignore[union-attr]


def test_remove_and_stage_order(journal: Journal) -> None:
    t = table(journal)
    p = t.place_many([K_STRAIGHT, Wager(1, "straight", ("2",), 100)])
    t.remove(p[1].wager_id)
    assert [r.kind for r in journal.records("T1")][-1] == "wager.remove"
    t.deal("KS")
    with pytest.raises(TableError, match="stage 2 has not been settled"):
        t.confirm_payout(2)
    with pytest.raises(WagerError, match="betting is closed"):
        t.place(Wager(2, "straight", ("3",), 100))
    t.deal("KD")
    with pytest.raises(TableError, match="confirm stage 1 first"):
        t.confirm_payout(2)


def test_impossible_card_halts_until_a_supervisor_corrects_it(journal: Journal) -> None:
    t = table(journal)
    sup = make_user(journal, "sue", "supervisor")
    dealer = make_user(journal, "dan", "dealer")
    t.place(K_STRAIGHT)
    shoe = open_device("shoe", "simulated", device_id="S1", deck=LAPAIRE_DECK,
                       on_event=t.on_device_event, cards=["KH", "KH", "5D", "9C"])
    t.attach("shoe", shoe)
    halted = threading.Event()
    settled: list[int] = []
    t.subscribe(lambda u: halted.set() if u.has(RoundHalted) else
                settled.extend(e.stage for e in u.of(StageSettled)))
    try:
        shoe.simulator.deal()   # KH: stage 1
        shoe.simulator.deal()   # KH again: cannot be in this round
        assert halted.wait(5)
        assert t.halt is not None and t.halt.fault == "impossible_card"
        assert settled == [1]
        with pytest.raises(Halted):
            t.place(Wager(2, "straight", ("2",), 100))
        with pytest.raises(PermissionDenied):
            t.correct_card(dealer, "5D", "shoe misread")
        with pytest.raises(TableError, match="reason is required"):
            t.correct_card(sup, "5D", "  ")
        stage = t.correct_card(sup, "QS", "card turned by hand was QS")
        assert stage.stage == 2 and t.halt is None
    finally:
        shoe.close()
    kinds = [r.kind for r in journal.records("T1", round_no=t.round_no)]
    assert "halt" in kinds and "correction" in kinds and "resolve" in kinds
    corr = next(r for r in journal.records("T1") if r.kind == "correction")
    assert corr.actor == "sue/supervisor" and corr.payload["reason"].startswith("card turned")


def test_device_fault_stops_the_round_and_a_void_returns_unsettled_wagers(
        journal: Journal) -> None:
    t = table(journal)
    sup = make_user(journal, "sue", "supervisor")
    t.place_many([K_STRAIGHT, Wager(1, "any_pair", (), 100)])
    t.deal("KH")
    shoe = open_device("shoe", "simulated", device_id="S1", deck=LAPAIRE_DECK,
                       on_event=t.on_device_event)
    t.attach("shoe", shoe)
    halted = threading.Event()
    t.subscribe(lambda u: halted.set() if u.has(RoundHalted) else None)
    try:
        shoe.simulator.report_error("MISREAD", "card not recognised")
        assert halted.wait(5)
    finally:
        shoe.close()
    assert t.halt is not None and t.halt.fault == "misread"
    with pytest.raises(Halted):
        t.deal("2C")
    t.void(sup, "misread could not be resolved")
    assert t.current is None and t.halt is None
    info = journal.recent_rounds("T1", 1)[0]
    assert info.status == "voided"
    void = next(r for r in journal.records("T1") if r.kind == "void")
    assert void.payload["returned"] == [2]       # the Any Pair'e wager goes back
    assert journal.meters("T1")["straight"].paid == 1200   # stage 1 stands
    assert "any_pair" not in journal.meters("T1")


def test_config_change_takes_effect_between_rounds(journal: Journal) -> None:
    t = table(journal)
    op = make_user(journal, "olga", "operator")
    dealer = make_user(journal, "dan", "dealer")
    first_version = t.version
    t.place(K_STRAIGHT)
    new = t.config.with_changes(offered={"poker": False})
    with pytest.raises(PermissionDenied):
        t.change_config(dealer, new, "no poker tonight")
    version = t.change_config(op, new, "no poker tonight")
    assert t.pending is not None and t.version == first_version
    t.place(Wager(1, "poker", (), 100))   # the open round keeps its version
    for card in ["2C", "3C", "4C"]:
        t.deal(card)
        pay_all(t)
    with pytest.raises(WagerError, match="not offered"):
        t.place_many([K_STRAIGHT, Wager(1, "poker", (), 100)])
    t.place(K_STRAIGHT)
    assert t.version == version
    rounds = journal.recent_rounds("T1", 2)
    assert [r.config_version for r in rounds] == [version, first_version]
    change = [r for r in journal.records("T1") if r.kind == "config.change"][-1]
    assert change.actor == "olga/operator" and change.payload["reason"] == "no poker tonight"
    # A restart keeps the operator's version rather than re-reading the file.
    assert table(journal).version == version


def test_a_restart_restores_the_open_round_at_its_stage(sqlite_journal: Journal) -> None:
    t = table(sqlite_journal)
    t.place_many([K_STRAIGHT, RED, Wager(1, "lapaire", ("K",), 100)])
    t.deal("KH")
    t.confirm_payout(1)
    t.deal("KC")
    del t   # the process dies here: nothing is closed or flushed
    again = table(sqlite_journal)
    assert again.current is not None
    assert again.current.engine.stage == 2 and again.unconfirmed() == [2]
    assert again.current.engine.seat_totals()[1].win == 1200 + 200 + 22500
    again.confirm_payout(2)
    again.deal("3H")
    assert again.current is None
    # Nothing was paid twice.
    assert sqlite_journal.meters("T1")["total"].paid == 1200 + 200 + 22500
    assert sum(1 for r in sqlite_journal.records("T1") if r.kind == "stage.settle") == 3
    assert [r.kind for r in sqlite_journal.records("T1") if r.kind == "recovery"]


def test_recall_replay_and_meters_agree_with_the_play(sqlite_journal: Journal) -> None:
    t = table(sqlite_journal)
    for cards in (["KH", "2C", "3D"], ["JK", "JK", "AS"], ["7S", "7H", "7D"]):
        t.place_many([K_STRAIGHT, RED, Wager(2, "three", ("7", "K", "JK"), 100),
                      Wager(2, "any_pair", (), 100), Wager(2, "poker", (), 100)])
        for c in cards:
            t.deal(c)
            pay_all(t)
    rounds = recall(sqlite_journal, "T1", 10)
    assert all(isinstance(r, LaPaireRecall) for r in rounds)
    newest, second = typing.cast(list[LaPaireRecall], rounds)[:2]
    assert [r.round_no for r in rounds] == [3, 2, 1]
    assert second.cards[0].card == "JK"
    assert second.seats[1].seat == 2
    assert second.seats[1].wagers[1].win == 5000   # two jokers pay 50 to 1
    assert newest.totals.paid == sum(s.total_win for s in newest.stages)
    report = replay(sqlite_journal, "T1")
    assert report.ok and report.by_status == {"settled": 3}
    assert meter_differences(sqlite_journal, "T1", report) == []


def test_replay_reports_a_round_paid_differently_from_its_rules(
        sqlite_journal: Journal) -> None:
    t = table(sqlite_journal)
    t.place(K_STRAIGHT)
    t.deal("KH")
    # A writer that paid the wrong amount: the chain is intact, the settlement is not.
    sqlite_journal.append_many("T1", [
        Fact("card", {"n": 2, "card": "2C", "source": "manual"}, DEALER, 1),
        Fact("stage.settle", {"stage": 2, "card": "2C", "results": [], "total_win": 0,
                              "total_lost": 0, "poker": None}, "station", 1)])
    sqlite_journal.append("T1", "stage.settle", {
        "stage": 1, "card": "KH", "total_win": 99, "total_lost": 0, "poker": None,
        "results": [{"wager_id": 1, "seat": 1, "bet": "straight", "won": True, "win": 99}]},
        "station", round_no=1)
    report = replay(sqlite_journal, "T1")
    assert not report.ok
    assert any("stage 1" in d and "99" in d for d in report.differences)
    assert sqlite_journal.verify("T1")[0].ok


def test_a_refused_opening_consumes_neither_round_number_nor_pending_config(
        sqlite_journal: Journal) -> None:
    t = table(sqlite_journal)
    op = make_user(sqlite_journal, "olga", "operator")
    version = t.change_config(op, t.config.with_changes(offered={"red": False}), "no red")
    assert t.version == version            # no round open: in force at once
    t.change_config(op, t.config.with_changes(offered={"black": False}), "no black")
    with pytest.raises(WagerError):
        t.place(RED)                       # refused: no First Card wager
    assert t.current is None and t.last_round_no() == 0
    t.place(K_STRAIGHT)
    assert t.round_no == 1


def play_out(t: LaPaireTable, cards: tuple[str, str, str] = ("2C", "3D", "4S")) -> None:
    for card in cards:
        t.deal(card)
        pay_all(t)
    assert t.current is None


def test_a_rebet_places_the_seats_last_round_again_as_ordinary_wagers(
        sqlite_journal: Journal) -> None:
    t = table(sqlite_journal)
    dealer = make_user(sqlite_journal, "dan", "dealer")
    # Seat 4's last round, as it stood when the round ended: a chip taken back is not in it.
    p = t.place_many([Wager(4, "straight", ("7",), 2500), Wager(4, "red", (), 500),
                      Wager(4, "poker", (), 100), Wager(2, "straight", ("K",), 100)])
    t.remove(p[2].wager_id)
    play_out(t)
    # Seat 2 plays another round; seat 4 sits it out: its last round stays the first one.
    t.place(Wager(2, "split", ("2", "8"), 1000))
    play_out(t)
    with t.lock:
        view = t.read_model()
    assert [(w.bet, w.values, w.amount) for w in view.rebets[4]] == [
        ("straight", ("7",), 2500), ("red", (), 500)]
    before = len(list(sqlite_journal.records("T1")))
    placed = t.rebet(4, actor=dealer.actor)
    assert [(p.wager.seat, p.wager.bet, p.wager.amount) for p in placed] == [
        (4, "straight", 2500), (4, "red", 500)]
    new = list(sqlite_journal.records("T1"))[before:]
    assert [r.kind for r in new] == ["round.open", "wager.place", "wager.place"]
    assert all(r.actor == "dan/dealer" for r in new[1:])
    assert [(r.payload["bet"], r.payload["amount"]) for r in new[1:]] == [
        ("straight", 2500), ("red", 500)]
    # A second tap does not double the seat's wagers; it writes nothing.
    n = sqlite_journal.last("T1")
    with pytest.raises(TableError, match="seat 4 already has wagers in this round"):
        t.rebet(4)
    with pytest.raises(TableError, match="seat 5 has no wagers from a last round"):
        t.rebet(5)
    assert sqlite_journal.last("T1") == n
    # A restarted table still knows each seat's last round.
    assert [(w.bet, w.amount) for w in table(sqlite_journal).state.seat_last[2]] == [
        ("split", 1000)]


def test_a_rebet_is_refused_whole_when_a_spot_is_gone_or_a_limit_is_broken(
        journal: Journal) -> None:
    t = table(journal)
    op = make_user(journal, "olga", "operator")
    t.place_many([Wager(4, "straight", ("7",), 2500), Wager(4, "poker", (), 500),
                  Wager(3, "straight", ("9",), 5000)])
    play_out(t)
    t.change_config(op, t.config.with_changes(offered={"poker": False},
                                              limits={"straight": (100, 4000)}),
                    "no poker; straights to 40.00")
    t.place(Wager(1, "straight", ("2",), 100))       # round 2 opens under the change
    n = journal.last("T1")
    # The straight alone could go on; the poker wager cannot: nothing is placed.
    with pytest.raises(TableError, match=r"seat 4's rebet was not placed.*3rd Card Poker is not "
                                         "offered"):
        t.rebet(4)
    with pytest.raises(TableError, match=r"seat 3's rebet was not placed.*over the table "
                                         "maximum"):
        t.rebet(3)
    assert journal.last("T1") == n
    assert {w.seat for w in t.current.engine.wagers.values()} == {1}  # type: ignore[union-attr]
    t.deal("5H")
    with pytest.raises(TableError, match="betting is closed"):
        t.rebet(3)
