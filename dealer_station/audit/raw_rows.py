"""A table's records as plain tuples, read through the database driver itself.

For the readers that walk many records (a report's verification, a month's wins): a result
row object per record costs more than checking the record's keyed hash, so they read
``(seq, ts, actor, kind, round_no, payload, prev_hash, hash)`` tuples in sequence order.
On PostgreSQL a server-side cursor keeps a million records from being held at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from dealer_station.audit import schema
from dealer_station.audit.journal import Journal

COLUMNS = "seq, ts, actor, kind, round_no, payload, prev_hash, hash"


def raw_rows(journal: Journal, table_id: str, *, seqs: tuple[int, int] | None = None,
             rounds: tuple[int, int] | None = None, kinds: Sequence[str] = (),
             cursor: str = "raw_rows") -> Iterator[tuple[Any, ...]]:
    """Records of ``table_id`` with ``seq`` in ``seqs`` and ``round_no`` in ``rounds`` (both
    inclusive ranges, None: any) and of ``kinds`` (empty: any), in sequence order."""
    for batch in raw_batches(journal, table_id, seqs=seqs, rounds=rounds, kinds=kinds,
                             cursor=cursor):
        yield from batch


def raw_batches(journal: Journal, table_id: str, *, seqs: tuple[int, int] | None = None,
                rounds: tuple[int, int] | None = None, kinds: Sequence[str] = (),
                cursor: str = "raw_rows", size: int = 5000) -> Iterator[list[tuple[Any, ...]]]:
    """:func:`raw_rows` in lists of up to ``size`` records, as the driver fetches them (for a
    reader that takes a run of records at once)."""
    engine = journal.db.engine
    mark = "?" if engine.dialect.paramstyle == "qmark" else "%s"
    where = [f"table_id = {mark}"]
    params: list[Any] = [table_id]
    for column, span in (("seq", seqs), ("round_no", rounds)):
        if span is not None:
            where.append(f"{column} >= {mark} AND {column} <= {mark}")
            params += list(span)
    if kinds:
        where.append(f"kind IN ({', '.join([mark] * len(kinds))})")
        params += list(kinds)
    sql = (f"SELECT {COLUMNS} FROM {schema.journal.name} WHERE {' AND '.join(where)} "
           f"ORDER BY seq")
    raw = engine.raw_connection()
    try:
        cur = (raw.cursor(name=cursor) if engine.dialect.name == "postgresql"
               else raw.cursor())
        cur.execute(sql, tuple(params))
        while True:
            rows = cur.fetchmany(size)
            if not rows:
                break
            yield list(rows)
        cur.close()
    finally:
        raw.close()
