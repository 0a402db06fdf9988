"""Lines for people to sign on paper: each signer as the journal names them, and a ruled line
beside them (the slips of the table's own accounting, the count sheet's team)."""

from __future__ import annotations

from collections.abc import Sequence
from xml.sax.saxutils import escape

from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepTogether, Spacer, Table, TableStyle

from dealer_station.audit.journal import Journal
from dealer_station.audit.users import Users
from dealer_station.reports.pdf_style import FONT, GREY, INK, MIN_TEXT_PT, p, rich


def signer_names(journal: Journal, actors: Sequence[str]) -> list[Flowable]:
    """Each actor (``user_id/role``) as "Name (user_id)", as they signed in."""
    users = Users(journal)
    out: list[Flowable] = []
    for actor in actors:
        user_id = actor.split("/")[0]
        u = users.get(user_id)
        out.append(p(escape(f"{u.name} ({user_id})" if u is not None else user_id)))
    return out


def signature_lines(title: str, headings: Sequence[str], rows: Sequence[Sequence[object]],
                    fractions: Sequence[float], width: float) -> KeepTogether:
    """``rows`` under ``headings`` (the last column left blank: the line to sign on), each
    column ``fractions`` of ``width``, under the heading ``title``."""
    t = Table([list(headings), *[[*r, ""] for r in rows]],
              colWidths=[width * f for f in fractions],
              rowHeights=[12] + [30] * len(rows), hAlign="LEFT")
    last = len(headings) - 1
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
        ("TEXTCOLOR", (0, 0), (-1, 0), GREY),
        ("TEXTCOLOR", (0, 1), (-1, -1), INK),
        ("VALIGN", (0, 1), (-1, -1), "BOTTOM"),
        ("LINEBELOW", (last, 1), (last, -1), 0.5, INK),
        ("LEFTPADDING", (0, 0), (-1, -1), 0),
    ]))
    return KeepTogether([Spacer(1, 6 * mm), rich(title, "h2"), t])
