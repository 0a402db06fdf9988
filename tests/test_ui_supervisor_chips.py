"""The supervisor's Chips tab: a fill typed by denomination and signed by the signed-in
supervisor and the dealer's PIN is journaled with both signers and its number; a wrong PIN or
a count that is not whole chips is refused in words and journals nothing; the tab fits the
1280x800 screen."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication
from test_ui_fit import check_fits, header_controls
from ui_support import WAIT_MS, click, sign_in

from dealer_station.events.accounting import KINDS
from dealer_station.ui.chips_panel import ChipsPanel
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.station import Station


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
    panel.dealer_id.clear()
    qtbot.keyClicks(panel.dealer_id, dealer)
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
    assert f"Fill slip {year}-00001 recorded: 520.00 USD" in panel.message.text()
    assert panel.dealer_pin.text() == "" and panel.fields[2500].text() == ""
    assert panel.slips.item(0, 1).text() == f"{year}-00001"
    assert panel.slips.item(0, 3).text() == "dealer/dealer + super/supervisor"
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
    qtbot.keyClicks(panel.dealer_id, "")
    controls = {f"chips of {d}": f for d, f in panel.fields.items()} | {
        "Record": panel.record_button, "PIN": panel.dealer_pin, "the slips": panel.slips,
        "Print": panel.print_button, "the total": panel.total, "message": panel.message}
    check_fits(qtbot, window, header_controls(window) | controls)
    shot = os.environ.get("DEALER_STATION_SHOT")   # docs/screens/supervisor-chips.png
    if shot:
        QApplication.processEvents()
        window.grab().save(shot)


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
