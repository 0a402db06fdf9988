"""Text form of a recalled Bourré hand (for ``dealer-station recall``)."""

from __future__ import annotations

from typing import Any

from dealer_station.cli.audit import local_time


def _when(ts: str | None) -> str:
    return local_time(ts) if ts else "-"


def format_hand(h: dict[str, Any], *, records: bool = False) -> str:
    lines = [f"=== table {h['table']} hand {h['round_no']} (Bourré, {h['profile']} rules) - "
             f"{h['status'].upper()}",
             f"dealer {h['dealer']} (seat {h['dealer_seat']}); started "
             f"{_when(h['started_at'])}; ended {_when(h['ended_at'])}; configuration "
             f"{h['config_version'][:16]}",
             f"seats {', '.join(map(str, h['seats']))}; chips before "
             + ", ".join(f"{s}:{c}" for s, c in h["chips_before"].items())
             + f"; pot carried in {h['pot_before']}; trump card {h['trump'] or '-'}"]
    deal = [c for c in h["cards"] if c["phase"] == "deal"]
    lines.append("dealt: " + " ".join(f"{c['seat']}:{c['card']}" for c in deal))
    if h["decisions"]:
        lines.append("decisions: " + ", ".join(
            f"{s} {'stays' if v else 'folds'}" for s, v in h["decisions"].items()))
    for seat, cards in h["discards"].items():
        drawn = [c["card"] for c in h["cards"] if c["phase"] == "draw" and str(c["seat"]) == seat]
        lines.append(f"seat {seat} discards {' '.join(cards) or '-'}; draws "
                     f"{' '.join(drawn) or '-'}")
    trick: list[str] = []
    for p in h["plays"]:
        mark = ""
        if p["misplay"]:
            mark = f" [RENEGE: {p['misplay']['reason']}]"
        trick.append(f"{p['seat']}:{p['card']}{mark}")
        if p["trick_winner"] is not None:
            lines.append(f"trick {p['trick']}: {'  '.join(trick)} -> seat {p['trick_winner']}")
            trick = []
    if trick:
        lines.append(f"trick in play: {'  '.join(trick)}")
    r = h["result"]
    if r:
        lines.append("tricks: " + ", ".join(f"{s}:{n}" for s, n in r["tricks"].items()))
        lines.append(f"pot {r['pot_end']}: " + (f"seat {r['winner']} takes {r['won']}"
                                                if r["winner"] else "carries to the next deal"))
        if r["penalties"]:
            lines.append("penalties into the next pot: " + ", ".join(
                f"seat {s} pays {n}" for s, n in r["penalties"].items())
                + (f" (bourré: {', '.join(r['bourre'])})" if r["bourre"] else ""))
        lines.append("chips after: " + ", ".join(f"{s}:{c}" for s, c in r["chips"].items())
                     + f"; next pot {r['pot']}"
                     + (f"; out: {', '.join(r['eliminated'])}" if r["eliminated"] else ""))
    if h["void_reason"]:
        lines.append(f"VOIDED: {h['void_reason']}")
    for e in h["exceptions"]:
        lines.append(f"  ! {e['kind']} by {e['actor']} at {_when(e['ts'])}: "
                     f"{e['reason'] or e['payload']}")
    for d in h["differences"]:
        lines.append(f"  !! replay difference: {d}")
    if records:
        for rec in h["records"]:
            lines.append(f"  [{rec['seq']}] {rec['kind']:<20} {rec['actor']:<22} "
                         f"{rec['hash'][:16]}")
    return "\n".join(lines)
