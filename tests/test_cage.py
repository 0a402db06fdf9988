"""Fills and credits through the cage (table/cage.py): request, issue, carry, receipt and
voids, each refused in words when a signer lacks the role, one person would sign twice, or the
chips differ from the step before; the slip counts in the table's figures only on receipt.
On SQLite and PostgreSQL, and through the command line's contract."""

from __future__ import annotations

import io
import json
import re
import sys
import threading
from datetime import date, timedelta
from pathlib import Path

import pytest
from accounting_support import CAL, PIN, Setup

from dealer_station.accounting.cage_settings import CageSettings
from dealer_station.accounting.chips import Chips
from dealer_station.accounting.ledger import AccountingRefused
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.cli.cage import LIST_KEYS
from dealer_station.cli.main import main
from dealer_station.events.accounting import FillSlip, SlipRequested
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.cage import CageDesk

MICS = AccountingSettings(variance_threshold=2500)
TRAY = Chips.of({100: 100, 500: 100, 2500: 40})
WANT = Chips.of({2500: 20, 10000: 5})
DAY = date(2026, 3, 2)


@pytest.fixture
def s(tmp_path: Path) -> Setup:
    setup = Setup(f"sqlite:///{tmp_path / 'journal.db'}", tmp_path / "journal.key")
    setup.book = TableAccounting(setup.journal, "T1", MICS, CAL)
    setup.book.opener(TRAY, setup.who("dee"), setup.who("sue"))
    return setup


def _asked(desk: CageDesk, s: Setup, kind: str = "fill", chips: Chips = WANT) -> tuple[int, int]:
    e = accounting_event(desk.request(kind, chips, s.who("sue"), note="tray low"),
                         SlipRequested)
    return e.year, e.request


def test_a_fill_moves_through_every_step_and_counts_only_on_receipt(s: Setup) -> None:
    desk = CageDesk(s.book)
    year, n = _asked(desk, s)
    assert (year, n) == (2026, 1)
    assert desk.ledger().request(year, n).state == "requested"
    s.clock.tick(3)
    desk.issue(year, n, WANT, [s.who("cas")])
    req = desk.ledger().request(year, n)
    assert (req.state, req.slip_label, req.label) == ("issued", "T1-F-2026-00001",
                                                     "T1-R-2026-00001")
    assert s.book.ledger().days[DAY].fills == 0          # chips at the cage count nowhere
    s.clock.tick(2)
    desk.carry(year, n, [s.who("sec")])
    assert desk.ledger().request(year, n).state == "in transit"
    s.clock.tick(4)
    desk.receive(year, n, WANT, [s.who("dee"), s.who("sue")])
    ledger = s.book.ledger()
    req = ledger.request(year, n)
    assert req.state == "received" and not req.open
    assert ledger.days[DAY].fills == WANT.total
    slip = ledger.slips[("fill", 2026, 1)]
    assert isinstance(slip.event, FillSlip)
    assert slip.event.signers == ("cas/cage", "sec/security", "dee/dealer", "sue/supervisor")
    assert (slip.event.request, slip.event.request_year, slip.event.note) == (1, 2026,
                                                                            "tray low")
    # Each signature's time is its step's record's.
    times = [c.ts for _, c in req.steps()]
    assert times == sorted(times) and len(set(times)) == 4
    assert s.journal.verify_table("T1").ok


def test_a_credit_takes_chips_out_of_the_tray_on_receipt(s: Setup) -> None:
    desk = CageDesk(s.book)
    year, n = _asked(desk, s, "credit", Chips.of({500: 40}))
    desk.issue(year, n, Chips.of({500: 40}), [s.who("cas")])
    desk.carry(year, n, [s.who("sec")])
    desk.receive(year, n, Chips.of({500: 40}), [s.who("dan"), s.who("op")])
    ledger = s.book.ledger()
    assert ledger.days[DAY].credits == 20000
    assert ledger.request(year, n).slip_label == "T1-C-2026-00001"


