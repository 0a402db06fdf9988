"""One way in: outside the journal's own modules, the station writes records only through
``Journal.write`` (typed events, and records a user's adoption copies as the floor holds
them); the chain's raw ``append`` and ``append_many`` are the journal's own."""

from __future__ import annotations

import ast
from pathlib import Path

import dealer_station

PACKAGE = Path(dealer_station.__file__).resolve().parent
RAW = {"append", "append_many"}


def _raw_writes(source: str) -> list[int]:
    """Lines calling ``<...>journal.append(...)`` or ``<...>journal.append_many(...)``."""
    found = []
    for n in ast.walk(ast.parse(source)):
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in RAW):
            receiver = n.func.value
            name = (receiver.attr if isinstance(receiver, ast.Attribute)
                    else receiver.id if isinstance(receiver, ast.Name) else "")
            if name.endswith("journal") or name in ("j", "journal"):
                found.append(n.lineno)
    return found


def test_the_finder_finds_a_raw_write() -> None:
    assert _raw_writes('self.journal.append("T1", "void", {}, "x")\n') == [1]
    assert _raw_writes("store.journal.append_many(t, facts)\n") == [1]
    assert _raw_writes("rows.append(x)\nself.journal.write(t, [e])\n") == []


def test_the_station_writes_only_through_journal_write() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] == "audit" and rel.name.startswith("journal"):
            continue              # the chain itself
        offenders += [f"{rel}:{line}" for line in _raw_writes(path.read_text())]
    assert offenders == []
