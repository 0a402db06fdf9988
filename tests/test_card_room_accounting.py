"""The card room's own accounting (issue 27): a Bourré table's bank (opener, fills and credits
through the cage, chip purchases for cash and a marker, closer) and its rake against the rake
box the count room counted, with the variance and its disposition.

The journal is made by the real Bourré table service (cash chips, a drop of one chip a pot)
and the real accounting book, cage desk and count room, on a real SQLite file; the report's
figures are then recomputed from the raw rows alone (sqlite3 and the payloads' JSON, not the
station's code) and held equal to what the PDF (read back with pypdf) and the JSON print."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from accounting_support import CAL, PIN, Setup
from card_room_support import SEATS, open_table, play_hand, profile
from pypdf import PdfReader

from dealer_station.accounting.chips import Chips
from dealer_station.accounting.glossary import GLOSSARY, RAKE, RAKE_BOX, RAKE_VARIANCE
from dealer_station.accounting.settings import AccountingSettings
from dealer_station.audit.users import User
from dealer_station.cli.main import main
from dealer_station.events.accounting import RAKE_BOX as RAKE_BOX_KIND
from dealer_station.events.accounting import SlipRequested
from dealer_station.games.bourre.reports.card_room import gather_card_room
from dealer_station.games.bourre.reports.card_room_pdf import build_card_room_report
from dealer_station.table.accounting import TableAccounting, accounting_event
from dealer_station.table.cage import CageDesk
from dealer_station.table.count_room import CountRoom
from dealer_station.table.days import notes_for

ROOT = Path(__file__).resolve().parents[1]
TABLE = "B1"
DAY = date(2026, 3, 2)
#: Fills and credits through the cage (the MICS default); a variance beyond 3.00 USD needs a
#: disposition.
SETTINGS = AccountingSettings(variance_threshold=300)
ACCOUNTING_TOML = "[accounting]\nvariance_threshold = 300\n"
STATION_TOML = '[gaming_day]\nstarts = "06:00"\ntimezone = "UTC"\n'
OPENER = Chips.of({100: 600, 500: 100, 2500: 40})
BUY_IN = Chips.of({100: 100})                   # a seat's 100 one-dollar chips
FILL = Chips.of({100: 500})
VOIDED_FILL = Chips.of({500: 10})
CREDIT = Chips.of({2500: 20})
MARKER = "M-2026-0042"
SHORT = 500                                    # the rake box is 5.00 USD short


@dataclass
class Floor:
    setup: Setup
    folder: Path
    book: TableAccounting
    rake: int = 0

    def who(self, user_id: str) -> User:
        return self.setup.users.authenticate(user_id, PIN, table_id=TABLE)

    @property
    def db(self) -> Path:
        return self.folder / "journal.db"

    @property
    def key(self) -> Path:
        return self.folder / "journal.key"


def _through_cage(f: Floor, kind: str, chips: Chips) -> tuple[int, int]:
    """A fill or credit: requested by the supervisor, issued by a cage cashier, carried by
    security, signed for by the dealer and the supervisor. Its slip's (year, number)."""
    desk = CageDesk(f.book)
    asked = accounting_event(desk.request(kind, chips, f.who("sue"), note="the bank"),
                             SlipRequested)
    f.setup.clock.tick(2)
    issued = desk.issue(asked.year, asked.request, chips, [f.who("cas")])
    f.setup.clock.tick(3)
    desk.carry(asked.year, asked.request, [f.who("sec")])
    f.setup.clock.tick(2)
    desk.receive(asked.year, asked.request, chips, [f.who("dee"), f.who("sue")])
    return asked.year, int(issued.payload["number"])


