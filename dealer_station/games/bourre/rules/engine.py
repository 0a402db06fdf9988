"""One hand of Bourré as a state machine: ante, deal, decisions, draw, play, settlement.

Pure (no clock, no I/O). Every action comes in three forms, in the pokerkit manner:
``verify_x(...)`` raises an error saying why the action is refused, ``can_x(...)`` answers
True/False, and ``x(...)`` verifies, applies and returns a frozen record that is also appended
to ``hand.log``. A refused action changes nothing.

The table service drives a hand card by card: ``ante()``, ``deal_card(card)`` for each card
from the shoe, ``stay(seat)`` / ``fold(seat)`` from the dealer's touches, ``discard(seat,
cards)`` then ``receive(seat, card)`` for each card drawn, and ``play(seat, card)`` for each card
the reader sees. The hand settles itself when the fifth trick is taken (``hand.result``).

A card the seat holds but may not play is a misplay, recorded with the rule it breaks. Under
the tournament profile it is a renege: the card goes back, the same player plays again, and at
the end she matches the pot (capped) and cannot win it.

Chips are conserved: the chips on the table plus the pot plus the house collection are checked
after every money movement; a mismatch raises ``ConservationError`` and the hand refuses to go
on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TypeVar

from dealer_station.cards import BOURRE_DECK, Card, Suit
from dealer_station.games.bourre.rules.config import (
    HAND_SIZE,
    TRICKS,
    BourreProfile,
    HouseCollection,
)
from dealer_station.games.bourre.rules.play import (
    Violation,
    check_play,
    legal_plays,
    trick_winner,
)
from dealer_station.games.bourre.rules.records import (
    DECK_SIZE,
    AnteRecord,
    BourreError,
    ConservationError,
    DealRecord,
    DecisionRecord,
    DiscardRecord,
    DrawSource,
    HandEvent,
    HandResult,
    IllegalActionError,
    ImpossibleCardError,
    Misplay,
    Phase,
    PlayRecord,
    ReceiveRecord,
)

_R = TypeVar("_R", AnteRecord, DealRecord, DecisionRecord, DiscardRecord, ReceiveRecord,
             PlayRecord)


def _frozen(d: dict[int, int]) -> Mapping[int, int]:
    return MappingProxyType(dict(d))


# -- the hand -----------------------------------------------------------------------------------


class BourreHand:
    """One deal of Bourré at one table.

    ``seats`` are in clockwise order; ``chips`` are each seat's chips before the ante; ``pot``
    is the pot carried in from the last deal, before this deal's antes.
    """

    def __init__(self, profile: BourreProfile, seats: Sequence[int], dealer: int,
                 chips: Mapping[int, int], pot: int = 0) -> None:
        seats = tuple(seats)
        if len(set(seats)) != len(seats):
            raise IllegalActionError(f"a seat is listed twice in {list(seats)}")
        n = len(seats)
        if not profile.min_players <= n <= profile.max_players:
            raise IllegalActionError(
                f"{n} players seated: the {profile.name} rules need "
                f"{profile.min_players} to {profile.max_players}")
        if dealer not in seats:
            raise IllegalActionError(f"dealer {dealer} is not one of the seats {list(seats)}")
        for seat in seats:
            amount = chips.get(seat)
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise IllegalActionError(f"seat {seat} has no chip count")
            if amount < 1:
                raise IllegalActionError(
                    f"seat {seat} has {amount} chips: a player out of chips is out of the "
                    f"session and cannot be dealt in")
        if isinstance(pot, bool) or not isinstance(pot, int) or pot < 0:
            raise IllegalActionError(f"the carried pot must be 0 or more chips, got {pot!r}")
        self.profile = profile
        self.seats = seats
        self.dealer = dealer
        i = seats.index(dealer)
        #: Seats from the dealer's left, the dealer last: the order of dealing and deciding.
        self.order: tuple[int, ...] = seats[i + 1:] + seats[:i + 1]
        self._chips: dict[int, int] = {s: chips[s] for s in seats}
        self._chips_in: Mapping[int, int] = _frozen(self._chips)
        self._pot = pot
        self._pot_in = pot
        self._house = 0
        self._total = sum(self._chips.values()) + pot
        self._phase = Phase.ANTE
        self._log: list[HandEvent] = []
        self._held: dict[int, list[Card]] = {s: [] for s in seats}
        self._seen: set[Card] = set()
        self._deal_count = 0
        self._trump_card: Card | None = None
        self._trump: Suit | None = None
        self._decision_index = 0
        self._stayers: list[int] = []
        self._folded: list[int] = []
        self._stock_left = DECK_SIZE - HAND_SIZE * n
        self._folded_pool: list[Card] = []
        self._discard_pool: list[Card] = []
        self._draw_index = 0
        self._to_receive = 0
        self._discarded = False
        self._play_order: list[int] = []
        self._trick_no = 1
        self._turn = 0
        self._trick: list[tuple[int, Card]] = []
        self._trick_cards: list[Card] = []  # the same cards, kept for the legality checks
        self._tricks: dict[int, int] = {}
        self._misplays: list[Misplay] = []
        self._result: HandResult | None = None
        #: Set when the chip count failed: every later action is refused with this message.
        self._halted: str | None = None

    # -- building a hand from a recorded deal ---------------------------------------------------

    @classmethod
    def from_deal(cls, profile: BourreProfile, seats: Sequence[int], dealer: int,
                  chips: Mapping[int, int], pot: int,
                  deal: Mapping[int, Sequence[Card]]) -> BourreHand:
        """A hand anted and dealt from a known full deal (each seat's five cards in the order
        received), ready for the decisions. For replay and the JSON contract."""
        hand = cls(profile, seats, dealer, chips, pot)
        for seat in hand.seats:
            cards = deal.get(seat)
            if cards is None:
                raise IllegalActionError(f"seat {seat} has no cards in the deal")
            if len(cards) != HAND_SIZE:
                raise IllegalActionError(f"seat {seat} was dealt {len(cards)} cards; a Bourré "
                                         f"deal is {HAND_SIZE} each")
        extra = sorted(set(deal) - set(hand.seats))
        if extra:
            raise IllegalActionError(f"the deal has cards for seat {extra[0]}, which is not "
                                     f"seated")
        hand.ante()
        for r in range(HAND_SIZE):
            for seat in hand.order:
                hand.deal_card(deal[seat][r], seat)
        return hand

    # -- what the UI and the table service read -------------------------------------------------

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def to_act(self) -> int | None:
        """The seat whose card, decision, draw or play comes next; None in ante and settled."""
        phase = self._phase
        if phase is Phase.DEAL:
            return self.order[self._deal_count % len(self.order)]
        if phase is Phase.DECISIONS:
            return self.order[self._decision_index]
        if phase is Phase.DRAW:
            return self._stayers[self._draw_index]
        if phase is Phase.PLAY:
            return self._play_order[self._turn]
        return None

    @property
    def chips(self) -> Mapping[int, int]:
        return _frozen(self._chips)

    @property
    def chips_before(self) -> Mapping[int, int]:
        """Each seat's chips before the ante."""
        return self._chips_in

    @property
    def pot_before(self) -> int:
        """The pot carried in, before the antes."""
        return self._pot_in

    @property
    def pot(self) -> int:
        """The pot now; once settled, the pot carried into the next deal."""
        return self._pot

    @property
    def house(self) -> int:
        """The house collection taken so far this hand (kept apart from the pot)."""
        return self._house

    @property
    def trump(self) -> Suit | None:
        return self._trump

    @property
    def trump_card(self) -> Card | None:
        return self._trump_card

    @property
    def stayers(self) -> tuple[int, ...]:
        return tuple(self._stayers)

    @property
    def folded(self) -> tuple[int, ...]:
        return tuple(self._folded)

    @property
    def tricks(self) -> Mapping[int, int]:
        """Tricks taken so far per staying seat."""
        return _frozen(self._tricks)

    @property
    def trick_number(self) -> int:
        """The trick being played, 1..5 (6 once all five are taken)."""
        return self._trick_no

    @property
    def current_trick(self) -> tuple[tuple[int, Card], ...]:
        """(seat, card) played so far to the trick under way, in order."""
        return tuple(self._trick)

    @property
    def folded_pile(self) -> tuple[Card, ...]:
        """Cards of the folded hands not yet dealt out again in the draw."""
        return tuple(self._folded_pool)

    @property
    def discard_pile(self) -> tuple[Card, ...]:
        """Discards not yet dealt out again in the draw."""
        return tuple(self._discard_pool)

    @property
    def unseen(self) -> tuple[Card, ...]:
        """The cards nobody has been dealt or has drawn yet, in deck order: what the stock's
        next cards can be. (A shoe restarted mid-hand is loaded with these.)"""
        return tuple(c for c in BOURRE_DECK.cards() if c not in self._seen)

    @property
    def stock_left(self) -> int:
        """Unseen cards left in the stock."""
        return self._stock_left

    @property
    def misplays(self) -> tuple[Misplay, ...]:
        return tuple(self._misplays)

    @property
    def log(self) -> tuple[HandEvent, ...]:
        return tuple(self._log)

    @property
    def result(self) -> HandResult | None:
        return self._result

    def held(self, seat: int) -> tuple[Card, ...]:
        """The cards the seat holds now."""
        self._check_seat(seat)
        return tuple(self._held[seat])

    def stays_needed(self) -> int:
        """How many players must stay at this table size."""
        return self.profile.min_staying_for(len(self.seats))

    def legal_cards(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now; empty unless she is the player to act."""
        if self._phase is not Phase.PLAY or seat != self.to_act:
            return []
        assert self._trump is not None
        return legal_plays(self._held[seat], self._trick_cards, self._trump,
                           self.profile)

    def violation(self, seat: int, card: Card) -> Violation | None:
        """The rule of play ``card`` breaks for ``seat`` now, with the reason (None if legal).
        Raises IllegalActionError when the play is impossible (see ``verify_play``)."""
        self.verify_play(seat, card)
        assert self._trump is not None
        return check_play(self._held[seat], self._trick_cards, self._trump, card,
                          self.profile)

    def illegal_reason(self, seat: int, card: Card) -> str | None:
        """Why ``seat`` may not play ``card`` now, or None when the play is legal."""
        try:
            self.verify_play(seat, card)
        except BourreError as exc:
            return str(exc)
        found = self.violation(seat, card)
        if found is None:
            return None
        return f"{card.code} is a renege ({found.rule.value}): {found.reason}"

    def is_legal(self, seat: int, card: Card) -> bool:
        return self.illegal_reason(seat, card) is None

    # -- ante -----------------------------------------------------------------------------------

    def verify_ante(self) -> None:
        self._need_phase(Phase.ANTE, "ante")

    def can_ante(self) -> bool:
        return self._can(self.verify_ante)

    def ante(self) -> AnteRecord:
        """Every seat antes (or the dealer for everyone). A seat short of the ante puts in all
        she has. A house drop comes out of the pot once the antes are in."""
        self.verify_ante()
        p = self.profile
        paid: dict[int, int] = {}
        if p.dealer_antes_for_all:
            paid[self.dealer] = min(self._chips[self.dealer], p.ante * len(self.seats))
        else:
            for seat in self.order:
                paid[seat] = min(self._chips[seat], p.ante)
        for seat, amount in paid.items():
            self._chips[seat] -= amount
            self._pot += amount
        drop = 0
        if p.house_collection is HouseCollection.DROP:
            drop = min(p.house_drop, self._pot)
            self._pot -= drop
            self._house += drop
        self._check_conservation("the ante")
        self._phase = Phase.DEAL
        return self._record(AnteRecord(_frozen(paid), drop, self._pot))

    # -- deal -----------------------------------------------------------------------------------

    def verify_deal_card(self, card: Card, seat: int | None = None) -> None:
        self._need_phase(Phase.DEAL, "deal a card")
        to = self.to_act
        if seat is not None and seat != to:
            raise IllegalActionError(f"{card.code} dealt to seat {seat} out of turn: the next "
                                     f"card goes to seat {to}")
        if card.is_joker:
            raise ImpossibleCardError("the Bourré deck has no jokers")
        if card in self._seen:
            raise ImpossibleCardError(f"{card.code} has already been dealt this hand "
                                      f"({self._where(card)})")

    def can_deal_card(self, card: Card, seat: int | None = None) -> bool:
        return self._can(self.verify_deal_card, card, seat)

    def deal_card(self, card: Card, seat: int | None = None) -> DealRecord:
        """The next card from the shoe, to the seat ``to_act`` (``seat``, if given, must match).
        The dealer's fifth card fixes trumps."""
        n = len(self.order)
        to = self.order[self._deal_count % n]
        # Fast path for the usual good card; anything odd goes through verify for its reason.
        seen = self._seen
        size = len(seen)
        if self._phase is not Phase.DEAL or (seat is not None and seat != to) or card.suit is None:
            self.verify_deal_card(card, seat)
        seen.add(card)
        if len(seen) == size:  # one hash instead of a look-up and an add
            self.verify_deal_card(card, seat)
        self._deal_count += 1
        self._held[to].append(card)
        trump: Suit | None = None
        if self._deal_count == HAND_SIZE * n:
            self._trump_card = card
            self._trump = trump = card.suit
        record = self._record(DealRecord(to, card, len(self._held[to]), trump))
        if trump is not None:
            self._start_decisions()
        return record

    # -- decisions ------------------------------------------------------------------------------

    def _start_decisions(self) -> None:
        self._phase = Phase.DECISIONS
        able = sum(1 for s in self.order if self._chips[s] >= self.profile.stay_cost)
        if able < self.stays_needed():
            # Too few can put up the stay chip: no hand can be played; the pot carries.
            self._settle(dead=True)

    def _able_after(self, index: int) -> int:
        cost = self.profile.stay_cost
        return sum(1 for s in self.order[index + 1:] if self._chips[s] >= cost)

    def _verify_decision(self, seat: int, what: str) -> None:
        self._need_phase(Phase.DECISIONS, what)
        self._check_seat(seat)
        if seat != self.to_act:
            raise IllegalActionError(f"seat {seat} cannot {what} out of turn: seat "
                                     f"{self.to_act} decides next")

    def verify_stay(self, seat: int) -> None:
        self._verify_decision(seat, "stay")
        cost = self.profile.stay_cost
        if self._chips[seat] < cost:
            raise IllegalActionError(f"seat {seat} cannot stay: she has {self._chips[seat]} "
                                     f"chips left and staying costs {cost}; she must fold")

    def can_stay(self, seat: int) -> bool:
        return self._can(self.verify_stay, seat)

    def stay(self, seat: int) -> DecisionRecord:
        """``seat`` stays in and puts up the stay chip (when the profile has a second ante)."""
        self.verify_stay(seat)
        cost = self.profile.stay_cost
        self._chips[seat] -= cost
        self._pot += cost
        self._check_conservation("a stay chip")
        self._stayers.append(seat)
        return self._decided(DecisionRecord(seat, True, cost))

    def verify_fold(self, seat: int) -> None:
        self._verify_decision(seat, "fold")
        if self._chips[seat] < self.profile.stay_cost:
            return  # she cannot afford to stay: the fold is forced, never refused
        need = self.stays_needed()
        if len(self._stayers) + self._able_after(self._decision_index) < need:
            raise IllegalActionError(
                f"seat {seat} may not fold: at least {need} players must stay at a table of "
                f"{len(self.seats)}, and folding would leave too few; she must stay")

    def can_fold(self, seat: int) -> bool:
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int) -> DecisionRecord:
        """``seat`` folds and forfeits her ante; her cards go to the folded pile."""
        self.verify_fold(seat)
        self._folded.append(seat)
        self._folded_pool.extend(self._held[seat])
        self._held[seat] = []
        return self._decided(DecisionRecord(seat, False, 0))

    def _decided(self, record: DecisionRecord) -> DecisionRecord:
        self._record(record)
        self._decision_index += 1
        if self._decision_index == len(self.order):
            # Stayers are already in order from the dealer's left.
            self._tricks = {s: 0 for s in self._stayers}
            if self.profile.draw_limit == 0:
                self._start_play()
            else:
                self._phase = Phase.DRAW
        return record

    # -- draw -----------------------------------------------------------------------------------

    def _verify_drawer(self, seat: int, what: str) -> None:
        self._need_phase(Phase.DRAW, what)
        self._check_seat(seat)
        if seat != self.to_act:
            raise IllegalActionError(f"seat {seat} cannot {what} out of turn: seat "
                                     f"{self.to_act} draws next")

    def verify_discard(self, seat: int, cards: Sequence[Card]) -> None:
        self._verify_drawer(seat, "discard")
        if self._discarded:
            raise IllegalActionError(f"seat {seat} has already discarded; deal her "
                                     f"{self._to_receive} more card(s)")
        limit = self.profile.draw_limit
        if len(cards) > limit:
            raise IllegalActionError(f"seat {seat} may discard at most {limit} cards, not "
                                     f"{len(cards)}")
        if len(set(cards)) != len(cards):
            raise IllegalActionError(f"seat {seat} discards the same card twice")
        held = self._held[seat]
        for card in cards:
            if card not in held:
                raise IllegalActionError(f"seat {seat} cannot discard {card.code}: she does not "
                                         f"hold it ({self._where(card)})")

    def can_discard(self, seat: int, cards: Sequence[Card]) -> bool:
        return self._can(self.verify_discard, seat, cards)

    def discard(self, seat: int, cards: Sequence[Card]) -> DiscardRecord:
        """``seat`` discards ``cards`` (none: she stands pat) and is then dealt as many."""
        self.verify_discard(seat, cards)
        held = self._held[seat]
        for card in cards:
            held.remove(card)
        self._discard_pool.extend(cards)
        record = self._record(DiscardRecord(seat, tuple(cards)))
        if cards:
            self._discarded = True
            self._to_receive = len(cards)
        else:
            self._next_drawer()
        return record

    def draw_source(self) -> DrawSource | None:
        """Where the next card drawn must come from, or None when nothing is left."""
        if self._stock_left > 0:
            return DrawSource.STOCK
        if self._folded_pool:
            return DrawSource.FOLDED
        if self._discard_pool:
            return DrawSource.DISCARDS
        return None

    def verify_receive(self, seat: int, card: Card) -> None:
        self._verify_drawer(seat, "receive a card")
        if not self._discarded:
            raise IllegalActionError(f"seat {seat} has not discarded yet: record her discards "
                                     f"before dealing her cards")
        source = self.draw_source()
        if source is DrawSource.STOCK:
            if card.is_joker or card in self._seen:
                raise ImpossibleCardError(
                    f"{card.code} cannot be drawn by seat {seat}: it was already dealt "
                    f"({self._where(card)}) and the stock still holds {self._stock_left} "
                    f"unseen card(s)")
        elif source is DrawSource.FOLDED:
            if card not in self._folded_pool:
                raise ImpossibleCardError(
                    f"{card.code} cannot be drawn by seat {seat}: the stock is used up, so "
                    f"cards now come from the folded hands ({self._where(card)})")
        elif source is DrawSource.DISCARDS:
            if card not in self._discard_pool:
                raise ImpossibleCardError(
                    f"{card.code} cannot be drawn by seat {seat}: the stock and the folded "
                    f"hands are used up, so cards now come from the discards "
                    f"({self._where(card)})")
        else:
            raise ImpossibleCardError("no cards are left to draw")

    def can_receive(self, seat: int, card: Card) -> bool:
        return self._can(self.verify_receive, seat, card)

    def receive(self, seat: int, card: Card) -> ReceiveRecord:
        """A card dealt to ``seat`` for her draw: from the stock, then once it runs out the
        folded hands, then the discards."""
        self.verify_receive(seat, card)
        source = self.draw_source()
        assert source is not None
        if source is DrawSource.STOCK:
            self._stock_left -= 1
            self._seen.add(card)
        elif source is DrawSource.FOLDED:
            self._folded_pool.remove(card)
        else:
            self._discard_pool.remove(card)
        self._held[seat].append(card)
        record = self._record(ReceiveRecord(seat, card, source))
        self._to_receive -= 1
        if self._to_receive == 0:
            self._next_drawer()
        return record

    def _next_drawer(self) -> None:
        self._discarded = False
        self._draw_index += 1
        if self._draw_index == len(self._stayers):
            self._start_play()

    # -- play -----------------------------------------------------------------------------------

    def _start_play(self) -> None:
        self._phase = Phase.PLAY
        self._play_order = list(self._stayers)  # the first stayer to the dealer's left leads
        self._turn = 0

    def verify_play(self, seat: int, card: Card) -> None:
        """Raise for a play that is impossible (wrong phase, out of turn, a card she does not
        hold). A held card that breaks a rule of play passes: ``play`` records it as a
        misplay."""
        self._need_phase(Phase.PLAY, "play a card")
        if seat not in self._held:
            raise IllegalActionError(f"seat {seat} is not at this table")
        to = self._play_order[self._turn]
        if seat != to:
            raise IllegalActionError(f"seat {seat} played {card.code} out of turn: seat {to} "
                                     f"plays next to trick {self._trick_no}")
        if card not in self._held[seat]:
            raise IllegalActionError(f"seat {seat} played {card.code}, which she does not hold "
                                     f"({self._where(card)})")

    def can_play(self, seat: int, card: Card) -> bool:
        """The play will be taken (legal, or recorded as a misplay)."""
        return self._can(self.verify_play, seat, card)

    def play(self, seat: int, card: Card) -> PlayRecord:
        """A card read from ``seat``. A legal card goes to the trick. A card that breaks a rule
        is a misplay: recorded; under retraction profiles it goes back to her hand and she
        plays again; under the "renege" penalty it stands."""
        held = self._held.get(seat)
        if self._phase is not Phase.PLAY or held is None or seat != self._play_order[self._turn]:
            self.verify_play(seat, card)
        assert held is not None and self._trump is not None
        # Take the held object itself: later look-ups then match by identity, which is much
        # cheaper than dataclass equality on every card of the hand.
        rank, suit = card.rank, card.suit
        for mine in held:
            if mine.rank == rank and mine.suit is suit:
                card = mine
                break
        else:
            self.verify_play(seat, card)  # raises: she does not hold it
        trump = self._trump
        trick_cards = self._trick_cards
        found = check_play(held, trick_cards, trump, card, self.profile)
        misplay: Misplay | None = None
        if found is not None:
            p = self.profile
            misplay = Misplay(seat, self._trick_no, card, found.rule, found.reason,
                              p.penalised_reneges, p.misplay_stands)
            self._misplays.append(misplay)
            if not p.misplay_stands:
                return self._record(PlayRecord(seat, card, self._trick_no, misplay, False,
                                               None))
        held.remove(card)
        self._trick.append((seat, card))
        trick_cards.append(card)
        number = self._trick_no
        winner: int | None = None
        if len(self._trick) == len(self._play_order):
            winner = self._trick[trick_winner(trick_cards, trump)][0]
            self._tricks[winner] += 1
            self._trick = []
            self._trick_cards = []
            self._trick_no += 1
            # The winner leads the next trick; play goes on clockwise among the stayers.
            i = self._stayers.index(winner)
            self._play_order = self._stayers[i:] + self._stayers[:i]
            self._turn = 0
        else:
            self._turn += 1
        record = self._record(PlayRecord(seat, card, number, misplay, True, winner))
        if self._trick_no > TRICKS:
            self._settle(dead=False)
        return record

    # -- settlement -----------------------------------------------------------------------------

    def _settle(self, *, dead: bool) -> None:
        p = self.profile
        pot_end = self._pot
        chips = self._chips
        reneges = tuple(m for m in self._misplays if m.penalised)
        retractions = tuple(m for m in self._misplays if not m.penalised)
        winner: int | None = None
        won = 0
        bourre: tuple[int, ...] = ()
        penalties: dict[int, int] = {}
        next_pot = pot_end
        if not dead:
            renegers = {m.seat for m in reneges}
            tricks = self._tricks
            eligible = [s for s in self._stayers if s not in renegers]
            if eligible:
                best = max(tricks[s] for s in eligible)
                leaders = [s for s in eligible if tricks[s] == best]
                # A strict leader takes the pot; a tie carries it. A leader with no trick (all
                # tricks went to renegers) cannot win a pot while bourré herself.
                if len(leaders) == 1 and best > 0:
                    winner = leaders[0]
            if winner is not None:
                take = p.house_percent_take(pot_end)
                self._house += take
                won = pot_end - take
                chips[winner] += won
                next_pot = 0
            bourre = tuple(s for s in self._stayers if tricks[s] == 0)
            penalty = p.penalty_for(pot_end)
            for seat in self._stayers:
                if tricks[seat] == 0 or seat in renegers:
                    # She must keep at least one chip after paying, else she puts in all she
                    # has and is out for the session.
                    pay = penalty if chips[seat] - penalty >= 1 else chips[seat]
                    chips[seat] -= pay
                    penalties[seat] = pay
                    next_pot += pay
        self._pot = next_pot
        self._check_conservation("settlement")
        self._result = HandResult(
            dead=dead, trump=self._trump, stayers=tuple(self._stayers),
            folded=tuple(self._folded), tricks=_frozen(self._tricks), winner=winner,
            pot_end=pot_end, won=won, bourre=bourre, reneges=reneges, retractions=retractions,
            penalties=_frozen(penalties), house=self._house, chips=_frozen(chips),
            pot=next_pot, eliminated=tuple(s for s in self.seats if chips[s] == 0))
        self._phase = Phase.SETTLED
        self._log.append(self._result)

    def _check_conservation(self, step: str) -> None:
        now = sum(self._chips.values()) + self._pot + self._house
        if now != self._total or self._pot < 0 or min(self._chips.values()) < 0:
            self._halted = (
                f"chip count broken after {step}: the table, pot and house hold {now} chips "
                f"but the hand began with {self._total} (chips {dict(self._chips)}, pot "
                f"{self._pot}, house {self._house}). Stop the table and call a supervisor; "
                f"nothing more can be settled until the count is resolved.")
            self._phase = Phase.HALTED
            raise ConservationError(self._halted)

    # -- helpers --------------------------------------------------------------------------------

    def _record(self, record: _R) -> _R:
        self._log.append(record)
        return record

    def _can(self, verify: Callable[..., None], *args: object) -> bool:
        try:
            verify(*args)
        except BourreError:
            return False
        return True

    def _need_phase(self, phase: Phase, what: str) -> None:
        if self._phase is Phase.HALTED:
            raise ConservationError(self._halted or "the hand is halted")
        if self._phase is not phase:
            raise IllegalActionError(f"cannot {what} now: the hand is in its {self._phase.value} "
                                     f"phase, not {phase.value}")

    def _check_seat(self, seat: int) -> None:
        if seat not in self._held:
            raise IllegalActionError(f"seat {seat} is not at this table (seats "
                                     f"{list(self.seats)})")

    def _where(self, card: Card) -> str:
        for seat, cards in self._held.items():
            if card in cards:
                return f"seat {seat} holds it"
        if card in self._folded_pool:
            return "it is in a folded hand"
        if card in self._discard_pool:
            return "it is in the discards"
        if card in self._seen:
            return "it has been played or discarded"
        return "it is still in the stock"


__all__ = [
    "DECK_SIZE",
    "AnteRecord",
    "BourreError",
    "BourreHand",
    "ConservationError",
    "DealRecord",
    "DecisionRecord",
    "DiscardRecord",
    "DrawSource",
    "HandEvent",
    "HandResult",
    "IllegalActionError",
    "ImpossibleCardError",
    "Misplay",
    "Phase",
    "PlayRecord",
    "ReceiveRecord",
]
