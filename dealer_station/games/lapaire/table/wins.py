"""Each La Pair'e round's computed and theoretical win, from its journal records.

Computed win is the round's closing meters (stakes lost - amounts paid; a void's returned
wagers count nothing, stages settled before it stand). Theoretical win is each settled wager's
stake x the house edge of its own spot, from the exact par sheet of the configuration version
the round was opened under. Records are checked against their keyed hashes as they are read.
"""

from __future__ import annotations

import json
import json.scanner
from datetime import datetime
from fractions import Fraction
from math import lcm
from typing import Any

from sqlalchemy import func, select

from dealer_station.audit import schema
from dealer_station.audit.hashing import table_record_hasher
from dealer_station.audit.journal import Journal, JournalTampered, iso_utc
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.raw_rows import raw_rows
from dealer_station.events.rows import closing_meters
from dealer_station.games.lapaire import events as ev
from dealer_station.games.lapaire.events import CODEC
from dealer_station.games.lapaire.rules.config import parse_lapaire_config
from dealer_station.games.lapaire.rules.house_math import par_sheet
from dealer_station.table.wins import RoundWin

J = schema.journal
CLOSE_KINDS = (ev.RoundClosed.KIND, ev.RoundVoided.KIND)
READ_KINDS = (ev.RoundOpened.KIND, ev.WagerPlaced.KIND, ev.StageSettled.KIND, *CLOSE_KINDS)


class EdgeBook:
    """Each spot's house edge per configuration version (computed once per version), scaled
    to whole numbers over one denominator per version, so that summing a month of wagers
    stays in integers."""

    def __init__(self, journal: Journal, table_id: str) -> None:
        self.versions = {cv.version: cv for cv in journal.config_versions(table_id)}
        self._edges: dict[str, tuple[dict[tuple[str, tuple[str, ...]], int], int]] = {}

    def edges(self, version: str) -> tuple[dict[tuple[str, tuple[str, ...]], int], int]:
        """({(bet, values): edge x denominator}, denominator)."""
        found = self._edges.get(version)
        if found is None:
            cv = self.versions.get(version)
            rows = {} if cv is None else {
                (row.bet, tuple(row.values)): row.house_edge
                for row in par_sheet(parse_lapaire_config(dict(cv.content), "<journal>"))}
            den = 1
            for e in rows.values():
                den = lcm(den, e.denominator)
            found = ({k: int(e * den) for k, e in rows.items()}, den)
            self._edges[version] = found
        return found


def round_wins(journal: Journal, table_id: str, since: datetime | None,
               until: datetime | None, edges: EdgeBook | None = None, *,
               check_hashes: bool = True) -> list[RoundWin]:
    """The rounds of ``table_id`` that closed in ``[since, until)`` (None: open-ended), in
    order. Raises JournalTampered on a record that does not match its keyed hash, unless
    ``check_hashes`` is off (a report that verifies the whole chain itself and prints the
    result on every page, as the shift report does)."""
    s = iso_utc(since) if since is not None else ""
    u = iso_utc(until) if until is not None else "~"   # after every stored time
    with journal.db.read() as conn:
        lo, hi = conn.execute(select(func.min(J.c.round_no), func.max(J.c.round_no)).where(
            J.c.table_id == table_id, J.c.kind.in_(CLOSE_KINDS), J.c.ts >= s,
            J.c.ts < u)).one()
    if lo is None:
        return []
    book = edges or EdgeBook(journal, table_id)
    key = journal.key
    hasher = table_record_hasher(key.secret if isinstance(key, JournalKey) else bytes(key),
                                 table_id)
    # The station writes canonical JSON (no leading space): its C scanner reads it directly.
    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]

    def loads(text: str) -> Any:
        try:
            return scan(text, 0)[0]
        except StopIteration:    # what the scanner raises for text that is not JSON
            raise ValueError(f"table {table_id}: a record's payload is not JSON") from None
    out: list[RoundWin] = []
    opened: dict[int, tuple[str, str, str]] = {}
    stakes: dict[int, tuple[int, str, tuple[str, ...]]] = {}
    edge: dict[tuple[str, tuple[str, ...]], int] = {}
    den = 1
    theo = 0
    kinds: dict[str, list[int]] = {}
    current = -1
    for seq, ts, actor, kind, round_no, payload, prev_hash, h in raw_rows(
            journal, table_id, rounds=(lo, hi), kinds=READ_KINDS, cursor="lapaire_wins"):
        if check_hashes and hasher(seq, ts, actor, kind, round_no, payload, prev_hash) != h:
            raise JournalTampered(
                f"table {table_id} record {seq} ({kind}) does not match its hash: the "
                f"journal was changed without the key (or --key is not this journal's key); "
                f"run `dealer-station audit verify`")
        n = int(round_no)
        stored: Any = loads(payload)
        # Each record is picked by its event class, its fields read from the parsed payload
        # without decoding it (the events module says why).
        cls = CODEC.classes[kind]
        if cls is ev.RoundOpened:
            opened[n] = (ts, *ev.opened_version_and_dealer(stored))
            stakes, theo, kinds, current = {}, 0, {}, n
            edge, den = book.edges(opened[n][1])
        elif n != current:
            continue    # the end of a round opened before the first one asked for
        elif cls is ev.WagerPlaced:
            wager_id, amount, bet, values = ev.placed_stake(stored)
            stakes[wager_id] = (amount, bet, values)
        elif cls is ev.StageSettled:
            for wager_id in ev.settled_wager_ids(stored):
                amount, bet, values = stakes[wager_id]
                t = amount * edge.get((bet, values), 0)
                theo += t
                k = kinds.get(bet)
                if k is None:
                    kinds[bet] = [amount, t]
                else:
                    k[0] += amount
                    k[1] += t
        elif s <= ts < u:
            total = (closing_meters(kind, stored) or {}).get("total", {})
            back = (sum(stakes[i][0] for i in ev.voided_returned_ids(stored))
                    if cls is ev.RoundVoided else 0)
            out.append(RoundWin(n, opened[n][0], ts, opened[n][2], cls.CLOSES,
                                int(total.get("wagered", 0)), int(total.get("paid", 0)),
                                int(total.get("house_win", 0)), Fraction(theo, den),
                                tuple((b, v[0], v[1]) for b, v in sorted(kinds.items())),
                                den, back))
    return out
