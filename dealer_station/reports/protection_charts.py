"""The game-protection report's charts, drawn with reportlab's own graphics (vector, so they
print sharp), every label at least 8 pt:

- **an alert's evidence**: its test's statistic (the CUSUM's log-likelihood ratio) after each
  round of its gaming day through the round where it crossed, the threshold as a dashed line,
  the rounds its evidence is made of shaded, the hits among them marked;
- **the hold bands**: a table's cumulative win against the theoretical win of the wagers
  actually placed, with the band the exact variance of those wagers allows, in the table's
  money (whole units on the axis; the exact figures are printed beside the chart).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from reportlab.graphics.shapes import Circle, Drawing, Line, Polygon, PolyLine, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from dealer_station.money import Money
from dealer_station.reports.charts import LOSS, WIN, axis_unit, nice_ticks
from dealer_station.reports.pdf_style import ALERT, FONT, FONT_BOLD, GREY, INK, MIN_TEXT_PT

GRID = colors.HexColor("#dddddd")
EVIDENCE = colors.HexColor("#f6e3c6")
BAND = colors.HexColor("#dbe6f1")
THEORETICAL = colors.HexColor("#4f7f5a")
#: The most points a line is drawn with (a long day's rounds are thinned evenly, the last one
#: always kept): more only makes the file larger, never the line clearer at print size.
MOST_POINTS = 800


class TracedPoint(Protocol):
    """A test's statistic after one round (table/protection_evidence.TracePoint)."""

    @property
    def round_no(self) -> int: ...
    @property
    def statistic(self) -> float: ...
    @property
    def hit(self) -> bool: ...


class BandLike(Protocol):
    """One round of the hold bands (monitor/hold.BandPoint): cumulative figures through the
    round, in minor units of the table's money."""

    @property
    def round_no(self) -> int: ...
    @property
    def wagered(self) -> int: ...
    @property
    def win(self) -> int: ...
    @property
    def theoretical(self) -> float: ...
    @property
    def low(self) -> float: ...
    @property
    def high(self) -> float: ...


def _thinned(n: int) -> list[int]:
    """Indexes of at most MOST_POINTS of ``n`` points, evenly, first and last kept."""
    if n <= MOST_POINTS:
        return list(range(n))
    step = (n - 1) / (MOST_POINTS - 1)
    return sorted({round(i * step) for i in range(MOST_POINTS)} | {n - 1})


def _round_steps(first: int, last: int, room: float) -> list[int]:
    """Round numbers under the axis: a whole step of 1, 2, 5 x 10^k, about one per 40 pt."""
    span = max(1, last - first)
    most = max(1.0, room / 40)
    step = 1
    for power in range(0, 12):
        found = next((m * 10 ** power for m in (1, 2, 5) if span / (m * 10 ** power) <= most),
                     None)
        if found is not None:
            step = found
            break
    start = math.ceil(first / step) * step
    return list(range(start, last + 1, step))


def _text(x: float, y: float, text: str, *, anchor: str = "start", colour: colors.Color = INK,
          bold: bool = False) -> String:
    return String(x, y, text, fontName=FONT_BOLD if bold else FONT, fontSize=MIN_TEXT_PT,
                  fillColor=colour, textAnchor=anchor)


class _Frame:
    """A plot area: rounds across, values up, with its axes, grid and labels drawn."""

    def __init__(self, d: Drawing, x: float, y: float, width: float, height: float,
                 first: int, last: int, low: float, high: float) -> None:
        self.d, self.x, self.y, self.w, self.h = d, x, y, width, height
        self.first, self.last = first, max(last, first + 1)
        self.low, self.high = low, high if high > low else low + 1

    def px(self, round_no: float) -> float:
        return self.x + self.w * (round_no - self.first) / (self.last - self.first)

    def py(self, value: float) -> float:
        v = min(max(value, self.low), self.high)
        return self.y + self.h * (v - self.low) / (self.high - self.low)

    def axes(self, y_ticks: Sequence[tuple[float, str]], x_label: str) -> None:
        d = self.d
        for value, label in y_ticks:
            y = self.py(value)
            d.add(Line(self.x, y, self.x + self.w, y, strokeColor=GRID, strokeWidth=0.4))
            d.add(_text(self.x - 3, y - 2.8, label, anchor="end"))
        d.add(Line(self.x, self.y, self.x + self.w, self.y, strokeColor=GREY,
                   strokeWidth=0.5))
        d.add(Line(self.x, self.y, self.x, self.y + self.h, strokeColor=GREY,
                   strokeWidth=0.5))
        for r in _round_steps(self.first, self.last, self.w):
            x = self.px(r)
            d.add(Line(x, self.y, x, self.y - 2.5, strokeColor=GREY, strokeWidth=0.5))
            d.add(_text(x, self.y - 11, f"{r:,}", anchor="middle"))
        d.add(_text(self.x + self.w / 2, self.y - 21, x_label, anchor="middle", colour=GREY))


