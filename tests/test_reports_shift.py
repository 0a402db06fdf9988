"""The table shift report, built from a journal made by `simulate` plus a correction, a void
after a device fault and a configuration change; every figure is checked against the journal
(its meters projection, rounds, events and par sheets), read back from the PDF with pypdf."""

from __future__ import annotations

import sqlite3
from datetime import UTC
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from test_reports_journal import (  # noqa: F401  (report_journal, opened are fixtures)
    CONFIG_REASON,
    CORRECTION_REASON,
    SIM_ROUNDS,
    TABLE,
    VOID_REASON,
    JournalFiles,
    check_every_page,
    copy_journal,
    opened,
    pdf_text,
    render_png,
    report_journal,
)

from dealer_station.accounting.figures import round_money
from dealer_station.audit.journal import Journal
from dealer_station.games.lapaire.rules.house_math import par_sheet
from dealer_station.money import Money
from dealer_station.reports.shift import EXCEPTION_KINDS, build_shift_report, kind_label, pace_text
from dealer_station.reports.source import Period
from dealer_station.reports.text import LIVE_PACE_LIMIT, percent
from dealer_station.table.recall_model import record_label

USD = Money("USD", 100)


def _theoretical(journal: Journal) -> dict[str, tuple[int, Fraction]]:
    """Per kind and in total: stakes settled and theoretical win, each wager at its own
    spot's edge under its round's configuration version (computed here from the records)."""
    from dealer_station.games.lapaire.rules.config import parse_lapaire_config

    edges: dict[str, dict[tuple[str, tuple[str, ...]], Fraction]] = {}
    out: dict[str, list[Any]] = {}
    for info in journal.recent_rounds(TABLE, 10_000):
        if info.config_version not in edges:
            cv = journal.config(TABLE, info.config_version)
            assert cv is not None
            edges[info.config_version] = {
                (r.bet, r.values): r.house_edge
                for r in par_sheet(parse_lapaire_config(dict(cv.content), "x"))}
        stakes = {}
        for rec in journal.round_records(TABLE, info.round_no):
            if rec.kind == "wager.place":
                stakes[rec.payload["wager_id"]] = (rec.payload["amount"], rec.payload["bet"],
                                                   tuple(rec.payload["values"]))
            elif rec.kind == "stage.settle":
                for res in rec.payload["results"]:
                    amount, bet, values = stakes[res["wager_id"]]
                    for key in (bet, "total"):
                        acc = out.setdefault(key, [0, Fraction(0)])
                        acc[0] += amount
                        acc[1] += amount * edges[info.config_version][(bet, values)]
    return {k: (v[0], v[1]) for k, v in out.items()}


@pytest.fixture(scope="module")
def whole(report_journal: JournalFiles, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]  # noqa: F811
    journal, db = report_journal.open()
    out = tmp_path_factory.mktemp("shift") / "shift.pdf"
    built = build_shift_report(journal, TABLE, out=out)
    yield journal, built, pdf_text(out)
    db.close()  # type: ignore[attr-defined]


def test_every_page_carries_the_template(whole) -> None:  # type: ignore[no-untyped-def]
    _, built, _ = whole
    assert check_every_page(built.path, "Table shift report") == built.pages >= 2


def test_rounds_and_figures_per_wager_kind_match_the_journal(whole) -> None:  # type: ignore[no-untyped-def]
    journal, built, text = whole
    rounds = journal.recent_rounds(TABLE, 10_000)
    settled = sum(r.status == "settled" for r in rounds)
    voided = sum(r.status == "voided" for r in rounds)
    assert (settled, voided) == (SIM_ROUNDS + 2, 1)
    assert f"Rounds played {settled + voided} ({settled} settled, {voided} voided); rounds 1 " \
           f"to {settled + voided}" in text
    meters = journal.meters(TABLE)
    theo = _theoretical(journal)
    for kind, m in meters.items():
        label = "Total" if kind == "total" else kind_label(kind)
        hold = percent(Fraction(m.house_win, m.wagered))
        returned = m.wagered - m.paid - m.house_win
        staked, win = theo[kind]
        assert staked == m.wagered     # the meters count exactly the wagers settled
        # Winning stakes on their own line: wagered - winning stakes - paid = house win.
        row = (f"{label} {m.rounds} {USD.number(m.wagered)} {USD.number(returned)} "
               f"{USD.number(m.paid)} {USD.number(m.house_win)} {hold} "
               f"{percent(win / staked)} {USD.number(round_money(win))}")
        assert row in text, row
    total = meters["total"]
    returned = total.wagered - total.paid - total.house_win
    assert f"Wagered {USD.text(total.wagered)}" in text
    assert f"Winning stakes {USD.text(returned)}" in text
    assert f"Paid {USD.text(total.paid)}" in text
    assert f"House win {USD.text(total.house_win)} (wagered - winning stakes - paid)" in text
    # House win over the handle is not the hold (win / drop, the count room's figure).
    assert f"Win % of handle {percent(Fraction(total.house_win, total.wagered))}" in text
    assert "Hold" not in text
    # The exact theoretical edge: each wager at its own spot's edge, over the wagers made.
    assert f"Theor. edge {percent(theo['total'][1] / total.wagered)}" in text
    assert "rounds per hour" in text
    data = built.data
    # A pace no live table reaches is said to be a simulation's, beside the figure.
    fast = data.per_hour is not None and data.per_hour > LIVE_PACE_LIMIT
    assert fast == ("played by a simulation or a script" in " ".join(text.split()))
    assert data.rounds_played == settled + voided
    assert sum(v for _, v in data.hourly) == total.house_win


