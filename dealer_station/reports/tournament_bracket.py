"""The double-elimination bracket on paper, drawn as a bracket: the screen's layout
(:func:`dealer_station.tournament.display.bracket_layout`) scaled to a landscape page.

A bracket taller than a page (32 or 64 teams) is printed in bands of rows, page after page,
at a size that stays readable (never below the reports' smallest type); a box whose next match
is on another page says where its team comes from ("winner of W3-1"), as every box does.
"""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.platypus import Flowable

from dealer_station.reports.pdf_style import FONT, FONT_BOLD, GOOD, GREY, INK, MIN_TEXT_PT, RULE
from dealer_station.tournament.bracket import BYE, FINAL, Side, Status
from dealer_station.tournament.display import BracketLayout, slot_text
from dealer_station.tournament.tournament import Tournament

#: A box is three lines (its id, two teams); a row is a box and a gap.
TEAM_PT = 9.0
ROW_PT = 40.0
BOX_PT = 33.0
HEAD_PT = 16.0
SHADE = colors.HexColor("#eef1f4")


def bands(lay: BracketLayout, height: float) -> list[tuple[float, float]]:
    """Row ranges [top, bottom) that fit a page ``height`` points tall at full size."""
    per_page = max(1.0, (height - HEAD_PT) / ROW_PT)
    total = lay.rows
    if total <= per_page:
        return [(-0.5, total)]
    out = []
    top = -0.5
    while top < total - 0.5:
        out.append((top, top + per_page))
        top += per_page
    return out


def short_heading(side: Side, title: str) -> str:
    """``Winners round 3`` -> ``W3`` for a narrow column (``Second final`` -> ``F2``)."""
    if side is Side.FINAL:
        return "F1" if title == "Final" else "F2"
    return f"{title[0]}{title.rsplit(' ', 1)[-1]}"


class BracketBand(Flowable):  # type: ignore[misc]  # reportlab has no type hints
    """The rows ``top`` to ``bottom`` of a bracket, on one page."""

    def __init__(self, t: Tournament, lay: BracketLayout, width: float, height: float,
                 top: float, bottom: float) -> None:
        super().__init__()
        self.t = t
        self.lay = lay
        self.width = width
        self.height = height
        self.top = top
        self.bottom = bottom
        self.col_w = width / lay.columns
        self.box_w = min(self.col_w * 0.86, 190.0)
        rows = bottom - top
        self.row_h = min(ROW_PT * 1.25, (height - HEAD_PT) / max(rows, 1.0))

    def wrap(self, avail_w: float, avail_h: float) -> tuple[float, float]:
        return self.width, self.height

    def _y(self, row: float) -> float:
        """The page y of a row's centre (reportlab's y grows upwards)."""
        return self.height - HEAD_PT - (row - self.top) * self.row_h

    def _in(self, row: float) -> bool:
        return self.top <= row < self.bottom

    def draw(self) -> None:
        c = self.canv
        lay = self.lay
        bracket = self.t.bracket
        assert bracket is not None
        rows = {r.view.id: r for r in self.t.matches()}
        c.setFont(FONT_BOLD, MIN_TEXT_PT + 1)
        c.setFillColor(INK)
        final_row = lay.boxes[FINAL].row
        for col, side, title in lay.headings:
            x = col * self.col_w
            if side is Side.LOSERS:
                y = self._y(lay.losers_top) + 2
                if not self._in(lay.losers_top + 0.5):
                    continue
            else:
                y = self.height - HEAD_PT + 5
                if not self._in(0 if side is Side.WINNERS else final_row):
                    continue
            if c.stringWidth(title, FONT_BOLD, MIN_TEXT_PT + 1) > self.col_w - 4:
                title = short_heading(side, title)
            c.drawString(x, y, title)
        c.setStrokeColor(GREY)
        c.setLineWidth(0.8)
        for src, dst in lay.links:
            a, b = lay.boxes[src], lay.boxes[dst]
            if not (self._in(a.row) and self._in(b.row)):
                continue
            x1 = a.column * self.col_w + self.box_w
            x2 = b.column * self.col_w
            elbow = x1 + (x2 - x1) / 2
            y1, y2 = self._y(a.row), self._y(b.row)
            path = c.beginPath()
            path.moveTo(x1, y1)
            path.lineTo(elbow, y1)
            path.lineTo(elbow, y2)
            path.lineTo(x2, y2)
            c.drawPath(path, stroke=1, fill=0)
        for mid, box in lay.boxes.items():
            if not self._in(box.row):
                continue
            row = rows[mid]
            v = row.view
            x = box.column * self.col_w
            y = self._y(box.row) - BOX_PT / 2
            c.setStrokeColor(RULE if v.status is not Status.READY else INK)
            c.setLineWidth(0.6 if v.status is not Status.READY else 1.2)
            c.setFillColor(SHADE if v.status in (Status.BYE, Status.VOID) else colors.white)
            c.rect(x, y, self.box_w, BOX_PT, stroke=1, fill=1)
            word = {Status.BYE: "bye", Status.FORFEIT: "forfeit", Status.VOID: "not needed",
                    Status.READY: "to play"}.get(v.status, "forfeit" if row.forfeit else "")
            c.setFont(FONT, MIN_TEXT_PT)
            c.setFillColor(GREY)
            c.drawString(x + 3, y + BOX_PT - 8.5, f"{mid} {word}".rstrip())
            for i in (0, 1):
                team = v.teams[i]
                known = team is not None and team != BYE
                won = known and v.winner == team
                text = slot_text(bracket, mid, i)
                score = row.scores.get(team or "") if known else None
                font = FONT_BOLD if won else FONT
                size = TEAM_PT if known else MIN_TEXT_PT
                c.setFont(font, size)
                c.setFillColor(GOOD if won else INK if known else GREY)
                room = self.box_w - 6 - (c.stringWidth("999", font, size) if score is not None
                                         else 0)
                if c.stringWidth(text, font, size) > room and not known:
                    text = text.replace("winner of ", "win ").replace("loser of ", "lost ")
                while c.stringWidth(text, font, size) > room and len(text) > 2:
                    text = text[:-2] + "…"
                ty = y + BOX_PT - 18.5 - i * 10.5
                c.drawString(x + 3, ty, text)
                if score is not None:
                    c.drawRightString(x + self.box_w - 3, ty, str(score))
