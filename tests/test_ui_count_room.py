"""The count room's screen (ui/count_room_window.py) on real widgets, driven by touch:

- the count team signs in on the station's PIN pad, each member tapping their name; the team
  shows at the top; Start the count needs two; Sign out signs every member out (journaled);
- refused at the sign-in, nobody added: the same person twice, a user who is not an
  accounting user (typed by user id on the on-screen keyboard, signed straight out again), a
  wrong PIN;
- a box counted by note on the keypads, the markers apart, verified by every member of the
  team by PIN: ``drop.count`` with the notes by denomination, the markers and their number,
  and every member's signature; a shift's box, and a card room table's rake box;
- refused with nothing journaled: a wrong PIN at the verification, markers without their
  number, a member who is no longer an accounting user;
- a disposition of each kind (explained, adjusted minus and plus, referred), each signed by
  two accounting users by name and PIN; an adjusted one without its amount refused;
- the screen at 1280x800 with several boxes and variances, the count form with the keypad
  open and the disposition form, grabbed to PNG.

The journal is made by hand (``ui/count_room_demo``: the tables' trays as their screens
record them, on a demo clock), but for the screenshots' demo, which simulates whole gaming
days and a card room's hands.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pikepdf
import pytest
from pypdf import PdfReader
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QTableWidget
from touch_support import KeyWatch, find_button, tap, tap_button, tap_digits, tap_keys

from dealer_station.accounting.chips import Chips
from dealer_station.app import fast_hasher
from dealer_station.events.accounting import RAKE_BOX
from dealer_station.ui import theme
from dealer_station.ui.count_room_demo import (
    DAY1,
    DAY2,
    PIN,
    Demo,
    card_room_hands,
    count_room_screenshots,
    hand_day,
    new_demo,
)
from dealer_station.ui.count_room_rows import NEEDS, Box
from dealer_station.ui.count_room_team import ON_TEAM
from dealer_station.ui.count_room_window import ALERT, CountRoomWindow
from dealer_station.ui.touch_sheet import current_sheet

NOTES = {10000: "14", 2000: "31", 500: "9"}
NOTES_TOTAL = 14 * 10000 + 31 * 2000 + 9 * 500


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    """T1 changed its boxes at the shift changes of 2026-03-02; T2 closed that day; it is
    the next morning."""
    d = new_demo(tmp_path)
    hand_day(d, "T1", DAY2, shift_counts=True)
    hand_day(d, "T2", DAY2)
    d.clock.at(DAY2 + timedelta(days=1), 8, 30)
    yield d
    d.db.close()


def screen(qtbot: Any, demo: Demo) -> CountRoomWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = CountRoomWindow(demo.journal, demo.settings, demo.calendar, hasher=fast_hasher(),
                        sheets_dir=demo.folder / "sheets", auto_refresh=False)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def join(qtbot: Any, w: CountRoomWindow, name: str, pin: str = PIN) -> None:
    """A member taps their name on the sign-in, types their PIN on its pad, Sign in."""
    user_id = next(u.user_id for u in w.users.list() if u.name == name)
    tap(qtbot, w.sign_in.name_buttons[user_id])
    tap_digits(qtbot, w, pin)
    tap_button(qtbot, w, "Sign in")


def signed_in_team(qtbot: Any, demo: Demo, *names: str) -> CountRoomWindow:
    w = screen(qtbot, demo)
    for name in names or ("Amy Accounts", "Ben Accounts"):
        join(qtbot, w, name)
    tap(qtbot, w.sign_in.start_button)
    assert w.stack.currentWidget() is w.main
    return w


def records(demo: Demo, table: str, kind: str) -> list[Any]:
    return list(demo.journal.records(table, kinds=[kind]))


def station_kinds(demo: Demo) -> list[tuple[str, str]]:
    return [(r.kind, r.actor) for r in demo.journal.records("station")
            if r.kind in ("login", "logout", "login.failed")]


def touch_row(qtbot: Any, table: QTableWidget, row: int) -> None:
    """Touch a row of a list (nothing covers it: no sheet is open)."""
    assert current_sheet(table) is None
    item = table.item(row, 0)
    table.scrollToItem(item)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualItemRect(item).center())


def box_row(w: CountRoomWindow, table: str, shift: str | None = None,
            box: str | None = None) -> int:
    for i, b in enumerate(w.boxes):
        if (b.table, b.shift, b.box) == (table, shift, box):
            return i
    raise AssertionError(f"no box of {table} {shift} {box} listed: {w.boxes}")


def type_count(qtbot: Any, w: CountRoomWindow, notes: dict[int, str], markers: str = "",
               marker_total: str = "") -> None:
    """The counter types each count on the keypad of its field."""
    form = w.count_form
    for denom, text in notes.items():
        tap(qtbot, form.fields[denom])
        tap_digits(qtbot, w, text)
        tap_button(qtbot, w, "Done")
    for field, text in ((form.marker_count, markers), (form.marker_total, marker_total)):
        if text:
            tap(qtbot, field)
            for ch in text:
                tap_button(qtbot, w, f"Key {ch}") if ch == "." else tap_digits(qtbot, w, ch)
            tap_button(qtbot, w, "Done")


def verify_by_pins(qtbot: Any, w: CountRoomWindow, pins: list[str], *,
                   then: str = "Not now") -> str:
    """Record the count…, then each member's PIN on its sheet; once counted, the count
    sheet is offered: ``then`` answers ("Print the count sheet" or "Not now"). What the
    screen said of the count."""
    tap_button(qtbot, w, "Record the count…")
    for pin in pins:
        qtbot.waitUntil(lambda: current_sheet(w) is not None, timeout=5000)
        tap_digits(qtbot, w, pin)
        tap_button(qtbot, w, "Done")
    said = w.message.text()
    if said.startswith("Counted:"):
        tap_button(qtbot, w, then)
        assert current_sheet(w) is None
    return said


# -- the team ----------------------------------------------------------------------------------

def test_the_team_signs_in_shows_at_the_top_and_signs_out(qtbot: Any, demo: Demo) -> None:
    w = screen(qtbot, demo)
    assert w.stack.currentWidget() is w.sign_in
    assert "nobody signed in yet" in w.team_label.text()
    # Only the accounting users are offered.
    offered = {b.accessibleName() for b in w.sign_in.name_buttons.values()}
    assert "Amy Accounts (amy)" in offered and "Ava Auditor (ava)" in offered
    assert not any(n.startswith(("Sue", "Dee", "Olga", "Cass")) for n in offered)
    join(qtbot, w, "Amy Accounts")
    assert [u.user_id for u in w.team] == ["amy"]
    assert ON_TEAM in w.sign_in.name_buttons["amy"].text()
    # One person is no count team.
    tap(qtbot, w.sign_in.start_button)
    assert w.stack.currentWidget() is w.sign_in
    assert ("The count team is 2 to 6 accounting users: 1 signed in (Amy Accounts)"
            in w.sign_in.message.text())
    join(qtbot, w, "Ben Accounts")
    join(qtbot, w, "Ava Auditor")
    tap(qtbot, w.sign_in.start_button)
    assert w.stack.currentWidget() is w.main
    assert "Amy Accounts" in w.team_label.text() and "Ava Auditor" in w.team_label.text()
    logins = [a for k, a in station_kinds(demo) if k == "login"]
    assert logins[-3:] == ["amy/accounting", "ben/accounting", "ava/accounting"]
    # The boxes of the next morning: T1's per shift, T2's whole day.
    assert [(b.table, b.shift) for b in w.boxes] == [("T1", "Day"), ("T1", "Swing"),
                                                     ("T1", "Graveyard"), ("T2", None)]
    assert w.box_list.item(0, 2).text() == "Drop box · Day shift"
    assert w.box_list.item(0, 3).text() == "Shift count 13:58"
    assert w.box_list.item(3, 3).text() == "Closer 05:40"
    tap_button(qtbot, w, "Sign the count team out")
    assert w.stack.currentWidget() is w.sign_in and w.team == []
    assert "nobody signed in yet" in w.team_label.text()
    logouts = [a for k, a in station_kinds(demo) if k == "logout"]
    assert logouts[-3:] == ["amy/accounting", "ben/accounting", "ava/accounting"]
    assert ON_TEAM not in w.sign_in.name_buttons["amy"].text()


def test_the_sign_in_refuses_the_same_person_twice_a_non_accounting_user_and_a_wrong_pin(
        qtbot: Any, demo: Demo) -> None:
    w = screen(qtbot, demo)
    join(qtbot, w, "Amy Accounts")
    join(qtbot, w, "Amy Accounts")
    assert ("Not signed in: Amy Accounts is already on the count team: each member signs in "
            "once." in w.sign_in.message.text())
    # A supervisor typed by user id on the on-screen keyboard: her PIN is right, she is
    # signed straight out again, and she is not on the team.
    tap(qtbot, w.sign_in.user_edit)
    tap_keys(qtbot, w, "sue")
    tap_button(qtbot, w, "Done")
    tap_digits(qtbot, w, PIN)
    tap_button(qtbot, w, "Sign in")
    assert ("Not signed in: Sue Supervisor is a supervisor: the count team is accounting "
            "users." in w.sign_in.message.text())
    assert station_kinds(demo)[-2:] == [("login", "sue/supervisor"),
                                        ("logout", "sue/supervisor")]
    join(qtbot, w, "Ben Accounts", "1111")
    assert "Wrong PIN: 4 attempts left before a 15-minute lockout." in \
        w.sign_in.message.text()
    assert station_kinds(demo)[-1][0] == "login.failed"
    assert [u.user_id for u in w.team] == ["amy"]
    tap(qtbot, w.sign_in.start_button)
    assert w.stack.currentWidget() is w.sign_in
    for table in ("T1", "T2"):
        assert records(demo, table, "drop.count") == []


# -- counting a box ----------------------------------------------------------------------------

def test_a_box_is_counted_by_note_with_the_markers_apart_and_every_signature(
        qtbot: Any, demo: Demo) -> None:
    keys = KeyWatch().install()
    w = signed_in_team(qtbot, demo, "Amy Accounts", "Ben Accounts", "Ava Auditor")
    touch_row(qtbot, w.box_list, box_row(w, "T2"))
    assert w.stack.currentWidget() is w.count_form
    assert w.count_form.title.text() == "Count · table T2 · gaming day 2026-03-02 · Drop box"
    type_count(qtbot, w, NOTES, markers="3", marker_total="1500.50")
    form = w.count_form
    assert form.values[10000].text() == "1,400.00 USD"
    assert "Cash 2,065.00 USD</b> in 54 notes" in form.cash.text()
    assert "Box total 3,565.50 USD" in form.total.text()
    said = verify_by_pins(qtbot, w, [PIN, PIN, PIN], then="Print the count sheet")
    assert said == ("Counted: table T2's drop box of gaming day 2026-03-02: cash 2,065.00 USD "
                    "in 54 notes, markers 1,500.50 USD (3), total 3,565.50 USD; verified by "
                    "Amy Accounts, Ben Accounts and Ava Auditor.")
    (r,) = records(demo, "T2", "drop.count")
    p = r.payload
    assert p["currency"] == {"500": 9, "2000": 31, "10000": 14}
    assert (p["cash"], p["markers"], p["marker_count"], p["total"]) == (
        NOTES_TOTAL, 150050, 3, NOTES_TOTAL + 150050)
    assert p["signers"] == ["amy/accounting", "ben/accounting", "ava/accounting"]
    assert p["gaming_day"] == "2026-03-02" and p.get("shift") is None
    assert r.actor == "amy/accounting+ben/accounting+ava/accounting"
    # Each member's PIN was checked as a sign-in at the box's table.
    assert [x.actor for x in records(demo, "T2", "login")][-3:] == [
        "amy/accounting", "ben/accounting", "ava/accounting"]
    assert w.stack.currentWidget() is w.main
    # The count sheet, printed (saved as a PDF: no printer here) and read back.
    (pdf,) = (demo.folder / "sheets").glob("*.pdf")
    assert pdf.name == "T2-CNT-2026-00001.pdf"
    assert f"Count sheet T2-CNT-2026-00001 saved as {pdf}." in w.message.text()
    text = " ".join(" ".join(page.extract_text() for page in PdfReader(pdf).pages).split())
    for said in ("Count sheet T2-CNT-2026-00001", "Gaming day 2026-03-02",
                 "Shift the whole gaming day", "Box Drop box", "100.00 14 1,400.00",
                 "20.00 31 620.00", "5.00 9 45.00", "Cash 54 2,065.00", "Markers 3 1,500.50",
                 "Drop 3,565.50", "Amy Accounts (amy)", "Ben Accounts (ben)",
                 "Ava Auditor (ava)", "Journal verified: intact"):
        assert said in text, said
    # PDF/A like the other slips: embedded fonts, its XMP, the count's record attached.
    with pikepdf.open(pdf) as doc:
        meta = doc.open_metadata()
        assert (meta["pdfaid:part"], meta["pdfaid:conformance"]) == ("3", "B")
        (attached,) = (json.loads(line) for line in doc.attachments[
            "journal-records.jsonl"].get_file().read_bytes().decode().splitlines())
    assert (attached["seq"], attached["hash"], attached["kind"]) == (r.seq, r.hash,
                                                                     "drop.count")
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts and all(line.split()[-5] == "yes" for line in fonts), fonts
    w.refresh_now()
    assert all(b.table != "T2" for b in w.boxes)
    # No game, no computed win: the whole statistical win is a variance, listed at once.
    assert w.variances[0].key == ("T2", "2026-03-02") and w.variances[0].needs
    assert w.variance_list.item(0, 3).text() == NEEDS
    assert w.variance_list.item(0, 3).foreground().color().name() == ALERT
    assert demo.journal.verify_table("T2").ok
    keys.remove()
    assert keys.count == 0, keys.seen         # signed in, counted and printed by touch alone


def test_a_shift_box_or_the_whole_day_and_a_card_room_tables_rake_box(
        qtbot: Any, demo: Demo) -> None:
    demo.clock.at(DAY2, 15, 0)
    card_room_hands(demo, "C1", 1, seed=3)
    demo.clock.at(DAY2 + timedelta(days=1), 8, 30)
    w = signed_in_team(qtbot, demo)
    rake = box_row(w, "C1", box=RAKE_BOX)
    assert w.box_list.item(rake, 0).text() == "C1\nBourré"
    assert w.box_list.item(rake, 2).text() == "Rake box"
    touch_row(qtbot, w.box_list, rake)
    assert not w.count_form.markers_panel.isVisible()      # no markers in a rake box
    type_count(qtbot, w, {500: "30"})
    verify_by_pins(qtbot, w, [PIN, PIN])
    (r,) = records(demo, "C1", "drop.count")
    assert r.payload["box"] == "rake" and r.payload["currency"] == {"500": 30}
    assert not any(b.box == RAKE_BOX for b in w.boxes)
    # T1's Day shift box alone.
    touch_row(qtbot, w.box_list, box_row(w, "T1", "Day"))
    assert w.count_form.whole_day_button.isVisible()
    type_count(qtbot, w, {2000: "10"})
    verify_by_pins(qtbot, w, [PIN, PIN])
    (day,) = records(demo, "T1", "drop.count")
    assert day.payload["shift"] == "Day" and day.payload["cash"] == 20000
    assert [b.shift for b in w.boxes if b.table == "T1"] == ["Swing", "Graveyard"]
    # Once a shift's box is counted the day is counted by shift: no whole-day box now.
    touch_row(qtbot, w.box_list, box_row(w, "T1", "Swing"))
    assert not w.count_form.whole_day_button.isVisible()


def test_the_whole_day_instead_of_the_shifts_boxes(qtbot: Any, demo: Demo) -> None:
    w = signed_in_team(qtbot, demo)
    touch_row(qtbot, w.box_list, box_row(w, "T1", "Swing"))
    tap_button(qtbot, w, "One box for the whole day")
    assert w.count_form.box == Box("T1", DAY2, None, None, "", "Shift count 21:58")
    assert "Swing" not in w.count_form.title.text()
    type_count(qtbot, w, {10000: "5"})
    verify_by_pins(qtbot, w, [PIN, PIN])
    (r,) = records(demo, "T1", "drop.count")
    assert r.payload.get("shift") is None and r.payload["cash"] == 50000
    assert all(b.table != "T1" for b in w.boxes)


def test_a_count_refused_journals_nothing(qtbot: Any, demo: Demo) -> None:
    w = signed_in_team(qtbot, demo)
    touch_row(qtbot, w.box_list, box_row(w, "T2"))
    # Markers without how many: refused before anyone types a PIN.
    type_count(qtbot, w, NOTES, marker_total="200")
    tap_button(qtbot, w, "Record the count…")
    assert current_sheet(w) is None
    assert ("Not counted: 0 markers cannot total 200.00 USD: give both how many markers or "
            "counter checks there are and their total.") in w.message.text()
    # A wrong PIN at the verification: nothing counted, whose PIN it was said.
    tap(qtbot, w.count_form.clear_button)
    type_count(qtbot, w, NOTES)
    verify_by_pins(qtbot, w, [PIN, "9999"])
    assert "Not counted: wrong PIN for Ben Accounts (4 attempts left" in w.message.text()
    assert w.stack.currentWidget() is w.count_form
    # A member who is no longer an accounting user: the count room's core refuses.
    demo.users.set_role("ben", "supervisor", actor=demo.who("op"), reason="moved to the pit")
    verify_by_pins(qtbot, w, [PIN, PIN])
    assert "Not counted:" in w.message.text()
    assert "(ben) is a supervisor" in w.message.text()
    assert records(demo, "T2", "drop.count") == []
    assert any(b.table == "T2" for b in w.boxes)


# -- dispositions ------------------------------------------------------------------------------

@pytest.fixture
def variances(demo: Demo) -> Demo:
    """Three tables' gaming day 2026-03-01 counted (no rounds: the whole win is a variance)."""
    for table in ("T3", "T4", "T5"):
        hand_day(demo, table, DAY1)
    demo.clock.at(DAY2, 9, 0)
    for table, notes in (("T3", {2000: 10}), ("T4", {10000: 2}), ("T5", {5000: 3})):
        demo.room(table).count(DAY1, Chips.of(notes), 0, 0,
                               [demo.who("amy", table), demo.who("ben", table)])
    demo.clock.at(DAY2 + timedelta(days=1), 8, 30)
    return demo


