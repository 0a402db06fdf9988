"""Every supervisor action by touch alone: signing in, resuming a round after a jam is
cleared, correcting a misread card, voiding a round, unlocking a dealer, each of the Chips
tab's counts and slips with the dealer's PIN (and the closer's confirmation), and the pit's
acknowledgement of an alert.

Each test watches the whole application for key events (an event filter on the QApplication
counting KeyPress and KeyRelease) and ends by asserting there were none: the station is
driven only by mouse clicks on the real widgets, where a finger would land (a covered widget
is never clicked), through the on-screen keyboard, the keypads and the reason sheets."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QTableWidget, QTabWidget, QWidget
from touch_support import (
    KeyWatch,
    find_button,
    tap,
    tap_button,
    tap_digits,
    tap_keys,
)
from ui_support import WAIT_MS, make_station, open_window, tap_spot

from dealer_station.app import Station
from dealer_station.ui.main_window import MainWindow
from tests.conftest import CONFIG_DIR


@pytest.fixture
def keys() -> Iterator[KeyWatch]:
    """Installed before anything is opened; no key event may reach the application."""
    watch = KeyWatch().install()
    yield watch
    watch.remove()


def no_keys(watch: KeyWatch) -> None:
    assert watch.count == 0, f"{watch.count} key events were sent: {watch.seen[:6]}"


def records(station: Station, *kinds: str) -> list[Any]:
    return list(station.journal.records(station.table_id, kinds=list(kinds)))


def touch_sign_in(qtbot: Any, panel: Any, user_id: str, pin: str) -> None:
    """A name in the list, the PIN on the keypad, Sign in: three kinds of touch."""
    tap(qtbot, panel.name_buttons[user_id])
    tap_digits(qtbot, panel, pin)
    tap(qtbot, panel.sign_in_button)


def tap_tab(qtbot: Any, tabs: QTabWidget, title: str) -> None:
    bar = tabs.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i) == title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    qtbot.waitUntil(lambda: tabs.currentIndex() == index, timeout=WAIT_MS)


def tap_row(qtbot: Any, table: QTableWidget, row: int) -> None:
    item = table.item(row, 0)
    assert item is not None
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualItemRect(item).center())


def sheet_shown(w: QWidget) -> bool:
    """Whether a sheet is asking something (its Cancel is the uncovered one)."""
    return find_button(w, "Cancel") is not None


# -- the round: resume, correct, void --------------------------------------------------------

@pytest.fixture
def station(tmp_path: Path) -> Iterator[Station]:
    st = make_station(tmp_path, max_failures=3)
    yield st
    st.close()


@pytest.fixture
def window(qtbot: Any, keys: KeyWatch, station: Station) -> Iterator[MainWindow]:
    w = open_window(qtbot, station)
    yield w
    w.shutdown()


def test_resume_correct_and_void_by_touch_alone(qtbot: Any, keys: KeyWatch,
                                                window: MainWindow, station: Station) -> None:
    w = window
    t: Any = station.table
    touch_sign_in(qtbot, w.login, "dealer", "1111")
    qtbot.waitUntil(lambda: w.current_screen == "dealer", timeout=WAIT_MS)
    screen: Any = w.screens["dealer"]
    station.simulator("shoe").set_order(["KH", "QS", "4C"])
    tap(qtbot, screen.seat_buttons[1])
    tap(qtbot, screen.chip_buttons[1])
    tap_spot(qtbot, screen, "straight", ("K",))
    tap(qtbot, screen.seat_buttons[2])
    tap_spot(qtbot, screen, "split", ("Q", "K"))
    qtbot.waitUntil(lambda: len(records(station, "wager.place")) == 2, timeout=WAIT_MS)
    assert w.demo is not None
    tap(qtbot, w.demo.buttons["deal"])
    qtbot.waitUntil(lambda: screen.card_views[0].card is not None, timeout=WAIT_MS)

    # The shoe jams: the dealer calls the supervisor, who signs in over the dealer by touch.
    tap(qtbot, w.demo.buttons["jam"])
    qtbot.waitUntil(lambda: t.halt is not None and w.banner.isVisible(), timeout=WAIT_MS)
    tap(qtbot, w.banner.button)
    qtbot.waitUntil(lambda: w.current_screen == "supervisor sign-in", timeout=WAIT_MS)
    touch_sign_in(qtbot, w.visit_sign_in, "super", "2222")
    qtbot.waitUntil(lambda: w.current_screen == "supervisor", timeout=WAIT_MS)
    sup: Any = w.screens["supervisor"]

    # Resume while the shoe still reports JAM: refused at once, saying why; no reason asked.
    tap(qtbot, sup.resume_button)
    assert "cannot resume yet: the shoe still reports JAM" in sup.message.text()
    assert not sheet_shown(w) and t.halt is not None
    # The jam cleared, Resume asks why: one touch on the operator's reason.
    tap(qtbot, w.demo.buttons["ready"])
    qtbot.waitUntil(lambda: w.devices_bar.text("shoe") == "READY", timeout=WAIT_MS)
    tap(qtbot, sup.resume_button)
    tap_button(qtbot, w, "shoe jam cleared")
    qtbot.waitUntil(lambda: t.halt is None, timeout=WAIT_MS)
    (resolve,) = records(station, "resolve")
    assert resolve.actor == "super/supervisor"
    assert resolve.payload["reason"] == "shoe jam cleared"
    assert "Round resumed. Recorded as Sam Supervisor: shoe jam cleared" in sup.message.text()
    # Nothing is stopped now: Resume cannot be touched; the open round can still be voided.
    assert not sup.resume_button.isEnabled() and sup.void_button.isEnabled()

    # The next card is misread: the card is entered on the picker, value then suit.
    tap(qtbot, w.demo.buttons["misread"])
    qtbot.waitUntil(lambda: t.halt is not None and t.halt.fault == "misread", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: sup.correct_button.isEnabled(), timeout=WAIT_MS)
    tap_button(qtbot, sup, "Q")
    tap_button(qtbot, sup, "Spades")
    assert sup.picker.code == "QS"
    tap(qtbot, sup.correct_button)
    tap_button(qtbot, w, "misread corrected")
    qtbot.waitUntil(lambda: t.halt is None, timeout=WAIT_MS)
    (corrected,) = records(station, "correction")
    assert corrected.payload["card"] == "QS"
    assert corrected.payload["reason"] == "misread corrected"

    # A dispute: the round is voided with a reason typed on the on-screen keyboard.
    tap(qtbot, sup.void_button)
    tap_button(qtbot, w, "Other…")
    tap_keys(qtbot, w, "Seat 2 disputed the payout, video checked")
    tap_button(qtbot, w, "Done")
    qtbot.waitUntil(lambda: t.current is None, timeout=WAIT_MS)
    (void,) = records(station, "void")
    assert void.actor == "super/supervisor"
    assert void.payload["reason"] == "Seat 2 disputed the payout, video checked"
    # Nothing stopped, nothing open: neither Resume nor Void can be touched.
    qtbot.waitUntil(lambda: not sup.void_button.isEnabled(), timeout=WAIT_MS)
    assert not sup.resume_button.isEnabled() and not sup.correct_button.isEnabled()
    tap(qtbot, w.back_button)
    qtbot.waitUntil(lambda: w.current_screen == "dealer", timeout=WAIT_MS)
    no_keys(keys)


def test_an_unlock_by_touch_alone(qtbot: Any, keys: KeyWatch, window: MainWindow,
                                  station: Station) -> None:
    w = window
    for _ in range(3):
        touch_sign_in(qtbot, w.login, "dealer", "9999")
    assert "Locked out" in w.login.message.text()
    touch_sign_in(qtbot, w.login, "super", "2222")
    qtbot.waitUntil(lambda: w.current_screen == "supervisor", timeout=WAIT_MS)
    sup: Any = w.screens["supervisor"]
    tap_tab(qtbot, sup.tabs, "Lockouts")
    # Asked why; Cancel leaves the dealer locked out.
    tap_button(qtbot, w, "Unlock Dana Dealer")
    tap_button(qtbot, w, "Cancel")
    assert records(station, "user.unlock") == []
    tap_button(qtbot, w, "Unlock Dana Dealer")
    tap_button(qtbot, w, "identity checked")
    qtbot.waitUntil(lambda: bool(records(station, "user.unlock")), timeout=WAIT_MS)
    (unlock,) = records(station, "user.unlock")
    assert unlock.actor == "super/supervisor"
    assert unlock.payload == {"user_id": "dealer", "reason": "identity checked"}
    assert "Recorded as Sam Supervisor: identity checked" in sup.lockouts.message.text()
    tap(qtbot, w.lock_button)
    touch_sign_in(qtbot, w.login, "dealer", "1111")
    qtbot.waitUntil(lambda: w.current_screen == "dealer", timeout=WAIT_MS)
    no_keys(keys)


# -- the Chips tab ---------------------------------------------------------------------------

def _first_of_two_shifts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configuration whose gaming day began an hour ago, in the first of two shifts: a
    shift count is allowed now (it never is in the day's last shift). Its jurisdiction signs
    fills and credits at the table in one step (the cage's workflow is touched in
    tests/test_ui_table_requests.py and tests/test_ui_cage.py)."""
    conf = tmp_path / "config"
    shutil.copytree(CONFIG_DIR, conf)
    accounting = conf / "accounting.toml"
    accounting.write_text(re.sub(r"^\[cage\]\n.*?(?=^\[|\Z)", "", accounting.read_text(),
                                 flags=re.S | re.M) +
                          '[cage]\nissue = []\nrunner = []\nvoid = ["supervisor", "supervisor"]\n')
    began = (datetime.now().astimezone() - timedelta(hours=1)).replace(minute=0)
    later = began + timedelta(hours=12)
    station_toml = conf / "station.toml"
    day = (f'[gaming_day]\nstarts = "{began:%H:%M}"\ntimezone = ""\n'
           f'shifts = [{{name = "Early", starts = "{began:%H:%M}"}}, '
           f'{{name = "Late", starts = "{later:%H:%M}"}}]\n')
    station_toml.write_text(re.sub(r"\[gaming_day\]\n.*?(?=\n\[|\Z)", day,
                                   station_toml.read_text(), count=1, flags=re.S))
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(conf))


