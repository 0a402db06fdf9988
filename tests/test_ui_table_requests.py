"""Fills and credits through the cage at the table's own screen (the supervisor's Chips tab),
on real widgets, by role:

- the supervisor requests a fill on the form: ``slip.request`` signed by the supervisor, listed
  with its state;
- the cage issues and security carries (as the cage's screen does, through ``CageDesk``), and
  the list follows; the dealer counts what arrived and the dealer and the supervisor sign the
  receipt by touch: the ``fill`` of record, signed by the cashier, the runner, the dealer and
  the supervisor, in the table's figures;
- a request voided at the table at each step (requested, issued, in transit, received), by
  touch: a reason, then a supervisor and a cage cashier who came to the table, each choosing
  their name and typing their PIN;
- refusals in words that journal nothing: a signer lacking the role, one person signing twice
  (the dealer also signing as the supervisor; the runner also signing the receipt), counts
  that differ from the slip; and an overdue request in the alert colour with its wait.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QTableWidget
from test_ui_fit import check_fits, header_controls
from test_ui_supervisor_chips import chips_tab, jurisdiction, text_fits
from touch_support import give_reason, tap, tap_button, tap_digits
from ui_support import WAIT_MS, click, sign_in

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.requests import Request
from dealer_station.app import Station
from dealer_station.audit.journal import utc_now
from dealer_station.audit.users import User
from dealer_station.events.accounting import KINDS
from dealer_station.table.cage import CageDesk
from dealer_station.ui import theme
from dealer_station.ui.chips_panel import ChipsPanel
from dealer_station.ui.main_window import MainWindow

FILL = {2500: "20", 10000: "5"}
WANT = Chips.of({2500: 20, 10000: 5})
#: The people of the cage's workflow, beside the demo dealer, supervisor and operator.
CAGE_PEOPLE = (("cas", "Cass Cashier", "cage"), ("sid", "Sid Security", "security"),
               ("bob", "Bob Floorman", "supervisor"))
PIN = "4444"


@pytest.fixture
def station(station: Station) -> Iterator[Station]:
    """The demo station with a cage cashier, a security officer and a second supervisor."""
    op = station.users.authenticate("operator", "3333")
    for user_id, name, role in CAGE_PEOPLE:
        station.users.add(user_id, name, role, PIN, actor=op)
    yield station


def accounting(station: Station, *kinds: str) -> list[Any]:
    return [r for r in station.journal.records(station.table_id, kinds=list(KINDS))
            if not kinds or r.kind in kinds]


def who(station: Station, user_id: str) -> User:
    pin = {"dealer": "1111", "super": "2222", "operator": "3333"}.get(user_id, PIN)
    return station.users.authenticate(user_id, pin, table_id=station.table_id)


def request_fill(qtbot: Any, panel: ChipsPanel, counts: dict[int, str] = FILL) -> Request:
    """The supervisor counts the chips wanted on the form and requests them."""
    click(qtbot, panel.action_buttons["fill"])
    for denom, text in counts.items():
        panel.fields[denom].clear()
        qtbot.keyClicks(panel.fields[denom], text)
    assert not panel.dealer_button.isVisible()          # the supervisor's signature alone
    click(qtbot, panel.record_button)
    assert panel.message.text().startswith("Fill request T1-R-"), panel.message.text()
    return max(panel.book.ledger().requests.values(), key=lambda r: r.requested.seq)


def tap_row(qtbot: Any, table: QTableWidget, row: int) -> None:
    """Touch a row of a list (its first cell)."""
    item = table.item(row, 0)
    assert item is not None
    table.scrollToItem(item)
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                     pos=table.visualItemRect(item).center())


def select_request(qtbot: Any, panel: ChipsPanel, req: Request) -> int:
    """Touch the request's row; its row number."""
    panel.refresh_requests()
    (row,) = [i for i, r in enumerate(panel.requests.rows) if r.key == req.key]
    tap_row(qtbot, panel.requests.table, row)
    assert panel.requests.selected_key() == req.key
    return row


def issue_and_carry(station: Station, panel: ChipsPanel, req: Request, *,
                    carry: bool = True) -> None:
    """What the cage's screen and the runner do, through the cage's desk."""
    desk = CageDesk(panel.book)
    desk.issue(*req.key, req.chips, [who(station, "cas")])
    if carry:
        desk.carry(*req.key, [who(station, "sid")])


def receive(qtbot: Any, w: MainWindow, panel: ChipsPanel, req: Request,
            counts: dict[int, str], dealer: str = "Dana Dealer", pin: str = "1111") -> None:
    """Receive by touch: the request's row, Receive, the dealer's counts, the dealer chosen
    by name and their PIN on the pad, Sign the receipt."""
    select_request(qtbot, panel, req)
    tap(qtbot, panel.requests.receive_button)
    assert panel.action == "receive"
    for denom, text in counts.items():
        qtbot.keyClicks(panel.fields[denom], text)
    tap(qtbot, panel.dealer_button)
    tap_button(qtbot, w, dealer)                   # the PIN pad opens next by itself
    tap_digits(qtbot, w, pin)
    tap_button(qtbot, w, "Done")
    tap_button(qtbot, w, "Sign the receipt")


