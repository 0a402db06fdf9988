"""The Bourré card room: cash chips, the house collection in money, pots carried to
the next session or returned by a supervisor, the chip reconciliation, and the card-room report
checked against an independent reading of the journal's rows. Real SQLite files (in /dev/shm
when there is one: the same database, without waiting for the disk on every commit)."""

from __future__ import annotations

import itertools
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from card_room_support import SEATS, open_table, play_sessions, profile
from test_events import round_trip
from test_landed_journals import landed_journal_copy

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.audit.users import PermissionDenied, User, Users
from dealer_station.games.bourre.reports.card_room import gather_card_room, read_sessions
from dealer_station.games.bourre.reports.card_room_pdf import build_card_room_report
from dealer_station.games.bourre.rules.config import parse_bourre_profiles
from dealer_station.gaming_day import GamingCalendar
from dealer_station.reports.text import LIVE_PACE_LIMIT, pace_words
from dealer_station.table.base import TableError
from dealer_station.tomlconfig import ConfigError

ROOT = Path(__file__).resolve().parents[1]
CALENDAR = GamingCalendar()


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        with tempfile.TemporaryDirectory(dir=shm, prefix="card-room-") as d:
            yield Path(d)
    else:
        yield tmp_path


@pytest.fixture
def journal(folder: Path) -> Iterator[Journal]:
    db = open_database(f"sqlite:///{folder / 'journal.db'}")
    j = Journal(db, create_key(folder / "journal.key"))
    seed_users(j)
    yield j
    db.close()


def seed_users(journal: Journal) -> None:
    """The card room's users, added while the journal is new (before any record)."""
    Users(journal).seed([("olga", "Olga", "operator", "2468"), ("dee", "Dee", "dealer", "2468"),
                         ("sue", "Sue", "supervisor", "2468")], actor="setup/operator")


def users(journal: Journal) -> dict[str, User]:
    u = Users(journal)
    return {n: u.authenticate(n, "2468", table_id="B1") for n in ("dee", "sue")}


def rows(folder: Path, table: str = "B1") -> list[tuple[int, str, str, str, int | None,
                                                        dict[str, Any]]]:
    """The journal's rows as stored, read with sqlite3 (not the station's code)."""
    con = sqlite3.connect(folder / "journal.db")
    try:
        return [(seq, ts, actor, kind, rno, json.loads(p)) for seq, ts, actor, kind, rno, p in
                con.execute("SELECT seq, ts, actor, kind, round_no, payload FROM journal "
                            "WHERE table_id = ? ORDER BY seq", (table,))]
    finally:
        con.close()


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_STATION_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


# -- profiles ---------------------------------------------------------------------------------

def test_cash_chips_are_a_profile_setting_checked_by_file_and_key() -> None:
    base = {"chips": "cash", "money": {"currency": "USD", "minor_units": 100,
                                       "chip_value": 500}}
    p = parse_bourre_profiles({"profiles": {"c": base}}, "bourre.toml")["c"]
    assert p.is_cash and p.money_of(7) == 3500
    assert parse_bourre_profiles({"profiles": {"c": p.to_data()}}, "x")["c"] == p
    bad = [({"chips": "cash"}, "profiles.c.money: cash chips need a money table"),
           ({**base, "money": {"currency": "usd", "chip_value": 5}},
            "profiles.c.money.currency: must be a three-letter currency code"),
           ({**base, "money": {"currency": "USD", "chip_value": 0}},
            "profiles.c.money.chip_value: must be from 1 to"),
           ({"money": base["money"]}, "profiles.c.money: only cash chips are worth money"),
           ({"chips": "gold"}, "profiles.c.chips: must be one of tournament, cash")]
    for data, message in bad:
        with pytest.raises(ConfigError, match="^bourre.toml: " + message.replace(".", r"\.")):
            parse_bourre_profiles({"profiles": {"c": data}}, "bourre.toml")
    # Tournament chips add no key: a profile's canonical form (and configuration version) is
    # what it was before chips could be cash.
    tournament = profile("tournament")
    assert not tournament.is_cash and tournament.money_of(5) is None
    assert "chips" not in tournament.to_data() and "money" not in tournament.to_data()


# -- reconciliation over many sessions ------------------------------------------------------

@pytest.mark.parametrize(("name", "hands"), [("cash", 160), ("tournament", 120),
                                             ("common", 80)])
