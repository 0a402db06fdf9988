"""The typed recall model: one set of words on the terminal, on the supervisor's screen and on
paper, and a JSON form that is exactly what ``recall --json`` has always printed.

Journals (real SQLite files, written through the table service): ``report_journal``
(tests/test_reports_journal.py: 40 rounds by ``simulate``, then a misread corrected, a jam and a
void, a configuration change), ``bourre_journal`` (tests/test_reports_bourre.py: 33 hands by
``simulate --game bourre`` with reneges, then a hand voided) and the journal the landed release
wrote, with the recall JSON that release printed (tests/fixtures/landed-1506783).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_landed_journals import EXPECTED, landed_journal_copy
from test_reports_bourre import VOID_REASON as BOURRE_VOID_REASON
from test_reports_bourre import bourre_journal  # noqa: F401  (a fixture)
from test_reports_journal import (  # noqa: F401  (report_journal, opened are fixtures)
    CORRECTION_REASON,
    SIM_ROUNDS,
    TABLE,
    VOID_REASON,
    JournalFiles,
    opened,
    pdf_text,
    report_journal,
)

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key, load_key
from dealer_station.cli.main import main
from dealer_station.events.kinds import exception_kinds
from dealer_station.games.bourre.table.recall import (
    DECISION_LABELS,
    PHASE_LABELS,
    PLAY_LABELS,
    RETRACTION_LABEL,
    BourreRecall,
)
from dealer_station.games.lapaire.rules.config import KIND_LABELS
from dealer_station.games.lapaire.rules.engine import BET_KINDS
from dealer_station.games.lapaire.table.recall import STAGE_LABELS, LaPaireRecall, wager_name
from dealer_station.reports.recall import build_recall_report
from dealer_station.table.recall import recall, recall_round
from dealer_station.table.recall_model import (
    CONFIRMED_LABELS,
    RECORD_LABELS,
    RESULT_LABELS,
    SOURCE_LABELS,
    STATUS_LABELS,
    Recall,
)
from dealer_station.ui.recall_view import recall_html

CORRECTED_ROUND = SIM_ROUNDS + 1
VOIDED_ROUND = SIM_ROUNDS + 2

#: The contract of ``recall --json``: every object's keys, in their order.
HEADER_KEYS = ["table", "round_no", "game", "status", "dealer", "started_at", "ended_at",
               "config_version"]
TAIL_KEYS = ["void_reason", "exceptions", "differences", "records"]
LAPAIRE_KEYS = [*HEADER_KEYS, "cards", "seats", "stages", "totals", *TAIL_KEYS]
BOURRE_KEYS = [*HEADER_KEYS, "profile", "dealer_seat", "seats", "chips_before", "pot_before",
               "trump", "cards", "decisions", "discards", "plays", "tricks", "result",
               *TAIL_KEYS]
RECORD_KEYS = ["seq", "ts", "actor", "kind", "payload", "hash"]
EXCEPTION_KEYS = ["seq", "ts", "actor", "kind", "reason", "payload"]
LAPAIRE_CARD_KEYS = ["n", "card", "source", "actor", "seq", "reason"]
WAGER_KEYS = ["wager_id", "bet", "values", "label", "amount", "stage", "result", "win",
              "placed_by"]
STAGE_KEYS = ["stage", "card", "poker", "total_win", "total_lost", "confirmed", "results"]
STAGE_RESULT_KEYS = ["wager_id", "seat", "label", "result", "win"]
BOURRE_CARD_KEYS = ["seat", "card", "phase", "source", "seq"]
PLAY_KEYS = ["seat", "card", "trick", "misplay", "accepted", "trick_winner", "seq"]
MISPLAY_KEYS = ["seat", "trick", "card", "rule", "reason", "penalised", "stands"]


def fold(text: str) -> str:
    """Whitespace folded to single spaces, as ``pdf_text`` gives a PDF's text."""
    return " ".join(text.split())


def store(files: JournalFiles) -> list[str]:
    return ["--db", files.url, "--key", str(files.key)]


