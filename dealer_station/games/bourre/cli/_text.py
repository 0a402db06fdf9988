"""Text form of a recalled Bourré hand (for ``dealer-station recall``).

Every word about the hand comes from the recall model (:mod:`dealer_station.table.recall_model`,
:mod:`dealer_station.games.bourre.table.recall`), as in the printed report.
"""

from __future__ import annotations

from dealer_station.cli.recall import exception_text, records_text, when
from dealer_station.games.bourre.table.recall import PHASE_LABELS, BourreRecall


def format_hand(h: BourreRecall, *, records: bool = False) -> str:
    head = h.header
    lines = [f"=== table {head.table} hand {head.round_no} ({head.game_label}, {h.profile} "
             f"rules) - {head.status_label}",
             f"dealer {head.dealer} (seat {h.dealer_seat}); started "
             f"{when(head.started_at)}; ended {when(head.ended_at)}; configuration "
             f"{head.config_version[:16]}",
             f"seats {', '.join(map(str, h.seats))}; chips before "
             + ", ".join(f"{s}:{h.amount(c)}" for s, c in h.chips_before)
             + f"; pot carried in {h.amount(h.pot_before)}; trump card {h.trump or '-'}"]
    deal = [c for c in h.cards if c.phase == "deal"]
    lines.append(f"{PHASE_LABELS['deal']}: " + " ".join(f"{c.seat}:{c.card}" for c in deal))
    if h.decisions:
        lines.append("decisions: " + ", ".join(
            f"seat {s} {h.decision_label(s)}" for s, _ in h.decisions))
    for seat, cards in h.discards:
        drawn = [c.card for c in h.cards if c.phase == "draw" and c.seat == seat]
        lines.append(f"seat {seat}: discarded {' '.join(cards) or '-'}; "
                     f"{PHASE_LABELS['draw']} {' '.join(drawn) or '-'}")
    trick: list[str] = []
    for p in h.plays:
        mark = ""
        if p.misplay:
            mark = f" [{p.misplay.label}: {p.misplay.reason}; {p.play_label}]"
        trick.append(f"{p.seat}:{p.card}{mark}")
        if p.trick_winner is not None:
            lines.append(f"trick {p.trick}: {'  '.join(trick)} -> seat {p.trick_winner}")
            trick = []
    if trick:
        lines.append(f"trick in play: {'  '.join(trick)}")
    r = h.result
    if r:
        lines.append("tricks: " + ", ".join(f"{s}:{n}" for s, n in r.tricks))
        lines.append(f"pot {h.amount(r.pot_end)}: "
                     + (f"seat {r.winner} takes {h.amount(r.won)}" if r.winner
                        else "carries to the next deal"))
        if r.penalties:
            lines.append("penalties into the next pot: " + ", ".join(
                f"seat {s} pays {h.amount(n)}" for s, n in r.penalties)
                + (f" (bourré: {', '.join(map(str, r.bourre))})" if r.bourre else ""))
        lines.append("chips after: " + ", ".join(f"{s}:{h.amount(c)}" for s, c in r.chips)
                     + f"; next pot {h.amount(r.pot)}"
                     + (f"; out: {', '.join(map(str, r.eliminated))}" if r.eliminated else ""))
    lines.extend(exception_text(h))
    if records:
        lines.extend(records_text(h.records))
    return "\n".join(lines)
