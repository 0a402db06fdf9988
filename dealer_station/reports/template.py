"""The page every report is printed on, and the building blocks of its body.

Every page carries the report's title, the table, the period, "page N of M", the local time it
was printed and the software version; the footer also says whether the journal verified. The
body ends with the verification section (the result, the chain head and the hash of the last
record the report covers), so that section is always on the last page and the paper can be
checked against the database.

Page totals need the whole document laid out first, so the canvas keeps each page until the
document is saved and only then writes the headers and footers (the usual "page N of M"
canvas).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeAlias
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import A4, LETTER, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Flowable,
    Frame,
    KeepTogether,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from dealer_station import __version__
from dealer_station.audit.journal import Record, VerifyResult
from dealer_station.errors import StationError
from dealer_station.reports.archival import (
    RECORDS_ATTACHMENT,
    Attachment,
    checkpoint_attachment,
    make_archival,
    records_attachment,
)
from dealer_station.reports.evidence import ProvenAgainst, Prover, proven_against
from dealer_station.reports.pdf_style import (
    ALERT,
    FONT,
    FONT_BOLD,
    FONT_MONO,
    GREY,
    INK,
    MIN_TEXT_PT,
    RULE,
    SHADE,
    STYLES,
    ZEBRA,
    p,
    rich,
)
from dealer_station.reports.source import CoveredRecords
from dealer_station.reports.text import local
from dealer_station.table.recall_model import record_label

PAGE_SIZES = {"A4": A4, "letter": LETTER}
MARGIN = 16 * mm
HEADER_SPACE = 20 * mm
FOOTER_SPACE = 14 * mm

# --- tables ------------------------------------------------------------------------------------

Cell: TypeAlias = "str | Flowable"

#: Where a word may break when it does not fit its column: after these, as people read
#: ``device:shoe:`` ``SIMSHOE``, ``bourre.`` ``discard``, ``2026-03-06``.
BREAK_AFTER = frozenset(":/.-_,;")
#: Left plus right padding of a grid cell.
CELL_PADDING = 6.0


def _pieces(word: str) -> list[str]:
    """``device:shoe:SIMSHOE`` -> ``device:``, ``shoe:``, ``SIMSHOE``."""
    out, start = [], 0
    for i, ch in enumerate(word):
        if ch in BREAK_AFTER and i + 1 < len(word):
            out.append(word[start:i + 1])
            start = i + 1
    out.append(word[start:])
    return out


def break_lines(text: str, width: float, font: str = "", size: float = MIN_TEXT_PT
                ) -> list[str]:
    """``text`` in lines no wider than ``width``: broken at spaces, else after ``:`` ``/``
    ``.`` ``-`` (so a name breaks where it reads, never ``SIMS`` / ``HOE``), and only a
    piece wider than the whole column is cut by letters."""
    font = font or FONT

    def w(t: str) -> float:
        return float(pdfmetrics.stringWidth(t, font, size))

    lines: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            joined = f"{line} {word}" if line else word
            if w(joined) <= width:
                line = joined
                continue
            if w(word) <= width:          # a line of its own: break at the space
                if line:
                    lines.append(line)
                line = word
                continue
            # A word wider than the column: fill the line with as many of its pieces as
            # fit, then go on on new lines.
            prefix = f"{line} " if line else ""
            for piece in _pieces(word):
                if w(prefix + piece) <= width:
                    prefix += piece
                    continue
                if prefix.strip():
                    lines.append(prefix.rstrip())
                prefix = ""
                while w(piece) > width and len(piece) > 1:   # one piece wider than the column
                    n = len(piece)
                    while n > 1 and w(piece[:n]) > width:
                        n -= 1
                    lines.append(piece[:n])
                    piece = piece[n:]
                prefix = piece
            line = prefix
        lines.append(line)
    return lines


def wrapped(text: str, width: float, style: ParagraphStyle) -> Paragraph:
    """A cell's text as a paragraph broken only at sensible points (:func:`break_lines`)."""
    lines = break_lines(text, width, style.fontName, style.fontSize)
    return Paragraph("<br/>".join(escape(line) for line in lines), style)


