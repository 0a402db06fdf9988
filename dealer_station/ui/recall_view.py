"""Game recall of one round as the supervisor reads it: the recall, laid out as HTML.

The recall is ``table.recall.recall_round``'s, the same the ``recall`` command prints and the
dispute report prints, and every word about it comes from the recall model, so the screen,
the command and the printed report cannot disagree.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import TYPE_CHECKING

from dealer_station import games
from dealer_station.money import Money
from dealer_station.table.parts import RECALL_TEXT
from dealer_station.table.recall_model import (
    COLLECTED_LABEL,
    DIFFERENCE_LABEL,
    PAID_LABEL,
    WAGERED_MEANING,
    Recall,
)
from dealer_station.ui import theme
from dealer_station.ui.formatting import card_text, local_time
from dealer_station.ui.parts import RECALL_HTML

if TYPE_CHECKING:   # a game's own modules are loaded by the registry, on first use
    from dealer_station.table.lapaire_recall import LaPaireRecall

#: How a status, and a wager's result, are coloured (the words are the recall model's).
STATUS_COLOURS = {"voided": theme.BAD, "open": theme.WARN, "settled": theme.GOOD}
RESULT_COLOURS = {"win": theme.GOOD, "lose": theme.BAD, "returned": theme.WARN}


def recall_html(r: Recall, money: Money | None = None) -> str:
    """Every detail of one recalled round or hand (the registry's ``recall_html`` part of its
    game; a game not known here is shown as its data)."""
    found = games.REGISTRY.get(r.header.game)
    if found is None:
        return text_html(r, money)
    html: str = found.part(RECALL_HTML)(r, money)
    return html


def lapaire_html(r: LaPaireRecall, money: Money | None = None) -> str:
    """A recalled La Pair'e round: its cards, each seat's wagers, each stage's settlement."""
    if r.money is None and money is not None:
        r = replace(r, money=money)
    h = r.header
    colour = STATUS_COLOURS.get(h.status, theme.MUTED)
    out = [f"<h2>Round {h.round_no} · {escape(h.game_label)} · "
           f"<span style='color:{colour}'>{escape(h.status_label)}</span></h2>",
           f"<p>Table {escape(h.table)} · dealer <b>{escape(h.dealer)}</b>"
           f"<br>started {local_time(h.started_at)} · ended "
           f"{local_time(h.ended_at)}<br>configuration "
           f"<code>{escape(h.config_version[:16])}</code> · amounts in "
           f"{escape(r.written_in.label)}</p>"]
    cards = []
    for c in r.cards:
        source = (f"<span style='color:{theme.WARN}'>[{escape(c.source_label)} by "
                  f"{escape(c.actor)}: {escape(str(c.reason))}]</span>" if c.corrected else
                  f"<span style='color:{theme.MUTED}'>[{escape(c.source_label)}]</span>")
        cards.append(f"<b>{c.n}</b> {escape(c.stage_label)}: {escape(card_text(c.card))} "
                     f"{source}")
    out.append("<p><b>Cards</b><br>" + ("<br>".join(cards) or "(none dealt)") + "</p>")
    rows = []
    for seat in r.seats:
        for w in seat.wagers:
            rc = RESULT_COLOURS.get(w.result, theme.MUTED)
            win = r.amount(w.win) if w.result == "win" else ""
            rows.append(f"<tr><td>{seat.seat}</td><td>#{w.wager_id}</td>"
                        f"<td>{escape(w.name)}</td>"
                        f"<td align='right'>{r.amount(w.amount)}</td>"
                        f"<td>{escape(w.stage_label)}</td>"
                        f"<td style='color:{rc}'>{escape(w.result_label)}</td>"
                        f"<td align='right'>{win}</td>"
                        f"<td style='color:{theme.MUTED}'>{escape(w.placed_by or '')}</td></tr>")
    if rows:
        out.append("<table cellspacing='0' cellpadding='4' width='100%'>"
                   "<tr style='color:#a9b4c0'><th align='left'>Seat</th><th>#</th>"
                   "<th align='left'>Wager</th><th align='right'>Stake</th>"
                   "<th align='left'>Stage</th><th align='left'>Result</th>"
                   f"<th align='right'>{PAID_LABEL}</th><th align='left'>Placed by</th></tr>"
                   + "".join(rows) + "</table>")
    removed = r.removed_wagers
    if removed:
        # Taken back before betting closed: on no seat's list, but part of the round.
        out.append("<p><b>Wagers taken back</b></p>"
                   "<table cellspacing='0' cellpadding='4' width='100%'>"
                   "<tr style='color:#a9b4c0'><th align='left'>Seat</th><th>#</th>"
                   "<th align='left'>Wager</th><th align='right'>Stake</th>"
                   "<th align='left'>Placed by</th><th align='left'>Taken back by</th>"
                   "<th align='left'>At</th></tr>"
                   + "".join(f"<tr><td>{w.seat}</td><td>#{w.wager_id}</td>"
                             f"<td>{escape(w.name)}</td>"
                             f"<td align='right'>{r.amount(w.amount)}</td>"
                             f"<td>{escape(w.placed_by or '')}</td>"
                             f"<td>{escape(w.removed_by)}</td>"
                             f"<td>{local_time(w.ts)}</td></tr>" for w in removed)
                   + "</table>")
    for s in r.stages:
        poker = f" ({escape(s.poker)})" if s.poker else ""
        who = r.confirmed_by(s.stage)
        confirmed = (escape(s.confirmed_label) + (f" by <b>{escape(who.by)}</b> at "
                                                  f"{local_time(who.ts)}" if who else "")
                     if s.confirmed else
                     f"<span style='color:{theme.WARN}'>{escape(s.confirmed_label)}</span>")
        out.append(f"<p>Card {s.stage} ({escape(s.label)}): {escape(card_text(s.card))}{poker}"
                   f" · {PAID_LABEL.lower()} {r.amount(s.total_win)}, "
                   f"{COLLECTED_LABEL.lower()} {r.amount(s.total_lost)} · {confirmed}</p>")
    out.append(f"<p><b>Totals</b>: {escape(r.totals_text())}<br><span style='color:"
               f"{theme.MUTED}'>{escape(WAGERED_MEANING)}</span></p>")
    out.append(exceptions_html(r))
    return "".join(out)