def dispose_by_touch(qtbot: Any, w: CountRoomWindow, table: str, choice: str, why: str,
                     signers: tuple[str, str] = ("Amy Accounts", "Ava Auditor"), *,
                     sign: str = "", amount: str = "") -> None:
    touch_row(qtbot, w.variance_list, w.row_of_variance(table, DAY1.isoformat()))
    assert w.stack.currentWidget() is w.dispose_form
    tap_button(qtbot, w, choice)
    if sign:
        tap_button(qtbot, w, sign)
    if amount:
        tap(qtbot, w.dispose_form.amount)
        tap_digits(qtbot, w, amount)
        tap_button(qtbot, w, "Done")
    tap(qtbot, w.dispose_form.note)
    tap_keys(qtbot, w, why)
    tap_button(qtbot, w, "Done")
    tap_button(qtbot, w, "Sign the disposition…")
    for name in signers:
        tap_button(qtbot, w, name)
        tap_digits(qtbot, w, PIN)
        tap_button(qtbot, w, "Done")


def test_a_disposition_of_each_kind_signed_by_two(qtbot: Any, variances: Demo) -> None:
    demo = variances
    keys = KeyWatch().install()
    w = signed_in_team(qtbot, demo)
    assert [(v.table, v.variance) for v in w.variances if v.gaming_day == DAY1] == [
        ("T3", 20000), ("T4", 20000), ("T5", 15000)]
    assert w.status.text().endswith("3 need a disposition</b>")
    dispose_by_touch(qtbot, w, "T3", "Explained", "dealer paid a pair twice")
    dispose_by_touch(qtbot, w, "T4", "Adjusted", "a 3.00 chip under the tray",
                     sign="− Minus", amount="3")
    dispose_by_touch(qtbot, w, "T5", "Referred", "to compliance", signers=("Ben Accounts",
                                                                            "Amy Accounts"))
    found = {t: records(demo, t, "variance.disposition") for t in ("T3", "T4", "T5")}
    (t3,), (t4,), (t5,) = found["T3"], found["T4"], found["T5"]
    assert (t3.payload["disposition"], t3.payload["note"], t3.payload["signers"]) == (
        "explained", "dealer paid a pair twice", ["amy/accounting", "ava/accounting"])
    assert t3.payload["variance"] == 20000 and t3.payload.get("adjustment") is None
    assert (t4.payload["disposition"], t4.payload["adjustment"]) == ("adjusted", -300)
    assert (t5.payload["disposition"], t5.payload["signers"]) == (
        "referred", ["ben/accounting", "amy/accounting"])
    assert ("Table T5, gaming day 2026-03-01: the variance of 150.00 USD referred, signed by "
            "Ben Accounts and Amy Accounts.") in w.message.text()
    texts = {w.variance_list.item(i, 0).text(): w.variance_list.item(i, 3).text()
             for i in range(w.variance_list.rowCount())}
    assert texts["T4"].startswith("Adjusted (entry −3.00 USD): a 3.00 chip under the tray · "
                                  "Amy Accounts and Ava Auditor")
    assert texts["T3"].startswith("Explained: dealer paid a pair twice")
    assert texts["T5"].startswith("Referred: to compliance · Ben Accounts and Amy Accounts")
    assert not any(v.needs for v in w.variances if v.gaming_day == DAY1)
    # A plus entry, as a new disposition of T3's (the newest is the one the reports print).
    dispose_by_touch(qtbot, w, "T3", "Adjusted", "recounted", sign="+ Plus", amount="12")
    assert records(demo, "T3", "variance.disposition")[-1].payload["adjustment"] == 1200
    keys.remove()
    assert keys.count == 0, keys.seen