def grid(headers: Sequence[str], rows: Sequence[Sequence[Cell]], widths: Sequence[float],
         *, numeric: Sequence[int] = (), bold_last: bool = False, wrap: Sequence[int] = (),
         font_size: float = MIN_TEXT_PT, groups: Sequence[tuple[str, int, int]] = (),
         zebra_from: int = 0) -> Table:
    """A ruled table with a shaded header row repeated on every page it runs over.

    ``numeric`` columns are right-aligned; ``wrap`` columns, and any text too wide for its
    column (a heading too), are set as paragraphs that break only at spaces and after ``:``
    ``/`` ``.`` ``-`` (never into the next column); ``bold_last`` sets the last row (a total)
    in bold; ``groups`` adds a row above the headers with (title, first column, last column) spans;
    ``zebra_from`` is the index of the first row among all the table's rows (a table's
    last rows set apart keep their shading). Text is never set below ``MIN_TEXT_PT``.
    """
    font_size = max(font_size, MIN_TEXT_PT)
    cell_style = ParagraphStyle("c", parent=STYLES["cell"], fontSize=font_size,
                                leading=font_size + 1.5)
    right_style = ParagraphStyle("cr", parent=cell_style, alignment=2)
    top = 1 if groups else 0
    body: list[list[Cell]] = []
    if groups:
        over: list[Cell] = [""] * len(headers)
        for title, a, _b in groups:
            over[a] = title
        body.append(over)
    room = [max(float(x) - CELL_PADDING, 1.0) for x in widths]
    head_style = ParagraphStyle("ch", parent=cell_style, fontName=FONT_BOLD)
    head_right = ParagraphStyle("chr", parent=head_style, alignment=2)
    body.append([wrapped(h, room[i], head_right if i in numeric else head_style)
                 if i < len(room) and pdfmetrics.stringWidth(h, FONT_BOLD, font_size)
                 > widths[i] - 1 else h for i, h in enumerate(headers)])
    for row in rows:
        cells: list[Cell] = []
        for i, c in enumerate(row):
            # Text too wide even for the padding would run into the next column.
            # A cell that fits on one line stays plain text (set alike, and laid out at a
            # fraction of a paragraph's cost: a report lists hundreds of exceptions).
            if isinstance(c, str) and i < len(room):
                w = pdfmetrics.stringWidth(c, FONT, font_size)
                if w > widths[i] - 1 or (i in wrap and (w > room[i] or "\n" in c)):
                    c = wrapped(c, room[i], right_style if i in numeric else cell_style)
            cells.append(c)
        body.append(cells)
    t = Table(body, colWidths=list(widths), repeatRows=1 + top, hAlign="LEFT")
    cmds: list[tuple[Any, ...]] = [
        ("FONT", (0, 0), (-1, top), FONT_BOLD, font_size),
        ("FONT", (0, top + 1), (-1, -1), FONT, font_size),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("BACKGROUND", (0, 0), (-1, top), SHADE),
        ("LINEBELOW", (0, top), (-1, top), 0.6, RULE),
        ("LINEBELOW", (0, -1), (-1, -1), 0.6, RULE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.6),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.6),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    for _title, a, b in groups:
        cmds.append(("SPAN", (a, 0), (b, 0)))
        cmds.append(("ALIGN", (a, 0), (b, 0), "CENTER"))
        cmds.append(("LINEBELOW", (a, 0), (b, 0), 0.4, RULE))
    for i in numeric:
        cmds.append(("ALIGN", (i, top), (i, -1), "RIGHT"))
    for r in range(top + 1, len(body)):
        if (r - top - 1 + zebra_from) % 2 == 1:
            cmds.append(("BACKGROUND", (0, r), (-1, r), ZEBRA))
    if bold_last and rows:
        cmds.append(("FONT", (0, -1), (-1, -1), FONT_BOLD, font_size))
        cmds.append(("LINEABOVE", (0, -1), (-1, -1), 0.6, RULE))
    t.setStyle(TableStyle(cmds))
    # How to set the table's last rows apart (kept with the closing section, below).
    t.ds_grid = GridArgs(tuple(headers), tuple(rows), tuple(widths), {
        "numeric": numeric, "bold_last": bold_last, "wrap": wrap, "font_size": font_size,
        "groups": groups}, zebra_from)
    return t