def build(folder: Path, *, closer_short: int = 0) -> Floor:
    """One gaming day of a cash Bourré table and its bank, and the next morning's count."""
    setup = Setup(f"sqlite:///{folder / 'journal.db'}", folder / "journal.key")
    f = Floor(setup, folder, TableAccounting(setup.journal, TABLE, SETTINGS, CAL))
    clock = setup.clock
    clock.at(DAY, 7, 0)
    t = open_table(setup.journal, TABLE, profile("cash", minutes=8))
    t.startup()
    dee = f.who("dee")
    f.book.opener(OPENER, dee, f.who("sue"))
    rng = random.Random(11)
    for n in range(2):
        clock.tick(5)
        for seat in SEATS:
            if n == 1 and seat == 3:
                f.book.buy_in("marker", BUY_IN.total, BUY_IN, dee, seat=seat, marker=MARKER)
            else:
                f.book.buy_in("cash", BUY_IN.total, BUY_IN, dee, seat=seat)
        t.start_session(SEATS, rng.choice(SEATS),
                        players={s: f"Player {n}-{s}" for s in SEATS})
        hands = 0
        while (session := t.session) is not None and not session.is_over(hands * 60):
            play_hand(t, rng, hands * 60)
            hands += 1
            clock.tick(1)
        t.end_session(tie_break=sorted(SEATS))
        if n == 0:
            _through_cage(f, "fill", FILL)
    # A fill signed for at the wrong table: voided by a supervisor and a cage cashier.
    year, number = _through_cage(f, "fill", VOIDED_FILL)
    f.book.void("fill", number, year, [f.who("sue"), f.who("cas")], "brought to the wrong table")
    _through_cage(f, "credit", CREDIT)
    clock.tick(10)
    left = OPENER.as_dict()
    left[100] += FILL.count(100) - 10 * BUY_IN.count(100)
    left[2500] -= CREDIT.count(2500)
    left[500] -= closer_short // 500
    f.book.closer(Chips.of(left), dee, f.who("sue"))
    t.shutdown()
    f.rake = sum(json.loads(p)["amount"] for (p,) in _sql(
        f.db, "SELECT payload FROM journal WHERE table_id = ? AND kind = 'bourre.collection'",
        TABLE))
    # The next morning the count room counts the rake box (short) and the drop box.
    clock.at(DAY + timedelta(days=1), 7, 30)
    room = CountRoom(f.book)
    team = [f.who("amy"), f.who("ben")]
    room.count(DAY, notes_for(f.rake - SHORT, SETTINGS.currency_denominations), 0, 0, team,
               box=RAKE_BOX_KIND)
    room.count(DAY, notes_for(9 * BUY_IN.total, SETTINGS.currency_denominations),
               BUY_IN.total, 1, team)
    return f


def _sql(db: Path, query: str, *args: Any) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return list(con.execute(query, args))
    finally:
        con.close()


# -- the figures from the raw rows alone ------------------------------------------------------

def raw_figures(db: Path) -> dict[str, Any]:
    """The day's rake, rake box, variance and bank, from the journal table's rows: the kinds
    and the payloads' JSON, read with sqlite3."""
    rows = [(seq, ts, kind, json.loads(p)) for seq, ts, kind, p in _sql(
        db, "SELECT seq, ts, kind, payload FROM journal WHERE table_id = ? ORDER BY seq",
        TABLE)]
    start = datetime(DAY.year, DAY.month, DAY.day, 6, tzinfo=UTC)
    in_day = [(seq, kind, p) for seq, ts, kind, p in rows
              if start <= datetime.fromisoformat(ts) < start + timedelta(days=1)]
    collections = [p for _, kind, p in in_day if kind == "bourre.collection"]
    rake = sum(p["amount"] for p in collections)
    # Every hand's collection is the hand's own house chips, in dollars.
    closes = [p for _, kind, p in in_day if kind == "hand.close"]
    assert [c["chips"] for c in collections] == [h["house"] for h in closes]
    box = [p for _, _, kind, p in rows if kind == "drop.count" and p.get("box") == "rake"
           and p["gaming_day"] == DAY.isoformat()]
    drop = [p for _, _, kind, p in rows if kind == "drop.count" and p.get("box") is None]
    voided = {(p["slip"], p["year"], p["number"]) for _, _, kind, p in rows
              if kind == "slip.void"}

    def chips(kind: str) -> Counter[int]:
        out: Counter[int] = Counter()
        for _, _, k, p in rows:
            if k == kind and p["gaming_day"] == DAY.isoformat() and (
                    kind not in ("fill", "credit")
                    or (kind, p["year"], p["number"]) not in voided):
                out.update({int(d): n for d, n in p["chips"].items()})
        return out

    opener, closer = chips("tray.open"), chips("tray.close")
    fills, credits, sold = chips("fill"), chips("credit"), chips("buyin")
    expected = opener + fills
    expected.subtract(credits)
    expected.subtract(sold)

    def value(c: Counter[int]) -> int:
        return sum(d * n for d, n in c.items())

    buyins = [p for _, _, k, p in rows if k == "buyin"]
    return {
        "hands": len(collections), "rake": rake, "box": box[0]["total"],
        "box_notes": {int(d): n for d, n in box[0]["currency"].items()},
        "box_team": box[0]["signers"], "variance": box[0]["total"] - rake,
        "opener": value(opener), "fills": value(fills), "credits": value(credits),
        "purchases": value(sold),
        "cash": sum(p["amount"] for p in buyins if p["tender"] == "cash"),
        "markers": sum(p["amount"] for p in buyins if p["tender"] == "marker"),
        "expected": value(expected), "closer": value(closer),
        "difference": value(closer) - value(expected),
        "drop_cash": drop[0]["cash"], "drop_markers": drop[0]["markers"],
    }


