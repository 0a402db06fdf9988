"""One table's monitor: fed its rounds one at a time, in order, it runs every enabled rule's
tests and returns the alerts each round raises."""

from __future__ import annotations

from dealer_station.monitor.alerts import Alert
from dealer_station.monitor.cusum import Cusum, threshold
from dealer_station.monitor.hold import LOW, WinCusum
from dealer_station.monitor.rounds import DealtRound
from dealer_station.monitor.rules import (
    CardKnowledgeRule,
    Crossing,
    DealerRule,
    HoldRule,
    ShoeRule,
    WinCrossing,
    scored_round,
)
from dealer_station.monitor.sequence import SequenceRule
from dealer_station.monitor.settings import MonitorSettings
from dealer_station.monitor.stakes import STAKES_SHIFT, StakeCrossing, StakeSizeRule


class Monitor:
    """The monitor of table ``table``.

    The false-alarm rate, ``1 / settings.rounds_per_false_alarm`` per round, is shared between
    the rules by their ``share`` and within a rule equally between its tests (Bonferroni);
    each test's threshold is ``h = log(tests in the rule / the rule's rate)`` (Lorden; see
    :mod:`dealer_station.monitor.cusum`). A test that alerts starts again from 0, so one
    anomaly raises one alert and then another only once fresh evidence crosses again.
    """

    def __init__(self, table: str, settings: MonitorSettings | None = None) -> None:
        self.table = table
        self.settings = s = settings or MonitorSettings()
        rate = 1.0 / s.rounds_per_false_alarm
        total = s.total_share
        self.shoe: ShoeRule | None = None
        self.card_knowledge: CardKnowledgeRule | None = None
        #: Each enabled rule's threshold.
        self.thresholds: dict[str, float] = {}
        self.sequence: SequenceRule | None = None
        self.stakes: StakeSizeRule | None = None
        if s.shoe.share > 0:
            # The shoe's value and colour tests and its sequence tests share its rate.
            h = threshold(rate * s.shoe.share / total
                          / (ShoeRule.tests() + SequenceRule.tests()))
            self.shoe = ShoeRule(h, s.shoe.shift)
            self.sequence = SequenceRule(h, s.shoe.shift)
            self.thresholds[ShoeRule.RULE] = h
        if s.card_knowledge.share > 0:
            # Each seat's hit test and its stake test share card knowledge's rate.
            h = threshold(rate * s.card_knowledge.share / total / (2 * s.seats))
            self.card_knowledge = CardKnowledgeRule(h, s.card_knowledge.shift, s.seats)
            self.stakes = StakeSizeRule(h, STAKES_SHIFT)
            self.thresholds[CardKnowledgeRule.RULE] = h
        self.dealer: DealerRule | None = None
        self.hold: HoldRule | None = None
        if s.dealer.share > 0:
            h = threshold(rate * s.dealer.share / total / DealerRule.tests())
            self.dealer = DealerRule(h, s.dealer.shift)
            self.thresholds[DealerRule.RULE] = h
        if s.hold.share > 0:
            h = threshold(rate * s.hold.share / total / HoldRule.tests())
            self.hold = HoldRule(h, s.hold.shift)
            self.thresholds[HoldRule.RULE] = h
        #: How many tests run at the table (the p-values' Bonferroni factor).
        self.tests = ((ShoeRule.tests() + SequenceRule.tests() if self.shoe else 0)
                      + (2 * self.card_knowledge.tests() if self.card_knowledge else 0)
                      + (DealerRule.tests() if self.dealer else 0)
                      + (HoldRule.tests() if self.hold else 0))
        self.rounds = 0

    def feed(self, rnd: DealtRound) -> list[Alert]:
        """One finished round (in order); the alerts it raises."""
        self.rounds += 1
        alerts: list[Alert] = []
        for rule in (self.shoe, self.sequence, self.card_knowledge):
            if rule is None:
                continue
            for crossing in rule.observe(rnd):
                alerts.append(self._alert(rnd, crossing))
                crossing.cusum.restart()
        if self.stakes is not None:
            for staked in self.stakes.observe(rnd):
                alerts.append(self._stake_alert(rnd, staked))
                staked.cusum.restart()
        scored = scored_round(rnd) if self.dealer or self.hold else None
        for money in (self.dealer, self.hold):
            if money is None or scored is None:
                continue
            for won in money.observe(rnd, scored):
                alerts.append(self._win_alert(rnd, won))
                won.cusum.restart()
        return alerts

    def test(self, name: str) -> Cusum | WinCusum | None:
        """The test named ``name`` (``shoe:1:7``, ``card-knowledge:3``, ``dealer:<user>``,
        ``hold:low``), if it has looked."""
        for rule in (self.shoe, self.sequence, self.card_knowledge):
            if rule is not None:
                for found, t in rule.statistics():
                    if found == name:
                        return t
        for money in (self.stakes, self.dealer, self.hold):
            if money is not None:
                for found, w in money.statistics():
                    if found == name:
                        return w
        return None

    def statistics(self) -> dict[str, float]:
        """Every test's statistic now, by its name (a test not yet looked at is absent)."""
        out: dict[str, float] = {}
        for rule in (self.shoe, self.sequence, self.card_knowledge):
            if rule is not None:
                out.update((name, t.statistic) for name, t in rule.statistics())
        for money in (self.stakes, self.dealer, self.hold):
            if money is not None:
                out.update((name, w.statistic) for name, w in money.statistics())
        return out

    def _stake_alert(self, rnd: DealtRound, c: StakeCrossing) -> Alert:
        t = c.cusum
        return Alert(
            rule=c.rule, test=c.test, table=self.table, round_no=rnd.round_no, seat=c.seat,
            dealer=rnd.dealer, stage=None, value=None, colour=None, statistic=t.statistic,
            threshold=t.h, p_value=t.p_value(self.tests),
            rounds_per_false_alarm=self.settings.rounds_per_false_alarm, tests=self.tests,
            first_round=t.first_round if t.first_round is not None else rnd.round_no,
            looks=t.looks, hits=t.hits, expected=t.theoretical, dealers=tuple(t.dealers),
            staked=t.wagered, win=t.win, sd=t.variance ** 0.5, direction="high")

    def _win_alert(self, rnd: DealtRound, c: WinCrossing) -> Alert:
        t = c.cusum
        return Alert(
            rule=c.rule, test=c.test, table=self.table, round_no=rnd.round_no, seat=None,
            dealer=c.dealer if c.dealer is not None else rnd.dealer, stage=None, value=None,
            colour=None, statistic=t.statistic, threshold=t.h,
            p_value=t.p_value(self.tests),
            rounds_per_false_alarm=self.settings.rounds_per_false_alarm, tests=self.tests,
            first_round=t.first_round if t.first_round is not None else rnd.round_no,
            looks=t.looks, hits=t.hits, expected=t.theoretical, dealers=tuple(t.dealers),
            wagered=t.wagered, win=t.win, sd=t.variance ** 0.5,
            direction="low" if t.direction == LOW else "high")

    def _alert(self, rnd: DealtRound, c: Crossing) -> Alert:
        t = c.cusum
        return Alert(
            rule=c.rule, test=c.test, table=self.table, round_no=rnd.round_no, seat=c.seat,
            dealer=rnd.dealer, stage=c.stage, value=c.value, colour=c.colour,
            statistic=t.statistic, threshold=t.h, p_value=t.p_value(self.tests),
            rounds_per_false_alarm=self.settings.rounds_per_false_alarm, tests=self.tests,
            first_round=t.first_round if t.first_round is not None else rnd.round_no,
            looks=t.looks, hits=t.hits, expected=t.expected, dealers=tuple(t.dealers),
            staked=t.staked if c.rule == CardKnowledgeRule.RULE else None)
