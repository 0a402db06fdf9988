"""Every figure recomputed from the raw SQLite rows alone (the ``journal`` table's payloads,
read with ``sqlite3`` and ``json``, none of the station's code): the master game report's, the
shift report's and the pit report's, over three simulated gaming days with mispays, fills and
credits through the cage, a slip voided after receipt and a disposed variance. Each label
means one number wherever it is printed: the shift and pit reports' "Wagered", "Paid" and
"House win" are the master game's wagered, paid and computed win of the same day, and the
shift report's "Winning stakes" its ``returned``. (The card room's figures are recomputed the
same way in tests/test_card_room_accounting.py.)"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from dealer_station.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
DAY_STARTS = timedelta(hours=6)          # station.toml below: 06:00 UTC


def _money(minor: int) -> str:
    sign = "-" if minor < 0 else ""
    return f"{sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"


def _gaming_day(ts: str) -> date:
    return (datetime.fromisoformat(ts).astimezone(UTC) - DAY_STARTS).date()


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from zoneinfo import ZoneInfo

    from dealer_station.accounting.settings import load_settings
    from dealer_station.audit.db import open_database
    from dealer_station.audit.journal import Journal
    from dealer_station.audit.keys import load_key
    from dealer_station.audit.users import Users
    from dealer_station.gaming_day import GamingCalendar
    from dealer_station.table.accounting import TableAccounting
    from dealer_station.table.cage import CageDesk
    from dealer_station.table.count_room import CountRoom
    from dealer_station.table.days import SIM_PIN, SimClock

    tmp = tmp_path_factory.mktemp("raw")
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("DEALER_STATION_CONFIG", str(tmp))
        (tmp / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                          'timezone = "UTC"\n')
        (tmp / "lapaire.toml").write_text((ROOT / "config" / "lapaire.toml").read_text())
        (tmp / "accounting.toml").write_text("[accounting]\nvariance_threshold = 0\n")
        db_path = tmp / "j.db"
        store = ["--db", f"sqlite:///{db_path}", "--key", str(tmp / "j.key")]
        assert main(["simulate", "--game", "lapaire", "--rounds", "90", "--gaming-days", "3",
                     "--mispay-rate", "0.1", "--seed", "5", "--quiet", "--table", "T1",
                     *store]) == 0
        # A received fill voided afterwards, and a variance disposed of, as people would.
        db = open_database(f"sqlite:///{db_path}")
        journal = Journal(db, load_key(tmp / "j.key"))
        last = journal.last("T1")
        assert last is not None
        journal.clock = SimClock(datetime.fromisoformat(last.ts) + timedelta(minutes=5))
        settings = load_settings(tmp / "accounting.toml")
        book = TableAccounting(journal, "T1", settings,
                               GamingCalendar(zone=ZoneInfo("UTC")))
        users = Users(journal)
        who = {u: users.authenticate(u, SIM_PIN, table_id="T1")
               for u in ("sim-supervisor", "sim-cashier", "sim-count1", "sim-count2")}
        ledger = book.ledger()
        fills = [r for r in ledger.requests.values() if r.kind == "fill"]
        assert fills, "the simulated days took no fill"
        CageDesk(book).void(fills[0].event.year, fills[0].event.request, "wrong table",
                            [who["sim-supervisor"], who["sim-cashier"]])
        first_day = min(ledger.days)
        CountRoom(book).dispose(first_day, -300, "explained", "dealer mispaid", [
            who["sim-count1"], who["sim-count2"]])
        db.close()
        out: dict[str, Any] = {"db": db_path, "days": sorted(ledger.days)}
        capture = tmp / "master.json"
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["report", "master-game", "--json", *store]) == 0
        capture.write_text(buf.getvalue())
        out["master"] = {r["gaming_day"]: r for r in map(json.loads,
                                                         buf.getvalue().splitlines())}
        for d in out["days"]:
            texts = {}
            for name, extra in (("shift", ["--table", "T1"]), ("pit", ["--tables", "T1"])):
                pdf = tmp / f"{name}-{d}.pdf"
                assert main(["report", name, *extra, "--gaming-day", d.isoformat(),
                             "--out", str(pdf), *store]) == 0
                words = " ".join(p.extract_text() for p in PdfReader(str(pdf)).pages)
                texts[name] = " ".join(words.split())
            out[d.isoformat()] = texts
        return out
    finally:
        mp.undo()


def _raw(db: Path) -> dict[date, dict[str, Any]]:
    """Each gaming day's figures from the journal's rows alone."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT seq, ts, kind, round_no, payload FROM journal "
                        "WHERE table_id = 'T1' ORDER BY seq").fetchall()
    conn.close()
    days: dict[date, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    stakes: dict[tuple[int, int], int] = {}
    voided: set[tuple[str, int, int]] = set()
    slips: list[tuple[str, dict[str, Any]]] = []
    for _seq, ts, kind, round_no, text in rows:
        p = json.loads(text)
        if kind == "wager.place":
            stakes[(round_no, p["wager_id"])] = p["amount"]
        elif kind == "stage.settle":
            d = days[_gaming_day(ts)]
            d["winning_stakes"] += sum(stakes[(round_no, r["wager_id"])]
                                       for r in p["results"] if r["won"])
        elif kind == "round.close":
            d = days[_gaming_day(ts)]
            d["rounds"] += 1
            d["wagered"] += p["wagered"]
            d["paid"] += p["total_win"]
            d["house_win"] += p["meters"]["total"]["house_win"]
        elif kind in ("tray.open", "tray.close"):
            days[date.fromisoformat(p["gaming_day"])][kind] = p["total"]
        elif kind in ("fill", "credit"):
            slips.append((kind, p))
        elif kind == "variance.disposition":
            days[date.fromisoformat(p["gaming_day"])]["disposition"] = (
                p["disposition"], p["note"], p["signers"], p["variance"], ts)
        elif kind == "slip.void":
            voided.add((p["slip"], p["year"], p["number"]))
        elif kind == "drop.count" and p.get("box") != "rake":
            d = days[date.fromisoformat(p["gaming_day"])]
            d["drop"] += p["total"]
            d["drop_cash"] += p["cash"]
            d["drop_markers"] += p["markers"]
            # The notes by denomination add up to the cash counted.
            assert sum(int(k) * n for k, n in p["currency"].items()) == p["cash"]
            d.setdefault("team", [])
            d["team"] += [s for s in p["signers"] if s not in d["team"]]
    for kind, p in slips:
        if (kind, p["year"], p["number"]) not in voided:
            days[date.fromisoformat(p["gaming_day"])][kind + "s"] += p["total"]
    return days


def test_the_master_game_report_is_the_raw_rows(made: dict[str, Any]) -> None:
    raw = _raw(made["db"])
    mtd_win = mtd_drop = 0
    for d in made["days"]:
        r, x = made["master"][d.isoformat()], raw[d]
        win = x["drop"] + x["credits"] - x["fills"] + x["tray.close"] - x["tray.open"]
        mtd_win, mtd_drop = mtd_win + win, mtd_drop + x["drop"]
        assert (r["opener"], r["closer"], r["fills"], r["credits"]) == (
            x["tray.open"], x["tray.close"], x["fills"], x["credits"]), d
        assert (r["drop"], r["drop_cash"], r["drop_markers"]) == (
            x["drop"], x["drop_cash"], x["drop_markers"]), d
        assert r["count_team"] == x["team"]
        assert (r["rounds"], r["wagered"], r["paid"], r["computed_win"]) == (
            x["rounds"], x["wagered"], x["paid"], x["house_win"]), d
        assert r["returned"] == x["winning_stakes"]
        assert r["win"] == win and r["variance"] == win - x["house_win"]
        assert Fraction(r["hold"]).limit_denominator(10**9) == Fraction(win, x["drop"])
        assert (r["mtd_win"], r["mtd_drop"]) == (mtd_win, mtd_drop)
        disposed = x.get("disposition")
        said = r["disposition"]
        assert (said is None) == (disposed is None), d
        if disposed is not None:
            assert (said["disposition"], said["note"], said["by"], said["variance"],
                    said["at"]) == (disposed[0], disposed[1], disposed[2], disposed[3],
                                    disposed[4])
    assert any(made["master"][d.isoformat()]["disposition"] for d in made["days"])
    # The voided fill counts nowhere; the days' fills are the received slips not voided.
    assert sum(made["master"][d.isoformat()]["fills"] for d in made["days"]) == sum(
        raw[d]["fills"] for d in made["days"])


def test_each_label_means_one_number_in_every_report(made: dict[str, Any]) -> None:
    raw = _raw(made["db"])
    for d in made["days"]:
        x, master = raw[d], made["master"][d.isoformat()]
        shift, pit = made[d.isoformat()]["shift"], made[d.isoformat()]["pit"]
        for label, value in (("Wagered", x["wagered"]), ("Winning stakes", x["winning_stakes"]),
                             ("Paid", x["paid"]), ("House win", x["house_win"])):
            assert f"{label} {_money(value)} USD" in shift, (d, label)
        assert f"Rounds played {x['rounds']} (" in shift
        # The pit's row of the table: rounds, voided, wagered, paid, house win, returned.
        assert (f"T1 La Pair'e {x['rounds']} 0 {_money(x['wagered'])} {_money(x['paid'])} "
                f"{_money(x['house_win'])} 0.00") in pit, d
        # The same words are the same figures in the master game's.
        assert (master["wagered"], master["paid"], master["computed_win"],
                master["returned"]) == (x["wagered"], x["paid"], x["house_win"],
                                        x["winning_stakes"])
        assert x["wagered"] == x["winning_stakes"] + x["paid"] + x["house_win"]
