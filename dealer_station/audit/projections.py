"""What the tables beside the chain must say, derived from the chain alone.

The ``rounds``, ``meters`` and ``config_versions`` tables are projections: conveniences for
recall and for people's tools, never evidence. Everything the station acts on or prints is
derived here from chained records whose keyed hash has been checked, and ``audit verify``
compares every projection row with what the chain says, naming the first row that disagrees.

The rules are game-independent, so that a regulator can re-implement them:

- a round's records are those with its round number; its **opening** record is its first,
  of kind ``round.open`` or ``hand.open``, whose payload gives ``game``, ``config_version``
  and ``dealer``;
- its **closing** record is the first of kind ``round.close`` or ``hand.close`` (status
  ``settled``) or ``void`` (status ``voided``); without one the round is ``open``;
- ``started_at`` and ``ended_at`` are the times of the opening and closing records;
  ``first_seq`` and ``last_seq`` their sequence numbers (for an open round, ``last_seq`` is
  not checked: the row is written when a round opens and when it closes);
- its ``summary`` is the closing record's payload without its ``meters``;
- the **meters** are the sums, over every closing record's ``meters`` payload, of each meter's
  ``wagered``, ``paid`` and ``house_win``, counting one round per meter a record names;
- a **configuration version** exists for a table only if a ``config.change`` record of that
  table names it (``payload.version``); its content is the record's ``payload.content`` when
  there (records from this version of the station on), else the row's content, which must
  hash (SHA-256 of its canonical JSON) to the version.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.records import ConfigVersion, Meter, Record, RoundInfo
from dealer_station.errors import StationError
from dealer_station.events.kinds import closing_statuses
from dealer_station.events.rows import Opening, closing_meters, config_named, opening

CONFIG_KIND = "config.change"
METER_FIELDS = ("rounds", "wagered", "paid", "house_win")


class ProjectionError(StationError, ValueError):
    """The chain itself cannot give a projection (a record that fails its hash...)."""


@dataclass(frozen=True, slots=True)
class Disagreement:
    """One projection row that is not what the chain says."""

    table_id: str
    projection: str  # "rounds", "meters", "config_versions", "users"
    row: str  # which row, as a person reads it: "round 17", "meter total", "version 3c0f..."
    detail: str

    def __str__(self) -> str:
        return f"{self.projection} row {self.row}: {self.detail}"


def round_from_records(table_id: str, records: Sequence[Record]) -> RoundInfo:
    """The rounds row that a round's records establish."""
    if not records:
        raise ProjectionError(f"table {table_id}: a round with no records")
    first = records[0]
    round_no = first.round_no
    assert round_no is not None
    opened = opening(first.kind, first.payload) or Opening("", "", "")
    closing = next((r for r in records if r.kind in closing_statuses()), None)
    summary: dict[str, Any] = {}
    if closing is not None:
        summary = {k: v for k, v in closing.payload.items() if k != "meters"}
    return RoundInfo(
        table_id=table_id, round_no=round_no,
        game=opened.game, config_version=opened.config_version,
        status=closing_statuses()[closing.kind] if closing else "open",
        dealer=opened.dealer,
        started_at=first.ts, ended_at=closing.ts if closing else None,
        first_seq=first.seq, last_seq=closing.seq if closing else records[-1].seq,
        summary=summary)


def group_rounds(records: Iterable[Record]) -> Iterator[list[Record]]:
    """Consecutive records of the same round (records ordered by round number, then seq)."""
    current: list[Record] = []
    for rec in records:
        if rec.round_no is None:
            continue
        if current and rec.round_no != current[0].round_no:
            yield current
            current = []
        current.append(rec)
    if current:
        yield current


_ROUND_FIELDS = ("game", "config_version", "status", "dealer", "started_at", "ended_at",
                 "first_seq", "summary")


def round_disagreement(want: RoundInfo, have: RoundInfo | None) -> Disagreement | None:
    row = f"round {want.round_no}"
    if have is None:
        return Disagreement(want.table_id, "rounds", row,
                            f"missing (the journal has the round from record {want.first_seq})")
    if not want.game:
        return Disagreement(want.table_id, "rounds", row,
                            f"the journal's record {want.first_seq} does not open a round")
    fields = _ROUND_FIELDS + (("last_seq",) if want.status != "open" else ())
    for name in fields:
        a, b = getattr(have, name), getattr(want, name)
        if a != b:
            return Disagreement(want.table_id, "rounds", row,
                                f"{name} is {_show(a)} but the journal says {_show(b)} "
                                f"(records {want.first_seq} to {want.last_seq})")
    return None