def test_each_step_refuses_the_wrong_signer_a_second_signature_and_other_chips(
        s: Setup) -> None:
    desk = CageDesk(s.book)
    before = s.book.ledger().count        # accounting records (sign-ins are journaled too)
    with pytest.raises(AccountingRefused, match=r"\(dee\) is a dealer; this signature is for a "
                                                "supervisor"):
        desk.request("fill", WANT, s.who("dee"))
    year, n = _asked(desk, s)
    assert s.book.ledger().count == before + 1
    with pytest.raises(AccountingRefused, match=r"\(sue\) is a supervisor; this signature is for "
                                                "a cage cashier"):
        desk.issue(year, n, WANT, [s.who("sue")])
    with pytest.raises(AccountingRefused, match="differ from the request"):
        desk.issue(year, n, Chips.of({2500: 19, 10000: 5}), [s.who("cas")])
    with pytest.raises(AccountingRefused, match="differ from the request"):
        desk.issue(year, n, Chips.of({2500: 40, 10000: 4}), [s.who("cas")])  # same total
    with pytest.raises(AccountingRefused, match="can be carried only when issued"):
        desk.carry(year, n, [s.who("sec")])
    with pytest.raises(AccountingRefused, match="can be received only when in transit"):
        desk.receive(year, n, WANT, [s.who("dee"), s.who("sue")])
    desk.issue(year, n, WANT, [s.who("cas")])
    with pytest.raises(AccountingRefused, match="can be issued only when requested"):
        desk.issue(year, n, WANT, [s.who("cal")])
    with pytest.raises(AccountingRefused, match=r"\(cas\) is a cage cashier; this signature is for "
                                                "a security officer"):
        desk.carry(year, n, [s.who("cas")])
    desk.carry(year, n, [s.who("sec")])
    with pytest.raises(AccountingRefused, match=r"\(dee\) cannot sign twice"):
        desk.receive(year, n, WANT, [s.who("dee"), s.who("dee")])
    with pytest.raises(AccountingRefused, match=r"\(dee\) is a dealer; this signature is for a "
                                                "supervisor"):
        desk.receive(year, n, WANT, [s.who("dan"), s.who("dee")])
    with pytest.raises(AccountingRefused, match="differ from the slip"):
        desk.receive(year, n, Chips.of({2500: 20, 10000: 4}), [s.who("dee"), s.who("sue")])
    with pytest.raises(AccountingRefused, match="needs 2 signatures"):
        desk.receive(year, n, WANT, [s.who("dee")])
    assert s.book.ledger().count == before + 3          # the request, issue and carry only
    desk.receive(year, n, WANT, [s.who("dee"), s.who("sue")])
    assert s.book.ledger().count == before + 4


def test_the_cashier_cannot_also_carry_or_receive_what_they_issued(tmp_path: Path) -> None:
    # A jurisdiction that lets any supervisor carry and receive: the person check still holds.
    loose = AccountingSettings(cage=CageSettings(runner=("supervisor",),
                                                 receipt=("dealer", "supervisor")))
    s = Setup(f"sqlite:///{tmp_path / 'j.db'}", tmp_path / "j.key")
    s.book = TableAccounting(s.journal, "T1", loose, CAL)
    s.book.opener(TRAY, s.who("dee"), s.who("sue"))
    desk = CageDesk(s.book)
    year, n = _asked(desk, s)
    desk.issue(year, n, WANT, [s.who("cas")])
    desk.carry(year, n, [s.who("op")])
    with pytest.raises(AccountingRefused, match="op already signed T1-F-2026-00001"):
        desk.receive(year, n, WANT, [s.who("dee"), s.who("op")])
    desk.receive(year, n, WANT, [s.who("dee"), s.who("sue")])


@pytest.mark.parametrize("step", ["requested", "issued", "in transit", "received"])
def test_a_void_at_each_step_takes_two_signers_and_stops_the_slip_counting(
        s: Setup, step: str) -> None:
    desk = CageDesk(s.book)
    year, n = _asked(desk, s)
    if step != "requested":
        desk.issue(year, n, WANT, [s.who("cas")])
    if step in ("in transit", "received"):
        desk.carry(year, n, [s.who("sec")])
    if step == "received":
        desk.receive(year, n, WANT, [s.who("dee"), s.who("sue")])
        assert s.book.ledger().days[DAY].fills == WANT.total
    with pytest.raises(AccountingRefused, match="needs 2 signatures"):
        desk.void(year, n, "wrong table", [s.who("sue")])
    with pytest.raises(AccountingRefused, match=r"\(sue\) cannot sign twice"):
        desk.void(year, n, "wrong table", [s.who("sue"), s.who("sue")])
    with pytest.raises(AccountingRefused, match=r"\(sec\) is a security officer; this signature is "
                                                "for a cage cashier"):
        desk.void(year, n, "wrong table", [s.who("sue"), s.who("sec")])
    with pytest.raises(AccountingRefused, match="needs a reason"):
        desk.void(year, n, "  ", [s.who("sue"), s.who("cal")])
    desk.void(year, n, "wrong table", [s.who("sue"), s.who("cal")])
    ledger = s.book.ledger()
    req = ledger.request(year, n)
    assert req.state == "voided" and not req.open
    assert ledger.days[DAY].fills == 0
    with pytest.raises(AccountingRefused, match="already voided"):
        desk.void(year, n, "again", [s.who("sue"), s.who("cal")])
    if step == "received":
        assert ledger.slips[("fill", 2026, 1)].void is not None
        voided = ledger.slips[("fill", 2026, 1)].void
        assert voided is not None and voided.signers == ("sue/supervisor", "cal/cage")
    else:
        assert req.void is not None and req.void.state == step
        with pytest.raises(AccountingRefused, match="voided"):
            desk.receive(year, n, WANT, [s.who("dee"), s.who("sue")])
    # A voided slip keeps its number: the next one takes the one after.
    y2, n2 = _asked(desk, s)
    desk.issue(y2, n2, WANT, [s.who("cas")])
    expected = 1 if step == "requested" else 2
    assert desk.ledger().request(y2, n2).slip_label == f"T1-F-2026-{expected:05d}"


