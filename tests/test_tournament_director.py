"""The tournament director's screen (dealer-station tournament director) on real SQLite
journals: registration then start, a result that does not add up refused on screen with
nothing journaled, a round that cannot close and then can, game tags in the standings, a
Euchre bracket drawn with every match, hands entered from the screen, and the window kept at
1280x800 with the largest tables and brackets."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication
from ui_support import click

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.tournament import journaled
from dealer_station.tournament.display import place_text
from dealer_station.ui import theme
from dealer_station.ui.touch_sheet import current_sheet
from dealer_station.ui.tournament_demo import new_tournament
from dealer_station.ui.tournament_window import TournamentWindow

SIZE = QSize(*theme.WINDOW_SIZE)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    yield Journal(db, create_key(tmp_path / "journal.key"))
    db.close()


def open_window(qtbot: Any, journal: Journal, name: str, *, sign_in: bool = True
                ) -> TournamentWindow:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    theme.apply(app)
    w = TournamentWindow(journal, name)
    qtbot.addWidget(w)
    w.resize(*theme.WINDOW_SIZE)
    w.show()
    qtbot.waitExposed(w)
    if sign_in:
        qtbot.keyClicks(w.sign.user_id, "Judy Broussard")
        click(qtbot, w.sign.sign_in_button)
        assert w.director.actor == "Judy Broussard/director"
    return w


def records(journal: Journal, name: str) -> list[Any]:
    return list(journal.records(journaled.stream(name)))


def test_registration_then_start_through_the_window(qtbot: Any, journal: Journal) -> None:
    t = journaled.load(journal, "spring", must_exist=False)
    from dealer_station.tournament.config import load_games

    t.create("spring", load_games(None)["rummy"], by="setup/operator")
    w = open_window(qtbot, journal, "spring", sign_in=False)
    reg = w.registration
    assert not reg.add_button.isEnabled() and "Sign in" in reg.add_why.text()
    qtbot.keyClicks(w.sign.user_id, "Judy Broussard")
    click(qtbot, w.sign.sign_in_button)
    assert not reg.start_button.isEnabled()
    assert "needs at least 2" in reg.start_why.text()
    for name in ("Alma Guidry", "Irma Landry", "Odette Savoie", "Yvonne Hebert"):
        qtbot.keyClicks(reg.entry, name)
        click(qtbot, reg.add_button)
    assert reg.entries.rowCount() == 4
    assert "60.00 USD" in reg.money.text()       # 4 x 15.00 USD, shown as money
    click(qtbot, reg.start_button)
    click(qtbot, reg.confirm_start_button)       # asked once more
    t = w.director.t
    assert t.started and t.current_round == 1
    kinds = [(r.kind, r.actor) for r in records(journal, "spring")]
    assert ("tournament.start", "Judy Broussard/director") in kinds
    assert sum(1 for k, _ in kinds if k == "tournament.entry") == 4
    # Registration is closed, and the page says why (the engine's words).
    assert not reg.add_button.isEnabled()
    assert "registration closed" in reg.add_why.text().lower()
    assert not reg.start_button.isEnabled()


def _enter(qtbot: Any, w: TournamentWindow, table: int, chips: list[int]) -> None:
    res = w.results
    res.tables.setCurrentRow(table - 1)
    for p, v in zip(res.players, chips, strict=True):
        res.spins[p].setValue(v)
    click(qtbot, res.enter_button)


def test_a_result_that_does_not_add_up_is_refused_and_the_round_closes_when_all_do(
        qtbot: Any, journal: Journal) -> None:
    t = new_tournament(journal, "pp", "pitty-pat", 10)
    t.start(by="setup/operator")
    w = open_window(qtbot, journal, "pp")
    w.show_tab("Results")
    res = w.results
    before = len(records(journal, "pp"))
    res.tables.setCurrentRow(0)
    for p, v in zip(res.players, [20, 15, 10, 0, 0], strict=True):
        res.spins[p].setValue(v)
    # The chip check as typed: 45 of 50, in red.
    assert res.chip_check.property("adds_up") is False
    assert "45 of 50" in res.chip_check.text() and "5 missing" in res.chip_check.text()
    click(qtbot, res.enter_button)
    assert w.message.isVisible() and "do not add up" in w.message.text()
    assert len(records(journal, "pp")) == before          # nothing journaled
    assert res.tables.item(0).text().endswith("to enter")
    # Closing now is refused with the engine's reason.
    click(qtbot, res.close_button)
    assert "cannot close" in w.message.text() and "no result yet for table 1, 2" in \
        w.message.text()
    assert w.director.t.rounds[1].closed is False
    res.spins[res.players[3]].setValue(5)
    assert res.chip_check.property("adds_up") is True
    click(qtbot, res.enter_button)
    assert len(records(journal, "pp")) == before + 1
    click(qtbot, res.close_button)
    assert "no result yet for table 2" in w.message.text()
    assert "Not yet" in res.close_why.text()
    _enter(qtbot, w, 2, [25, 12, 8, 4, 1])
    assert "can close" in res.close_why.text()
    click(qtbot, res.close_button)
    t = w.director.t
    assert t.rounds[1].closed and t.current_round == 2
    # The standings after the round: three losers a table, a game tag each.
    w.show_tab("Standings")
    table = w.standings.table
    tags = {table.item(r, 1).text(): table.item(r, 3).text() for r in range(table.rowCount())}
    assert sorted(tags.values()).count("●○○  1") == 6
    assert sorted(tags.values()).count("○○○  0") == 4
    assert table.horizontalHeaderItem(3).text() == "Game tags"
    closed = [r for r in records(journal, "pp") if r.kind == "tournament.round.close"]
    assert closed and closed[0].actor == "Judy Broussard/director"


def test_a_tie_is_broken_by_the_extra_game_from_the_screen(qtbot: Any, journal: Journal
                                                           ) -> None:
    t = new_tournament(journal, "rum", "rummy", 4)
    t.start(by="setup/operator")
    w = open_window(qtbot, journal, "rum")
    w.show_tab("Results")
    _enter(qtbot, w, 1, [20, 15, 15, 0])      # two winners: the second place is level
    res = w.results
    assert res.tie_box.isVisible()
    order = [res.tie_order.item(i).text() for i in range(res.tie_order.count())]
    assert len(order) == 2
    click(qtbot, res.down_button)
    click(qtbot, res.tie_button)
    assert w.director.t.rounds[1].ties[1] == tuple(reversed(order))
    assert not res.tie_box.isVisible()


def test_disqualification_needs_its_reason(qtbot: Any, journal: Journal) -> None:
    t = new_tournament(journal, "dq", "pitty-pat", 6)
    t.start(by="setup/operator")
    w = open_window(qtbot, journal, "dq")
    w.show_tab("Standings")
    name = next(iter(t.entries))
    w.standings.select(name)
    n = len(records(journal, "dq"))
    click(qtbot, w.standings.dq_button)            # asks why; Cancel disqualifies nobody
    sheet = w.standings.reason_sheet
    assert current_sheet(w.standings) is sheet and name in sheet.title.text()
    click(qtbot, sheet.cancel_button)
    assert len(records(journal, "dq")) == n and name not in w.director.t.disqualified
    click(qtbot, w.standings.dq_button)
    click(qtbot, w.standings.reason_sheet.other_button)
    keyboard = w.standings.reason_sheet.other_sheet
    click(qtbot, keyboard.done_button)               # nothing typed: refused on the keyboard
    assert "Nothing typed" in keyboard.message.text()
    for key in keyboard.keyboard.buttons_for("foul language"):
        click(qtbot, key)
    click(qtbot, keyboard.done_button)
    last = records(journal, "dq")[-1]
    assert last.kind == "tournament.disqualify" and last.payload["reason"] == "foul language"


def test_a_euchre_bracket_of_6_is_drawn_with_every_match_and_hands_entered(
        qtbot: Any, journal: Journal) -> None:
    t = new_tournament(journal, "eu", "euchre", 6)
    t.start(by="setup/operator")
    w = open_window(qtbot, journal, "eu")
    w.show_tab("Bracket")
    view = w.bracket
    assert t.bracket is not None
    assert set(view.boxes) == {s.id for s in t.bracket.specs}     # 15 boxes, byes included
    rects = [b.sceneBoundingRect() for b in view.boxes.values()]
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    assert w.tabs.isTabVisible(w.tabs.indexOf(w.bracket_page))
    assert not w.tabs.isTabVisible(w.tabs.indexOf(w.seating))
    # Touch a match to play, then enter its hands on the Results page.
    mid = t.bracket.ready()[0]
    w.choose_match(mid)
    w.show_tab("Results")
    m = w.matches
    assert m.match == mid
    click(qtbot, m.maker_buttons[0])
    click(qtbot, m.tricks.button(5))
    click(qtbot, m.hand_button)
    a, b = t.bracket.teams_of(mid)
    sheet = w.director.t.euchre_sheet(mid)
    assert sheet is not None and sheet.scores == {a: 2, b: 0}
    assert m.sheet.rowCount() == 1 and "march" in m.sheet.item(0, 2).text()
    assert f"{a} 2" in m.totals.text()
    # No makers chosen: the screen asks for them; nothing is journaled.
    n = len(records(journal, "eu"))
    click(qtbot, m.hand_button)
    assert "choose the makers" in w.message.text() and len(records(journal, "eu")) == n


def test_the_window_stays_1280x800_with_12_at_a_table_and_64_teams(
        qtbot: Any, journal: Journal) -> None:
    t = new_tournament(journal, "pk", "po-ke-no", 24)
    t.start(by="setup/operator")
    assert max(map(len, t.seating_chart(1))) == 12
    w = open_window(qtbot, journal, "pk")
    for title in TournamentWindow.TABS:
        if w.tabs.isTabVisible(w.tabs.indexOf(w.page(title))):
            w.show_tab(title)
            qtbot.wait(10)
            assert w.size() == SIZE, title
    assert len(w.results.spins) == 12
    w.clock.left = 0
    w.clock.tick()
    w.clock._show()
    assert w.size() == SIZE
    assert w.clock.banner.text() == "Time: finish the hand under way"
    e = new_tournament(journal, "eu64", "euchre", 64)
    e.start(by="setup/operator")
    w2 = open_window(qtbot, journal, "eu64")
    w2.show_tab("Bracket")
    assert len(w2.bracket.boxes) == len(e.bracket.specs) if e.bracket else False
    assert w2.size() == SIZE
    w2.show_tab("Results")
    assert w2.size() == SIZE


def test_the_round_clock_counts_down_and_calls_time(qtbot: Any) -> None:
    from dealer_station.ui.tournament_clock import RoundClock

    now = [100.0]
    clock = RoundClock(now=lambda: now[0])
    qtbot.addWidget(clock)
    assert clock.figures.text() == "30:00"
    clock.toggle()
    now[0] += 61.5
    clock.tick()
    assert clock.figures.text() == "28:59" and clock.start_button.text() == "Pause"
    clock.toggle()
    now[0] += 500
    clock.tick()
    assert clock.figures.text() == "28:59" and clock.start_button.text() == "Resume"
    clock.toggle()
    with qtbot.waitSignal(clock.expired, timeout=1000):
        now[0] += 30 * 60
        clock.tick()
    assert clock.figures.text() == "00:00" and "finish the hand" in clock.banner.text()


def test_the_director_command_opens_the_window_in_a_process_of_its_own(
        tmp_path: Path, journal: Journal) -> None:
    new_tournament(journal, "cmd", "bourre", 7)
    url = str(journal.db.engine.url)
    env = {"QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(Path(__file__).parents[1]),
           "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "dealer_station", "tournament", "director",
                          "cmd", "--db", url, "--key", str(tmp_path / "journal.key"),
                          "--exit-after", "0.5"], capture_output=True, text=True, env=env,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    missing = subprocess.run([sys.executable, "-m", "dealer_station", "tournament",
                              "director", "nosuch", "--db", url, "--key",
                              str(tmp_path / "journal.key"), "--exit-after", "0.5"],
                             capture_output=True, text=True, env=env, timeout=60)
    assert missing.returncode == 2 and "no tournament 'nosuch'" in missing.stderr


def test_the_journals_own_users_sign_in_with_their_pin(qtbot: Any, journal: Journal) -> None:
    from dealer_station.app import fast_hasher
    from dealer_station.audit.users import Users

    users = Users(journal, hasher=fast_hasher())
    users.seed([("olga", "Olga Operator", "operator", "1357"),
                ("sue", "Sue Supervisor", "supervisor", "2468"),
                ("dan", "Dan Dealer", "dealer", "1111")], actor="setup")
    new_tournament(journal, "pin", "rummy", 4)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    w = TournamentWindow(journal, "pin", users=users)
    qtbot.addWidget(w)
    w.show()
    assert w.sign.pin.isVisible()
    qtbot.keyClicks(w.sign.user_id, "dan")
    qtbot.keyClicks(w.sign.pin, "1111")
    click(qtbot, w.sign.sign_in_button)
    assert w.director.actor is None and "supervisor or operator" in w.message.text()
    w.sign.user_id.clear()
    qtbot.keyClicks(w.sign.user_id, "sue")
    qtbot.keyClicks(w.sign.pin, "2468")
    click(qtbot, w.sign.sign_in_button)
    assert w.director.actor == "sue/supervisor"
    click(qtbot, w.registration.start_button)
    click(qtbot, w.registration.confirm_start_button)
    assert records(journal, "pin")[-1].actor == "sue/supervisor"
    click(qtbot, w.sign.sign_out_button)
    assert not w.results.enter_button.isEnabled()


def test_a_pedro_match_is_entered_with_both_scores(qtbot: Any, journal: Journal) -> None:
    t = new_tournament(journal, "pedro", "pedro", 4)
    t.start(by="setup/operator")
    w = open_window(qtbot, journal, "pedro")
    w.show_tab("Results")
    m = w.matches
    assert m.pedro.isVisible() and not m.euchre.isVisible()
    mid = m.match
    m.scores[0].setValue(40)
    m.scores[1].setValue(40)
    n = len(records(journal, "pedro"))
    click(qtbot, m.score_button)         # level: refused by the engine, nothing journaled
    assert w.message.property("tone") == "bad" and f"match {mid}" in w.message.text()
    assert len(records(journal, "pedro")) == n
    m.scores[0].setValue(62)
    click(qtbot, m.score_button)
    assert w.director.t.bracket is not None
    assert w.director.t.bracket.status(mid).value == "played"
    assert m.match != mid                       # on to the next match to play


def test_a_change_made_elsewhere_is_read_before_the_screen_acts(qtbot: Any, journal: Journal
                                                                ) -> None:
    t = new_tournament(journal, "two", "rummy", 4)
    w = open_window(qtbot, journal, "two")
    journaled.load(journal, "two").register("Zoe Landry", by="console:clerk")   # the CLI
    qtbot.keyClicks(w.registration.entry, "Ida Savoie")
    n = len(records(journal, "two"))
    click(qtbot, w.registration.add_button)
    assert "changed elsewhere" in w.message.text() and len(records(journal, "two")) == n
    assert w.registration.entries.rowCount() == len(t.entries) + 1      # Zoe shown now
    click(qtbot, w.registration.add_button)
    assert "Ida Savoie" in w.director.t.entries


def test_a_team_is_registered_with_its_two_players(qtbot: Any, journal: Journal) -> None:
    new_tournament(journal, "teams", "euchre", 2)
    w = open_window(qtbot, journal, "teams")
    reg = w.registration
    assert reg.member_a.isVisible() and reg.member_b.isVisible()
    qtbot.keyClicks(reg.entry, "Aces")
    qtbot.keyClicks(reg.member_a, "Ida Savoie")
    click(qtbot, reg.add_button)
    assert "teams of 2" in w.message.text()
    qtbot.keyClicks(reg.member_b, "Eula Doucet")
    click(qtbot, reg.add_button)
    assert w.director.t.entries["Aces"] == ("Ida Savoie", "Eula Doucet")
    assert "60.00 USD" in reg.money.text()    # 3 teams x 2 people x 10.00 USD


def test_closing_registration_is_asked_once_more_and_cancel_leaves_it_open(
        qtbot: Any, journal: Journal) -> None:
    """Close registration and start" started the games at once, with no confirmation."""
    new_tournament(journal, "ask", "pitty-pat", 5)
    w = open_window(qtbot, journal, "ask")
    reg = w.registration
    click(qtbot, reg.start_button)
    # Asked, with two large buttons, and nothing done yet.
    assert reg.confirm_box.isVisible() and not reg.start_button.isVisible()
    assert "5 players" in reg.confirm_text.text()
    for b in (reg.confirm_start_button, reg.cancel_start_button):
        assert b.isVisible() and b.height() >= 64 and b.width() >= 150
    assert not w.director.t.started
    assert "tournament.start" not in [r.kind for r in records(journal, "ask")]
    click(qtbot, reg.cancel_start_button)
    # Registration stays open: the page as it was, and one more player can enter.
    assert not reg.confirm_box.isVisible() and reg.start_button.isVisible()
    assert not w.director.t.started and reg.add_button.isEnabled()
    click(qtbot, reg.entry)
    reg.entry.setText("Rosalie Doucet")
    click(qtbot, reg.add_button)
    assert len(w.director.t.entries) == 6
    click(qtbot, reg.start_button)
    assert "6 players" in reg.confirm_text.text()
    click(qtbot, reg.confirm_start_button)
    assert w.director.t.started and w.director.t.current_round == 1
    assert not reg.confirm_box.isVisible()
    assert [r.actor for r in records(journal, "ask") if r.kind == "tournament.start"] == [
        "Judy Broussard/director"]