def test_an_adjusted_variance_without_its_amount_is_refused(qtbot: Any,
                                                             variances: Demo) -> None:
    demo = variances
    w = signed_in_team(qtbot, demo)
    touch_row(qtbot, w.variance_list, w.row_of_variance("T4", DAY1.isoformat()))
    tap_button(qtbot, w, "Sign the disposition…")
    assert ("Not recorded: choose what the count room decided: Explained, Adjusted or "
            "Referred.") in w.message.text()
    tap_button(qtbot, w, "Adjusted")
    tap(qtbot, w.dispose_form.note)
    tap_keys(qtbot, w, "miscount")
    tap_button(qtbot, w, "Done")
    tap_button(qtbot, w, "Sign the disposition…")
    assert current_sheet(w) is None
    assert ("Not recorded: an adjustment needs its amount: choose minus or plus, then type "
            "the adjusting entry's amount.") in w.message.text()
    tap(qtbot, w.dispose_form.amount)
    tap_digits(qtbot, w, "5")
    tap_button(qtbot, w, "Done")
    tap_button(qtbot, w, "Sign the disposition…")
    assert "Not recorded: an adjustment needs its sign: choose minus or plus." in \
        w.message.text()
    tap_button(qtbot, w, "+ Plus")
    assert w.dispose_form.entry_words.text() == "+5.00 USD"
    # The first signer is not offered as the second.
    tap_button(qtbot, w, "Sign the disposition…")
    tap_button(qtbot, w, "Amy Accounts")
    tap_digits(qtbot, w, PIN)
    tap_button(qtbot, w, "Done")
    qtbot.waitUntil(lambda: find_button(w, "Ben Accounts") is not None, timeout=5000)
    assert find_button(w, "Amy Accounts") is None
    tap_button(qtbot, w, "Cancel")
    assert records(demo, "T4", "variance.disposition") == []


