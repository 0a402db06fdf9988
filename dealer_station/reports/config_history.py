"""The configuration history: every change with who, when, what and why, and the par sheet of
each version, from the journal's ``config.change`` records and stored configuration versions.

"What" is both what the person changing it said (the record's ``changes``) and the exact
differences between the version and the one before it, computed from the stored contents, so
nothing changed can go unmentioned.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reportlab.platypus import Flowable

from dealer_station import games
from dealer_station.audit.journal import ConfigVersion, Journal, Record
from dealer_station.reports.source import (
    Period,
    config_changes,
    coverage,
    covered_records,
    game_label,
)
from dealer_station.reports.template import (
    FONT_MONO,
    BuiltReport,
    ReportBuilder,
    facts,
    grid,
    p,
    rich,
)
from dealer_station.reports.text import MoneyUnit, describe_payload, local, local_short
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}`` (lists stay whole values)."""
    if isinstance(value, Mapping) and value:
        out: dict[str, Any] = {}
        for k in sorted(value):
            out.update(flatten(value[k], f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def differences(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> list[list[str]]:
    """Rows of [setting, before, after] for every setting that differs."""
    before = flatten(old) if old is not None else {}
    after = flatten(new)
    rows = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key, _MISSING), after.get(key, _MISSING)
        if a != b:
            rows.append([key, "(not set)" if a is _MISSING else _show(a),
                         "(removed)" if b is _MISSING else _show(b)])
    return rows


_MISSING = object()


def par_sheet_body(r: ReportBuilder, version: ConfigVersion) -> list[Flowable]:
    from dealer_station.settlement.lapaire_config import parse_lapaire_config
    from dealer_station.settlement.lapaire_math import par_sheet, percent

    w = r.width
    config = parse_lapaire_config(dict(version.content), "<journal>")
    rows = []
    for row in par_sheet(config):
        rows.append([row.label, row.payout, f"{float(row.probability):.6f}",
                     percent(row.rtp, 3), percent(row.house_edge, 3),
                     "!" if row.warning else ""])
    money = MoneyUnit.of(version.content)
    limits = []
    for kind in config.wagers():
        lim = kind.limits
        limits.append([kind.kind, "yes" if kind.offered else "no", money.fmt(lim.minimum),
                       money.fmt(lim.maximum)])
    warnings = [f"! {row.label}: {row.warning}" for row in par_sheet(config) if row.warning]
    out: list[Flowable] = [
        p(f"Par sheet (exact, per unit staked, 54-card deck); poker paytable "
          f"{config.poker.paytable!r}; money {money.label}.", "note"),
        grid(["Spot", "Payout", "Probability", "RTP", "House edge", ""], rows,
             [w * 0.25, w * 0.33, w * 0.12, w * 0.11, w * 0.12, w * 0.04],
             numeric=(2, 3, 4), wrap=(0, 1)),
        p(f"Table limits ({money.label}):", "note"),
        grid(["Wager kind", "Offered", "Minimum", "Maximum"], limits,
             [w * 0.2, w * 0.1, w * 0.15, w * 0.15], numeric=(2, 3)),
    ]
    out += [p(text, "alert") for text in warnings]
    return out


def profile_body(r: ReportBuilder, version: ConfigVersion) -> list[Flowable]:
    w = r.width
    rows = [[k, _show(v)] for k, v in flatten(version.content).items()]
    return [grid(["Setting", "Value"], rows, [w * 0.5, w * 0.5], wrap=(0, 1))]


def build_config_history_report(journal: Journal, table: str, period: Period | None = None,
                                *, out: Path | str, paper: str = "A4",
                                background_above: int = BACKGROUND_ABOVE_RECORDS
                                ) -> BuiltReport:
    """Write the configuration history of ``table`` in ``period`` (default: everything)."""
    period = period or Period()
    verification = Verification(journal, table, background_above=background_above)
    try:
        cov = coverage(journal, table, period)
        versions = journal.config_versions(table)
        by_version = {v.version: v for v in versions}
        changes: list[Record] = [
            rec for rec in journal.records(table, kinds=["config.change"],
                                           to_seq=cov.last.seq if cov.last else 0)
            if period.contains(rec.ts)]
        before = [c for c in config_changes(journal, table)
                  if period.since_iso is not None and c.ts < period.since_iso]
        earlier_change = before[-1] if before else None
        earlier = (by_version.get(str(earlier_change.payload.get("version")))
                   if earlier_change is not None else None)
        r = ReportBuilder(kind="config", title="Configuration history", table=table,
                          period=cov.label, paper=paper)
        w = r.width
        r.add(facts([("Table", table), ("Period", cov.label),
                      ("Changes recorded", f"{len(changes):,}"),
                      ("Versions stored", f"{len(versions):,} for this table")]))
        r.heading("Changes")
        rows = [[local_short(c.ts), c.actor, str(c.payload.get("version", ""))[:16],
                 str(c.payload.get("reason", ""))] for c in changes]
        r.add(grid(["When", "Who", "Version", "Why"], rows or [["-", "", "", "none"]],
                   [w * 0.18, w * 0.18, w * 0.2, w * 0.44], wrap=(1, 3)))
        shown: set[str] = set()
        previous: ConfigVersion | None = earlier
        if earlier is not None:
            r.heading(f"In force at the start of the period: version {earlier.version[:16]}",
                      level=1)
            assert earlier_change is not None
            r.add(facts([("Version", _mono(earlier.version)),
                         ("Recorded", f"{local(earlier_change.ts)} by {earlier_change.actor}"),
                         ("Why", str(earlier_change.payload.get("reason", "")))]))
            r.add(*_version_body(r, earlier))
            shown.add(earlier.version)
        for n, c in enumerate(changes, 1):
            version_id = str(c.payload.get("version", ""))
            v = by_version.get(version_id)
            r.heading(f"Change {n}: {local(c.ts)}", level=1)
            said = describe_payload(c.payload.get("changes") or {}) or "-"
            r.add(facts([("Who", c.actor), ("When", local(c.ts)),
                         ("Why", str(c.payload.get("reason", ""))),
                         ("Game", game_label(str(c.payload.get("game", "")))),
                         ("Version", _mono(version_id)),
                         ("What (as entered)", said),
                         ("Journal record", f"{c.seq:,}, hash {c.hash}")]))
            if v is None:
                r.add(p(f"Version {version_id[:16]} is not among the stored configuration "
                        f"versions of this table.", "alert"))
                continue
            if previous is not None and previous.version == v.version:
                r.add(p("The same configuration as before was recorded again (for example at "
                        "a start-up); nothing differs.", "note"))
            else:
                diff = differences(previous.content if previous else None, v.content)
                if previous is not None:
                    r.add(p(f"What differs from the version before ({len(diff)} setting(s); "
                            f"as stored, amounts in minor units):", "body"))
                    r.add(grid(["Setting", "Before", "After"], diff or [["-", "", ""]],
                               [w * 0.34, w * 0.33, w * 0.33], wrap=(0, 1, 2)))
                else:
                    r.add(p(f"The first recorded configuration: every setting ({len(diff)}; "
                            f"as stored, amounts in minor units):", "body"))
                    r.add(grid(["Setting", "Value"], [[k, after] for k, _, after in diff],
                               [w * 0.4, w * 0.6], wrap=(0, 1)))
            if v.version in shown:
                r.add(p(f"Par sheet: as printed above for version {v.version[:16]}.", "note"))
            else:
                r.add(*_version_body(r, v))
                shown.add(v.version)
            previous = v
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=changes, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Operator", "Approved by"))
    finally:
        verification.cancel()


def _version_body(r: ReportBuilder, v: ConfigVersion) -> list[Flowable]:
    body: list[Flowable] = games.game(v.game).part("report_config")(r, v)
    return body


def _mono(text: str) -> Flowable:
    return rich(f"<font name='{FONT_MONO}'>{text}</font>", "small")
