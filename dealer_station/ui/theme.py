"""Colours, sizes and the style sheet: one place, so every screen reads the same at a metre.

The station runs on a 1280x800 touchscreen in a dim room: dark panels (less glare), text read
from a metre (:data:`LEAST_PX` at the least), every touch target at least :data:`TARGET_PX`
square (a fingertip; checkboxes included), one accent colour per meaning (gold: the
selection, green: won / good, red: lost / stopped, amber: needs attention).
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPalette
from PySide6.QtWidgets import QApplication

WINDOW_SIZE = (1280, 800)

BG = "#161b21"
PANEL = "#222a33"
PANEL_HI = "#2c3642"
BORDER = "#3b4756"
TEXT = "#f2f4f6"
MUTED = "#a9b4c0"
GOLD = "#e8be4f"
FELT = "#0e5a39"
FELT_DARK = "#0a4229"
FELT_LINE = "#e9dca8"
GOOD = "#35b06a"
BAD = "#e0483a"
WARN = "#f0a431"
INFO = "#4aa3df"
CARD_RED = "#c62828"
CARD_BLACK = "#111111"
#: The Joker's face: a colour no other card has.
JOKER = "#5b1a8c"

#: A colour per seat, for its chips on the felt and its button (7 seats at most).
SEAT_COLOURS = ("#e05a47", "#3f8fde", "#f2c53d", "#9b59d0", "#2fbf8f", "#f07fb5", "#f39c34")

BASE_PX = 17
#: Amounts to pay: the largest text on the dealer's screen, read from a metre.
PAY_PX = 28
#: The dealer's table text read from a metre: seat totals, the wagers list, the status, the
#: take lines.
TABLE_PX = 20
TOUCH_PX = 56
#: The least size of text a dealer reads, and of a touch target in each direction.
LEAST_PX = 18
TARGET_PX = 44

STYLE = f"""
QWidget {{ background: {BG}; color: {TEXT}; font-size: {BASE_PX}px; }}
QFrame#panel, QGroupBox {{ background: {PANEL}; border: 1px solid {BORDER};
    border-radius: 10px; }}
QGroupBox {{ margin-top: 26px; padding: 10px 8px 8px 8px; font-weight: bold; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 12px; padding: 0 4px;
    color: {GOLD}; }}
QLabel {{ background: transparent; }}
QLabel#title {{ font-size: 24px; font-weight: bold; }}
QLabel#muted {{ color: {MUTED}; }}
QLabel#status {{ font-size: 22px; font-weight: bold; color: {GOLD}; }}
QLabel#message {{ font-size: 19px; font-weight: bold; border-radius: 8px; padding: 8px 12px; }}
QLabel#message[tone="bad"] {{ background: #5a1c17; color: #ffd9d4; }}
QLabel#message[tone="good"] {{ background: #173f2a; color: #d3f5df; }}
QLabel#message[tone="info"] {{ background: {PANEL_HI}; color: {TEXT}; }}
QPushButton {{ background: {PANEL_HI}; border: 1px solid {BORDER}; border-radius: 9px;
    min-height: {TOUCH_PX - 6}px; padding: 4px 16px; font-size: 18px; font-weight: bold; }}
