"""La Pair'e's recall panel (the registry's ``recall_html`` part): a recalled round as the
supervisor reads it, its cards, each seat's wagers and each stage's settlement, in the recall
model's words (the panel's shared pieces are ``ui/recall_view.py``'s)."""

from __future__ import annotations

from dataclasses import replace
from html import escape

from dealer_station.games.lapaire.table.recall import LaPaireRecall
from dealer_station.money import Money
from dealer_station.table.recall_model import COLLECTED_LABEL, PAID_LABEL, WAGERED_MEANING
from dealer_station.ui import theme
from dealer_station.ui.formatting import card_text, local_time
from dealer_station.ui.recall_view import RESULT_COLOURS, STATUS_COLOURS, exceptions_html


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
