"""Charts drawn with reportlab's own graphics (vector, so they print sharp): the house's win by
hour and the handle by wager kind. Amounts are drawn in major units; the exact figures are
always printed beside them in a table."""

from __future__ import annotations

from collections.abc import Sequence

from reportlab.graphics.charts.barcharts import HorizontalBarChart, VerticalBarChart
from reportlab.graphics.shapes import Drawing, Line, String
from reportlab.lib import colors

from dealer_station.reports.template import FONT, FONT_BOLD, GREY, INK, MIN_TEXT_PT
from dealer_station.reports.text import MoneyUnit

WIN = colors.HexColor("#2e5d8a")
LOSS = colors.HexColor("#c0504d")
HANDLE = colors.HexColor("#4f7f5a")


def _axis_label(value: float) -> str:
    if abs(value) >= 1_000_000:
        return f"{value / 1_000_000:,.1f}M"
    if abs(value) >= 10_000:
        return f"{value / 1000:,.0f}k"
    return f"{value:,.0f}"


def _title(d: Drawing, text: str, y: float) -> None:
    d.add(String(0, y, text, fontName=FONT_BOLD, fontSize=8.5, fillColor=INK))


def win_by_hour(buckets: Sequence[tuple[str, int]], money: MoneyUnit, width: float,
                title: str, height: float = 150) -> Drawing:
    """Bars of the house's win per hour (below the line where the house lost)."""
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
    lo, hi = min(0.0, *values), max(0.0, *values)
    if lo == hi:
        hi = 1.0
    chart.valueAxis.valueMin = lo
    chart.valueAxis.valueMax = hi + (hi - lo) * 0.05
    chart.valueAxis.labels.fontName = FONT
    chart.valueAxis.labels.fontSize = MIN_TEXT_PT
    chart.valueAxis.labelTextFormat = _axis_label
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
    d.add(String(width, height - 10, f"house win, {money.currency}", fontName=FONT,
                 fontSize=MIN_TEXT_PT, fillColor=GREY, textAnchor="end"))
    return d


def handle_by_kind(items: Sequence[tuple[str, int]], money: MoneyUnit, width: float,
                   title: str) -> Drawing:
    """Horizontal bars of the amount wagered on each wager kind."""
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
    chart.valueAxis.valueMin = 0
    chart.valueAxis.valueMax = max(values) * 1.05 if max(values) > 0 else 1
    chart.valueAxis.labels.fontName = FONT
    chart.valueAxis.labels.fontSize = MIN_TEXT_PT
    chart.valueAxis.labelTextFormat = _axis_label
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
    d.add(String(width, height - 10, f"wagered, {money.currency}", fontName=FONT,
                 fontSize=MIN_TEXT_PT, fillColor=GREY, textAnchor="end"))
    return d
