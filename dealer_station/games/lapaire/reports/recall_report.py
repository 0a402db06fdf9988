"""La Pair'e's section of the recall / dispute report (reports/recall.py): the round's cards,
each seat's wagers and the settlement stage by stage. Its own module, named in the game
registry (``report_recall``), so the shared report imports no table of La Pair'e."""

from __future__ import annotations

from dealer_station.games.lapaire.table.recall import LaPaireRecall
from dealer_station.money import Money
from dealer_station.reports.pdf_style import p
from dealer_station.reports.template import ReportBuilder, grid
from dealer_station.table.recall_model import COLLECTED_LABEL, PAID_LABEL, WAGERED_MEANING


def lapaire_section(r: ReportBuilder, rc: LaPaireRecall, money: Money) -> None:
    """The registry's ``report_recall`` part of La Pair'e: cards, wagers, stages, totals."""
    w = r.width
    fmt = rc.amount
    r.heading("Cards in order")
    cards = [[str(c.n), c.card, c.stage_label, c.source_label, c.actor, c.reason or ""]
             for c in rc.cards]
    r.add(grid(["Card", "Dealt", "Stage", "Source", "Entered by", "Reason (corrections)"],
               cards or [["-", "none dealt", "", "", "", ""]],
               [w * 0.07, w * 0.08, w * 0.15, w * 0.15, w * 0.2, w * 0.35], wrap=(2, 3, 4, 5)))
    r.heading(f"Wagers per seat ({money.label})")
    rows = []
    for seat in rc.seats:
        for wg in seat.wagers:
            rows.append([str(seat.seat), f"#{wg.wager_id}", wg.name, fmt(wg.amount),
                         wg.stage_label, wg.result_label,
                         fmt(wg.win) if wg.result == "win" else "", wg.placed_by or ""])
    r.add(grid(["Seat", "Wager", "Bet", "Stake", "Stage", "Result", PAID_LABEL, "Placed by"],
               rows or [["-", "", "no wagers", "", "", "", "", ""]],
               [w * 0.06, w * 0.08, w * 0.2, w * 0.11, w * 0.14, w * 0.13, w * 0.11,
                w * 0.17], numeric=(3, 6), wrap=(2, 4, 5, 7)))
    r.heading(f"Settlement by stage ({money.label})")
    stage_rows = [[str(s.stage), s.card, s.label, s.poker or "", fmt(s.total_win),
                   fmt(s.total_lost), s.confirmed_label]
                  for s in rc.stages]
    r.add(grid(["Card", "Dealt", "Stage", "Poker hand", PAID_LABEL, COLLECTED_LABEL,
                "Payout"],
               stage_rows or [["-", "", "", "", "", "", ""]],
               [w * 0.07, w * 0.08, w * 0.15, w * 0.2, w * 0.13, w * 0.13, w * 0.24],
               numeric=(4, 5), wrap=(2, 3, 6)))
    r.add(p(f"Totals: {rc.totals_text()}."))
    r.add(p(WAGERED_MEANING, "note"))