def cli_text(files: JournalFiles, round_no: int, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["recall", "--table", TABLE, "--round", str(round_no), "--records",
                 *store(files)]) == 0
    return fold(capsys.readouterr().out)


def screen_text(rc: Recall) -> str:
    """The supervisor's recall panel as the screen shows it (Qt lays the HTML out)."""
    from PySide6.QtGui import QTextDocument

    doc = QTextDocument()
    doc.setHtml(recall_html(rc))
    return fold(doc.toPlainText())


def paper_text(journal: Journal, round_no: int, out: Path) -> str:
    return pdf_text(build_recall_report(journal, TABLE, round_no, out=out).path)


def recalled(journal: Journal, round_no: int) -> Recall:
    info = journal.round_info(TABLE, round_no)
    assert info is not None
    return recall_round(journal, info)


# --- the words ------------------------------------------------------------------------------

def test_the_words_are_the_felts_and_the_rules() -> None:
    from dealer_station.games.lapaire.ui.screen import STAGE_NAMES

    assert STAGE_LABELS == STAGE_NAMES     # the cards are named as on the dealer's screen
    for bet in BET_KINDS:
        assert wager_name(bet, ()) == KIND_LABELS[bet]
    assert wager_name("straight", ("K",)) == "Straight-up K"
    assert wager_name("corner", ("9", "2", "8", "3")) == "Corner 2-3-8-9"
    assert set(STATUS_LABELS) == {"open", "settled", "voided"}
    assert set(RESULT_LABELS) == {"win", "lose", "returned", "pending"}
    assert exception_kinds().issubset(RECORD_LABELS)
    words = [*RECORD_LABELS.values(), *STATUS_LABELS.values(), *RESULT_LABELS.values(),
             *SOURCE_LABELS.values(), *STAGE_LABELS.values(), *CONFIRMED_LABELS.values(),
             *DECISION_LABELS.values(), *PHASE_LABELS.values(), *PLAY_LABELS.values(),
             RETRACTION_LABEL]
    for word in words:   # people's words, never an identifier like any_pair or card.held
        assert word[0].isupper() and not any(c in word for c in "_."), word
    assert RECORD_LABELS["halt"] == "Stopped" and RECORD_LABELS["void"] == "Voided"
    assert RECORD_LABELS["correction"] == "Card corrected"
    assert RECORD_LABELS["recovery"] == "Recovered after a restart"


# --- the same fact reads the same everywhere --------------------------------------------------

@pytest.mark.parametrize("round_no", [CORRECTED_ROUND, VOIDED_ROUND])
def test_a_la_paire_round_reads_the_same_on_the_terminal_the_screen_and_paper(
        round_no: int, report_journal: JournalFiles, opened: Journal,  # noqa: F811
        tmp_path: Path, capsys: pytest.CaptureFixture[str], qapp: Any) -> None:
    rc = recalled(opened, round_no)
    assert isinstance(rc, LaPaireRecall)
    cli = cli_text(report_journal, round_no, capsys)
    screen = screen_text(rc)
    paper = paper_text(opened, round_no, tmp_path / "r.pdf")
    everywhere = {"terminal": cli, "screen": screen, "paper": paper}

    def reads(fact: str, *also: str) -> None:
        for where, text in everywhere.items():
            assert fact in text and all(a in text for a in also), (where, fact, also)

    reads(rc.status_label)
    assert f"round {round_no} (La Pair'e) - {rc.status_label}" in cli
    assert f"Round {round_no} · La Pair'e · {rc.status_label}" in screen
    assert f"Round {round_no} - {rc.status_label}" in paper
    assert rc.exceptions, "each round here has its halt and its resolution"
    for e in rc.exceptions:
        reads(e.label, e.actor, e.why)
        assert f"{e.label} by {e.actor}" in cli and f"{e.label} by {e.actor}" in screen
        assert f"{e.label} {e.actor} {e.why}" in paper
    for c in rc.cards:
        reads(c.stage_label, c.source_label)
    for seat in rc.seats:
        for w in seat.wagers:
            # seat, wager, spot, stake (money), the card that settles it, how it ended
            reads(f"#{w.wager_id} {w.name} {rc.amount(w.amount)} {w.stage_label} "
                  f"{w.result_label}")
    for s in rc.stages:
        reads(s.label, s.confirmed_label, rc.amount(s.total_win))
    reads(rc.totals_text())
    for rec in rc.records:
        reads(rec.label)
    if round_no == CORRECTED_ROUND:
        reads("Card corrected", "Corrected", CORRECTION_REASON)
        assert rc.status == "settled" and rc.void_reason is None
    else:
        assert rc.status == "voided" and rc.void_reason == VOID_REASON
        reads("Voided", "Returned (void)", "Stopped")
        assert f"Voided: {VOID_REASON}" in cli and f"Voided: {VOID_REASON}" in screen
        assert f"Voided {VOID_REASON}" in paper


