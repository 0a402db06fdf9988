"""A table's settled rounds as money for the hold band and the dealer rule
(:mod:`dealer_station.monitor.hold`): each round's wagered total, computed house win,
theoretical win and the exact variance of its house win given the wagers placed.

Read through the monitor's reader (:mod:`dealer_station.table.monitor_rounds`): the wagered
total, the computed win and the theoretical win are the round's closing meters (the figures
the shift and master game reports sum), the variance the law of its house win from the
game's ``round_law`` part (the registry's; a game without one, or a round whose law is not
known, has variance 0 here and so does not widen the band). A game the house does not bank
(its rounds close without meters) gives no rounds.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from dealer_station.monitor.hold import RoundStake
from dealer_station.monitor.rounds import DealtRound
from dealer_station.table.monitor_rounds import monitor_rounds

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal


def stake_of(rnd: DealtRound) -> RoundStake | None:
    """A round read by the monitor's reader as money (None: a round without meters)."""
    if rnd.win is None:
        return None
    law = rnd.law
    theoretical = (rnd.theoretical if rnd.theoretical is not None
                   else law.mean if law is not None else 0.0)
    return RoundStake(rnd.round_no, rnd.dealer, rnd.wagered, rnd.win, theoretical,
                      law.variance if law is not None else 0.0)


def round_stakes(journal: Journal, table: str, since: datetime | None = None,
                 until: datetime | None = None) -> Iterator[RoundStake]:
    """The table's settled (or voided) rounds opened in ``[since, until)`` (None:
    open-ended), in the order they closed."""
    for read in monitor_rounds(journal, table, since=since, until=until):
        stake = stake_of(read.round) if isinstance(read.round, DealtRound) else None
        if stake is not None:
            yield stake
