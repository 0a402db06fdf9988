"""The La Pair'e settlement engine.

Two ways in, one set of rules:

* ``LaPaireRound``: one live round, driven step by step in verify / can / do style. Each action
  (``place``, ``remove``, ``close_betting``, ``deal``) has ``verify_x`` (raises with a reason a
  person can read), ``can_x`` (a bool) and ``x`` (verifies, applies, and returns a frozen record
  that is also appended to ``log``). Dealing card 1, 2 and 3 settles stage 1 (First Card, Red,
  Black), stage 2 (La Pair'e Card, Any Pair'e) and stage 3 (Poker) and returns the StageResult.
* ``settle_round(config, wagers, cards)``: stateless, fast settlement of a whole round, for
  replay from the journal and for the ``settle`` command.

Both use a ``SettlementTable`` compiled once per config: for every offered spot, the odds paid
for every possible outcome of its stage (the first card's face; the first two cards' values;
the three cards' classes), so settling a wager is two lookups and one multiplication.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import NamedTuple

from dealer_station.cards import (
    LAPAIRE_DECK,
    VALUES,
    Card,
    CardError,
    RoundCards,
    check_round,
    parse_card,
)
from dealer_station.cards import parse_value as _parse_value
from dealer_station.errors import StationError
from dealer_station.games.lapaire.rules.config import (
    BET_KINDS,
    FIRST_CARD_KINDS,
    KIND_LABELS,
    STAGE_OF,
    AnyPairWager,
    EvenWager,
    LaPaireConfig,
    Odds,
    PokerWager,
    SpotWager,
)
from dealer_station.games.lapaire.rules.layout import (
    SPOT_EXAMPLES,
    SPOT_SIZE,
    is_legal_spot,
    sort_values,
    spot_label,
)
from dealer_station.games.lapaire.rules.poker import (
    CLASS_COUNT,
    JOKER_CLASS,
    SUITS,
    PokerHand,
    card_class,
    hand_table,
)

__all__ = [
    "BettingClosed", "LaPaireError", "LaPaireRound", "Placement", "Removal", "RoundError",
    "RoundResult", "SeatTotal", "SettlementTable", "StageResult", "Wager", "WagerError",
    "WagerResult", "compile_table", "settle_round",
]

_FIRST = frozenset(FIRST_CARD_KINDS)
_N = CLASS_COUNT


class LaPaireError(StationError, ValueError):
    """Something a La Pair'e round cannot accept; the message says what and why."""


class WagerError(LaPaireError):
    """A wager that cannot be placed, removed or settled as given."""


class RoundError(LaPaireError):
    """An action the round cannot take in its current state (e.g. a fourth card)."""


