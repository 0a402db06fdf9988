"""What the dealer screen copies from kept pictures (ui/paint_cache.py) looks as drawing it
afresh would: the felt's spots in every look a round gives them, a card's face whichever
card came before, a seat button's face in each of its states."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QImage, QPainter
from ui_support import sign_in

from dealer_station.cards import JOKER, LAPAIRE_DECK, Card, parse_card
from dealer_station.games.lapaire.config_file import load_lapaire_config
from dealer_station.games.lapaire.ui import felt
from dealer_station.games.lapaire.ui.seats import SeatButton
from dealer_station.ui import card_view
from dealer_station.ui.card_view import CardView

#: Antialiased edges blended once onto a clear picture and again onto the felt may differ
#: from one blend by a level or two; anything a person could see differs by far more.
LEVELS = 24


def _differing(a: QImage, b: QImage) -> int:
    """Pixels of ``a`` and ``b`` (the same size) apart by more than LEVELS in a channel."""
    a = a.convertToFormat(QImage.Format.Format_RGB32)
    b = b.convertToFormat(QImage.Format.Format_RGB32)
    assert a.size() == b.size()
    out = 0
    for y in range(a.height()):
        for x in range(a.width()):
            p, q = a.pixel(x, y), b.pixel(x, y)
            if any(abs(((p >> s) & 255) - ((q >> s) & 255)) > LEVELS for s in (0, 8, 16)):
                out += 1
    return out


def _felt(qtbot: Any) -> Any:
    view = felt.LaPaireLayoutView(load_lapaire_config())
    qtbot.addWidget(view)
    view.resize(722, 430)
    view.show()
    qtbot.waitExposed(view)
    return view


def _drawn_afresh(view: Any) -> QImage:
    """The felt as it looks with every spot, zone and card's mark drawn directly, not
    copied."""
    def direct(p: QPainter, s: Any, look: Any, paint: Callable[[QPainter], None],
               reach: Any = None) -> None:
        p.save()
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        p.setTransform(view._transform())
        paint(p)
        p.restore()

    view._copy = direct
    try:
        return view.grab().toImage()
    finally:
        del view._copy


def test_the_felts_spots_copied_look_as_drawn_in_every_look_of_a_round(qtbot: Any) -> None:
    """Cells, boxes and the splits', threes' and corners' zones: won, lost, untouched."""
    view = _felt(qtbot)
    keys = [s.key for s in view.spots]
    chips = {k: {seat: 100 * seat for seat in range(1, 4)} for k in keys}
    looks = [
        ({}, {}, None, None),                                     # chips only
        ({k: i % 2 == 0 for i, k in enumerate(keys)}, {"7": 1}, None, None),   # card 1
        ({k: i % 3 == 0 for i, k in enumerate(keys)}, {"7": 1}, "7", None),    # card 2
        ({k: True for k in keys}, {"JOKER": 1}, "JOKER", "Three of a kind"),   # card 3
    ]
    changed = 0
    before = None
    for outcomes, marks, pair, poker in looks:
        view.set_round(chips, outcomes, marks, pair, poker)
        copied = view.grab().toImage()
        assert _differing(copied, _drawn_afresh(view)) == 0
        if before is not None and _differing(copied, before):
            changed += 1
        before = copied
    # Each look differs from the one before it: the copies follow the round.
    assert changed == len(looks) - 1
    # The same look again, from the pictures kept: still what drawing it makes.
    view.set_round(chips, *looks[1])
    assert _differing(view.grab().toImage(), _drawn_afresh(view)) == 0


