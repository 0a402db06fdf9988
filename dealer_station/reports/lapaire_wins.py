"""Each La Pair'e round's computed and theoretical win, from its journal records.

Computed win is the round's closing meters (stakes lost - amounts paid; a void's returned
wagers count nothing, stages settled before it stand). Theoretical win is each settled wager's
stake x the house edge of its own spot, from the exact par sheet of the configuration version
the round was opened under. Records are checked against their keyed hashes as they are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import func, select

from dealer_station.audit import schema
from dealer_station.audit.journal import Journal, iso_utc
from dealer_station.settlement.lapaire_config import parse_lapaire_config
from dealer_station.settlement.lapaire_math import par_sheet

J = schema.journal
CLOSE_KINDS = ("round.close", "void")
READ_KINDS = ("round.open", "wager.place", "stage.settle", *CLOSE_KINDS)
_COLS = (J.c.table_id, J.c.seq, J.c.ts, J.c.actor, J.c.kind, J.c.round_no, J.c.payload,
         J.c.prev_hash, J.c.hash)


@dataclass(frozen=True, slots=True)
class RoundWin:
    round_no: int
    opened: str
    closed: str
    dealer: str
    status: str
    wagered: int
    paid: int
    computed_win: int
    theoretical_win: Fraction
    #: Per wager kind: (stakes settled, theoretical win).
    by_kind: tuple[tuple[str, int, Fraction], ...] = ()

    @property
    def returned(self) -> int:
        """Stakes of winning wagers, handed back with the win."""
        return self.wagered - self.paid - self.computed_win


class EdgeBook:
    """Each spot's house edge per configuration version (computed once per version)."""

    def __init__(self, journal: Journal, table_id: str) -> None:
        self.versions = {cv.version: cv for cv in journal.config_versions(table_id)}
        self._edges: dict[str, dict[tuple[str, tuple[str, ...]], Fraction]] = {}

    def edges(self, version: str) -> dict[tuple[str, tuple[str, ...]], Fraction]:
        found = self._edges.get(version)
        if found is None:
            cv = self.versions.get(version)
            found = {} if cv is None else {
                (row.bet, tuple(row.values)): row.house_edge
                for row in par_sheet(parse_lapaire_config(dict(cv.content), "<journal>"))}
            self._edges[version] = found
        return found


def round_wins(journal: Journal, table_id: str, since: datetime | None,
               until: datetime | None, edges: EdgeBook | None = None) -> list[RoundWin]:
    """The rounds of ``table_id`` that closed in ``[since, until)`` (None: open-ended), in
    order."""
    s = iso_utc(since) if since is not None else ""
    u = iso_utc(until) if until is not None else "~"   # after every stored time
    with journal.db.read() as conn:
        lo, hi = conn.execute(select(func.min(J.c.round_no), func.max(J.c.round_no)).where(
            J.c.table_id == table_id, J.c.kind.in_(CLOSE_KINDS), J.c.ts >= s,
            J.c.ts < u)).one()
    if lo is None:
        return []
    book = edges or EdgeBook(journal, table_id)
    stmt = (select(*_COLS).where(J.c.table_id == table_id, J.c.round_no >= lo,
                                 J.c.round_no <= hi, J.c.kind.in_(READ_KINDS))
            .order_by(J.c.seq))
    out: list[RoundWin] = []
    opened: dict[int, tuple[str, str, str]] = {}
    stakes: dict[int, dict[int, tuple[int, str, tuple[str, ...]]]] = {}
    theo: dict[int, Fraction] = {}
    kinds: dict[int, dict[str, list[Any]]] = {}
    with journal.db.engine.connect() as conn:
        rows = conn.execution_options(yield_per=5000).execute(stmt)
        for r in journal.authentic(rows):
            n = int(r.round_no or 0)
            p: Any = r.payload
            if r.kind == "round.open":
                opened[n] = (r.ts, str(p["config_version"]), str(p["dealer"]))
                stakes[n] = {}
                theo[n] = Fraction(0)
                kinds[n] = {}
            elif r.kind == "wager.place":
                stakes.setdefault(n, {})[int(p["wager_id"])] = (
                    int(p["amount"]), str(p["bet"]), tuple(p["values"]))
            elif r.kind == "stage.settle":
                if n not in opened:
                    continue
                table = book.edges(opened[n][1])
                for res in p["results"]:
                    amount, bet, values = stakes[n][int(res["wager_id"])]
                    t = amount * table.get((bet, values), Fraction(0))
                    theo[n] += t
                    k = kinds[n].setdefault(bet, [0, Fraction(0)])
                    k[0] += amount
                    k[1] += t
            elif r.ts >= s and r.ts < u and n in opened:
                total = p.get("meters", {}).get("total", {})
                out.append(RoundWin(n, opened[n][0], r.ts, opened[n][2],
                                    "settled" if r.kind == "round.close" else "voided",
                                    int(total.get("wagered", 0)), int(total.get("paid", 0)),
                                    int(total.get("house_win", 0)), theo.get(n, Fraction(0)),
                                    tuple((k, v[0], v[1]) for k, v in
                                          sorted(kinds.get(n, {}).items()))))
    return out
