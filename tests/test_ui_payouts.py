"""Who to pay what, legible from a metre: each stage's pay and take spot by spot for every
seat, in sight at full size; the wagers list a row a spot and seat; amounts to pay the
largest text on the dealer's screen; money with thousands separators; a Joker no one can
mistake."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget
from ui_support import WAIT_MS, sign_in

from dealer_station.app import Station
from dealer_station.cards import parse_card
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.ui.models import WagersModel
from dealer_station.ui import theme
from dealer_station.ui.card_view import CardView
from dealer_station.ui.main_window import MainWindow

MONEY = load_lapaire_config().money


def dealer_screen(qtbot: Any, w: MainWindow) -> Any:
    sign_in(qtbot, w, "dealer", "1111")
    assert w.current_screen == "dealer"
    return w.screens["dealer"]


def six_wagers(seat: int) -> list[Wager]:
    """The reviewer's seat: a straight on the Joker (two chips), a split, Red, La Pair'e
    on the Joker, Any Pair'e and poker."""
    return [Wager(seat, "straight", ("JK",), 500), Wager(seat, "split", ("2", "8"), 100),
            Wager(seat, "red", (), 100), Wager(seat, "lapaire", ("JK",), 100),
            Wager(seat, "any_pair", (), 100), Wager(seat, "poker", (), 100),
            Wager(seat, "straight", ("JK",), 1000)]


def test_money_is_shown_with_thousands_separators() -> None:
    assert MONEY.number(123456) == "1,234.56"
    assert MONEY.number(-123456789) == "-1,234,567.89"
    assert MONEY.number(5) == "0.05"
    assert MONEY.chip_face(100000) == "1,000"


