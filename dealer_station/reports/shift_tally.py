"""The shift report's sums over a table's opening and closing records, in one pass.

A :class:`ShiftTally` takes the records that open and close rounds, in sequence order, and
sums what the shift report prints: the meters before and during the period, each dealer's
rounds, the win by hour, the stakes per configuration version and the theoretical win the
closing meters carry. The report's own verification reads every record of a big chain anyway,
in consecutive ranges in separate processes; each range's process feeds the records it reads
to a tally of its own (:func:`collector`), and the report merges them in order
(:func:`merged`), so the figures cost no second read of the journal. A round opened in one
range and closed in the next is summed when the ranges are merged, with the opening the
earlier range saw, exactly as one pass would sum it.
"""

from __future__ import annotations

import json
import json.scanner
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from dealer_station.events.kinds import closing_statuses, opening_kinds
from dealer_station.events.rows import closing_meters, closing_returned
from dealer_station.events.rows import opening as opened_by

TOTAL = "total"

#: A round's opening as the tally keeps it: (dealer, configuration version, game, time).
Opened = tuple[str, str, str, str]


class LocalHours:
    """The local hour a stored UTC time falls in, computed once per UTC hour where the zone's
    offset is whole hours (then every moment of a UTC hour is in the same local hour)."""

    def __init__(self) -> None:
        self._cache: dict[str, datetime | None] = {}

    def __call__(self, ts: str) -> datetime:
        key = ts[:13]
        if key in self._cache:
            hit = self._cache[key]
        else:
            start = datetime.fromisoformat(key + ":00:00+00:00").astimezone()
            offset = start.utcoffset()
            whole = offset is not None and offset.total_seconds() % 3600 == 0
            hit = self._cache[key] = start if whole else None
        if hit is None:  # a zone offset by a part of an hour: this moment's own hour
            hit = datetime.fromisoformat(ts).astimezone()
        return hit.replace(minute=0, second=0, microsecond=0)


def _four() -> list[int]:
    return [0, 0, 0, 0]


@dataclass
class DealerShift:
    dealer: str
    rounds: int = 0
    first: str = ""
    last: str = ""
    #: What the rounds the dealer opened took in and won for the house (their closing meters).
    wagered: int = 0
    house_win: int = 0

    @property
    def per_hour(self) -> Fraction | None:
        """Game pace: rounds per hour, from the first round opened to the last closed."""
        return pace(self.rounds, self.first, self.last)


def pace(rounds: int, first: str, last: str) -> Fraction | None:
    if not rounds or not first or not last:
        return None
    seconds = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    return Fraction(rounds * 3600) / Fraction(seconds) if seconds > 0 else None