def void_by_touch(qtbot: Any, w: MainWindow, button: Any, reason: str,
                  signers: list[tuple[str, str]]) -> None:
    """Touch Void, give the reason, then each signer touches their name and types their
    PIN."""
    tap(qtbot, button)
    give_reason(qtbot, w, reason)
    for name, pin in signers:
        tap_button(qtbot, w, name)
        tap_digits(qtbot, w, pin)
        tap_button(qtbot, w, "Done")


VOID_SIGNERS = [("Sam Supervisor", "2222"), ("Cass Cashier", PIN)]


def test_the_supervisor_requests_and_the_dealer_and_supervisor_receive(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    assert panel.through_cage and panel.requests.isVisible()
    assert panel.record_button.text() == "Request the fill"
    req = request_fill(qtbot, panel)
    (asked,) = accounting(station, "slip.request")
    assert asked.actor == "super/supervisor"
    assert asked.payload["signers"] == ["super/supervisor"]
    assert asked.payload["chips"] == {"2500": 20, "10000": 5} and asked.payload["total"] == 100000
    row = panel.requests.rows[0]
    assert (row.words, row.state, row.amount) == (f"Fill {req.label}", "Requested",
                                                  "1,000.00 USD")
    # Not yet in the tray: received only once security brings it.
    select_request(qtbot, panel, req)
    assert req.label in panel.message.text() and "requested" in panel.message.text()
    tap(qtbot, panel.requests.receive_button)
    assert "it is received once it is In transit" in panel.message.text()
    assert panel.action == "fill"
    # The cage issues; the list follows (as the tab's timer reads it again).
    issue_and_carry(station, panel, req, carry=False)
    panel.refresh_requests()
    assert panel.requests.rows[0].state == "Issued at the cage"
    CageDesk(panel.book).carry(*req.key, [who(station, "sid")])
    panel.refresh_requests()
    assert panel.requests.rows[0].state == "In transit"
    before = len(accounting(station))
    receive(qtbot, w, panel, req, FILL)
    (fill,) = accounting(station, "fill")
    assert len(accounting(station)) == before + 1
    assert fill.payload["signers"] == ["cas/cage", "sid/security", "dealer/dealer",
                                       "super/supervisor"]
    assert fill.payload["request"] == req.event.request and fill.payload["total"] == 100000
    assert fill.actor == "dealer/dealer+super/supervisor"
    slip = panel.book.ledger().request(*req.key).slip_label
    assert (f"Fill slip {slip} received: 1,000.00 USD, signed by Dana Dealer and Sam "
            f"Supervisor") in panel.message.text()
    assert panel.book.ledger().days[panel.book.today()].fills == 100000
    assert panel.requests.rows[0].state == "Received at the table"
    assert panel.slips.item(0, 1).text() == slip
    # Touched, the slip is told whole: every signer by name.
    tap_row(qtbot, panel.slips, 0)
    for name in ("Cass Cashier", "Sid Security", "Dana Dealer", "Sam Supervisor"):
        assert name in panel.message.text()
    assert panel.action == "fill" and panel.fields[2500].text() == ""
    assert station.journal.verify_table(station.table_id).ok


@pytest.mark.parametrize("step", ["requested", "issued", "in transit", "received"])
def test_a_void_at_the_table_at_each_step_takes_two_signers(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path, step: str) -> None:
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    req = request_fill(qtbot, panel)
    if step != "requested":
        issue_and_carry(station, panel, req, carry=step != "issued")
    if step == "received":
        receive(qtbot, w, panel, req, FILL)
        assert accounting(station, "fill")
    select_request(qtbot, panel, req)
    assert panel.book.ledger().request(*req.key).state == step
    void_by_touch(qtbot, w, panel.requests.void_button, "wrong count", VOID_SIGNERS)
    qtbot.waitUntil(lambda: "voided" in panel.message.text(), timeout=WAIT_MS)
    assert "signed by Sam Supervisor and Cass Cashier" in panel.message.text()
    if step == "received":
        (void,) = accounting(station, "slip.void")
        assert void.payload["slip_seq"] == accounting(station, "fill")[0].seq
        assert panel.book.ledger().days[panel.book.today()].fills == 0   # no longer counts
        assert panel.slips.item(0, 0).text() == "Fill VOID"
    else:
        (void,) = accounting(station, "request.void")
        assert void.payload["state"] == step and void.payload["request"] == req.event.request
        assert accounting(station, "fill") == []
    assert void.payload["reason"] == "wrong count"
    assert void.payload["signers"] == ["super/supervisor", "cas/cage"]
    assert panel.book.ledger().request(*req.key).state == "voided"
    assert panel.requests.rows[0].state == "Voided"


def test_a_slip_voided_from_the_list_of_slips_voids_its_request(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    req = request_fill(qtbot, panel)
    issue_and_carry(station, panel, req)
    receive(qtbot, w, panel, req, FILL)
    tap_row(qtbot, panel.slips, 0)
    void_by_touch(qtbot, w, panel.void_slip_button, "wrong slip",
                  [("Bob Floorman", PIN), ("Cass Cashier", PIN)])
    qtbot.waitUntil(lambda: bool(accounting(station, "slip.void")), timeout=WAIT_MS)
    (void,) = accounting(station, "slip.void")
    assert void.payload["signers"] == ["bob/supervisor", "cas/cage"]
    assert panel.book.ledger().request(*req.key).state == "voided"


def test_refusals_in_words_journal_nothing(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    req = request_fill(qtbot, panel)
    issue_and_carry(station, panel, req)
    before = accounting(station)
    select_request(qtbot, panel, req)
    # A void signer lacking the role: the dealer in the supervisor's signature.
    panel.void_request("wrong count", [("dealer", "1111"), ("cas", PIN)])
    assert "Not voided: voiding T1-R-" in panel.message.text()
    assert "(dealer) is a dealer; this signature is for a supervisor" in panel.message.text()
    # One person signing the void twice.
    panel.void_request("wrong count", [("super", "2222"), ("super", "2222")])
    assert ("Not voided: Sam Supervisor cannot sign twice: a void needs two different "
            "people") in panel.message.text()
    # No reason.
    panel.void_request("  ", [("super", "2222"), ("cas", PIN)])
    assert "needs a reason" in panel.message.text()
    assert accounting(station) == before
    # The receipt: counts that differ from the slip, said denomination by denomination.
    tap(qtbot, panel.requests.receive_button)
    qtbot.keyClicks(panel.fields[2500], "19")
    qtbot.keyClicks(panel.fields[10000], "5")
    assert panel.values[2500].text() == "slip: 20" and panel.values[10000].text().endswith("✓")
    panel.set_dealer("dealer")
    qtbot.keyClicks(panel.dealer_pin, "1111")
    click(qtbot, panel.record_button)
    slip = panel.book.ledger().request(*req.key).slip_label
    assert (f"Not received: the chips counted (975.00 USD) differ from fill slip {slip} "
            f"(1,000.00 USD): 25.00: 19 counted, 20 on the slip") in panel.message.text()
    assert accounting(station) == before
    # The dealer also signing as the supervisor (the signed-in supervisor in the dealer's
    # signature): refused before any PIN is checked.
    panel.fields[2500].clear()
    qtbot.keyClicks(panel.fields[2500], "20")
    panel.set_dealer("super")
    qtbot.keyClicks(panel.dealer_pin, "2222")
    click(qtbot, panel.record_button)
    assert ("Not received: Sam Supervisor cannot sign twice: the receipt needs two "
            "different people") in panel.message.text()
    # A signer lacking the role: security in the dealer's signature.
    panel.set_dealer("sid")
    qtbot.keyClicks(panel.dealer_pin, PIN)
    click(qtbot, panel.record_button)
    assert "(sid) is a security officer; this signature is for a dealer" in \
        panel.message.text()
    # A wrong PIN.
    panel.set_dealer("dealer")
    qtbot.keyClicks(panel.dealer_pin, "9999")
    click(qtbot, panel.record_button)
    assert "Not received: wrong PIN for dealer" in panel.message.text()
    assert accounting(station) == before
    assert panel.book.ledger().request(*req.key).state == "in transit"
    # Right at last.
    panel.set_dealer("dealer")
    qtbot.keyClicks(panel.dealer_pin, "1111")
    click(qtbot, panel.record_button)
    assert len(accounting(station, "fill")) == 1


def test_the_runner_cannot_also_sign_the_receipt(
        qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, station: Station) -> None:
    """A jurisdiction whose runner is a supervisor: the supervisor who carried the chips is
    refused as the receipt's supervisor, and nothing is journaled."""
    from ui_support import open_window

    jurisdiction(tmp_path, monkeypatch, '\n[cage]\nrunner = ["supervisor"]\n')
    w = open_window(qtbot, station)
    sign_in(qtbot, w, "bob", PIN)
    qtbot.waitUntil(lambda: w.current_screen == "supervisor", timeout=WAIT_MS)
    sup: Any = w.screens["supervisor"]
    sup.tabs.setCurrentWidget(sup.chips)
    panel: ChipsPanel = sup.chips
    req = request_fill(qtbot, panel)
    desk = CageDesk(panel.book)
    desk.issue(*req.key, req.chips, [who(station, "cas")])
    desk.carry(*req.key, [who(station, "bob")])          # Bob ran the chips over
    before = accounting(station)
    receive(qtbot, w, panel, req, FILL)
    assert "Not received: receiving T1-R-" in panel.message.text()
    assert "bob already signed" in panel.message.text() and "one person signs once" in \
        panel.message.text()
    assert accounting(station) == before
    w.shutdown()


def test_an_overdue_request_is_in_the_alert_colour_with_its_wait(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    # Requested 23 minutes ago (the jurisdiction's alert time is 15 minutes).
    asked = utc_now() - timedelta(minutes=23)
    station.journal.clock = lambda: asked
    try:
        old = request_fill(qtbot, panel)
    finally:
        station.journal.clock = utc_now
    fresh = request_fill(qtbot, panel, {500: "40"})
    panel.refresh_requests()
    rows = {r.key: r for r in panel.requests.rows}
    assert rows[old.key].late and rows[old.key].waiting == "23 min late"
    assert not rows[fresh.key].late and rows[fresh.key].waiting == "0 min"
    assert [r.key for r in panel.requests.rows] == [old.key, fresh.key]   # oldest on top
    item = panel.requests.table.item(0, 3)
    assert item is not None and item.foreground().color() == QColor(theme.BAD)
    assert panel.requests.table.item(0, 0).font().bold()              # type: ignore[union-attr]
    # Received or voided, it is late no more.
    select_request(qtbot, panel, old)
    panel.void_request("wrong count", [("super", "2222"), ("cas", PIN)])
    assert not {r.key: r for r in panel.requests.rows}[old.key].late
    assert datetime.fromisoformat(fresh.requested.ts) - \
        datetime.fromisoformat(old.requested.ts) >= timedelta(minutes=23)


def test_the_request_and_receipt_forms_fit_the_screen(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Path) -> None:
    """Every state in the list at once, the longest state words in sight, the form in each
    of its shapes inside 1280x800, every button's words inside it."""
    w = window
    panel = chips_tab(qtbot, w, tmp_path)
    # The first one requested 40 minutes ago: late, in bold.
    asked = utc_now() - timedelta(minutes=40)
    station.journal.clock = lambda: asked
    try:
        reqs = [request_fill(qtbot, panel, {50000: "20", 10000: "30"})]
    finally:
        station.journal.clock = utc_now
    reqs += [request_fill(qtbot, panel, {50000: "20", 10000: "30"}) for _ in range(4)]
    desk = CageDesk(panel.book)
    issue_and_carry(station, panel, reqs[1], carry=False)
    issue_and_carry(station, panel, reqs[2])
    issue_and_carry(station, panel, reqs[3])
    desk.receive(*reqs[3].key, reqs[3].chips, [who(station, "dealer"), who(station, "super")])
    desk.void(*reqs[4].key, "wrong count", [who(station, "super"), who(station, "cas")])
    panel.refresh()
    table = panel.requests.table
    states = {r.state for r in panel.requests.rows}
    assert states == {"Requested", "Issued at the cage", "In transit",
                      "Received at the table", "Voided"}
    assert panel.requests.rows[0].late
    for r in range(table.rowCount()):
        for c in range(table.columnCount()):
            item = table.item(r, c)
            assert item is not None
            own = item.data(Qt.ItemDataRole.FontRole)        # a late request's, in bold
            fm = QFontMetrics(own if isinstance(own, QFont) else table.font())
            assert fm.horizontalAdvance(item.text()) <= table.columnWidth(c), \
                f"the list cuts {item.text()!r}"
    controls = {"the requests": table, "Receive": panel.requests.receive_button,
                "Void the request": panel.requests.void_button, "the slips": panel.slips,
                "Print": panel.print_button, "Void the slip": panel.void_slip_button,
                "Request": panel.record_button}
    check_fits(qtbot, w, header_controls(w) | controls)
    for b in (panel.record_button, panel.requests.receive_button,
              panel.requests.void_button, panel.print_button, panel.void_slip_button):
        assert text_fits(b), f"{b.text()!r} does not fit its button"
    # The receipt form, with the signature row and a count against the slip.
    select_request(qtbot, panel, reqs[2])
    tap(qtbot, panel.requests.receive_button)
    qtbot.keyClicks(panel.fields[50000], "19")
    panel.set_dealer("dealer")
    check_fits(qtbot, w, header_controls(w) | controls | {
        "the dealer": panel.dealer_button, "PIN": panel.dealer_pin,
        "the total": panel.total, "the slip's count": panel.values[50000]})
    for b in (panel.record_button, panel.dealer_button):
        assert text_fits(b), f"{b.text()!r} does not fit its button"
