"""Every action of the operator's screens, the tournament director's screen and the naming of
Bourré players, done with touches alone: mouse presses on the real widgets, with a watch on
every key event the application delivers, which must stay at none. Each run ends in the
journal, so what was touched is what was recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTabWidget
from touch_support import KeyWatch, tap, tap_button, tap_digits, tap_keys
from ui_support import WAIT_MS, open_window, station_fixture

from dealer_station.app import Station
from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.tournament import journaled
from dealer_station.ui import theme
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.touch_keyboard import InputSheet
from dealer_station.ui.touch_sheet import current_sheet
from dealer_station.ui.tournament_window import TournamentWindow


@pytest.fixture
def keys() -> Iterator[KeyWatch]:
    watch = KeyWatch().install()
    yield watch
    watch.remove()
    assert watch.count == 0, f"key events were sent: {watch.seen[:5]}"


def sheet_of(widget: Any) -> Any:
    sheet = current_sheet(widget)
    assert sheet is not None, "no sheet is open"
    return sheet


def type_on(qtbot: Any, widget: Any, text: str, *, done: str = "Done") -> None:
    """Touch ``widget`` (a field), type ``text`` on the keyboard or keypad that opens, and
    touch Done (or Next)."""
    tap(qtbot, widget)
    qtbot.waitUntil(lambda: isinstance(current_sheet(widget), InputSheet), timeout=WAIT_MS)
    sheet = sheet_of(widget)
    if sheet.keyboard is not None:
        tap_keys(qtbot, widget, text)
    else:
        for ch in text:
            tap(qtbot, sheet.pad.keys[ch])
    tap_button(qtbot, widget, f"Key {done}")
    qtbot.waitUntil(lambda: current_sheet(widget) is not sheet, timeout=WAIT_MS)


def tap_tab(qtbot: Any, tabs: QTabWidget, title: str) -> None:
    bar = tabs.tabBar()
    index = next(i for i in range(tabs.count()) if tabs.tabText(i) == title
                 and tabs.isTabVisible(i))
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert tabs.currentIndex() == index


def sign_in_by_touch(qtbot: Any, w: MainWindow, user_id: str, pin: str) -> None:
    """Tap the user's name on the sign-in screen, the PIN on its keypad, and Sign in."""
    if w.session.user is not None:
        tap(qtbot, w.lock_button)
    qtbot.waitUntil(lambda: w.current_screen == "login", timeout=WAIT_MS)
    tap(qtbot, w.login.name_buttons[user_id])
    tap_digits(qtbot, w, pin)
    tap(qtbot, w.login.sign_in_button)
    qtbot.waitUntil(lambda: w.session.user is not None
                    and w.session.user.user_id == user_id, timeout=WAIT_MS)


def config_changes(station: Station) -> list[Any]:
    return [r for r in station.journal.records(station.table_id) if r.kind == "config.change"]


# -- La Pair'e: the operator's screen -------------------------------------------------------