def test_every_hand_and_session_reconciles(journal: Journal, folder: Path, name: str,
                                           hands: int) -> None:
    t = open_table(journal, "B1", profile(name, minutes=12))
    closed = play_sessions(t, random.Random(hands), hands)
    assert closed >= 6
    sessions = read_sessions(journal, "B1")
    assert len(sessions) == closed and sum(len(s.hands) for s in sessions) == hands
    for s in sessions:
        assert s.breaks == [], s.breaks
        assert s.started_with + s.pot_in == s.stacks_end + s.pot_end + s.collected
    # Pots were left, carried and opened the next session: none was lost.
    carried = [s for s in sessions if s.pot_end]
    assert carried, "no session left a pot: the test proves nothing"
    for before, after in itertools.pairwise(sessions):
        assert after.pot_in == before.pot_end
        assert (before.carried_out is not None) == (before.pot_end > 0)
    r = rows(folder)
    if name == "cash":
        # Every cash hand journals its collection in money: a chip of 1.00 USD, a drop of 1.
        collections = [p for _s, _t, _a, k, _r, p in r if k == "bourre.collection"]
        assert len(collections) == hands
        assert all(p["amount"] == p["chips"] * 100 == 100 and p["currency"] == "USD"
                   for p in collections)
    else:
        assert not any(k == "bourre.collection" for _s, _t, _a, k, _r, _p in r)
    # Every record the station wrote reads back as its typed event, byte for byte.
    decoded = round_trip([("B1", seq, kind, p) for seq, _t, _a, kind, _r, p in r])
    assert decoded["pot.carry"] == len(carried)


# -- pots carried and returned ----------------------------------------------------------------

def _session_with_a_pot(journal: Journal) -> Any:
    t = open_table(journal, "B1", profile("cash", minutes=3))
    rng = random.Random(7)
    for _ in range(30):
        play_sessions(t, rng, 3)
        if t.waiting is not None:
            return t
    raise AssertionError("no session left a pot in 30 tries")


def test_a_pot_is_carried_into_the_next_session(journal: Journal, folder: Path) -> None:
    t = _session_with_a_pot(journal)
    waiting = t.waiting
    assert waiting is not None and waiting.pot > 0
    carry = [p for _s, _t, _a, k, _r, p in rows(folder) if k == "pot.carry"][-1]
    assert carry == {"session_id": waiting.session_id, "pot": waiting.pot,
                     "chip_value": 100, "currency": "USD"}
    # The pot waits across a restart of the station.
    t.shutdown()
    t = open_table(journal, "B1", profile("cash", minutes=3))
    assert t.waiting == waiting
    # A tournament profile cannot take a pot of cash chips.
    sue = users(journal)["sue"]
    with pytest.raises(TableError, match="returns the pot first"):
        t.change_profile(sue, profile("tournament"), "tournament night")
    t.start_session(SEATS, 1)
    opened = [p for _s, _t, _a, k, _r, p in rows(folder) if k == "session.open"][-1]
    assert opened["pot"] == waiting.pot and t.session is not None
    assert t.session.pot == waiting.pot and t.waiting is None


def test_a_pot_is_returned_only_by_a_supervisor_with_a_reason(journal: Journal,
                                                              folder: Path) -> None:
    t = _session_with_a_pot(journal)
    who = users(journal)
    waiting = t.waiting
    assert waiting is not None
    before = len(rows(folder))
    with pytest.raises(PermissionDenied, match="only a supervisor may return a carried pot"):
        t.return_pot(who["dee"], "players left")
    with pytest.raises(TableError, match="a reason is required"):
        t.return_pot(who["sue"], "   ")
    with pytest.raises(TableError, match="add up to 1 chips, but the pot holds"):
        t.return_pot(who["sue"], "players left", {1: 1} if waiting.pot != 1 else {1: 2})
    assert len(rows(folder)) == before, "a refused return left a trace"
    shares = t.return_pot(who["sue"], "the table closed for the night")
    assert sum(shares.values()) == waiting.pot
    (ret,) = [(a, p) for _s, _t, a, k, _r, p in rows(folder) if k == "pot.return"]
    actor, payload = ret
    assert actor == "sue/supervisor"
    assert payload["reason"] == "the table closed for the night"
    assert payload["pot"] == waiting.pot and payload["carry_seq"] == waiting.seq
    assert sum(payload["shares"].values()) == waiting.pot
    assert t.waiting is None
    with pytest.raises(TableError, match="no pot is waiting"):
        t.return_pot(who["sue"], "again")
    t.start_session(SEATS, 1)
    assert t.session is not None and t.session.pot == 0
    # The card room shows the return with who and why, and every chip reconciles.
    t.end_session(tie_break=sorted(SEATS))
    (day,) = gather_card_room(journal, "B1", CALENDAR)
    assert [(m.by, m.reason, m.pot) for m in day.returned] == [
        ("sue/supervisor", "the table closed for the night", waiting.pot)]
    # The same chips are not also counted as carried out that day.
    assert waiting.seq not in {m.record.seq for m in day.carried_out}
    assert day.breaks == []