def test_dealers_meters_and_configuration_versions(whole) -> None:  # type: ignore[no-untyped-def]
    journal, _, text = whole
    assert f"sim-dealer/dealer ({SIM_ROUNDS}), dee/dealer (3)" in text
    t = journal.meters(TABLE)["total"]
    assert (f"Total 0.00 0.00 0.00 {USD.number(t.wagered)} {USD.number(t.paid)} "
            f"{USD.number(t.house_win)}") in text
    versions = journal.config_versions(TABLE)
    assert len(versions) == 2
    assert f"{versions[1].version[:16]}... 1 " in text    # one round under the new version
    assert CONFIG_REASON in text


def test_each_dealers_win_and_pace_are_their_rounds(whole) -> None:  # type: ignore[no-untyped-def]
    """The dealers' wagered and house win: the closing meters of the rounds each opened,
    summed straight from the journal's records, and together the table's."""
    journal, built, text = whole
    opened_by = {r.round_no: str(r.payload.get("dealer") or r.actor)
                 for r in journal.records(TABLE, kinds=["round.open"])}
    want: dict[str, list[int]] = {}
    for c in journal.records(TABLE, kinds=["round.close", "void"]):
        total = c.payload["meters"]["total"]
        got = want.setdefault(opened_by[c.round_no], [0, 0, 0])
        got[0] += 1
        got[1] += total["wagered"]
        got[2] += total["house_win"]
    dealers = {d.dealer: d for d in built.data.dealers}
    assert {k: [d.rounds, d.wagered, d.house_win] for k, d in dealers.items()} == want
    assert sum(d.house_win for d in dealers.values()) == built.data.total.house_win
    for name, (rounds, wagered, win) in want.items():
        d = dealers[name]
        assert (f"{name} {rounds:,} {pace_text(d.per_hour)} {USD.number(wagered)} "
                f"{USD.number(win)}") in text


def test_every_exception_is_listed_with_who_and_why(whole) -> None:  # type: ignore[no-untyped-def]
    journal, built, text = whole
    events = journal.events(TABLE, kinds=EXCEPTION_KINDS)
    kinds = [e.kind for e in events]
    assert {"halt", "correction", "resolve", "void", "device.fault"} <= set(kinds)
    assert f"Exceptions {len(events)} (listed below)" in text
    assert len(built.data.exceptions) == len(events)
    assert f"Card corrected sue/supervisor {CORRECTION_REASON}" in text
    assert f"Voided sue/supervisor {VOID_REASON}" in text
    for e in events:   # each with who and why, as the journal has them, the kind in words
        why = e.payload.get("reason") or e.payload.get("detail") or e.payload.get("note")
        assert f"{e.round_no} {record_label(e.kind)} {e.actor} {' '.join(str(why).split())}" \
            in text
    # No record keys or minor units in the details: a void names the wagers it returned,
    # and the stakes it handed back as money.
    assert "halt_seq" not in text and "wagered:" not in text
    assert "returned stakes" not in text and "returned_stakes" not in text
    (void,) = [e for e in events if e.kind == "void"]
    back = USD.text(void.payload["returned_stakes"])
    assert void.payload["returned_stakes"] > 0 and f"returned in all: {back}" in text