@dataclass(frozen=True)
class GridArgs:
    """What a :func:`grid` was made of, so that it can be cut in two."""

    headers: tuple[str, ...]
    rows: tuple[Sequence[Cell], ...]
    widths: tuple[float, ...]
    options: dict[str, Any]
    zebra_from: int

    def cut(self, keep: int) -> tuple[Table, Table]:
        """The table without its last ``keep`` rows, and those rows as a table of their own
        (under the same headers, shaded as before)."""
        n = len(self.rows) - keep
        head = grid(self.headers, self.rows[:n], self.widths, zebra_from=self.zebra_from,
                    **{**self.options, "bold_last": False})
        tail = grid(self.headers, self.rows[n:], self.widths,
                    zebra_from=self.zebra_from + n, **self.options)
        return head, tail


# --- keeping things together -------------------------------------------------------------------

#: How many rows of a table a heading or caption above it needs on its page.
LEAD_ROWS = 3
#: A heading never asks for more than this (a longer first item still starts under it).
LEAD_MAX = 90 * mm


def lead(flowable: Flowable) -> Flowable:
    """Mark a heading or caption: it stays on the page with the start of what follows (the
    header and first rows of a table), never stranded at the foot of a page."""
    flowable.ds_lead = True
    return flowable


def caption(text: str, style: str = "note") -> Flowable:
    """A caption over a table (``Table limits (USD):``), kept with the table."""
    return lead(p(text, style))


def _is_lead(f: Flowable) -> bool:
    return bool(getattr(f, "ds_lead", False))


class _KeepStart(CondPageBreak):  # type: ignore[misc]  # reportlab has no type hints
    """A page break before headings or captions unless they fit with the start of what
    follows them: the whole of a paragraph, the header and first rows of a table."""

    def __init__(self, leads: Sequence[Flowable], following: Sequence[Flowable]) -> None:
        super().__init__(0)
        self.leads, self.following = list(leads), list(following)

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        self.height = min(self._need(availWidth), LEAD_MAX)
        return super().wrap(availWidth, availHeight)  # type: ignore[no-any-return]

    def _need(self, width: float) -> float:
        need = 0.0
        # wrapOn, not wrap: a KeepTogether lays out its content on the canvas it is given.
        for f in self.leads:
            need += f.wrapOn(self.canv, width, 10_000)[1] + f.getSpaceBefore() \
                + f.getSpaceAfter()
        for f in self.following:
            if isinstance(f, Table) and hasattr(f, "ds_grid"):   # a grid: its first rows
                heights = _row_heights(f, width)
                top = f.repeatRows if isinstance(f.repeatRows, int) else 1
                return need + sum(heights[:top + LEAD_ROWS])
            need += f.wrapOn(self.canv, width, 10_000)[1] + f.getSpaceBefore()
        return need


def _row_heights(t: Table, width: float) -> list[float]:
    if len(t._cellvalues) > 400:   # a long table: estimate rather than lay it all out twice
        return [12.0] * (LEAD_ROWS + 2)
    t.wrap(width, 10_000)
    return [float(h) for h in t._rowHeights]


def keep_leads(story: Sequence[Flowable]) -> list[Flowable]:
    """``story`` with a :class:`_KeepStart` before each run of headings and captions."""
    out: list[Flowable] = []
    i = 0
    while i < len(story):
        if not _is_lead(story[i]):
            out.append(story[i])
            i += 1
            continue
        j = i
        while j < len(story) and _is_lead(story[j]):
            j += 1
        following: list[Flowable] = []
        for f in story[j:j + 2]:   # a note between a heading and its table counts too
            following.append(f)
            if isinstance(f, Table) or _is_lead(f):
                break
        out.append(_KeepStart(story[i:j], following))
        out.extend(story[i:j])
        i = j
    return out


def _flat(flowables: Iterable[Flowable]) -> list[Flowable]:
    """The contents of any KeepTogether among ``flowables``: one nested in another asks for
    an endless height (reportlab's way to force a split), so the outer always breaks."""
    out: list[Flowable] = []
    for f in flowables:
        out.extend(_flat(f._content) if isinstance(f, KeepTogether) else [f])
    return out


def _forget_layout(story: Iterable[Flowable]) -> None:
    """Clear what a first layout left on the flowables: reportlab marks one it moved to the
    next page, and refuses to move it twice."""
    for f in story:
        if hasattr(f, "_postponed"):
            del f._postponed
        _forget_layout(getattr(f, "_content", None) or ())