def _standing_rows(w: TournamentWindow) -> list[tuple[str, str, int, str]]:
    """(place, entry, tags, status) of each row of the Standings page, top to bottom."""
    table = w.standings.table
    out = []
    for r in range(table.rowCount()):
        place, entry, _players, tags, status = (table.item(r, c).text() for c in range(5))
        out.append((place, entry, int(tags.split()[-1]), status))
    return out


def test_the_standings_show_each_place_mid_event_with_ties_as_ties(
        qtbot: Any, journal: Journal) -> None:
    """tour-06-standings.png: mid-event the Place column was empty."""
    import random

    from dealer_station.ui.tournament_demo import play_round

    t = new_tournament(journal, "mid", "pitty-pat", 14)
    t.start(by="setup/operator")
    rng = random.Random(4)
    for _ in range(3):
        play_round(t, rng)
    assert not t.finished and t.eliminated
    w = open_window(qtbot, journal, "mid")
    w.show_tab("Standings")
    rows = _standing_rows(w)
    assert len(rows) == 14 and all(place for place, *_ in rows)
    playing = [(p, e, n) for p, e, n, s in rows if s == "playing"]
    counts = [n for _p, _e, n in playing]
    assert len(set(counts)) < len(counts)            # this event has players level on tags
    for place, entry, n in playing:
        better = sum(1 for x in counts if x < n)
        level = counts.count(n) > 1
        expected = place_text(better + 1) + (" (tied)" if level else "")
        assert place == expected, entry
    # Best first; the eliminated below everyone still playing, the latest out first, each in
    # the place the final standings will give them.
    out = [(p, e) for p, e, _n, s in rows if s == "eliminated"]
    assert [e for _p, e in out] == list(reversed(w.director.t.eliminated))
    assert [p for p, _e in out] == [place_text(len(playing) + i)
                                    for i in range(1, len(out) + 1)]
    assert [s for *_x, s in rows] == sorted((s for *_x, s in rows),
                                            key=lambda s: s != "playing")
    assert "places as they stand" in w.standings.title.text()
