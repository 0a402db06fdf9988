"""The operator changes what the table offers: the par sheet is shown first, a reason is
required, and the change reaches the dealer's felt between rounds, never in the middle."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QTextDocumentFragment
from ui_support import (
    WAIT_MS,
    click,
    sign_in,
    tap_spot,
)

from dealer_station.app import Station
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.games.lapaire.ui.models import ParSheetModel
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.reasons import ReasonSheet
from dealer_station.ui.touch_keyboard import InputSheet
from dealer_station.ui.touch_sheet import current_sheet


def apply_for(qtbot: Any, op: Any, reason: str) -> None:
    """Touch Apply, then the reason: one of the operator's, or typed with Other…."""
    click(qtbot, op.apply_button)
    sheet = op.reason_sheet
    qtbot.waitUntil(lambda: current_sheet(op) is sheet, timeout=WAIT_MS)
    if reason in sheet.buttons:
        click(qtbot, sheet.buttons[reason])
        return
    click(qtbot, sheet.other_button)
    qtbot.waitUntil(lambda: sheet.other_sheet is not None, timeout=WAIT_MS)
    keyboard = sheet.other_sheet
    for button in keyboard.keyboard.buttons_for(reason):
        click(qtbot, button)
    click(qtbot, keyboard.done_button)


def operator(qtbot: Any, w: MainWindow) -> Any:
    sign_in(qtbot, w, "operator", "3333")
    assert w.current_screen == "operator"
    return w.screens["operator"]


def shown_kinds(w: MainWindow) -> set[str]:
    return {s.bet for s in w.screens["dealer"].layout_view.spots}


def test_withdrawing_a_wager_between_rounds(qtbot: Any, window: MainWindow,
                                            station: Station) -> None:
    op = operator(qtbot, window)
    assert not op.apply_button.isEnabled()
    op.kind_boxes["poker"].setChecked(False)
    assert "3rd Card Poker: <b>withdrawn</b>" in op.changes.text()
    assert not op.apply_button.isEnabled()             # the par sheet comes first
    click(qtbot, op.preview_button)
    assert op.apply_button.isEnabled()
    labels = [op.par_model.data(op.par_model.index(r, ParSheetModel.WAGER))
              for r in range(op.par_model.rowCount())]
    assert "Straight-up K" in labels and "3rd Card Poker" not in labels
    edge = op.par_model.data(op.par_model.index(labels.index("Straight-up K"),
                                                ParSheetModel.HOUSE_EDGE))
    assert edge == "3.70%"
    click(qtbot, op.apply_button)                      # asks why first
    assert isinstance(current_sheet(op), ReasonSheet)
    click(qtbot, op.reason_sheet.cancel_button)        # no reason: nothing applied
    assert station.table.config.poker.offered          # type: ignore[attr-defined]
    apply_for(qtbot, op, "poker withdrawn for the evening")
    assert "in force from now" in op.message.text()
    change = [r for r in station.journal.records(station.table_id)
              if r.kind == "config.change"][-1]
    assert change.actor == "operator/operator"
    assert change.payload["changes"] == {"offered": {"poker": False}}
    assert change.payload["reason"] == "poker withdrawn for the evening"
    qtbot.waitUntil(lambda: "poker" not in shown_kinds(window), timeout=WAIT_MS)
    # The dealer's felt no longer has the box; the table refuses the wager.
    sign_in(qtbot, window, "dealer", "1111")
    screen = window.screens["dealer"]
    tap_spot(qtbot, screen, "straight", ("K",))
    qtbot.waitUntil(lambda: screen.model.rowCount() == 1, timeout=WAIT_MS)
    tap_spot(qtbot, screen, "poker")                   # no box: the touch lands on the felt
    assert screen.model.rowCount() == 1
    assert not station.table.can_place(Wager(1, "poker", (), 100))  # type: ignore[attr-defined]
    reason = station.table.place_refusal(Wager(1, "poker", (), 100))  # type: ignore[attr-defined]
    assert reason is not None and "not offered" in reason


def test_a_change_made_during_a_round_waits_for_the_next(qtbot: Any, window: MainWindow,
                                                         station: Station) -> None:
    t: Any = station.table
    t.place(Wager(1, "straight", ("K",), 100))
    op = operator(qtbot, window)
    op.kind_boxes["red"].setChecked(False)
    lo, hi = op.limit_boxes["straight"]
    hi.setValue(5000)
    click(qtbot, op.preview_button)
    # Editing after the preview asks for the par sheet again.
    lo.setValue(200)
    assert not op.apply_button.isEnabled()
    click(qtbot, op.preview_button)
    apply_for(qtbot, op, "quieter table")
    assert "when this round is over" in op.message.text()
    assert t.pending is not None and t.config.red.offered
    assert "red" in shown_kinds(window)                # this round keeps its layout
    for card in ("KS", "2C", "3D"):
        t.deal(card)
        for n in t.unconfirmed():
            t.confirm_payout(n)
    # Between rounds the felt shows what the next round will offer.
    qtbot.waitUntil(lambda: "red" not in shown_kinds(window), timeout=WAIT_MS)
    t.place(Wager(1, "straight", ("K",), 200))
    assert t.config.straight.limits.maximum == 5000 and not t.config.red.offered
    qtbot.waitUntil(lambda: "saved" not in op.in_force.text(), timeout=WAIT_MS)
    assert t.version[:12] in op.in_force.text()


