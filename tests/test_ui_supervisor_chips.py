"""The supervisor's Chips tab: a fill typed by denomination and signed by the signed-in
supervisor and the dealer's PIN is journaled with both signers and its number; a wrong PIN or
a count that is not whole chips is refused in words and journals nothing; the tab fits the
1280x800 screen, lists the slips by the signers' names, shows the day's win, and asks before
a closer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication, QLabel
from test_ui_fit import check_fits, header_controls
from ui_support import WAIT_MS, click, sign_in

from dealer_station.app import Station
from dealer_station.events.accounting import KINDS
from dealer_station.ui.chips_panel import ChipsPanel
from dealer_station.ui.main_window import MainWindow


def chips_tab(qtbot: Any, w: MainWindow, tmp_path: Path) -> ChipsPanel:
    sign_in(qtbot, w, "super", "2222")
    qtbot.waitUntil(lambda: w.current_screen == "supervisor", timeout=WAIT_MS)
    sup: Any = w.screens["supervisor"]
    sup.tabs.setCurrentWidget(sup.chips)
    panel: ChipsPanel = sup.chips
    panel.printer = ""                      # no printer here: slips are saved as PDFs
    panel.slips_dir = tmp_path / "slips"
    return panel


def accounting(station: Station) -> list[Any]:
    return list(station.journal.records(station.table_id, kinds=list(KINDS)))


def type_fill(qtbot: Any, panel: ChipsPanel, counts: dict[int, str], dealer: str,
              pin: str) -> None:
    click(qtbot, panel.action_buttons["fill"])
    for denom, text in counts.items():
        panel.fields[denom].clear()
        qtbot.keyClicks(panel.fields[denom], text)
    panel.set_dealer(dealer)
    qtbot.keyClicks(panel.dealer_pin, pin)
    click(qtbot, panel.record_button)


def test_a_fill_entered_on_the_tab_is_journaled_with_both_signers(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    panel = chips_tab(qtbot, window, tmp_path)
    click(qtbot, panel.action_buttons["fill"])
    qtbot.keyClicks(panel.fields[2500], "20")
    qtbot.keyClicks(panel.fields[500], "4")
    assert panel.total.text() == "Total 520.00 USD (24 chips)"       # live, as money
    panel.fields[2500].clear()
    panel.fields[500].clear()
    type_fill(qtbot, panel, {2500: "20", 500: "4"}, "dealer", "1111")
    (fill,) = accounting(station)
    assert fill.kind == "fill" and fill.payload["number"] == 1
    assert fill.payload["chips"] == {"500": 4, "2500": 20} and fill.payload["total"] == 52000
    assert fill.payload["signers"] == ["dealer/dealer", "super/supervisor"]
    year = fill.payload["year"]
    assert (f"Fill slip {year}-00001 recorded: 520.00 USD, signed by Dana Dealer and Sam "
            f"Supervisor") in panel.message.text()
    assert panel.dealer_pin.text() == "" and panel.fields[2500].text() == ""
    assert panel.slips.item(0, 1).text() == f"{year}-00001"
    assert panel.slips.item(0, 3).text() == "Dana Dealer + Sam Supervisor"
    panel.slips.selectRow(0)
    saved = panel.print_selected()
    assert saved is not None and saved.is_file()
    assert "saved as" in panel.message.text()


def test_a_wrong_pin_or_part_of_a_chip_is_refused_and_nothing_is_journaled(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    panel = chips_tab(qtbot, window, tmp_path)
    type_fill(qtbot, panel, {2500: "20"}, "dealer", "9999")
    assert panel.message.text().startswith("Not done:")
    assert "PIN" in panel.message.text()
    assert accounting(station) == []
    type_fill(qtbot, panel, {2500: "2.5"}, "dealer", "1111")
    assert "'2.5' is not a whole number of 25.00 chips" in panel.message.text()
    assert "not a whole number" in panel.total.text()
    assert accounting(station) == []
    type_fill(qtbot, panel, {2500: "20"}, "super", "2222")     # the supervisor twice
    assert "two different people" in panel.message.text()
    assert accounting(station) == []


def test_the_chips_tab_fits_the_screen(qtbot: Any, window: MainWindow, station: Station,
                                       tmp_path: Path) -> None:
    panel = chips_tab(qtbot, window, tmp_path)
    type_fill(qtbot, panel, {2500: "20", 500: "4", 100: "50"}, "dealer", "1111")
    type_fill(qtbot, panel, {10000: "3"}, "dealer", "1111")
    click(qtbot, panel.action_buttons["credit"])
    qtbot.keyClicks(panel.fields[50000], "1")
    qtbot.keyClicks(panel.fields[2500], "12")
    controls = {f"chips of {d}": f for d, f in panel.fields.items()} | {
        "the dealer": panel.dealer_button,
        "Record": panel.record_button, "PIN": panel.dealer_pin, "the slips": panel.slips,
        "Print": panel.print_button, "the total": panel.total, "message": panel.message}
    check_fits(qtbot, window, header_controls(window) | controls)


def test_a_broken_accounting_file_turns_the_tab_off_in_words(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path,
        monkeypatch: Any) -> None:
    (tmp_path / "accounting.toml").write_text("[accounting]\ndenominations = [100, 100]\n")
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    panel = ChipsPanel(station.journal, station.table_id, window.session, printer="")
    qtbot.addWidget(panel)
    panel.refresh()
    assert "The Chips tab is off" in panel.message.text()
    assert "100 is listed twice" in panel.message.text()
    assert not panel.record_button.isEnabled()


def test_the_slips_are_in_sight_by_name_with_the_days_win(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    """Five slips and counts in sight at once (not two), signed by the people's names (not
    their ids), and the day's win (what the settled rounds won) on the tab."""
    from dealer_station.accounting.chips import Chips
    from dealer_station.games.lapaire.rules.engine import Wager
    from dealer_station.ui.chips_panel import ChipsPanel as Panel

    t: Any = station.table
    t.place_many([Wager(1, "straight", ("K",), 500)], actor="dealer/dealer")
    for card in ("2C", "3D", "4S"):                  # seat 1 loses its 5.00
        t.deal(card)
        for stage in t.unconfirmed():
            t.confirm_payout(stage, actor="dealer/dealer")
    panel: Panel = chips_tab(qtbot, window, tmp_path)
    users = station.users
    dealer = users.authenticate("dealer", "1111", table_id=station.table_id)
    sup = users.authenticate("super", "2222", table_id=station.table_id)
    panel.book.opener(Chips.of({2500: 40}), dealer, sup)
    for _ in range(2):
        panel.book.slip("fill", Chips.of({2500: 4}), dealer, sup)
        panel.book.slip("credit", Chips.of({500: 2}), dealer, sup)
    panel.refresh()
    # As after a slip recorded on the tab: its message shows above the list.
    panel.message.say("Fill slip 2026-00002 recorded: 100.00 USD, signed by Dana Dealer and "
                      "Sam Supervisor.", "good")
    QApplication.processEvents()
    slips = panel.slips
    assert slips.rowCount() == 5
    last = slips.rowViewportPosition(4) + slips.rowHeight(4)
    assert slips.rowViewportPosition(0) >= 0 and last <= slips.viewport().height(), \
        "not every slip is in sight"
    assert [slips.item(r, 3).text() for r in range(5)] == \
        ["Dana Dealer + Sam Supervisor"] * 5
    shown = " ".join(label.text() for label in panel.findChildren(QLabel)
                     if label.isVisible())
    assert "Day's win" in shown and "5.00 USD" in shown and "1 round" in shown
