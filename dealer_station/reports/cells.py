"""Table cells that wrap where a reader expects: between words, and inside a long name only
after ':', '/' or '.' ("device:shoe:" then "SIMSHOE"), never in the middle of a word.

reportlab breaks lines at spaces only and splits any longer word wherever the cell ends
(it does not honour a zero-width space), so a word too long for its cell is broken here, at the
last of those marks that fits, with an explicit line break.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from xml.sax.saxutils import escape

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph

from dealer_station.reports.pdf_style import FONT, FONT_BOLD, MIN_TEXT_PT, STYLES

#: Padding a grid cell keeps on each side (template.grid's LEFT/RIGHTPADDING).
CELL_PADDING = 3.0
_BREAK_AFTER = re.compile(r"(?<=[:/.])")


def _pieces(word: str, width: float, font: str, size: float) -> list[str]:
    """``word`` in pieces no wider than ``width``, cut after ':', '/' or '.' where possible."""
    out: list[str] = []
    rest = word
    while stringWidth(rest, font, size) > width:
        parts = [x for x in _BREAK_AFTER.split(rest) if x]
        head = ""
        for part in parts:
            if head and stringWidth(head + part, font, size) > width:
                break
            head += part
        if head == rest or stringWidth(head, font, size) > width:
            # No mark to cut at: cut where it must (a name with no punctuation).
            head = ""
            for ch in rest:
                if stringWidth(head + ch, font, size) > width:
                    break
                head += ch
        out.append(head)
        rest = rest[len(head):]
    out.append(rest)
    return out


def wrapped(text: str, width: float, *, size: float = MIN_TEXT_PT, font: str = FONT,
            style: str = "cell") -> Paragraph:
    """A cell paragraph for a column ``width`` points wide."""
    room = max(8.0, width - 2 * CELL_PADDING)
    lines = []
    for line in str(text).split("\n"):
        words = [escape(w) if stringWidth(w, font, size) <= room
                 else "<br/>".join(escape(x) for x in _pieces(w, room, font, size))
                 for w in line.split(" ")]
        lines.append(" ".join(words))
    st = ParagraphStyle("w", parent=STYLES[style], fontName=font, fontSize=size,
                        leading=size + 1.5)
    return Paragraph("<br/>".join(lines), st)


def fit_widths(headers: Sequence[str], rows: Sequence[Sequence[object]], total: float,
               flex: Sequence[int]) -> list[float]:
    """Column widths that fit each header (bold) and each plain-text cell on one line; the
    ``flex`` columns (long text, set as wrapped paragraphs) share what is left, evenly."""
    widths = []
    for i, h in enumerate(headers):
        texts = [str(row[i]) for row in rows if i < len(row) and isinstance(row[i], str)]
        widest = max([stringWidth(h, FONT_BOLD, MIN_TEXT_PT),
                      *(stringWidth(t, FONT, MIN_TEXT_PT) for t in texts)])
        widths.append(widest + 2 * CELL_PADDING + 1)
    spare = total - sum(w for i, w in enumerate(widths) if i not in flex)
    for i in flex:
        widths[i] = max(36.0, spare / len(flex))
    return widths


def fitted(headers: Sequence[str], rows: Sequence[Sequence[str]], total: float,
           flex: Sequence[int], also_wrap: Sequence[int] = (),
           widths: Sequence[float] | None = None) -> tuple[list[float], list[list[object]]]:
    """Widths as :func:`fit_widths` (measured on every column but ``flex`` and
    ``also_wrap``) or as given, and the rows with those columns set as wrapped paragraphs."""
    skip = set(flex) | set(also_wrap)
    measured = [[c if i not in skip else "" for i, c in enumerate(row)] for row in rows]
    widths = list(widths) if widths is not None else fit_widths(headers, measured, total, flex)
    out: list[list[object]] = [[wrapped(c, widths[i]) if i in skip else c
                                for i, c in enumerate(row)] for row in rows]
    return widths, out