def pdf_text(path: Path) -> str:
    words = " ".join(page.extract_text() for page in PdfReader(str(path)).pages)
    return " ".join(words.split())


def money(amount: int) -> str:
    return SETTINGS.money.text(amount)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The station's settings for the command line: the gaming day in UTC, and a variance
    threshold of 3.00 USD."""
    where = tmp_path / "config"
    where.mkdir()
    (where / "accounting.toml").write_text(ACCOUNTING_TOML)
    (where / "station.toml").write_text(STATION_TOML)
    (where / "bourre.toml").write_text((ROOT / "config" / "bourre.toml").read_text())
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(where))
    return where


def report_json(f: Floor, config: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["report", "card-room", "--json", "--table", TABLE, "--db",
                 f"sqlite:///{f.db}", "--key", str(f.key), "--gaming-day", DAY.isoformat(),
                 "--accounting-config", str(config / "accounting.toml"),
                 "--station-config", str(config / "station.toml")]) == 0
    days = json.loads(capsys.readouterr().out)
    assert [d["gaming_day"] for d in days] == [DAY.isoformat()]
    return dict(days[0])


def report_pdf(f: Floor, out: Path, *period: str) -> str:
    """The report as the command line writes it (the settings from $DEALER_STATION_CONFIG)."""
    assert main(["report", "card-room", "--table", TABLE, "--db", f"sqlite:///{f.db}",
                 "--key", str(f.key), "--out", str(out), *period]) == 0
    return pdf_text(out)


def attached_seqs(path: Path) -> set[int]:
    """The sequence numbers of the records a report attaches."""
    files = PdfReader(str(path)).attachments
    lines = b"".join(files["journal-records.jsonl"]).decode().splitlines()
    return {int(json.loads(line)["seq"]) for line in lines if line.strip()}


# -- tests ------------------------------------------------------------------------------------

def test_the_rake_against_the_counted_box_and_the_bank_recomputed_from_the_rows(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = build(tmp_path)
    raw = raw_figures(f.db)
    assert raw["hands"] > 10 and raw["rake"] == f.rake > 0
    assert raw["variance"] == -SHORT
    assert raw["difference"] == 0 and raw["purchases"] == 10 * BUY_IN.total
    # The book is game-agnostic: a pot game's closer sums no rounds (no ``day.play``).
    kinds = {k for (k,) in _sql(f.db, "SELECT kind FROM journal WHERE table_id = ?", TABLE)}
    assert "tray.close" in kinds and "day.play" not in kinds
    # The JSON.
    day = report_json(f, config, capsys)
    box, bank = day["rake_box"], day["bank"]
    assert (box["rake"], box["counted"], box["variance"], box["hands"]) == (
        raw["rake"], raw["box"], raw["variance"], raw["hands"])
    assert {int(k): v for k, v in box["notes"].items()} == raw["box_notes"]
    assert box["count_team"] == raw["box_team"] == ["amy/accounting", "ben/accounting"]
    assert box["count_date"] == (DAY + timedelta(days=1)).isoformat()
    assert box["needs_disposition"] is True and box["disposition"] is None
    assert day["collection"]["amount"] == raw["rake"]
    for key in ("opener", "fills", "credits", "expected", "closer", "difference"):
        assert bank[key] == raw[key], key
    assert (bank["chip_purchases"], bank["chip_purchases_cash"],
            bank["chip_purchases_markers"]) == (raw["purchases"], raw["cash"], raw["markers"])
    assert bank["drop"]["cash"] == raw["drop_cash"] == raw["cash"]
    assert bank["drop"]["markers"] == raw["drop_markers"] == raw["markers"]
    assert [p["marker"] for p in bank["purchases"] if p["tender"] == "marker"] == [MARKER]
    assert [s["voided"] for s in bank["slips"]] == [False, True, False]
    assert bank["cash_outs_recorded"] is False
    # The PDF prints the same figures.
    text = report_pdf(f, tmp_path / "card-room.pdf")
    assert f"{RAKE.label} {money(raw['rake'])} ({raw['rake'] // 100} chips from " \
           f"{raw['hands']} hands' collection records)" in text
    assert f"{RAKE_BOX.label} {money(raw['box'])}: cash {money(raw['box'])}" in text
    assert f"{RAKE_VARIANCE.label} {money(raw['variance'])} (the box is short)" in text
    assert "Disposition Needs a disposition: beyond the threshold of 3.00 USD" in text
    assert "by amy/accounting, ben/accounting" in text
    figures = {"Opener": raw["opener"], "Fills": raw["fills"], "Credits": raw["credits"],
               "Chip purchases": raw["purchases"], "Bank expected": raw["expected"],
               "Closer": raw["closer"], "Bank difference": raw["difference"]}
    for label, amount in figures.items():
        # Each line of the bank's table: its label, the chips by denomination, the total.
        line = re.search(rf"\b{label} ((?:-?[\d,]+ )*?){re.escape(SETTINGS.money.number(amount))}"
                         rf"(?= )", text)
        assert line is not None, (label, amount)
    assert "the closer equals the bank expected" in text
    assert (f"{money(raw['purchases'])}: 9 for cash ({money(raw['cash'])}), 1 for markers "
            f"({money(raw['markers'])})") in text
    assert "the chip purchases' cash and markers, to the cent" in text
    assert MARKER in text and "VOID (brought to the wrong table), not counted" in text
    assert f"{TABLE}-F-2026-00001 (request {TABLE}-R-2026-00001)" in text
    # Every label the report defines means what the glossary says.
    defined = set()
    for term in GLOSSARY:
        for m in re.finditer(rf"(?<![\w%.']){re.escape(term.label)}: ", text):
            assert text[m.start():m.start() + len(term.said())] == term.said(), term.label
            defined.add(term.label)
    assert defined >= {"Rake", "Rake box", "Rake variance", "Disposition", "Opener", "Closer",
                       "Fills", "Credits", "Chip purchases", "Bank expected",
                       "Bank difference", "Drop", "Cash", "Markers"}


def test_a_short_box_once_disposed_shows_its_disposition(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = build(tmp_path)
    raw = raw_figures(f.db)
    team = [f.who("amy"), f.who("ben")]
    f.setup.clock.tick(20)
    CountRoom(f.book).dispose(DAY, raw["variance"], "referred",
                              "five dollars missing from the rake box; the video is being "
                              "reviewed", team, box=RAKE_BOX_KIND)
    seq, ts = _sql(f.db, "SELECT seq, ts FROM journal WHERE table_id = ? AND "
                         "kind = 'variance.disposition'", TABLE)[0]
    day = report_json(f, config, capsys)
    box = day["rake_box"]
    assert box["needs_disposition"] is False
    assert box["disposition"] == {
        "what": "referred", "by": ["amy/accounting", "ben/accounting"], "at": ts, "seq": seq,
        "why": "five dollars missing from the rake box; the video is being reviewed",
        "variance": raw["variance"], "adjustment": None}
    # The report of the gaming day alone: the count and the disposition were journaled the
    # next morning, and are covered and attached all the same.
    out = tmp_path / "card-room.pdf"
    text = report_pdf(f, out, "--gaming-day", DAY.isoformat())
    assert "Needs a disposition" not in text
    assert (f"Disposition Referred {ts[:10]}" in text
            and f"by amy/accounting and ben/accounting (record {seq:,}): five dollars "
                f"missing from the rake box; the video is being reviewed" in text)
    assert f"The records covered run past the period, to record {seq:,}" in text
    counted = _sql(f.db, "SELECT seq FROM journal WHERE table_id = ? AND kind = 'drop.count'",
                   TABLE)
    assert {seq, *(c for (c,) in counted)} <= attached_seqs(out)


def test_a_short_bank_shows_its_difference(tmp_path: Path, config: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    f = build(tmp_path, closer_short=500)
    raw = raw_figures(f.db)
    assert raw["difference"] == -500
    day = report_json(f, config, capsys)
    assert day["bank"]["difference"] == -500
    assert day["bank"]["difference_chips"] == {"500": -1}
    text = report_pdf(f, tmp_path / "card-room.pdf")
    assert "the closer is 5.00 USD short of the bank expected" in text


def test_the_report_with_the_default_settings_in_python(tmp_path: Path) -> None:
    """The figures in Python equal the raw rows' (no command line)."""
    f = build(tmp_path)
    raw = raw_figures(f.db)
    days = gather_card_room(f.setup.journal, TABLE, CAL, settings=SETTINGS)
    assert [d.day for d in days] == [DAY]
    d = days[0]
    assert d.rake_box is not None and d.rake_box.variance == raw["variance"]
    assert d.bank.difference_total == 0
    built = build_card_room_report(f.setup.journal, TABLE, out=tmp_path / "r.pdf",
                                   calendar=CAL, settings=SETTINGS)
    assert built.pages >= 2


