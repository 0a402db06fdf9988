"""The La Pair'e felt as a dealer touches and reads it: a touch lands on the spot whose
shape holds it (a chip stack never takes a touch aimed at another spot, and a touch on a chip
acts on the chip's own spot), stacks stay inside their cells and clear of the gold frame, the
felt stays still whatever the message bar and the demo strip say, a lost zone is dim, a
refusal covers no cell and goes with the next chip, and table text is legible, a price beside
its value, never over it."""

from __future__ import annotations

import math
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter
from ui_support import WAIT_MS, click, sign_in, tap_spot

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.ui import felt
from dealer_station.games.lapaire.ui import felt_geometry as geometry
from dealer_station.ui.main_window import MainWindow

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
    radius = (geometry._CHIP_R + 3) * tr.m11()       # the selected seat's chip, as drawn
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


Drawn = list[tuple[str, float, float, float, QRectF]]


def bare_felt_text(view: Any, monkeypatch: Any) -> Drawn:
    """Every text the bare felt draws: (text, its size on the screen, its width and its
    box's on the screen, the box its glyphs take in the felt's own units)."""
    drawn: Drawn = []
    original = QPainter.drawText

    def spy(p: QPainter, *args: Any) -> Any:
        if len(args) == 3 and isinstance(args[2], str):
            rect, flags, text = args
            scale = p.transform().m11()
            metrics = QFontMetricsF(p.font())
            ink = metrics.boundingRect(QRectF(rect), int(flags), text)
            drawn.append((text, p.font().pixelSize() * scale,
                          metrics.horizontalAdvance(text) * scale, rect.width() * scale, ink))
        return original(p, *args)

    monkeypatch.setattr(QPainter, "drawText", spy)
    view._base = None
    view.grab()
    monkeypatch.undo()
    return drawn


def test_table_text_on_the_felt_is_legible_and_never_clipped(
        qtbot: Any, window: MainWindow, station: Station, monkeypatch: Any) -> None:
    screen = dealer_screen(qtbot, window)
    view = screen.layout_view
    drawn = bare_felt_text(view, monkeypatch)
    texts = {t for t, *_ in drawn}
    assert {"12:1", "25:1", "RED", "1:1", "ANY PAIR'E", "16:1", "3RD CARD POKER",
            "standard", "JOKER", "LA PAIR'E CARD  ·  225:1"} <= texts, texts
    for text, px, width, room, _ in drawn:
        assert px >= 18, f"{text!r} is {px:.1f} px on the 1280x800 screen"
        assert width <= room + 0.5, f"{text!r} is clipped ({width:.0f} px in {room:.0f})"


def test_a_price_never_overlaps_its_cells_value(
        qtbot: Any, window: MainWindow, station: Station, monkeypatch: Any) -> None:
    """"12:1" sat over the value of its cell; it stands beside it, each in its own box."""
    screen = dealer_screen(qtbot, window)
    view = screen.layout_view
    drawn = bare_felt_text(view, monkeypatch)
    checked = 0
    for s in view.spots:
        if s.bet != "straight":
            continue
        (value,) = s.values
        name = "JOKER" if value == "JK" else value
        inside = [(text, ink) for text, *_, ink in drawn if s.rect.contains(ink.center())]
        price = [ink for text, ink in inside if ":" in text]
        numeral = [ink for text, ink in inside if text == name]
        assert len(price) == 1 and len(numeral) == 1, (value, inside)
        overlap = price[0].intersected(numeral[0])
        assert overlap.isEmpty(), f"{value}: the price overlaps the value by {overlap}"
        checked += 1
    assert checked == 14


def loaded_felt(qtbot: Any, seats: int = 7, selected: int = 4,
                kinds: tuple[str, ...] | None = None) -> Any:
    """The felt alone at the dealer screen's size, every spot of it (of ``kinds``) carrying
    ``seats`` seats' chips (the tallest stacks a table has)."""
    from dealer_station.games.lapaire.config_file import load_lapaire_config

    view = felt.LaPaireLayoutView(load_lapaire_config())
    qtbot.addWidget(view)
    view.resize(722, 364)
    view.show()
    qtbot.waitExposed(view)
    view.set_seat(selected)
    chips = {s.key: {seat: 100 * seat for seat in range(1, seats + 1)} for s in view.spots
             if kinds is None or s.bet in kinds}
    view.set_round(chips, {}, {}, None, None)
    return view


SMALL = ("split", "three", "corner")
CELLS = ("straight", "lapaire", "red", "black", "any_pair", "poker")


@pytest.mark.parametrize(("loaded", "aimed"), [(CELLS, SMALL), (SMALL, CELLS), (None, None)])
def test_a_stack_never_takes_a_touch_aimed_at_another_spot(
        qtbot: Any, loaded: tuple[str, ...] | None, aimed: tuple[str, ...] | None) -> None:
    """Seven seats' chips on every spot of some kinds: a touch in the middle of the shape of
    any spot (a split's edge, a corner's point, a cell's room, a box) lands on that spot,
    whoever's chips are near."""
    view = loaded_felt(qtbot, kinds=loaded)
    touched: list[tuple[str, tuple[str, ...]]] = []
    view.spot_activated.connect(lambda bet, values: touched.append((bet, tuple(values))))
    tr = view._transform()
    for s in view.spots:
        if aimed is not None and s.bet not in aimed:
            continue
        # The middle of its shape (a cell's: of its chips' room, under its value).
        where = view._anchor(s) if s.bet == "straight" else s.rect.center()
        p = tr.map(where)
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton,
                         pos=QPoint(math.floor(p.x() + 0.5), math.floor(p.y() + 0.5)))
        assert touched[-1] == s.key, (s.key, "went to", touched[-1])


