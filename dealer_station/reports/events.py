"""The significant events report: every significant event of one table in a period.

Significant events are the journal's (:func:`dealer_station.audit.journal.significant_kinds`:
start-ups and shut-downs, sign-ins and failures, lock-outs, devices, voids, corrections,
misreads, configuration changes, verifications, checkpoints, clock jumps), together with the
halts, resolutions, held cards, reneges and recoveries of rounds, the opening and closing of
sessions and what became of the pot a session left, which a regulator reads with them.

A table's report also lists the user administration that concerns it: users are added, given
a role, deactivated and unlocked in the station's own chain (``station``), and any of them may
then sign in at the table. Those rows name their record as "station N".

A player's misplay names her seat and, when the table knows it (players are named at their
seats when a session opens), the player: "seat 3 (Ann Example)", never "she".
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer_station.audit.journal import Journal, Record, significant_kinds
from dealer_station.events.table import halt_event_text
from dealer_station.reports.cells import fitted
from dealer_station.reports.source import Period, coverage, covered_records
from dealer_station.reports.template import BuiltReport, ReportBuilder, facts, grid, p
from dealer_station.reports.text import describe_payload, local_short, name_the_player, zone_name
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification
from dealer_station.table.recall_model import record_label

#: Round and session events that are not in the journal's significant set but belong on this
#: report (halts, resolutions and held cards are in it now; kept for older readers of the list).
ALSO_KINDS = ("halt", "resolve", "card.held", "renege", "recovery", "session.open",
              "session.close", "pot.carry", "pot.return")
#: The station's chain, where users are administered.
STATION = "station"
#: User administration that concerns every table (a user added anywhere may sign in here).
USER_KINDS = ("user.add", "user.role", "user.deactivate", "user.unlock")
#: Payload fields never printed: a PIN's keyed hash is not for paper.
SECRET_FIELDS = ("pin_mac", "pin_hash", "salt")
_SEAT_ACTOR = re.compile(r"^seat:(\d+)$")

#: What people call each kind (``record_label`` has the rounds' own).
KIND_WORDS = {
    "startup": "Station started", "shutdown": "Station shut down", "login": "Signed in",
    "login.failed": "Sign-in refused", "logout": "Signed out", "lockout": "Locked out",
    "user.add": "User added", "user.role": "User's role changed",
    "user.deactivate": "User deactivated", "user.unlock": "User unlocked",
    "config.change": "Configuration changed", "checkpoint": "Checkpoint",
    "verify": "Journal verified", "alert.ack": "Alert acknowledged",
    "device.state": "Device state", "device.status": "Device status",
}


def event_kinds() -> list[str]:
    return sorted(set(significant_kinds()) | set(ALSO_KINDS))


def kind_words(kind: str) -> str:
    """A kind as people read it ("Station started", "Renege"); the kind itself if unknown."""
    if kind in KIND_WORDS:
        return KIND_WORDS[kind]
    label = record_label(kind)
    return label if label != kind else kind.replace(".", " ").capitalize()


@dataclass(frozen=True)
class Seats:
    """Who sat where: each ``session.open``'s players, from its record on."""

    opens: list[Record]

    def named(self, seat: str, at_seq: int) -> str:
        opened = next((o for o in reversed(self.opens) if o.seq < at_seq), None)
        name = (opened.payload.get("players") or {}).get(seat) if opened else None
        return f"seat {seat} ({name})" if name and name != seat else f"seat {seat}"


def _who(e: Record, seats: Seats) -> str:
    m = _SEAT_ACTOR.match(e.actor)
    return seats.named(m.group(1), e.seq) if m and e.table_id != STATION else e.actor


def _details(e: Record, seats: Seats) -> str:
    payload: dict[str, Any] = {k: v for k, v in e.payload.items() if k not in SECRET_FIELDS}
    seat = payload.get("seat")
    if isinstance(payload.get("reason"), str) and seat is not None:
        # The rules' text says "she"; the paper names the player.
        who = seats.named(str(seat), e.seq)
        payload["reason"] = name_the_player(payload["reason"], who)
    return describe_payload(payload, skip=("meters", "content"))


def _row(e: Record, seats: Seats) -> list[str]:
    """Time, record, round, kind, who and details: a halt, its resolution and a held card in
    words (what stopped play or who resumed it, and why), any other record its payload."""
    record = f"{STATION} {e.seq:,}" if e.table_id == STATION else f"{e.seq:,}"
    head = [local_short(e.ts), record, "" if e.round_no is None else str(e.round_no)]
    worded = halt_event_text(e.kind, e.payload, e.actor)
    if worded is not None:
        return [*head, worded[0], _who(e, seats), worded[1]]
    return [*head, kind_words(e.kind), _who(e, seats), _details(e, seats)]


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
        seats = Seats(list(journal.records(table, kinds=["session.open"])))
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
            headers = ["Time", "Record", "Round", "Kind", "Who", "Details"]
            plain = [_row(e, seats) for e in events]
            fit = fitted(headers, plain, w, flex=(3, 4, 5))[0]
            # Kind and who a fixed share, details the rest: no column runs into the next.
            widths = [*fit[:3], w * 0.16, w * 0.2, w - sum(fit[:3]) - w * 0.36]
            _, rows = fitted(headers, plain, w, flex=(), also_wrap=(3, 4, 5), widths=widths)
            r.add(grid(headers, rows, widths, numeric=(1, 2)))
            if from_station:
                r.add(p("Rows whose record reads \"station N\" are user administration, "
                        "recorded in the station's chain (dealer-station audit verify --table "
                        "station checks it); every row was read with its keyed hash checked.",
                        "note"))
        else:
            r.add(p("No significant events in the period."))
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=events, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Reviewed by",))
    finally:
        verification.cancel()