class _PageMark(Flowable):  # type: ignore[misc]  # reportlab has no type hints
    """Draws nothing; remembers the page it landed on."""

    def __init__(self) -> None:
        super().__init__()
        self.page = 0

    def wrap(self, availWidth: float, availHeight: float) -> tuple[float, float]:
        return 0, 0

    def draw(self) -> None:
        self.page = self.canv.getPageNumber()


#: How many of the last rows of the body's last table go with the closing section onto a
#: page of its own, so that it never stands alone.
CLOSING_ROWS = 3


def facts(pairs: Sequence[tuple[str, Cell]], widths: tuple[float, float] = (48 * mm, 128 * mm)
          ) -> Table:
    """A two-column list of labelled facts (the report's summary block)."""
    body = [[p(k, "cell"), v if not isinstance(v, str) else p(v, "cell")] for k, v in pairs]
    t = Table(body, colWidths=list(widths), hAlign="LEFT")
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
        ("LEFTPADDING", (0, 0), (-1, -1), 0),
        ("TEXTCOLOR", (0, 0), (0, -1), GREY),
    ]))
    return t


# --- the document ------------------------------------------------------------------------------

@dataclass
class PageMeta:
    """What the header and footer of every page say."""

    title: str
    table: str
    period: str
    subject: str = ""
    printed: str = field(default_factory=lambda: local(datetime.now().astimezone()))
    version: str = __version__
    verified: str = ""
    verified_ok: bool = True
    pages: int = 0
    #: What the header names instead of "Table T" (a report over several tables).
    place: str = ""
    #: A word set across every page (a voided slip's VOID), outlined so that what is
    #: printed beneath stays legible.
    stamp: str = ""


