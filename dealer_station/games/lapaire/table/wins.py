"""Each La Pair'e round's computed and theoretical win, from its journal records.

Computed win is the round's closing meters (stakes lost - amounts paid; a void's returned
wagers count nothing, stages settled before it stand). Theoretical win is each settled wager's
stake x the house edge of its own spot, from the exact par sheet of the configuration version
the round was opened under. Records are checked against their keyed hashes as they are read.

Summed over spans of time (:meth:`RoundWins.by_span`, for the reports that need only sums),
the wagers are added up in SQL per configuration version and spot: a round closed with
``round.close``, opened once, with no wager taken back, has settled every wager placed in it
(the engine settles each wager once, and the round closes when the third card has settled
all of them); its closing meters, which the station makes from the same settlement, say so,
and are held to it: the stakes placed over a run of such rounds summed together must be
exactly the stakes their meters count as settled (every stake is above 0, and each wager
settled is one placed, so equal sums leave no wager placed and not settled). A round that is
not like that (a void, a wager taken back, a round closed or opened twice) and any run of
rounds whose meters do not agree are read wager by wager, as :func:`rounds_won` reads every
round, so the sums are always those of the rounds' :class:`RoundWin`.
"""

from __future__ import annotations

import json
import json.scanner
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from itertools import pairwise
from typing import Any

from sqlalchemy import Connection, func, select

from dealer_station.audit import schema
from dealer_station.audit.hashing import canonical_json, table_record_hasher
from dealer_station.audit.journal import Journal, JournalTampered, iso_utc
from dealer_station.audit.keys import JournalKey
from dealer_station.audit.raw_rows import COLUMNS, raw_rows
from dealer_station.events.rows import closing_meters
from dealer_station.games.lapaire import events as ev
from dealer_station.games.lapaire.events import CODEC
from dealer_station.games.lapaire.rules.config import parse_lapaire_config
from dealer_station.games.lapaire.rules.house_math import scaled_edges
from dealer_station.table.wins import RoundWin, Span, SpanWins

J = schema.journal
CLOSE_KINDS = (ev.RoundClosed.KIND, ev.RoundVoided.KIND)
READ_KINDS = (ev.RoundOpened.KIND, ev.WagerPlaced.KIND, ev.StageSettled.KIND, *CLOSE_KINDS)
#: What the sums over spans read of every round besides its wagers.
ROUND_KINDS = (ev.RoundOpened.KIND, ev.WagerRemoved.KIND, *CLOSE_KINDS)
#: After every stored time (``~`` sorts after the digits of any ISO time).
END_OF_TIME = "~"
#: Beyond any record's number: no bound.
NO_BOUND = 2**62
#: Rounds read wager by wager in one query at most (their numbers are the query's parameters).
ROUNDS_PER_QUERY = 500

Row = tuple[Any, ...]


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
            if cv is None:
                found = ({}, 1)
            else:
                try:
                    text = canonical_json(cv.content)
                except ValueError:   # not the station's canonical form: read it as it is
                    found = _scaled_edges.__wrapped__(json.dumps(cv.content))
                else:
                    found = _scaled_edges(text)
            self._edges[version] = found
        return found


@lru_cache(maxsize=64)
def _scaled_edges(content: str) -> tuple[dict[tuple[str, tuple[str, ...]], int], int]:
    """A configuration's par sheet as :meth:`EdgeBook.edges` gives it, once per content (the
    master game report reads a hundred tables played under one configuration)."""
    return scaled_edges(parse_lapaire_config(json.loads(content), "<journal>"))


def _payload_reader(table_id: str) -> Callable[[str], Any]:
    # The station writes canonical JSON (no leading space): its C scanner reads it directly.
    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]

    def loads(text: str) -> Any:
        try:
            return scan(text, 0)[0]
        except StopIteration:    # what the scanner raises for text that is not JSON
            raise ValueError(f"table {table_id}: a record's payload is not JSON") from None
    return loads


def _hash_check(journal: Journal, table_id: str) -> Callable[[Row], None]:
    key = journal.key
    hasher = table_record_hasher(key.secret if isinstance(key, JournalKey) else bytes(key),
                                 table_id)

    def check(row: Row) -> None:
        seq, ts, actor, kind, round_no, payload, prev_hash, h = row
        if hasher(seq, ts, actor, kind, round_no, payload, prev_hash) != h:
            raise JournalTampered(
                f"table {table_id} record {seq} ({kind}) does not match its hash: the "
                f"journal was changed without the key (or --key is not this journal's key); "
                f"run `dealer-station audit verify`")
    return check