def test_a_bourre_renege_and_void_read_the_same_on_the_terminal_the_screen_and_paper(
        bourre_journal: JournalFiles, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str], qapp: Any) -> None:
    journal, db = bourre_journal.open()
    try:
        renege = next(iter(journal.records(TABLE, kinds=["renege"])))
        assert renege.round_no is not None
        voided = journal.recent_rounds(TABLE, 1)[0].round_no
        for hand in (renege.round_no, voided):
            rc = recalled(journal, hand)
            assert isinstance(rc, BourreRecall)
            cli = cli_text(bourre_journal, hand, capsys)
            screen = screen_text(rc)
            paper = paper_text(journal, hand, tmp_path / f"{hand}.pdf")
            everywhere = {"terminal": cli, "screen": screen, "paper": paper}
            for where, text in everywhere.items():
                assert rc.status_label in text, where
                for e in rc.exceptions:
                    assert e.label in text and e.actor in text and e.why in text, (where, e)
                for seat, _ in rc.decisions:
                    assert rc.decision_label(seat) in text, where
                for p in rc.plays:
                    if p.misplay:
                        assert f"{p.misplay.label}: {p.misplay.reason}" in text, where
                        assert p.play_label in text, where
            assert f"hand {hand} (Bourré, tournament rules) - {rc.status_label}" in cli
            assert f"Hand {hand} - {rc.status_label}" in paper
            if hand == voided:
                assert rc.status_label == "Voided" and rc.void_reason == BOURRE_VOID_REASON
                assert f"Voided: {BOURRE_VOID_REASON}" in cli
                assert f"Voided {BOURRE_VOID_REASON}" in paper
                assert f"Voided sue/supervisor {BOURRE_VOID_REASON}" in paper
            else:
                assert any(e.label == "Renege" for e in rc.exceptions)
                assert "Renege seat:" in paper     # what, then who: the reneging seat
    finally:
        db.close()  # type: ignore[attr-defined]


# --- the JSON contract --------------------------------------------------------------------------

def _check_keys(d: dict[str, Any]) -> None:
    """Every object of one recalled round has the contract's keys, in the contract's order."""
    if d["game"] == "lapaire":
        assert list(d) == LAPAIRE_KEYS
        assert all(list(c) == LAPAIRE_CARD_KEYS for c in d["cards"])
        assert all(list(w) == WAGER_KEYS for ws in d["seats"].values() for w in ws)
        assert all(list(s) == STAGE_KEYS for s in d["stages"])
        assert all(list(r) == STAGE_RESULT_KEYS for s in d["stages"] for r in s["results"])
        assert list(d["totals"]) == ["wagered", "paid", "lost"]
    else:
        assert list(d) == BOURRE_KEYS
        assert all(list(c) == BOURRE_CARD_KEYS for c in d["cards"])
        assert all(list(p) == PLAY_KEYS for p in d["plays"])
        assert all(list(p["misplay"]) == MISPLAY_KEYS for p in d["plays"] if p["misplay"])
    assert all(list(r) == RECORD_KEYS for r in d["records"])
    assert all(list(e) == EXCEPTION_KEYS for e in d["exceptions"])