def chips_tab(qtbot: Any, w: MainWindow, tmp_path: Path) -> Any:
    touch_sign_in(qtbot, w.login, "super", "2222")
    qtbot.waitUntil(lambda: w.current_screen == "supervisor", timeout=WAIT_MS)
    sup: Any = w.screens["supervisor"]
    tap_tab(qtbot, sup.tabs, "Chips")
    sup.chips.printer = ""
    sup.chips.slips_dir = tmp_path / "slips"
    return sup.chips


def count_chips(qtbot: Any, w: MainWindow, panel: Any, counts: dict[int, str]) -> None:
    """Touch the first chip's field, then type each count on the keypad, Next to the next
    chip, Done after the last."""
    denominations = list(panel.fields)
    last = max(denominations.index(d) for d in counts)
    tap(qtbot, panel.fields[denominations[0]])
    number = panel.book.settings.money.number
    for i, denom in enumerate(denominations[:last + 1]):
        if denom in counts:
            tap_digits(qtbot, w, counts[denom])
        tap_button(qtbot, w, "Done" if i == last else
                   f"Next: How many {number(denominations[i + 1])} chips? ›")
    for denom, text in counts.items():
        assert panel.fields[denom].text() == text


def dealer_signs(qtbot: Any, w: MainWindow, panel: Any, pin: str, *, choose: bool) -> None:
    if choose:
        tap(qtbot, panel.dealer_button)
        tap_button(qtbot, w, "Dana Dealer")     # the PIN pad opens next by itself
    else:
        tap(qtbot, panel.dealer_pin)
    tap_digits(qtbot, w, pin)
    tap_button(qtbot, w, "Done")


