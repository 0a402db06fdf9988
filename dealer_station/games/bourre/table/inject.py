"""Bourré's anomalies for ``simulate --inject`` (issue 24), so that the game-protection
monitor's pot-game rules can be tested and shown (docs/monitor.md, "Bourré"):

* ``chip-dumping:A>B@HAND``: from hand HAND on, the player at seat A passes chips to the
  player at seat B, the two sharing their cards as a colluding pair does. When B's hand is
  strong (two trumps and Aces or more), B stays and A stays with it, and plays for B: it leads
  into the suits where B holds the best card, ducks the tricks B can take and takes those a
  third player would; otherwise A folds. B plays its hands as a sound player does (it keeps
  its trumps, Aces and Kings in the draw, leads a card nobody can beat, takes a trick when it
  can), in every hand it plays, so that the monitor holds it to its own record. The two
  players come back to the same seats in every session of the run.
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

from dealer_station.cards import BOURRE_DECK, Card, Suit
from dealer_station.errors import StationError
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.games.bourre.rules.engine import BourreHand
from dealer_station.games.bourre.rules.play import legal_plays, trick_winner
from dealer_station.games.bourre.rules.records import PlayRecord

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
#: B's hand is strong (the pair dumping chips plays it) with this many trumps and Aces.
STRONG_HAND = 2
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

    def _dumping(self, seat: int, hand_no: int | None) -> Injection | None:
        """The chip dumping ``seat`` is one of (A or B) in hand ``hand_no``, if any."""
        return next((i for i in self.items if i.anomaly == CHIP_DUMPING and i.active(hand_no)
                     and seat in (i.seat, i.other)), None)

    def stays(self, seat: int, hand_no: int | None, hand: BourreHand) -> bool | None:
        """What ``seat`` decides by design (True stay, False fold), or None: as it would.

        A pair dumping chips decides on B's cards, which both know: when B's hand is strong
        (``strong``), B stays and A stays with it; otherwise A folds and B decides as it
        would. A seat that soft-plays folds whenever its partner stayed before it."""
        stayed_before = set(hand.stayers)
        for i in self.items:
            if not i.active(hand_no):
                continue
            if i.anomaly == CHIP_DUMPING and seat in (i.seat, i.other):
                if i.other not in hand.seats:
                    return None     # B is out of chips: A plays as it would
                assert i.other is not None
                if strong(hand.held(i.other), hand.trump):
                    return True
                return False if seat == i.seat else None
            if i.anomaly == SOFT_PLAY and seat == i.seat and i.other in stayed_before:
                return False
        return None

    def renege_share(self, seat: int, hand_no: int | None, usual: float) -> float:
        return max([usual] + [RENEGE_SHARE for i in self.items if i.anomaly == RENEGES
                              and i.seat == seat and i.active(hand_no)])

    def _plays(self, seat: int, hand_no: int | None, hand: BourreHand) -> Injection | None:
        """The chip dumping whose design ``seat`` plays in this hand: B in every hand it
        plays, A in those B plays too."""
        i = self._dumping(seat, hand_no)
        if i is None or i.other not in hand.stayers or (seat == i.seat
                                                        and seat not in hand.stayers):
            return None
        return i

    def discards(self, seat: int, hand_no: int | None, hand: BourreHand) -> list[Card] | None:
        """The cards B discards by design, or None: as it would. B keeps its trumps, Aces
        and Kings and draws to the rest (as many as the draw allows, the lowest first); A
        draws as it would."""
        i = self._plays(seat, hand_no, hand)
        if i is None or seat != i.other:
            return None
        trump = hand.trump.value if hand.trump is not None else None
        out = [c for c in hand.held(seat) if not _power(c, trump)[0] and c.rank not in ("A", "K")]
        out.sort(key=lambda c: _power(c, trump))
        return out[:hand.profile.draw_limit]

    def card(self, seat: int, hand_no: int | None, hand: BourreHand,
             legal: Sequence[Card]) -> Card | None:
        """The card A or B lays by design, or None: as it would."""
        i = self._plays(seat, hand_no, hand)
        if i is None or i.other is None:
            return None
        played = {r.card for r in hand.log if isinstance(r, PlayRecord) and r.accepted}
        if seat == i.other:
            partner = set(hand.held(i.seat)) if i.seat in hand.stayers else set()
            return to_take(legal, hand.current_trick, hand.trump, i.seat,
                           played | partner | set(hand.held(seat)), hand.stayers)
        return for_partner(legal, hand.current_trick, hand.trump, i.other, hand.held(i.other),
                           played | set(hand.held(seat)), hand.profile)


def strong(cards: Sequence[Card], trump: Suit | None) -> bool:
    """A hand a pair dumping chips plays for: at least STRONG_HAND trumps and Aces."""
    return sum(c.suit is trump or c.rank == "A" for c in cards) >= STRONG_HAND


def _beats(card: Card, best: Card, trump: Suit | None) -> bool:
    if card.suit is best.suit:
        return RANK_ORDER.index(card.rank) > RANK_ORDER.index(best.rank)
    return card.suit is trump and trump is not None


def for_partner(legal: Sequence[Card], trick: Sequence[tuple[int, Card]], trump: Suit | None,
                partner: int, partner_holds: Sequence[Card], seen: set[Card],
                profile: BourreProfile) -> Card:
    """The card A lays for B (seat ``partner``), knowing B's cards (``seen``: the cards
    played and A's own).

    To lead: its lowest card of a suit where B holds the best card left, else of a suit where
    B holds a higher card than A's. Following: its lowest card that does not take the trick
    from B (or from a player B can still beat); its highest once a third player is taking a
    trick B cannot take."""
    suit = trump.value if trump is not None else None
    if not trick:
        gone = seen | set(partner_holds)
        best = [h for h in partner_holds if not any(
            c.suit is h.suit and _power(c, suit) > _power(h, suit)
            for c in BOURRE_DECK.cards() if c not in gone)]
        for card in sorted(legal, key=lambda c: _power(c, suit)):
            if any(h.suit is card.suit for h in best):
                return card
        beaten = [c for c in legal if any(
            h.suit == c.suit and _power(h, suit) > _power(c, suit) for h in partner_holds)]
        return lowest(beaten or legal, suit)
    if trump is None:
        return lowest(legal, suit)
    cards = [c for _, c in trick]
    at = trick_winner(cards, trump)
    top, taking = cards[at], trick[at][0]
    ducks = [c for c in legal if not _beats(c, top, trump)]
    if partner in (s for s, _ in trick):
        if taking == partner:
            return lowest(ducks or legal, suit)
        return max(legal, key=lambda c: _power(c, suit))
    if any(_beats(h, top, trump) for h in legal_plays(partner_holds, cards, trump, profile)):
        return lowest(ducks or legal, suit)
    return max(legal, key=lambda c: _power(c, suit))


def to_take(legal: Sequence[Card], trick: Sequence[tuple[int, Card]], trump: Suit | None,
            partner: int, seen: set[Card], stayers: Sequence[int]) -> Card:
    """The card B lays, knowing A's cards (``seen``: the cards played, A's and B's own).

    To lead: its best card that no card left unseen beats in its suit (a trump first), else
    its lowest. Following: the lowest card that takes the trick when only A is still to play,
    else its highest card that takes it; its lowest when it cannot take it."""
    suit = trump.value if trump is not None else None
    if not trick or trump is None:
        unseen = [c for c in BOURRE_DECK.cards() if c not in seen]
        sure = [c for c in legal if not any(
            u.suit is c.suit and _power(u, suit) > _power(c, suit) for u in unseen)]
        return max(sure, key=lambda c: _power(c, suit)) if sure else lowest(legal, suit)
    cards = [c for _, c in trick]
    top = cards[trick_winner(cards, trump)]
    taking = [c for c in legal if _beats(c, top, trump)]
    if not taking:
        return lowest(legal, suit)
    played = {s for s, _ in trick}
    after = [s for s in stayers if s not in played and s != partner]
    if len(after) <= 1:     # B itself, then A alone (or nobody)
        return lowest(taking, suit)
    return max(taking, key=lambda c: _power(c, suit))


def _power(card: Card, trump: str | None) -> tuple[bool, int]:
    return (card.suit is not None and card.suit.value == trump,
            RANK_ORDER.index(card.rank) if card.rank in RANK_ORDER else 0)


def lowest(cards: Sequence[Card], trump: str | None) -> Card:
    """The lowest of ``cards``: the lowest non-trump, else the lowest trump."""
    return min(cards, key=lambda c: _power(c, trump))
