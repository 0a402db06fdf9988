"""Checks a regulator runs on the journal: replay every round, and recompute the meters.

Both read only the journal. Replay re-settles each round from its journaled inputs (wagers,
cards, plays) under the configuration version it was played with and lists every difference
from what was recorded as paid; the meters check sums what replay settles and compares it with
the stored meters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from dealer_station import registry as games
from dealer_station.audit.journal import Journal, MeterDelta, Record
from dealer_station.errors import StationError
from dealer_station.events.rows import opening
from dealer_station.table.parts import REPLAY

T = TypeVar("T")


@dataclass
class ReplayReport:
    table_id: str
    rounds: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    meters: dict[str, list[int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.differences

    def add_meters(self, deltas: Mapping[str, MeterDelta]) -> None:
        for key, d in deltas.items():
            acc = self.meters.setdefault(key, [0, 0, 0, 0])
            acc[0] += d.rounds
            acc[1] += d.wagered
            acc[2] += d.paid
            acc[3] += int(d.house_win or 0)


def rounds_of(journal: Journal, table_id: str) -> Iterator[list[Record]]:
    """Each round's records, in order (a round's records share its round number)."""
    current: list[Record] = []
    for rec in journal.records(table_id):
        if rec.round_no is None:
            continue
        if current and rec.round_no != current[0].round_no:
            yield current
            current = []
        current.append(rec)
    if current:
        yield current


class _Configs:
    """The table's configuration versions as a replay reads them (table/parts.py's
    StoredConfigs), each parsed once."""

    def __init__(self, journal: Journal, table_id: str) -> None:
        self.journal, self.table_id = journal, table_id
        self.cache: dict[str, Any] = {}

    def get(self, version: str, parse: Callable[[Mapping[str, Any], str], T]) -> T:
        if version not in self.cache:
            stored = self.journal.config(self.table_id, version)
            if stored is None:
                raise LookupError(f"configuration version {version[:12]} is not in the journal")
            self.cache[version] = parse(stored.content, "<journal>")
        found: T = self.cache[version]
        return found


def replay(journal: Journal, table_id: str) -> ReplayReport:
    report = ReplayReport(table_id)
    configs = _Configs(journal, table_id)
    for records in rounds_of(journal, table_id):
        first = records[0]
        # Which game's replay reads the round is not known before its opening is read: every
        # game's opening names it.
        opened = opening(first.kind, first.payload)
        game = opened.game if opened is not None else None
        report.rounds += 1
        try:
            replayer = games.game(game).part(REPLAY)
            status, diffs, deltas = replayer(records, configs)
            report.add_meters(deltas)
        except (StationError, ValueError, LookupError, KeyError) as exc:
            status, diffs = "unreadable", [f"round {first.round_no}: cannot be replayed: {exc}"]
        report.by_status[status] = report.by_status.get(status, 0) + 1
        report.differences.extend(diffs)
    return report


def meter_differences(journal: Journal, table_id: str, report: ReplayReport) -> list[str]:
    """Where the stored meters differ from the sums replay recomputes."""
    stored = journal.meters(table_id)
    problems: list[str] = []
    for key in sorted(set(stored) | set(report.meters)):
        want = report.meters.get(key, [0, 0, 0, 0])
        m = stored.get(key)
        have = [m.rounds, m.wagered, m.paid, m.house_win] if m else [0, 0, 0, 0]
        if have != want:
            names = ("rounds", "wagered", "paid", "house win")
            diff = ", ".join(f"{n} stored {h} recomputed {w}"
                             for n, h, w in zip(names, have, want, strict=True) if h != w)
            problems.append(f"meter {key}: {diff}")
    return problems
