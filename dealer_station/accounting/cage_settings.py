"""Who signs a fill or credit, and how its slip is copied: the jurisdiction's ``[cage]`` table
of ``config/accounting.toml`` (docs/accounting.md, "The cage").

```toml
[cage]
issue = ["cage"]                  # who signs the slip at the cage, against the request
runner = ["security"]             # who carries the chips (and the slip) to the table
receipt = ["dealer", "supervisor"]  # who signs at the table on receipt
void = ["supervisor", "cage"]     # the two who sign a void
copies = ["Original: cage", "Duplicate: table drop box", "Triplicate: accounting"]
alert_minutes = 15                # a request not received within this is an alert
```

Each list names a role per signature, in the order the slip prints them; "supervisor" is
also signed by an operator, as at the table. With ``issue`` and ``runner`` empty the table's
two signatures suffice (a jurisdiction without a cage workflow): fills and credits are then
recorded at the table in one step, as ``dealer-station accounting fill`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer_station.tomlconfig import Section

#: The roles a signature may name (the users' roles).
SIGNING_ROLES = ("dealer", "supervisor", "operator", "accounting", "cage", "security")
MICS_COPIES = ("Original: cage", "Duplicate: table drop box", "Triplicate: accounting")


@dataclass(frozen=True, slots=True)
class CageSettings:
    issue: tuple[str, ...] = ("cage",)
    runner: tuple[str, ...] = ("security",)
    receipt: tuple[str, ...] = ("dealer", "supervisor")
    void: tuple[str, ...] = ("supervisor", "cage")
    copies: tuple[str, ...] = MICS_COPIES
    alert_minutes: int = 15

    @property
    def through_cage(self) -> bool:
        """Whether slips are issued by the cage against a request (else signed at the table
        in one step)."""
        return bool(self.issue or self.runner)


#: The table-signed jurisdiction: a fill or credit is two signatures at the table.
TABLE_SIGNED = CageSettings(issue=(), runner=(), void=("supervisor", "supervisor"))


def may_sign(role: str, slot: str) -> bool:
    """Whether a user of ``role`` may sign a ``slot`` signature (an operator stands for a
    supervisor, as everywhere at the table)."""
    return role == slot or (slot == "supervisor" and role == "operator")


def cage_from(sec: Section) -> CageSettings:
    mics = CageSettings()

    def roles(name: str, default: tuple[str, ...], *, exactly: int | None = None
              ) -> tuple[str, ...]:
        raw = sec.list(name, list(default))
        for i, r in enumerate(raw):
            if r not in SIGNING_ROLES:
                raise sec.error(f"{name}[{i}]", f"{r!r} is not a role: one of "
                                                f"{', '.join(SIGNING_ROLES)}")
        if exactly is not None and len(raw) != exactly:
            raise sec.error(name, f"names {exactly} signatures, got {len(raw)}")
        return tuple(raw)

    issue = roles("issue", mics.issue)
    runner = roles("runner", mics.runner)
    if runner and not issue:
        raise sec.error("runner", "needs the cage's signature (issue) too: the runner carries "
                                  "what the cage issued")
    receipt = roles("receipt", mics.receipt)
    if not receipt:
        raise sec.error("receipt", "needs at least one signature at the table")
    void = roles("void", mics.void, exactly=2)
    copies = sec.list("copies", list(MICS_COPIES))
    if not copies:
        raise sec.error("copies", "needs at least one copy")
    for i, c in enumerate(copies):
        if not isinstance(c, str) or not c.strip() or len(c) > 60:
            raise sec.error(f"copies[{i}]", f"must be a copy's designation of 1 to 60 "
                                            f"characters, got {c!r}")
    minutes = sec.int("alert_minutes", mics.alert_minutes, minimum=1)
    sec.finish()
    return CageSettings(issue, runner, receipt, void, tuple(c.strip() for c in copies),
                        minutes)