def _walk(rows: Iterable[Row], table_id: str, book: EdgeBook,
          check: Callable[[Row], None] | None, keep: Callable[[str], bool]) -> list[RoundWin]:
    """Rounds wager by wager: ``rows`` are records of :data:`READ_KINDS` in sequence order; a
    round counts at each closing record whose time ``keep`` takes."""
    loads = _payload_reader(table_id)
    out: list[RoundWin] = []
    opened: dict[int, tuple[str, str, str]] = {}
    stakes: dict[int, tuple[int, str, tuple[str, ...]]] = {}
    edge: dict[tuple[str, tuple[str, ...]], int] = {}
    den = 1
    theo = 0
    kinds: dict[str, list[int]] = {}
    current = -1
    for row in rows:
        if check is not None:
            check(row)
        _, ts, _, kind, round_no, payload, _, _ = row
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
        elif keep(ts):
            total = (closing_meters(kind, stored) or {}).get("total", {})
            back = (sum(stakes[i][0] for i in ev.voided_returned_ids(stored))
                    if cls is ev.RoundVoided else 0)
            out.append(RoundWin(n, opened[n][0], ts, opened[n][2], cls.CLOSES,
                                int(total.get("wagered", 0)), int(total.get("paid", 0)),
                                int(total.get("house_win", 0)), Fraction(theo, den),
                                tuple((b, v[0], v[1]) for b, v in sorted(kinds.items())),
                                den, back))
    return out


def rounds_won(journal: Journal, table_id: str, since: datetime | None,
               until: datetime | None, edges: EdgeBook | None = None, *,
               check_hashes: bool = True) -> list[RoundWin]:
    """The rounds of ``table_id`` that closed in ``[since, until)`` (None: open-ended), in
    order. Raises JournalTampered on a record that does not match its keyed hash, unless
    ``check_hashes`` is off (a report that verifies the whole chain itself and prints the
    result on every page, as the shift report does)."""
    s = iso_utc(since) if since is not None else ""
    u = iso_utc(until) if until is not None else END_OF_TIME
    with journal.db.read() as conn:
        lo, hi = conn.execute(select(func.min(J.c.round_no), func.max(J.c.round_no)).where(
            J.c.table_id == table_id, J.c.kind.in_(CLOSE_KINDS), J.c.ts >= s,
            J.c.ts < u)).one()
    if lo is None:
        return []
    book = edges or EdgeBook(journal, table_id)
    rows = raw_rows(journal, table_id, rounds=(lo, hi), kinds=READ_KINDS, cursor="lapaire_wins")
    return _walk(rows, table_id, book, _hash_check(journal, table_id) if check_hashes else None,
                 lambda ts: s <= ts < u)


# --- sums over spans of time ------------------------------------------------------------------