class _PagedCanvas(Canvas):  # type: ignore[misc]  # reportlab has no type hints
    """Holds every page until save(), then writes headers and footers knowing the total."""

    def __init__(self, *args: Any, meta: PageMeta, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._meta = meta
        self._held: list[dict[str, Any]] = []

    def showPage(self) -> None:
        self._held.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        total = len(self._held)
        self._meta.pages = total
        for n, state in enumerate(self._held, 1):
            self.__dict__.update(state)
            self._decorate(n, total)
            super().showPage()
        super().save()

    def _decorate(self, n: int, total: int) -> None:
        m = self._meta
        width, height = self._pagesize
        left, right = MARGIN, width - MARGIN
        top = height - MARGIN
        self.saveState()
        self.setFillColor(INK)
        self.setFont(FONT_BOLD, 11)
        self.drawString(left, top - 9, m.title)
        self.setFont(FONT_BOLD, 9.5)
        self.drawRightString(right, top - 9, m.place or f"Table {m.table}")
        self.setFont(FONT, 8)
        self.setFillColor(GREY)
        self.drawString(left, top - 21, f"Period: {m.period}")
        if m.subject:
            self.drawRightString(right, top - 21, m.subject)
        self.setStrokeColor(RULE)
        self.setLineWidth(0.6)
        self.line(left, top - 26, right, top - 26)
        bottom = MARGIN
        self.line(left, bottom + 16, right, bottom + 16)
        # Two lines, so that neither runs into the other at any length: whether the journal
        # verified (and the page), then when and by what it was printed.
        self.setFillColor(INK if m.verified_ok else ALERT)
        self.setFont(FONT if m.verified_ok else FONT_BOLD, MIN_TEXT_PT)
        self.drawString(left, bottom + 6, m.verified)
        self.setFont(FONT_BOLD, MIN_TEXT_PT)
        self.setFillColor(INK)
        self.drawRightString(right, bottom + 6, f"Page {n} of {total}")
        self.setFont(FONT, MIN_TEXT_PT)
        self.setFillColor(GREY)
        self.drawString(left, bottom - 4, f"Printed {m.printed} by Dealer Station {m.version}")
        if m.stamp:
            self.translate(width / 2, height / 2)
            self.rotate(35)
            self.setStrokeColor(ALERT)
            self.setLineWidth(3)
            text = self.beginText()
            text.setTextRenderMode(1)          # outlined: the page beneath stays legible
            size = min(160.0, 0.9 * width / max(1, len(m.stamp)) * 1.6)
            text.setFont(FONT_BOLD, size)
            text.setTextOrigin(-self.stringWidth(m.stamp, FONT_BOLD, size) / 2, -size / 3)
            text.textOut(m.stamp)
            self.drawText(text)
        self.restoreState()


@dataclass(frozen=True)
class BuiltReport:
    """A written report: where, how many pages, and what its last page certifies."""

    path: Path
    kind: str
    title: str
    table: str
    pages: int
    verification: VerifyResult
    last_record: Record | None
    data: Any = None


#: The most journal records a report attaches (about 100 MB of JSON before compression): an
#: eight-hour shift at a busy table is some 50,000. Beyond it the database is the evidence.
MAX_ATTACHED_RECORDS = 300_000


def attached_count(first: Record | None, last: Record | None) -> int:
    """How many records a report covering ``first`` to ``last`` attaches (0: none)."""
    if first is None or last is None:
        return 0
    count = last.seq - first.seq + 1
    return count if count <= MAX_ATTACHED_RECORDS else 0


#: The checkpoint a single-table report's records are proven against.
CHECKPOINT_ATTACHMENT = "journal-checkpoint.txt"


def public_evidence(evidence: Iterable[Record], table: str, records_name: str,
                    checkpoint_name: str) -> tuple[list[Attachment], ProvenAgainst | None]:
    """The covered records as an attachment, each with its inclusion proof, and the
    checkpoint they are proven against as another (when a signed checkpoint covers any)."""
    if isinstance(evidence, CoveredRecords) and evidence.last is not None:
        against = proven_against(evidence.journal, evidence.table, evidence.last.seq)
        if against is not None:
            prover = Prover(evidence.journal, against)
            try:
                records = records_attachment(evidence, table, records_name, prover.proof)
            finally:
                prover.close()
            return [records, checkpoint_attachment(against.note, table, checkpoint_name)], \
                against
    return [records_attachment(evidence, table, records_name)], None


def _public_row(against: ProvenAgainst | None, last: Record | None,
                checkpoint_name: str) -> tuple[str, Cell]:
    if against is None:
        return ("Public proof", p("none yet: no signed checkpoint covers these records "
                                  "(the station signs one at each round's close)", "small"))
    after = (f"; records after {against.size:,} are not yet covered"
             if last is not None and last.seq > against.size else "")
    return ("Public proof", p(
        f"each attached record carries its inclusion proof, {against.words()} (attached as "
        f"{checkpoint_name}){after}. Anyone holding the station's and the witness's public "
        f"keys can check them without the journal key: see the verifier in the station's "
        f"journal documentation.", "small"))


def verification_section(result: VerifyResult, first: Record | None, last: Record | None,
                         note: str = "", against: ProvenAgainst | None = None) -> Flowable:
    """The closing section: the chain's verification and the records this report covers."""
    if result.ok:
        verdict = rich(f"<font color='#1b5e20'><b>Journal verified: intact.</b></font> "
                       f"Table {escape(result.table_id)}: {result.records:,} records, chain "
                       f"intact from record 1 to record {result.last_seq:,}; "
                       f"{result.checkpoints} checkpoint(s) confirmed.")
    else:
        verdict = rich(f"<font color='#b00020'><b>JOURNAL VERIFICATION FAILED at record "
                       f"{result.bad_seq}:</b> {escape(result.problem or '')}</font> "
                       f"Records after {result.last_seq:,} cannot be relied on; call the "
                       f"operator and keep this paper.")
    rows: list[tuple[str, Cell]] = [("Verification", verdict)]
    if result.last_hash:
        rows.append(("Chain head", rich(f"record {result.last_seq:,}, hash "
                                        f"<font name='{FONT_MONO}'>{result.last_hash}</font>",
                                        "small")))
    if last is None:
        rows.append(("Records covered", p("none: the journal holds no record of this table "
                                          "in the period")))
    else:
        span = f"{first.seq:,} to {last.seq:,}" if first is not None else f"up to {last.seq:,}"
        rows.append(("Records covered", p(f"{span} (the last at {local(last.ts)}: "
                                          f"{record_label(last.kind)})")))
        rows.append(("Last record hash", rich(f"<font name='{FONT_MONO}'>{last.hash}</font>",
                                              "small")))
    if first is not None and last is not None:
        count = last.seq - first.seq + 1
        rows.append(("Attached", p(
            f"the {count:,} records covered, as {RECORDS_ATTACHMENT} (one JSON record per "
            f"line, as the journal holds them)" if attached_count(first, last) else
            f"none: the {count:,} records covered are more than a report carries "
            f"({MAX_ATTACHED_RECORDS:,} at most); the journal database holds them", "small")))
    if first is not None and last is not None and attached_count(first, last):
        rows.append(_public_row(against, last, CHECKPOINT_ATTACHMENT))
    rows.append(("How to check", p("Run 'dealer-station audit verify --table "
                                   f"{result.table_id}' on the journal database with its key; "
                                   "the record numbered above must carry the hash printed "
                                   "here.", "small")))
    block: list[Flowable] = [Spacer(1, 4 * mm), rich("Journal verification", "h2"),
                             facts(rows)]
    if note:
        block.append(p(note, "note"))
    return KeepTogether(block)


@dataclass(frozen=True)
class TableCheck:
    """One table of a report over several: its chain's verification and what it covers."""

    result: VerifyResult
    first: Record | None
    last: Record | None
    evidence: Iterable[Record] = ()


def tables_verification_section(checks: Sequence[TableCheck], width: float,
                                note: str = "",
                                proven: dict[str, ProvenAgainst | None] | None = None
                                ) -> Flowable:
    """The closing section of a report over several tables: a row per table."""
    rows: list[list[Cell]] = []
    for c in checks:
        r = c.result
        verdict: Cell = (rich(f"<font color='#1b5e20'><b>intact</b></font> to record "
                              f"{r.last_seq:,}", "small") if r.ok else
                         rich(f"<font color='#b00020'><b>FAILED at record {r.bad_seq}:</b> "
                              f"{escape(r.problem or '')}</font>", "small"))
        covered = ("none in the period" if c.last is None else
                   f"{c.first.seq if c.first else 1:,} to {c.last.seq:,}")
        # The whole hash: half of one is not a hash anyone can check.
        head = rich(f"<font name='{FONT_MONO}'>{c.last.hash[:32]}<br/>{c.last.hash[32:]}"
                    f"</font>", "small") if c.last is not None else p("-", "small")
        rows.append([r.table_id, verdict, covered, head])
    against = [a for a in (proven or {}).values() if a is not None]
    public = ("Each record attached carries its inclusion proof against the table's signed "
              "checkpoint, attached as journal-checkpoint-TABLE.txt"
              + (" (cosigned by the regulator's witness)" if any(a.witness for a in against)
                 else "") + ": anyone holding the public keys can check them without the "
                            "journal key. " if against else "")
    block: list[Flowable] = [
        Spacer(1, 4 * mm), rich("Journal verification", "h2"),
        grid(["Table", "Chain", "Records covered", "Last record covered: hash"],
             rows, [width * 0.12, width * 0.33, width * 0.2, width * 0.35], wrap=(1, 3)),
        p(_attached_words(checks) + public + "Run 'dealer-station audit verify "
          "--table TABLE' on the journal database with its key: each record numbered above "
          "must carry the hash printed here.", "small")]
    if note:
        block.append(p(note, "note"))
    return KeepTogether(block)


def _attached_words(checks: Sequence[TableCheck]) -> str:
    """What the last page of a report over several tables says is attached: each table's
    covered records, or which are not (more than a report carries)."""
    left = [c.result.table_id for c in checks if c.first is not None and c.last is not None
            and not attached_count(c.first, c.last)]
    said = ("Each table's covered records are attached to this PDF as "
            "journal-records-TABLE.jsonl")
    if not left:
        return said + ". "
    return (said + f", except those of {', '.join(left)}: more than a report carries "
            f"({MAX_ATTACHED_RECORDS:,} at most); the journal database holds them. ")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def signature_block(roles: Sequence[str], width: float) -> Flowable:
    """Lines for the people who sign the printed report."""
    gap = width * 0.04
    body = [[p(role, "small"), "", "", "", "", ""] for role in roles]
    head = [["", "Name", "", "Signature", "", "Date and time"]]
    t = Table(head + body, colWidths=[width * 0.18, width * 0.28, gap, width * 0.28, gap,
                                      width * 0.18], rowHeights=[12] + [26] * len(roles),
              hAlign="LEFT")
    t.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), FONT, MIN_TEXT_PT),
        ("TEXTCOLOR", (0, 0), (-1, 0), GREY),
        ("VALIGN", (0, 1), (-1, -1), "BOTTOM"),
        ("LINEBELOW", (1, 1), (1, -1), 0.5, INK),
        ("LINEBELOW", (3, 1), (3, -1), 0.5, INK),
        ("LINEBELOW", (5, 1), (5, -1), 0.5, INK),
        ("LEFTPADDING", (0, 0), (-1, -1), 0),
    ]))
    return KeepTogether([Spacer(1, 5 * mm), rich("Sign-off", "h2"), t])