def meters_from_closings(table_id: str, closings: Iterable[Record]) -> dict[str, Meter]:
    acc: dict[str, list[int]] = {}
    for rec in closings:
        meters = closing_meters(rec.kind, rec.payload)
        if meters is None:
            continue
        for key, m in meters.items():
            if not isinstance(m, Mapping):
                raise ProjectionError(f"table {table_id} record {rec.seq}: meter {key!r} is "
                                      f"not a set of amounts")
            a = acc.setdefault(str(key), [0, 0, 0, 0])
            a[0] += 1
            for i, name in enumerate(("wagered", "paid", "house_win"), 1):
                value = m.get(name, 0)
                if type(value) is not int:
                    raise ProjectionError(f"table {table_id} record {rec.seq}: meter "
                                          f"{key!r} {name} is not a whole amount")
                a[i] += value
    return {k: Meter(table_id, k, *v) for k, v in sorted(acc.items())}


def add_meter_sums(table_id: str, base: Mapping[str, Any],
                   more: Mapping[str, Meter]) -> dict[str, Meter]:
    """Meters carried by a checkpoint record plus those summed after it."""
    out = dict(more)
    for key, m in base.items():
        if not isinstance(m, Mapping) or any(type(m.get(f)) is not int for f in METER_FIELDS):
            raise ProjectionError(f"table {table_id}: a checkpoint's meter {key!r} is not a "
                                  f"set of whole amounts")
        extra = out.get(str(key))
        out[str(key)] = Meter(table_id, str(key), *(
            int(m[f]) + (getattr(extra, f) if extra else 0) for f in METER_FIELDS))
    return dict(sorted(out.items()))


def meter_disagreements(table_id: str, want: Mapping[str, Meter],
                        have: Mapping[str, Meter]) -> list[Disagreement]:
    out: list[Disagreement] = []
    for key in sorted(set(want) | set(have)):
        w, h = want.get(key), have.get(key)
        wv = [getattr(w, f) for f in METER_FIELDS] if w else [0, 0, 0, 0]
        hv = [getattr(h, f) for f in METER_FIELDS] if h else [0, 0, 0, 0]
        if wv != hv:
            diff = ", ".join(f"{f} is {b} but the journal's closing records sum to {a}"
                             for f, a, b in zip(METER_FIELDS, wv, hv, strict=True) if a != b)
            out.append(Disagreement(table_id, "meters", f"meter {key}", diff))
    return out


def config_from_record(table_id: str, rec: Record, row_content: str | None,
                       row_game: str | None = None) -> ConfigVersion:
    """The configuration version a ``config.change`` record establishes.

    Raises :class:`ProjectionError` when its content cannot be proven (no content in the
    record and no row, or a row whose content does not hash to the version).
    """
    named = config_named(rec.payload)
    version, content = named.version, named.content
    if content is not None:
        text = canonical_json(dict(content))
        if config_version(text) != version:
            raise ProjectionError(f"table {table_id} record {rec.seq}: its configuration "
                                  f"content does not hash to its version {version[:12]}")
    elif row_content is not None:
        if config_version(row_content) != version:
            raise ProjectionError(
                f"table {table_id}: the stored content of configuration version "
                f"{version[:12]} does not hash to its version (it was edited); the journal "
                f"establishes the version at record {rec.seq}")
        content = json.loads(row_content)
    else:
        raise ProjectionError(f"table {table_id}: configuration version {version[:12]} "
                              f"(record {rec.seq}) has no stored content")
    return ConfigVersion(table_id, version, named.game or row_game or "",
                         dict(content), rec.ts, rec.actor, named.reason)


def _show(value: Any) -> str:
    if isinstance(value, dict):
        text = json.dumps(value, sort_keys=True, ensure_ascii=False)
        return text if len(text) <= 80 else text[:77] + "..."
    return repr(value)
