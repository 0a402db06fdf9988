"""The heaviest cards a La Pair'e table's configuration allows, for the dealer's payout list.

A round's worst cards are found from the configuration, not written down: every seat holds
every offered spot that wins on the round's cards, each at its kind's table maximum, and one
losing spot of every kind besides (a take line for each stage). Two rounds stand for the
worst:

- ``most``: the first card on which the most spots win (on the default table a 2 or an 8:
  the straight-up, three splits, A-2-8, a corner and the colour), paid the most on ties;
  then the second card and the third that pay most after it;
- ``widest``: the first card whose single largest pay is largest (the Joker's straight-up),
  then likewise: the widest amounts a pay line shows (La Pair'e Card on the Joker).

The screenshots, the tests of the payout list and ``benchmarks/bench_ui.py`` use them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dealer_station.cards import parse_card
from dealer_station.games.lapaire.rules.config import (
    FIRST_CARD_KINDS,
    AnyPairWager,
    EvenWager,
    LaPaireConfig,
    PokerWager,
    SpotWager,
)
from dealer_station.games.lapaire.rules.engine import Wager, WagerResult, settle_round

SEATS = 7
#: The deck's cards in a fixed order (one joker: a second is the same card).
_DECK: tuple[str, ...] = tuple(
    [f"{v}{s}" for s in "HDSC" for v in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                         "J", "Q", "K")] + ["JK"])


@dataclass(frozen=True, slots=True)
class WorstRound:
    """A round's three cards and what each seat holds on them."""

    name: str
    cards: tuple[str, str, str]
    wagers: tuple[Wager, ...]


def every_spot(config: LaPaireConfig, seat: int) -> list[Wager]:
    """Every spot offered at the table, each at its kind's maximum, for ``seat``."""
    out = []
    for w in config.wagers():
        if not w.offered:
            continue
        top = w.limits.maximum
        if isinstance(w, SpotWager):
            out += [Wager(seat, w.kind, s.values, top) for s in w.offered_spots()]
        elif isinstance(w, EvenWager | AnyPairWager | PokerWager):
            out.append(Wager(seat, w.kind, (), top))
    return out


def _settle(config: LaPaireConfig, cards: Sequence[str]) -> tuple[WagerResult, ...]:
    return settle_round(config, every_spot(config, 1), [parse_card(c) for c in cards]).results


def _legal(cards: Sequence[str]) -> bool:
    return all(cards.count(c) == 1 for c in cards if c != "JK") and cards.count("JK") <= 2


def _best(config: LaPaireConfig, dealt: list[str], stage: int,
          score: Callable[[list[WagerResult]], tuple[int, ...]]) -> str:
    """The card for ``stage`` after ``dealt`` whose stage scores most (the deck's first on
    ties); the cards after it are any that can follow."""
    best: tuple[tuple[int, ...], str] | None = None
    for card in _DECK:
        cards = [*dealt, card]
        if not _legal(cards):
            continue
        rest = [c for c in _DECK if _legal([*cards, c])][: 3 - len(cards)]
        if len(rest) < 3 - len(cards):
            rest = ["JK"] * (3 - len(cards))
        results = [r for r in _settle(config, [*cards, *rest]) if r.stage == stage]
        s = score(results)
        if best is None or s > best[0]:
            best = (s, card)
    assert best is not None
    return best[1]


def _most(results: list[WagerResult]) -> tuple[int, ...]:
    won = [r for r in results if r.won]
    return len(won), sum(r.win for r in won)


def _widest(results: list[WagerResult]) -> tuple[int, ...]:
    won = [r for r in results if r.won]
    return max((r.win for r in won), default=0), len(won), sum(r.win for r in won)


def worst_wagers(config: LaPaireConfig, cards: Sequence[str], seats: int = SEATS
                 ) -> tuple[Wager, ...]:
    """For each seat: every offered spot that wins on ``cards`` at its maximum, and the first
    offered spot of every kind that loses on them (its take line); First Card wagers
    first, as a seat must place them."""
    results = _settle(config, cards)
    chosen = [r.wager for r in results if r.won]
    for kind in [w.kind for w in config.wagers() if w.offered]:
        lost = next((r.wager for r in results if r.wager.bet == kind and not r.won), None)
        if lost is not None:
            chosen.append(lost)
    chosen.sort(key=lambda w: w.bet not in FIRST_CARD_KINDS)
    return tuple(Wager(seat, w.bet, w.values, w.amount)
                 for seat in range(1, seats + 1) for w in chosen)


def worst_rounds(config: LaPaireConfig, seats: int = SEATS) -> list[WorstRound]:
    """The ``most`` and ``widest`` rounds of ``config`` (see the module's docstring)."""
    out = []
    for name, score in (("most", _most), ("widest", _widest)):
        dealt: list[str] = []
        for stage in (1, 2, 3):
            dealt.append(_best(config, dealt, stage, score))
        cards = (dealt[0], dealt[1], dealt[2])
        out.append(WorstRound(name, cards, worst_wagers(config, cards, seats)))
    return out

