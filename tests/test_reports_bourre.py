"""The Bourré session report (and recall of a Bourré hand), from a journal made by
`dealer-station simulate --game bourre` under a profile with a house collection, plus a hand a
supervisor voids; every figure is checked against the journal's records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from test_reports_journal import (
    USERS,
    JournalFiles,
    check_every_page,
    pdf_text,
    render_png,
    simulate,
)

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal, Record
from dealer_station.audit.keys import create_key, load_key
from dealer_station.audit.users import Users
from dealer_station.errors import StationError
from dealer_station.gameconfig import config_dir
from dealer_station.games.bourre.config_file import load_bourre_profiles
from dealer_station.games.bourre.reports.session import build_bourre_session_report
from dealer_station.games.bourre.table.live import BourreTable
from dealer_station.reports.recall import build_recall_report
from dealer_station.reports.source import Period
from dealer_station.reports.text import local, name_the_player

TABLE = "T1"
HANDS = 33            # a whole 30-hand session, and three hands of the next
VOID_REASON = "cards exposed on the deal"


@pytest.fixture(scope="module")
def bourre_journal(tmp_path_factory: pytest.TempPathFactory) -> JournalFiles:
    where = tmp_path_factory.mktemp("bourre-journal")
    text = (config_dir() / "bourre.toml").read_text()
    # The tournament profile, with the house taking 10% of each pot won, at most 3 chips.
    text = text.replace('collection = "none"', 'collection = "percent"', 1)
    text = text.replace("percent = 0", "percent = 10", 1).replace('cap = "none"', "cap = 3", 1)
    config = where / "bourre.toml"
    config.write_text(text)
    assert load_bourre_profiles(config)["tournament"].to_data()["house"]["collection"] == \
        "percent"
    url = f"sqlite:///{where / 'journal.db'}"
    key = where / "journal.key"
    # The users first, while the journal is new (its first operator needs a new journal).
    db = open_database(url)
    Users(Journal(db, create_key(key))).seed(USERS, actor="setup/operator")
    db.close()
    simulate(url, key, HANDS, 5, "--game", "bourre", "--config", str(config))
    db = open_database(url)
    try:
        journal = Journal(db, load_key(key))
        users = Users(journal)
        sue = users.authenticate("sue", "2468", table_id=TABLE)
        profile = load_bourre_profiles(config)["tournament"]
        t = BourreTable(journal, TABLE, profile, dealer="dee/dealer")
        t.start_hand(elapsed=(HANDS - 30) * 60)   # seconds into the second session
        t.void(sue, VOID_REASON)
        t.shutdown()
    finally:
        db.close()
    return JournalFiles(url, key, None, None)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def built(bourre_journal: JournalFiles, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[Journal, object, str]]:
    journal, db = bourre_journal.open()
    out = tmp_path_factory.mktemp("bourre-report") / "sessions.pdf"
    report = build_bourre_session_report(journal, TABLE, out=out)
    yield journal, report, pdf_text(out)
    db.close()  # type: ignore[attr-defined]


def _kinds(journal: Journal, *kinds: str) -> list[Record]:
    return list(journal.records(TABLE, kinds=list(kinds)))


def test_every_page_and_both_sessions(built) -> None:  # type: ignore[no-untyped-def]
    journal, report, text = built
    check_every_page(report.path, "Bourré sessions")
    opens = _kinds(journal, "session.open")
    assert len(opens) == 2
    for o in opens:
        assert f"Session {o.payload['session_id']}" in text
    assert "Hands 30 settled, 0 voided" in text
    assert "Hands 3 settled, 1 voided" in text       # the second session, with the void
    # The open session says since when, and what is in its pot.
    second = opens[1]
    last = [c for c in _kinds(journal, "hand.close") if c.round_no <= HANDS][-1]
    assert (f"not ended: under way since {local(second.ts)}; last hand settled: "
            f"{last.round_no}") in text
    assert f"{last.payload['pot']} in the pot after the last settled hand" in text


def test_pots_and_chips_after_every_hand_match_the_journal(built) -> None:  # type: ignore[no-untyped-def]
    journal, _, text = built
    first = _kinds(journal, "session.open")[0]
    seats = [str(s) for s in first.payload["seats"]]
    chips = {str(k): int(v) for k, v in first.payload["chips"].items()}
    closes = [r for r in _kinds(journal, "hand.close") if r.round_no <= 30]
    opens = {r.round_no: r for r in _kinds(journal, "hand.open")}
    for c in closes:
        p = c.payload
        chips.update({str(k): int(v) for k, v in p["chips"].items()})
        taken = f"seat {p['winner']}" if p["winner"] else ("dead hand" if p["dead"]
                                                          else "carried")
        head = (f"{c.round_no} {opens[c.round_no].payload['dealer_seat']} {p['pot_before']} "
                f"{p['pot_end']} {taken} {p['won']} ")
        tail = f" {p['house']} {p['pot']} " + " ".join(str(chips[s]) for s in seats)
        assert head in text and tail in text, (head, tail)
        # Each penalty says what it was for.
        renegers = {str(m["seat"]) for m in p["reneges"]}
        for seat, chips_paid in p["penalties"].items():
            why = " and ".join(w for w, yes in (("renege", seat in renegers),
                                                 ("bourré", seat in p["bourre"])) if yes)
            assert f"seat {seat} {why} {chips_paid}" in text
    won = [c for c in closes if c.payload["winner"]]
    carried = [c for c in closes if not c.payload["winner"] and not c.payload["dead"]]
    assert (f"pots: {len(won)} won ({sum(c.payload['won'] for c in won)}), "
            f"{len(carried)} carried") in text


def test_bourres_reneges_penalties_and_house_collection(built) -> None:  # type: ignore[no-untyped-def]
    journal, _, text = built
    reneges = [r for r in _kinds(journal, "renege") if r.round_no <= 30]
    assert reneges, "the simulation plays some reneges"
    first_names = _kinds(journal, "session.open")[0].payload["players"]
    for r in reneges:
        p = r.payload
        reason = name_the_player(" ".join(p["reason"].split()), f"seat {p['seat']}")
        assert (f"{r.round_no} seat {p['seat']} ({first_names[str(p['seat'])]}) "
                f"{p['trick']} {p['card']} renege: {reason}") in text
    closes = [r for r in _kinds(journal, "hand.close") if r.round_no <= 30]
    house = sum(c.payload["house"] for c in closes)
    assert house > 0
    taking = sum(1 for c in closes if c.payload["house"])
    assert (f"{house} in {taking} of 30 hands (the House column), kept apart from the pots. "
            f"Rule: 10% of each pot won, rounded down, at most 3 chip(s).") in text


def test_standings_tags_and_the_void(built) -> None:  # type: ignore[no-untyped-def]
    journal, report, text = built
    (closed,) = _kinds(journal, "session.close")
    tags = closed.payload["tags"]
    for st in closed.payload["standings"]:
        assert (f"{st['seat']} {st['player']} 100 {st['chips']} - {st['outcome']} "
                f"{tags.get(st['player'], 0)}") in text
    assert f"voided {VOID_REASON} (sue/supervisor)" in text
    last = journal.last(TABLE)
    assert last is not None
    assert f"Last record hash {last.hash}" in pdf_text(report.path, report.pages - 1)


def test_recall_of_a_bourre_hand(bourre_journal: JournalFiles, tmp_path: Path) -> None:
    journal, db = bourre_journal.open()
    try:
        hand = _kinds(journal, "renege")[0].round_no
        report = build_recall_report(journal, TABLE, hand, out=tmp_path / "hand.pdf")
        records = journal.round_records(TABLE, hand)
    finally:
        db.close()  # type: ignore[attr-defined]
    text = pdf_text(report.path)
    assert f"Game recall: hand {hand}" in text and f"Hand {hand} - Settled" in text
    close = next(r for r in records if r.kind == "hand.close").payload
    winner = close["winner"]
    assert f"Winner {'seat ' + winner if winner else 'none: the pot carries'}" in text
    assert "Renege:" in text
    for rec in records:   # each hash printed in two halves, one above the other
        assert f"{rec.hash[:32]} {rec.hash[32:]}" in text


def test_a_period_without_sessions_is_refused(bourre_journal: JournalFiles,
                                              tmp_path: Path) -> None:
    from datetime import UTC, datetime

    journal, db = bourre_journal.open()
    try:
        with pytest.raises(StationError, match="has no Bourré session in the period"):
            build_bourre_session_report(journal, TABLE, Period(
                datetime(2000, 1, 1, tzinfo=UTC), datetime(2000, 1, 2, tzinfo=UTC)),
                out=tmp_path / "none.pdf")
    finally:
        db.close()  # type: ignore[attr-defined]
    assert not (tmp_path / "none.pdf").exists()


def test_bourre_pages_render_to_png(built, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, report, _ = built
    assert len(render_png(report.path, tmp_path)) == report.pages
