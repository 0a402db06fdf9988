"""What an alert says: the rule, where and when the evidence crossed, who was involved, the
statistic against its threshold, its p-value and the false-alarm rate it was set for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dealer_station.events.table import ProtectionAlerted

#: The alert's fields the journaled event holds by name (the rest are its ``evidence``).
_EVENT_FIELDS = ("rule", "test", "round_no", "seat", "dealer", "words")

#: Each rule's stable id (in the JSON) and the words people read.
RULE_WORDS: dict[str, str] = {
    "shoe": "The shoe: a card value or colour comes out more often than the deck allows",
    "card-knowledge": "Card knowledge: a seat's First Card wagers land on the coming card "
                      "more often than its spots give",
    "dealer": "Dealer's win out of band: the house wins less on a dealer's rounds than "
              "the wagers they dealt allow",
    "hold": "Table hold out of band: the house's win is outside the band the wagers placed "
            "give",
    "tray": "Tray variances by dealer: the tray is out far more often on a dealer's shifts "
            "than on the others'",
}

#: The card of each stage, as people say it.
STAGE_WORDS: dict[int, str] = {1: "the First Card", 2: "the second card", 3: "the third card"}


#: The values people say in words (the others are said as their number).
VALUE_NAMES: dict[str, str] = {"A": "Ace", "J": "Jack", "Q": "Queen", "K": "King",
                               "JK": "Joker"}


def value_words(value: str) -> str:
    """``a 7``, ``an Ace``, ``an 8``, ``a Joker``."""
    name = VALUE_NAMES.get(value, value)
    return f"{'an' if name[0] in 'A8' else 'a'} {name}"


@dataclass(frozen=True, slots=True)
class Alert:
    """One alert. ``statistic`` is the CUSUM's log-likelihood ratio when it crossed
    ``threshold``; the evidence is the segment from ``first_round`` to ``round_no``: ``looks``
    observations, ``hits`` of them hits where a fair game gives ``expected`` on average.
    ``p_value``: the segment's exact tail chance under a fair game times the number of tests
    run at the table (docs/monitor.md). ``staked``: for card knowledge, what the seat staked on
    its First Card spots over the segment (minor units)."""

    rule: str
    test: str
    table: str
    round_no: int
    seat: int | None
    dealer: str | None
    stage: int | None
    value: str | None
    colour: str | None
    statistic: float
    threshold: float
    p_value: float
    rounds_per_false_alarm: int
    tests: int
    first_round: int
    looks: int
    hits: int
    expected: float
    dealers: tuple[str, ...] = ()
    staked: int | None = None
    #: The dealer and hold rules: the segment's wagers and computed house win (minor units;
    #: ``expected`` is its theoretical win), its exact standard deviation, and the side of
    #: the band it left (``low``: the house won less).
    wagered: int | None = None
    win: int | None = None
    sd: float | None = None
    direction: str | None = None
    #: The tray rule (``win``: the sum of the dealer's shifts' variances, minor units): the
    #: table's shifts tested, how many were out (a variance either way), and the gaming days
    #: of the look's window.
    of_shifts: int | None = None
    shifts_out: int | None = None
    first_day: str | None = None
    last_day: str | None = None

    @property
    def rule_words(self) -> str:
        return RULE_WORDS.get(self.rule, self.rule)

    @property
    def false_alarm_rate(self) -> float:
        """At most this many false alarms per round at the table, across every rule."""
        return 1.0 / self.rounds_per_false_alarm

    def evidence_words(self) -> str:
        """The evidence in a sentence."""
        span = (f"rounds {self.first_round} to {self.round_no}" if self.first_round
                != self.round_no else f"round {self.round_no}")
        expected = f"{self.expected:.1f}"
        if self.rule == "tray":
            days = (f"gaming days {self.first_day} to {self.last_day}"
                    if self.first_day != self.last_day else f"gaming day {self.last_day}")
            others = (self.of_shifts or 0) - self.looks
            return (f"the tray was out on {self.hits} of the dealer's {self.looks} shifts and "
                    f"on {(self.shifts_out or 0) - self.hits} of the others' {others} "
                    f"({days}), further out on the dealer's than chance gives")
        if self.test.startswith("card-knowledge:stakes:") and self.win is not None:
            staked = self.staked or 0
            share = self.win / staked * 100 if staked else 0.0
            fair = self.expected / staked * 100 if staked else 0.0
            return (f"seat {self.seat} put {share:.0f}% of its First Card stakes on the spots "
                    f"that named the First Card over {self.looks} rounds ({span}), where the "
                    f"way it spread them gives {fair:.0f}% ({self.hits} of the rounds above "
                    f"their own)")
        if self.test.startswith("shoe:sequence:"):
            from dealer_station.monitor.sequence import KIND_WORDS

            kind = self.test.rsplit(":", 1)[1]
            stage = STAGE_WORDS.get(self.stage or 0, f"card {self.stage}")
            return (f"{stage} {KIND_WORDS.get(kind, kind)} {self.hits} times in {self.looks} "
                    f"rounds ({span}) where a fair shoe gives {expected}")
        if self.win is not None:
            # The dealer is named by the alert's dealer (shown by name where people read it):
            # the words say whose rounds, not the user id.
            who = "the dealer's" if self.rule == "dealer" else "the table's"
            z = (self.win - self.expected) / self.sd if self.sd else 0.0
            side = "below" if self.direction == "low" else "above"
            return (f"over {who} {self.looks} rounds ({span}) the house's win was "
                    f"{abs(z):.1f} standard deviations {side} the theoretical win of the "
                    f"wagers placed ({self.hits} of the rounds {side} their own)")
        if self.rule == "shoe":
            what = value_words(self.value) if self.value is not None else f"{self.colour}"
            stage = STAGE_WORDS.get(self.stage or 0, f"card {self.stage}")
            return (f"{stage} was {what} {self.hits} times in {self.looks} rounds "
                    f"({span}) where a fair deck gives {expected}")
        return (f"seat {self.seat}'s First Card spots named the First Card {self.hits} times "
                f"in {self.looks} rounds ({span}) where its spots give {expected}")

    def to_json(self) -> dict[str, Any]:
        """The issue's contract (rule, table, round_no, seat, dealer, p_value) and the rest."""
        return {
            "rule": self.rule, "test": self.test, "table": self.table, "round_no": self.round_no,
            "seat": self.seat, "dealer": self.dealer, "p_value": self.p_value,
            "stage": self.stage, "value": self.value, "colour": self.colour,
            "llr": round(self.statistic, 6), "threshold": round(self.threshold, 6),
            "false_alarm_rate": self.false_alarm_rate,
            "rounds_per_false_alarm": self.rounds_per_false_alarm, "tests": self.tests,
            "first_round": self.first_round, "looks": self.looks, "hits": self.hits,
            "expected": round(self.expected, 6), "dealers": list(self.dealers),
            "staked": self.staked, "words": self.evidence_words(),
            "wagered": self.wagered, "win": self.win, "sd": self.sd,
            "direction": self.direction,
            **({"of_shifts": self.of_shifts, "shifts_out": self.shifts_out,
                "first_day": self.first_day,
                "last_day": self.last_day} if self.rule == "tray" else {}),
        }

    def to_event(self) -> ProtectionAlerted:
        """The alert as the record the table journals (the table is the chain's own)."""
        data = self.to_json()
        del data["table"]
        core = {k: data.pop(k) for k in _EVENT_FIELDS}
        # The journal holds no floats (its canonical JSON is exact): each is kept as the
        # shortest text that reads back as the very same number.
        evidence = {k: repr(v) if isinstance(v, float) else v for k, v in data.items()}
        return ProtectionAlerted(**core, evidence=evidence)
