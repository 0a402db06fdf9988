"""The heaviest cards the table's configuration allows, on the dealer's real screen: seven
seats, every spot that wins on the card at its table maximum and a losing spot of every kind
besides, on each of the round's three cards. Every seat's every pay and take line must be
drawn inside the visible box on a page the dealer has been shown (by touching ›) before
Confirm turns on; amounts to pay at least 24 px, spot names at least 18 px.

What should be on screen is worked out here from the table's own results for the card, not
from the list, and read back from the lines the list drew.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QPushButton
from ui_support import WAIT_MS, click, sign_in

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.layout import spot_label
from dealer_station.games.lapaire.table.view import LaPaireView
from dealer_station.games.lapaire.ui.labels import SHORT_LABELS
from dealer_station.games.lapaire.ui.worst_card import every_spot, worst_rounds
from dealer_station.ui import theme
from dealer_station.ui.main_window import MainWindow

DEALER = "dealer/dealer"


def expected_lines(view: LaPaireView, stage: int) -> dict[tuple[int, str], str]:
    """(seat, spot) -> the words the dealer must read for it on ``stage``: ``Straight 2 pay
    1,200.00 + stake 100.00`` or ``take Black 500.00`` (a seat's chips on a spot summed)."""
    money = view.config.money
    sums: dict[tuple[int, str], list[int]] = {}
    for r in view.stages[stage].results:
        w = r.wager
        name = SHORT_LABELS[w.bet] + (f" {spot_label(w.values)}" if w.values else "")
        win_back_lost = sums.setdefault((w.seat, name), [0, 0, 0])
        win_back_lost[0] += r.win
        win_back_lost[1 if r.won else 2] += w.amount
    return {key: (f"{key[1]} pay {money.number(win)} + stake {money.number(back)}"
                  if win or back else f"take {key[1]} {money.number(lost)}")
            for key, (win, back, lost) in sums.items()}


def next_page_button(payouts: Any) -> QPushButton | None:
    """The button a dealer touches for the list's next page: shown, on, ending in ›."""
    for b in payouts.findChildren(QPushButton):
        if b.isVisible() and b.isEnabled() and b.text().endswith("›"):
            return b
    return None


def check_page(window: MainWindow, screen: Any, expected: dict[tuple[int, str], str],
               seen: set[tuple[int, str]]) -> None:
    """Every line of the page shown lies inside the list's visible box and the window, has
    ink, and says what the table settled; amounts and spot names at their least sizes."""
    payouts = screen.payouts
    visible = payouts.visibleRegion().boundingRect()
    assert not visible.isEmpty()
    image = payouts.grab().toImage()
    pays = {text.split(" pay ")[1].split(" + ")[0] for text in expected.values()
            if " pay " in text}
    names = {spot for _, spot in expected}
    for line in payouts.lines:
        r = line.rect.toRect()
        assert visible.contains(r), f"seat {line.seat}: {line.text!r} at {r} outside {visible}"
        corner = payouts.mapTo(window, r.bottomRight())
        assert window.rect().contains(corner), line.text
        background = image.pixelColor(r.right() - 1, r.top() + 1)
        ink = sum(1 for y in range(r.top(), r.bottom(), 2) for x in range(r.left(), r.right(), 2)
                  if image.pixelColor(x, y) != background)
        assert ink > 40, f"seat {line.seat}: {line.text!r} is not drawn"
        said = line.text.split(" · ")
        for key, words in expected.items():
            if key[0] == line.seat and words in said:
                seen.add(key)
    for piece in payouts.pieces:
        text = piece.text.strip().rstrip("·").strip()
        if text in pays and piece.colour == theme.GOOD:
            assert piece.font.pixelSize() >= 24, (text, piece.font.pixelSize())
        if text in names:
            assert piece.font.pixelSize() >= 18, (text, piece.font.pixelSize())
        if text and text != "■":
            assert piece.font.pixelSize() >= 18, (text, piece.font.pixelSize())


def pay_the_card(qtbot: Any, window: MainWindow, screen: Any, stage: int) -> int:
    """Read every page of the card's payouts as a dealer does, touching › until there is no
    next page, Confirm off until then; then Confirm. The pages read."""
    expected = expected_lines(screen.view, stage)
    assert len({seat for seat, _ in expected}) == 7
    seen: set[tuple[int, str]] = set()
    pages = 0
    while True:
        pages += 1
        check_page(window, screen, expected, seen)
        button = next_page_button(screen.payouts)
        if button is None:
            break
        assert not screen.confirm_button.isEnabled(), \
            f"Confirm is on with page {pages + 1} not yet seen"
        assert button.width() >= 44 and button.height() >= 44
        assert window.rect().contains(button.mapTo(window, button.rect().bottomRight()))
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton,
                         pos=QPoint(button.width() // 2, button.height() // 2))
        assert pages < 30
    missing = sorted(set(expected) - seen)
    assert not missing, f"card {stage}: never on screen: " + "; ".join(
        f"seat {seat} {expected[(seat, spot)]}" for seat, spot in missing)
    assert screen.confirm_button.isEnabled()
    click(qtbot, screen.confirm_button)
    qtbot.waitUntil(lambda: stage in screen.view.confirmed, timeout=WAIT_MS)
    return pages


@pytest.mark.parametrize("which", ["most", "widest", "every spot"])
def test_the_worst_card_every_pay_and_take_seen_before_confirm(
        qtbot: Any, window: MainWindow, station: Station, which: str) -> None:
    """``most``: the card with the most winning spots (a 2: straight-up, three splits, A-2-8,
    a corner and Red), then its pair and three of a kind; ``widest``: the Joker's, with the
    largest amounts (La Pair'e Card Joker 13,000.00); ``every spot``: every seat on every
    offered spot at its maximum, so that a seat's takes run longer than a page."""
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    window.resize(*theme.WINDOW_SIZE)
    t: Any = station.table
    rounds = {r.name: r for r in worst_rounds(t.config)}
    chosen = rounds["most" if which == "every spot" else which]
    wagers = ([w for seat in range(1, 8) for w in every_spot(t.config, seat)]
              if which == "every spot" else list(chosen.wagers))
    t.place_many(wagers, actor=DEALER)
    qtbot.waitUntil(lambda: screen.view.round_no is not None and len(screen.view.wagers)
                    == len(wagers), timeout=WAIT_MS)
    kinds: set[str] = set()
    for stage, card in enumerate(chosen.cards, start=1):
        t.deal(card, actor=DEALER)
        qtbot.waitUntil(lambda stage=stage: screen.view.to_confirm == stage
                        and f"Card {stage}" in screen.payouts.text(), timeout=WAIT_MS)
        kinds |= {r.wager.bet for r in screen.view.stages[stage].results}
        if stage == 1:
            # Confirm by its key before the pages are seen: refused, and said why.
            screen.confirm()
            assert 1 not in screen.view.confirmed
            assert "not yet seen" in screen.message.text()
        pay_the_card(qtbot, window, screen, stage)
    # Every wager kind offered came up on its card.
    assert kinds == {w.kind for w in t.config.wagers() if w.offered}


def test_the_list_gives_the_cards_back_when_it_fits(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """A card whose list needs more room than the wagers list's takes the cards row's too;
    the next card, whose list fits, gives it back (the cards and totals in sight again)."""
    sign_in(qtbot, window, "dealer", "1111")
    screen: Any = window.screens["dealer"]
    t: Any = station.table
    most = next(r for r in worst_rounds(t.config) if r.name == "most")
    t.place_many(list(most.wagers), actor=DEALER)
    t.deal(most.cards[0], actor=DEALER)
    qtbot.waitUntil(lambda: screen.view.to_confirm == 1, timeout=WAIT_MS)
    assert screen.payouts.grown and not screen.card_views[0].isVisible()
    # The card is still named, in the list's first line.
    assert any(p.role == "head" and p.text.startswith("Card 1 · First Card:")
               for p in screen.payouts.pieces)
    for stage, card in ((1, None), (2, most.cards[1])):
        if card is not None:
            t.deal(card, actor=DEALER)
            qtbot.waitUntil(lambda s=stage: screen.view.to_confirm == s, timeout=WAIT_MS)
        while (b := next_page_button(screen.payouts)) is not None:
            qtbot.mouseClick(b, Qt.MouseButton.LeftButton)
        click(qtbot, screen.confirm_button)
        qtbot.waitUntil(lambda s=stage: s in screen.view.confirmed, timeout=WAIT_MS)
    t.deal(most.cards[2], actor=DEALER)
    qtbot.waitUntil(lambda: screen.view.to_confirm == 3, timeout=WAIT_MS)
    assert not screen.payouts.grown and len(screen.payouts.pages) == 1
    assert screen.card_views[2].isVisible() and screen.totals.isVisible()
    assert screen.confirm_button.isEnabled()

