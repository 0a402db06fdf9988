"""Game protection, live, on the real screens: a table whose shoe deals a 7 first round after
round raises the monitor's alert the moment the evidence crosses its threshold; it is
journaled as a significant event, said on the supervisor's screen, listed on the Protection
tab, and opens to its evidence page (the chart of the statistic, the rounds, their recall).
The same alert is what `dealer-station monitor` finds in the journal afterwards. The pit's
side (the alert on the podium, its evidence, its acknowledgement with a reason) is in
tests/test_pit.py, on the demo floor's T6."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from ui_support import WAIT_MS, sign_in

from dealer_station.app import Station
from dealer_station.cli.main import main
from dealer_station.events.table import ProtectionAlerted
from dealer_station.games.lapaire.rules.engine import Wager
from dealer_station.monitor import Monitor, MonitorSettings
from dealer_station.monitor.cusum import designed
from dealer_station.ui.main_window import MainWindow
from dealer_station.ui.protection_page import alert_of

SEVENS = ("7H", "7S", "7D", "7C")
#: The second and third cards: every value and both colours in turn, as a fair shoe would.
OTHERS = ("2C", "3D", "4S", "5H", "6C", "8D", "9S", "10H", "JC", "QD", "KS", "AH", "JK")


def crossing_round() -> int:
    """The round at which a 7 first in every round crosses the First Card's 7 test: each
    such round adds log(p1/p0) to it (p0 = 4/54, p1 = p0 + d(1 - p0)); the threshold is the
    shoe rule's at the default settings."""
    m = Monitor("T1", MonitorSettings())
    p0 = 4 / 54
    step = math.log(designed(p0, m.settings.shoe.shift) / p0)
    return math.ceil(m.thresholds["shoe"] / step)


def deal_round(station: Station, first: str) -> None:
    t: Any = station.table
    n = t.last_round_no()
    t.place_many([Wager(1, "straight", ("K",), 500), Wager(1, "red", (), 100)],
                 actor="dealer/dealer")
    for c in (first, OTHERS[n % 13], OTHERS[(n + 5) % 13]):
        t.deal(c)
        for n in t.unconfirmed():
            t.confirm_payout(n)


def alerts(station: Station) -> list[ProtectionAlerted]:
    return [alert_of(r) for r in station.journal.records(station.table_id,
                                                         kinds=[ProtectionAlerted.KIND])]


def test_a_biased_shoe_raises_an_alert_live_on_the_supervisors_screen_with_its_evidence(
        qtbot: Any, window: MainWindow, station: Station, tmp_path: Any,
        capsys: pytest.CaptureFixture[str]) -> None:
    sign_in(qtbot, window, "super", "2222")
    sup = window.screens["supervisor"]
    crossing = crossing_round()
    assert 9 <= crossing <= 12
    dealt = 0
    while not alerts(station):
        deal_round(station, SEVENS[dealt % 4])
        dealt += 1
        assert dealt <= 15, "no alert after 15 rounds that each dealt a 7 first"
    # A 7 first in every round: each adds log(p1/p0) = 1.42 to the First Card's 7 test, which
    # crosses its threshold (13.8 when the shoe and card knowledge share the rate) at the
    # round worked out above; no other test can: no other value, colour or seat is out of
    # pattern.
    (alert,) = alerts(station)
    assert (alert.rule, alert.test, alert.round_no, alert.seat) == ("shoe", "shoe:1:7",
                                                                   crossing, None)
    assert alert.dealer == station.table.dealer
    assert alert.p_value < 1e-6 and alert.number("llr") >= alert.number("threshold")
    # Said on the supervisor's screen, and counted on the Protection tab's title.
    qtbot.waitUntil(lambda: "Game protection" in sup.message.text(), timeout=WAIT_MS)
    assert f"Round {crossing}" in sup.message.text() and "a 7" in sup.message.text()
    tab = sup.tabs.indexOf(sup.protection)
    assert sup.tabs.tabText(tab) == "Protection (1 new)"
    sup.tabs.setCurrentIndex(tab)
    qtbot.waitUntil(lambda: sup.protection.table.rowCount() == 1, timeout=WAIT_MS)
    assert sup.protection.table.item(0, 2).text() == "Shoe out of pattern"
    assert sup.protection.table.item(0, 1).text() == str(crossing)
    # Its evidence page: the statistic climbs round by round to the threshold; every round
    # of the evidence is a hit; the recall is the round's.
    sup.protection.open_row(0)
    page = sup.protection.page
    assert sup.protection.stack.currentWidget() is page
    ev = page.evidence
    assert ev is not None and [p.round_no for p in ev.points] == list(range(1, crossing + 1))
    stats = [p.statistic for p in ev.points]
    assert stats == sorted(stats) and stats[-1] >= ev.threshold > stats[-2]
    assert ev.rounds == ev.hits == tuple(range(1, crossing + 1))
    assert page.rounds.count() == crossing
    assert page.rounds.item(0).text() == f"Round {crossing} · hit"
    recalled = page.recall.toPlainText()
    assert f"Round {crossing}" in recalled
    assert f"First Card: 7{'♥♠♦♣'[(crossing - 1) % 4]}" in recalled
    assert "Shoe out of pattern" in page.title.text()
    assert f"round {crossing}" in page.title.text()
    assert sup.tabs.tabText(tab) == "Protection"           # opened: nothing new any more
    # Offline, over the journal, the monitor finds the very same alert.
    db = station.journal.db.engine.url.render_as_string(hide_password=False)
    key = str(station.journal.key.path)
    capsys.readouterr()
    assert main(["monitor", "--db", db, "--key", key, "--json"]) == 0
    (found,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (found["rule"], found["test"], found["round_no"], found["llr"]) == (
        "shoe", "shoe:1:7", crossing, float(alert.evidence["llr"]))


def test_a_restart_journals_an_alert_the_chain_lacks_and_no_other(
        qtbot: Any, window: MainWindow, station: Station) -> None:
    """The station stopped between a round's close and its alert: the next start reads the
    gaming day again and journals it; an alert the chain holds is not journaled twice."""
    t: Any = station.table
    crossing = crossing_round()
    for n in range(crossing - 1):
        deal_round(station, SEVENS[n % 4])
    # The crossing round closes while no monitor watches (as when the station stops between
    # the round's close and its alert): nothing is journaled.
    t.protection = None
    deal_round(station, SEVENS[1])
    assert alerts(station) == []
    t.watch()                     # the next start
    (alert,) = alerts(station)
    assert (alert.test, alert.round_no) == ("shoe:1:7", crossing)
    t.watch()                     # and the one after: the chain holds it already
    assert len(alerts(station)) == 1
    # The monitor watches on from where it was: the next 7s build new evidence from 0.
    deal_round(station, SEVENS[2])
    assert len(alerts(station)) == 1
