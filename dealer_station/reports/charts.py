"""Charts drawn with reportlab's own graphics (vector, so they print sharp): the house's win by
hour, the handle by wager kind and lines of a count per hand (a Bourré session's chips). Amounts
are drawn in major units; the exact figures are always printed beside them in a table.

Every value axis has whole-number ticks, each label different from the next, whatever the range
(all zero, one chip, millions): reportlab's own choice labels a 0-to-1 axis "0, 0, 0, 1, 1, 1"
once rounded."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from reportlab.graphics.charts.axes import ValueAxis
from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, Line, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors
from reportlab.lib.validators import Auto
from reportlab.pdfbase.pdfmetrics import stringWidth

from dealer_station.money import CHIPS, Money
from dealer_station.reports.pdf_style import FONT, FONT_BOLD, GREY, INK, MIN_TEXT_PT

WIN = colors.HexColor("#2e5d8a")
LOSS = colors.HexColor("#c0504d")
HANDLE = colors.HexColor("#4f7f5a")


#: A line per series: colour, dash pattern and marker all differ, so two series that run
#: together (or a page printed in grey) still show each one.
LINE_COLOURS = ("#2e5d8a", "#c0504d", "#4f7f5a", "#8064a2", "#d08a2c", "#3b9aa8", "#7f7f7f",
                "#b5487a", "#5a5a2e", "#1f3f6e")
LINE_DASHES: tuple[tuple[float, ...] | None, ...] = (
    None, (5, 2), (1.2, 1.8), (6, 2, 1.2, 2), (3, 3), (9, 3), (1.2, 1.8, 1.2, 4), (6, 4),
    (2, 1), (4, 2, 4, 6))
LINE_MARKERS = ("FilledCircle", "FilledSquare", "FilledTriangle", "FilledDiamond", "Circle",
                "Square", "Triangle", "Diamond", "Cross", "FilledStarFive")


@dataclass(frozen=True)
class Ticks:
    """A value axis: from ``low`` to ``high`` in whole ``step``s (every tick a whole number)."""

    low: int
    high: int
    step: int

    def label(self) -> Callable[[float], str]:
        """Tick labels that never repeat: thousands or millions only in whole steps of them."""
        big = max(abs(self.low), abs(self.high))
        if big >= 1_000_000 and self.step % 1_000_000 == 0:
            return lambda v: f"{v / 1_000_000:,.0f}M"
        if big >= 10_000 and self.step % 1000 == 0:
            return lambda v: f"{v / 1000:,.0f}k"
        return lambda v: f"{v:,.0f}"


def nice_ticks(low: float, high: float, most: int = 6) -> Ticks:
    """Whole-number ticks covering ``low`` to ``high`` (zero always inside), at most ``most``
    intervals of 1, 2 or 5 times a power of ten: all zero is 0 to 1, a range of 3 is 0 to 3."""
    low, high = min(0.0, low), max(0.0, high)
    if high - low < 1:
        high = low + 1
    raw = (high - low) / max(1, most)
    step = 1
    for power in range(0, 16):
        for m in (1, 2, 5):
            step = m * 10 ** power
            if step >= raw:
                break
        else:
            continue
        break
    return Ticks(math.floor(low / step) * step, math.ceil(high / step) * step, step)


def set_ticks(axis: ValueAxis, ticks: Ticks) -> None:
    axis.valueMin, axis.valueMax, axis.valueStep = ticks.low, ticks.high, ticks.step
    axis.labelTextFormat = ticks.label()
    axis.labels.fontName = FONT
    axis.labels.fontSize = MIN_TEXT_PT


def _axis_label(value: float) -> str:
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:,.1f}M"
    if abs(value) >= 10_000:
        return f"{value / 1000:,.0f}k"
    return f"{value:,.0f}"


def axis_unit(money: Money) -> str:
    """What a chart's axis counts: whole units of the currency (the bars are ``major``
    amounts), or chips."""
    return money.currency or CHIPS.label


def _title(d: Drawing, text: str, y: float) -> None:
    d.add(String(0, y, text, fontName=FONT_BOLD, fontSize=8.5, fillColor=INK))


def win_by_hour(buckets: Sequence[tuple[str, int]], money: Money, width: float,
                title: str, height: float = 150, *, measure: str = "house win") -> Drawing:
    """Bars of the house's win per hour (below the line where the house lost); ``measure``
    names what the bars are ("house collection" for a pot game)."""
    d = Drawing(width, height)
    _title(d, title, height - 10)
    chart = VerticalBarChart()
    values = [money.major(v) for _, v in buckets] or [0.0]
    chart.x, chart.y = 42, 28
    # A few hours make narrow bars, not a wall of colour.
    chart.width, chart.height = min(width - 52, 40 + 30 * len(values)), height - 48
    chart.data = [values]
    chart.bars[0].fillColor = WIN
    chart.bars[0].strokeColor = None
    for i, v in enumerate(values):
        if v < 0:
            chart.bars[(0, i)].fillColor = LOSS
    chart.barSpacing = 0.5
    chart.groupSpacing = 1.5 if len(values) > 30 else 4
    ticks = nice_ticks(min(values), max(values))
    lo = ticks.low
    set_ticks(chart.valueAxis, ticks)
    chart.valueAxis.visibleGrid = True
    chart.valueAxis.gridStrokeColor = colors.HexColor("#dddddd")
    chart.valueAxis.gridStrokeWidth = 0.4
    labels = [label for label, _ in buckets] or [""]
    step = max(1, -(-len(labels) // 24))   # at most ~24 labels under the axis
    chart.categoryAxis.categoryNames = [lab if i % step == 0 else ""
                                        for i, lab in enumerate(labels)]
    chart.categoryAxis.labels.fontName = FONT
    chart.categoryAxis.labels.fontSize = MIN_TEXT_PT
    chart.categoryAxis.labels.angle = 45 if len(labels) > 12 else 0
    chart.categoryAxis.labels.boxAnchor = "ne" if len(labels) > 12 else "n"
    chart.categoryAxis.labels.dy = -2
    chart.categoryAxis.labelAxisMode = "low"   # labels under the chart, not at zero
    chart.categoryAxis.visibleTicks = False
    chart.categoryAxis.visibleAxis = False
    d.add(chart)
    zero_y = chart.y + chart.height * (0 - lo) / (chart.valueAxis.valueMax - lo)
    d.add(Line(chart.x, zero_y, chart.x + chart.width, zero_y, strokeColor=INK,
               strokeWidth=0.6))
    d.add(Line(chart.x, chart.y, chart.x + chart.width, chart.y, strokeColor=GREY,
               strokeWidth=0.3))
    d.add(String(width, height - 10, f"{measure}, {axis_unit(money)}", fontName=FONT,
                 fontSize=MIN_TEXT_PT, fillColor=GREY, textAnchor="end"))
    return d


def handle_by_kind(items: Sequence[tuple[str, int]], money: Money, width: float,
                   title: str, *, measure: str = "wagered") -> Drawing:
    """Horizontal bars of the amount wagered on each wager kind (``measure``: what the
    amounts are, "put in" for the chips of a pot game)."""
    n = max(1, len(items))
    bar_area = 13 * n
    height = bar_area + 46
    d = Drawing(width, height)
    _title(d, title, height - 10)
    chart = HorizontalBarChart()
    chart.x, chart.y = 95, 18
    chart.width, chart.height = width - 140, bar_area
    values = [money.major(v) for _, v in items] or [0.0]
    chart.data = [values]
    chart.bars[0].fillColor = HANDLE
    chart.bars[0].strokeColor = None
    chart.barSpacing = 1
    chart.groupSpacing = 4
    set_ticks(chart.valueAxis, nice_ticks(0, max(values)))
    chart.valueAxis.visibleGrid = True
    chart.valueAxis.gridStrokeColor = colors.HexColor("#dddddd")
    chart.valueAxis.gridStrokeWidth = 0.4
    chart.categoryAxis.categoryNames = [label for label, _ in items] or [""]
    chart.categoryAxis.labels.fontName = FONT
    chart.categoryAxis.labels.fontSize = MIN_TEXT_PT
    chart.categoryAxis.labels.boxAnchor = "e"
    chart.categoryAxis.labels.dx = -3
    chart.categoryAxis.reverseDirection = True   # first kind at the top
    chart.categoryAxis.visibleTicks = False
    chart.barLabelFormat = _axis_label
    chart.barLabels.fontName = FONT
    chart.barLabels.fontSize = MIN_TEXT_PT
    chart.barLabels.boxAnchor = "w"
    chart.barLabels.dx = 3
    d.add(chart)
    d.add(String(width, height - 10, f"{measure}, {axis_unit(money)}", fontName=FONT,
                 fontSize=MIN_TEXT_PT, fillColor=GREY, textAnchor="end"))
    return d


def lines_per_step(series: Sequence[tuple[str, Sequence[tuple[int, int]]]], width: float,
                   height: float, *, title: str, x_label: str, y_label: str) -> Drawing:
    """A line per series over whole-numbered steps (hands), each in its own colour, dash and
    marker, named in a legend on the right. ``series``: (name, [(step, value), ...])."""
    d = Drawing(width, height)
    _title(d, title, height - 10)
    d.add(String(width, height - 10, y_label, fontName=FONT, fontSize=MIN_TEXT_PT,
                 fillColor=GREY, textAnchor="end"))
    names = [name for name, _ in series]
    widest = max((stringWidth(n, FONT, MIN_TEXT_PT) for n in names), default=0)
    legend_width = min(width * 0.42, 22 + widest)
    plot = LinePlot()
    plot.x, plot.y = 34, 26
    plot.width, plot.height = width - plot.x - legend_width - 16, height - 46
    points = [list(pts) or [(0, 0)] for _, pts in series] or [[(0, 0)]]
    plot.data = points
    xs = [x for pts in points for x, _ in pts]
    ys = [y for pts in points for _, y in pts]
    first, last = min(xs), max(xs)
    # Whole steps under the axis, about one label per 28 points, starting at the first step.
    span = max(1, last - first)
    x_step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 10**9)
                  if span / s <= plot.width / 28)
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = first, max(last, first + 1)
    plot.xValueAxis.valueSteps = list(range(first, max(last, first + 1) + 1, x_step))
    plot.xValueAxis.labelTextFormat = "%d"
    plot.xValueAxis.labels.fontName = FONT
    plot.xValueAxis.labels.fontSize = MIN_TEXT_PT
    set_ticks(plot.yValueAxis, nice_ticks(0, max(ys, default=0), most=5))
    plot.yValueAxis.visibleGrid = True
    plot.yValueAxis.gridStrokeColor = colors.HexColor("#dddddd")
    plot.yValueAxis.gridStrokeWidth = 0.4
    dense = len(points[0]) > 40      # markers on every point would blot a long line
    for i, name in enumerate(names):
        line = plot.lines[i]
        line.strokeColor = colors.HexColor(LINE_COLOURS[i % len(LINE_COLOURS)])
        line.strokeWidth = 1.1
        dash = LINE_DASHES[i % len(LINE_DASHES)]
        if dash:
            line.strokeDashArray = list(dash)
        marker = makeMarker(LINE_MARKERS[i % len(LINE_MARKERS)])
        marker.size = 2.5 if dense else 3.6
        marker.strokeColor = line.strokeColor
        marker.fillColor = line.strokeColor if "Filled" in LINE_MARKERS[i % len(LINE_MARKERS)] \
            else colors.white
        marker.strokeWidth = 0.6
        line.symbol = marker
        line.name = name
    d.add(plot)
    d.add(String(plot.x + plot.width / 2, 4, x_label, fontName=FONT, fontSize=MIN_TEXT_PT,
                 fillColor=INK, textAnchor="middle"))
    if names:
        legend = Legend()
        legend.x, legend.y = plot.x + plot.width + 12, plot.y + plot.height
        legend.fontName = FONT
        legend.fontSize = MIN_TEXT_PT
        legend.alignment = "right"
        legend.dx, legend.dy = 16, 6
        legend.deltay = 11
        legend.columnMaximum = 12
        legend.colorNamePairs = Auto(obj=plot)   # each series' own dash and marker
        d.add(legend)
    return d

