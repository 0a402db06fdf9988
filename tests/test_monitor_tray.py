"""The tray rule (dealer_station/monitor/tray.py, table/monitor_tray.py): each dealer's share of
the tray's variances, looked at once a counted gaming day.

The rank-sum test is held to a count of every draw; the rule to its crossing and its share of
the false-alarm rate on shifts drawn at random; and the live path to a journal made by the real
simulation of whole gaming days, with three dealers taking the shifts in turn and one who
overpays (``--inject mispays:D@ROUND``): the count room journals the alert naming that dealer,
`dealer-station monitor --json` finds the same alert again, its evidence is read again, and a
clean run where every dealer mispays now and then raises none.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import pytest
from accounting_support import CAL, SETTINGS, Clock, Setup
from scipy.stats import hypergeom

from dealer_station.cli.main import main
from dealer_station.events.table import ProtectionAlerted
from dealer_station.monitor.settings import MonitorSettings, TraySettings
from dealer_station.monitor.tray import (
    TRAY,
    ShiftTally,
    TrayRule,
    dealer_variances,
    rank_sum_tail,
)

START = date(2026, 3, 1)


# --- the exact rank-sum tail ---------------------------------------------------------------------

def _brute(scores: list[int], mine: list[bool]) -> float:
    from scipy.stats import rankdata

    ranks = list(rankdata(scores))
    m = sum(mine)
    seen = sum(r for r, x in zip(ranks, mine, strict=True) if x)
    draws = list(itertools.combinations(range(len(scores)), m))
    return sum(1 for d in draws if sum(ranks[i] for i in d) >= seen - 1e-9) / len(draws)


def test_the_rank_sum_tail_is_the_share_of_every_draw_at_least_as_far_out() -> None:
    rng = random.Random(7)
    for _ in range(60):
        n = rng.randint(2, 11)
        scores = [rng.choice((0, 0, 100, 200, 300, 900)) for _ in range(n)]   # many ties
        mine = [rng.random() < 0.4 for _ in range(n)]
        assert rank_sum_tail(scores, mine) == pytest.approx(_brute(scores, mine), rel=1e-9)
    assert rank_sum_tail([5, 5, 5], [True, False, False]) == 1.0     # all tied: no evidence
    assert rank_sum_tail([1, 2], [False, False]) == 1.0


def test_when_only_one_dealers_trays_are_out_it_is_the_hypergeometric_tail() -> None:
    """Others never out: the rank sum orders the draws exactly as the count of shifts out."""
    for n, m, x in ((21, 7, 7), (30, 10, 6), (12, 4, 3)):
        scores = [100 * (i + 1) if i < x else 0 for i in range(m)] + [0] * (n - m)
        mine = [True] * m + [False] * (n - m)
        assert rank_sum_tail(scores, mine) == pytest.approx(
            float(hypergeom.sf(x - 1, n, x, m)), rel=1e-9)


# --- the rule on shifts drawn at random ---------------------------------------------------------

def _tallies(days: int, variance: dict[str, float], rng: random.Random, *,
             rounds: int = 100, shifts: int = 3, dealers: tuple[str, ...] = ("d1", "d2", "d3"),
             first: date = START, base: float = 0.0) -> tuple[list[ShiftTally], list[date]]:
    """``days`` days of ``shifts`` shifts, the dealers in turn; each shift's variance the sum of
    its mispays: ``base`` of its winning wagers a chip either way, and ``variance[dealer]``
    of them a chip too many (the tray short)."""
    out = []
    n = 0
    for d in range(days):
        day = first + timedelta(days=d)
        for s in range(shifts):
            dealer = dealers[(d + s) % len(dealers)]
            wins = rounds // shifts * 3
            v = sum(rng.choice((-100, 100)) for _ in range(wins) if rng.random() < base)
            v -= 100 * sum(1 for _ in range(wins) if rng.random() < variance.get(dealer, 0))
            out.append(ShiftTally(day, f"S{s}", {dealer: rounds // shifts}, v, n + 1,
                                  n + rounds // shifts))
            n += rounds // shifts
    return out, sorted({t.gaming_day for t in out})


def test_a_mispaying_dealer_is_alerted_once_when_the_evidence_crosses() -> None:
    rule = TrayRule("T1", MonitorSettings())
    tallies, counted = _tallies(20, {"d2": 0.1}, random.Random(1))
    alerts = rule.looks(tallies, counted)
    assert [a.dealer for a in alerts] == ["d2"]           # once, though it stays significant
    (a,) = alerts
    assert a.rule == TRAY and a.test == "tray:d2" and a.seat is None
    day = date.fromisoformat(a.last_day or "")
    assert day in counted
    # The look that alerted is the first whose p-value is below its threshold (set by the
    # day's rounds: 3 shifts of 33).
    alpha = rule.alpha(99)
    for d in counted[:counted.index(day)]:
        p = {v.dealer: v.p_value for v in dealer_variances(rule.window(tallies, d))}["d2"]
        assert p >= alpha
    assert a.p_value < alpha and a.threshold == pytest.approx(-math.log(alpha))
    assert a.round_no == max(t.last_round for t in tallies if t.gaming_day == day)
    assert (a.looks, a.of_shifts, a.hits) == (sum(1 for t in rule.window(tallies, day)
                                                  if t.dealer == "d2"),
                                              len(rule.window(tallies, day)), a.looks)
    # Seven of the dealer's shifts all out, the others' never: p = 3 / C(21, 7) < alpha.
    assert (day - START).days + 1 == 7
    # A gap longer than the window: the evidence starts afresh, and crosses again.
    later, counted2 = _tallies(10, {"d2": 0.1}, random.Random(2), first=START + timedelta(60))
    again = rule.looks(tallies + later, counted + counted2)
    assert [x.dealer for x in again] == ["d2", "d2"]
    assert again[1].first_day == (START + timedelta(60)).isoformat()


def test_the_rules_share_of_the_rate_holds_on_fair_trays() -> None:
    """Every dealer mispays alike (a chip either way, 1 winning wager in 50): over 1,500 looks
    (150,000 rounds) its share allows 0.6 false alarms; none is raised, while a dealer who
    short-pays 1 wager in 10 on top of that is found."""
    rule = TrayRule("T1", MonitorSettings(tray=TraySettings(days=10)))
    assert rule.rate * 150_000 == pytest.approx(0.04 / 4.04 * 15)
    raised = 0
    for seed in range(5):
        tallies, counted = _tallies(300, {}, random.Random(seed), base=0.02)
        raised += len(rule.looks(tallies, counted))
    assert raised == 0
    tallies, counted = _tallies(30, {"d3": 0.1}, random.Random(9), base=0.02)
    assert {a.dealer for a in rule.looks(tallies, counted)} == {"d3"}


def test_the_rules_settings_are_read_and_refused_with_the_key_named(tmp_path: Path) -> None:
    from dealer_station.monitor.settings import load_monitor_settings
    from dealer_station.tomlconfig import ConfigError

    f = tmp_path / "station.toml"
    f.write_text("[monitor]\n[monitor.tray]\nshare = 0.5\ndays = 14\n")
    s = load_monitor_settings(f)
    assert s.tray == TraySettings(0.5, 14) and s.total_share == 4.5
    f.write_text("[monitor]\n[monitor.tray]\ndays = 0\n")
    with pytest.raises(ConfigError, match=r"monitor\.tray\.days"):
        load_monitor_settings(f)
    assert MonitorSettings().tray == TraySettings(0.04, 30)
    # Off: no look.
    off = TrayRule("T1", MonitorSettings(tray=TraySettings(share=0.0)))
    tallies, counted = _tallies(20, {"d2": 0.1}, random.Random(1))
    assert off.rate == 0 and off.looks(tallies, counted) == []


# --- the live path, on the real simulation ------------------------------------------------------

@dataclass(frozen=True)
class Run:
    db: Path
    key: Path
    url: str


def _simulate(where: Path, *, inject: tuple[str, ...], base: float, days: int) -> Run:
    from dealer_station.games.lapaire.table.days import simulate_days

    where.mkdir()
    s = Setup(f"sqlite:///{where / 'j.db'}", where / "journal.key",
              clock=Clock(CAL.day(START).start), people=False)
    simulate_days(s.journal, "T1", 45, days=days, mispay_rate=base, seed=3, settings=SETTINGS,
                  calendar=CAL, start=START, quiet=True, inject=inject, dealers=3)
    s.db.close()
    return Run(where / "j.db", where / "journal.key", f"sqlite:///{where / 'j.db'}")


@pytest.fixture(scope="module")
def mispaid(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _simulate(tmp_path_factory.mktemp("tray") / "mispaid", inject=("mispays:2@1",),
                     base=0.0, days=8)


def _journal(run: Run):  # type: ignore[no-untyped-def]
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import load_key

    db = open_database(run.url, upgrade=False)
    return Journal(db, load_key(run.key)), db


def _tray_alerts(run: Run) -> list[tuple[object, ProtectionAlerted]]:
    from dealer_station.ui.protection_page import alert_of

    journal, db = _journal(run)
    try:
        return [(r, alert_of(r)) for r in journal.records("T1", kinds=[ProtectionAlerted.KIND])
                if alert_of(r).rule == TRAY]
    finally:
        db.close()


def test_three_dealers_take_the_shifts_in_turn(mispaid: Run) -> None:
    from dealer_station.table.monitor_tray import read_shifts

    journal, db = _journal(mispaid)
    try:
        shifts = read_shifts(journal, "T1", CAL)
    finally:
        db.close()
    assert shifts.counted == [START + timedelta(days=d) for d in range(8)]
    for d in shifts.counted:
        day = [t for t in shifts.tallies if t.gaming_day == d]
        assert len(day) == len(CAL.shifts)
        assert {t.dealer for t in day} == {"sim-dealer/dealer", "sim-dealer-2/dealer",
                                           "sim-dealer-3/dealer"}
        for t in day:   # only the mispaying dealer's trays are short
            assert (t.variance < 0) == (t.dealer == "sim-dealer-2/dealer")


def test_the_count_room_journals_the_alert_naming_the_mispaying_dealer(mispaid: Run) -> None:
    (record, alert), = _tray_alerts(mispaid)
    assert alert.dealer == "sim-dealer-2/dealer" and alert.seat is None
    assert alert.test == "tray:sim-dealer-2/dealer"
    assert alert.evidence["last_day"] == (START + timedelta(days=6)).isoformat()   # day 7
    assert alert.p_value < 1e-4
    # Right after the count that completed its day (the day's last shift's drop).
    seq = record.seq  # type: ignore[attr-defined]
    journal, db = _journal(mispaid)
    try:
        (before,) = journal.records("T1", from_seq=seq - 1, to_seq=seq - 1)
    finally:
        db.close()
    assert before.kind == "drop.count"
    assert before.payload["gaming_day"] == alert.evidence["last_day"]


def test_monitor_finds_the_same_alert_again(mispaid: Run,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (_, alert), = _tray_alerts(mispaid)
    base = ["monitor", "--db", mispaid.url, "--key", str(mispaid.key)]
    assert main([*base, "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    tray = [x for x in lines if x["rule"] == TRAY]
    assert [(x["round_no"], x["dealer"], x["seat"]) for x in tray] == \
        [(alert.round_no, alert.dealer, None)]
    assert tray[0]["p_value"] == pytest.approx(alert.p_value, rel=1e-12)
    assert tray[0]["table"] == "T1" and tray[0]["hits"] == tray[0]["looks"] == 7
    # --gaming-day narrows to the looks at that day.
    assert main([*base, "--json", "--gaming-day", alert.evidence["last_day"]]) == 0
    assert any(json.loads(x)["rule"] == TRAY for x in capsys.readouterr().out.splitlines())
    assert main([*base, "--json", "--gaming-day", START.isoformat()]) == 0
    assert all(json.loads(x)["rule"] != TRAY for x in capsys.readouterr().out.splitlines())
    assert main(base) == 0
    said = capsys.readouterr().out
    assert "Tray variances by dealer" in said and "variances total -" in said


def test_the_alerts_evidence_is_its_looks_at_the_dealer(mispaid: Run) -> None:
    from dealer_station.table.protection_evidence import evidence

    (_, alert), = _tray_alerts(mispaid)
    journal, db = _journal(mispaid)
    try:
        ev = evidence(journal, "T1", alert, MonitorSettings(), CAL)
        # Each day listed opens the recall of the last round the dealer dealt that day.
        recalled = {journal.round_info("T1", r).dealer  # type: ignore[union-attr]
                    for r in ev.recall.values()}
    finally:
        db.close()
    assert len(ev.points) == 7                  # a look a counted day, to the alert's
    assert ev.points[-1].round_no == alert.round_no
    assert ev.points[-1].statistic >= ev.threshold > ev.points[-2].statistic
    assert ev.rounds == tuple(p.round_no for p in ev.points) == ev.hits
    assert ev.labels[alert.round_no] == f"Day {alert.evidence['last_day']} · out"
    assert len(ev.recall) == 7 and recalled == {alert.dealer}


def test_fair_trays_with_every_dealer_mispaying_now_and_then_raise_none(
        tmp_path: Path) -> None:
    run = _simulate(tmp_path / "fair", inject=(), base=0.05, days=6)
    assert _tray_alerts(run) == []
    from dealer_station.table.monitor_tray import read_shifts

    journal, db = _journal(run)
    try:
        out = [t for t in read_shifts(journal, "T1", CAL).tallies if t.variance]
    finally:
        db.close()
    assert len(out) >= 12         # the trays were out, on every dealer's shifts
    assert len({t.dealer for t in out}) == 3


@pytest.mark.parametrize(("args", "said"), [
    (["--inject", "mispays:2@1"], "play it with --gaming-days"),
    (["--gaming-days", "1", "--dealers", "2", "--inject", "mispays:3@1"],
     "dealer 3 is not one of the run's 2 simulated dealers"),
    (["--gaming-days", "1", "--inject", "mispays:0@1"], "from 1 to 9"),
    (["--dealers", "2"], "--dealers needs --gaming-days"),
    (["--gaming-days", "1", "--dealers", "10"], "--dealers must be from 1 to 9"),
])
def test_simulate_refuses_a_mispay_it_cannot_play(tmp_path: Path, args: list[str], said: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--db", f"sqlite:///{tmp_path / 'j.db'}", "--key",
                 str(tmp_path / "j.key"), "--rounds", "5", "--quiet", *args])
    err = capsys.readouterr().err
    assert code == 2 and said in err and "Traceback" not in err
