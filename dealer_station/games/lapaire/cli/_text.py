"""Text form of a recalled La Pair'e round (for ``dealer-station recall``).

Every word about the round comes from the recall model (:mod:`dealer_station.table.recall_model`,
:mod:`dealer_station.games.lapaire.table.recall`), as on the supervisor's screen and in the report.
"""

from __future__ import annotations

from dealer_station.cli.recall import exception_text, records_text, when
from dealer_station.games.lapaire.table.recall import LaPaireRecall
from dealer_station.table.recall_model import COLLECTED_LABEL, PAID_LABEL, WAGERED_MEANING


def format_round(r: LaPaireRecall, *, records: bool = False) -> str:
    h = r.header
    lines = [f"=== table {h.table} round {h.round_no} ({h.game_label}) - {h.status_label}",
             f"dealer {h.dealer}; started {when(h.started_at)}; ended "
             f"{when(h.ended_at)}; configuration {h.config_version[:16]}"]
    cards = "  ".join(f"{c.n}:{c.card} ({c.source_label})" for c in r.cards)
    lines.append(f"cards: {cards or '(none dealt)'}")
    lines.append(f"amounts in {r.written_in.label}")
    for seat in r.seats:
        lines.append(f"seat {seat.seat}:")
        for w in seat.wagers:
            outcome = w.result_label + (f" {r.amount(w.win)}" if w.result == "win" else "")
            lines.append(f"  #{w.wager_id:<3} {w.name:<28} {r.amount(w.amount):>10}  "
                         f"{w.stage_label:<15} {outcome}")
    for s in r.stages:
        poker = f" ({s.poker})" if s.poker else ""
        lines.append(f"card {s.stage} ({s.label}): {s.card}{poker}; "
                     f"{PAID_LABEL.lower()} {r.amount(s.total_win)}, "
                     f"{COLLECTED_LABEL.lower()} {r.amount(s.total_lost)}; {s.confirmed_label}")
    lines.append(f"totals: {r.totals_text()}")
    if r.returned() or r.pending():
        lines.append(f"  ({WAGERED_MEANING})")
    lines.extend(exception_text(r))
    if records:
        lines.extend(records_text(r.records))
    return "\n".join(lines)