def exceptions_html(r: Recall) -> str:
    """The void, the exceptions, the replay differences and the journal records."""
    out = []
    if r.void_reason:
        out.append(f"<p style='color:{theme.BAD}'><b>{escape(r.status_label)}:</b> "
                   f"{escape(r.void_reason)}</p>")
    if r.exceptions:
        items = "".join(f"<li><b>{escape(e.label)}</b> by {escape(e.actor)} at "
                        f"{local_time(e.ts)}" + (f": {escape(e.why)}" if e.why else "")
                        + (f" <span style='color:{theme.MUTED}'>[{escape(d)}]</span>"
                           if (d := r.exception_detail(e)) else "")
                        + "</li>" for e in r.exceptions)
        out.append(f"<p style='color:{theme.WARN}'><b>Exceptions</b></p><ul>{items}</ul>")
    for d in r.differences:
        out.append(f"<p style='color:{theme.BAD}'><b>{DIFFERENCE_LABEL}:</b> "
                   f"{escape(d)}</p>")
    records = "".join(f"<tr><td>{rec.seq}</td><td>{escape(rec.label)}</td>"
                      f"<td>{escape(rec.actor)}</td>"
                      f"<td><code>{escape(rec.hash[:16])}</code></td></tr>"
                      for rec in r.records)
    if records:
        out.append("<p><b>Journal records</b></p><table cellpadding='2' "
                   "style='color:#a9b4c0; font-size:14px'>" + records + "</table>")
    return "".join(out)


def text_html(r: Recall, money: Money | None = None) -> str:
    """A recalled round or hand as its command-line text, for a game without a panel."""
    try:
        text = str(games.game(r.header.game).part(RECALL_TEXT)(r, records=True))
    except Exception:  # a game whose text form is not available: show the data itself
        import json
        text = json.dumps(r.to_json(), indent=2, ensure_ascii=False, default=str)
    return f"<pre style='font-size:15px'>{escape(text)}</pre>"
