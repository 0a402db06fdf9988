"""Table-games accounting: two-person slips, numbering, voids, refusals that record nothing,
and tampering that `audit verify` catches (real SQLite files)."""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from accounting_support import CAL, PIN, SETTINGS, TABLE_SIGNED_TOML, Setup

from dealer_station.accounting.chips import Chips, ChipsError, parse_chips
from dealer_station.accounting.ledger import AccountingRefused
from dealer_station.accounting.settings import load_settings
from dealer_station.cli.main import main
from dealer_station.events.accounting import KINDS, FillSlip
from dealer_station.table.accounting import TableAccounting, slip_event
from dealer_station.tomlconfig import ConfigError

DAY = date(2026, 3, 2)
TRAY = Chips.of({100: 100, 500: 100, 2500: 40})


@pytest.fixture
def s(tmp_path: Path) -> Iterator[Setup]:
    setup = Setup(f"sqlite:///{tmp_path / 'journal.db'}", tmp_path / "journal.key")
    yield setup
    setup.close()


def accounting_records(s: Setup) -> list[tuple[int, str]]:
    return [(r.seq, r.kind) for r in s.journal.records("T1", kinds=list(KINDS))]


def count_all(s: Setup) -> int:
    return sum(1 for _ in s.journal.records("T1"))


def test_chips_syntax() -> None:
    denoms = SETTINGS.denominations
    assert parse_chips("500x20,2500x8", denoms).total == 30000
    assert parse_chips("500=10000", denoms) == Chips.of({500: 20})
    for bad, why in (("500=10250", "not a whole number of 500 chips"),
                     ("700x2", "700 is not a chip denomination"),
                     ("500x2,500x3", "given twice"), ("500", "is not DENOMINATIONxCOUNT"),
                     ("500x0", "no chips given"), ("", "give chips")):
        with pytest.raises(ChipsError, match=why):
            parse_chips(bad, denoms)


def test_settings_file_errors_name_file_and_key(tmp_path: Path) -> None:
    f = tmp_path / "accounting.toml"
    f.write_text("[accounting]\ndenominations = [100, -5]\n")
    with pytest.raises(ConfigError, match=r"accounting\.denominations\[1\]"):
        load_settings(f)
    f.write_text("[accounting]\nvariance_treshold = 5\n")
    with pytest.raises(ConfigError, match=r"variance_treshold.*unknown key"):
        load_settings(f)
    f.write_text("[accounting]\ninventory_tolerance = 100\n")
    assert load_settings(f).inventory_tolerance == 100


def test_two_person_rules(s: Setup) -> None:
    dee, dan, sue, amy, ben, op = (s.who(u) for u in ("dee", "dan", "sue", "amy", "ben", "op"))
    with pytest.raises(AccountingRefused, match="two signatures"):
        s.book.opener(TRAY, dee, None)
    with pytest.raises(AccountingRefused, match="this signature is for a supervisor or "
                                                "operator"):
        s.book.opener(TRAY, dee, dan)
    with pytest.raises(AccountingRefused, match="this signature is for a dealer"):
        s.book.opener(TRAY, sue, op)
    assert accounting_records(s) == []
    s.book.opener(TRAY, dee, op)              # an operator stands for the supervisor
    s.clock.tick()
    s.book.slip("fill", Chips.of({2500: 4}), dee, sue)
    s.clock.at(DAY, 23)
    s.book.closer(TRAY, dee, sue)
    with pytest.raises(AccountingRefused, match="two different people"):
        s.book.drop(DAY, 5000, 0, amy, amy)
    with pytest.raises(AccountingRefused, match="for an accounting user"):
        s.book.drop(DAY, 5000, 0, amy, sue)
    with pytest.raises(AccountingRefused, match="two signatures"):
        s.book.drop(DAY, 5000, 0, amy, None)
    r = s.book.drop(DAY, 5000, 1000, amy, ben)
    assert r.actor == "amy/accounting+ben/accounting"
    assert r.payload["signers"] == ["amy/accounting", "ben/accounting"]
    assert r.payload["total"] == 6000