def test_the_chips_tabs_counts_and_slips_by_touch_alone(
        qtbot: Any, keys: KeyWatch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _first_of_two_shifts(tmp_path, monkeypatch)
    station = make_station(tmp_path / "t")
    try:
        w = open_window(qtbot, station)
        panel = chips_tab(qtbot, w, tmp_path)
        # The opener.
        tap(qtbot, panel.action_buttons["opener"])
        count_chips(qtbot, w, panel, {100: "100", 500: "40", 2500: "20"})
        assert panel.total.text() == "Total 800.00 USD (160 chips)"
        dealer_signs(qtbot, w, panel, "1111", choose=True)
        tap_button(qtbot, w, "Record the opener")
        qtbot.waitUntil(lambda: bool(records(station, "tray.open")), timeout=WAIT_MS)
        (opener,) = records(station, "tray.open")
        assert opener.payload["signers"] == ["dealer/dealer", "super/supervisor"]
        # A fill, with a note typed on the keyboard; the dealer stays chosen, the PIN is
        # typed again.
        tap(qtbot, panel.action_buttons["fill"])
        count_chips(qtbot, w, panel, {2500: "20"})
        tap(qtbot, panel.note)
        tap_keys(qtbot, w, "Tray low on 25.00 chips")
        tap_button(qtbot, w, "Done")
        dealer_signs(qtbot, w, panel, "1111", choose=False)
        tap_button(qtbot, w, "Record the fill")
        qtbot.waitUntil(lambda: bool(records(station, "fill")), timeout=WAIT_MS)
        (fill,) = records(station, "fill")
        assert fill.payload["total"] == 50000 and fill.payload["note"] == \
            "Tray low on 25.00 chips"
        # A wrong PIN is refused and records nothing.
        tap(qtbot, panel.action_buttons["credit"])
        count_chips(qtbot, w, panel, {10000: "2"})
        dealer_signs(qtbot, w, panel, "1112", choose=False)
        tap_button(qtbot, w, "Record the credit")
        assert "Not done" in panel.message.text() and records(station, "credit") == []
        dealer_signs(qtbot, w, panel, "1111", choose=False)
        tap_button(qtbot, w, "Record the credit")
        qtbot.waitUntil(lambda: bool(records(station, "credit")), timeout=WAIT_MS)
        # The shift count.
        tap(qtbot, panel.action_buttons["shift-count"])
        count_chips(qtbot, w, panel, {100: "100", 500: "40", 2500: "40", 10000: "0"})
        dealer_signs(qtbot, w, panel, "1111", choose=False)
        tap_button(qtbot, w, "Record the shift count")
        qtbot.waitUntil(lambda: bool(records(station, "tray.shift")), timeout=WAIT_MS)
        assert records(station, "tray.shift")[0].payload["shift"] == "Early"
        # Every slip and count in sight, signed by name.
        slips = panel.slips
        assert slips.rowCount() == 4
        QApplication.processEvents()
        bottom = slips.rowViewportPosition(3) + slips.rowHeight(3)
        assert slips.rowViewportPosition(0) >= 0 and bottom <= slips.viewport().height()
        assert {slips.item(r, 3).text() for r in range(4)} == {"Dana Dealer + Sam Supervisor"}
        assert "Day's win" in panel.win.text()
        no_keys(keys)
        w.shutdown()
    finally:
        station.close()


def test_a_closer_is_confirmed_before_it_is_recorded(
        qtbot: Any, keys: KeyWatch, window: MainWindow, station: Station,
        tmp_path: Path) -> None:
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    tap(qtbot, panel.action_buttons["opener"])
    count_chips(qtbot, w, panel, {2500: "40"})
    dealer_signs(qtbot, w, panel, "1111", choose=True)
    tap_button(qtbot, w, "Record the opener")
    qtbot.waitUntil(lambda: bool(records(station, "tray.open")), timeout=WAIT_MS)
    tap(qtbot, panel.action_buttons["closer"])
    count_chips(qtbot, w, panel, {2500: "38"})
    dealer_signs(qtbot, w, panel, "1111", choose=False)
    tap_button(qtbot, w, "Record the closer")
    # Asked first, in full: the amount, both signers, what it closes. Cancel: nothing.
    qtbot.waitUntil(lambda: sheet_shown(w), timeout=WAIT_MS)
    day = panel.book.today().isoformat()
    asked = [label.text() for label in w.findChildren(QLabel) if label.isVisible()]
    assert f"Record the closer of gaming day {day}?" in asked, "the closer was not confirmed"
    assert any("950.00 USD (38 chips), signed by Dana Dealer and Sam Supervisor" in a
               for a in asked)
    tap_button(qtbot, w, "Cancel")
    assert records(station, "tray.close") == []
    tap_button(qtbot, w, "Record the closer")          # the tab's button: asked again...
    qtbot.waitUntil(lambda: sheet_shown(w), timeout=WAIT_MS)
    tap_button(qtbot, w, "Record the closer")          # ...and the sheet's: recorded
    qtbot.waitUntil(lambda: bool(records(station, "tray.close")), timeout=WAIT_MS)
    (closer,) = records(station, "tray.close")
    assert closer.payload["total"] == 38 * 2500
    assert closer.payload["signers"] == ["dealer/dealer", "super/supervisor"]
    assert "The count room's win follows once the drop is counted" in panel.win.text()
    no_keys(keys)


# -- the pit ---------------------------------------------------------------------------------

@pytest.mark.postgres
def test_the_pits_acknowledge_by_touch_alone(qtbot: Any, keys: KeyWatch, tmp_path: Path,
                                             pg_db_url: str) -> None:
    from dealer_station.app import fast_hasher
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import create_key
    from dealer_station.floor.alerts import ACK_KIND, Pit, PitSettings
    from dealer_station.ui import theme
    from dealer_station.ui.pit_demo import demo_pit
    from dealer_station.ui.pit_window import PitWindow

    key = create_key(tmp_path / "floor.key")
    began = (datetime.now().astimezone() - timedelta(hours=2)).time().replace(
        second=0, microsecond=0)
    with demo_pit(tmp_path, pg_db_url, key, hasher=fast_hasher()) as floor:
        pit = Pit(Journal(floor, key), "east", PitSettings(gaming_day_starts=began))
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        theme.apply(app)
        w = PitWindow(pit, hasher=fast_hasher(), reports_dir=tmp_path, auto_refresh=False)
        qtbot.addWidget(w)
        w.resize(*theme.WINDOW_SIZE)
        w.show()
        qtbot.waitExposed(w)
        # Sign in: the user id on the keyboard, Next, the PIN on the pad.
        tap(qtbot, w.sign.user_id)
        tap_keys(qtbot, w, "sue")
        tap_button(qtbot, w, "Next: Your PIN ›")
        tap_digits(qtbot, w, "2468")
        tap_button(qtbot, w, "Done")
        tap(qtbot, w.sign.sign_in_button)
        assert w.sign.user is not None and w.sign.user.actor == "sue/supervisor"
        # The jam's halt at T3: touched in the queue, acknowledged with a reason.
        assert w.view is not None
        halt = next(a for a in w.view.alerts if a.table == "T3" and a.category == "halt"
                    and a.round_no == 1)
        row = next(r for r in range(w.queue.rowCount())
                   if w.queue.item(r, 0).data(Qt.ItemDataRole.UserRole) == halt.id)
        tap_row(qtbot, w.queue, row)
        assert w.selected_alert() == halt
        tap(qtbot, w.ack_button)
        tap_button(qtbot, w, "checked with the dealer")
        qtbot.waitUntil(lambda: "acknowledged" in w.message.text(), timeout=WAIT_MS)
        (ack,) = pit.journal.records(pit.stream, kinds=[ACK_KIND])
        assert ack.actor == "sue/supervisor" and ack.payload["alert"] == halt.id
        assert ack.payload["reason"] == "checked with the dealer"
        assert all(a.id != halt.id for a in w.view.alerts)
        w.close()
        pit.db.close()
    no_keys(keys)