def test_a_request_not_received_in_time_is_overdue(s: Setup) -> None:
    desk = CageDesk(s.book)
    year, n = _asked(desk, s)
    req = desk.ledger().request(year, n)
    assert not req.overdue(s.clock(), MICS.cage.alert_minutes)
    s.clock.tick(MICS.cage.alert_minutes + 1)
    assert req.overdue(s.clock(), MICS.cage.alert_minutes)
    desk.void(year, n, "not needed", [s.who("sue"), s.who("cas")])
    assert not desk.ledger().request(year, n).overdue(s.clock(), MICS.cage.alert_minutes)


def test_a_one_step_slip_is_refused_where_the_cage_signs(s: Setup) -> None:
    with pytest.raises(AccountingRefused, match="issued by the cage against a request"):
        s.book.slip("fill", WANT, s.who("dee"), s.who("sue"))


def test_the_settings_name_the_roles_and_copies(tmp_path: Path) -> None:
    from dealer_station.accounting.settings import load_settings
    from dealer_station.tomlconfig import ConfigError

    f = tmp_path / "accounting.toml"
    f.write_text('[accounting]\n[cage]\nissue = ["cage"]\nrunner = []\nreceipt = ["dealer"]\n'
                 'copies = ["Original", "Duplicate"]\nalert_minutes = 30\n')
    cage = load_settings(f).cage
    assert (cage.runner, cage.receipt, cage.copies, cage.alert_minutes) == (
        (), ("dealer",), ("Original", "Duplicate"), 30)
    for bad, says in (('issue = ["cashier"]', "cage.issue[0]: 'cashier' is not a role"),
                      ('void = ["supervisor"]', "cage.void: names 2 signatures, got 1"),
                      ('issue = []\nrunner = ["security"]', "cage.runner: needs the cage's"),
                      ('copies = []', "cage.copies: needs at least one copy"),
                      ('alert_minutes = 0', "cage.alert_minutes"),
                      ('colour = "red"', "colour")):
        f.write_text(f"[accounting]\n[cage]\n{bad}\n")
        with pytest.raises(ConfigError, match=re.escape(says)):
            load_settings(f)


