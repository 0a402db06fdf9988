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

from dealer_station import registry as games
from dealer_station.audit.journal import ConfigVersion, Journal, Record
from dealer_station.events.table import ConfigChanged
from dealer_station.money import Money
from dealer_station.reports.parts import CONFIG_WORDS, REPORT_CONFIG, ConfigWords
from dealer_station.reports.pdf_style import FONT_MONO, p, rich
from dealer_station.reports.source import (
    Period,
    config_change,
    config_changes,
    coverage,
    covered_records,
    game_label,
)
from dealer_station.reports.template import BuiltReport, ReportBuilder, caption, facts, grid
from dealer_station.reports.text import local, local_short
from dealer_station.reports.verification import BACKGROUND_ABOVE_RECORDS, Verification


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}`` (lists stay whole values)."""
    if isinstance(value, Mapping) and value:
        out: dict[str, Any] = {}
        for k in sorted(value):
            out.update(flatten(value[k], f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: value}


def show_value(value: Any) -> str:
    """A stored value as its JSON, for a setting no word of the report names."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


#: A setting's last part in words.
FIELD_WORDS = {"min": "minimum", "max": "maximum", "offered": "offered", "pays": "pays",
               "spot": "spots priced apart", "paytable": "poker paytable",
               "two_jokers_pays": "two Jokers pay", "currency": "currency",
               "minor_units": "minor units per unit", "chips": "chip values",
               "warn_house_edge_above": "warn where the house edge is above"}
#: Settings that are amounts of money (minor units in the stored content).
MONEY_FIELDS = frozenset({"min", "max", "chips"})


def setting_label(key: str, words: ConfigWords | None = None) -> str:
    """A setting's key in words: the game's own (``words``, its ``config_words`` part:
    ``wagers.any_pair.min`` -> ``Any Pair'e: minimum``), else the shared ones
    (``money.currency`` -> ``Money: currency``), else the key itself."""
    own = words(key) if words is not None else None
    if own is not None:
        return own
    parts = key.split(".")
    if len(parts) == 2 and parts[0] in ("money", "par_sheet"):
        return f"{parts[0].replace('_', ' ').capitalize()}: {FIELD_WORDS.get(parts[1], parts[1])}"
    return key


def setting_value(key: str, value: Any, money: Money) -> str:
    """A setting's value as people read it: money as money, yes/no, spots as on the felt."""
    last = key.rsplit(".", 1)[-1]
    if isinstance(value, bool):
        return "yes" if value else "no"
    if last in MONEY_FIELDS and type(value) is int:
        return money.text(value)
    if last in MONEY_FIELDS and isinstance(value, list) and all(type(v) is int for v in value):
        return ", ".join(money.number(v) for v in value) + f" {money.label}"
    if last == "spot" and isinstance(value, list):
        return "; ".join(_spot(s) for s in value) or "none"
    if isinstance(value, str):
        return value
    return show_value(value)


def _spot(spot: Any) -> str:
    if not isinstance(spot, Mapping):
        return show_value(spot)
    values = "-".join(str(v) for v in spot.get("values") or ())
    offered = "" if spot.get("offered", True) else ", not offered"
    return f"{values} pays {spot.get('pays', '?')}{offered}"


def differences(old: Mapping[str, Any] | None, new: Mapping[str, Any],
                words: ConfigWords | None = None) -> list[list[str]]:
    """Rows of [setting, before, after] for every setting that differs, in words (the game's
    own ``words``, see :func:`setting_label`) and money (each side in its own version's
    money)."""
    before = flatten(old) if old is not None else {}
    after = flatten(new)
    money_before = Money.of(old) if old is not None else Money.of(new)
    money_after = Money.of(new)
    rows = []
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key, _MISSING), after.get(key, _MISSING)
        if a != b:
            rows.append([setting_label(key, words),
                         "(not set)" if a is _MISSING else setting_value(key, a, money_before),
                         "(removed)" if b is _MISSING else setting_value(key, b, money_after)])
    return rows