def test_the_paytable_and_a_spot(qtbot: Any, window: MainWindow, station: Station) -> None:
    op = operator(qtbot, window)
    op.paytable.setCurrentText("alternative")
    assert "Straight 5 to 1" in op.paytable_text.text()
    op.spot_boxes["split 7-JK"].setChecked(True)
    click(qtbot, op.preview_button)
    labels = [op.par_model.data(op.par_model.index(r, ParSheetModel.WAGER))
              for r in range(op.par_model.rowCount())]
    assert "Split 7-JK" in labels
    apply_for(qtbot, op, "paytable change approved")
    config: Any = station.table.config
    assert config.poker.paytable == "alternative"
    assert config.split.spot(("7", "JK")).offered
    # A limit that the configuration refuses is explained, not applied.
    lo, hi = op.limit_boxes["corner"]
    lo.setValue(900)
    hi.setValue(800)
    assert "cannot be made" in op.changes.text()
    click(qtbot, op.preview_button)
    assert "cannot be made" in op.message.text() and not op.apply_button.isEnabled()


def test_limits_are_typed_as_money_on_the_keypad(qtbot: Any, window: MainWindow) -> None:
    op = operator(qtbot, window)
    _lo, hi = op.limit_boxes["any_pair"]
    click(qtbot, hi)
    sheet = current_sheet(op)
    assert isinstance(sheet, InputSheet) and sheet.mode == "amount"
    assert "Any Pair'e" in sheet.title.text() and "50.00" in sheet.note.text()
    for key in "75.50":
        click(qtbot, sheet.pad.keys[key])
    click(qtbot, sheet.done_button)
    assert hi.value() == 7550 and hi.text() == "75.50"
    assert "Any Pair'e limits: <b>1.00 – 75.50</b>" in op.changes.text()
    click(qtbot, hi)
    sheet = current_sheet(op)
    for key in "1.234":
        click(qtbot, sheet.pad.keys[key])
    click(qtbot, sheet.done_button)                    # a third decimal is not money
    assert sheet.isVisible() and "more than 2 digits after the point" in sheet.message.text()
    click(qtbot, sheet.cancel_button)
    assert hi.value() == 7550 and hi.text() == "75.50"


def par_labels(op: Any) -> list[str]:
    return [op.par_model.data(op.par_model.index(r, ParSheetModel.WAGER))
            for r in range(op.par_model.rowCount())]


def test_a_refused_limit_reads_in_money_and_the_felts_names(qtbot: Any,
                                                            window: MainWindow) -> None:
    """d12-limits-form.png: ": : wagers.red.max: must be at least min (60000), got 50000"
    (the file's key, minor units, and a "<changes>" tag eaten as HTML)."""
    op = operator(qtbot, window)
    lo, hi = op.limit_boxes["red"]
    lo.setValue(60000)
    hi.setValue(50000)
    said = "First Card Red: the most (500.00) must be at least the least (600.00)"
    assert said in op.changes.text()
    click(qtbot, op.preview_button)
    assert op.message.text() == f"This change cannot be made: {said}"
    for text in (op.changes.text(), op.message.text()):
        assert "wagers." not in text and ": :" not in text and "60000" not in text


def test_the_par_sheet_under_an_invalid_proposal_is_the_current_ones(
        qtbot: Any, window: MainWindow) -> None:
    op = operator(qtbot, window)
    op.kind_boxes["poker"].setChecked(False)
    click(qtbot, op.preview_button)
    assert "3rd Card Poker" not in par_labels(op)
    assert "proposed change" in op.sheet_caption.text()
    lo, hi = op.limit_boxes["corner"]
    lo.setValue(900)
    hi.setValue(800)
    assert "cannot be made" in op.changes.text()
    # Not the proposal's sheet any more: the current configuration's, and said to be so.
    assert "3rd Card Poker" in par_labels(op)
    assert "current configuration" in op.sheet_caption.text()
    assert not op.apply_button.isEnabled()