def test_day_flow_refusals_record_nothing(s: Setup) -> None:
    dee, sue, amy, ben = (s.who(u) for u in ("dee", "sue", "amy", "ben"))
    with pytest.raises(AccountingRefused, match="no opener"):
        s.book.closer(TRAY, dee, sue)
    s.book.opener(TRAY, dee, sue)
    with pytest.raises(AccountingRefused, match="already has an opener"):
        s.book.opener(TRAY, dee, sue)
    with pytest.raises(ChipsError, match="not a chip denomination"):
        s.book.slip("fill", Chips.of({700: 1}), dee, sue)
    with pytest.raises(AccountingRefused, match=r"number 3 is out of sequence.*next fill "
                                                r"slip is number 1"):
        s.book.slip("fill", Chips.of({500: 4}), dee, sue, number=3)
    with pytest.raises(AccountingRefused, match="has not closed"):
        s.book.drop(DAY, 1000, 0, amy, ben)
    with pytest.raises(AccountingRefused, match="must be equal"):
        s.book.buy_in("cash", 10000, Chips.of({2500: 3}), dee)
    before = count_all(s)
    assert [k for _, k in accounting_records(s)] == ["tray.open"]
    s.book.slip("fill", Chips.of({500: 4}), dee, sue, number=1)   # a pre-printed slip
    s.book.closer(TRAY, dee, sue)
    with pytest.raises(AccountingRefused, match="already has a closer"):
        s.book.closer(TRAY, dee, sue)
    with pytest.raises(AccountingRefused, match="closed"):
        s.book.slip("credit", Chips.of({500: 4}), dee, sue)
    assert count_all(s) == before + 2
    s.book.drop(DAY, 1000, 0, amy, ben)      # closed by its closer, before the day is over
    with pytest.raises(AccountingRefused, match="already entered"):
        s.book.drop(DAY, 1000, 0, amy, ben)


def test_drop_once_the_day_is_over_without_a_closer(s: Setup) -> None:
    dee, sue, amy, ben = (s.who(u) for u in ("dee", "sue", "amy", "ben"))
    s.book.opener(TRAY, dee, sue)
    s.clock.at(date(2026, 3, 3), 6, 30)          # the next gaming day
    s.book.drop(DAY, 2500, 0, amy, ben)


def test_opener_against_previous_closer_is_an_exception(s: Setup) -> None:
    dee, sue = s.who("dee"), s.who("sue")
    s.book.opener(TRAY, dee, sue)
    s.clock.at(DAY, 23)
    s.book.closer(TRAY, dee, sue)
    s.clock.at(date(2026, 3, 3), 7)
    records = s.book.opener(TRAY.minus(Chips.of({500: 1})), dee, sue)
    assert [r.kind for r in records] == ["tray.open", "tray.difference"]
    assert records[1].payload["difference"] == -500
    assert records[1].payload["chips"] == {"500": -1}
    s.clock.at(date(2026, 3, 3), 23)
    s.book.closer(TRAY, dee, sue)
    s.clock.at(date(2026, 3, 4), 7)
    assert [r.kind for r in s.book.opener(TRAY, dee, sue)] == ["tray.open"]


def test_numbering_across_a_year_and_a_restart(tmp_path: Path) -> None:
    url, key = f"sqlite:///{tmp_path / 'journal.db'}", tmp_path / "journal.key"
    s = Setup(url, key)
    dee, sue = s.who("dee"), s.who("sue")
    s.clock.at(date(2026, 12, 31), 7)
    s.book.opener(TRAY, dee, sue)
    numbers = [s.book.slip("fill", Chips.of({500: 2}), dee, sue).payload["number"]
               for _ in range(3)]
    assert numbers == [1, 2, 3]
    assert s.book.slip("credit", Chips.of({500: 2}), dee, sue).payload["number"] == 1
    s.clock.at(date(2027, 1, 1), 3)   # 03:00 on 1 January is still gaming day 31 December
    r = s.book.slip("fill", Chips.of({500: 2}), dee, sue)
    assert (r.payload["number"], r.payload["year"]) == (4, 2026)
    s.close()
    s = Setup(url, key, create=False, clock=s.clock)      # the station restarts
    dee, sue = s.who("dee"), s.who("sue")
    assert s.book.slip("fill", Chips.of({500: 2}), dee, sue).payload["number"] == 5
    s.clock.at(date(2027, 1, 1), 7)                        # gaming day 1 January 2027
    r = s.book.slip("fill", Chips.of({500: 2}), dee, sue)
    assert (r.payload["number"], r.payload["year"]) == (1, 2027)
    with pytest.raises(AccountingRefused, match="number 1 is already used"):
        s.book.slip("fill", Chips.of({500: 2}), dee, sue, number=1)
    s.close()


