"""The cage's own screen (ui/cage_window.py) on real widgets, driven by touch, per role:

- the cage cashier issues a fill requested at the table: the request touched in the list, its
  sheet's *Issue the slip…*, the chips counted out on the keypad, the cashier's name and PIN;
  ``slip.issue`` is journaled with the cashier's signature, and the slip printed as a PDF;
- the security officer takes it (*Runner takes it…*, name and PIN): ``slip.carry``;
- a void at each step the cage can void (requested, issued, in transit): the reason, then a
  supervisor and a cage cashier, each by name and PIN: ``request.void`` with both;
- refusals in words that journal nothing: a dealer is never offered as a cashier, and a
  cashier whose role changed, or who was deactivated, while the names were shown is refused;
  one person signing twice (the cashier who issued also carrying, refused by the desk; the
  first void signer left out of the second signature's names, and no void when nobody else
  may sign); counts that differ from the request;
- what the table does at its own screen (request, receipt) shows here; an overdue request is
  on top in the alert colour with its wait; the list is read in a thread of its own;
- the screen at 1280x800 with seven tables' requests in every state, and the issue form with
  the keypad open, grabbed to PNG.

The table's own steps (the request, the receipt) are made with the cage's desk, as the
table's screen makes them; every step the tests say the cage's screen takes is touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from touch_support import find_button, give_reason, tap, tap_button, tap_digits

from dealer_station.accounting.cage_settings import CageSettings
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.app import fast_hasher
from dealer_station.events.accounting import KINDS, SlipRequested
from dealer_station.table.accounting import accounting_event
from dealer_station.ui import theme
from dealer_station.ui.cage_demo import PIN, Demo, busy_day, new_demo, open_tables
from dealer_station.ui.cage_window import ALERT, CageWindow
from dealer_station.ui.touch_sheet import ChoiceSheet, current_sheet

MICS = AccountingSettings(variance_threshold=2500)
WANT = Chips.of({2500: 20, 10000: 5})
FILL = {2500: "20", 10000: "5"}
VOIDERS = [("Sam Floorman", PIN), ("Cass Cashier", PIN)]


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    d = new_demo(tmp_path)
    open_tables(d, ("T1", "T2"))
    yield d
    d.db.close()


def screen(qtbot: Any, demo: Demo, tmp_path: Path, settings: AccountingSettings = MICS
           ) -> CageWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = CageWindow(demo.journal, settings, demo.calendar, hasher=fast_hasher(),
                   slips_dir=tmp_path / "slips", auto_refresh=False)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def requested(demo: Demo, table: str = "T1", chips: Chips = WANT,
              settings: AccountingSettings = MICS) -> tuple[str, int, int]:
    """A fill requested at the table by its supervisor (as the table's screen does)."""
    demo.settings = settings
    e = accounting_event(demo.desk(table).request("fill", chips, demo.who("sue", table),
                                                  note="tray low"), SlipRequested)
    return table, e.year, e.request


def cage_records(demo: Demo, table: str = "T1", *kinds: str) -> list[Any]:
    """The table's accounting records, read back from its chain."""
    return [r for r in demo.journal.records(table, kinds=list(KINDS))
            if not kinds or r.kind in kinds]


def after_request(demo: Demo, table: str = "T1") -> list[str]:
    """The kinds of the table's accounting records after its request."""
    return [r.kind for r in cage_records(demo, table)
            if r.kind not in ("tray.open", "slip.request")]


def touch_request(qtbot: Any, w: CageWindow, key: tuple[str, int, int]) -> None:
    """Touch the request's row in the list: its sheet opens."""
    w.refresh_now()
    row = w.row_of(key)
    assert row >= 0, f"{key} is not listed"
    item = w.table.item(row, 0)
    w.table.scrollToItem(item)
    qtbot.mouseClick(w.table.viewport(), Qt.MouseButton.LeftButton,
                     pos=w.table.visualItemRect(item).center())
    qtbot.waitUntil(lambda: current_sheet(w) is not None, timeout=5000)


def sign(qtbot: Any, w: CageWindow, name: str, pin: str = PIN) -> None:
    """The signer touches their name, then types their PIN on the pad."""
    tap_button(qtbot, w, name)
    tap_digits(qtbot, w, pin)
    tap_button(qtbot, w, "Done")


def count_out(qtbot: Any, w: CageWindow, counts: dict[int, str]) -> None:
    """The cashier types each count on the keypad of its field."""
    for denom, text in counts.items():
        tap(qtbot, w.issue_form.fields[denom])
        tap_digits(qtbot, w, text)
        tap_button(qtbot, w, "Done")


def issue_by_touch(qtbot: Any, w: CageWindow, key: tuple[str, int, int],
                   counts: dict[int, str] = FILL, cashier: str = "Cass Cashier") -> None:
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Issue the slip…")
    assert w.stack.currentWidget() is w.issue_form
    count_out(qtbot, w, counts)
    tap_button(qtbot, w, "Issue the slip")
    sign(qtbot, w, cashier)


def void_by_touch(qtbot: Any, w: CageWindow, key: tuple[str, int, int], reason: str,
                  signers: list[tuple[str, str]]) -> None:
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Void…")
    give_reason(qtbot, w, reason)
    for name, pin in signers:
        sign(qtbot, w, name, pin)


def no_sheet(qtbot: Any, w: CageWindow) -> None:
    qtbot.waitUntil(lambda: current_sheet(w) is None, timeout=5000)


# -- the cage cashier, security, the table ------------------------------------------------------

def test_the_cashier_issues_security_carries_and_the_receipt_shows(
        qtbot: Any, demo: Demo, tmp_path: Path) -> None:
    key = requested(demo)
    w = screen(qtbot, demo, tmp_path)
    assert w.requests[key].state == "requested"
    issue_by_touch(qtbot, w, key)
    (issued,) = cage_records(demo, "T1", "slip.issue")
    assert issued.actor == "cas/cage"
    assert issued.payload["signers"] == ["cas/cage"]
    assert issued.payload["chips"] == {"2500": 20, "10000": 5}
    assert issued.payload["total"] == 100000 and issued.payload["request"] == key[2]
    assert w.stack.currentWidget() is w.main
    assert ("Fill slip T1-F-2026-00001 issued against T1-R-2026-00001 for table T1: "
            "1,000.00 USD, signed by Cass Cashier.") in w.message.text()
    # The slip is offered for printing: saved as a PDF (no printer here), read back.
    tap_button(qtbot, w, "Print the slip")
    (pdf,) = (tmp_path / "slips").glob("*.pdf")
    assert pdf.name == "fill-T1-2026-00001.pdf"
    assert "saved as" in w.message.text()
    from pypdf import PdfReader

    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "T1-F-2026-00001" in text and "T1-R-2026-00001" in text
    assert w.requests[key].state == "issued"
    # The runner: only security officers are offered; Sid signs.
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Runner takes it…")
    qtbot.waitUntil(lambda: find_button(w, "Sid Security") is not None, timeout=5000)
    assert find_button(w, "Cass Cashier") is None and find_button(w, "Dee Dealer") is None
    assert find_button(w, "Sia Security") is not None
    sign(qtbot, w, "Sid Security")
    (carried,) = cage_records(demo, "T1", "slip.carry")
    assert carried.actor == "sid/security" and carried.payload["signers"] == ["sid/security"]
    assert "in transit to table T1, carried by Sid Security" in w.message.text()
    assert w.requests[key].state == "in transit"
    row = w.row_of(key)
    assert w.table.item(row, 6).text() == "In transit"
    # The table signs on receipt at its own screen; the cage's list shows it at its reading.
    desk = demo.desk("T1")
    desk.receive(key[1], key[2], WANT, [demo.who("dee"), demo.who("sue")])
    w.refresh_now()
    row = w.row_of(key)
    assert w.table.item(row, 6).text() == "Received at the table"
    heading = max(i for i in range(row) if w.row_keys[i] is None)
    assert w.table.item(heading, 0).text().startswith("Today (2026-03-02) · Received")
    (slip,) = cage_records(demo, "T1", "fill")
    assert slip.payload["signers"] == ["cas/cage", "sid/security", "dee/dealer",
                                       "sue/supervisor"]
    assert demo.journal.verify_table("T1").ok


@pytest.mark.parametrize("step", ["requested", "issued", "in transit"])
def test_a_void_at_each_step_takes_a_reason_and_two_signers(
        qtbot: Any, demo: Demo, tmp_path: Path, step: str) -> None:
    key = requested(demo)
    w = screen(qtbot, demo, tmp_path)
    if step != "requested":
        issue_by_touch(qtbot, w, key)
        tap_button(qtbot, w, "Not now")
    if step == "in transit":
        touch_request(qtbot, w, key)
        tap_button(qtbot, w, "Runner takes it…")
        sign(qtbot, w, "Sid Security")
    assert w.requests[key].state == step
    void_by_touch(qtbot, w, key, "wrong count", VOIDERS)
    (void,) = cage_records(demo, "T1", "request.void")
    assert void.payload["signers"] == ["sam/supervisor", "cas/cage"]
    assert void.payload["reason"] == "wrong count"
    assert void.payload["state"] == step
    assert "T1-R-2026-00001 (fill for table T1) voided by Sam Floorman and Cass Cashier: " \
           "wrong count." in w.message.text()
    w.refresh_now()
    row = w.row_of(key)
    assert w.table.item(row, 6).text() == "Voided"
    # Voided, the request's sheet offers no step any more (only its slip, once issued).
    touch_request(qtbot, w, key)
    assert find_button(w, "Void…") is None and find_button(w, "Issue the slip…") is None
    assert (find_button(w, "Print the slip") is not None) == (step != "requested")
    tap_button(qtbot, w, "Close")


# -- refusals -----------------------------------------------------------------------------------

def test_counts_that_differ_from_the_request_are_refused_and_nothing_is_journaled(
        qtbot: Any, demo: Demo, tmp_path: Path) -> None:
    key = requested(demo)
    w = screen(qtbot, demo, tmp_path)
    issue_by_touch(qtbot, w, key, {2500: "19", 10000: "5"})
    no_sheet(qtbot, w)
    said = w.message.text()
    assert said.startswith("Not issued: issuing the slip for T1-R-2026-00001"), said
    assert "the chips differ from the request" in said
    # Each denomination that differs, said once (the desk's words), the others not at all.
    assert said.count("25.00 USD chips: 19 here, 20 on the request") == 1
    assert "100.00 USD chips" not in said
    assert after_request(demo) == []
    # The form stays, the counts beside the request's: the 25.00 count is marked wrong.
    assert w.stack.currentWidget() is w.issue_form
    assert w.issue_form.wanted[2500].text() == "≠ 20"
    assert w.issue_form.wanted[10000].text() == "✓ 5"
    # No chips counted at all: refused before anyone signs.
    w.issue_form.clear()
    tap_button(qtbot, w, "Issue the slip")
    assert "no chips counted out yet" in w.message.text()
    assert current_sheet(w) is None
    assert after_request(demo) == []


def test_only_cashiers_are_offered_and_one_whose_role_changed_or_was_deactivated_is_refused(
        qtbot: Any, demo: Demo, tmp_path: Path) -> None:
    key = requested(demo)
    w = screen(qtbot, demo, tmp_path)
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Issue the slip…")
    count_out(qtbot, w, FILL)
    tap_button(qtbot, w, "Issue the slip")
    qtbot.waitUntil(lambda: find_button(w, "Cass Cashier") is not None, timeout=5000)
    assert find_button(w, "Cal Cashier") is not None
    for other in ("Dee Dealer", "Sue Supervisor", "Sid Security", "Olga Operator"):
        assert find_button(w, other) is None, f"{other} offered to sign as the cashier"
    # While the names are shown, the office makes Cal a dealer: Cal is refused by the desk.
    op = demo.who("op")
    demo.users.set_role("cal", "dealer", actor=op, reason="moved to the pit")
    sign(qtbot, w, "Cal Cashier")
    no_sheet(qtbot, w)
    assert "(cal) is a dealer; this signature is for a cage cashier" in w.message.text()
    assert after_request(demo) == []
    # Cass is deactivated while the names are shown: the sign-in refuses her.
    tap_button(qtbot, w, "Issue the slip")
    qtbot.waitUntil(lambda: find_button(w, "Cass Cashier") is not None, timeout=5000)
    demo.users.deactivate("cas", actor=op, reason="left the casino")
    sign(qtbot, w, "Cass Cashier")
    no_sheet(qtbot, w)
    assert w.message.text() == "Not issued: user 'cas' has been deactivated"
    assert after_request(demo) == []
    # And a wrong PIN is refused in words.
    demo.users.set_role("cal", "cage", actor=op, reason="back at the cage")
    tap_button(qtbot, w, "Issue the slip")
    sign(qtbot, w, "Cal Cashier", "9999")
    no_sheet(qtbot, w)
    assert w.message.text().startswith("Not issued: wrong PIN for cal")
    assert after_request(demo) == []


def test_the_cashier_who_issued_cannot_also_carry(qtbot: Any, demo: Demo,
                                                  tmp_path: Path) -> None:
    """Where the jurisdiction lets a cage cashier run the chips, the one who issued the slip
    still may not: the desk refuses, the screen says why, nothing is journaled."""
    cashier_runs = replace(MICS, cage=CageSettings(runner=("cage",)))
    key = requested(demo, settings=cashier_runs)
    w = screen(qtbot, demo, tmp_path, cashier_runs)
    issue_by_touch(qtbot, w, key)
    tap_button(qtbot, w, "Not now")
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Runner takes it…")
    sign(qtbot, w, "Cass Cashier")
    no_sheet(qtbot, w)
    said = w.message.text()
    assert said.startswith("Not carried: carrying T1-R-2026-00001"), said
    assert "already signed T1-F-2026-00001; one person signs once" in said
    assert after_request(demo) == ["slip.issue"]
    # Another cashier carries it.
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Runner takes it…")
    sign(qtbot, w, "Cal Cashier")
    assert after_request(demo) == ["slip.issue", "slip.carry"]


def test_one_person_cannot_sign_a_void_twice(qtbot: Any, demo: Demo, tmp_path: Path) -> None:
    """Where a void takes two cage cashiers, the second signature's names leave out the
    first signer; with no other cashier, the sheet says so and nothing can be voided.
    Nothing is journaled, not even a sign-in."""
    two_cashiers = replace(MICS, cage=CageSettings(void=("cage", "cage")))
    key = requested(demo, settings=two_cashiers)
    other = requested(demo, settings=two_cashiers)
    w = screen(qtbot, demo, tmp_path, two_cashiers)
    before = len(list(demo.journal.records("T1")))
    touch_request(qtbot, w, key)
    tap_button(qtbot, w, "Void…")
    give_reason(qtbot, w, "wrong slip")
    sign(qtbot, w, "Cass Cashier")
    qtbot.waitUntil(lambda: find_button(w, "Cal Cashier") is not None, timeout=5000)
    assert find_button(w, "Cass Cashier") is None
    tap_button(qtbot, w, "Cancel")
    no_sheet(qtbot, w)
    assert len(list(demo.journal.records("T1"))) == before
    # Two different cashiers void it.
    void_by_touch(qtbot, w, key, "wrong slip", [("Cass Cashier", PIN), ("Cal Cashier", PIN)])
    (void,) = cage_records(demo, "T1", "request.void")
    assert void.payload["signers"] == ["cas/cage", "cal/cage"]
    # Cal gone, Cass alone may not void the other request.
    demo.users.deactivate("cal", actor=demo.who("op"), reason="left the casino")
    before = len(list(demo.journal.records("T1")))
    touch_request(qtbot, w, other)
    tap_button(qtbot, w, "Void…")
    give_reason(qtbot, w, "wrong slip")
    sign(qtbot, w, "Cass Cashier")
    qtbot.waitUntil(lambda: find_button(w, "Cancel") is not None, timeout=5000)
    sheet = current_sheet(w)
    assert isinstance(sheet, ChoiceSheet) and "(2 of 2)" in sheet.title.text()
    assert "No other active cage cashier" in sheet.empty.text()
    assert find_button(w, "Cass Cashier") is None
    tap_button(qtbot, w, "Cancel")
    assert len(list(demo.journal.records("T1"))) == before
    assert w.requests[other].state == "requested"


# -- the list -----------------------------------------------------------------------------------

def test_an_overdue_request_is_on_top_in_the_alert_colour_with_its_wait(
        qtbot: Any, demo: Demo, tmp_path: Path) -> None:
    demo.clock.at(1)
    late = requested(demo, "T1")
    demo.clock.at(10)
    soon = requested(demo, "T2", Chips.of({500: 40}))
    demo.clock.at(20)
    w = screen(qtbot, demo, tmp_path)
    assert w.row_keys[:2] == [None, late]
    assert w.table.item(0, 0).text() == "Overdue · waiting over 15 min (1)"
    row = w.row_of(late)
    assert w.table.item(row, 7).text() == "19 min late"
    assert w.table.item(row, 0).foreground().color() == QColor(ALERT)
    assert w.alert.isVisible() and w.alert.text() == "⚠ 1 overdue"
    other = w.row_of(soon)
    assert other > row and w.table.item(other, 7).text() == "10 min"
    assert w.table.item(other, 0).foreground().color() != QColor(ALERT)
    assert w.table.item(other, 4).text() == "40\u00a0×\u00a05.00"
    assert w.table.item(other, 5).text() == "Sue Supervisor 14:10"
    # Its sheet says how long it has waited, in the alert colour.
    touch_request(qtbot, w, late)
    sheet = current_sheet(w)
    assert sheet is not None
    assert "waiting 19 min, over the 15 min allowed" in sheet.note.text()
    assert ALERT in sheet.note.text()
    tap_button(qtbot, w, "Close")


def test_the_list_is_read_in_a_thread_of_its_own(qtbot: Any, demo: Demo,
                                                  tmp_path: Path) -> None:
    w = screen(qtbot, demo, tmp_path)
    assert w.row_keys.count(None) == len(w.row_keys)          # headings only
    key = requested(demo, "T2")                                 # made at the table meanwhile
    with qtbot.waitSignal(w.reader.ready, timeout=10_000):
        w.reader.start()
    assert w.row_of(key) >= 0
    assert w.table.item(w.row_of(key), 1).text() == "T2"


def test_the_screen_at_1280x800_with_seven_tables_and_the_issue_keypad(
        qtbot: Any, tmp_path: Path) -> None:
    demo = new_demo(tmp_path)
    try:
        busy_day(demo)
        w = screen(qtbot, demo, tmp_path)
        states = {r.state for r in w.requests.values()}
        assert states == {"requested", "issued", "in transit", "received", "voided"}
        assert len({r.table for r in w.requests.values()}) == 7
        assert w.alert.text() == "⚠ 2 overdue"
        assert w.table.item(0, 0).text().startswith("Overdue")
        # Every column in sight, none cut by the window's edge.
        header = w.table.horizontalHeader()
        assert header.length() <= w.table.viewport().width()
        w.grab().save(str(tmp_path / "cage-requests.png"))
        key = next(k for k in w.row_keys if k is not None and k[0] == "T1")
        touch_request(qtbot, w, key)
        tap_button(qtbot, w, "Issue the slip…")
        tap(qtbot, w.issue_form.fields[2500])
        tap_digits(qtbot, w, "20")
        tap_button(qtbot, w, "Next: How many 100.00 chips? ›")
        sheet = current_sheet(w)
        assert sheet is not None and "How many 100.00 chips?" in sheet.title.text()
        # The request's count beside the field typed into stays in sight beside the keypad.
        wanted = w.issue_form.wanted[10000]
        left_of_pad = wanted.mapTo(w, wanted.rect().topRight()).x()
        assert left_of_pad < sheet.panel.geometry().left()
        w.grab().save(str(tmp_path / "cage-issue-keypad.png"))
        assert (tmp_path / "cage-requests.png").stat().st_size > 10_000
    finally:
        demo.db.close()


def test_the_screen_starts_from_the_command_lines_arguments(qtbot: Any, tmp_path: Path
                                                            ) -> None:
    """``dealer-station cage screen``'s arguments open the journal and the screen (here for
    a moment); a bad one is refused in words; ``--screenshots`` writes the screen's PNGs."""
    import argparse

    from dealer_station.errors import StationError
    from dealer_station.ui.cage_window import run_screen

    demo = new_demo(tmp_path)
    busy_day(demo)
    demo.db.close()
    args = argparse.Namespace(db=f"sqlite:///{tmp_path / 'journal.db'}",
                              key=str(tmp_path / "journal.key"), accounting_config=None,
                              station_config=None, fullscreen=False, tables="T1,T2",
                              exit_after=0.2)
    assert run_screen(args) == 0
    with pytest.raises(StationError, match="--tables: give at least one table"):
        run_screen(replace_args(args, tables=" , "))
    with pytest.raises(StationError, match="no journal database"):
        run_screen(replace_args(args, db=f"sqlite:///{tmp_path / 'none.db'}"))
    from dealer_station.cli.main import main

    assert main(["cage", "screen", "--screenshots", str(tmp_path / "shots")]) == 0
    assert sorted(p.name for p in (tmp_path / "shots").glob("*.png")) == [
        "cage-issue-keypad.png", "cage-request-sheet.png", "cage-requests.png"]


def replace_args(args: Any, **changes: Any) -> Any:
    import argparse

    return argparse.Namespace(**(vars(args) | changes))
