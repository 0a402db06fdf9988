"""Game recall: the last rounds of a table, rebuilt from the journal alone.

The same typed recall (:mod:`dealer_station.table.recall_model`) feeds ``dealer-station
recall``, the supervisor's recall screen and the printed dispute report, and they all take
their words from it, so all three say the same thing. Each game builds its own (the registry's
``recall`` part).
"""

from __future__ import annotations

from dealer_station import registry as games
from dealer_station.audit.journal import Journal, RoundInfo
from dealer_station.table.parts import RECALL
from dealer_station.table.recall_model import Recall


def recall_round(journal: Journal, info: RoundInfo) -> Recall:
    records = journal.round_records(info.table_id, info.round_no)
    recalled: Recall = games.game(info.game).part(RECALL)(journal, info, records)
    return recalled


def recall(journal: Journal, table_id: str, last: int = 10) -> list[Recall]:
    """The last ``last`` rounds of ``table_id``, newest first."""
    return [recall_round(journal, info) for info in journal.recent_rounds(table_id, last)]
