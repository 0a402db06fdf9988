"""A game-protection alert's evidence page: what the monitor found, in words and figures; a
chart of the test's statistic over the rounds of the alert's gaming day with its threshold;
the rounds the evidence is made of; and the recall of any of them.

The supervisor's Protection tab and the pit open it alike. Everything on it is read again
from the journal (table/protection_evidence.py): the chart is the monitor's own statistic,
round by round, not a picture drawn from the alert's summary.
"""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from dealer_station.errors import StationError
from dealer_station.events import Codec
from dealer_station.events.table import ProtectionAlerted
from dealer_station.ui import theme
from dealer_station.ui.formatting import local_time

if TYPE_CHECKING:
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.records import Record
    from dealer_station.money import Money
    from dealer_station.table.protection_evidence import Evidence

_CODEC = Codec((ProtectionAlerted,))


def alert_of(record: Record) -> ProtectionAlerted:
    """A ``monitor.alert`` record as its event."""
    e = _CODEC.decode(record.kind, record.payload)
    if not isinstance(e, ProtectionAlerted):
        raise StationError(f"record {record.seq} of table {record.table_id} is not a "
                           f"game-protection alert")
    return e


def alert_record(journal: Journal, table_id: str, seq: int) -> Record:
    """Record ``seq`` of the table, checked against its keyed hash."""
    for r in journal.proven_records(table_id, from_seq=seq):
        if r.seq == seq:
            return r
        break
    raise StationError(f"table {table_id} has no record {seq}")


def figures_text(a: ProtectionAlerted) -> str:
    """The statistic, its threshold, the p-value and the rate, in a sentence."""
    per = int(a.number("rounds_per_false_alarm", 10_000))
    if a.rule == "tray":    # an exact test at each counted day: its p-value and threshold
        return (f"p-value {a.p_value:.2g} fell below the look's threshold "
                f"{math.exp(-a.number('threshold')):.2g} ({int(a.number('tests', 1))} "
                f"dealers tested; the chart shows −ln p). Set for at most 1 false alarm per "
                f"{per:,} rounds at the table, every rule together.")
    return (f"Log-likelihood ratio {a.number('llr'):.1f} reached its threshold "
            f"{a.number('threshold'):.1f}; p-value {a.p_value:.2g} "
            f"({int(a.number('tests', 1))} tests at the table). Set for at most 1 false alarm "
            f"per {per:,} rounds at the table, every rule together.")


