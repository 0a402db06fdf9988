"""The significant events report: every significant event of one table in a period.

Significant events are the journal's (:func:`dealer_station.audit.journal.significant_kinds`:
start-ups and shut-downs, sign-ins and failures, lock-outs, devices, voids, corrections,
misreads, configuration changes, verifications, checkpoints, clock jumps), together with the
halts, resolutions, held cards, reneges and recoveries of rounds, which a regulator reads with
them.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from dealer_station.audit.journal import Journal, Record, significant_kinds
from dealer_station.events.table import halt_event_text
from dealer_station.reports.source import Period, coverage, covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid, p
from dealer_station.reports.text import describe_payload, local_short, zone_name
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification

#: Round exceptions that are not in the journal's significant set but belong on this report
#: (halts, resolutions and held cards are in it now; kept here for older readers of the list).
ALSO_KINDS = ("halt", "resolve", "card.held", "renege", "recovery")


def event_kinds() -> list[str]:
    return sorted(set(significant_kinds()) | set(ALSO_KINDS))


def _kind_and_details(e: Record) -> list[str]:
    """Kind, who and details of a row: a halt, its resolution and a held card in words (what
    stopped play or who resumed it, and why), any other record as its payload."""
    worded = halt_event_text(e.kind, e.payload, e.actor)
    if worded is not None:
        return [worded[0], e.actor, worded[1]]
    return [e.kind, e.actor, describe_payload(e.payload, skip=("meters", "content"))]


def build_events_report(journal: Journal, table: str, period: Period | None = None, *,
                        out: Path | str, paper: str = "A4",
                        background_above: int = BACKGROUND_ABOVE_RECORDS) -> BuiltReport:
    """Write the significant events of ``table`` in ``period`` (default: everything)."""
    period = period or Period()
    verification = Verification(journal, table, background_above=background_above)
    try:
        cov = coverage(journal, table, period)
        events = journal.events(table, period.since, period.until, event_kinds())
        if cov.last is not None:
            events = [e for e in events if e.seq <= cov.last.seq]
        r = ReportBuilder(kind="events", title="Significant events", table=table,
                          period=cov.label, subject=f"times in {zone_name()}", paper=paper)
        w = r.width
        counts = Counter(e.kind for e in events)
        r.add(facts([("Table", table), ("Period", cov.label),
                     ("Events", f"{len(events):,}"),
                     ("Kinds listed", ", ".join(event_kinds()).replace(".*", ".(any)"))]))
        r.heading("Events by kind")
        r.add(grid(["Kind", "Count"], [[k, f"{n:,}"] for k, n in sorted(counts.items())]
                   or [["none", "0"]], [w * 0.3, w * 0.12], numeric=(1,)))
        r.heading(f"Events in order ({len(events):,})")
        if events:
            rows = [[local_short(e.ts), f"{e.seq:,}", "" if e.round_no is None
                     else str(e.round_no), *_kind_and_details(e)] for e in events]
            r.add(grid(["Time", "Record", "Round", "Kind", "Who", "Details"], rows,
                       [w * 0.17, w * 0.08, w * 0.08, w * 0.17, w * 0.19, w * 0.31],
                       numeric=(1, 2), wrap=(3, 4, 5)))
        else:
            r.add(p("No significant events in the period."))
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=events, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Reviewed by",))
    finally:
        verification.cancel()
