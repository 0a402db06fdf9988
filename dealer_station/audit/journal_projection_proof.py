"""Projections, proof and repair (the :class:`JournalProjectionProof` methods of ``Journal``):
the rounds, meters and configuration tables checked against the chain, the meters the chain
proves, and rebuilding the tables from the chain when they disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields as dataclass_fields
from typing import Any

from sqlalchemy import Connection, func, select

from dealer_station.audit import schema
from dealer_station.audit.hashing import canonical_json, config_version
from dealer_station.audit.journal_base import JournalBase
from dealer_station.audit.journal_common import _RECORD_COLUMNS, JournalTampered, ProvenState
from dealer_station.audit.projections import (
    Disagreement,
    ProjectionError,
    add_meter_sums,
    meter_disagreements,
    meters_from_closings,
    round_disagreement,
    round_from_records,
)
from dealer_station.audit.records import Record, RoundInfo
from dealer_station.events.kinds import closing_statuses, opening_kinds
from dealer_station.events.station import CheckpointTaken, ProjectionsRebuilt

J = schema.journal
R = schema.rounds
M = schema.meters


class JournalProjectionProof(JournalBase):
    """Proving and repairing projections: mixed into
    :class:`~dealer_station.audit.journal.Journal`."""

    # -- projections: proof and repair --

    def check_projections(self, table_id: str, *, since_checkpoint: bool = False,
                          state: ProvenState | None = None) -> list[Disagreement]:
        """Every row of the rounds, meters and configuration tables of one table that is not
        what the chain says (empty when they agree). Records read are hash-checked.

        ``since_checkpoint`` (a table service starting): meters are summed from the newest
        checkpoint record that carries them (a clean shut-down writes one) and rounds rows
        are checked from the round after it; ``audit verify`` checks everything.
        """
        problems: list[Disagreement] = []
        try:
            if state is None:
                state = self.proven_state(table_id, since_checkpoint=since_checkpoint)
        except JournalTampered as e:
            return [Disagreement(table_id, "meters", "-", str(e))]
        after = state.last_round_checked
        if after and self._round_counts_differ(table_id, after):
            after = 0  # rows were deleted or added behind the checkpoint: check them all
        problems += self._check_rounds(table_id, after_round=after)
        problems += meter_disagreements(table_id, state.meters, self.meters(table_id))
        problems += self._check_configs(table_id)
        return problems

    def proven_state(self, table_id: str, *, since_checkpoint: bool = True) -> ProvenState:
        """The table's meters as the chain sums them: from the newest checkpoint record that
        carries meters (when ``since_checkpoint``), plus every closing record after it."""
        base: Record | None = None
        base_meters: Mapping[str, Any] = {}
        last = 0
        if since_checkpoint:
            for rec in self._select(select(*_RECORD_COLUMNS)
                                    .where(J.c.table_id == table_id,
                                           J.c.kind == CheckpointTaken.KIND)
                                    .order_by(J.c.seq.desc()).limit(20)):
                # The checkpoint's meters and last round are in its open-ended state.
                state = CheckpointTaken.from_payload(rec.payload).state
                sums, last_round = state.get("meters"), state.get("last_round")
                if isinstance(sums, Mapping) and isinstance(last_round, int):
                    base, base_meters, last = rec, sums, int(last_round)
                    break
        stmt = (select(*_RECORD_COLUMNS)
                .where(J.c.table_id == table_id, J.c.kind.in_(list(closing_statuses())),
                       J.c.seq > (base.seq if base is not None else 0))
                .order_by(J.c.seq))
        with self.db.engine.connect() as conn:
            rows = conn.execution_options(yield_per=5000).execute(stmt)
            try:
                meters = meters_from_closings(table_id, self.authentic(rows))
                if base is not None:
                    meters = add_meter_sums(table_id, base_meters, meters)
            except ProjectionError as e:
                raise JournalTampered(str(e)) from None
        return ProvenState(meters, last, base.seq if base is not None else 0)

    def _round_counts_differ(self, table_id: str, up_to: int) -> bool:
        """Whether the rounds table holds another number of rows up to a round than the
        chain opened rounds (two counts, no record read)."""
        with self.db.read() as conn:
            chain = conn.execute(select(func.count(func.distinct(J.c.round_no))).where(
                J.c.table_id == table_id, J.c.kind.in_(list(opening_kinds())),
                J.c.round_no <= up_to)).scalar_one()
            rows = conn.execute(select(func.count()).select_from(R).where(
                R.c.table_id == table_id, R.c.round_no <= up_to)).scalar_one()
        return bool(chain != rows)

    def _check_rounds(self, table_id: str, after_round: int = 0) -> list[Disagreement]:
        # Only each round's opening and closing records and its seq span are needed.
        in_scope = (J.c.table_id == table_id, J.c.round_no.is_not(None),
                    J.c.round_no > after_round)
        with self.db.read() as conn:
            spans = {n: (lo, hi) for n, lo, hi in conn.execute(
                select(J.c.round_no, func.min(J.c.seq), func.max(J.c.seq))
                .where(*in_scope).group_by(J.c.round_no))}
            rows = {r.round_no: _round_info(r)
                    for r in conn.execute(select(R).where(R.c.table_id == table_id,
                                                          R.c.round_no > after_round))}
        marks: dict[int, list[Record]] = {}
        stmt = (select(*_RECORD_COLUMNS)
                .where(*in_scope,
                       J.c.kind.in_(list(opening_kinds()) + list(closing_statuses())))
                .order_by(J.c.seq))
        problems: list[Disagreement] = []
        try:
            with self.db.engine.connect() as conn:
                result = conn.execution_options(yield_per=5000).execute(stmt)
                for rec in self.authentic(result):
                    marks.setdefault(int(rec.round_no or 0), []).append(rec)
        except JournalTampered as e:
            return [Disagreement(table_id, "rounds", "-", str(e))]
        for n, (lo, hi) in sorted(spans.items()):
            recs = marks.get(n, [])
            opening = [r for r in recs if r.seq == lo]
            if not opening:
                # Records numbered with a round but no round opened: no row belongs to them.
                if n in rows:
                    problems.append(Disagreement(
                        table_id, "rounds", f"round {n}",
                        f"the journal's first record of this round ({lo}) does not open a "
                        f"round, so no row belongs to it"))
                continue
            closing = [r for r in recs if r.kind in closing_statuses()][:1]
            want = round_from_records(table_id, opening + closing)
            if not closing:
                want = RoundInfo(**{**_fields(want), "last_seq": hi})
            bad = round_disagreement(want, rows.get(n))
            if bad is not None:
                problems.append(bad)
        for n in sorted(set(rows) - set(spans)):
            problems.append(Disagreement(table_id, "rounds", f"round {n}",
                                         "the journal has no record of this round"))
        return problems

    def _check_configs(self, table_id: str) -> list[Disagreement]:
        try:
            established = {cv.version for cv in self.config_versions(table_id)}
        except JournalTampered as e:
            return [Disagreement(table_id, "config_versions", "-", str(e))]
        problems = []
        for version, row in sorted(self._config_rows(table_id).items()):
            if version not in established:
                problems.append(Disagreement(
                    table_id, "config_versions", f"version {version[:12]}",
                    "no config.change record of this table establishes it (inserted)"))
            elif config_version(row.content) != version:
                problems.append(Disagreement(
                    table_id, "config_versions", f"version {version[:12]}",
                    "its content does not hash to its version (edited)"))
        return problems

    def rebuild_projections(self, table_id: str, actor: str, *,
                            since_checkpoint: bool = False) -> list[Disagreement]:
        """Check one table's projections and, if any disagree, journal a significant
        ``projection.mismatch`` record naming them and rewrite the rows from the chain, in
        one transaction. Returns what disagreed (empty: nothing was written)."""
        problems = self.check_projections(table_id, since_checkpoint=since_checkpoint)
        if not problems:
            return []
        rounds = self.recent_rounds(table_id, last=2**62)
        meters = self.meters_from_chain(table_id)
        configs = self.config_versions(table_id)
        C = schema.config_versions

        def rewrite(conn: Connection) -> None:
            for table in (R, M, C):
                conn.execute(table.delete().where(table.c.table_id == table_id))
            for info in rounds:
                conn.execute(R.insert(), {**_fields(info),
                                          "summary": canonical_json(info.summary)})
            for m in meters.values():
                conn.execute(M.insert(), {f.name: getattr(m, f.name)
                                          for f in dataclass_fields(m)})
            for cv in configs:
                conn.execute(C.insert(), {"table_id": table_id, "version": cv.version,
                                          "game": cv.game,
                                          "content": canonical_json(cv.content),
                                          "created_at": cv.created_at,
                                          "created_by": cv.created_by, "reason": cv.reason})

        said = ProjectionsRebuilt(len(problems), tuple(str(p) for p in problems[:20]),
                                  "rebuilt from the journal")
        self.append(table_id, said.KIND, said.to_payload(), actor, also=rewrite)
        return problems


def _fields(info: RoundInfo) -> dict[str, Any]:
    return {f.name: getattr(info, f.name) for f in dataclass_fields(info)}


def _round_info(r: Any) -> RoundInfo:
    return RoundInfo(r.table_id, r.round_no, r.game, r.config_version, r.status, r.dealer,
                     r.started_at, r.ended_at, r.first_seq, r.last_seq, json.loads(r.summary))