def test_void_keeps_the_number_and_stops_counting(s: Setup) -> None:
    dee, sue = s.who("dee"), s.who("sue")
    s.book.opener(TRAY, dee, sue)
    s.book.slip("fill", Chips.of({2500: 4}), dee, sue)
    s.book.slip("fill", Chips.of({500: 4}), dee, sue)
    op = s.who("op")
    with pytest.raises(AccountingRefused, match="needs a reason"):
        s.book.void("fill", 1, 2026, [sue, op], "  ")
    with pytest.raises(AccountingRefused, match="this signature is for a supervisor"):
        s.book.void("fill", 1, 2026, [dee, op], "wrong table")
    with pytest.raises(AccountingRefused, match="needs 2 signatures"):
        s.book.void("fill", 1, 2026, [sue], "wrong table")
    with pytest.raises(AccountingRefused, match=r"\(sue\) cannot sign twice"):
        s.book.void("fill", 1, 2026, [sue, sue], "wrong table")
    s.book.void("fill", 1, 2026, [sue, op], "wrong table")
    with pytest.raises(AccountingRefused, match="already voided"):
        s.book.void("fill", 1, 2026, [sue, op], "again")
    ledger = s.book.ledger()
    assert ledger.days[DAY].fills == 2000
    assert ledger.slips[("fill", 2026, 1)].void is not None
    assert s.book.slip("fill", Chips.of({500: 2}), dee, sue).payload["number"] == 3