# -- looking at it -----------------------------------------------------------------------------

def test_the_screenshots(tmp_path: Path) -> None:
    shots = count_room_screenshots(tmp_path / "shots")
    assert [p.name for p in shots] == ["count-room-sign-in.png", "count-room-boxes.png",
                                       "count-room-count.png", "count-room-count-keypad.png",
                                       "count-room-disposition.png"]
    for p in shots:
        image = QImage(str(p))
        assert (image.width(), image.height()) == theme.WINDOW_SIZE


def test_the_screen_opens_from_the_command_lines_arguments(tmp_path: Path) -> None:
    import argparse

    from dealer_station.errors import StationError
    from dealer_station.ui.app import make_app
    from dealer_station.ui.count_room_window import run_screen

    demo = new_demo(tmp_path)
    hand_day(demo, "T1", DAY2)
    demo.db.close()
    args = argparse.Namespace(db=f"sqlite:///{tmp_path / 'journal.db'}",
                              key=str(tmp_path / "journal.key"), accounting_config=None,
                              station_config=None, fullscreen=False, exit_after=0.2)
    # The window closed after the event loop ended would quit the application once more,
    # outside any loop: in this test process, signals from other threads would then never
    # be delivered to a later test's screen.
    app = make_app()
    app.setQuitOnLastWindowClosed(False)
    try:
        assert run_screen(args) == 0
    finally:
        app.setQuitOnLastWindowClosed(True)
    missing = argparse.Namespace(**(vars(args) | {"db": f"sqlite:///{tmp_path / 'no.db'}"}))
    with pytest.raises(StationError, match="no journal database"):
        run_screen(missing)


def test_the_lists_are_read_in_a_thread_of_their_own(qtbot: Any, demo: Demo) -> None:
    import threading

    seen: list[str] = []
    w = CountRoomWindow(demo.journal, demo.settings, demo.calendar, hasher=fast_hasher(),
                        auto_refresh=True)
    qtbot.addWidget(w)
    read = w.reader.read
    w.reader.read = lambda: (seen.append(threading.current_thread().name), read())[1]
    qtbot.waitUntil(lambda: w.snapshot is not None, timeout=10000)
    w.reader.start()
    qtbot.waitUntil(lambda: bool(seen) and not w.reader.busy, timeout=10000)
    assert seen == ["count-room-reader"]
    assert [(b.table, b.shift) for b in w.boxes][-1] == ("T2", None)
    w.close()