def test_the_last_page_carries_the_verification_and_the_last_hash(whole) -> None:  # type: ignore[no-untyped-def]
    journal, built, _ = whole
    last = journal.last(TABLE)
    assert last is not None
    final = pdf_text(built.path, built.pages - 1)
    assert "Journal verified: intact." in final
    # every closed round anchors the head, and shut-down checkpoints it: all are confirmed
    confirmed = len({c.seq for c in journal.anchored_checkpoints() if c.table_id == TABLE}
                    | {c.seq for c in journal.db_checkpoints(TABLE)})
    assert confirmed > len(journal.recent_rounds(TABLE, last=10_000))
    assert (f"chain intact from record 1 to record {last.seq:,}; "
            f"{confirmed} checkpoint(s) confirmed") in final
    assert f"Last record hash {last.hash}" in final
    assert f"Records covered 1 to {last.seq:,}" in final
    assert built.verification == journal.verify(TABLE)[0]
    assert "Last record hash" not in pdf_text(built.path, 0)


def test_a_period_counts_what_closed_in_it_and_meters_at_open(
        report_journal: JournalFiles, opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    early = build_shift_report(opened, TABLE, Period(None, report_journal.gap_start),
                               out=tmp_path / "early.pdf")
    late = build_shift_report(opened, TABLE, Period(report_journal.gap_start, None),
                              out=tmp_path / "late.pdf")
    e, lt = early.data, late.data
    assert (e.rounds_played, e.rounds_voided, e.exceptions) == (SIM_ROUNDS, 0, [])
    assert (lt.rounds_played, lt.rounds_voided, lt.first_round) == (3, 1, SIM_ROUNDS + 1)
    whole_meters = opened.meters(TABLE)
    for kind, m in whole_meters.items():
        before = lt.meters_open.get(kind)
        during_early = e.kinds.get(kind)
        # Meters at the late period's open are exactly the early period's figures...
        assert (before.wagered if before else 0) == (during_early.wagered
                                                     if during_early else 0)
        # ...and at its close, the journal's meters.
        closed = lt.meters_close[kind]
        assert (closed.rounds, closed.wagered, closed.paid, closed.house_win) == (
            m.rounds, m.wagered, m.paid, m.house_win)
    text = pdf_text(early.path)
    assert "No voids, corrections, misreads, device faults, reneges or other exceptions" \
           in text
    assert early.last_record is not None
    assert early.last_record.ts < report_journal.gap_start.isoformat()
    assert f"Last record hash {early.last_record.hash}" in text
    assert "Rounds played 3 (2 settled, 1 voided); rounds 41 to 43" in pdf_text(late.path)


def test_a_tampered_journal_is_reported_on_every_page(
        report_journal: JournalFiles, tmp_path: Path) -> None:  # noqa: F811
    files = copy_journal(report_journal, tmp_path / "copy")
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    seq = db.execute("SELECT seq FROM journal WHERE table_id=? AND kind='round.close' "
                     "ORDER BY seq LIMIT 1 OFFSET 5", (TABLE,)).fetchone()[0]
    db.execute("UPDATE journal SET payload=replace(payload, '\"total_win\":', "
               "'\"total_win\":1') WHERE table_id=? AND seq=?", (TABLE, seq))
    db.commit()
    db.close()
    journal, handle = files.open()
    try:
        built = build_shift_report(journal, TABLE, out=tmp_path / "bad.pdf")
        assert not built.verification.ok and built.verification.bad_seq == seq
        assert built.verification == journal.verify(TABLE)[0]
    finally:
        handle.close()  # type: ignore[attr-defined]
    for i in range(built.pages):
        assert f"JOURNAL VERIFICATION FAILED at record {seq}" in pdf_text(built.path, i)
    assert "its content does not match its hash" in pdf_text(built.path, built.pages - 1)


def test_pages_render_to_png(whole, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, built, _ = whole
    pngs = render_png(built.path, tmp_path)
    assert len(pngs) == built.pages


def test_win_by_hour_fills_quiet_hours_and_folds_long_periods_by_hour_of_day() -> None:
    from datetime import datetime, timedelta

    from dealer_station.reports.shift import _hour_buckets

    start = datetime(2026, 3, 6, 17, tzinfo=UTC).astimezone()
    short, title = _hour_buckets({start: 500, start + timedelta(hours=3): -200})
    assert [v for _, v in short] == [500, 0, 0, -200]
    assert title.startswith("House win by hour")
    long, title = _hour_buckets({start: 500, start + timedelta(days=3): -200,
                                 start + timedelta(days=4, hours=1): 7})
    assert len(long) == 24 and sum(v for _, v in long) == 307
    assert dict(long)[f"{start.hour:02d}:00"] == 300
    assert "hour of day" in title