class ReportBuilder:
    """Collects a report's body and writes the PDF with the page template."""

    def __init__(self, *, kind: str, title: str, table: str, period: str, subject: str = "",
                 paper: str = "A4", landscape_pages: bool = False) -> None:
        if paper not in PAGE_SIZES:
            raise StationError(f"unknown paper size {paper!r}: use one of "
                               f"{', '.join(PAGE_SIZES)}")
        size = PAGE_SIZES[paper]
        self.pagesize = landscape(size) if landscape_pages else size
        self.kind = kind
        self.meta = PageMeta(title=title, table=table, period=period, subject=subject)
        self.story: list[Flowable] = []

    @property
    def width(self) -> float:
        """The width of the text frame."""
        return float(self.pagesize[0] - 2 * MARGIN)

    def add(self, *flowables: Flowable) -> None:
        self.story.extend(flowables)

    def heading(self, text: str, level: int = 2) -> None:
        # Kept with the start of what follows it (see keep_leads).
        self.story.append(lead(p(text, "h1" if level == 1 else "h2")))

    def space(self, height: float = 3 * mm) -> None:
        self.story.append(Spacer(1, height))

    def build(self, out: Path | str, verification: VerifyResult, first: Record | None,
              last: Record | None, *, note: str = "", data: Any = None,
              signatures: Sequence[str] = (), evidence: Iterable[Record] = ()
              ) -> BuiltReport:
        """Write the PDF to ``out`` (atomically: a failed build leaves no half file), as
        PDF/A-3b with ``evidence`` (the journal records the report covers) attached.

        ``signatures``: roles that sign the paper (a line each for name, signature, date).
        """
        out = Path(out)
        m = self.meta
        if verification.ok:
            m.verified = (f"Journal verified intact to record {verification.last_seq:,}")
        else:
            m.verified = f"JOURNAL VERIFICATION FAILED at record {verification.bad_seq}"
            m.verified_ok = False
        attachments: list[Attachment] = []
        against = None
        if attached_count(first, last):
            attachments, against = public_evidence(evidence, m.table, RECORDS_ATTACHMENT,
                                                   CHECKPOINT_ATTACHMENT)
        closing = [signature_block(signatures, self.width)] if signatures else []
        # Last, so that it is always on the last page.
        closing.append(verification_section(verification, first, last, note, against))
        self._write(out, attachments, closing)
        return BuiltReport(out, self.kind, m.title, m.table, m.pages, verification, last, data)

    def build_tables(self, out: Path | str, checks: Sequence[TableCheck], *,
                     note: str = "", data: Any = None, signatures: Sequence[str] = ()
                     ) -> BuiltReport:
        """Write a report that covers several tables: each table's chain verification and
        the records covered, a row each, on the last page, and each table's covered records
        attached as their own file. The header says verified only when every table is."""
        if not checks:
            raise StationError("a report over several tables needs at least one table")
        out = Path(out)
        m = self.meta
        failed = [c for c in checks if not c.result.ok]
        if failed:
            m.verified = "JOURNAL VERIFICATION FAILED: " + ", ".join(
                f"table {c.result.table_id} at record {c.result.bad_seq}" for c in failed)
            m.verified_ok = False
        else:
            m.verified = f"Journals of {len(checks):,} table(s) verified intact"
        attachments = []
        proven: dict[str, ProvenAgainst | None] = {}
        for c in checks:
            if attached_count(c.first, c.last):
                t = c.result.table_id
                made, proven[t] = public_evidence(c.evidence, t, f"journal-records-{t}.jsonl",
                                                  f"journal-checkpoint-{t}.txt")
                attachments += made
        closing = [signature_block(signatures, self.width)] if signatures else []
        closing.append(tables_verification_section(checks, self.width, note, proven))
        self._write(out, attachments, closing)
        worst = failed[0] if failed else checks[-1]
        return BuiltReport(out, self.kind, m.title, m.table, m.pages, worst.result,
                           worst.last, data)

    def _layouts(self, closing: Sequence[Flowable]) -> Iterator[tuple[list[Flowable],
                                                                        _PageMark, _PageMark]]:
        """The story with the closing section (sign-off, verification) kept together after
        it; then, should that section land alone on a last page, the same story with the
        body's last rows moved over to go with it."""
        body = list(self.story)
        closing = _flat(closing)
        ended, started = _PageMark(), _PageMark()
        yield ([*keep_leads(body), ended, KeepTogether([started, *closing])], ended, started)
        moved: list[Flowable] = []
        # Notes after the last table go along; then the last table: its last rows when it is
        # a long grid (moving all of it would leave its page near empty), else whole.
        while body and len(moved) < 2 and not isinstance(body[-1], Table):
            moved.insert(0, body.pop())
        last = body[-1] if body else None
        grid_args: GridArgs | None = getattr(last, "ds_grid", None)
        if grid_args is not None and len(grid_args.rows) > CLOSING_ROWS:
            head, tail = grid_args.cut(CLOSING_ROWS)
            body[-1:] = [head]
            moved.insert(0, tail)
        elif body and isinstance(last, Table):
            moved.insert(0, body.pop())
            # A short table goes whole, and the note that introduces it with it.
            if body and isinstance(body[-1], Paragraph) and not _is_lead(body[-1]):
                moved.insert(0, body.pop())
        while body and _is_lead(body[-1]):   # with the heading or caption above them
            moved.insert(0, body.pop())
        ended, started = _PageMark(), _PageMark()
        yield ([*keep_leads(body), ended, KeepTogether([*_flat(moved), started, *closing])],
               ended, started)

    def _build(self, path: str, story: list[Flowable]) -> None:
        """Lay ``story`` out on the page template into ``path``."""
        _forget_layout(story)
        m = self.meta
        doc = BaseDocTemplate(
            path, pagesize=self.pagesize, leftMargin=MARGIN, rightMargin=MARGIN,
            topMargin=MARGIN + HEADER_SPACE - 6 * mm, bottomMargin=MARGIN + FOOTER_SPACE,
            title=f"{m.title} - {m.place or 'table ' + m.table}", author="Dealer Station",
            subject=m.period, creator=f"Dealer Station {m.version}",
            # Each page starts in the report's own font, so no core font is ever named.
            initialFontName=FONT)
        frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        doc.addPageTemplates([PageTemplate(id="page", frames=[frame])])
        canvasmaker: Callable[..., Canvas] = partial(_PagedCanvas, meta=m)
        doc.build(story, canvasmaker=canvasmaker)

    def _write(self, out: Path, attachments: Sequence[Attachment],
               closing: Sequence[Flowable] = ()) -> None:
        """Lay out the story and write it to ``out`` as PDF/A-3b with ``attachments``
        (atomically: a failed build leaves no half file)."""
        if FONT == "Helvetica":
            raise StationError("cannot print a report: the DejaVu fonts are not installed "
                               "(Debian package fonts-dejavu-core); an archival report must "
                               "embed every font it uses")
        folder = out.parent if str(out.parent) else Path(".")
        if not folder.is_dir():
            raise StationError(f"cannot write the report to {out}: folder {folder} does not "
                               f"exist")
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=folder)
        except OSError as e:
            raise StationError(f"cannot write the report to {out}: {e.strerror}") from None
        os.close(fd)
        try:
            for story, ended, started in self._layouts(closing):
                self._build(tmp, story)
                if started.page <= ended.page:   # the closing section is not alone
                    break
            make_archival(Path(tmp), attachments)
            os.chmod(tmp, 0o666 & ~_umask())   # a report is an ordinary file, not a secret
            os.replace(tmp, out)
        except OSError as e:
            raise StationError(f"cannot write the report to {out}: {e.strerror or e}") from None
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