def statistic_chart(points: Sequence[TracedPoint], threshold: float, evidence: Sequence[int],
                    hits: Sequence[int], crossed: int, width: float, height: float, *,
                    title: str) -> Drawing:
    """An alert's test over the rounds of its day: the statistic (a line), the threshold
    (dashed, red), the evidence rounds (shaded), the hits among them (dots) and the round
    where it crossed (a ring)."""
    d = Drawing(width, height)
    d.add(String(0, height - 10, title, fontName=FONT_BOLD, fontSize=MIN_TEXT_PT,
                 fillColor=INK))
    rounds = [pt.round_no for pt in points] or [crossed]
    values = [pt.statistic for pt in points] or [0.0]
    first, last = min(rounds), max(rounds)
    ticks = nice_ticks(0, max(threshold, max(values)) * 1.08, most=4)
    f = _Frame(d, 30, 34, width - 40, height - 68, first, last, ticks.low, ticks.high)
    if evidence:
        a, b = f.px(min(evidence) - 0.5), f.px(max(evidence) + 0.5)
        a, b = max(a, f.x), min(b, f.x + f.w)
        d.add(Rect(a, f.y, max(b - a, 1.0), f.h, fillColor=EVIDENCE, strokeColor=None))
    label = ticks.label()
    f.axes([(v, label(v)) for v in range(ticks.low, ticks.high + 1, ticks.step)], "round")
    keep = _thinned(len(points))
    line: list[float] = []
    for i in keep:
        line += [f.px(points[i].round_no), f.py(points[i].statistic)]
    if len(line) >= 4:
        d.add(PolyLine(line, strokeColor=WIN, strokeWidth=0.9))
    y = f.py(threshold)
    d.add(Line(f.x, y, f.x + f.w, y, strokeColor=ALERT, strokeWidth=0.9,
               strokeDashArray=[4, 2]))
    d.add(_text(f.x + 2, y + 2.5, f"threshold {threshold:.2f}", colour=ALERT))
    by_round = {pt.round_no: pt.statistic for pt in points}
    dense = len(hits) > 60
    for r in hits:
        if r in by_round:
            d.add(Circle(f.px(r), f.py(by_round[r]), 1.1 if dense else 1.7, fillColor=LOSS,
                         strokeColor=None))
    if crossed in by_round:
        d.add(Circle(f.px(crossed), f.py(by_round[crossed]), 3.6, fillColor=None,
                     strokeColor=ALERT, strokeWidth=1.0))
    # The key, under the title: what the shading and the dots are.
    ky = height - 23
    x = 0.0
    d.add(Rect(x, ky - 1, 9, 7, fillColor=EVIDENCE, strokeColor=None))
    x = _keyed(d, x + 12, ky, "the evidence's rounds")
    d.add(Circle(x + 2, ky + 2.5, 1.7, fillColor=LOSS, strokeColor=None))
    x = _keyed(d, x + 7, ky, "a hit")
    d.add(Circle(x + 3, ky + 2.5, 3.2, fillColor=None, strokeColor=ALERT, strokeWidth=1.0))
    _keyed(d, x + 9, ky, f"crossed at round {crossed:,}")
    return d


def _keyed(d: Drawing, x: float, y: float, text: str) -> float:
    """A key's words at ``x``; where the next entry starts."""
    d.add(_text(x, y, text))
    return x + float(stringWidth(text, FONT, MIN_TEXT_PT)) + 12


def hold_band_chart(points: Sequence[BandLike], money: Money, width: float, height: float,
                    *, title: str) -> Drawing:
    """A table's cumulative win (solid) against the theoretical win of the wagers placed
    (dashed) and its band (shaded), over the period's rounds."""
    d = Drawing(width, height)
    d.add(String(0, height - 10, title, fontName=FONT_BOLD, fontSize=MIN_TEXT_PT + 0.5,
                 fillColor=INK))
    d.add(_text(width, height - 10, f"house win, {axis_unit(money)}", anchor="end",
                colour=GREY))
    if not points:
        d.add(_text(0, height - 30, "No round in the period."))
        return d
    major = money.major
    keep = _thinned(len(points))
    shown = [points[i] for i in keep]
    lows = [major(round(pt.low)) for pt in shown]
    highs = [major(round(pt.high)) for pt in shown]
    wins = [major(pt.win) for pt in shown]
    theos = [major(round(pt.theoretical)) for pt in shown]
    ticks = nice_ticks(min(lows + wins), max(highs + wins), most=5)
    rounds = [pt.round_no for pt in shown]
    f = _Frame(d, 46, 34, width - 56, height - 68, min(rounds), max(rounds), ticks.low,
               ticks.high)
    band = [*(c for pt, v in zip(shown, highs, strict=True) for c in (f.px(pt.round_no),
                                                                       f.py(v))),
            *(c for pt, v in zip(reversed(shown), reversed(lows), strict=True)
              for c in (f.px(pt.round_no), f.py(v)))]
    if len(band) >= 6:
        d.add(Polygon(band, fillColor=BAND, strokeColor=None))
    label = ticks.label()
    f.axes([(v, label(v) if v else "0") for v in range(ticks.low, ticks.high + 1, ticks.step)],
           "round")
    zero = f.py(0)
    d.add(Line(f.x, zero, f.x + f.w, zero, strokeColor=INK, strokeWidth=0.5))
    for values, colour, dash in ((theos, THEORETICAL, [4, 2]), (wins, WIN, None)):
        line = [c for pt, v in zip(shown, values, strict=True)
                for c in (f.px(pt.round_no), f.py(v))]
        if len(line) >= 4:
            d.add(PolyLine(line, strokeColor=colour, strokeWidth=1.1,
                           strokeDashArray=dash))
        elif line:
            d.add(Circle(line[0], line[1], 1.8, fillColor=colour, strokeColor=None))
    ky = height - 23
    d.add(Line(0, ky + 2.5, 14, ky + 2.5, strokeColor=WIN, strokeWidth=1.1))
    x = _keyed(d, 18, ky, "house win, cumulative")
    d.add(Line(x, ky + 2.5, x + 14, ky + 2.5, strokeColor=THEORETICAL, strokeWidth=1.1,
               strokeDashArray=[4, 2]))
    x = _keyed(d, x + 18, ky, "theoretical win of the wagers placed")
    d.add(Rect(x, ky - 1, 12, 7, fillColor=BAND, strokeColor=None))
    _keyed(d, x + 16, ky, "the band their exact variance allows")
    return d