def test_verify_passes_and_an_edited_slip_fails_it(s: Setup, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    dee, sue = s.who("dee"), s.who("sue")
    s.book.opener(TRAY, dee, sue)
    fill = s.book.slip("fill", Chips.of({2500: 4}), dee, sue)
    s.close()
    args = ["audit", "verify", "--db", s.url, "--key", str(s.key_path)]
    assert main(args) == 0
    capsys.readouterr()
    conn = sqlite3.connect(tmp_path / "journal.db")
    conn.execute("UPDATE journal SET payload = replace(payload, '\"total\":10000', "
                 "'\"total\":1000') WHERE table_id = 'T1' AND seq = ?", (fill.seq,))
    conn.commit()
    conn.close()
    assert main(args) != 0
    out = capsys.readouterr().out
    assert f"FAILED at record {fill.seq}" in out
    # The report refuses to print the edited figure.
    assert main(["report", "master-game", "--json", "--db", s.url, "--key",
                 str(s.key_path)]) == 2


def cli(s: Setup, *argv: str, pins: str = "") -> int:
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(pins)
    try:
        return main(["accounting", *argv, "--db", s.url, "--key", str(s.key_path),
                     "--table", "T1", "--pin-stdin"])
    finally:
        sys.stdin = old


def test_cli_refuses_bad_input_before_anyone_signs_in(s: Setup, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    station = tmp_path / "station.toml"
    station.write_text('[gaming_day]\nstarts = "06:00"\ntimezone = "UTC"\n')
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "accounting.toml").write_text(TABLE_SIGNED_TOML)
    dee, sue = s.who("dee"), s.who("sue")
    s.book.opener(TRAY, dee, sue)
    s.close()
    before = sum(1 for _ in s.journal.records("T1")) + sum(1 for _ in
                                                           s.journal.records("station"))
    # The CLI reads the real clock: its gaming day is today's, not the fixture's.
    cases = [
        (["fill", "--chips", "500=10250", "--dealer", "dee", "--supervisor", "sue"],
         "10250 is not a whole number of 500 chips"),
        (["fill", "--chips", "700x2", "--dealer", "dee", "--supervisor", "sue"],
         "700 is not a chip denomination"),
        (["fill", "--chips", "500x2", "--number", "9", "--dealer", "dee", "--supervisor",
          "sue"], "out of sequence"),
        (["credit", "--chips", "500x2", "--dealer", "dee"], "needs two signatures"),
        (["fill", "--chips", "500x2", "--dealer", "dee", "--supervisor", "dee"],
         "two different people"),
        (["drop", "--gaming-day", "2999-01-01", "--cash", "100", "--counter", "amy",
          "--counter", "ben"], "has not closed"),
        (["drop", "--gaming-day", "2026-13-01", "--cash", "100"], "is not a date"),
    ]
    for argv, why in cases:
        assert cli(s, *argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err, (argv, err)
    after = sum(1 for _ in s.journal.records("T1")) + sum(1 for _ in
                                                          s.journal.records("station"))
    assert after == before


def test_calendar_places_actions(s: Setup) -> None:
    s.clock.at(date(2026, 3, 3), 5, 59)
    assert s.book.today() == DAY
    assert CAL.day_of(s.clock()) == DAY


def test_doctor_checks_the_gaming_day_and_accounting_files(tmp_path: Path) -> None:
    from dealer_station.cli.doctor import check_config

    conf = Path(__file__).resolve().parents[1] / "config"
    for f in conf.glob("*.toml"):
        (tmp_path / f.name).write_text(f.read_text())
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "6am"\n')
    (tmp_path / "accounting.toml").write_text("[accounting]\ndenominations = [100, 100]\n")
    found = [c for c, _ in check_config(tmp_path, tmp_path / "devices.toml")]
    text = "\n".join(f"{c.status} {c.detail}" for c in found)
    assert 'station.toml: gaming_day.starts: must be a local time like "06:00"' in text
    assert "accounting.toml: accounting.denominations[1]: 100 is listed twice" in text


def test_cli_slips_from_opener_to_printed_slip(s: Setup, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    (tmp_path / "accounting.toml").write_text(TABLE_SIGNED_TOML)
    s.close()
    pins = f"{PIN}\n{PIN}\n"
    assert cli(s, "opener", "--chips", "100x100,2500x40", "--dealer", "dee",
               "--supervisor", "sue", pins=pins) == 0
    assert cli(s, "fill", "--chips", "2500=50000", "--dealer", "dee", "--supervisor", "op",
               pins=pins) == 0
    assert cli(s, "fill", "--chips", "500x4", "--number", "2", "--dealer", "dan",
               "--supervisor", "sue", pins=pins) == 0
    assert cli(s, "void", "--slip", "fill", "--number", "2", "--supervisor", "sue",
               "--second", "op", "--reason", "wrong table", pins=pins) == 0
    out = capsys.readouterr().out
    assert "fill slip 1 of" in out and "2500x20 = 500.00 USD" in out
    assert cli(s, "slips", "--json") == 0
    slips = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(x["number"], x["total"], x["voided"]) for x in slips] == [
        (1, 50000, False), (2, 2000, True)]
    assert slips[0]["signers"] == ["dee/dealer", "op/operator"]
    pdf = tmp_path / "fill.pdf"
    assert cli(s, "print", "--slip", "fill", "--number", "1", "--out", str(pdf)) == 0
    from pypdf import PdfReader

    # A slip signed at the table prints a page per copy, each the whole slip.
    copies = ("Original: cage", "Duplicate: table drop box", "Triplicate: accounting")
    pages = [" ".join(pg.extract_text().split()) for pg in PdfReader(str(pdf)).pages]
    assert len(pages) == 3
    for text, copy in zip(pages, copies, strict=True):
        assert copy in text and "Fill slip T1-F-2026-00001" in text
        assert "Dee Dealer (dee)" in text and "Olga Operator (op), operator" in text
        assert "Request none: signed at the table in one step" in text
        assert "VOID" not in text
    # The voided slip: VOID across every page, when and by whom it was voided and why, and
    # its void's own record covered and attached beside the slip's.
    voided = tmp_path / "fill-2.pdf"
    assert cli(s, "print", "--slip", "fill", "--number", "2", "--out", str(voided)) == 0
    reader = PdfReader(str(voided))
    text = " ".join(" ".join(pg.extract_text() for pg in reader.pages).split())
    assert "Fill slip (VOID)" in text and "wrong table" in text
    assert "sue/supervisor" in text and "op/operator" in text
    assert "Sue Supervisor (sue), floor supervisor and Olga Operator (op), operator" in text
    assert len(reader.pages) == 3
    assert all("VOID" in pg.extract_text() for pg in reader.pages)
    attached = [json.loads(x) for x in
                reader.attachments["journal-records.jsonl"][0].decode().splitlines()]
    kinds = [r["kind"] for r in attached]
    assert kinds[0] == "fill" and kinds[-1] == "slip.void"
    void = attached[-1]
    assert f"journal record {void['seq']}" in text
    assert f"Records covered {attached[0]['seq']} to {void['seq']}" in text


def test_slips_from_a_chain_cut_short_are_listed_with_a_warning(
        s: Setup, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    monkeypatch.setenv("DEALER_STATION_CONFIG", str(tmp_path))
    (tmp_path / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                           'timezone = "UTC"\n')
    (tmp_path / "accounting.toml").write_text(TABLE_SIGNED_TOML)
    s.close()
    pins = f"{PIN}\n{PIN}\n"
    assert cli(s, "opener", "--chips", "100x100", "--dealer", "dee", "--supervisor", "sue",
               pins=pins) == 0
    assert cli(s, "fill", "--chips", "500x4", "--dealer", "dee", "--supervisor", "sue",
               pins=pins) == 0
    capsys.readouterr()
    assert cli(s, "slips") == 0
    assert capsys.readouterr().err == ""
    with sqlite3.connect(tmp_path / "journal.db") as conn:   # the fill cut off the end
        top = conn.execute("SELECT max(seq) FROM journal WHERE table_id='T1'").fetchone()[0]
        conn.execute("DELETE FROM journal WHERE table_id='T1' AND seq = ?", (top,))
        conn.execute("DELETE FROM checkpoints")
    assert cli(s, "slips") == 1
    err = capsys.readouterr().err
    assert err.startswith("WARNING: ") and "cut off" in err


def test_two_writers_never_take_one_number(db_url: str, tmp_path: Path) -> None:
    """Writers of one table's slips, each on a database connection and journal of its own as
    separate stations and commands are, decide under the chain's writer lock: every slip
    number is taken once, with no retries and no lock of the process's own."""
    import threading

    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import load_key

    s = Setup(db_url, tmp_path / "journal.key")
    try:
        dee, sue = s.who("dee"), s.who("sue")
        s.book.opener(TRAY, dee, sue)
        problems: list[BaseException] = []
        go = threading.Barrier(3)

        def write() -> None:
            db = open_database(db_url)
            try:
                journal = Journal(db, load_key(tmp_path / "journal.key"), clock=s.clock)
                book = TableAccounting(journal, "T1", SETTINGS, CAL)
                go.wait()
                for _ in range(6):
                    book.slip("fill", Chips.of({500: 1}), dee, sue)
            except BaseException as e:  # reported below
                problems.append(e)
            finally:
                db.close()

        threads = [threading.Thread(target=write) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert problems == []
        slips = [slip_event(r) for r in s.journal.records("T1", kinds=[FillSlip.KIND])]
        assert sorted(e.number for e in slips) == list(range(1, 19))
        assert s.journal.verify_table("T1").ok
    finally:
        s.close()


def test_parts_rounded_to_the_cent_add_up_to_their_whole() -> None:
    from fractions import Fraction as F

    from dealer_station.accounting.figures import apportion, round_money

    # Three shifts of 0.5 cent each: rounded on their own they make 3 cents, the day 2.
    parts = [F(1, 2), F(1, 2), F(1, 2)]
    assert [round_money(x) for x in parts] == [1, 1, 1]
    assert apportion(parts, round_money(sum(parts))) == [1, 1, 0]
    # The units left over go to the parts that lost the most.
    assert apportion([F(101, 10), F(209, 10), F(30, 1)], 61) == [10, 21, 30]
    assert apportion([F(-3, 2), F(7, 4)], round_money(F(-3, 2) + F(7, 4))) == [-2, 2]
    assert apportion([], 0) == []