def test_every_seat_pay_and_take_spot_by_spot_in_sight_at_full_size(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """Seven seats with six wagers each: after each card, every seat's pay line and take
    line is drawn, inside the window, at full size (not shrunk to fit), the stake that goes
    back labelled, and the two chips on the Joker summed."""
    screen = dealer_screen(qtbot, window)
    window.resize(*theme.WINDOW_SIZE)
    t: Any = station.table
    t.place_many([w for seat in range(1, 8) for w in six_wagers(seat)], actor="dealer/dealer")
    # The wagers list: a row a spot and seat, six for each seat.
    qtbot.waitUntil(lambda: screen.model.rowCount() == 42, timeout=WAIT_MS)
    payouts = screen.payouts
    expected = {
        1: "Straight JK pay 375.00 + stake 15.00 · Split 2-8 take 1.00 · Red take 1.00",
        2: "La Pair'e JK take 1.00 · Any Pair'e take 1.00",
    }
    for n, card in enumerate(("JK", "KH", "KS"), start=1):
        t.deal(card, actor="dealer/dealer")
        qtbot.waitUntil(lambda n=n: f"Card {n}" in payouts.text(), timeout=WAIT_MS)
        qtbot.wait(20)
        assert payouts.isVisible() and payouts.scale == 1.0
        lines = payouts.text().splitlines()[1:]
        assert len(lines) == 7, lines
        if n in expected:
            assert all(line.endswith(expected[n]) for line in lines), lines
        else:
            assert all(" pay " in line and "+ stake 1.00" in line for line in lines), lines
        image = payouts.grab().toImage()
        seats = [line.seat for line in payouts.lines]
        assert sorted(set(seats)) == list(range(1, 8))
        assert len(payouts.lines) == {1: 14, 2: 7, 3: 7}[n]
        for line in payouts.lines:
            r = line.rect.toRect()
            top_left = payouts.mapTo(window, r.topLeft())
            bottom_right = payouts.mapTo(window, r.bottomRight())
            assert window.rect().contains(top_left) and window.rect().contains(bottom_right)
            assert payouts.rect().contains(r), (line.text, r)
            background = image.pixelColor(r.right() - 1, r.center().y())
            ink = sum(1 for y in range(r.top(), r.bottom()) for x in range(r.left(), r.right())
                      if image.pixelColor(x, y) != background)
            assert ink > 150, f"seat {line.seat}: {line.text!r} is not drawn"
        t.confirm_payout(n, actor="dealer/dealer")


def test_pay_amounts_are_the_largest_text_and_table_text_reads_from_a_metre(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    t: Any = station.table
    t.place_many(six_wagers(1) + six_wagers(7), actor="dealer/dealer")
    qtbot.waitUntil(lambda: screen.model.rowCount() == 12, timeout=WAIT_MS)
    # The wagers list and the status, while betting.
    assert screen.wagers_view.font().pixelSize() >= 20
    assert screen.status.font().pixelSize() >= 20
    t.deal("JK", actor="dealer/dealer")
    qtbot.waitUntil(lambda: "Card 1" in screen.payouts.text(), timeout=WAIT_MS)
    qtbot.wait(20)
    pay = screen.payouts.pay_font.pixelSize()
    assert pay >= 28
    fonts = screen.payouts.fonts(screen.payouts.scale)
    assert all(f.pixelSize() >= 20 for f in fonts.values())
    assert screen.totals.font().pixelSize() >= 20
    assert screen.status.font().pixelSize() >= 20
    # The seats' totals are drawn in table text.
    from dealer_station.games.lapaire.ui.seats import _fitted
    button = screen.seat_buttons[1]
    assert button.text() == "Seat 1\n20.00\n+373.00"
    for line in button.text().split("\n"):
        assert _fitted(button.font(), line, button.width() - 12, True).pixelSize() >= 20
    # No text anywhere on the window is as large as the amounts to pay.
    larger = [(type(w).__name__, w.objectName(), w.font().pixelSize())
              for w in window.findChildren(QWidget)
              if w.isVisible() and w is not screen.payouts and w.font().pixelSize() >= pay]
    assert larger == []


def test_the_joker_is_unmistakable(qtbot: Any) -> None:
    """A Joker's face is purple edge to edge with JOKER across it: no other card has any of
    that purple, and the word spans most of the card."""
    def face(code: str) -> Any:
        view = CardView()
        qtbot.addWidget(view)
        view.resize(84, 118)
        view.set_card(parse_card(code))
        return view.grab().toImage()

    def is_purple(c: QColor) -> bool:
        return 260 <= c.hslHue() <= 300 and c.hslSaturation() > 90 and c.lightness() < 140

    def purple(image: Any) -> int:
        return sum(1 for y in range(image.height()) for x in range(image.width())
                   if is_purple(image.pixelColor(x, y)))

    image = face("JK")
    assert purple(image) > image.width() * image.height() * 0.4
    # The word in white across the top third: white ink from one side nearly to the other.
    white = [x for y in range(image.height() // 3) for x in range(image.width())
             if image.pixelColor(x, y).lightness() > 240 and
             image.pixelColor(x, y).saturation() < 30]
    assert max(white) - min(white) > image.width() * 0.6
    for code in ("AH", "KS", "10D", "QC", "2S"):
        assert purple(face(code)) == 0, code


def test_the_wagers_list_a_row_a_spot_and_seat_names_whole(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    screen = dealer_screen(qtbot, window)
    t: Any = station.table
    t.place_many([Wager(3, "corner", ("2", "3", "8", "9"), 100)] * 3 +
                 [Wager(3, "lapaire", ("JK",), 100), Wager(3, "three", ("7", "K", "JK"), 500),
                  Wager(4, "corner", ("2", "3", "8", "9"), 100)], actor="dealer/dealer")
    qtbot.waitUntil(lambda: screen.model.rowCount() == 4, timeout=WAIT_MS)
    assert [(r.seat, r.label, r.amount) for r in screen.model.rows] == [
        (3, "Corner 2-3-8-9", 300), (3, "La Pair'e JK", 100), (3, "Three 7-K-JK", 500),
        (4, "Corner 2-3-8-9", 100)]
    view = screen.wagers_view
    qtbot.wait(20)
    metrics = view.fontMetrics()
    for col in (WagersModel.SEAT, WagersModel.WAGER, WagersModel.STAKE, WagersModel.RESULT):
        for row in range(screen.model.rowCount()):
            text = screen.model.data(screen.model.index(row, col))
            assert metrics.horizontalAdvance(text) <= view.columnWidth(col) - 8, text


def test_the_list_is_drawn_at_the_largest_scale_that_fits_or_in_pages(qtbot: Any) -> None:
    """Whatever the list: on one page at the largest scale at which it all fits (the search
    lays it out at the least size first, and only then larger); where nothing fits, in pages
    at the least sizes, every pay and take on one of them and inside the box."""
    import random

    from dealer_station.games.lapaire.ui.payout_pieces import SeatPayout, SpotPayout
    from dealer_station.games.lapaire.ui.stage_payouts import SCALES, StagePayouts

    box = StagePayouts(7)
    qtbot.addWidget(box)
    box.resize(484, 420)
    rng = random.Random(13)
    spots = ["Straight-up JK", "Split 2-8", "First Card Red", "La Pair'e Card JK",
             "Any Pair'e", "3rd Card Poker", "Three Cards 7-K-JK", "Corner 2-3-8-9"]
    paged = 0
    for trial in range(60):
        rows = []
        for seat in range(1, rng.randint(1, 7) + 1):
            chosen = rng.sample(spots, rng.randint(1, 6))
            rows.append(SeatPayout(seat, tuple(
                SpotPayout(name, pay=f"{rng.randint(1, 99999):,}.00", stake="25.00")
                if rng.random() < 0.5 else SpotPayout(name, take=f"{rng.randint(1, 500)}.00")
                for name in chosen)))
        box.show_stage(f"Card 1 · First Card: Joker ({trial})", rows)
        fitting = [s for s in SCALES if box.fits_one_page(s)]
        if fitting:
            assert (box.scale, len(box.pages)) == (fitting[0], 1), trial
        else:
            paged += 1
            assert box.scale == SCALES[-1] and len(box.pages) > 1, trial
        every = {(r.seat, i) for r in rows for i in range(len(r.spots))}
        assert set().union(*(p.entries for p in box.pages)) == every, trial
        for page in box.pages:
            for line in page.lines:
                assert box.rect().toRectF().contains(line.rect), (trial, line)
    assert 5 < paged < 55      # both kinds of list were tried


def test_the_last_rounds_message_goes_when_the_next_round_opens(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """"Round 1 complete: paid …" is about round 1: once round 2 has opened (its wagers
    placed from elsewhere than this screen) and its first card is out, it is gone."""
    screen = dealer_screen(qtbot, window)
    t: Any = station.table
    t.place_many([Wager(1, "straight", ("7",), 500)], actor="dealer/dealer")
    for card in ("7H", "2C", "9D"):
        t.deal(card, actor="dealer/dealer")
        for stage in t.unconfirmed():
            t.confirm_payout(stage, actor="dealer/dealer")
    qtbot.waitUntil(lambda: "Round 1 complete" in screen.message.text(), timeout=WAIT_MS)
    t.place_many([Wager(2, "straight", ("7",), 500)], actor="dealer/dealer")
    qtbot.waitUntil(lambda: screen.view.round_no == 2, timeout=WAIT_MS)
    assert "Round 1" not in screen.message.text()
    # What the dealer's own touch says in the new round stays.
    screen.select_seat(3)
    screen.place_on("straight", ("7",))
    qtbot.waitUntil(lambda: len(screen.view.wagers) == 2, timeout=WAIT_MS)
    assert screen.message.text().startswith("Seat 3: 1.00 on Straight-up 7")
    t.deal("7S", actor="dealer/dealer")
    qtbot.waitUntil(lambda: screen.view.to_confirm == 1, timeout=WAIT_MS)
    assert "Round 1" not in screen.message.text()