_MISSING = object()


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
            rec for rec in journal.records(table, kinds=[ConfigChanged.KIND],
                                           to_seq=cov.last.seq if cov.last else 0)
            if period.contains(rec.ts)]
        before = [c for c in config_changes(journal, table)
                  if period.since_iso is not None and c.ts < period.since_iso]
        earlier_change = before[-1] if before else None
        earlier = (by_version.get(config_change(earlier_change).version)
                   if earlier_change is not None else None)
        r = ReportBuilder(kind="config", title="Configuration history", table=table,
                          period=cov.label, paper=paper)
        w = r.width
        r.add(facts([("Table", table), ("Period", cov.label),
                      ("Changes recorded", f"{len(changes):,}"),
                      ("Versions stored", f"{len(versions):,} for this table")]))
        r.heading("Changes")
        rows = [[local_short(c.ts), c.actor, approver(c) or "none recorded",
                 config_change(c).version[:16], config_change(c).reason] for c in changes]
        r.add(grid(["When", "Who", "Approved by", "Version", "Why"],
                   rows or [["-", "", "", "", "none"]],
                   [w * 0.17, w * 0.17, w * 0.17, w * 0.17, w * 0.32], wrap=(1, 2, 4)))
        shown: set[str] = set()
        previous: ConfigVersion | None = earlier
        if earlier is not None:
            r.heading(f"In force at the start of the period: version {earlier.version[:16]}",
                      level=1)
            assert earlier_change is not None
            r.add(facts([("Version", _mono(earlier.version)),
                         ("Recorded", f"{local(earlier_change.ts)} by {earlier_change.actor}"),
                         ("Why", config_change(earlier_change).reason)]))
            r.add(*_version_body(r, earlier))
            shown.add(earlier.version)
        for n, c in enumerate(changes, 1):
            said = config_change(c)
            version_id = said.version
            v = by_version.get(version_id)
            r.heading(f"Change {n}: {local(c.ts)}", level=1)
            money = Money.of(v.content if v is not None else None)
            r.add(facts([("Who", c.actor),
                         ("Approved by", approver(c) or "no second approval recorded"),
                         ("When", local(c.ts)),
                         ("Why", said.reason),
                         ("Game", game_label(said.game)),
                         ("Version", _mono(version_id)),
                         ("What (as entered)", as_entered(said.changes, money,
                                                        _words(said.game))),
                         ("Journal record", f"{c.seq:,}, hash {c.hash}")]))
            if v is None:
                r.add(p(f"Version {version_id[:16]} is not among the stored configuration "
                        f"versions of this table.", "alert"))
                continue
            if previous is not None and previous.version == v.version:
                r.add(p("The same configuration as before was recorded again (for example at "
                        "a start-up); nothing differs.", "note"))
            else:
                diff = differences(previous.content if previous else None, v.content,
                                   _words(v.game))
                if previous is not None:
                    r.add(caption(f"What differs from the version before ({len(diff)} "
                                  f"setting(s); amounts in {money.label}):", "body"))
                    r.add(grid(["Setting", "Before", "After"], diff or [["-", "", ""]],
                               [w * 0.34, w * 0.33, w * 0.33], wrap=(0, 1, 2)))
                else:
                    r.add(caption(f"The first recorded configuration: every setting "
                                  f"({len(diff)}; amounts in {money.label}):", "body"))
                    r.add(grid(["Setting", "Value"], [[k, after] for k, _, after in diff],
                               [w * 0.4, w * 0.6], wrap=(0, 1)))
            if v.version in shown:
                r.add(p(f"Par sheet: as printed above for version {v.version[:16]}.", "note"))
            else:
                # The whole par sheet once; after that only where it changed.
                same_game = previous is not None and previous.game == v.game
                r.add(*_version_body(r, v, previous if same_game and shown else None))
                shown.add(v.version)
            previous = v
        return r.build(out, verification.result(), cov.first, cov.last,
                       data=changes, evidence=covered_records(journal, table, cov.first, cov.last),
                       signatures=("Operator", "Approved by"))
    finally:
        verification.cancel()


def _version_body(r: ReportBuilder, v: ConfigVersion,
                  previous: ConfigVersion | None = None) -> list[Flowable]:
    body: list[Flowable] = games.game(v.game).part(REPORT_CONFIG)(r, v, previous)
    return body


def _words(game: object) -> ConfigWords | None:
    """The felt's names for ``game``'s settings, if it has names of its own (an unknown game
    has none: its keys print as stored)."""
    found = games.REGISTRY.get(game) if isinstance(game, str) else None
    return found.supplies(CONFIG_WORDS) if found is not None else None


def approver(change: Record) -> str | None:
    """Who approved a change as a second person (``approved_by`` in its record), if anyone."""
    who = config_change(change).approved_by
    return str(who) if who else None


def as_entered(changes: Any, money: Money, words: ConfigWords | None = None) -> str:
    """What the person changing it entered, with the felt's names (the game's ``words``) and
    money as money: the operator screen's ``{"offered": {"poker": false}, "limits":
    {"straight": {"min": 200, "max": 5000}}}`` -> ``3rd Card Poker: withdrawn; Straight-up
    limits: 2.00 to 50.00 USD``, and free text as entered (``{"poker": "withdrawn"}`` -> ``3rd
    Card Poker: withdrawn``)."""
    if not isinstance(changes, Mapping) or not changes:
        return "-"
    parts: list[str] = []
    for k in sorted(changes):
        v = changes[k]
        if k == "offered" and isinstance(v, Mapping):
            parts += [f"{_felt(spot, words)}: {'offered' if on else 'withdrawn'}"
                      for spot, on in sorted(v.items())]
        elif k == "limits" and isinstance(v, Mapping):
            parts += [f"{_felt(kind, words)} limits: {_limits(lim, money)}"
                      for kind, lim in sorted(v.items())]
        elif k == "poker_paytable":
            parts.append(f"3rd Card Poker paytable: {v}")
        elif isinstance(v, bool):
            parts.append(f"{_felt(k, words)}: {'offered' if v else 'withdrawn'}")
        else:
            parts.append(f"{_felt(k, words)}: {v if isinstance(v, str) else show_value(v)}")
    return "; ".join(parts)


def _felt(key: str, words: ConfigWords | None) -> str:
    """``any_pair`` -> ``Any Pair'e`` (the game's own ``words``); ``split 7-JK`` -> ``Split
    7-JK``; else the key with spaces for its underscores."""
    own = words(str(key), entered=True) if words is not None else None
    if own is not None:
        return own
    kind, _, spot = str(key).partition(" ")
    return kind.replace("_", " ") + (f" {spot}" if spot else "")


def _limits(lim: Any, money: Money) -> str:
    if isinstance(lim, Mapping) and type(lim.get("min")) is int and type(lim.get("max")) is int:
        return f"{money.number(lim['min'])} to {money.text(lim['max'])}"
    if isinstance(lim, list) and len(lim) == 2 and all(type(x) is int for x in lim):
        return f"{money.number(lim[0])} to {money.text(lim[1])}"
    return show_value(lim)


def _mono(text: str) -> Flowable:
    return rich(f"<font name='{FONT_MONO}'>{text}</font>", "small")
