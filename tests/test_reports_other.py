"""The game recall / dispute report, the significant events report and the configuration
history, each built from the simulate-made journal and read back with pypdf."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_reports_journal import (  # noqa: F401  (report_journal, opened are fixtures)
    CONFIG_REASON,
    CORRECTION_REASON,
    SIM_ROUNDS,
    TABLE,
    VOID_REASON,
    check_every_page,
    copy_journal,
    opened,
    pdf_text,
    render_png,
    report_journal,
)

from dealer_station import registry as games
from dealer_station.audit.journal import Journal, JournalTampered
from dealer_station.errors import StationError
from dealer_station.events.wording import event_words
from dealer_station.games.lapaire.rules.config import KIND_LABELS, parse_lapaire_config
from dealer_station.games.lapaire.rules.house_math import par_sheet, percent
from dealer_station.games.lapaire.rules.layout import spot_label
from dealer_station.games.lapaire.table.recall import LaPaireRecall
from dealer_station.money import Money
from dealer_station.reports.config_history import build_config_history_report, differences
from dealer_station.reports.events import (
    USER_KINDS,
    build_events_report,
    event_kinds,
    people,
)
from dealer_station.reports.parts import CONFIG_WORDS
from dealer_station.reports.recall import build_recall_report
from dealer_station.reports.source import Period
from dealer_station.table.recall import recall_round

USD = Money("USD", 100)
CORRECTED_ROUND = SIM_ROUNDS + 1
VOIDED_ROUND = SIM_ROUNDS + 2


# --- recall -----------------------------------------------------------------------------------

def test_recall_of_a_corrected_round_shows_everything_that_proves_it(
        opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    built = build_recall_report(opened, TABLE, CORRECTED_ROUND, out=tmp_path / "r.pdf")
    check_every_page(built.path, f"Game recall: round {CORRECTED_ROUND}")
    text = pdf_text(built.path)
    info = opened.round_info(TABLE, CORRECTED_ROUND)
    assert info is not None
    rc = recall_round(opened, info)
    assert isinstance(rc, LaPaireRecall)
    assert f"Round {CORRECTED_ROUND} - Settled" in text
    assert f"Configuration version {info.config_version}" in text
    # The cards in order, the stage each settles, the corrected one with who and why.
    assert "1 KH First Card Entered by hand dee/dealer" in text
    assert f"2 QS La Pair'e Card Corrected sue/supervisor {CORRECTION_REASON}" in text
    # Every wager per seat with its result, and each stage's settlement.
    for seat in rc.seats:
        for w in seat.wagers:
            label = f"{KIND_LABELS[w.bet]} {spot_label(w.values)}".strip()
            assert (f"{seat.seat} #{w.wager_id} {label} {USD.number(w.amount)} "
                    f"{w.stage_label} {w.result_label}") in text
    for s in rc.stages:
        assert f"{s.stage} {s.card} {s.label}" in text and USD.number(s.total_win) in text
    t = rc.totals
    assert f"Totals: wagered {USD.text(t.wagered)}, paid {USD.text(t.paid)}" in text
    assert "every result equals what was recorded" in text
    # The journal records that prove it, each with its hash; the last one on the last page.
    records = opened.round_records(TABLE, CORRECTED_ROUND)
    for rec in records:
        # printed in two halves, one above the other
        assert f"{rec.seq:,} " in text and f"{rec.hash[:32]} {rec.hash[32:]}" in text
    assert f"Last record hash {records[-1].hash}" in pdf_text(built.path, built.pages - 1)
    assert built.last_record == records[-1]


def test_recall_of_a_voided_round_and_of_the_latest(opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    voided = build_recall_report(opened, TABLE, VOIDED_ROUND, out=tmp_path / "v.pdf")
    text = pdf_text(voided.path)
    assert f"Round {VOIDED_ROUND} - Voided" in text
    assert f"Voided {VOID_REASON}" in text
    assert "Returned (void)" in text           # the wagers the void handed back
    assert f"Voided sue/supervisor {VOID_REASON}" in text
    latest = build_recall_report(opened, TABLE, None, out=tmp_path / "l.pdf")
    assert latest.data.round_no == opened.recent_rounds(TABLE, 1)[0].round_no


def test_recall_of_a_round_that_does_not_exist(opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    with pytest.raises(StationError, match=r"table T1 has no round 999 \(its rounds are 1 to"):
        build_recall_report(opened, TABLE, 999, out=tmp_path / "x.pdf")
    assert not (tmp_path / "x.pdf").exists()


# --- significant events -----------------------------------------------------------------------

def test_events_report_lists_every_significant_event(opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    built = build_events_report(opened, TABLE, out=tmp_path / "e.pdf")
    check_every_page(built.path, "Significant events")
    events = opened.events(TABLE, kinds=event_kinds())
    users = opened.events("station", kinds=list(USER_KINDS))   # user administration too
    text = pdf_text(built.path)
    assert users
    assert (f"Events {len(events) + len(users):,} ({len(users):,} of them user "
            f"administration, from the station's chain)") in text
    for e in events:
        assert f"{e.seq:,} " in text and e.kind in text
    who = people(opened, TABLE)
    for u in users:
        words = event_words(u, who)
        assert f"station {u.seq:,} " in text and f"{words.what} {words.who}" in text
        assert "pin_mac" not in text
    # People by name and role, kinds and details in words: the journal's keys nowhere in
    # the list (the "Record kind" column of the count by kind names them on purpose).
    listed = text.split("Events in order")[1]
    assert "Sue Example (supervisor)" in listed and "the shoe" in listed
    for key in ("sue/supervisor", "device:shoe", "user_id", "halt_seq", "device_error"):
        assert key not in listed, key
    for kind in ("startup", "shutdown", "login", "config.change", "void", "correction",
                 "halt", "checkpoint", "device.fault"):
        assert kind in [e.kind for e in events]
    assert (f"Configuration changed Olga Example (operator) {CONFIG_REASON}; version "
            in text)
    # The station chain's rows are printed with that chain walked in full beside the
    # table's, and its records of the period attached as the table's are.
    assert "Journals of 2 table(s) verified intact" in text
    from pypdf import PdfReader

    assert {"journal-records-station.jsonl", f"journal-records-{TABLE}.jsonl"} <= set(
        PdfReader(str(built.path)).attachments)
    assert built.last_record is not None and built.last_record.table_id == TABLE


def test_events_report_says_so_when_the_station_chain_was_changed(
        report_journal, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    import sqlite3

    files = copy_journal(report_journal, tmp_path / "copy")
    con = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    with con:    # a user's name changed in the station's chain, without the key
        seq = con.execute("SELECT min(seq) FROM journal WHERE table_id = 'station' AND "
                          "kind = 'user.add'").fetchone()[0]
        changed = con.execute("UPDATE journal SET payload = replace(payload, '\"name\":\"', "
                              "'\"name\":\"Mallory ') WHERE table_id = 'station' AND seq = ?",
                              (seq,)).rowcount
    assert changed == 1
    con.close()
    # Its rows are read with their keyed hashes checked: the report is refused, naming the
    # record, and no PDF is left that prints them.
    journal, db = files.open()
    try:
        with pytest.raises(JournalTampered, match=rf"table station record {seq} \(user.add\)"):
            build_events_report(journal, TABLE, out=tmp_path / "e.pdf")
    finally:
        db.close()  # type: ignore[attr-defined]
    assert not (tmp_path / "e.pdf").exists()
    # The table's other reports, which print nothing of the station chain, still print.
    journal, db = files.open()
    try:
        built = build_recall_report(journal, TABLE, 3, out=tmp_path / "r.pdf")
    finally:
        db.close()  # type: ignore[attr-defined]
    assert built.verification.ok


def test_events_report_for_a_quiet_period(report_journal, opened: Journal,  # type: ignore[no-untyped-def]  # noqa: F811
                                          tmp_path: Path) -> None:
    built = build_events_report(opened, TABLE, Period(report_journal.gap_start,
                                                      report_journal.gap_end),
                                out=tmp_path / "q.pdf")
    text = pdf_text(built.path)
    assert "No significant events in the period." in text
    assert "none: the journal holds no record of this table in the period" in text
    assert "Journal verified: intact." in text


# --- configuration history --------------------------------------------------------------------

def test_config_history_shows_who_when_what_why_and_par_sheets(
        opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    built = build_config_history_report(opened, TABLE, out=tmp_path / "c.pdf")
    check_every_page(built.path, "Configuration history")
    text = pdf_text(built.path)
    versions = opened.config_versions(TABLE)
    changes = list(opened.records(TABLE, kinds=["config.change"]))
    assert f"Changes recorded {len(changes)}" in text
    last = changes[-1]
    assert f"Who {last.actor}" in text and f"Why {CONFIG_REASON}" in text
    assert f"Journal record {last.seq:,}, hash {last.hash}" in text
    # What changed, computed from the stored versions: the felt's names, money as money.
    assert "3rd Card Poker: offered yes no" in text
    assert "Straight-up: minimum 1.00 USD 2.00 USD" in text
    assert "Straight-up: maximum 100.00 USD 50.00 USD" in text
    assert "wagers." not in text
    # The first version's par sheet whole, exactly; after it, only the spots that changed.
    first = parse_lapaire_config(versions[0].content, "<journal>")
    for row in par_sheet(first):
        assert (f"{row.label} {row.payout} {float(row.probability):.6f} "
                f"{percent(row.rtp, 3)} {percent(row.house_edge, 3)}") in text
    assert text.count("Straight-up A 12 to 1") == 1
    assert "3rd Card Poker" in text and "not offered" in text


def test_config_differences_name_every_setting() -> None:
    old = {"a": {"b": 1, "c": [1, 2]}, "gone": True}
    new = {"a": {"b": 2, "c": [1, 2]}, "added": "x"}
    assert differences(old, new) == [["a.b", "1", "2"], ["added", "(not set)", "x"],
                                     ["gone", "yes", "(removed)"]]
    money = {"money": {"currency": "USD", "minor_units": 100}}
    words = games.game("lapaire").part(CONFIG_WORDS)   # the felt's names for its settings
    assert differences({**money, "wagers": {"any_pair": {"max": 5000, "offered": True}}},
                       {**money, "wagers": {"any_pair": {"max": 2500, "offered": False}}},
                       words) \
        == [["Any Pair'e: maximum", "50.00 USD", "25.00 USD"],
            ["Any Pair'e: offered", "yes", "no"]]


def test_the_other_reports_render_to_png(opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    recall = build_recall_report(opened, TABLE, CORRECTED_ROUND, out=tmp_path / "r.pdf")
    assert len(render_png(recall.path, tmp_path)) == recall.pages