class StatisticChart(QWidget):
    """The test's statistic after each round of the day (a line), its threshold (dashed),
    the evidence's rounds (shaded) and its hits (dots)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.evidence: Evidence | None = None
        self.setMinimumHeight(200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAccessibleName("The test's statistic over the rounds of the day, with its "
                               "threshold")

    def show_evidence(self, evidence: Evidence) -> None:
        self.evidence = evidence
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor(theme.PANEL))
        ev = self.evidence
        if ev is None or not ev.points:
            p.setPen(QColor(theme.MUTED))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "no rounds to chart")
            return
        font = QFont(self.font())
        font.setPixelSize(16)
        p.setFont(font)
        left, right, top, bottom = 64.0, 18.0, 16.0, 34.0
        area = QRectF(left, top, self.width() - left - right, self.height() - top - bottom)
        first, last = ev.points[0].round_no, ev.points[-1].round_no
        span = max(1, last - first)
        peak = max(ev.threshold * 1.15, max(pt.statistic for pt in ev.points) * 1.05, 1.0)

        def x(round_no: float) -> float:
            return area.left() + (round_no - first) / span * area.width()

        def y(value: float) -> float:
            return area.bottom() - value / peak * area.height()

        # The evidence's rounds, shaded.
        rounds = ev.rounds
        if rounds:
            shade = QColor(theme.WARN)
            shade.setAlpha(50)
            x0, x1 = x(rounds[0] - 0.5), x(rounds[-1] + 0.5)
            p.fillRect(QRectF(x0, area.top(), max(2.0, x1 - x0), area.height()), shade)
        # Axes and their labels.
        p.setPen(QPen(QColor(theme.BORDER), 1))
        p.drawLine(QPointF(area.left(), area.bottom()), QPointF(area.right(), area.bottom()))
        p.drawLine(QPointF(area.left(), area.top()), QPointF(area.left(), area.bottom()))
        p.setPen(QColor(theme.MUTED))
        for value in (0.0, ev.threshold / 2):
            p.drawText(QRectF(0, y(value) - 10, left - 8, 20),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                       f"{value:.0f}")
        for n in sorted({first, (first + last) // 2, last}):
            # Each label under its round, kept inside the chart's width.
            at = min(max(x(n) - 60, 0.0), self.width() - 120.0)
            p.drawText(QRectF(at, area.bottom() + 6, 120, 22),
                       int(Qt.AlignmentFlag.AlignHCenter), f"round {n}")
        # The threshold.
        pen = QPen(QColor(theme.BAD), 2, Qt.PenStyle.DashLine)
        p.setPen(pen)
        p.drawLine(QPointF(area.left(), y(ev.threshold)), QPointF(area.right(),
                                                                  y(ev.threshold)))
        p.drawText(QRectF(area.left() + 6, y(ev.threshold) - 24, 400, 20),
                   int(Qt.AlignmentFlag.AlignLeft),
                   f"threshold {ev.threshold:.1f}")
        # The statistic.
        path = QPainterPath(QPointF(x(first), y(ev.points[0].statistic)))
        for pt in ev.points[1:]:
            path.lineTo(QPointF(x(pt.round_no), y(pt.statistic)))
        p.setPen(QPen(QColor(theme.INFO), 2.5))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(path)
        # The hits, and the crossing.
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(QBrush(QColor(theme.GOLD)))
        stats = {pt.round_no: pt.statistic for pt in ev.points}
        for n in ev.hits:
            p.drawEllipse(QPointF(x(n), y(stats[n])), 4.0, 4.0)
        end = ev.points[-1]
        p.setBrush(QBrush(QColor(theme.BAD)))
        p.drawEllipse(QPointF(x(end.round_no), y(end.statistic)), 7.0, 7.0)
        p.end()


class EvidencePage(QWidget):
    """One alert's evidence; ``back`` when the person is done with it."""

    back = Signal()

    def __init__(self, journal: Journal, *, back_text: str = "◀ Alerts",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.journal = journal
        self.table_id = ""
        self.evidence: Evidence | None = None
        col = QVBoxLayout(self)
        col.setContentsMargins(10, 6, 10, 6)
        col.setSpacing(6)
        top = QHBoxLayout()
        self.back_button = QPushButton(back_text)
        self.back_button.setObjectName("nav")
        self.back_button.clicked.connect(self.back.emit)
        self.title = QLabel("")
        self.title.setObjectName("title")
        self.title.setWordWrap(True)
        top.addWidget(self.back_button)
        top.addWidget(self.title, 1)
        col.addLayout(top)
        self.words = QLabel("")
        self.words.setWordWrap(True)
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setStyleSheet(f"font-size: 18px; background: {theme.PANEL}; "
                                 f"border-radius: 8px; padding: 6px 10px;")
        self.words.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        col.addWidget(self.words)
        self.chart = StatisticChart()
        col.addWidget(self.chart, 3)
        below = QHBoxLayout()
        self.rounds = QListWidget()
        self.rounds.setFixedWidth(300)
        self.rounds.setStyleSheet("font-size: 18px;")
        self.rounds.setAccessibleName("The rounds the evidence is made of")
        self.rounds.currentItemChanged.connect(self._recall)
        self.recall = QTextBrowser()
        below.addWidget(self.rounds)
        below.addWidget(self.recall, 1)
        col.addLayout(below, 4)

    def open(self, table_id: str, record: Record, *, people: Any = None,
             money: Money | None = None) -> None:
        """Show the evidence of the alert journaled as ``record`` of table ``table_id``."""
        from dealer_station.gameconfig import STATION_FILE, config_dir, load_gaming_calendar
        from dealer_station.monitor.settings import load_monitor_settings
        from dealer_station.table.protection_evidence import evidence

        alert = alert_of(record)
        settings = load_monitor_settings(config_dir() / STATION_FILE)
        ev = evidence(self.journal, table_id, alert, settings, load_gaming_calendar())
        self.table_id, self.evidence = table_id, ev
        dealer = alert.dealer or ""
        if dealer and people is not None:
            dealer = people.actor(dealer)
        who = (f" · seat {alert.seat}" if alert.seat is not None else "") + \
              (f" · dealt by {dealer}" if dealer else "")
        self.title.setText(f"{alert.rule_name} · table {table_id} · round "
                           f"{alert.round_no}{who}")
        words = alert.words[:1].upper() + alert.words[1:]
        staked = alert.evidence.get("staked")
        self.words.setText(
            f"<b>{escape(words)}.</b> {escape(figures_text(alert))}"
            f"<br><span style='color:{theme.MUTED}'>Raised at {local_time(record.ts)} "
            f"(record {record.seq})"
            + (f"; the seat staked {money.text(staked)} on those spots" if isinstance(
                staked, int) and staked and money is not None else "") + "</span>")
        self.chart.show_evidence(ev)
        self.rounds.clear()
        hits = set(ev.hits)
        for n in reversed(ev.rounds):
            label = ev.labels.get(n)
            item = QListWidgetItem(label or f"Round {n}" + (" · hit" if n in hits else ""))
            item.setData(Qt.ItemDataRole.UserRole, ev.recall.get(n, n))
            if n in hits:
                item.setForeground(QColor(theme.GOLD))
            self.rounds.addItem(item)
        if self.rounds.count():
            self.rounds.setCurrentRow(0)

    def _recall(self, item: QListWidgetItem | None, _prev: object = None) -> None:
        if item is None:
            return
        from dealer_station.table.recall import recall_round
        from dealer_station.ui.recall_view import recall_html

        info = self.journal.round_info(self.table_id, int(item.data(Qt.ItemDataRole.UserRole)))
        if info is None:
            self.recall.setPlainText("this round is not in the journal")
            return
        try:
            self.recall.setHtml(recall_html(recall_round(self.journal, info)))
        except StationError as exc:
            self.recall.setPlainText(str(exc))
