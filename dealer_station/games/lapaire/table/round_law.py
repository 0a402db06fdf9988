"""The registry's ``round_law`` part: the exact law of a La Pair'e round's house win given
the wagers placed (games/lapaire/rules/round_variance.py), for one configuration as the
journal holds it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dealer_station.games.lapaire.rules.config import parse_lapaire_config
from dealer_station.games.lapaire.rules.round_variance import round_laws

Staked = tuple[str, tuple[str, ...], int]
Counts = tuple[tuple[int, ...], tuple[int, ...], int]


def round_law(content: Mapping[str, Any], /
              ) -> Callable[[Sequence[Staked], int], Counts | None]:
    """The law of each round played under the configuration ``content``; a content that is
    no La Pair'e table raises the configuration's own error."""
    laws = round_laws(parse_lapaire_config(dict(content), "<journal>"))

    def law(wagers: Sequence[Staked], cards: int) -> Counts | None:
        found = laws.law(wagers, cards)
        return None if found is None else (found.values, found.counts, found.total)
    return law
