"""Game recall of one round as the supervisor reads it: the recall, laid out as HTML.

The recall is ``table.recall.recall_round``'s, the same the ``recall`` command prints and the
dispute report prints, and every word about it comes from the recall model, so the screen,
the command and the printed report cannot disagree. Each game lays out its own recall (the
registry's ``recall_html`` part, in the game's own modules); this module picks the game's,
and holds what every game's shares: the colours, the void, exceptions and journal records,
and the command line's text for a game without a panel of its own.
"""

from __future__ import annotations

from html import escape

from dealer_station import registry as games
from dealer_station.money import Money
from dealer_station.table.parts import RECALL_TEXT
from dealer_station.table.recall_model import DIFFERENCE_LABEL, Recall
from dealer_station.ui import theme
from dealer_station.ui.formatting import local_time
from dealer_station.ui.parts import RECALL_HTML

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


def exceptions_html(r: Recall) -> str:
    """The void, the exceptions, the replay differences and the journal records (any game's:
    its panel ends with them)."""
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
