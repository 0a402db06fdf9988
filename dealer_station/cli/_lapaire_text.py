"""Text form of a recalled La Pair'e round (for ``dealer-station recall``)."""

from __future__ import annotations

from typing import Any

from dealer_station.cli.audit import local_time


def _when(ts: str | None) -> str:
    return local_time(ts) if ts else "-"


def format_round(r: dict[str, Any], *, records: bool = False) -> str:
    lines = [f"=== table {r['table']} round {r['round_no']} (La Pair'e) - {r['status'].upper()}",
             f"dealer {r['dealer']}; started {_when(r['started_at'])}; ended "
             f"{_when(r['ended_at'])}; configuration {r['config_version'][:16]}"]
    cards = "  ".join(f"{c['n']}:{c['card']}" + (" (corrected)" if c["source"] == "correction"
                                                   else "") for c in r["cards"])
    lines.append(f"cards: {cards or '(none dealt)'}")
    for seat, wagers in r["seats"].items():
        lines.append(f"seat {seat}:")
        for w in wagers:
            outcome = (f"won {w['win']}" if w["result"] == "win" else w["result"])
            lines.append(f"  #{w['wager_id']:<3} {w['label']:<28} {w['amount']:>8}  "
                         f"stage {w['stage']}  {outcome}")
    for s in r["stages"]:
        poker = f" ({s['poker']})" if s["poker"] else ""
        lines.append(f"stage {s['stage']}: card {s['card']}{poker}; paid {s['total_win']}, "
                     f"lost {s['total_lost']}; "
                     f"{'payout confirmed' if s['confirmed'] else 'payout NOT confirmed'}")
    t = r["totals"]
    lines.append(f"totals: wagered {t['wagered']}, paid {t['paid']}, lost {t['lost']}")
    if r["void_reason"]:
        lines.append(f"VOIDED: {r['void_reason']}")
    for e in r["exceptions"]:
        lines.append(f"  ! {e['kind']} by {e['actor']} at {_when(e['ts'])}: {e['reason']}")
    for d in r["differences"]:
        lines.append(f"  !! replay difference: {d}")
    if records:
        for rec in r["records"]:
            lines.append(f"  [{rec['seq']}] {rec['kind']:<16} {rec['actor']:<22} "
                         f"{rec['hash'][:16]}")
    return "\n".join(lines)