@dataclass(frozen=True, slots=True)
class Wager:
    """One seat's chips on one spot. ``values`` are the covered layout values (``()`` for red,
    black, any_pair and poker); they are checked and stored in canonical layout order, so
    ``Wager(1, "split", ("8", "2"), 5) == Wager(1, "split", ("2", "8"), 5)``.
    ``amount`` is a positive whole number of minor units."""

    seat: int
    bet: str
    values: tuple[str, ...]
    amount: int
    #: (bet, values): the key of the spot this wager is on.
    spot: tuple[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 1:
            raise WagerError(f"seat must be a whole number from 1 up, got {self.seat!r}")
        if self.bet not in BET_KINDS:
            raise WagerError(f"unknown bet {self.bet!r} (bets: {', '.join(BET_KINDS)})")
        if isinstance(self.values, str):
            raise WagerError(f"values must be a list of card values, got {self.values!r}")
        try:
            values = sort_values(_parse_value(v) for v in self.values)
        except CardError as exc:
            raise WagerError(f"{self.bet}: {exc}") from None
        if len(set(values)) != len(values):
            raise WagerError(f"{self.bet}: a value is named twice in {list(self.values)!r}")
        size = SPOT_SIZE.get(self.bet, 0)
        if len(values) != size:
            if size == 0:
                raise WagerError(f"{self.bet} takes no values, got {spot_label(values)}")
            raise WagerError(f"a {self.bet} covers {size} value{'s' if size > 1 else ''}, "
                             f"got {spot_label(values) or 'none'}")
        if isinstance(self.amount, bool) or not isinstance(self.amount, int) or self.amount < 1:
            raise WagerError(f"amount must be a positive whole number of minor units, "
                             f"got {self.amount!r}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "spot", (self.bet, values))

    @property
    def is_first_card(self) -> bool:
        return self.bet in _FIRST

    @property
    def stage(self) -> int:
        return STAGE_OF[self.bet]

    @property
    def label(self) -> str:
        """``"Split 2-8"``, ``"First Card Red"``: the bet as the felt names it and its spot,
        for messages and screens."""
        name = KIND_LABELS[self.bet]
        return f"{name} {spot_label(self.values)}" if self.values else name

    @property
    def code(self) -> str:
        """``"split 2-8"``, ``"red"``: the bet's key and its spot, as recall's JSON has
        always written it (a contract other tools read)."""
        return f"{self.bet} {spot_label(self.values)}" if self.values else self.bet


class WagerResult(NamedTuple):
    """How one wager settled. ``win`` excludes the returned stake (0 on a loss); ``wager_id`` is
    the placement id in a LaPaireRound, the position in the input for settle_round."""

    wager_id: int
    wager: Wager
    stage: int
    won: bool
    win: int

    @property
    def result(self) -> str:
        return "win" if self.won else "lose"

    @property
    def returned(self) -> int:
        """What goes back to the player: stake plus win, or nothing."""
        return self.wager.amount + self.win if self.won else 0


@dataclass(frozen=True, slots=True)
class SeatTotal:
    """One seat's money in a round, in minor units: ``staked`` in all; ``win`` won (stakes
    excluded) and ``lost`` lost by settled wagers; ``pending`` staked on unsettled ones."""

    seat: int
    staked: int
    win: int
    lost: int
    pending: int

    @property
    def net(self) -> int:
        return self.win - self.lost


def seat_totals(results: Iterable[WagerResult], pending: Iterable[Wager] = ()
                ) -> dict[int, SeatTotal]:
    """Per-seat totals of settled ``results`` and still-unsettled ``pending`` wagers."""
    acc: dict[int, list[int]] = {}
    for r in results:
        t = acc.setdefault(r.wager.seat, [0, 0, 0, 0])
        t[0] += r.wager.amount
        if r.won:
            t[1] += r.win
        else:
            t[2] += r.wager.amount
    for w in pending:
        t = acc.setdefault(w.seat, [0, 0, 0, 0])
        t[0] += w.amount
        t[3] += w.amount
    return {s: SeatTotal(s, *acc[s]) for s in sorted(acc)}


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A whole round settled by settle_round: one result per input wager, in input order."""

    cards: tuple[Card, ...]
    results: tuple[WagerResult, ...]
    total_win: int
    total_lost: int

    def seat_totals(self) -> dict[int, SeatTotal]:
        return seat_totals(self.results)

    def stage(self, stage: int) -> tuple[WagerResult, ...]:
        return tuple(r for r in self.results if r.stage == stage)


class _Rule(NamedTuple):
    stage: int
    first_card: bool
    #: Odds paid (None: lose) indexed by the stage's outcome number.
    pays: Sequence[Odds | None]


#: 0..12 for A..K, 13 for the joker (VALUES order), matching _value_index.
_VALUE_INDEX = {v: i for i, v in enumerate(VALUES)}
#: Outcomes of stage 2: (value of card 1) * 14 + (value of card 2).
_PAIR_OUTCOMES = len(VALUES) * len(VALUES)
#: Suit indices (class // 13, in cards.Suit order) that are red.
_RED_SUITS = frozenset(i for i, suit in enumerate(SUITS) if suit.is_red)


def _value_index(cls: int) -> int:
    """0..12 for A..K, 13 for the joker: the value a card shows on the layout."""
    return 13 if cls == JOKER_CLASS else cls % 13


def _outcome2(c1: int, c2: int) -> int:
    return _value_index(c1) * 14 + _value_index(c2)


def _outcome3(c1: int, c2: int, c3: int) -> int:
    return (c1 * _N + c2) * _N + c3


class SettlementTable:
    """A config compiled into lookups: for every offered spot, the odds for every outcome of
    the stage that settles it. Build with ``compile_table(config)`` (cached per config)."""

    def __init__(self, config: LaPaireConfig) -> None:
        self.config = config
        self.rules: dict[tuple[str, tuple[str, ...]], _Rule] = {}
        classes = range(_N)
        value_of = [_value_index(c) for c in classes]
        for w in config.wagers():
            if not w.offered:
                continue
            first = w.kind in _FIRST
            if isinstance(w, SpotWager):
                for s in w.offered_spots():
                    covered = {_VALUE_INDEX[v] for v in s.values}
                    if w.kind == "lapaire":
                        (v,) = covered
                        pays2: list[Odds | None] = [None] * _PAIR_OUTCOMES
                        pays2[v * 14 + v] = s.pays
                        self.rules[(w.kind, s.values)] = _Rule(2, False, tuple(pays2))
                    else:
                        pays1 = tuple(s.pays if value_of[c] in covered else None
                                      for c in classes)
                        self.rules[(w.kind, s.values)] = _Rule(1, first, pays1)
            elif isinstance(w, EvenWager):
                red = w.kind == "red"
                pays1 = tuple(
                    w.pays if c != JOKER_CLASS and (c // 13 in _RED_SUITS) == red else None
                    for c in classes)
                self.rules[(w.kind, ())] = _Rule(1, False, pays1)
            elif isinstance(w, AnyPairWager):
                pays2 = [None] * _PAIR_OUTCOMES
                for v in range(14):
                    pays2[v * 14 + v] = w.two_jokers_pays if v == 13 else w.pays
                self.rules[(w.kind, ())] = _Rule(2, False, tuple(pays2))
            elif isinstance(w, PokerWager):
                self.rules[(w.kind, ())] = _Rule(3, False, self._poker_pays(config))

    @staticmethod
    def _poker_pays(config: LaPaireConfig) -> list[Odds | None]:
        pays: list[Odds | None] = [None] * (_N * _N * _N)
        for triple, hand in hand_table(config.paytable()).items():
            if hand.odds is None:
                continue
            for a, b, c in set(permutations(triple)):
                pays[_outcome3(a, b, c)] = hand.odds
        return pays

    def refusal(self, wager: Wager) -> str | None:
        """Why ``wager``'s spot cannot be bet at this table, or None if it can."""
        if wager.spot in self.rules:
            return None
        kind = self.config.wager(wager.bet)
        if wager.values and not is_legal_spot(wager.bet, wager.values):
            name = KIND_LABELS[wager.bet]
            return (f"{spot_label(wager.values)} is not a {name} spot on the layout "
                    f"(a {name} covers {SPOT_EXAMPLES[wager.bet]})")
        if not kind.offered:
            return f"{KIND_LABELS[wager.bet]} is not offered at this table"
        return f"{wager.label} is not offered at this table"

    def rule(self, wager: Wager) -> _Rule:
        rule = self.rules.get(wager.spot)
        if rule is None:
            raise WagerError(self.refusal(wager) or wager.label)
        return rule


# Compiled tables by config identity (keeping the config alive so the id stays unique): hashing
# a whole config on every round would cost more than settling it.
_TABLES: dict[int, tuple[LaPaireConfig, SettlementTable]] = {}
_TABLES_MAX = 8


def compile_table(config: LaPaireConfig) -> SettlementTable:
    """The SettlementTable for ``config``, compiled on first use and then reused."""
    hit = _TABLES.get(id(config))
    if hit is not None and hit[0] is config:
        return hit[1]
    table = SettlementTable(config)
    if len(_TABLES) >= _TABLES_MAX:
        _TABLES.pop(next(iter(_TABLES)))
    _TABLES[id(config)] = (config, table)
    return table


def _describe(i: int, w: Wager) -> str:
    return f"wager #{i + 1} (seat {w.seat}, {w.label})"


def settle_round(config: LaPaireConfig, wagers: Sequence[Wager], cards: Sequence[Card]
                 ) -> RoundResult:
    """Settle a whole round: ``cards`` are the three cards in the order dealt.

    Checks what decides the payout: each spot is on the layout and offered, every seat with an
    optional wager has a First Card wager, the cards can be one round of the 54-card deck.
    Table limits are a placing rule (LaPaireRound.verify_place), not checked here. Raises
    WagerError, RoundError or CardError with the reason; returns a RoundResult otherwise.
    """
    table = compile_table(config)
    if len(cards) != 3:
        raise RoundError(f"a round is settled on exactly three cards, got {len(cards)}")
    c1, c2, c3 = card_class(cards[0]), card_class(cards[1]), card_class(cards[2])
    if c1 in (c2, c3) or c2 == c3:
        check_round(cards, LAPAIRE_DECK)  # raises unless the repeat is the deck's two jokers
    outs = (0, c1, _outcome2(c1, c2), _outcome3(c1, c2, c3))
    rules = table.rules
    results: list[WagerResult] = []
    append = results.append
    first_seats: set[int] = set()
    optional: list[int] = []
    total_win = total_lost = 0
    for i, w in enumerate(wagers):
        rule = rules.get(w.spot)
        if rule is None:
            raise WagerError(f"{_describe(i, w)}: {table.refusal(w)}")
        stage = rule.stage
        if rule.first_card:
            first_seats.add(w.seat)
        else:
            optional.append(i)
        odds = rule.pays[outs[stage]]
        if odds is None:
            total_lost += w.amount
            append(WagerResult(i, w, stage, False, 0))
        else:
            win = w.amount * odds.win // odds.stake
            total_win += win
            append(WagerResult(i, w, stage, True, win))
    for i in optional:
        w = wagers[i]
        if w.seat not in first_seats:
            raise WagerError(f"{_describe(i, w)}: seat {w.seat} has no First Card wager "
                             "(Straight-up, Split, Three Cards or Corner), which an optional "
                             "wager needs")
    return RoundResult(tuple(cards), tuple(results), total_win, total_lost)


# --- the live round -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Placement:
    """A wager accepted onto the layout under ``wager_id``."""

    wager_id: int
    wager: Wager


@dataclass(frozen=True, slots=True)
class Removal:
    """A placed wager taken back before betting closed."""

    wager_id: int
    wager: Wager


@dataclass(frozen=True, slots=True)
class BettingClosed:
    """No more wagers: ``wagers`` is what stands, by id."""

    wagers: tuple[tuple[int, Wager], ...]


@dataclass(frozen=True, slots=True)
class StageResult:
    """A card dealt and the wagers it settled (final). ``poker`` is the hand, on stage 3."""

    stage: int
    card: Card
    results: tuple[WagerResult, ...]
    poker: PokerHand | None = None

    @property
    def total_win(self) -> int:
        return sum(r.win for r in self.results)

    @property
    def total_lost(self) -> int:
        return sum(r.wager.amount for r in self.results if not r.won)

    def seat_totals(self) -> dict[int, SeatTotal]:
        return seat_totals(self.results)


RoundRecord = Placement | Removal | BettingClosed | StageResult


class LaPaireRound:
    """One La Pair'e round: wagers are placed and removed while betting is open; dealing the
    first card closes betting; each card settles its stage's wagers for good."""

    def __init__(self, config: LaPaireConfig) -> None:
        self.config = config
        self._table = compile_table(config)
        self._wagers: dict[int, Wager] = {}
        self._next_id = 1
        self._log: list[RoundRecord] = []
        self._cards = RoundCards(LAPAIRE_DECK)
        self._classes: list[int] = []
        self._betting_open = True
        self._results: dict[int, WagerResult] = {}

    def copy(self) -> LaPaireRound:
        """An independent copy, to try an intent on without changing this round (the compiled
        paytable is shared: it never changes)."""
        other = LaPaireRound.__new__(LaPaireRound)
        other.config = self.config
        other._table = self._table
        other._wagers = dict(self._wagers)
        other._next_id = self._next_id
        other._log = list(self._log)
        other._cards = self._cards.copy()
        other._classes = list(self._classes)
        other._betting_open = self._betting_open
        other._results = dict(self._results)
        return other

    # -- state ----------------------------------------------------------------------------
    @property
    def betting_open(self) -> bool:
        return self._betting_open

    @property
    def cards(self) -> tuple[Card, ...]:
        return tuple(self._cards)

    @property
    def stage(self) -> int:
        """How many cards have been dealt (0..3): the last stage settled."""
        return len(self._classes)

    @property
    def is_complete(self) -> bool:
        return len(self._classes) == 3

    @property
    def wagers(self) -> Mapping[int, Wager]:
        """The wagers standing, by id (a copy)."""
        return dict(self._wagers)

    @property
    def log(self) -> tuple[RoundRecord, ...]:
        return tuple(self._log)

    @property
    def results(self) -> tuple[WagerResult, ...]:
        """Every settled wager so far, by id."""
        return tuple(self._results[i] for i in sorted(self._results))

    def pending(self) -> tuple[tuple[int, Wager], ...]:
        """Wagers not settled yet, by id."""
        return tuple((i, w) for i, w in sorted(self._wagers.items()) if i not in self._results)

    def seat_totals(self) -> dict[int, SeatTotal]:
        return seat_totals(self.results, (w for _, w in self.pending()))

    def _seat_wagers(self, seat: int) -> list[tuple[int, Wager]]:
        return [(i, w) for i, w in self._wagers.items() if w.seat == seat]

    def _spot_total(self, wager: Wager) -> int:
        return sum(w.amount for w in self._wagers.values()
                   if w.seat == wager.seat and w.spot == wager.spot)

    # -- place --------------------------------------------------------------------------------
    def verify_place(self, wager: Wager) -> None:
        """Raise WagerError if ``wager`` cannot be placed now, saying why."""
        if not self._betting_open:
            raise WagerError("betting is closed for this round")
        reason = self._table.refusal(wager)
        if reason is not None:
            raise WagerError(reason)
        if not wager.is_first_card and not any(
                w.is_first_card for _, w in self._seat_wagers(wager.seat)):
            raise WagerError(f"seat {wager.seat} has no First Card wager yet: place a "
                             f"Straight-up, Split, Three Cards or Corner before {wager.label}")
        limits = self.config.wager(wager.bet).limits
        already = self._spot_total(wager)
        total = already + wager.amount
        money = self.config.money
        on = f" (with {money.text(already)} already there)" if already else ""
        if total > limits.maximum:
            raise WagerError(f"{wager.label} for seat {wager.seat}: {money.text(total)}{on} is "
                             f"over the table maximum {money.text(limits.maximum)}")
        if total < limits.minimum:
            raise WagerError(f"{wager.label} for seat {wager.seat}: {money.text(total)} is "
                             f"under the table minimum {money.text(limits.minimum)}")

    def can_place(self, wager: Wager) -> bool:
        try:
            self.verify_place(wager)
        except WagerError:
            return False
        return True

    def place(self, wager: Wager) -> Placement:
        self.verify_place(wager)
        record = Placement(self._next_id, wager)
        self._next_id += 1
        self._wagers[record.wager_id] = wager
        self._log.append(record)
        return record

    # -- remove -------------------------------------------------------------------------------
    def verify_remove(self, wager_id: int) -> None:
        """Raise WagerError if wager ``wager_id`` cannot be taken back now, saying why."""
        if not self._betting_open:
            raise WagerError("betting is closed for this round: wagers can no longer be removed")
        wager = self._wagers.get(wager_id)
        if wager is None:
            raise WagerError(f"there is no wager #{wager_id} on the layout")
        others = [w for i, w in self._seat_wagers(wager.seat) if i != wager_id]
        if wager.is_first_card and not any(w.is_first_card for w in others):
            optional = sorted({w.label for w in others})
            if optional:
                raise WagerError(f"wager #{wager_id} is seat {wager.seat}'s last First Card "
                                 f"wager and the seat still has {', '.join(optional)}: remove "
                                 f"those first")
        left = self._spot_total(wager) - wager.amount
        minimum = self.config.wager(wager.bet).limits.minimum
        if 0 < left < minimum:
            money = self.config.money
            raise WagerError(f"removing wager #{wager_id} would leave {money.text(left)} on "
                             f"{wager.label} for seat {wager.seat}, under the table minimum "
                             f"{money.text(minimum)}: remove the other chips there first")

    def can_remove(self, wager_id: int) -> bool:
        try:
            self.verify_remove(wager_id)
        except WagerError:
            return False
        return True

    def remove(self, wager_id: int) -> Removal:
        self.verify_remove(wager_id)
        record = Removal(wager_id, self._wagers.pop(wager_id))
        self._log.append(record)
        return record

    # -- close betting ------------------------------------------------------------------------
    def verify_close_betting(self) -> None:
        if not self._betting_open:
            raise RoundError("betting is already closed for this round")

    def can_close_betting(self) -> bool:
        return self._betting_open

    def close_betting(self) -> BettingClosed:
        self.verify_close_betting()
        self._betting_open = False
        record = BettingClosed(tuple(sorted(self._wagers.items())))
        self._log.append(record)
        return record

    # -- deal ---------------------------------------------------------------------------------
    def verify_deal(self, card: Card | str) -> None:
        """Raise RoundError after three cards, CardError for a card this round cannot hold."""
        if len(self._classes) == 3:
            raise RoundError("all three cards of this round have been dealt")
        self._cards.check(parse_card(card) if isinstance(card, str) else card)

    def can_deal(self, card: Card | str) -> bool:
        try:
            self.verify_deal(card)
        except (RoundError, CardError):
            return False
        return True

    def deal(self, card: Card | str) -> StageResult:
        """Turn the next card and settle the wagers of its stage. Dealing the first card closes
        betting (recording BettingClosed first)."""
        card = parse_card(card) if isinstance(card, str) else card
        self.verify_deal(card)
        if self._betting_open:
            self.close_betting()
        card = self._cards.add(card)
        self._classes.append(card_class(card))
        stage = len(self._classes)
        cl = self._classes
        outcome = (cl[0] if stage == 1 else _outcome2(cl[0], cl[1]) if stage == 2
                   else _outcome3(cl[0], cl[1], cl[2]))
        settled: list[WagerResult] = []
        for wager_id, w in sorted(self._wagers.items()):
            rule = self._table.rule(w)
            if rule.stage != stage:
                continue
            odds = rule.pays[outcome]
            result = WagerResult(wager_id, w, stage, odds is not None,
                                 0 if odds is None else odds.pay(w.amount))
            self._results[wager_id] = result
            settled.append(result)
        poker = None
        if stage == 3:
            a, b, c = sorted(cl)
            poker = hand_table(self.config.paytable())[(a, b, c)]
        record = StageResult(stage, card, tuple(settled), poker)
        self._log.append(record)
        return record
