"""Bourré's section of the recall / dispute report (reports/recall.py): the hand's seats,
cards, tricks and settlement. Its own module, named in the game registry (``report_recall``),
so the shared report imports no table of Bourré."""

from __future__ import annotations

from dealer_station.games.bourre.table.recall import BourreRecall
from dealer_station.money import Money
from dealer_station.reports.pdf_style import p
from dealer_station.reports.template import ReportBuilder, facts, grid


def bourre_section(r: ReportBuilder, rc: BourreRecall, money: Money) -> None:
    """The registry's ``report_recall`` part of Bourré: seats, cards, tricks, settlement."""
    w = r.width
    fmt = rc.amount
    res = rc.result
    discards = dict(rc.discards)
    tricks = dict(rc.tricks)
    penalties = dict(res.penalties) if res else {}
    chips_after = dict(res.chips) if res else {}
    chips_before = dict(rc.chips_before)
    r.heading(f"Seats ({money.label})")
    rows = []
    for seat in rc.seats:
        rows.append([str(seat) + (" (dealer)" if seat == rc.dealer_seat else ""),
                     fmt(chips_before.get(seat, 0)), rc.decision_label(seat),
                     " ".join(discards.get(seat, ())) or "-",
                     str(tricks.get(seat, 0)),
                     fmt(penalties.get(seat, 0)) if res else "-",
                     fmt(chips_after.get(seat, 0)) if res else "-"])
    r.add(grid(["Seat", "Chips before", "Decision", "Discarded", "Tricks", "Penalty",
                "Chips after"], rows, [w * 0.13, w * 0.15, w * 0.12, w * 0.18, w * 0.1,
                                       w * 0.14, w * 0.15], numeric=(1, 4, 5, 6)))
    r.add(p(f"Trump card: {rc.trump or '-'}; pot before the hand "
            f"{money.text(rc.pot_before)}; profile {rc.profile}."))
    r.heading("Cards dealt and drawn, in order")
    cards = [[str(i), str(c.seat), c.card, c.phase_label, c.source_label]
             for i, c in enumerate(rc.cards, 1)]
    r.add(grid(["#", "Seat", "Card", "Phase", "Source"], cards or [["-", "", "", "", ""]],
               [w * 0.08, w * 0.1, w * 0.1, w * 0.12, w * 0.2], numeric=(0,)))
    r.heading("Play, trick by trick")
    plays = []
    for pl in rc.plays:
        mis = pl.misplay
        plays.append([str(pl.trick), str(pl.seat), pl.card, pl.play_label,
                      "" if pl.trick_winner is None else f"seat {pl.trick_winner}",
                      f"{mis.label}: {mis.reason}" if mis else ""])
    r.add(grid(["Trick", "Seat", "Card", "Play", "Trick won by", "Misplay"],
               plays or [["-", "", "", "", "", ""]],
               [w * 0.08, w * 0.08, w * 0.08, w * 0.13, w * 0.14, w * 0.49], wrap=(5,)))
    if res:
        r.heading(f"Settlement ({money.label})")
        lines = [("Winner", f"seat {res.winner}" if res.winner else "none: the pot carries"),
                 ("Pot at the end", fmt(res.pot_end)),
                 ("Won", fmt(res.won)),
                 ("Bourré", ", ".join(f"seat {s}" for s in res.bourre) or "none"),
                 ("Reneges", "; ".join(f"seat {m.seat} trick {m.trick} {m.card}: "
                                       f"{m.reason}" for m in res.reneges)
                  or "none"),
                 ("Penalties (into the next pot)",
                  ", ".join(f"seat {k}: {fmt(v)}" for k, v in res.penalties) or "none"),
                 ("Next pot", fmt(res.pot)),
                 ("House collection", fmt(res.house)),
                 ("Eliminated", ", ".join(f"seat {s}" for s in res.eliminated) or "none")]
        r.add(facts(lines))
