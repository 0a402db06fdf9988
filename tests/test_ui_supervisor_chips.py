"""The supervisor's Chips tab: in the table-signed jurisdiction, a fill typed by
denomination and signed by the signed-in supervisor and the dealer's PIN is journaled with both
signers and its number; a wrong PIN or a count that is not whole chips is refused in words and
journals nothing; the tab fits the 1280x800 screen, lists the slips by the signers' names,
shows the day's win, and asks before a closer. Through the cage (the default jurisdiction),
the same form requests the fill, signed by the supervisor alone, and lists it with its state;
the request and receipt forms fit the screen too (the whole workflow by role is
tests/test_ui_table_requests.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QPushButton
from repo_paths import CONFIG_DIR
from test_ui_fit import check_fits, header_controls
from ui_support import WAIT_MS, click, sign_in

from dealer_station.app import Station
from dealer_station.events.accounting import KINDS
from dealer_station.ui.chips_panel import ChipsPanel
from dealer_station.ui.main_window import MainWindow

#: The [cage] of a jurisdiction whose fills and credits the table signs in one step.
TABLE_SIGNED = '\n[cage]\nissue = []\nrunner = []\nvoid = ["supervisor", "supervisor"]\n'


def jurisdiction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cage: str) -> Path:
    """The station's configuration with ``cage`` (a ``[cage]`` table) in its accounting file
    instead of the shipped one, in force for the windows opened after it."""
    conf = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, conf)
    accounting = conf / "accounting.toml"
    shipped = re.sub(r"^\[cage\]\n.*?(?=^\[|\Z)", "", accounting.read_text(),
                     flags=re.S | re.M)
    accounting.write_text(shipped + cage)
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(conf))
    return conf


@pytest.fixture
def table_signed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The table-signed jurisdiction (list it before ``window``)."""
    return jurisdiction(tmp_path, monkeypatch, TABLE_SIGNED)


def text_fits(button: QPushButton) -> bool:
    """Whether each line of the button's words fits inside it."""
    fm = button.fontMetrics()
    return all(fm.horizontalAdvance(line) <= button.width() - 12
               for line in button.text().splitlines())


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
        qtbot: Any, table_signed: Path, window: MainWindow, station: Station,
        tmp_path: Path) -> None:
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
    assert (f"Fill slip T1-F-{year}-00001 recorded: 520.00 USD, signed by Dana Dealer and Sam "
            f"Supervisor") in panel.message.text()
    assert panel.dealer_pin.text() == "" and panel.fields[2500].text() == ""
    assert panel.slips.item(0, 1).text() == f"T1-F-{year}-00001"
    assert panel.slips.item(0, 3).text() == "Dana Dealer + Sam Supervisor"
    panel.slips.selectRow(0)
    saved = panel.print_selected()
    assert saved is not None and saved.is_file()
    assert "saved as" in panel.message.text()


def test_a_wrong_pin_or_part_of_a_chip_is_refused_and_nothing_is_journaled(
        qtbot: Any, table_signed: Path, window: MainWindow, station: Station,
        tmp_path: Path) -> None:
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
    assert "Sam Supervisor cannot sign twice: the fill needs two different people" in \
        panel.message.text()
    assert accounting(station) == []


