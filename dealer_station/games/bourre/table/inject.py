"""Bourré's anomalies for ``simulate --inject`` (issue 24), so that the game-protection
monitor's pot-game rules can be tested and shown (docs/monitor.md, "Bourré"):

* ``chip-dumping:A>B@HAND``: from hand HAND on, the player at seat A passes chips to the
  player at seat B: both stay whenever the rules let them, and A lays its lowest card (the
  lowest of its non-trumps first) whenever B is in the hand, so that A takes no trick B could
  take. The two players come back to the same seats in every session of the run.
* ``soft-play:A>B@HAND``: from hand HAND on, the player at seat A folds whenever the player
  at seat B has stayed before A's turn to decide (and the rules let A fold). The two players
  come back to the same seats in every session.
* ``reneges:SEAT@HAND``: from hand HAND on, the player at SEAT lays a card the rules forbid in
  one play in two where it holds one (the others renege one play in fifty, as ever).

HAND is the table's hand number as the journal numbers them (counting earlier runs into the
same journal). The choices come from the run's seeded generator; without injections it is
drawn exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dealer_station.cards import Card, Suit
from dealer_station.errors import StationError
from dealer_station.games.bourre.rules.play import trick_winner

CHIP_DUMPING = "chip-dumping"
SOFT_PLAY = "soft-play"
RENEGES = "reneges"
ANOMALIES = (CHIP_DUMPING, SOFT_PLAY, RENEGES)
PAIRS = (CHIP_DUMPING, SOFT_PLAY)
#: The anomalies of the banked game, refused here by name.
BANKED = ("biased-shoe", "card-knowledge")
INJECT_FORM = ("chip-dumping:SEAT>SEAT@HAND, soft-play:SEAT>SEAT@HAND or "
               "reneges:SEAT@HAND")
#: How often a seat that reneges by design lays a forbidden card when it holds one.
RENEGE_SHARE = 0.5
#: The ranks from the lowest (an Ace is high).
RANK_ORDER = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


class InjectionError(StationError):
    """An ``--inject`` Bourré cannot play; the message names the part that is wrong."""


@dataclass(frozen=True, slots=True)
class Injection:
    """One anomaly from hand ``hand_no`` on: ``seat`` (for a pair, A) and ``other`` (B)."""

    anomaly: str
    hand_no: int
    seat: int
    other: int | None = None

    @property
    def spec(self) -> str:
        who = f"{self.seat}>{self.other}" if self.other is not None else f"{self.seat}"
        return f"{self.anomaly}:{who}@{self.hand_no}"

    def active(self, hand_no: int | None) -> bool:
        return hand_no is not None and hand_no >= self.hand_no

    @classmethod
    def parse(cls, spec: str, seats: Sequence[int]) -> Injection:
        """An ``--inject`` spec; an InjectionError names the part that is wrong."""
        bad = f"--inject {spec!r}"
        head, at, hand_text = spec.strip().rpartition("@")
        if not at:
            raise InjectionError(f"{bad}: no '@HAND' (the hand it starts at); write "
                                 f"{INJECT_FORM}, e.g. chip-dumping:2>4@50")
        anomaly, colon, arg = head.partition(":")
        anomaly = anomaly.strip().lower()
        if anomaly not in ANOMALIES:
            what = (f"{anomaly!r} is La Pair'e's (--game lapaire), not Bourré's"
                    if anomaly in BANKED else
                    f"unknown anomaly {anomaly!r}" if anomaly else "no anomaly named")
            raise InjectionError(f"{bad}: {what}; Bourré's anomalies are "
                                 f"{', '.join(ANOMALIES)} (write {INJECT_FORM})")
        arg = arg.strip()
        pair = anomaly in PAIRS
        if not colon or not arg:
            what = "SEAT>SEAT (the seat that passes chips or folds, then the other)" if pair \
                else "SEAT"
            raise InjectionError(f"{bad}: {anomaly} needs its {what} after ':', e.g. "
                                 f"{anomaly}:{'2>4' if pair else '3'}@50")
        hand_text = hand_text.strip()
        if not hand_text.isdigit() or int(hand_text) < 1:
            raise InjectionError(f"{bad}: the hand after '@' must be a hand number from 1 "
                                 f"up, got {hand_text!r}")
        texts = arg.split(">") if pair else [arg]
        if pair and len(texts) != 2:
            raise InjectionError(f"{bad}: {anomaly} names two seats as SEAT>SEAT (the seat "
                                 f"that {'passes chips' if anomaly == CHIP_DUMPING else 'folds'}"
                                 f" first), e.g. {anomaly}:2>4@50")
        found: list[int] = []
        for text in (t.strip() for t in texts):
            if not text.isdigit() or int(text) not in seats:
                raise InjectionError(f"{bad}: seat {text or '(none)'} is not a seat at the "
                                     f"table (the seats are {', '.join(map(str, seats))})")
            found.append(int(text))
        if pair and found[0] == found[1]:
            raise InjectionError(f"{bad}: {anomaly} is between two different seats, got "
                                 f"seat {found[0]} twice")
        return cls(anomaly, int(hand_text), found[0], found[1] if pair else None)


@dataclass(frozen=True)
class Injections:
    """The anomalies a run injects (none: the run plays exactly as it always has)."""

    items: tuple[Injection, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.items)

    @classmethod
    def parse(cls, specs: Sequence[str], seats: Sequence[int]) -> Injections:
        """Every ``--inject`` of a run: a seat in one anomaly of each kind at most."""
        items = tuple(Injection.parse(s, seats) for s in specs)
        for kind in ANOMALIES:
            seats_of = [i.seat for i in items if i.anomaly == kind]
            twice = sorted({s for s in seats_of if seats_of.count(s) > 1})
            if twice:
                raise InjectionError(f"--inject: {kind} is given twice for seat {twice[0]}; "
                                     f"give each seat once")
        return cls(items)

    def kept_seats(self) -> set[int]:
        """The seats whose players come back in every session (a pair's)."""
        return {s for i in self.items if i.anomaly in PAIRS
                for s in (i.seat, i.other) if s is not None}

    def stays(self, seat: int, hand_no: int | None, stayed_before: set[int]
              ) -> bool | None:
        """What ``seat`` decides by design (True stay, False fold), or None: as it would."""
        for i in self.items:
            if not i.active(hand_no):
                continue
            if i.anomaly == CHIP_DUMPING and seat in (i.seat, i.other):
                return True
            if i.anomaly == SOFT_PLAY and seat == i.seat and i.other in stayed_before:
                return False
        return None

    def renege_share(self, seat: int, hand_no: int | None, usual: float) -> float:
        return max([usual] + [RENEGE_SHARE for i in self.items if i.anomaly == RENEGES
                              and i.seat == seat and i.active(hand_no)])

    def dumps(self, seat: int, hand_no: int | None, stayers: Sequence[int]) -> bool:
        """Whether ``seat`` lays its lowest card now (B is in the hand)."""
        return any(i.anomaly == CHIP_DUMPING and i.seat == seat and i.other in stayers
                   and i.active(hand_no) for i in self.items)


    def partner(self, seat: int) -> int:
        """The seat that ``seat`` passes chips to."""
        return next(i.other for i in self.items
                    if i.anomaly == CHIP_DUMPING and i.seat == seat and i.other is not None)

    def for_partner(self, legal: Sequence[Card], trick: Sequence[tuple[int, Card]],
                    trump: Suit | None, partner: int, partner_holds: Sequence[Card]
                    ) -> Card:
        """The card a seat passing chips lays, knowing its partner's (B's) cards: to lead,
        its lowest card of a suit B holds a higher card of; following, its lowest while B may
        still take the trick or is taking it, its highest once another player is taking a
        trick B has lost."""
        suit = trump.value if trump is not None else None
        if not trick:
            beaten = [c for c in legal if any(
                h.suit == c.suit and _power(h, suit) > _power(c, suit) for h in partner_holds)]
            return lowest(beaten or legal, suit)
        if trump is not None and partner in (s for s, _ in trick):
            taking = trick[trick_winner([c for _, c in trick], trump)][0]
            if taking != partner:
                return max(legal, key=lambda c: _power(c, suit))
        return lowest(legal, suit)


def _power(card: Card, trump: str | None) -> tuple[bool, int]:
    return (card.suit is not None and card.suit.value == trump,
            RANK_ORDER.index(card.rank) if card.rank in RANK_ORDER else 0)


def lowest(cards: Sequence[Card], trump: str | None) -> Card:
    """The lowest of ``cards``: the lowest non-trump, else the lowest trump."""
    return min(cards, key=lambda c: _power(c, trump))