def test_a_day_without_a_session_shows_its_bank_opened_by_the_previous_closer(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The next gaming day opens with the closer before it (no opener of its own); a player
    buys chips and the bank closes, but no session is dealt: the day is shown for its bank
    alone, and has no rake to set against a box."""
    f = build(tmp_path)
    f.setup.clock.at(DAY + timedelta(days=1), 9, 0)
    f.book.buy_in("cash", BUY_IN.total, BUY_IN, f.who("dee"), seat=2)
    before = f.book.ledger().days[DAY].closer
    assert before is not None
    after = Chips.from_payload(before.event.chips).minus(BUY_IN)  # type: ignore[attr-defined]
    f.setup.clock.tick(30)
    f.book.closer(after, f.who("dee"), f.who("sue"))
    capsys.readouterr()
    assert main(["report", "card-room", "--json", "--table", TABLE, "--db",
                 f"sqlite:///{f.db}", "--key", str(f.key),
                 "--accounting-config", str(config / "accounting.toml"),
                 "--station-config", str(config / "station.toml")]) == 0
    days = json.loads(capsys.readouterr().out)
    assert [d["gaming_day"] for d in days] == [DAY.isoformat(),
                                               (DAY + timedelta(days=1)).isoformat()]
    second = days[1]
    assert second["hands"] == 0 and second["sessions"] == []
    bank = second["bank"]
    assert bank["opener_from_previous_closer"] is True and bank["opener_seq"] == before.seq
    assert (bank["opener"], bank["chip_purchases"], bank["expected"], bank["closer"],
            bank["difference"]) == (before.event.total,  # type: ignore[attr-defined]
                                    BUY_IN.total, after.total, after.total, 0)
    assert second["rake_box"]["rake"] is None and second["rake_box"]["counted"] is None
    text = report_pdf(f, tmp_path / "card-room.pdf")
    assert "Hands none: no Bourré session on this gaming day" in text
    assert "Opener (previous closer)" in text
    assert "Rake and box" in text.split("gaming day 2026-03-03", 1)[0]
    assert "Rake and box" not in text.split("Table B1, gaming day 2026-03-03", 1)[1]


def test_the_count_room_lists_and_disposes_of_the_rake_variance(
        tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``count-room variances`` lists the card room's rake against its counted box beside the
    tables' variances, and ``count-room dispose --box rake`` signs its disposition, for the
    variance the card room's figures give."""
    import io
    import sys

    f = build(tmp_path)
    raw = raw_figures(f.db)
    f.setup.close()
    store = ["--db", f"sqlite:///{f.db}", "--key", str(f.key)]
    capsys.readouterr()
    assert main(["count-room", "variances", "--json", *store]) == 1
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    (rake,) = [r for r in rows if r["box"] == "rake"]
    assert (rake["table"], rake["gaming_day"], rake["variance"], rake["disposition"]) == (
        TABLE, DAY.isoformat(), raw["variance"], None)
    assert rake["variance"] == -SHORT
    old = sys.stdin
    sys.stdin = io.StringIO(f"{PIN}\n{PIN}\n")
    try:
        assert main(["count-room", "dispose", "--table", TABLE, "--gaming-day",
                     DAY.isoformat(), "--box", "rake", "--disposition", "referred", "--note",
                     "five dollars missing from the rake box", "--signer", "amy",
                     "--signer", "ben", "--pin-stdin", *store]) == 0
    finally:
        sys.stdin = old
    capsys.readouterr()
    main(["count-room", "variances", "--json", *store])
    (rake,) = [r for r in map(json.loads, capsys.readouterr().out.splitlines())
               if r["box"] == "rake"]
    assert (rake["disposition"], rake["disposed_variance"]) == ("referred", -SHORT)


def test_the_pdf_takes_the_accounting_settings_given_on_the_command_line(
        tmp_path: Path, config: Path) -> None:
    """``--accounting-config`` (and ``--station-config``) reach the card-room PDF as they
    reach its JSON: a threshold above the box's variance needs no disposition."""
    f = build(tmp_path)
    wide = tmp_path / "wide-accounting.toml"
    wide.write_text("[accounting]\nvariance_threshold = 100000\n")
    out = tmp_path / "wide.pdf"
    assert main(["report", "card-room", "--table", TABLE, "--db", f"sqlite:///{f.db}",
                 "--key", str(f.key), "--out", str(out),
                 "--accounting-config", str(wide),
                 "--station-config", str(config / "station.toml")]) == 0
    text = pdf_text(out)
    assert "Needs a disposition" not in text
    assert f"Variance threshold {money(100000)} (from {wide})" in " ".join(text.split())
    # The same journal under the station's own settings (3.00 USD) needs one.
    assert "Needs a disposition" in report_pdf(f, tmp_path / "own.pdf")
