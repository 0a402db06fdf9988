"""The La Pair'e felt as a dealer touches and reads it: a touch on a chip acts on the chip's
spot, the felt stays still whatever the message bar and the demo strip say, a lost zone is
dim, a refusal covers no cell and goes with the next chip, and table text is legible."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QPainter
from ui_support import WAIT_MS, click, sign_in, tap_spot

from dealer_station.settlement.lapaire import Wager
from dealer_station.ui import lapaire_layout_view as felt
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.station import Station

#: One spot of every kind a chip goes on.
SPOTS = [("straight", ("2",)), ("straight", ("7",)), ("split", ("2", "8")),
         ("split", ("7", "K")), ("three", ("A", "2", "8")), ("corner", ("3", "4", "9", "10")),
         ("lapaire", ("9",)), ("red", ()), ("black", ()), ("any_pair", ()), ("poker", ())]


def dealer_screen(qtbot: Any, w: MainWindow) -> Any:
    sign_in(qtbot, w, "dealer", "1111")
    return w.screens["dealer"]


def last_placed(station: Station) -> tuple[str, tuple[str, ...]]:
    r = [r for r in station.journal.records(station.table_id) if r.kind == "wager.place"][-1]
    return r.payload["bet"], tuple(r.payload["values"])


def test_a_touch_on_a_chip_centre_or_edge_places_on_the_chips_spot(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    t: Any = station.table
    t.place_many([Wager(1, bet, values, 100) for bet, values in SPOTS], actor="dealer/dealer")
    view = screen.layout_view
    qtbot.waitUntil(lambda: len(view.chips) == len(SPOTS), timeout=WAIT_MS)
    tr = view._transform()
    radius = (felt._CHIP_R + 3) * tr.m11()       # the selected seat's chip, as drawn
    for bet, values in SPOTS:
        centre = tr.map(view._anchor(view.spot(bet, values)))
        points = [centre] + [centre + QPointF(math.cos(a), math.sin(a)) * (radius - 2)
                             for a in (k * math.pi / 4 for k in range(8))]
        for p in points:
            qtbot.mouseClick(view, Qt.MouseButton.LeftButton,
                             pos=QPoint(math.floor(p.x() + 0.5), math.floor(p.y() + 0.5)))
            assert last_placed(station) == (bet, values), (bet, values, p, centre)


def felt_geometry(w: MainWindow) -> tuple[Any, ...]:
    view = w.screens["dealer"].layout_view
    return (view.mapTo(w, QPoint(0, 0)), view.size(), view._transform())


def test_the_felt_keeps_still_whatever_the_message_bar_and_demo_strip_say(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    assert window.demo is not None
    qtbot.wait(50)
    before = felt_geometry(window)
    longest = ("Straight K for seat 1: 500.00 (with 475.00 already there) is over the table "
               "maximum 100.00 for straight, and the reason goes on and on " * 4)
    screen.refuse(("straight", ("K",)), longest)
    click(qtbot, window.demo.buttons["misread"])      # the demo strip's longest text
    qtbot.waitUntil(lambda: "misread" in window.demo.last.text(), timeout=WAIT_MS)
    window.demo.last.setText("misread: it was 10♦ (10D) " * 10)
    qtbot.wait(50)
    assert screen.message.text().startswith("Straight K for seat 1")
    assert felt_geometry(window) == before


def test_a_lost_split_is_drawn_dim_not_bright(qtbot: Any, window: MainWindow,
                                             station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    t: Any = station.table
    t.place_many([Wager(2, "split", ("2", "8"), 100), Wager(2, "corner", ("3", "4", "9", "10"),
                                                           100)], actor="dealer/dealer")
    t.deal("KH", actor="dealer/dealer")
    view = screen.layout_view
    qtbot.waitUntil(lambda: view.outcomes.get(("split", ("2", "8"))) is False, timeout=WAIT_MS)
    image = view.grab().toImage()
    tr = view._transform()
    ratio = image.devicePixelRatio()
    for bet, values in (("split", ("2", "8")), ("corner", ("3", "4", "9", "10"))):
        zone = view.spot(bet, values).rect
        # Inside the zone, clear of the chip on its centre.
        inside = tr.map(QPointF(zone.left() + 4, zone.top() + 4) if bet == "split" else
                        QPointF(zone.center().x() - 14, zone.center().y() - 14))
        colour = image.pixelColor(round(inside.x() * ratio), round(inside.y() * ratio))
        assert colour.lightness() <= QColor("#0e5a39").lightness() + 16, (bet, colour.name())


def test_a_refusal_covers_no_cell_and_goes_with_the_next_chip(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    view = screen.layout_view
    qtbot.wait(50)
    tr = view._transform()
    cells = [s for s in view.spots if s.bet in ("straight", "lapaire", "black", "any_pair",
                                                "poker")]
    before = view.grab().toImage()
    tap_spot(qtbot, screen, "red")                  # seat 1 has no First Card wager yet
    assert view._callout is not None and "no First Card wager" in view._callout[1]
    after = view.grab().toImage()
    ratio = after.devicePixelRatio()
    for s in cells:
        box = tr.mapRect(s.rect).toAlignedRect().adjusted(3, 3, -3, -3)
        r = QRect(round(box.x() * ratio), round(box.y() * ratio), round(box.width() * ratio),
                  round(box.height() * ratio))
        assert before.copy(r) == after.copy(r), f"the refusal covers {s.label}"
    tap_spot(qtbot, screen, "straight", ("K",))
    assert view._callout is None


def test_table_text_on_the_felt_is_legible_and_never_clipped(
        qtbot: Any, window: MainWindow, station: Station, monkeypatch: Any) -> None:
    screen = dealer_screen(qtbot, window)
    view = screen.layout_view
    drawn: list[tuple[str, float, float, float]] = []
    original = QPainter.drawText

    def spy(p: QPainter, *args: Any) -> Any:
        if len(args) == 3 and isinstance(args[2], str):
            rect, text = args[0], args[2]
            scale = p.transform().m11()
            drawn.append((text, p.font().pixelSize() * scale,
                          p.fontMetrics().horizontalAdvance(text) * scale,
                          rect.width() * scale))
        return original(p, *args)

    monkeypatch.setattr(QPainter, "drawText", spy)
    view._base = None
    view.grab()
    monkeypatch.undo()
    texts = {t for t, *_ in drawn}
    assert {"12:1", "25:1", "RED", "1:1", "ANY PAIR'E", "16:1", "3RD CARD POKER",
            "standard", "JOKER", "LA PAIR'E CARD  ·  225:1"} <= texts, texts
    for text, px, width, room in drawn:
        assert px >= 20, f"{text!r} is {px:.1f} px on the 1280x800 screen"
        assert width <= room + 0.5, f"{text!r} is clipped ({width:.0f} px in {room:.0f})"
