"""The shift report's figures summed by its verification's ranges as they read the chain
(``reports/shift_tally.py``) must be exactly the figures one pass over the journal gives: for
the whole journal and for periods, with rounds opened in one range and closed in the next, on
a journal made by ``simulate`` plus a correction, a void after a device fault and a
configuration change."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from test_reports_journal import (  # noqa: F401  (report_journal, opened are fixtures)
    TABLE,
    JournalFiles,
    opened,
    report_journal,
)

from dealer_station.audit.journal import Journal
from dealer_station.reports.shift import ShiftData, build_shift_report, gather, tally_collector
from dealer_station.reports.shift_tally import ShiftTally, merged
from dealer_station.reports.source import Period, coverage
from dealer_station.reports.verification import Verification


def _figures(data: ShiftData) -> dict[str, Any]:
    d = asdict(data)
    for name in ("coverage", "version_info", "recorded", "exceptions", "money"):
        d.pop(name, None)
    return d


def _periods(files: JournalFiles) -> list[Period]:
    return [Period(), Period(None, files.gap_start), Period(files.gap_start, None)]


@pytest.mark.parametrize("workers", [2, 5])
def test_ranges_sum_what_one_pass_sums(report_journal: JournalFiles, opened: Journal,  # noqa: F811
                                       workers: int) -> None:
    for period in _periods(report_journal):
        cov = coverage(opened, TABLE, period)
        assert cov.last is not None
        check = Verification(opened, TABLE, background_above=0, workers=workers, chunk=64,
                             collect=tally_collector(period, cov.last.seq))
        parts = check.collected()
        assert check.method == "ranges" and parts is not None and len(parts) == workers
        # some round is opened in one range and closed in a later one
        assert any(p["orphans"] for p in parts[1:])
        ranged = gather(opened, TABLE, period, ranges=check)
        alone = gather(opened, TABLE, period)
        assert _figures(ranged) == _figures(alone)
        assert ranged.rounds_played > 0 or period != Period()


def test_the_report_built_in_ranges_matches_the_one_built_in_one_walk(
        report_journal: JournalFiles, opened: Journal, tmp_path: Path) -> None:  # noqa: F811
    ranged = build_shift_report(opened, TABLE, out=tmp_path / "ranges.pdf", background_above=0)
    walked = build_shift_report(opened, TABLE, out=tmp_path / "walk.pdf",
                                background_above=10**9)
    assert ranged.verification == walked.verification and ranged.verification.ok
    assert _figures(ranged.data) == _figures(walked.data)


def test_a_tally_survives_the_trip_between_processes(opened: Journal) -> None:  # noqa: F811
    """What a range prints and the report reads back is the same tally."""
    cov = coverage(opened, TABLE, Period())
    assert cov.last is not None
    check = Verification(opened, TABLE, background_above=0, workers=2, chunk=64,
                         collect=tally_collector(Period(), cov.last.seq))
    parts = check.collected()
    assert parts is not None
    for p in parts:
        assert ShiftTally.from_json(p).to_json() == p
    assert merged(parts).rounds_settled > 0


def test_no_tally_when_the_chain_is_not_intact(report_journal: JournalFiles,  # noqa: F811
                                               tmp_path: Path) -> None:
    import sqlite3

    from test_reports_journal import copy_journal

    files = copy_journal(report_journal, tmp_path)
    db = sqlite3.connect(files.url.removeprefix("sqlite:///"))
    db.execute("UPDATE journal SET actor='mallory/dealer' WHERE table_id=? AND seq=300",
               (TABLE,))
    db.commit()
    db.close()
    journal, handle = files.open()
    try:
        cov = coverage(journal, TABLE, Period())
        assert cov.last is not None
        check = Verification(journal, TABLE, background_above=0, workers=2,
                             collect=tally_collector(Period(), cov.last.seq))
        assert check.collected() is None and check.method == "walk"
        # the figures are then read from the journal itself, as they stand
        data = gather(journal, TABLE, Period(), ranges=check)
        assert data.rounds_played == gather(journal, TABLE, Period()).rounds_played > 0
    finally:
        handle.close()  # type: ignore[attr-defined]