# -- the report against the journal's rows ----------------------------------------------------

def _recomputed(folder: Path) -> dict[str, Any]:
    """The card-room figures from the stored rows alone (one gaming day)."""
    r = rows(folder)
    house = sum(p["house"] for _s, _t, _a, k, _r, p in r if k == "hand.close")
    amount = sum(p["amount"] for _s, _t, _a, k, _r, p in r if k == "bourre.collection")
    # A pot carried and returned on the same day counts as returned only.
    returned_seqs = {p["carry_seq"] for _s, _t, _a, k, _r, p in r if k == "pot.return"}
    carried_out = [p["pot"] for s, _t, _a, k, _r, p in r if k == "pot.carry"
                   and s not in returned_seqs]
    carried_in = [p["pot"] for _s, _t, _a, k, _r, p in r if k == "session.open" and p["pot"]]
    returned = [(a, p["reason"], p["pot"]) for _s, _t, a, k, _r, p in r if k == "pot.return"]
    per_session: dict[str, int] = defaultdict(int)
    session = ""
    for _s, _t, _a, k, _r, p in r:
        if k == "session.open":
            session = p["session_id"]
        elif k == "hand.close":
            per_session[session] += p["house"]
    return {"hands": sum(1 for x in r if x[3] == "hand.close"), "house": house,
            "amount": amount, "carried_out": carried_out, "carried_in": carried_in,
            "returned": returned, "per_session": dict(per_session),
            "sessions": sum(1 for x in r if x[3] == "session.open")}