@dataclass
class ShiftTally:
    """Sums of the rounds that closed in ``[since, until)`` (ISO times; None: open-ended),
    and the meters of those that closed before ``since``."""

    since: str | None = None
    until: str | None = None
    #: Per meter kind: [rounds, wagered, paid, house win], before the period and in it.
    before: dict[str, list[int]] = field(default_factory=lambda: defaultdict(_four))
    during: dict[str, list[int]] = field(default_factory=lambda: defaultdict(_four))
    by_version: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    wins: dict[datetime, int] = field(default_factory=lambda: defaultdict(int))
    dealers: dict[str, DealerShift] = field(default_factory=dict)
    games: set[str] = field(default_factory=set)
    versions: dict[str, int] = field(default_factory=dict)
    rounds_settled: int = 0
    rounds_voided: int = 0
    first_open: str = ""
    last_close: str = ""
    first_round: int | None = None
    last_round: int | None = None
    #: The theoretical win the closing meters carry, per kind and denominator, and the stakes
    #: voids handed back: ``theo_known`` while every closing record has them.
    theo: dict[str, dict[int, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    back: int = 0
    theo_known: bool = True
    #: Every opening seen, by round; and (in a range's tally) the closings of rounds opened
    #: before the range, summed when the ranges are merged.
    opens: dict[int, Opened] = field(default_factory=dict)
    orphans: list[tuple[int, str, str, str, dict[str, Any]]] = field(default_factory=list)
    keep_orphans: bool = False
    _hour_of: LocalHours = field(default_factory=LocalHours)
    _closing: Mapping[str, str] = field(default_factory=closing_statuses)
    _opening: frozenset[str] = field(default_factory=lambda: frozenset(opening_kinds()))

    def add(self, round_no: int | None, kind: str, ts: str, actor: str,
            payload: Mapping[str, Any]) -> None:
        """One opening or closing record (records in sequence order)."""
        rno = round_no if round_no is not None else -1
        if kind in self._opening:
            o = opened_by(kind, payload)
            if o is not None:
                self.opens[rno] = (o.dealer or actor, o.config_version, o.game, ts)
            return
        if kind not in self._closing:
            return
        if self.keep_orphans and rno not in self.opens:
            self.orphans.append((rno, kind, ts, actor, dict(payload)))
            return
        self._close(rno, kind, ts, actor, payload, self.opens.get(rno, (actor, "", "", ts)))

    def _close(self, rno: int, kind: str, ts: str, actor: str, payload: Mapping[str, Any],
               opened_as: Opened) -> None:
        # Once per round over a season of rounds: plain local names, no calls it can spare.
        meters = closing_meters(kind, payload) or {}
        if self.since is not None and ts < self.since:
            before = self.before
            for k, m in meters.items():
                a = before[k]
                a[0] += 1
                a[1] += m["wagered"]
                a[2] += m["paid"]
                a[3] += m["house_win"]
            return
        if self.until is not None and ts >= self.until:
            return
        dealer, version, game, opened = opened_as
        if self._closing[kind] == "voided":
            self.rounds_voided += 1
            returned = closing_returned(payload) if self.theo_known else None
            if returned is None:
                self.theo_known = False
            else:
                self.back += returned
        else:
            self.rounds_settled += 1
        if self.first_round is None or rno < self.first_round:
            self.first_round = rno
        if self.last_round is None or rno > self.last_round:
            self.last_round = rno
        self.games.add(game)
        during, by_version, theo = self.during, self.by_version, self.theo
        known = self.theo_known
        for k, m in meters.items():
            wagered = m["wagered"]
            a = during[k]
            a[0] += 1
            a[1] += wagered
            a[2] += m["paid"]
            a[3] += m["house_win"]
            if k != TOTAL:
                by_version[(k, version)] += wagered
            if known:
                # [numerator, denominator], whole numbers (as events.rows.closing_theoretical
                # reads it; inline: this runs for every meter of every round)
                t = m.get("theoretical")
                if (type(t) is list and len(t) == 2 and type(t[0]) is int
                        and type(t[1]) is int and t[1] > 0):
                    theo[k][t[1]] += t[0]
                else:
                    known = self.theo_known = False
        self.versions[version] = self.versions.get(version, 0) + 1
        total = meters.get(TOTAL)
        if total is not None:
            self.wins[self._hour_of(ts)] += total["house_win"]
        if not self.first_open or opened < self.first_open:
            self.first_open = opened
        if ts > self.last_close:
            self.last_close = ts
        d = self.dealers.get(dealer)
        if d is None:
            d = self.dealers[dealer] = DealerShift(dealer, 0, opened, ts)
        d.rounds += 1
        if total is not None:
            d.wagered += total["wagered"]
            d.house_win += total["house_win"]
        if opened < d.first:
            d.first = opened
        if ts > d.last:
            d.last = ts

    def absorb(self, later: ShiftTally) -> None:
        """Add the tally of the range after this one's records: its closings of rounds
        opened before it are summed with the openings this tally has seen."""
        for rno, kind, ts, actor, payload in later.orphans:
            self._close(rno, kind, ts, actor, payload, self.opens.get(rno, (actor, "", "", ts)))
        for name in ("before", "during"):
            mine: dict[str, list[int]] = getattr(self, name)
            for k, v in getattr(later, name).items():
                a = mine[k]
                for i in range(4):
                    a[i] += v[i]
        for key, n in later.by_version.items():
            self.by_version[key] += n
        for hour, n in later.wins.items():
            self.wins[hour] += n
        for name, d in later.dealers.items():
            mine_d = self.dealers.get(name)
            if mine_d is None:
                self.dealers[name] = DealerShift(name, d.rounds, d.first, d.last, d.wagered,
                                                 d.house_win)
                continue
            mine_d.rounds += d.rounds
            mine_d.wagered += d.wagered
            mine_d.house_win += d.house_win
            mine_d.first = min(mine_d.first, d.first)
            mine_d.last = max(mine_d.last, d.last)
        self.games |= later.games
        for v, n in later.versions.items():
            self.versions[v] = self.versions.get(v, 0) + n
        self.rounds_settled += later.rounds_settled
        self.rounds_voided += later.rounds_voided
        if later.first_open and (not self.first_open or later.first_open < self.first_open):
            self.first_open = later.first_open
        self.last_close = max(self.last_close, later.last_close)
        for attr, pick in (("first_round", min), ("last_round", max)):
            theirs = getattr(later, attr)
            if theirs is not None:
                ours = getattr(self, attr)
                setattr(self, attr, theirs if ours is None else pick(ours, theirs))
        self.theo_known = self.theo_known and later.theo_known
        for k, by_den in later.theo.items():
            for den, n in by_den.items():
                self.theo[k][den] += n
        self.back += later.back
        self.opens.update(later.opens)

    # -- between processes -------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since, "until": self.until,
            "before": self.before, "during": self.during,
            "by_version": [[k, v, n] for (k, v), n in self.by_version.items()],
            "wins": [[h.isoformat(), n] for h, n in self.wins.items()],
            "dealers": [[n, d.rounds, d.first, d.last, d.wagered, d.house_win]
                        for n, d in self.dealers.items()],
            "games": sorted(self.games), "versions": self.versions,
            "rounds": [self.rounds_settled, self.rounds_voided],
            "first_open": self.first_open, "last_close": self.last_close,
            "round_span": [self.first_round, self.last_round],
            "theo": [[k, den, n] for k, by in self.theo.items() for den, n in by.items()],
            "back": self.back, "theo_known": self.theo_known,
            "opens": [[rno, *o] for rno, o in self.opens.items()],
            "orphans": [list(o) for o in self.orphans],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ShiftTally:
        t = cls(data["since"], data["until"])
        for name in ("before", "during"):
            getattr(t, name).update({k: list(v) for k, v in data[name].items()})
        for k, v, n in data["by_version"]:
            t.by_version[(k, v)] = n
        for h, n in data["wins"]:
            t.wins[datetime.fromisoformat(h)] = n
        for name, rounds, first, last, wagered, won in data["dealers"]:
            t.dealers[name] = DealerShift(name, rounds, first, last, wagered, won)
        t.games = set(data["games"])
        t.versions = dict(data["versions"])
        t.rounds_settled, t.rounds_voided = data["rounds"]
        t.first_open, t.last_close = data["first_open"], data["last_close"]
        t.first_round, t.last_round = data["round_span"]
        for k, den, n in data["theo"]:
            t.theo[k][int(den)] = n
        t.back, t.theo_known = data["back"], data["theo_known"]
        t.opens = {rno: (d, v, g, ts) for rno, d, v, g, ts in data["opens"]}
        t.orphans = [(rno, kind, ts, actor, payload)
                     for rno, kind, ts, actor, payload in data["orphans"]]
        return t


class Collector:
    """What a range of the report's verification feeds the records it reads to (see the
    module's description): the opening and closing records up to ``to_seq``."""

    def __init__(self, args: Mapping[str, Any]) -> None:
        self.tally = ShiftTally(args.get("since"), args.get("until"), keep_orphans=True)
        self.to_seq = int(args["to_seq"])
        self.kinds = frozenset(opening_kinds()) | frozenset(closing_statuses())
        self._scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]

    def feed(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Records as the verification reads them: (seq, ts, actor, kind, round_no, payload,
        prev_hash, hash), in sequence order."""
        kinds, add, scan, top = self.kinds, self.tally.add, self._scan, self.to_seq
        # Most records neither open nor close a round: picked out in one comprehension.
        for seq, ts, actor, kind, round_no, payload, _, _ in [r for r in rows if r[3] in kinds]:
            if seq > top:
                break
            parsed = scan(payload, 0)[0]
            if isinstance(parsed, dict):
                add(round_no, kind, ts, actor, parsed)
            else:
                raise ValueError(f"record {seq}: its payload is not a JSON object")

    def result(self, last: bool) -> dict[str, Any]:
        out = self.tally.to_json()
        if last:
            out["opens"] = []    # no later range has a round to close with them
        return out


def merged(parts: Iterable[Mapping[str, Any]]) -> ShiftTally:
    """The tallies of consecutive ranges, in order, as one."""
    out: ShiftTally | None = None
    for data in parts:
        t = ShiftTally.from_json(data)
        if out is None:
            out = ShiftTally(t.since, t.until)
        out.absorb(t)
    return out if out is not None else ShiftTally()

