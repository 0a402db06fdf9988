"""The reports' ink, fonts and paragraph styles: DejaVu embedded in every PDF, and the
smallest text any page prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Paragraph

INK = colors.HexColor("#1a1a1a")
GREY = colors.HexColor("#6b6b6b")
RULE = colors.HexColor("#9a9a9a")
SHADE = colors.HexColor("#e8ecf0")
ZEBRA = colors.HexColor("#f6f7f9")
ALERT = colors.HexColor("#b00020")
GOOD = colors.HexColor("#1b5e20")


# --- fonts: DejaVu, embedded (every Unicode name prints, and PDF/A needs every font in the
# file). Without it (Debian: fonts-dejavu-core) a report is refused, never printed with the
# unembedded core fonts.

_DEJAVU_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu",
                "/usr/local/share/fonts/dejavu")


def _register_fonts() -> tuple[str, str, str]:
    for d in _DEJAVU_DIRS:
        files = {n: Path(d) / f for n, f in (("sans", "DejaVuSans.ttf"),
                                            ("bold", "DejaVuSans-Bold.ttf"),
                                            ("mono", "DejaVuSansMono.ttf"))}
        if all(f.exists() for f in files.values()):
            try:
                pdfmetrics.registerFont(TTFont("DS-Sans", str(files["sans"])))
                pdfmetrics.registerFont(TTFont("DS-Bold", str(files["bold"])))
                pdfmetrics.registerFont(TTFont("DS-Mono", str(files["mono"])))
                pdfmetrics.registerFontFamily("DS-Sans", normal="DS-Sans", bold="DS-Bold",
                                              italic="DS-Sans", boldItalic="DS-Bold")
                return "DS-Sans", "DS-Bold", "DS-Mono"
            except Exception:  # a broken font file: fall back to the core fonts
                break
    return "Helvetica", "Helvetica-Bold", "Courier"


FONT, FONT_BOLD, FONT_MONO = _register_fonts()


def _graphics_default_font() -> None:
    """Charts start each drawing in reportlab's default graphics font (Helvetica, a core font
    that is never embedded) before their own strings: start them in the report's font."""
    from reportlab.graphics import shapes

    shapes.STATE_DEFAULTS["fontName"] = FONT


_graphics_default_font()
#: The smallest text on any page (table cells, notes, footers and chart labels included).
MIN_TEXT_PT = 8.0


def _style(name: str, **kw: Any) -> ParagraphStyle:
    base: dict[str, Any] = {"fontName": FONT, "fontSize": 8.5, "leading": 10.5,
                            "textColor": INK, "alignment": TA_LEFT}
    base.update(kw)
    return ParagraphStyle(name, **base)


STYLES: dict[str, ParagraphStyle] = {
    "body": _style("body", fontSize=9, leading=11.2),
    "small": _style("small", fontSize=MIN_TEXT_PT, leading=9.8),
    "cell": _style("cell", fontSize=MIN_TEXT_PT, leading=9.6),
    "cell_mono": _style("cell_mono", fontName=FONT_MONO, fontSize=MIN_TEXT_PT, leading=9.6),
    "h1": _style("h1", fontName=FONT_BOLD, fontSize=12, leading=15, spaceBefore=12,
                 spaceAfter=4),
    "h2": _style("h2", fontName=FONT_BOLD, fontSize=10, leading=13, spaceBefore=8,
                 spaceAfter=3),
    "note": _style("note", fontSize=MIN_TEXT_PT, leading=9.8, textColor=GREY),
    "alert": _style("alert", fontName=FONT_BOLD, fontSize=9, leading=11.2, textColor=ALERT),
    "mono": _style("mono", fontName=FONT_MONO, fontSize=MIN_TEXT_PT, leading=9.8),
}


def p(text: str, style: str = "body") -> Paragraph:
    """A paragraph of plain text (escaped: names and reasons may hold < or &)."""
    return Paragraph(escape(text), STYLES[style])


def rich(markup: str, style: str = "body") -> Paragraph:
    """A paragraph of reportlab markup (the caller escapes what came from the journal)."""
    return Paragraph(markup, STYLES[style])
