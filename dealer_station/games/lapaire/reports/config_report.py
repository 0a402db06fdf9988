"""La Pair'e's pages of the configuration history (reports/config_history.py): the par sheet
and limits of each version, and the felt's names for its settings. Its own module, named in
the game registry (``report_config``, ``config_words``), so the shared report imports no rule
of La Pair'e."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reportlab.platypus import Flowable

from dealer_station.audit.journal import ConfigVersion
from dealer_station.games.lapaire.rules.config import (
    HAND_LABELS,
    KIND_LABELS,
    parse_lapaire_config,
)
from dealer_station.games.lapaire.rules.house_math import par_sheet, percent
from dealer_station.money import Money
from dealer_station.reports.config_history import FIELD_WORDS
from dealer_station.reports.pdf_style import p
from dealer_station.reports.template import ReportBuilder, caption, grid


def config_words(key: str, /, *, entered: bool = False) -> str | None:
    """The registry's ``config_words`` part of La Pair'e: ``wagers.any_pair.min`` ->
    ``Any Pair'e: minimum``, ``poker_paytables.standard.flush`` -> ``Poker paytable standard:
    Flush``; ``entered`` (what the operator screen recorded): ``split 7-JK`` -> ``Split 7-JK``.
    None for a key that is not La Pair'e's own (the report words it)."""
    if entered:
        kind, _, spot = key.partition(" ")
        label = KIND_LABELS.get(kind)
        return None if label is None else label + (f" {spot}" if spot else "")
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "wagers":
        return f"{KIND_LABELS.get(parts[1], parts[1])}: {FIELD_WORDS.get(parts[2], parts[2])}"
    if len(parts) == 3 and parts[0] == "poker_paytables":
        return f"Poker paytable {parts[1]}: {HAND_LABELS.get(parts[2], parts[2])}"
    return None


def par_sheet_body(r: ReportBuilder, version: ConfigVersion,
                   previous: ConfigVersion | None = None) -> list[Flowable]:
    """The registry's ``report_config`` part of La Pair'e: the version's par sheet and limits
    whole, or (``previous`` given) only the rows that differ from that version's."""
    w = r.width
    config = parse_lapaire_config(dict(version.content), "<journal>")
    money = Money.of(version.content)
    sheet = {row.label: row for row in par_sheet(config)}
    limits = {k.kind: (KIND_LABELS.get(k.kind, k.kind), "yes" if k.offered else "no",
                       money.number(k.limits.minimum), money.number(k.limits.maximum))
              for k in config.wagers()}
    warnings = [f"! {row.label}: {row.warning}" for row in sheet.values() if row.warning]
    if previous is not None:
        return _par_sheet_changes(r, config, money, sheet, limits, previous) + [
            p(text, "alert") for text in warnings]
    rows = [[row.label, row.payout, f"{float(row.probability):.6f}", percent(row.rtp, 3),
             percent(row.house_edge, 3), "!" if row.warning else ""] for row in sheet.values()]
    out: list[Flowable] = [
        caption(f"Par sheet (exact, per unit staked, 54-card deck); poker paytable "
                f"{config.poker.paytable!r}; money {money.label}."),
        grid(["Spot", "Payout", "Probability", "RTP", "House edge", ""], rows,
             [w * 0.25, w * 0.33, w * 0.12, w * 0.11, w * 0.12, w * 0.04],
             numeric=(2, 3, 4), wrap=(0, 1)),
        caption(f"Table limits ({money.label}):"),
        grid(["Wager", "Offered", "Minimum", "Maximum"], [list(v) for v in limits.values()],
             [w * 0.25, w * 0.1, w * 0.15, w * 0.15], numeric=(2, 3)),
    ]
    out += [p(text, "alert") for text in warnings]
    return out


def _par_sheet_changes(r: ReportBuilder, config: Any, money: Money,
                       sheet: Mapping[str, Any],
                       limits: Mapping[str, tuple[str, str, str, str]],
                       previous: ConfigVersion) -> list[Flowable]:
    """The par sheet rows and limits that differ from ``previous``'s, before and after."""
    w = r.width
    old = parse_lapaire_config(dict(previous.content), "<journal>")
    old_money = Money.of(previous.content)
    old_sheet = {row.label: row for row in par_sheet(old)}

    def said(row: Any) -> str:
        return "not offered" if row is None else \
            f"{row.payout}; edge {percent(row.house_edge, 3)}"

    rows = [[label, said(old_sheet.get(label)), said(sheet.get(label))]
            for label in [*old_sheet, *(k for k in sheet if k not in old_sheet)]
            if said(old_sheet.get(label)) != said(sheet.get(label))]
    old_limits = {k.kind: (KIND_LABELS.get(k.kind, k.kind), "yes" if k.offered else "no",
                           old_money.number(k.limits.minimum), old_money.number(k.limits.maximum))
                  for k in old.wagers()}
    limit_rows = [[name, f"{ob} / {omin} to {omax}", f"{nb} / {nmin} to {nmax}"]
                  for kind, (name, nb, nmin, nmax) in limits.items()
                  for (_n, ob, omin, omax) in [old_limits.get(kind, (name, "no", "-", "-"))]
                  if (ob, omin, omax) != (nb, nmin, nmax)]
    out: list[Flowable] = []
    if rows:
        out += [caption(f"Par sheet: the {len(rows)} spot(s) that changed from version "
                        f"{previous.version[:16]} (poker paytable {config.poker.paytable!r}); "
                        f"every other spot is as printed for that version:"),
                grid(["Spot", "Before: payout; house edge", "After: payout; house edge"],
                     rows, [w * 0.3, w * 0.35, w * 0.35], wrap=(0, 1, 2))]
    else:
        out.append(p(f"Par sheet: no spot's payout or house edge changed from version "
                     f"{previous.version[:16]}.", "note"))
    if limit_rows:
        out += [caption(f"Table limits that changed ({money.label}; offered / minimum to "
                        f"maximum):"),
                grid(["Wager", "Before", "After"], limit_rows, [w * 0.3, w * 0.35, w * 0.35])]
    else:
        out.append(p("Table limits: none changed.", "note"))
    return out