def test_the_warning_column_and_the_poker_pays_are_on_the_page(qtbot: Any,
                                                               window: MainWindow) -> None:
    """The Warning column was squeezed to "rn"; the poker pays were only in a tooltip."""
    op = operator(qtbot, window)
    op.paytable.setCurrentText("alternative")
    click(qtbot, op.preview_button)
    view = op.par_view
    header = view.horizontalHeader()
    metrics = header.fontMetrics()
    assert header.sectionSize(ParSheetModel.WARNING) >= metrics.horizontalAdvance("Warning")
    for r in range(op.par_model.rowCount()):
        warning = op.par_model.data(op.par_model.index(r, ParSheetModel.WARNING))
        if warning:     # wrapped in its cell, the row as tall as it needs
            needed = view.fontMetrics().boundingRect(
                QRect(0, 0, header.sectionSize(ParSheetModel.WARNING) - 8, 10_000),
                int(Qt.TextFlag.TextWordWrap), warning).height()
            assert view.rowHeight(r) >= needed
    poker = par_labels(op).index("3rd Card Poker")
    pays = op.par_model.data(op.par_model.index(poker, ParSheetModel.PAYS))
    assert pays.count(" to 1") >= 5
    needed = view.fontMetrics().boundingRect(
        QRect(0, 0, header.sectionSize(ParSheetModel.PAYS) - 8, 10_000),
        int(Qt.TextFlag.TextWordWrap), pays).height()
    assert view.rowHeight(poker) >= needed


def test_a_proposed_change_is_compared_with_what_is_in_force(qtbot: Any,
                                                             window: MainWindow) -> None:
    op = operator(qtbot, window)
    op.kind_boxes["poker"].setChecked(False)
    lo, _hi = op.limit_boxes["red"]
    lo.setValue(600)
    click(qtbot, op.preview_button)
    # The comparison's cells, read in order as one line.
    text = " ".join(QTextDocumentFragment.fromHtml(op.changes.text()).toPlainText().split())
    assert ("Setting: now → proposed 3rd Card Poker offered → withdrawn First Card Red limits "
            "1.00 – 500.00 → 6.00 – 500.00 House edge: now → proposed 3rd Card Poker 5.55% → "
            "not offered") in text


def test_the_round_over_note_goes_once_the_change_is_in_force(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    t: Any = station.table
    t.place(Wager(1, "straight", ("K",), 100))
    op = operator(qtbot, window)
    op.kind_boxes["red"].setChecked(False)
    click(qtbot, op.preview_button)
    apply_for(qtbot, op, "quieter table")
    assert "when this round is over" in op.message.text() and op.message.isVisible()
    for card in ("KS", "2C", "3D"):
        t.deal(card)
        for n in t.unconfirmed():
            t.confirm_payout(n)
    t.place(Wager(1, "straight", ("K",), 200))       # the next round: the change in force
    assert not t.config.red.offered
    qtbot.waitUntil(lambda: not op.message.isVisible(), timeout=WAIT_MS)
    assert "current configuration" in op.sheet_caption.text()
    assert "First Card Red" not in par_labels(op)


def test_the_par_sheet_has_every_column_on_the_page_and_the_limits_one_touch_away(
        qtbot: Any, window: MainWindow) -> None:
    """op-04-par-sheet-preview.png: at 1280x800 the par sheet was squeezed to about three rows
    under the comparison, its Warning column cut to "W" behind a sideways scroll bar."""
    assert (window.width(), window.height()) == (1280, 800)
    op = operator(qtbot, window)
    op.paytable.setCurrentText("alternative")
    op.spot_boxes["split 7-JK"].setChecked(True)
    click(qtbot, op.preview_button)
    view = op.par_view
    qtbot.waitUntil(lambda: view.isVisible(), timeout=WAIT_MS)
    header = view.horizontalHeader()
    # No sideways scroll: every column is inside the table's width, each as wide as its
    # title (the Warning column was cut to "W").
    assert view.horizontalScrollBar().maximum() == 0
    assert header.length() <= view.viewport().width()
    titles = header.fontMetrics()
    for col, title in enumerate(ParSheetModel.HEADERS):
        assert not view.isColumnHidden(col)
        assert header.sectionSize(col) >= titles.horizontalAdvance(title), title
    # Every row: a good page of them at once, and the rest down the vertical scroll bar.
    rows = op.par_model.rowCount()
    assert rows > 40
    shown = [r for r in range(rows)
             if view.viewport().rect().contains(view.visualRect(op.par_model.index(r, 0)))]
    assert len(shown) >= 12
    view.scrollToBottom()
    last = view.visualRect(op.par_model.index(rows - 1, 0))
    assert view.viewport().rect().contains(last)
    # The comparison and Apply stand beside the sheet, inside the window.
    for w in (op.changes, op.approver_id, op.approver_pin, op.apply_button):
        assert w.isVisible()
        top_left = w.mapTo(window, w.rect().topLeft())
        assert window.rect().contains(top_left)
        assert top_left.y() + w.height() <= window.height()
    # One touch on "The change" brings the limits form back, whole, with nothing to scroll.
    bar = op.pages.tabBar()
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(0).center())
    assert op.pages.currentIndex() == 0
    viewport = op.form_scroll.viewport()
    for lo, hi in op.limit_boxes.values():
        for box in (lo, hi):
            assert box.isVisible()
            where = QRect(box.mapTo(viewport, box.rect().topLeft()), box.size())
            assert viewport.rect().contains(where)
    assert op.preview_button.isVisible()