def test_two_cashiers_at_once_issue_one_slip(db_url: str, tmp_path: Path) -> None:
    """Two cage screens issuing the same request at the same moment, each on a connection of
    its own: one slip is issued, the other refused, and no number is taken twice."""
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import load_key

    s = Setup(db_url, tmp_path / "journal.key")
    try:
        s.book = TableAccounting(s.journal, "T1", MICS, CAL)
        s.book.opener(TRAY, s.who("dee"), s.who("sue"))
        desk = CageDesk(s.book)
        asked = [_asked(desk, s) for _ in range(4)]
        cashiers = [s.who("cas"), s.who("cal")]
        go = threading.Barrier(2)
        issued: list[str] = []
        refused: list[str] = []

        def issue(who: int) -> None:
            db = open_database(db_url)
            try:
                journal = Journal(db, load_key(tmp_path / "journal.key"), clock=s.clock)
                mine = CageDesk(TableAccounting(journal, "T1", MICS, CAL))
                go.wait()
                for year, n in asked:
                    try:
                        mine.issue(year, n, WANT, [cashiers[who]])
                        issued.append(f"{n}")
                    except AccountingRefused as e:
                        refused.append(str(e))
            finally:
                db.close()

        threads = [threading.Thread(target=issue, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(issued) == ["1", "2", "3", "4"]
        assert len(refused) == 4 and all("can be issued only when requested" in r
                                         for r in refused)
        numbers = sorted(r.issue.number for r in desk.ledger().requests.values()
                         if r.issue is not None)
        assert numbers == [1, 2, 3, 4]
        assert s.journal.verify_table("T1").ok
    finally:
        s.close()


# -- the command line's contract ---------------------------------------------------------------

def cage(s: Setup, tmp: Path, *argv: str, pins: str = "") -> int:
    old = sys.stdin
    sys.stdin = io.StringIO(pins)
    try:
        return main(["cage", *argv, "--db", s.url, "--key", str(s.key_path)])
    finally:
        sys.stdin = old


def test_the_command_line_takes_a_fill_through_the_cage(
        s: Setup, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    (tmp_path / "accounting.toml").write_text("[accounting]\n")
    s.close()
    t = ("--table", "T1", "--pin-stdin")
    assert cage(s, tmp_path, "request", *t, "--slip", "fill", "--chips", "2500x20,10000x5",
                "--signer", "sue", pins=f"{PIN}\n") == 0
    assert "fill request T1-R-" in capsys.readouterr().out
    year = str(s.clock().year)
    # Refusals exit 2 with the reason, and journal nothing.
    assert cage(s, tmp_path, "issue", *t, "--request", "1", "--chips", "2500x20",
                "--signer", "cas", pins=f"{PIN}\n") == 2
    assert "differ from the request" in capsys.readouterr().err
    assert cage(s, tmp_path, "issue", *t, "--request", "1", "--chips", "2500x20,10000x5",
                "--signer", "cas", "--signer", "cal", pins=f"{PIN}\n{PIN}\n") == 2
    assert "needs 1 signer (cage" in capsys.readouterr().err
    assert cage(s, tmp_path, "issue", *t, "--request", "9", "--chips", "2500x20",
                "--signer", "cas", pins=f"{PIN}\n") == 2
    assert "no request T1-R-" in capsys.readouterr().err
    assert cage(s, tmp_path, "issue", *t, "--request", "1", "--year", year,
                "--chips", "2500x20,10000x5", "--signer", "cas", pins=f"{PIN}\n") == 0
    assert cage(s, tmp_path, "carry", *t, "--request", "1", "--signer", "sec",
                pins=f"{PIN}\n") == 0
    assert cage(s, tmp_path, "list", "--json") == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert len(rows) == 1 and set(rows[0]) == set(LIST_KEYS)
    row = rows[0]
    assert (row["label"], row["state"], row["slip_label"], row["total"]) == (
        f"T1-R-{year}-00001", "in transit", f"T1-F-{year}-00001", 100000)
    assert [x["step"] for x in row["steps"]] == ["requested", "issued", "in transit"]
    assert row["overdue"] is False and row["waited_minutes"] == 0
    assert cage(s, tmp_path, "receive", *t, "--request", "1", "--chips", "2500x20,10000x5",
                "--signer", "dee", "--signer", "dee", pins=f"{PIN}\n{PIN}\n") == 2
    assert "dee cannot sign twice" in capsys.readouterr().err
    assert cage(s, tmp_path, "receive", *t, "--request", "1", "--chips", "2500x20,10000x5",
                "--signer", "dee", "--signer", "sue", pins=f"{PIN}\n{PIN}\n") == 0
    assert "received at table T1" in capsys.readouterr().out
    assert cage(s, tmp_path, "list", "--open", "--json") == 0
    assert capsys.readouterr().out.strip() == ""
    assert cage(s, tmp_path, "void", *t, "--request", "1", "--reason", "wrong table",
                "--signer", "sue", "--signer", "cas", pins=f"{PIN}\n{PIN}\n") == 0
    assert cage(s, tmp_path, "list") == 0
    assert "Voided" in capsys.readouterr().out
    assert main(["accounting", "slips", "--json", "--table", "T1", "--db", s.url,
                 "--key", str(s.key_path)]) == 0
    slips = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(x["number"], x["voided"]) for x in slips] == [(1, True)]


def test_the_simulated_days_go_through_the_cage(tmp_path: Path) -> None:
    from dealer_station import registry
    from dealer_station.table.parts import SIMULATE_DAYS

    s = Setup(f"sqlite:///{tmp_path / 'j.db'}", tmp_path / "j.key", people=False)
    days = next(d for g in registry.REGISTRY.values()
                if (d := g.supplies(SIMULATE_DAYS)) is not None)
    days(s.journal, "T1", 40, days=2, mispay_rate=0.0, seed=7, settings=MICS, calendar=CAL,
         start=DAY, quiet=True)
    ledger = TableAccounting(s.journal, "T1", MICS, CAL).ledger()
    assert ledger.requests, "the simulated days took no fill or credit"
    assert all(r.state == "received" for r in ledger.requests.values())
    assert len(ledger.slips) == len(ledger.requests)
    for slip in ledger.slips.values():
        roles = [x.split("/")[1] for x in slip.event.signers]
        assert roles == ["cage", "security", "dealer", "supervisor"]
    moved = sum(d.fills + d.credits for d in (ledger.days[DAY],
                                              ledger.days[DAY + timedelta(days=1)]))
    assert moved == sum(r.event.total for r in ledger.requests.values())