def test_the_operator_changes_a_table_by_touch_alone(
        qtbot: Any, window: MainWindow, station: Station, keys: KeyWatch) -> None:
    sign_in_by_touch(qtbot, window, "operator", "3333")
    op: Any = window.screens["operator"]
    qtbot.waitUntil(op.isVisible, timeout=WAIT_MS)
    # What is offered, a spot priced apart and the paytable: a touch each.
    tap(qtbot, op.kind_boxes["black"])
    assert not op.kind_boxes["black"].isChecked()
    tap(qtbot, op.spot_boxes["split 7-JK"])
    tap(qtbot, op.paytable.button("alternative"))
    assert op.paytable.currentText() == "alternative"
    # Limits as money on the keypad.
    type_on(qtbot, op.limit_boxes["straight"][1], "150")
    type_on(qtbot, op.limit_boxes["red"][0], "2.50")
    assert op.limit_boxes["straight"][1].value() == 15000
    assert op.limit_boxes["red"][0].value() == 250
    # Start again undoes it all; the change is made again.
    tap(qtbot, op.revert_button)
    assert op.kind_boxes["black"].isChecked() and op.limit_boxes["straight"][1].value() == 10000
    tap(qtbot, op.kind_boxes["black"])
    tap(qtbot, op.spot_boxes["split 7-JK"])
    tap(qtbot, op.paytable.button("alternative"))
    type_on(qtbot, op.limit_boxes["straight"][1], "150")
    type_on(qtbot, op.limit_boxes["red"][0], "2.50")
    tap(qtbot, op.preview_button)
    assert op.pages.currentIndex() == 1 and op.apply_button.isEnabled()
    # Back to the form and to the sheet again by their tabs.
    tap_tab(qtbot, op.pages, "The change")
    tap_tab(qtbot, op.pages, "Par sheet")
    # The approver: the user id on the keyboard, then the PIN on the keypad.
    type_on(qtbot, op.approver_id, "super")
    sheet = sheet_of(op)
    assert sheet.mode == "pin"
    tap_digits(qtbot, op, "2222")
    tap_button(qtbot, op, "Key Done")
    # Apply asks why: Other…, typed on the keyboard.
    tap(qtbot, op.apply_button)
    reasons = sheet_of(op)
    assert reasons.action == "config_change" and "approved change" in reasons.buttons
    tap(qtbot, reasons.other_button)
    qtbot.waitUntil(lambda: isinstance(current_sheet(op), InputSheet), timeout=WAIT_MS)
    tap_keys(qtbot, op, "Weekend limits, joker split")
    tap_button(qtbot, op, "Key Done")
    qtbot.waitUntil(lambda: "recorded by operator/operator" in op.message.text(),
                    timeout=WAIT_MS)
    change = config_changes(station)[-1]
    assert change.actor == "operator/operator"
    assert change.payload["reason"] == "Weekend limits, joker split"
    assert change.payload["approved_by"] == "super/supervisor"
    assert change.payload["changes"] == {
        "offered": {"black": False, "split 7-JK": True}, "poker_paytable": "alternative",
        "limits": {"straight": {"min": 100, "max": 15000}, "red": {"min": 250, "max": 50000}}}
    config: Any = station.table.config
    assert config.straight.limits.maximum == 15000 and config.poker.paytable == "alternative"


# -- Bourré: the players' names and the operator's rule profile ------------------------------

@pytest.fixture
def bourre(tmp_path: Path) -> Iterator[Station]:
    yield from station_fixture(tmp_path, game="bourre")


def test_bourre_players_are_named_and_the_profile_changed_by_touch_alone(
        qtbot: Any, bourre: Station, keys: KeyWatch) -> None:
    w = open_window(qtbot, bourre)
    sign_in_by_touch(qtbot, w, "dealer", "1111")
    screen: Any = w.screens["dealer"]
    for seat, name in ((1, "Ada Hebert"), (2, "Noelie Guidry"), (3, "Odette O'Neil")):
        type_on(qtbot, screen.seat_boxes[seat], name)
    assert screen.names == {1: "Ada Hebert", 2: "Noelie Guidry", 3: "Odette O'Neil"}
    # A name renamed: the keyboard opens on it, Clear, the new one.
    tap(qtbot, screen.seat_boxes[1])
    tap_button(qtbot, screen, "Key Clear")
    tap_keys(qtbot, screen, "Ada Landry")
    tap_button(qtbot, screen, "Key Done")
    tap(qtbot, screen.session_button)
    qtbot.waitUntil(lambda: screen.view.session_open, timeout=WAIT_MS)
    opened = [r for r in bourre.journal.records(bourre.table_id)
              if r.kind == "session.open"][-1]
    assert {k: v for k, v in opened.payload["players"].items() if k in "123"} == {
        "1": "Ada Landry", "2": "Noelie Guidry", "3": "Odette O'Neil"}
    t: Any = bourre.table
    t.end_session(tie_break=sorted(t.session.seats), actor="dealer/dealer")
    # The operator: a profile by its button, the reason by its button.
    sign_in_by_touch(qtbot, w, "operator", "3333")
    op: Any = w.screens["operator"]
    tap(qtbot, op.choice.button("common"))
    tap(qtbot, op.apply_button)
    tap(qtbot, sheet_of(op).buttons["approved change"])
    qtbot.waitUntil(lambda: t.profile.name == "common", timeout=WAIT_MS)
    change = config_changes(bourre)[-1]
    assert change.actor == "operator/operator" and change.payload["reason"] == "approved change"


# -- The tournament director ----------------------------------------------------------------

@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    yield Journal(db, create_key(tmp_path / "journal.key"))
    db.close()