def _round_trips(rounds: list[Recall]) -> None:
    for rc in rounds:
        d = rc.to_json()
        _check_keys(d)
        again = type(rc).from_json(d)
        assert again == rc
        assert again.to_json() == d
        assert json.dumps(again.to_json()) == json.dumps(d)    # the order too
        assert json.loads(json.dumps(d)) == d                  # plain JSON, nothing else


def test_every_recalled_round_and_hand_round_trips_its_json(
        report_journal: JournalFiles, bourre_journal: JournalFiles,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    for files in (report_journal, bourre_journal):
        journal, db = files.open()
        try:
            rounds = recall(journal, TABLE, 1000)
        finally:
            db.close()  # type: ignore[attr-defined]
        assert len(rounds) > 30
        assert {rc.status for rc in rounds} >= {"settled", "voided"}
        _round_trips(rounds)
        # ``recall --json`` prints exactly those dicts, newest first.
        capsys.readouterr()
        assert main(["recall", "--table", TABLE, "--last", "1000", "--json",
                     *store(files)]) == 0
        out = capsys.readouterr().out
        assert out == json.dumps([rc.to_json() for rc in rounds], indent=2,
                                 ensure_ascii=False) + "\n"


def test_the_json_is_what_the_landed_release_printed(tmp_path: Path) -> None:
    url, key = landed_journal_copy(tmp_path)
    db = open_database(url, upgrade=False)
    try:
        journal = Journal(db, load_key(key))
        for table in EXPECTED["tables"]:
            rounds = recall(journal, table, 100)
            _round_trips(rounds)
            assert [rc.to_json() for rc in rounds] == EXPECTED["recall"][table]["json"], table
    finally:
        db.close()


def test_who_confirmed_each_payout_and_the_wagers_taken_back(tmp_path: Path,
                                                               qapp: Any) -> None:
    """The recall says who confirmed each stage's payout and which wagers were taken back
    (and by whom), from the round's own records: ``recall --json`` is unchanged."""
    from dealer_station.games.lapaire.config_file import load_lapaire_config
    from dealer_station.games.lapaire.rules.engine import Wager
    from dealer_station.games.lapaire.table.live import LaPaireTable

    db = open_database(f"sqlite:///{tmp_path / 'j.db'}")
    try:
        journal = Journal(db, create_key(tmp_path / "journal.key"))
        t = LaPaireTable(journal, "T9", load_lapaire_config(), dealer="ann/dealer")
        kept, gone = t.place_many([Wager(1, "straight", ("K",), 500),
                                   Wager(2, "straight", ("Q",), 300)], actor="ann/dealer")
        t.remove(gone.wager_id, actor="sue/supervisor")
        for card in ("KH", "2C", "9D"):
            t.deal(card)
            for n in t.unconfirmed():
                t.confirm_payout(n, actor="ann/dealer")
        (rc,) = recall(journal, "T9", 1)
        assert isinstance(rc, LaPaireRecall)
        (removed,) = rc.removed_wagers
        assert (removed.wager_id, removed.seat, removed.name, removed.amount,
                removed.placed_by, removed.removed_by) == (
            gone.wager_id, 2, "Straight-up Q", 300, "ann/dealer", "sue/supervisor")
        assert [w.wager_id for s in rc.seats for w in s.wagers] == [kept.wager_id]
        by = {c.stage: c.by for c in rc.confirmations}
        assert by[1] == "ann/dealer"                   # card 1 paid the straight-up K
        assert set(by) == {1, 2, 3}
        assert all(s.confirmed for s in rc.stages)
        # The JSON keeps its keys; read back, the recall still knows all this.
        assert list(rc.to_json()) == LAPAIRE_KEYS
        again = LaPaireRecall.from_json(json.loads(json.dumps(rc.to_json())))
        assert again.removed_wagers == rc.removed_wagers
        assert again.confirmations == rc.confirmations
        # On the supervisor's screen.
        screen = screen_text(rc)
        assert f"Payout confirmed by {by[1]}" in screen
        assert ("Wagers taken back Seat # Wager Stake Placed by Taken back by At "
                f"2 #{gone.wager_id} Straight-up Q 3.00 ann/dealer sue/supervisor") in screen
    finally:
        db.close()