class _Reads:
    """The queries of one sum over spans, all through one connection and so one snapshot.

    On SQLite, ``+column`` (and ``column || ''``) keeps the planner off that column's index
    where another index is far narrower: the kind and time index for a table's closing
    records, the round index for its wagers."""

    def __init__(self, conn: Connection, table_id: str, through: int) -> None:
        self.dbapi: Any = conn.connection.dbapi_connection
        self.error: type[Exception] = conn.dialect.loaded_dbapi.Error
        self.postgres = conn.dialect.name == "postgresql"
        self.mark = "%s" if self.postgres else "?"
        self.table_id = table_id
        self.through = through

    def _not_indexed(self, column: str, text: bool = False) -> str:
        if self.postgres:
            return column
        return f"{column} || ''" if text else f"+{column}"

    def _where(self, kinds: Sequence[str], rounds: tuple[int, int] | None = None,
               round_in: Sequence[int] = (), *, by_kind: bool = True,
               by_round: bool = True) -> tuple[str, list[Any]]:
        m = self.mark
        seq = self._not_indexed("seq")
        kind = "kind" if by_kind else self._not_indexed("kind", text=True)
        round_no = "round_no" if by_round else self._not_indexed("round_no")
        where = [f"table_id = {m}", f"{seq} >= 1 AND {seq} <= {m}",
                 f"{kind} IN ({', '.join([m] * len(kinds))})"]
        params: list[Any] = [self.table_id, self.through, *kinds]
        if rounds is not None:
            where.append(f"{round_no} >= {m} AND {round_no} <= {m}")
            params += list(rounds)
        if round_in:
            where.append(f"{round_no} IN ({', '.join([m] * len(round_in))})")
            params += list(round_in)
        return " AND ".join(where), params

    def _run(self, sql: str, params: Sequence[Any], name: str | None = None) -> Iterator[Row]:
        try:
            cur = (self.dbapi.cursor(name=name) if self.postgres and name
                   else self.dbapi.cursor())
            try:
                cur.execute(sql, tuple(params))
                while True:
                    rows = cur.fetchmany(5000)
                    if not rows:
                        break
                    yield from rows
            finally:
                cur.close()
        except self.error as e:
            # A payload the database cannot read as JSON: no record the station wrote.
            raise ValueError(f"table {self.table_id}: a record cannot be read ({e})") from None

    def _field(self, *path: str) -> str:
        """A field of the payload (``path``: its keys from the top): text as text, anything
        else as JSON text."""
        if self.postgres:
            at = "{" + ",".join(path) + "}"
            return (f"CASE WHEN jsonb_typeof(payload::jsonb #> '{at}') = 'string' "
                    f"THEN payload::jsonb #>> '{at}' ELSE (payload::jsonb #> '{at}')::text END")
        return f"json_extract(payload, '$.{'.'.join(path)}')"

    def round_range(self, since: str, until: str) -> tuple[int | None, int | None]:
        """The first and last round closed in ``[since, until)``."""
        where, params = self._where(CLOSE_KINDS, by_round=False)
        m = self.mark
        (row,) = list(self._run(f"SELECT MIN(round_no), MAX(round_no) FROM {J.name} "
                                f"WHERE {where} AND ts >= {m} AND ts < {m}",
                                [*params, since, until]))
        return row[0], row[1]

    def last_round(self) -> int:
        """The table's highest round number (its round index's last entry)."""
        (row,) = list(self._run(f"SELECT MAX(round_no) FROM {J.name} WHERE table_id = "
                                f"{self.mark}", [self.table_id]))
        return int(row[0] or 0)

    def rounds(self, rounds: tuple[int, int], checked: bool, narrow: bool) -> Iterator[Row]:
        """The opening, closing and taking-back records of rounds ``rounds`` (both
        included), in no order: (seq, ts, kind, round_no, the opening's configuration
        version, the closing's total meter as JSON text) and, ``checked``, the columns every
        record's hash is checked from, then the wagers' records (those columns, and None).
        ``narrow``: the rounds are few among the table's, read along the round index (else
        along the kind index, which holds only these kinds)."""
        columns = (f"{COLUMNS}, " if checked else "seq, ts, kind, round_no, ") + (
            f"CASE WHEN kind = '{ev.RoundOpened.KIND}' THEN {self._field('config_version')} "
            f"END, CASE WHEN kind IN ('{CLOSE_KINDS[0]}', '{CLOSE_KINDS[1]}') "
            f"THEN {self._field('meters', 'total')} END")
        where, params = self._where(ROUND_KINDS, rounds, by_kind=not narrow, by_round=narrow)
        yield from self._run(f"SELECT {columns} FROM {J.name} WHERE {where}", params,
                             name="lapaire_span_rounds")
        if checked:
            where, params = self._where((ev.WagerPlaced.KIND,), rounds, by_kind=False)
            yield from self._run(f"SELECT {COLUMNS}, NULL, NULL FROM {J.name} WHERE {where}",
                                 params, name="lapaire_span_wagers")

    def records(self, round_in: Sequence[int]) -> list[Row]:
        """Every record of :data:`READ_KINDS` of the rounds ``round_in``, in sequence order."""
        where, params = self._where(READ_KINDS, None, round_in, by_kind=False)
        rows = list(self._run(f"SELECT {COLUMNS} FROM {J.name} WHERE {where}", params))
        rows.sort(key=lambda row: row[0])
        return rows

    def stakes_by_spot(self, rounds: tuple[int, int]) -> list[Row]:
        """The wagers placed in rounds ``rounds`` (both included), per kind and spot: (bet,
        values as JSON text, stakes, wagers, wagers whose stake is a whole number above 0,
        wagers whose kind is text)."""
        where, params = self._where((ev.WagerPlaced.KIND,), rounds, by_kind=False)
        if self.postgres:
            sql = (f"SELECT j ->> 'bet', (j -> 'values')::text, "
                   f"SUM(CASE WHEN jsonb_typeof(j -> 'amount') = 'number' "
                   f"THEN (j ->> 'amount')::numeric END), COUNT(*), "
                   f"SUM(CASE WHEN jsonb_typeof(j -> 'amount') = 'number' "
                   f"AND (j ->> 'amount') ~ '^[1-9][0-9]*$' THEN 1 ELSE 0 END), "
                   f"SUM(CASE WHEN jsonb_typeof(j -> 'bet') = 'string' THEN 1 ELSE 0 END) "
                   f"FROM (SELECT payload::jsonb AS j FROM {J.name} WHERE {where}) AS w "
                   f"GROUP BY 1, 2")
        else:
            sql = (f"SELECT json_extract(payload, '$.bet'), json_extract(payload, '$.values'), "
                   f"SUM(json_extract(payload, '$.amount')), COUNT(*), "
                   f"SUM(json_type(payload, '$.amount') = 'integer' "
                   f"AND json_extract(payload, '$.amount') > 0), "
                   f"SUM(json_type(payload, '$.bet') = 'text') "
                   f"FROM {J.name} WHERE {where} GROUP BY 1, 2")
        return list(self._run(sql, params))