def director_window(qtbot: Any, journal: Journal, name: str, **options: Any
                    ) -> TournamentWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = TournamentWindow(journal, name, **options)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    return w


def kinds(journal: Journal, name: str) -> list[tuple[str, str]]:
    return [(r.kind, r.actor) for r in journal.records(journaled.stream(name))]


def test_a_tournament_is_run_by_touch_alone(qtbot: Any, journal: Journal,
                                            keys: KeyWatch) -> None:
    from dealer_station.tournament.config import load_games

    t = journaled.load(journal, "touch", must_exist=False)
    t.create("touch", load_games(None)["pitty-pat"], by="setup/operator")
    w = director_window(qtbot, journal, "touch")
    # Signed in by name, on the keyboard: Done signs in.
    type_on(qtbot, w.sign.user_id, "Judy Broussard")
    assert w.director.actor == "Judy Broussard/director"
    # Registration: five names on the keyboard, each added with a touch.
    reg = w.registration
    players = ["Alma Guidry", "Irma Landry", "Odette Savoie", "Yvonne Hebert", "Rose Doucet"]
    for name in players:
        type_on(qtbot, reg.entry, name)
        tap(qtbot, reg.add_button)
    assert list(w.director.t.entries) == players
    # Close registration: asked once more, Cancel first, then Close and start.
    tap(qtbot, reg.start_button)
    tap(qtbot, reg.cancel_start_button)
    assert not w.director.t.started
    tap(qtbot, reg.start_button)
    tap(qtbot, reg.confirm_start_button)
    assert w.director.t.started
    # Results: each player's chips on the keypad; distinct counts, no tie.
    tap_tab(qtbot, w.tabs, "Results")
    res = w.results
    tables = w.director.t.seating_chart(1)
    chips = [20, 15, 10, 5, 0, 0, 0]
    for table, seated in enumerate(tables, 1):
        item = res.tables.item(table - 1)
        rect = res.tables.visualItemRect(item)
        qtbot.mouseClick(res.tables.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert res.table_no == table
        plays = w.director.t.rules().chips_for(len(seated))
        counts = chips[:len(seated)]
        counts[0] += plays - sum(counts)
        for player, n in zip(res.players, counts, strict=True):
            type_on(qtbot, res.spins[player].field, str(n))
        assert res.chip_check.property("adds_up")
        tap(qtbot, res.enter_button)
    assert len(w.director.t.rounds[1].results) == len(tables)
    # A correction asks why: a reason from the list.
    first = res.players[0]
    second = res.players[1]
    before = {p: res.spins[p].value() for p in res.players}
    type_on(qtbot, res.spins[first].field, str(before[first] - 1))
    type_on(qtbot, res.spins[second].field, str(before[second] + 1))
    tap(qtbot, res.enter_button)
    tap(qtbot, sheet_of(res).buttons["chips miscounted"])
    table_no = res.table_no
    corrected = w.director.t.rounds[1].results[table_no].results
    assert corrected[first] == before[first] - 1 and corrected[second] == before[second] + 1
    if w.director.t.ties(1):                     # the extra game's order, by touch
        tap(qtbot, res.down_button)
        tap(qtbot, res.tie_button)
    tap(qtbot, res.close_button)
    assert w.director.t.rounds[1].closed
    # Standings: touch an entry, Disqualify, the reason typed with Other….
    tap_tab(qtbot, w.tabs, "Standings")
    st = w.standings
    rect = st.table.visualRect(st.table.model().index(1, 1))
    qtbot.mouseClick(st.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    chosen = st.selected_entry()
    assert chosen is not None
    tap(qtbot, st.dq_button)
    tap(qtbot, sheet_of(st).other_button)
    qtbot.waitUntil(lambda: isinstance(current_sheet(st), InputSheet), timeout=WAIT_MS)
    tap_keys(qtbot, st, "Left without a word")
    tap_button(qtbot, st, "Key Done")
    assert chosen in w.director.t.disqualified
    dq = [r for r in journal.records(journaled.stream("touch"))
          if r.kind == "tournament.disqualify"][-1]
    assert dq.payload["reason"] == "Left without a word"
    correct = [r for r in journal.records(journaled.stream("touch"))
               if r.kind == "tournament.correct"][-1]
    assert correct.payload["reason"] == "chips miscounted"
    assert {a for _k, a in kinds(journal, "touch")} >= {"Judy Broussard/director"}
    # Signed out and in again by touch.
    tap(qtbot, w.sign.sign_out_button)
    type_on(qtbot, w.sign.user_id, "Denise Martin")
    assert w.director.actor == "Denise Martin/director"


def test_teams_a_signed_in_user_and_bracket_scores_by_touch_alone(
        qtbot: Any, journal: Journal, keys: KeyWatch) -> None:
    from dealer_station.app import fast_hasher
    from dealer_station.audit.users import Users
    from dealer_station.tournament.config import load_games

    users = Users(journal, hasher=fast_hasher())
    users.seed([("olga", "Olga Operator", "operator", "1357"),
                ("sue", "Sue Supervisor", "supervisor", "2468")], actor="setup")
    t = journaled.load(journal, "pedro", must_exist=False)
    t.create("pedro", load_games(None)["pedro"], by="setup/operator")
    w = director_window(qtbot, journal, "pedro", users=users)
    # The user id on the keyboard, then the PIN on the keypad: Done signs in.
    type_on(qtbot, w.sign.user_id, "sue")
    assert sheet_of(w).mode == "pin"
    tap_digits(qtbot, w, "2468")
    tap_button(qtbot, w, "Key Done")
    qtbot.waitUntil(lambda: w.director.actor == "sue/supervisor", timeout=WAIT_MS)
    # A team: its name, Done, the first player, Done, the second, Done.
    reg = w.registration
    for team, a, b in (("T01", "Alma Guidry", "Irma Landry"),
                       ("T02", "Odette Savoie", "Yvonne Hebert"),
                       ("T03", "Rose Doucet", "Lena Comeaux"),
                       ("T04", "Ida Thibodeaux", "Eula Arceneaux")):
        type_on(qtbot, reg.entry, team)
        assert sheet_of(w).title.text() == "The team's first player"
        tap_keys(qtbot, w, a)
        tap_button(qtbot, w, "Key Done")
        qtbot.waitUntil(lambda: sheet_of(w).title.text() == "The team's second player",
                        timeout=WAIT_MS)
        tap_keys(qtbot, w, b)
        tap_button(qtbot, w, "Key Done")
        tap(qtbot, reg.add_button)
    assert w.director.t.entries["T03"] == ("Rose Doucet", "Lena Comeaux")
    tap(qtbot, reg.start_button)
    tap(qtbot, reg.confirm_start_button)
    assert w.director.t.bracket is not None
    # A Pedro match: a set-back team's score below nothing (±, then the digits), the
    # winner's on the keypad.
    tap_tab(qtbot, w.tabs, "Results")
    m = w.matches
    mid = m.match
    box = m.scores[1]
    assert box.sign is not None
    tap(qtbot, box.sign)
    type_on(qtbot, box.field, "12")
    assert box.value() == -12
    type_on(qtbot, m.scores[0].field, "62")
    tap(qtbot, m.score_button)
    bracket: Any = w.director.t.bracket
    assert mid not in bracket.ready()
    match = [r for r in journal.records(journaled.stream("pedro"))
             if r.kind == "tournament.match"][-1]
    assert sorted(match.payload["scores"].values()) == [-12, 62]
    assert match.actor == "sue/supervisor"


def test_a_euchre_hand_is_entered_by_touch_alone(qtbot: Any, journal: Journal,
                                                 keys: KeyWatch) -> None:
    from dealer_station.ui.tournament_demo import new_tournament

    t = new_tournament(journal, "eu", "euchre", 4)
    t.start(by="setup/operator")
    w = director_window(qtbot, journal, "eu")
    type_on(qtbot, w.sign.user_id, "Judy Broussard")
    tap_tab(qtbot, w.tabs, "Results")
    m = w.matches
    tap(qtbot, m.maker_buttons[0])
    tap(qtbot, m.tricks.button(5))
    tap(qtbot, m.alone)
    tap(qtbot, m.hand_button)
    hands = [r for r in journal.records(journaled.stream("eu"))
             if r.kind.startswith("tournament.euchre")]
    assert hands and hands[-1].actor == "Judy Broussard/director"
    assert hands[-1].payload["tricks"] == 5 and hands[-1].payload["alone"] is True
