"""The significant events report: every significant event of one table in a period.

Significant events are the journal's (:func:`dealer_station.audit.journal.significant_kinds`:
start-ups and shut-downs, sign-ins and failures, lock-outs, devices, voids, corrections,
misreads, configuration changes, verifications, checkpoints, clock jumps), together with the
halts, resolutions, held cards, reneges and recoveries of rounds, the opening and closing of
sessions and what became of the pot a session left, which a regulator reads with them.

A table's report also lists the user administration that concerns it: users are added, given
a role, deactivated and unlocked in the station's own chain (``station``), and any of them may
then sign in at the table. Those rows name their record as "station N".

Every kind, person and detail is said as on the supervisor's Events tab and at the pit
(:mod:`dealer_station.events.wording`): "Signed out: back to the dealer" by "Sam Supervisor
(supervisor)", "Shoe ready" by "the shoe", never the journal's keys. A player's misplay names
her seat and, when the table knows it (players are named at their seats when a session
opens), the player: "seat 3 (Ann Example)", never "she".
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from dealer_station.audit.journal import Journal, Record, significant_kinds
from dealer_station.events.wording import People, event_words, kind_words
from dealer_station.reports.cells import fitted
from dealer_station.reports.pdf_style import p
from dealer_station.reports.source import Period, coverage, covered_records
from dealer_station.reports.template import (
    BuiltReport,
    ReportBuilder,
    TableCheck,
    facts,
    grid,
)
from dealer_station.reports.text import local_short, zone_name
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification

#: Round and session events that are not in the journal's significant set but belong on this
#: report (halts, resolutions and held cards are in it now; kept for older readers of the list).
ALSO_KINDS = ("halt", "resolve", "card.held", "renege", "recovery", "session.open",
              "session.close", "pot.carry", "pot.return")
#: The station's chain, where users are administered.
STATION = "station"
#: User administration that concerns every table (a user added anywhere may sign in here).
USER_KINDS = ("user.add", "user.role", "user.deactivate", "user.unlock")

def event_kinds() -> list[str]:
    return sorted(set(significant_kinds()) | set(ALSO_KINDS))


def people(journal: Journal, table: str) -> People:
    """Who is who: every user the station's chain names, and the players each of the
    table's sessions seated."""
    return People.of([*journal.records(STATION, kinds=["user.add"]),
                      *journal.records(table, kinds=["session.open"])])


def _row(e: Record, who: People) -> list[str]:
    """Time, record, round, what, who and the whole detail, in words."""
    record = f"{STATION} {e.seq:,}" if e.table_id == STATION else f"{e.seq:,}"
    words = event_words(e, who)
    return [local_short(e.ts), record, "" if e.round_no is None else str(e.round_no),
            words.what, words.who, words.detail]


def gather_events(journal: Journal, table: str, period: Period, last_seq: int | None
                  ) -> list[Record]:
    """The table's events in the period (to ``last_seq``) and the station's user
    administration in it, in time order."""
    events = journal.events(table, period.since, period.until, event_kinds())
    if last_seq is not None:
        events = [e for e in events if e.seq <= last_seq]
    if table != STATION:
        events += journal.events(STATION, period.since, period.until, USER_KINDS)
        events.sort(key=lambda e: (e.ts, e.table_id != table, e.seq))
    return events


def build_events_report(journal: Journal, table: str, period: Period | None = None, *,
                        out: Path | str, paper: str = "A4",
                        background_above: int = BACKGROUND_ABOVE_RECORDS) -> BuiltReport:
    """Write the significant events of ``table`` in ``period`` (default: everything)."""
    period = period or Period()
    verification = Verification(journal, table, background_above=background_above)
    try:
        cov = coverage(journal, table, period)
        events = gather_events(journal, table, period, cov.last.seq if cov.last else None)
        who = people(journal, table)
        r = ReportBuilder(kind="events", title="Significant events", table=table,
                          period=cov.label, subject=f"times in {zone_name()}", paper=paper)
        w = r.width
        counts = Counter(e.kind for e in events)
        from_station = sum(1 for e in events if e.table_id == STATION and table != STATION)
        r.add(facts([("Table", table), ("Period", cov.label),
                     ("Events", f"{len(events):,}" + (
                         f" ({from_station:,} of them user administration, from the "
                         f"station's chain)" if from_station else "")),
                     ("Kinds listed", ", ".join(event_kinds()).replace(".*", ".(any)"))]))
        r.heading("Events by kind")
        r.add(grid(["Kind", "Record kind", "Count"],
                   [[kind_words(k), k, f"{n:,}"] for k, n in sorted(counts.items())]
                   or [["none", "", "0"]], [w * 0.3, w * 0.2, w * 0.12], numeric=(2,)))
        r.heading(f"Events in order ({len(events):,})")
        if events:
            headers = ["Time", "Record", "Round", "What", "Who", "Details"]
            plain = [_row(e, who) for e in events]
            fit = fitted(headers, plain, w, flex=(3, 4, 5))[0]
            # Kind and who a fixed share, details the rest: no column runs into the next.
            widths = [*fit[:3], w * 0.16, w * 0.2, w - sum(fit[:3]) - w * 0.36]
            _, rows = fitted(headers, plain, w, flex=(), also_wrap=(3, 4, 5), widths=widths)
            r.add(grid(headers, rows, widths, numeric=(1, 2)))
            if from_station:
                r.add(p("Rows whose record reads \"station N\" are user administration, "
                        "recorded in the station's chain. That chain is verified in full "
                        "beside the table's, and its records of the period are attached "
                        "(journal-records-station.jsonl), as the table's are.", "note"))
        else:
            r.add(p("No significant events in the period."))
        if from_station:
            # Rows of the station's chain are printed only with that chain walked in full
            # and its records attached: the last page verifies both chains (the table's
            # last, so that the report's own record is the table's).
            scov = coverage(journal, STATION, period)
            return r.build_tables(out, [
                TableCheck(journal.verify_table(STATION), scov.first, scov.last,
                           covered_records(journal, STATION, scov.first, scov.last)),
                TableCheck(verification.result(), cov.first, cov.last,
                           covered_records(journal, table, cov.first, cov.last))],
                data=events, signatures=("Reviewed by",))
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=events, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Reviewed by",))
    finally:
        verification.cancel()
