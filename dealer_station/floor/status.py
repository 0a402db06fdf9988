"""The pit's grid, read from the floor database alone: each forwarded table's game, state,
round, dealer, configuration, and how far behind the floor's copy of it is."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from dealer_station.audit import schema
from dealer_station.audit.db import Database
from dealer_station.audit.journal import utc_now
from dealer_station.events import EventError
from dealer_station.events.kinds import codecs, halt_ending_kinds
from dealer_station.events.table import ConfigChanged, RoundHalted, StationStopped

J = schema.journal
R = schema.rounds
FT = schema.floor_tables
#: A table not heard from for this long (it sends a contact every few seconds while idle) is
#: counted behind from its last contact: the floor cannot know what it has done since.
STALE_S = 15.0


def _halt_kinds() -> list[str]:
    """A halt, and what ends one: its resolution, or each game's void of its round."""
    return [RoundHalted.KIND, *(k for c in codecs() for k in halt_ending_kinds(c))]


@dataclass(frozen=True)
class TableStatus:
    """One row of ``floor status`` (the JSON fields are these names)."""

    table: str
    game: str | None
    seq: int                      # the floor's head
    hash: str | None              # the head's hash
    lag_seconds: float | None     # None: never heard from
    lag_records: int              # local records the floor lacks, as last reported
    state: str                    # "in round", "between rounds", "halted", "closed", "refused"
    round: int | None
    dealer: str | None
    config_version: str | None
    refused: bool
    refused_reason: str | None
    contact_at: str | None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _seconds(since: str | None, now: datetime) -> float | None:
    if since is None:
        return None
    return max(0.0, (now - datetime.fromisoformat(since)).total_seconds())


def _state(halt_kind: str | None, last_kind: str | None, last_round: Any) -> str:
    if halt_kind == RoundHalted.KIND:
        return "halted"
    if last_kind == StationStopped.KIND:
        return "closed"
    if last_round is not None and last_round.status == "open":
        return "in round"
    return "between rounds"


def _version(payload: str) -> str | None:
    """The version a stored ``config.change`` payload names (None: not one a table wrote)."""
    try:
        return ConfigChanged.from_payload(json.loads(payload)).version
    except EventError:
        return None


def _latest(column: Any, *where: Any) -> Any:
    """The table's newest record's ``column`` among those ``where`` says (per table, along
    the journal's (table_id, seq) key, as a subquery of the grid's one statement)."""
    return (select(column).where(J.c.table_id == FT.c.table_id, *where)
            .order_by(J.c.seq.desc()).limit(1).correlate(FT).scalar_subquery())


def table_statuses(floor: Database, now: datetime | None = None) -> list[TableStatus]:
    """Every forwarded table's row of the grid, in one statement for the tables and one for
    their last rounds (not four a table: at a thousand tables, the round trips were the
    pit's refresh)."""
    now = now or utc_now()
    out: list[TableStatus] = []
    newest = (select(R.c.table_id, func.max(R.c.round_no).label("round_no"))
              .group_by(R.c.table_id).subquery())
    stmt = select(FT, _latest(J.c.kind, J.c.kind.in_(_halt_kinds())).label("halt_kind"),
                  _latest(J.c.kind).label("last_kind"),
                  _latest(J.c.payload, J.c.kind == ConfigChanged.KIND).label("adopted")
                  ).order_by(FT.c.table_id)
    with floor.read() as conn:
        rounds = {r.table_id: r for r in conn.execute(
            select(R).join(newest, (R.c.table_id == newest.c.table_id)
                           & (R.c.round_no == newest.c.round_no)))}
        for t in conn.execute(stmt).all():
            last_round = rounds.get(t.table_id)
            if t.pending_since is not None:
                lag = _seconds(t.pending_since, now)
            else:
                since_contact = _seconds(t.contact_at, now)
                lag = since_contact if since_contact is None or since_contact > STALE_S else 0.0
            state = "refused" if t.refused else _state(t.halt_kind, t.last_kind, last_round)
            # The version the table adopted last (it runs it from its next round on).
            adopted = t.adopted
            version = (_version(adopted) if adopted
                       else last_round.config_version if last_round else None)
            out.append(TableStatus(
                table=t.table_id, game=last_round.game if last_round else None,
                seq=int(t.head_seq), hash=t.head_hash,
                lag_seconds=None if lag is None else round(lag, 3),
                lag_records=max(0, int(t.local_seq or 0) - int(t.head_seq)),
                state=state, round=int(last_round.round_no) if last_round else None,
                dealer=last_round.dealer if last_round else None,
                config_version=version,
                refused=bool(t.refused), refused_reason=t.refused_reason,
                contact_at=t.contact_at))
    return out
