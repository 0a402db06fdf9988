"""Everything ``audit verify`` proves, as one list of findings: each table's chain and
checkpoints, the anchor file, each table's projections (rounds, meters, configuration
versions) and the users table. The command line, the supervisor's Verify tab and ``doctor``
show the same findings, so a person gets the same answer wherever they ask."""

from __future__ import annotations

from dataclasses import dataclass, field

from dealer_station.audit.journal import Journal, VerifyResult
from dealer_station.audit.users import Users

#: How many disagreeing projection rows are listed per table (the first ones).
PROJECTION_LINES = 5


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
    if table_id is None:
        for p in Users(journal).check_projection():
            add(Finding("users", False, f"users: projection FAILED: {p}"))
    return check