@dataclass
class _Round:
    """What a round's own records say, for the sums over spans."""

    opens: list[tuple[int, str]] = field(default_factory=list)         # (seq, version)
    closes: list[tuple[int, str, str, str | None]] = field(default_factory=list)  # seq, ts,
    removed: bool = False                                              # kind, meters


@dataclass
class _Run:
    """Consecutive rounds closed in one span under one configuration version."""

    span: int
    version: str
    first: int
    last: int
    rounds: list[int] = field(default_factory=list)
    totals: list[tuple[int, int, int]] = field(default_factory=list)  # wagered, paid, won


def _total_meter(total: Any) -> tuple[int, int, int] | None:
    """A ``round.close``'s total meter (parsed): the round's (wagered, paid, house win); None
    where they are not whole numbers as the station writes them."""
    if type(total) is not dict:
        return None
    wagered, paid, won = (total.get(k) for k in ("wagered", "paid", "house_win"))
    if type(wagered) is not int or type(paid) is not int or type(won) is not int:
        return None
    return wagered, paid, won


def _whole(value: Any) -> int | None:
    """A sum the database gave as a whole number (SQLite's integer, PostgreSQL's numeric)."""
    if type(value) is int:
        return value
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return int(value)
    return None


def spans_won(journal: Journal, table_id: str, spans: Sequence[Span], *,
              through_seq: int | None = None, check_hashes: bool = True,
              edges: EdgeBook | None = None) -> list[SpanWins]:
    """The rounds of ``table_id`` that closed in each of ``spans`` (in order, not
    overlapping), summed: the sums of their :func:`rounds_won` (see the module's
    description; :class:`~dealer_station.table.wins.WinsBySpan` says what the arguments
    mean)."""
    bounds = [("" if a is None else iso_utc(a), END_OF_TIME if b is None else iso_utc(b))
              for a, b in spans]
    for (_, end), (start, _) in pairwise(bounds):
        if start < end:
            raise ValueError("the spans overlap or are out of order")
    out = [SpanWins() for _ in spans]
    if not spans:
        return out
    starts = [s for s, _ in bounds]

    def span_of(ts: str) -> int | None:
        i = bisect_right(starts, ts) - 1
        return i if i >= 0 and ts < bounds[i][1] else None

    book = edges or EdgeBook(journal, table_id)
    check = _hash_check(journal, table_id) if check_hashes else None
    loads = _payload_reader(table_id)
    with journal.snapshot() as conn:
        reads = _Reads(conn, table_id, NO_BOUND if through_seq is None else through_seq)
        lo, hi = reads.round_range(bounds[0][0], bounds[-1][1])
        if lo is None or hi is None:
            return out
        # Every round's opening, closing and taking back; checked, every wager besides (the
        # sums below read them, in this same snapshot).
        rounds: dict[int, _Round] = {}
        narrow = (hi - lo + 1) * 8 < reads.last_round()
        for row in reads.rounds((lo, hi), check is not None, narrow):
            if check is not None:
                check(row[:8])
                seq, ts, kind, round_no = row[0], row[1], row[3], row[4]
            else:
                seq, ts, kind, round_no = row[:4]
            version, meters = row[-2:]
            if kind == ev.WagerPlaced.KIND:
                continue
            r = rounds.setdefault(int(round_no), _Round())
            if kind == ev.WagerRemoved.KIND:
                r.removed = True
            elif kind == ev.RoundOpened.KIND:
                if version is None:
                    raise KeyError("config_version")
                r.opens.append((seq, str(version)))
            else:
                r.closes.append((seq, ts, kind, meters))
        # Runs of plain rounds, summed in SQL; the others wager by wager.
        runs: list[_Run] = []
        by_wager: list[int] = []
        run: _Run | None = None
        for n in sorted(rounds):
            r = rounds[n]
            in_span = [span_of(ts) for _, ts, _, _ in r.closes]
            wanted = any(i is not None for i in in_span)
            plain = None
            if (wanted and len(r.closes) == 1 and len(r.opens) == 1 and not r.removed
                    and r.closes[0][2] == ev.RoundClosed.KIND
                    and r.opens[0][0] < r.closes[0][0] and r.closes[0][3] is not None):
                try:
                    plain = _total_meter(loads(r.closes[0][3]))
                except ValueError:
                    plain = None
            if plain is None:
                run = None
                if wanted:
                    by_wager.append(n)
                continue
            span, version = in_span[0], r.opens[0][1]
            assert span is not None
            if run is None or run.span != span or run.version != version:
                run = _Run(span, version, n, n)
                runs.append(run)
            run.last = n
            run.rounds.append(n)
            run.totals.append(plain)
        values_of: dict[str, tuple[str, ...] | None] = {}
        for run in runs:
            if not _sum_run(run, reads.stakes_by_spot((run.first, run.last)), book, values_of,
                            out[run.span]):
                by_wager += run.rounds
        by_wager.sort()
        for i in range(0, len(by_wager), ROUNDS_PER_QUERY):
            chunk = by_wager[i:i + ROUNDS_PER_QUERY]
            for w in _walk(reads.records(chunk), table_id, book, check,
                           lambda ts: span_of(ts) is not None):
                found = span_of(w.closed)
                assert found is not None
                out[found].add_round(w)
                out[found].read_by_wager += 1
    return out