def test_a_touch_in_the_middle_of_a_split_beside_a_full_stack_places_on_the_split(
        qtbot: Any, tmp_path: Any) -> None:
    """Seven seats on Straight JK: a touch in the middle of Split K-JK puts the chip on the
    split (the stack on the Joker used to take it)."""
    from ui_support import make_station, open_window

    from tests.conftest import CONFIG_DIR

    text = (CONFIG_DIR / "lapaire.toml").read_text()
    config = tmp_path / "joker-splits.toml"
    config.write_text(text.replace("offered = false", "offered = true"))
    station = make_station(tmp_path, config_path=str(config))
    try:
        w = open_window(qtbot, station)
        screen = dealer_screen(qtbot, w)
        t: Any = station.table
        t.place_many([Wager(seat, "straight", ("JK",), 2500) for seat in range(1, 8)],
                     actor="dealer/dealer")
        view = screen.layout_view
        qtbot.waitUntil(lambda: len(view.chips_drawn()) == 7, timeout=WAIT_MS)
        p = view._transform().map(view.spot("split", ("K", "JK")).rect.center())
        qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(round(p.x()),
                                                                     round(p.y())))
        assert last_placed(station) == ("split", ("K", "JK"))
        qtbot.waitUntil(lambda: len(screen.view.wagers) == 8, timeout=WAIT_MS)
        on_jk = sum(w.amount for w in screen.view.wagers.values()
                    if w.seat == 1 and w.bet == "straight")
        assert on_jk == 2500, "the touch went to the stack on Straight JK"
    finally:
        w.shutdown()
        station.close()


def test_stacks_stay_inside_their_cells_and_clear_of_the_gold_frame(
        qtbot: Any, monkeypatch: Any) -> None:
    """Seven seats on every spot: no chip crosses a cell's line, none of a main-grid cell lies
    under the gold frame, none of an edge or a point leaves its own shape, and the frame
    (a card on a value of each row) is drawn after every chip."""
    view = loaded_felt(qtbot)
    tr = view._transform()
    inverse, _ = tr.inverted()
    frame = 3 + 2.5 + 0.5          # the frame's line: 3 in from the edge, 5 wide
    for chip in view.chips_drawn():
        s = view._by_key[chip.key]
        c = inverse.map(chip.centre)
        r = chip.radius / tr.m11()
        disc = QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)
        if s.round:
            d = c - s.rect.center()
            assert math.hypot(d.x(), d.y()) + r <= s.rect.width() / 2 + 0.01, chip
        elif s.bet == "straight":
            inner = s.rect.adjusted(frame, frame, -frame, -frame)
            assert inner.contains(disc), (s.label, chip.seat, disc, inner)
        elif s.bet == "lapaire":     # a chip and a half high: inside its lines
            line = 1.1
            inner = s.rect.adjusted(line, line, -line, -line)
            assert inner.contains(disc), (s.label, chip.seat, disc, inner)
        else:
            assert s.rect.adjusted(-0.01, -0.01, 0.01, 0.01).contains(disc), (s.label, disc)
    # The frame over the chips: painted after them.
    calls: list[str] = []
    for name in ("_paint_chips", "_paint_marks"):
        original = getattr(view, name)
        monkeypatch.setattr(view, name, lambda p, n=name, o=original: (calls.append(n), o(p)))
    view.set_round(view.chips, {}, {"8": 1}, "K", None)
    view.grab()
    assert calls.index("_paint_marks") > calls.index("_paint_chips")


def test_a_touch_between_small_spots_lands_on_the_one_whose_shape_holds_it(
        qtbot: Any) -> None:
    """Across the whole main grid, every 4 px, with seven seats' chips on every spot: no
    point lies in two small spots' shapes (a split's edge, a three's or a corner's point), and
    a press there lands on the small spot whose shape holds it, else on the cell under it."""
    view = loaded_felt(qtbot)
    touched: list[tuple[str, tuple[str, ...]]] = []
    view.spot_activated.connect(lambda bet, values: touched.append((bet, tuple(values))))
    tr = view._transform()
    inverse, _ = tr.inverted()
    small = [s for s in view.spots if s.bet in SMALL]
    cells = [s for s in view.spots if s.bet == "straight"]
    g = geometry
    grid = tr.mapRect(QRectF(g._X0, g._Y0, g.LW - 2 * g._X0, 2 * g._ROW_H))
    checked = 0
    for x in range(math.ceil(grid.left()) + 1, math.floor(grid.right()), 4):
        for y in range(math.ceil(grid.top()) + 1, math.floor(grid.bottom()), 4):
            p = inverse.map(QPointF(x, y))
            holding = [s for s in small if s.contains(p)]
            assert len(holding) <= 1, (p, [s.label for s in holding])
            under = holding or [s for s in cells if s.contains(p)]
            if not under:
                continue       # on a line between cells
            qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
            assert touched[-1] == under[0].key, ((x, y), under[0].label, touched[-1])
            checked += 1
    assert checked > 5000
