"""Everything ``audit verify`` proves, as one list of findings: each table's chain and
checkpoints, the anchor file, each table's projections (rounds, meters, configuration
versions) and the users table. The command line, the supervisor's Verify tab and ``doctor``
show the same findings, so a person gets the same answer wherever they ask."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer_station.audit.journal import Journal, VerifyResult
from dealer_station.audit.users import Users
from dealer_station.events.base import Codec, Event
from dealer_station.events.station import ProjectionsRebuilt, UserRowMismatch, Verified

#: How many disagreeing projection rows are listed per table (the first ones).
PROJECTION_LINES = 5
#: Significant records saying the station repaired a projection from the chain.
REPAIRS = Codec((ProjectionsRebuilt, UserRowMismatch))
REPAIR_KINDS = list(REPAIRS.classes)


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the verification. ``ok`` False means the journal, or something beside it
    that the station acts on, was altered; a warning is ``ok`` with ``warning`` set."""

    scope: str           # "table T1", "anchor file ...", "users"
    ok: bool
    text: str
    warning: bool = False

    def __str__(self) -> str:
        return self.text


@dataclass(slots=True)
class WholeCheck:
    results: list[VerifyResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.findings)

    def record_payload(self, result: VerifyResult, *, projections: bool = False
                       ) -> dict[str, object]:
        """The ``verify`` record a person's verification leaves on a table's chain (with
        ``projections``: whether that table's rows beside the chain agreed too)."""
        found: dict[str, object] = {"last_seq": result.last_seq, "bad_seq": result.bad_seq,
                                    "problem": result.problem}
        if projections:
            found["projections_ok"] = all(f.ok for f in self.findings
                                          if f.scope == f"table {result.table_id}")
        return Verified(result.ok, result.records, found).to_payload()


def _repair(e: Event) -> str:
    """What a ``projection.mismatch`` or ``user.mismatch`` record says was found."""
    if isinstance(e, ProjectionsRebuilt) and e.problems:
        problems = e.problems
        return (f"the station found rows beside the chain altered and rewrote them from it: "
                f"{problems[0]}" + (f" (and {len(problems) - 1} more)" if len(problems) > 1
                                    else ""))
    # A user row's mismatch keeps what was found whole (its keys vary with the case).
    found = e.found if isinstance(e, UserRowMismatch) else {}
    return (f"the station found user {found.get('user_id')}'s row altered ("
            f"{found.get('field')} {found.get('row')}, the journal says "
            f"{found.get('chain')}) and acted on the journal")


def check_everything(journal: Journal, table_id: str | None = None) -> WholeCheck:
    """Verify the chain of ``table_id`` (every table when None) and everything kept beside it.
    Users are checked only when every table is (they live on the station's own chain)."""
    check = WholeCheck(results=journal.verify(table_id))
    add = check.findings.append
    for problem in journal.anchor_problems:
        scope = f"anchor file {journal.anchor_path}"
        add(Finding(scope, not problem.forged,
                    f"{scope}: {'FAILED' if problem.forged else 'warning'}: {problem}",
                    warning=not problem.forged))
    for result in check.results:
        scope = f"table {result.table_id}"
        add(Finding(scope, result.ok, str(result)))
        disagreements = [str(d) for d in journal.check_projections(result.table_id)]
        for d in disagreements[:PROJECTION_LINES]:
            add(Finding(scope, False, f"{scope}: projection FAILED: {d}"))
        if len(disagreements) > PROJECTION_LINES:
            add(Finding(scope, False, f"{scope}: ... and "
                                      f"{len(disagreements) - PROJECTION_LINES} more projection "
                                      f"row(s) that disagree with the journal"))
        if not disagreements and result.ok:
            add(Finding(scope, True, f"{scope}: projections agree with the journal"))
        if result.ok:
            # Rows the station found altered and rewrote from the chain: nothing was acted on
            # from them, but someone changed the database, and a regulator is told.
            for rec in journal.events(result.table_id, kinds=REPAIR_KINDS):
                add(Finding(scope, True, f"{scope}: warning: record {rec.seq} ({rec.kind}, "
                                         f"{rec.ts}): "
                                         f"{_repair(REPAIRS.decode(rec.kind, rec.payload))}",
                            warning=True))
    if table_id is None:
        for p in Users(journal).check_projection():
            add(Finding("users", False, f"users: projection FAILED: {p}"))
    return check