def _sum_run(run: _Run, spots: list[Row], book: EdgeBook,
             values_of: dict[str, tuple[str, ...] | None], into: SpanWins) -> bool:
    """Add a run's wagers, summed per spot, to ``into`` if they are exactly what the run's
    meters settled (else add nothing and say so: the run is read wager by wager)."""
    placed = 0
    sums: list[tuple[str, tuple[str, ...], int]] = []
    for bet, values_text, amount, count, whole, text in spots:
        staked = _whole(amount)
        if staked is None or whole != count or text != count or values_text is None:
            return False
        if values_text not in values_of:
            try:
                parsed = json.loads(values_text)
            except ValueError:
                parsed = None
            ok = isinstance(parsed, list) and all(isinstance(v, str) for v in parsed)
            values_of[values_text] = tuple(parsed) if ok else None
        values = values_of[values_text]
        if values is None:
            return False
        placed += staked
        sums.append((bet, values, staked))
    if placed != sum(wagered for wagered, _, _ in run.totals):
        return False
    edge, den = book.edges(run.version)
    for bet, values, staked in sums:
        into.add_kind(bet, staked, staked * edge.get((bet, values), 0), den)
    for wagered, paid, won in run.totals:
        into.rounds += 1
        into.wagered += wagered
        into.paid += paid
        into.computed_win += won
    return True


class RoundWins:
    """The registry's ``wins`` part: each round's win (called as :func:`rounds_won`), and
    the sums over spans of time (:meth:`by_span`, :func:`spans_won`)."""

    def __call__(self, journal: Journal, table_id: str, since: datetime | None,
                 until: datetime | None, edges: EdgeBook | None = None, *,
                 check_hashes: bool = True) -> list[RoundWin]:
        return rounds_won(journal, table_id, since, until, edges, check_hashes=check_hashes)

    def by_span(self, journal: Journal, table_id: str, spans: Sequence[Span], /, *,
                through_seq: int | None = None, check_hashes: bool = True
                ) -> list[SpanWins]:
        return spans_won(journal, table_id, spans, through_seq=through_seq,
                         check_hashes=check_hashes)


round_wins = RoundWins()