def test_a_cards_face_is_the_card_dealt_whatever_came_before(qtbot: Any) -> None:
    view = CardView("Card 1")
    qtbot.addWidget(view)
    view.resize(76, 106)
    view.show()
    faces = {}
    for code in ("7H", "KS", "JK", "7H"):
        view.set_card(parse_card(code))
        image = view.grab().toImage()
        if code in faces:
            assert _differing(image, faces[code]) == 0
        faces[code] = image
    assert _differing(faces["7H"], faces["KS"]) > 100
    view.set_card(parse_card("7H"), highlight=True)
    assert _differing(view.grab().toImage(), faces["7H"]) > 50     # the gold frame
    view.set_card(None)
    assert _differing(view.grab().toImage(), faces["7H"]) > 100    # the empty slot


def test_a_face_kept_for_one_slot_is_the_face_in_every_slot_and_as_drawn_afresh(
        qtbot: Any) -> None:
    """The faces are kept once for all card views (and for both Jokers): a card first shown
    in slot 1 is copied into slot 3, and the copy is what drawing it there would draw; an
    empty slot keeps its own words."""
    first, third = CardView("Card 1\nFirst Card"), CardView("Card 3\nPoker card")
    for view in (first, third):
        qtbot.addWidget(view)
        view.resize(76, 106)
        view.show()
    card_view._FACES.clear()     # (kept across tests: start as a fresh station does)
    empties = [v.grab().toImage() for v in (first, third)]
    assert _differing(empties[0], empties[1]) > 20        # each slot's own words
    drawn = []
    original = card_view._draw

    def counting(*args: Any) -> None:
        drawn.append(args[1])
        original(*args)

    card_view._draw = counting
    try:
        first.set_card(parse_card("JK"))
        kept = first.grab().toImage()
        third.set_card(Card(JOKER, None, copy=1))
        copied = third.grab().toImage()
    finally:
        card_view._draw = original
    assert [str(c) for c in drawn] == [str(parse_card("JK"))]      # drawn once, for slot 1
    assert _differing(copied, kept) == 0
    afresh = QImage(third.size(), QImage.Format.Format_ARGB32_Premultiplied)
    afresh.fill(copied.pixelColor(0, 0))     # what is behind the card in the grab
    p = QPainter(afresh)
    original(p, Card(JOKER, None, copy=1), False, "", third.font(), 76, 106)
    p.end()
    assert _differing(copied, afresh) == 0


def test_the_dealer_screen_draws_every_face_before_the_first_card(qtbot: Any,
                                                                   window: Any) -> None:
    """While the screen is idle it draws each of the deck's faces, plain and to pay, at the
    slots' size: the first 7♥ of the day is then copied, not drawn, on the card's path."""
    sign_in(qtbot, window, "dealer", "1111")
    screen = window.screens["dealer"]
    deck = {(c.rank, c.suit) for c in LAPAIRE_DECK.cards()}
    qtbot.waitUntil(lambda: all(_kept(screen.card_views[0], card, hl)
                                for card in LAPAIRE_DECK.cards() for hl in (False, True)),
                    timeout=5000)
    assert len(deck) == 53
    drawn: list[Any] = []
    original = card_view._draw
    card_view._draw = lambda *a: drawn.append(a)
    try:
        for i, code in enumerate(("7H", "JK", "10S")):
            screen.card_views[i].set_card(parse_card(code), highlight=True)
            screen.card_views[i].grab()
    finally:
        card_view._draw = original
    assert drawn == []


def _kept(view: CardView, card: Card, highlight: bool) -> bool:
    key = (("face", card.rank, card.suit, highlight), view.font().key())
    return card_view._FACES.has(key, view.width(), view.height(), view.devicePixelRatioF())


def test_a_seat_buttons_face_follows_its_state(qtbot: Any) -> None:
    button = SeatButton(3)
    qtbot.addWidget(button)
    button.resize(100, 92)
    button.set_total("55.00")
    button.show()
    plain = button.grab().toImage()
    button.setChecked(True)
    chosen = button.grab().toImage()
    assert _differing(plain, chosen) > 1000            # the gold face of the chosen seat
    button.setChecked(False)
    assert _differing(button.grab().toImage(), plain) == 0
