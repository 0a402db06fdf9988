"""Game recall of one round as the supervisor reads it: the recall data, laid out as HTML.

The data is ``table.recall.recall_round``'s, the same the ``recall`` command prints, so the
screen, the command and the printed report cannot disagree.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dealer_station import games
from dealer_station.settlement.lapaire_config import KIND_LABELS, Money
from dealer_station.ui import theme
from dealer_station.ui.formatting import amount, card_text, local_time


def _money(money: Money | None, value: Any) -> str:
    return amount(money, int(value or 0)) if money else str(value)


def recall_html(r: dict[str, Any], money: Money | None = None) -> str:
    """Every detail of one recalled round or hand (the registry's ``recall_html`` part of its
    game; a game not known here is shown as its data)."""
    found = games.REGISTRY.get(str(r.get("game")))
    if found is None:
        return text_html(r, money)
    html: str = found.part("recall_html")(r, money)
    return html


def lapaire_html(r: dict[str, Any], money: Money | None = None) -> str:
    """A recalled La Pair'e round: its cards, each seat's wagers, each stage's settlement."""
    status = str(r["status"]).upper()
    colour = {"VOIDED": theme.BAD, "OPEN": theme.WARN}.get(status, theme.GOOD)
    out = [f"<h2>Round {r['round_no']} · La Pair'e · "
           f"<span style='color:{colour}'>{status}</span></h2>",
           f"<p>Table {escape(str(r['table']))} · dealer <b>{escape(str(r['dealer']))}</b>"
           f"<br>started {local_time(r.get('started_at'))} · ended "
           f"{local_time(r.get('ended_at'))}<br>configuration "
           f"<code>{escape(str(r['config_version'])[:16])}</code></p>"]
    cards = []
    for c in r.get("cards", []):
        note = ""
        if c.get("source") == "correction":
            note = (f" <span style='color:{theme.WARN}'>(corrected by "
                    f"{escape(str(c.get('actor')))}: {escape(str(c.get('reason')))})</span>")
        cards.append(f"<b>{c['n']}</b>: {escape(card_text(str(c['card'])))}"
                     f" <span style='color:{theme.MUTED}'>[{escape(str(c.get('source')))}]"
                     f"</span>{note}")
    out.append("<p><b>Cards</b><br>" + ("<br>".join(cards) or "(none dealt)") + "</p>")
    rows = []
    for seat, wagers in r.get("seats", {}).items():
        for w in wagers:
            result = str(w["result"])
            rc = {"win": theme.GOOD, "lose": theme.BAD, "returned": theme.WARN}.get(
                result, theme.MUTED)
            win = _money(money, w["win"]) if result == "win" else ""
            rows.append(f"<tr><td>{seat}</td><td>#{w['wager_id']}</td>"
                        f"<td>{escape(_wager_label(w))}</td>"
                        f"<td align='right'>{_money(money, w['amount'])}</td>"
                        f"<td align='center'>{w['stage']}</td>"
                        f"<td style='color:{rc}'>{result}</td><td align='right'>{win}</td>"
                        f"<td style='color:{theme.MUTED}'>"
                        f"{escape(str(w.get('placed_by') or ''))}</td></tr>")
    if rows:
        out.append("<table cellspacing='0' cellpadding='4' width='100%'>"
                   "<tr style='color:#a9b4c0'><th align='left'>Seat</th><th>#</th>"
                   "<th align='left'>Wager</th><th align='right'>Stake</th><th>Card</th>"
                   "<th align='left'>Result</th><th align='right'>Paid</th>"
                   "<th align='left'>Placed by</th></tr>" + "".join(rows) + "</table>")
    for s in r.get("stages", []):
        poker = f" ({escape(str(s['poker']))})" if s.get("poker") else ""
        confirmed = ("payout confirmed" if s["confirmed"]
                     else f"<span style='color:{theme.WARN}'>payout NOT confirmed</span>")
        out.append(f"<p>Card {s['stage']}: {escape(card_text(str(s['card'])))}{poker} · paid "
                   f"{_money(money, s['total_win'])}, collected "
                   f"{_money(money, s['total_lost'])} · {confirmed}</p>")
    t = r.get("totals", {})
    out.append(f"<p><b>Totals</b>: wagered {_money(money, t.get('wagered'))}, paid "
               f"{_money(money, t.get('paid'))}, collected {_money(money, t.get('lost'))}</p>")
    if r.get("void_reason"):
        out.append(f"<p style='color:{theme.BAD}'><b>VOIDED:</b> "
                   f"{escape(str(r['void_reason']))}</p>")
    if r.get("exceptions"):
        items = "".join(f"<li><b>{escape(str(e['kind']))}</b> by {escape(str(e['actor']))} at "
                        f"{local_time(e.get('ts'))}: {escape(str(e.get('reason')))}</li>"
                        for e in r["exceptions"])
        out.append(f"<p style='color:{theme.WARN}'><b>Exceptions</b></p><ul>{items}</ul>")
    for d in r.get("differences", []):
        out.append(f"<p style='color:{theme.BAD}'><b>Replay difference:</b> "
                   f"{escape(str(d))}</p>")
    records = "".join(f"<tr><td>{rec['seq']}</td><td>{escape(str(rec['kind']))}</td>"
                      f"<td>{escape(str(rec['actor']))}</td>"
                      f"<td><code>{escape(str(rec['hash'])[:16])}</code></td></tr>"
                      for rec in r.get("records", []))
    if records:
        out.append("<p><b>Journal records</b></p><table cellpadding='2' "
                   "style='color:#a9b4c0; font-size:14px'>" + records + "</table>")
    return "".join(out)


def _wager_label(w: dict[str, Any]) -> str:
    name = KIND_LABELS.get(str(w.get("bet")), str(w.get("label")))
    values = w.get("values") or []
    return f"{name} {'-'.join(values)}" if values else name


def text_html(r: dict[str, Any], money: Money | None = None) -> str:
    """A recalled round or hand as its command-line text, for a game without a panel."""
    try:
        from dealer_station.cli.recall import format_round
        text = format_round(r, records=True)
    except Exception:  # a game whose text form is not available: show the data itself
        import json
        text = json.dumps(r, indent=2, ensure_ascii=False, default=str)
    return f"<pre style='font-size:15px'>{escape(text)}</pre>"