def test_the_chips_tab_fits_the_screen(qtbot: Any, table_signed: Path, window: MainWindow,
                                       station: Station, tmp_path: Path) -> None:
    panel = chips_tab(qtbot, window, tmp_path)
    type_fill(qtbot, panel, {2500: "20", 500: "4", 100: "50"}, "dealer", "1111")
    type_fill(qtbot, panel, {10000: "3"}, "dealer", "1111")
    click(qtbot, panel.action_buttons["credit"])
    qtbot.keyClicks(panel.fields[50000], "1")
    qtbot.keyClicks(panel.fields[2500], "12")
    controls = {f"chips of {d}": f for d, f in panel.fields.items()} | {
        "the dealer": panel.dealer_button,
        "Record": panel.record_button, "PIN": panel.dealer_pin, "the slips": panel.slips,
        "Print": panel.print_button, "Void": panel.void_slip_button,
        "the total": panel.total, "message": panel.message}
    check_fits(qtbot, window, header_controls(window) | controls)
    assert not panel.requests.isVisible()       # no requests where the table signs alone
    for b in (panel.record_button, panel.dealer_button, panel.print_button,
              panel.void_slip_button, *panel.action_buttons.values()):
        assert text_fits(b), f"{b.text()!r} does not fit its button"


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
        qtbot: Any, table_signed: Path, window: MainWindow, station: Station,
        tmp_path: Path) -> None:
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
    panel.message.say("Fill slip T1-F-2026-00002 recorded: 100.00 USD, signed by Dana Dealer and "
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


def test_a_slip_signed_at_the_table_is_voided_by_two_supervisors(
        qtbot: Any, table_signed: Path, window: MainWindow, station: Station,
        tmp_path: Path) -> None:
    """In the table-signed jurisdiction a void takes its two void signers (two supervisors;
    an operator signs as one), each choosing their name and typing their PIN, by touch; one
    person twice is refused and journals nothing."""
    from touch_support import give_reason, tap, tap_button, tap_digits

    panel = chips_tab(qtbot, window, tmp_path)
    type_fill(qtbot, panel, {2500: "20"}, "dealer", "1111")
    (fill,) = accounting(station)
    panel.slips.selectRow(0)
    panel.void_slip("wrong count", [("super", "2222"), ("super", "2222")])
    assert "Not voided: Sam Supervisor cannot sign twice" in panel.message.text()
    panel.void_slip("wrong count", [("super", "2222"), ("dealer", "1111")])
    assert "(dealer) is a dealer; this signature is for a supervisor" in panel.message.text()
    assert accounting(station) == [fill]
    tap(qtbot, panel.void_slip_button)
    give_reason(qtbot, window, "wrong count")
    for name, pin in (("Sam Supervisor", "2222"), ("Olive Operator", "3333")):
        tap_button(qtbot, window, name)
        tap_digits(qtbot, window, pin)
        tap_button(qtbot, window, "Done")
    qtbot.waitUntil(lambda: len(accounting(station)) == 2, timeout=WAIT_MS)
    void = accounting(station)[1]
    assert void.kind == "slip.void" and void.payload["reason"] == "wrong count"
    assert void.payload["signers"] == ["super/supervisor", "operator/operator"]
    assert void.payload["slip_seq"] == fill.seq
    assert panel.slips.item(0, 0).text() == "Fill VOID"
    assert "signed by Sam Supervisor and Olive Operator" in panel.message.text()


def test_a_fill_requested_on_the_tab_is_signed_by_the_supervisor_alone(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    """Through the cage (the shipped jurisdiction): the form requests; the request is
    journaled with the signed-in supervisor's signature, and listed, Requested."""
    panel = chips_tab(qtbot, window, tmp_path)
    click(qtbot, panel.action_buttons["fill"])
    assert panel.record_button.text() == "Request the fill"
    assert not panel.dealer_button.isVisible() and not panel.dealer_pin.isVisible()
    assert "the cage issues the slip" in panel.what.text()
    qtbot.keyClicks(panel.fields[2500], "20")
    qtbot.keyClicks(panel.note, "tray low")
    click(qtbot, panel.record_button)
    (asked,) = accounting(station)
    assert asked.kind == "slip.request" and asked.payload["signers"] == ["super/supervisor"]
    assert asked.payload["note"] == "tray low" and asked.payload["total"] == 50000
    label = f"T1-R-{asked.payload['year']}-00001"
    assert panel.message.text().startswith(f"Fill request {label}: 500.00 USD (20 chips), "
                                           f"signed by Sam Supervisor.")
    row = panel.requests.rows[0]
    assert (row.words, row.state, row.amount) == (f"Fill {label}", "Requested", "500.00 USD")
    # A count that is not whole chips, or none at all, is refused and requests nothing.
    qtbot.keyClicks(panel.fields[500], "1.5")
    click(qtbot, panel.record_button)
    assert "not a whole number of 5.00 chips" in panel.message.text()
    panel.fields[500].clear()
    click(qtbot, panel.record_button)
    assert "no chips typed" in panel.message.text()
    assert len(accounting(station)) == 1
