"""Bourré's rules: the monitor of a pot game's hands (docs/monitor.md, "Bourré").

Each rule runs one-sided CUSUMs (:mod:`dealer_station.monitor.cusum`) on a hit-or-miss look
whose chance under a fair game is stated per look; the false-alarm rate of the table is shared
between the four rules by their ``share`` and within a rule equally between its tests
(Bonferroni), exactly as :class:`~dealer_station.monitor.monitor.Monitor` shares it for La
Pair'e.

- **The deal by seat** (``bourre-deal``): for each seat, two tests of its first five cards
  against the deck. *Trumps*: the seat was dealt at least two trumps; *Aces*: at least one
  Ace. The chances are exact (hypergeometric): the card turned for trumps is known to all, so
  each seat's other cards are dealt from the 51 others (the dealer's other four likewise).
- **Chip dumping** (``chip-dumping``): for each ordered pair of seats A>B, in each hand both
  stayed in and someone took the pot, whether B took it. The chance is B's own: given who
  stayed, a player who stayed takes the pot with chance 1 / the players who stayed, times
  B's strength, its pots taken over that expectation in the day's hands it stayed in without
  A (drawn towards 1 while they are few): so a strong player, or the dealer's seat, is held
  to its own record, and only B's taking more pots *when A plays* counts. An alert names A
  (the seat whose chips pass) and B (the seat they pass to).
- **Soft play** (``soft-play``): for each ordered pair A>B, in each hand where B stayed before
  A decided, whether A folded. The chance is A's own: how often A folded in the day's other
  decisions (those B's stay did not precede), drawn towards the table's fold rate (four
  decisions' weight) while A has made few.
- **Reneges** (``reneges``): for each seat, each renege in a hand the seat played is a look:
  whether the renege was the seat's. Chance: 1 / the players who played the hand (each plays
  as many cards).

A pair's or seat's evidence is about the players who sit there: it starts again when a
different player takes the seat (a new session's players). Seats numbered above ``[monitor]
seats`` are tested with the same thresholds (the stated rate holds for tables of at most that
many seats).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dealer_station.monitor.alerts import Alert
from dealer_station.monitor.cusum import Cusum, threshold
from dealer_station.monitor.hands import PlayedHand
from dealer_station.monitor.settings import MonitorSettings, RuleSettings

#: Each rule's words (the names people read are in events/table.py's PROTECTION_RULES).
BOURRE_RULE_WORDS: dict[str, str] = {
    "bourre-deal": "The deal: a seat is dealt trumps or Aces more often than the deck allows",
    "chip-dumping": "Chip dumping: pots pass from one player to another more often than "
                    "chance",
    "soft-play": "Soft play: a player folds whenever another stays",
    "reneges": "Reneges: one seat reneges more than its share of the hands played",
}
#: What the deal rule tests at each seat, in words.
DEAL_WORDS: dict[str, str] = {"trumps": "two trumps or more", "aces": "an Ace or more"}
HAND_SIZE = 5


def pair_name(rule: str, a: int, b: int) -> str:
    """The test of an ordered pair: ``chip-dumping:3>5`` (seat 3's chips pass to seat 5)."""
    return f"{rule}:{a}>{b}"


@dataclass(frozen=True, slots=True)
class BourreAlert(Alert):
    """An alert of a Bourré rule: ``seat`` the seat it is about (for a pair, the one that
    folds or whose chips pass), ``other_seat`` the pair's other seat (who stays, who takes the
    pots), ``players`` who sat there, ``what`` what the deal rule counted (``trumps``,
    ``aces``)."""

    other_seat: int | None = None
    players: tuple[str, ...] = ()
    what: str | None = None

    @property
    def rule_words(self) -> str:
        return BOURRE_RULE_WORDS.get(self.rule, self.rule)

    def evidence_words(self) -> str:
        span = (f"hands {self.first_round} to {self.round_no}" if self.first_round
                != self.round_no else f"hand {self.round_no}")
        expected = f"{self.expected:.1f}"
        names = list(self.players) + [""] * 2
        if self.rule == "bourre-deal":
            return (f"seat {self.seat} ({names[0]}) was dealt "
                    f"{DEAL_WORDS.get(self.what or '', self.what)} {self.hits} times in "
                    f"{self.looks} hands ({span}) where a fair deck gives {expected}")
        if self.rule == "chip-dumping":
            return (f"seat {self.other_seat} ({names[1]}) took the pot {self.hits} times in "
                    f"{self.looks} hands seat {self.seat} ({names[0]}) stayed in with it "
                    f"({span}) where chance gives {expected}")
        if self.rule == "soft-play":
            return (f"seat {self.seat} ({names[0]}) folded {self.hits} times in {self.looks} "
                    f"hands after seat {self.other_seat} ({names[1]}) stayed ({span}) where "
                    f"its other decisions give {expected}")
        return (f"seat {self.seat} reneged {self.hits} times of the {self.looks} reneges in "
                f"hands it played ({span}) where its share of the hands gives {expected}")

    def to_json(self) -> dict[str, Any]:
        data = Alert.to_json(self)
        data.update(other_seat=self.other_seat, players=list(self.players), what=self.what)
        return data


@dataclass
class Crossing:
    """A test that reached its threshold with this hand, before it restarts."""

    rule: str
    test: str
    cusum: Cusum
    seat: int
    other_seat: int | None = None
    players: tuple[str, ...] = ()
    what: str | None = None


class _Tests:
    """A rule's tests by key, each kept for the players it is about: a test whose seats now
    hold other players starts afresh."""

    def __init__(self, h: float, shift: float) -> None:
        self.h, self.shift = h, shift
        self.tests: dict[Any, tuple[tuple[str, ...], Cusum]] = {}

    def get(self, key: Any, who: tuple[str, ...]) -> Cusum:
        found = self.tests.get(key)
        if found is None or found[0] != who:
            found = self.tests[key] = (who, Cusum(self.h, self.shift))
        return found[1]


def _hypergeometric_at_least(k: int, population: int, good: int, draws: int) -> float:
    """P(X >= k) for X the good cards among ``draws`` drawn from ``population``."""
    total = math.comb(population, draws)
    return sum(math.comb(good, i) * math.comb(population - good, draws - i)
               for i in range(k, min(good, draws) + 1)) / total


def _rank(card: str) -> str:
    return card[:-1]


def _suit(card: str) -> str:
    return card[-1]


class DealRule:
    RULE = "bourre-deal"
    KINDS = ("trumps", "aces")

    def __init__(self, h: float, shift: float, seats: int) -> None:
        self.seats = seats
        self.by_test = _Tests(h, shift)

    def tests(self) -> int:
        return self.seats * len(self.KINDS)

    @staticmethod
    def name(seat: int, what: str) -> str:
        return f"{DealRule.RULE}:{seat}:{what}"

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for (seat, what), (_, t) in sorted(self.by_test.tests.items()):
            yield self.name(seat, what), t

    def observe(self, hand: PlayedHand) -> Iterator[Crossing]:
        dealt = {s: hand.dealt(s) for s in hand.seats}
        if not dealt or any(len(c) != HAND_SIZE for c in dealt.values()):
            return      # a deal not finished (a hand voided during it) says nothing
        up = hand.trump_card
        trump = _suit(up) if up else hand.trump
        for seat in sorted(dealt):
            cards = list(dealt[seat])
            if up is not None and up in cards:
                cards.remove(up)
            population = 51 if up is not None else 52
            trumps_left = 13 - (1 if up is not None else 0)
            aces_left = 4 - (1 if up is not None and _rank(up) == "A" else 0)
            looks = [("aces", sum(_rank(c) == "A" for c in cards) >= 1,
                      _hypergeometric_at_least(1, population, aces_left, len(cards)))]
            if trump is not None:
                looks.insert(0, ("trumps", sum(_suit(c) == trump for c in cards) >= 2,
                                 _hypergeometric_at_least(2, population, trumps_left,
                                                          len(cards))))
            who = (hand.who(seat),)
            for what, hit, p0 in looks:
                test = self.by_test.get((seat, what), who)
                if test.update(hit, p0, hand.hand_no, dealer=hand.dealer):
                    yield Crossing(self.RULE, self.name(seat, what), test, seat, None, who,
                                   what)


class ChipDumpingRule:
    RULE = "chip-dumping"
    #: How many expected pots' weight "as likely as any other" has in B's own strength.
    PRIOR = 4.0

    def __init__(self, h: float, shift: float, seats: int) -> None:
        self.seats = seats
        self.by_pair = _Tests(h, shift)
        #: By pair A>B: B's pots taken and its expected pots (1 / stayers each) in the
        #: day's hands B stayed in without A.
        self.other: dict[tuple[int, int], tuple[tuple[str, ...], int, float]] = {}

    def tests(self) -> int:
        return self.seats * (self.seats - 1)

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for (a, b), (_, t) in sorted(self.by_pair.tests.items()):
            yield pair_name(self.RULE, a, b), t

    def strength(self, a: int, b: int, who: tuple[str, ...]) -> float:
        """B's pots taken over its expected pots in the day's hands without A, drawn
        towards 1 (as likely as any other) while they are few."""
        mine = self.other.get((a, b))
        won, expected = (mine[1], mine[2]) if mine is not None and mine[0] == who else (0, 0.0)
        return (won + self.PRIOR) / (expected + self.PRIOR)

    def observe(self, hand: PlayedHand) -> Iterator[Crossing]:
        stayers = sorted(set(hand.stayers))
        if hand.voided or hand.winner is None or len(stayers) < 2:
            return
        chance = 1.0 / len(stayers)
        crossings: list[Crossing] = []
        for b in stayers:
            for a in sorted(set(hand.seats) | set(stayers)):
                if a == b:
                    continue
                who = (hand.who(a), hand.who(b))
                if a not in stayers:
                    mine = self.other.get((a, b))
                    won, expected = (mine[1], mine[2]) if mine is not None and \
                        mine[0] == who else (0, 0.0)
                    self.other[(a, b)] = (who, won + int(hand.winner == b),
                                          expected + chance)
                    continue
                p0 = min(0.95, chance * self.strength(a, b, who))
                test = self.by_pair.get((a, b), who)
                if test.update(hand.winner == b, p0, hand.hand_no, dealer=hand.dealer):
                    crossings.append(Crossing(self.RULE, pair_name(self.RULE, a, b), test,
                                              a, b, who))
        yield from crossings


class SoftPlayRule:
    RULE = "soft-play"
    #: How many decisions' weight the table's fold rate has in a player's own.
    PRIOR = 4.0

    def __init__(self, h: float, shift: float, seats: int) -> None:
        self.seats = seats
        self.by_pair = _Tests(h, shift)
        #: The table's decisions and folds this day; each player's "other" decisions and
        #: folds, by pair (those the pair's other seat did not stay before).
        self.decisions = 0
        self.folds = 0
        self.other: dict[tuple[int, int], tuple[tuple[str, ...], int, int]] = {}

    def tests(self) -> int:
        return self.seats * (self.seats - 1)

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for (a, b), (_, t) in sorted(self.by_pair.tests.items()):
            yield pair_name(self.RULE, a, b), t

    def chance(self, a: int, b: int, who: tuple[str, ...]) -> float:
        """A's chance of folding, from its decisions that B's stay did not precede."""
        table = (self.folds + 1.0) / (self.decisions + 2.0)
        mine = self.other.get((a, b))
        decided, folded = (mine[1], mine[2]) if mine is not None and mine[0] == who else (0, 0)
        return min(0.98, max(0.02, (folded + self.PRIOR * table) / (decided + self.PRIOR)))

    def observe(self, hand: PlayedHand) -> Iterator[Crossing]:
        if hand.voided:
            return
        seats = sorted(set(hand.seats) | {s for s, _ in hand.decisions})
        crossings: list[Crossing] = []
        updates: list[tuple[tuple[int, int], tuple[str, ...], bool]] = []
        for i, (a, stayed) in enumerate(hand.decisions):
            before = {s for s, st in hand.decisions[:i] if st}
            for b in seats:
                if b == a:
                    continue
                who = (hand.who(a), hand.who(b))
                if b in before:
                    test = self.by_pair.get((a, b), who)
                    p0 = self.chance(a, b, who)
                    if test.update(not stayed, p0, hand.hand_no, dealer=hand.dealer):
                        crossings.append(Crossing(self.RULE, pair_name(self.RULE, a, b), test,
                                                  a, b, who))
                else:
                    updates.append(((a, b), who, not stayed))
        # The hand's other decisions count towards the chances of the hands after it.
        for key, players, folded in updates:
            mine = self.other.get(key)
            decided, folds = (mine[1], mine[2]) if mine is not None and mine[0] == players \
                else (0, 0)
            self.other[key] = (players, decided + 1, folds + int(folded))
        self.decisions += len(hand.decisions)
        self.folds += sum(not st for _, st in hand.decisions)
        yield from crossings


class RenegeRule:
    RULE = "reneges"

    def __init__(self, h: float, shift: float, seats: int) -> None:
        self.seats = seats
        self.by_seat = _Tests(h, shift)

    def tests(self) -> int:
        return self.seats

    def statistics(self) -> Iterator[tuple[str, Cusum]]:
        for seat, (_, t) in sorted(self.by_seat.tests.items()):
            yield f"{self.RULE}:{seat}", t

    def observe(self, hand: PlayedHand) -> Iterator[Crossing]:
        if not hand.reneges:
            return
        played = sorted(set(hand.stayers) | set(hand.reneges))
        p0 = 1.0 / len(played)
        for reneged in hand.reneges:
            for seat in played:
                who = (hand.who(seat),)
                test = self.by_seat.get(seat, ())
                if test.update(reneged == seat, p0, hand.hand_no, dealer=hand.dealer):
                    yield Crossing(self.RULE, f"{self.RULE}:{seat}", test, seat, None, who)


Rule = DealRule | ChipDumpingRule | SoftPlayRule | RenegeRule


def bourre_rules(s: MonitorSettings) -> list[tuple[type[Rule], RuleSettings]]:
    """Each Bourré rule and its settings."""
    return [(DealRule, s.bourre_deal), (ChipDumpingRule, s.chip_dumping),
            (SoftPlayRule, s.soft_play), (RenegeRule, s.reneges)]


class BourreMonitor:
    """The monitor of a Bourré table, fed its hands one at a time in order.

    The false-alarm rate, ``1 / settings.rounds_per_false_alarm`` per hand, is shared between
    the four rules by their ``share`` and within a rule equally between its tests; each
    test's threshold is ``h = log(tests in the rule / the rule's rate)`` (Lorden).
    """

    #: What the table plays, as its alerts and listings say it.
    UNIT = "hand"

    def __init__(self, table: str, settings: MonitorSettings | None = None) -> None:
        self.table = table
        self.settings = s = settings or MonitorSettings()
        rate = 1.0 / s.rounds_per_false_alarm
        chosen = bourre_rules(s)
        total = sum(r.share for _, r in chosen)
        self.rules: list[Rule] = []
        #: Each enabled rule's threshold.
        self.thresholds: dict[str, float] = {}
        for cls, r in chosen:
            if r.share <= 0:
                continue
            tests = cls(1.0, r.shift, s.seats).tests()
            h = threshold(rate * r.share / total / tests)
            self.rules.append(cls(h, r.shift, s.seats))
            self.thresholds[cls.RULE] = h
        #: How many tests run at the table (the p-values' Bonferroni factor).
        self.tests = sum(rule.tests() for rule in self.rules)
        self.rounds = 0

    def feed(self, hand: PlayedHand) -> list[Alert]:
        """One finished hand (in order); the alerts it raises."""
        self.rounds += 1
        alerts: list[Alert] = []
        for rule in self.rules:
            for crossing in rule.observe(hand):
                alerts.append(self._alert(hand, crossing))
                crossing.cusum.restart()
        return alerts

    def test(self, name: str) -> Cusum | None:
        """The test named ``name`` (``chip-dumping:3>5``, ``reneges:2``), if it has looked."""
        for rule in self.rules:
            for found, t in rule.statistics():
                if found == name:
                    return t
        return None

    def statistics(self) -> dict[str, float]:
        """Every test's statistic now, by its name (a test not yet looked at is absent)."""
        return {name: t.statistic for rule in self.rules for name, t in rule.statistics()}

    def _alert(self, hand: PlayedHand, c: Crossing) -> BourreAlert:
        t = c.cusum
        return BourreAlert(
            rule=c.rule, test=c.test, table=self.table, round_no=hand.hand_no, seat=c.seat,
            dealer=hand.dealer, stage=None, value=None, colour=None, statistic=t.statistic,
            threshold=t.h, p_value=t.p_value(self.tests),
            rounds_per_false_alarm=self.settings.rounds_per_false_alarm, tests=self.tests,
            first_round=t.first_round if t.first_round is not None else hand.hand_no,
            looks=t.looks, hits=t.hits, expected=t.expected, dealers=tuple(t.dealers),
            other_seat=c.other_seat, players=c.players, what=c.what)