QPushButton:hover {{ border-color: {GOLD}; }}
QPushButton:focus {{ border: 2px solid {INFO}; }}
QPushButton:pressed {{ background: {BORDER}; }}
QPushButton:checked {{ background: {GOLD}; color: #1a1a1a; border-color: {GOLD}; }}
QPushButton:disabled {{ color: #66717d; background: #1e252d; border-color: #2a323c; }}
QPushButton#primary {{ background: #1f6d43; border-color: {GOOD}; }}
QPushButton#primary:disabled {{ background: #1e252d; border-color: #2a323c; }}
QPushButton#danger {{ background: #6d2019; border-color: {BAD}; }}
QPushButton#nav {{ min-height: {TARGET_PX - 4}px; padding: 1px 14px; font-size: {LEAST_PX}px; }}
QPushButton#nav:checked {{ background: {GOLD}; color: #1a1a1a; }}
QLineEdit, QSpinBox, QComboBox, QPlainTextEdit {{ background: #0f1317;
    border: 1px solid {BORDER}; border-radius: 7px; padding: 6px 10px; min-height: 36px;
    font-size: 19px; selection-background-color: {INFO}; }}
QLineEdit:focus, QSpinBox:focus, QComboBox:focus {{ border: 2px solid {INFO}; }}
QCheckBox {{ spacing: 12px; font-size: {LEAST_PX}px; min-height: {TARGET_PX}px;
    min-width: {TARGET_PX}px; }}
QCheckBox::indicator {{ width: 30px; height: 30px; }}
QTableView {{ background: #12171c; alternate-background-color: #192027;
    gridline-color: #2a323c; border: 1px solid {BORDER}; border-radius: 8px;
    font-size: 17px; selection-background-color: #34506b; }}
QHeaderView::section {{ background: {PANEL_HI}; color: {MUTED}; border: none;
    border-right: 1px solid {BORDER}; padding: 6px 8px; font-size: 15px; font-weight: bold; }}
QTabWidget::pane {{ border: 1px solid {BORDER}; border-radius: 8px; top: -1px; }}
QTabBar::tab {{ background: {PANEL}; border: 1px solid {BORDER}; padding: 10px 22px;
    min-height: 30px; font-size: 18px; font-weight: bold; border-top-left-radius: 8px;
    border-top-right-radius: 8px; }}
QTabBar::tab:selected {{ background: {PANEL_HI}; color: {GOLD}; }}
QTextBrowser {{ background: #12171c; border: 1px solid {BORDER}; border-radius: 8px;
    font-size: 16px; }}
QScrollBar:vertical {{ width: 22px; background: {BG}; }}
QScrollBar::handle:vertical {{ background: {BORDER}; min-height: 48px; border-radius: 8px; }}
QToolTip {{ background: {PANEL_HI}; color: {TEXT}; border: 1px solid {GOLD};
    font-size: 16px; }}
"""


_APPLIED = "dealer_station_theme"


def apply(app: QApplication) -> None:
    """Install the station's font, palette and style sheet on ``app``, once: setting them
    again (even the same ones) makes Qt restyle every widget that exists, seconds a time."""
    if app.property(_APPLIED) == STYLE:
        return
    font = QFont("DejaVu Sans")
    font.setPixelSize(BASE_PX)
    app.setFont(font)
    pal = app.palette()
    pal.setColor(QPalette.ColorRole.Window, QColor(BG))
    pal.setColor(QPalette.ColorRole.WindowText, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Base, QColor("#12171c"))
    pal.setColor(QPalette.ColorRole.Text, QColor(TEXT))
    pal.setColor(QPalette.ColorRole.Button, QColor(PANEL_HI))
    pal.setColor(QPalette.ColorRole.ButtonText, QColor(TEXT))
    app.setPalette(pal)
    app.setStyleSheet(STYLE)
    app.setProperty(_APPLIED, STYLE)


def fit_font(base: QFont, text: str, width: float, bold: bool, px: int) -> QFont:
    """``base`` at ``px`` (bold or not) for ``text`` in ``width``: condensed first, then
    smaller, down to :data:`LEAST_PX`, then regular weight; never smaller than that (a text
    too long even so is cut by its box, which a caller sizes for the longest it shows)."""
    f = QFont(base)
    f.setBold(bold)
    f.setPixelSize(px)
    for family in (base.family(), "DejaVu Sans Condensed"):
        f.setFamily(family)
        if QFontMetricsF(f).horizontalAdvance(text) <= width:
            return f
    while f.pixelSize() > LEAST_PX and QFontMetricsF(f).horizontalAdvance(text) > width:
        f.setPixelSize(f.pixelSize() - 1)
    if bold and QFontMetricsF(f).horizontalAdvance(text) > width:
        f.setBold(False)
    return f


def seat_colour(seat: int) -> QColor:
    return QColor(SEAT_COLOURS[(seat - 1) % len(SEAT_COLOURS)])


def set_tone(label: object, tone: str) -> None:
    """Restyle a ``message`` label for ``tone`` (bad, good, info)."""
    from PySide6.QtWidgets import QWidget

    assert isinstance(label, QWidget)
    label.setProperty("tone", tone)
    label.style().unpolish(label)
    label.style().polish(label)