def test_the_card_room_json_equals_a_recomputation_from_the_rows(journal: Journal,
                                                                  folder: Path) -> None:
    t = open_table(journal, "B1", profile("cash", minutes=8))
    play_sessions(t, random.Random(11), 70)
    t.return_pot(users(journal)["sue"], "the game broke up") if t.waiting else None
    t.shutdown()
    db = f"sqlite:///{folder / 'journal.db'}"
    key = str(folder / "journal.key")
    proc = cli("report", "card-room", "--json", "--db", db, "--key", key)
    assert proc.returncode == 0, proc.stderr
    (day,) = json.loads(proc.stdout)
    want = _recomputed(folder)
    assert day["table"] == "B1" and day["chips"] == "cash" and day["currency"] == "USD"
    assert day["hands"] == want["hands"] == 70
    assert day["collection"] == {"chips": want["house"], "amount": want["amount"]}
    assert want["amount"] == want["house"] * 100
    assert [m["chips"] for m in day["pots_carried_out"]] == want["carried_out"]
    assert [m["chips"] for m in day["pots_carried_in"]] == want["carried_in"]
    assert [(m["by"], m["reason"], m["chips"]) for m in day["pots_returned"]] == \
        want["returned"]
    assert {s["session_id"]: s["collected"] for s in day["sessions"]} == want["per_session"]
    assert len(day["sessions"]) == want["sessions"]
    assert day["reconciliation"]["ok"] and day["reconciliation"]["hands_balanced"] == 70
    assert all(s["collected_amount"] == s["collected"] * 100 for s in day["sessions"])
    # The PDF of the same figures, for the gaming day asked for by date.
    out = folder / "card-room.pdf"
    proc = cli("report", "card-room", "--gaming-day", day["gaming_day"], "--db", db, "--key",
               key, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "journal verified intact" in proc.stdout and out.read_bytes()[:5] == b"%PDF-"
    # A simulated day's pace is no table's, and the report says so beside it.
    from pypdf import PdfReader

    text = " ".join(" ".join(pg.extract_text() for pg in PdfReader(str(out)).pages).split())
    hph = day["hands_per_hour"]
    if hph is not None:
        assert f"{hph:,.1f} hands per hour" in text
    assert (hph is not None and hph > LIVE_PACE_LIMIT) == (
        "played by a simulation or a script" in text), hph
    # Editing a collection amount in the database breaks the chain: verify fails, and so
    # does the report's last page.
    con = sqlite3.connect(folder / "journal.db")
    con.execute("UPDATE journal SET payload = replace(payload, '\"amount\":100', "
                "'\"amount\":10') WHERE seq = (SELECT min(seq) FROM journal WHERE kind = "
                "'bourre.collection' AND table_id = 'B1')")
    con.commit()
    con.close()
    assert cli("audit", "verify", "--db", db, "--key", key).returncode != 0
    proc = cli("report", "card-room", "--db", db, "--key", key, "--out", str(out))
    assert proc.returncode == 1 and "JOURNAL VERIFICATION FAILED" in proc.stdout


def test_a_journal_before_the_card_room_verifies_replays_and_reports(tmp_path: Path) -> None:
    db, key = landed_journal_copy(tmp_path)
    assert cli("audit", "verify", "--db", db, "--key", str(key)).returncode == 0
    replayed = cli("audit", "replay", "--db", db, "--key", str(key))
    assert replayed.returncode == 0 and "DIFFERENCE" not in replayed.stdout
    proc = cli("report", "card-room", "--json", "--db", db, "--key", str(key))
    assert proc.returncode == 0, proc.stderr
    days = json.loads(proc.stdout)
    assert days and {d["table"] for d in days} == {"B1"}
    assert all(d["chips"] == "tournament" and d["collection"]["amount"] is None for d in days)
    assert all(d["reconciliation"]["ok"] for d in days), [d["reconciliation"] for d in days]
    # Pots its sessions left are shown as not recorded (they were never carried).
    conn = sqlite3.connect(db.removeprefix("sqlite:///"))
    left = [json.loads(p)["pot"] for (p,) in conn.execute(
        "SELECT payload FROM journal WHERE table_id = 'B1' AND kind = 'session.close'")]
    conn.close()
    assert sorted(m["chips"] for d in days for m in d["pots_not_recorded"]) == sorted(
        x for x in left if x)
    out = tmp_path / "landed.pdf"
    db_ = open_database(db)
    try:
        from dealer_station.audit.keys import load_key

        built = build_card_room_report(Journal(db_, load_key(key)), "B1", out=out,
                                       calendar=CALENDAR)
    finally:
        db_.close()
    assert built.verification.ok and built.pages >= 1


def test_a_supervisor_returns_a_pot_from_the_command_line(journal: Journal,
                                                          folder: Path) -> None:
    t = _session_with_a_pot(journal)
    users(journal)
    waiting = t.waiting
    assert waiting is not None
    t.shutdown()
    base = ["table", "return-pot", "--db", f"sqlite:///{folder / 'journal.db'}", "--key",
            str(folder / "journal.key"), "--table", "B1", "--pin-stdin"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("DEALER_STATION_")}
        return subprocess.run([sys.executable, "-m", "dealer_station", *base, *args],
                              cwd=ROOT, env=env, input="2468\n", capture_output=True,
                              text=True, timeout=120)

    before = len(rows(folder))
    dealer = run("--as", "dee", "--reason", "players left")
    assert dealer.returncode == 2 and "only a supervisor" in dealer.stderr
    wrong = run("--as", "sue", "--reason", "players left", "--shares", f"1={waiting.pot + 1}")
    assert wrong.returncode == 2 and "add up to" in wrong.stderr
    garbled = run("--as", "sue", "--reason", "players left", "--shares", "one=3")
    assert garbled.returncode == 2 and "SEAT=CHIPS" in garbled.stderr
    assert "Traceback" not in dealer.stderr + wrong.stderr + garbled.stderr
    # The sign-ins are journaled; nothing of the refused returns is.
    assert not [k for _s, _t, _a, k, _r, _p in rows(folder)[before:] if k.startswith("pot.")]
    done = run("--as", "sue", "--reason", "the game broke up")
    assert done.returncode == 0, done.stderr
    assert f"pot of {waiting.pot:,} chips returned by sue/supervisor" in done.stdout
    (ret,) = [p for _s, _t, a, k, _r, p in rows(folder) if k == "pot.return"]
    assert ret["reason"] == "the game broke up" and sum(ret["shares"].values()) == waiting.pot


def test_a_pace_no_table_reaches_is_said_to_be_a_simulations() -> None:
    assert pace_words(52.25, "hands") == "52.2 hands per hour"
    assert pace_words(LIVE_PACE_LIMIT, "rounds") == f"{LIVE_PACE_LIMIT:,.1f} rounds per hour"
    fast = pace_words(9642.9, "hands")
    assert fast.startswith("9,642.9 hands per hour (faster than any table deals")
    assert "played by a simulation or a script, not at a live table" in fast
    assert pace_words(None, "hands") == "-"
