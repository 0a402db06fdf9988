"""The master game report shift by shift read from each day's ``day.play`` record: version 3
of the record carries every shift's play (the closer sums the day's rounds into the shifts
they closed in), so ``report master-game --by-shift`` reads one record a day, as the report
by day does, and sums the rounds only of a day the record cannot stand for (a round closed
after it, a version-2 record, shifts no longer the calendar's) or with ``recompute``.

On real SQLite journals from ``dealer-station simulate --game lapaire --gaming-days 3``."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from collections import Counter
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from dealer_station.accounting.figures import Play, TableDay
from dealer_station.accounting.settings import AccountingSettings, load_settings
from dealer_station.audit.db import open_database
from dealer_station.audit.hashing import canonical_json
from dealer_station.audit.journal import Journal, JournalTampered
from dealer_station.audit.keys import load_key
from dealer_station.cli.main import main
from dealer_station.events import EventError
from dealer_station.events.accounting import CODEC, KINDS, DayPlayed
from dealer_station.events.base import VERSION_KEY
from dealer_station.games.lapaire.table.sim import simulate_lapaire
from dealer_station.gaming_day import GamingCalendar, Shift
from dealer_station.reports.master_game import MasterGame, gather, recorded_shifts, row_json
from dealer_station.table.accounting import TableAccounting
from dealer_station.table.days import SimClock

ROOT = Path(__file__).resolve().parents[1]
CAL = GamingCalendar(zone=ZoneInfo("UTC"))     # station.toml below: 06:00 UTC, three shifts


def simulate(where: Path) -> None:
    """Three simulated gaming days at table T1 in ``where``/j.db (the tray counted at every
    shift change, the drop taken by shift, mispays for variances)."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("DEALER_STATION_CONFIG", str(where))
        (where / "station.toml").write_text('[gaming_day]\nstarts = "06:00"\n'
                                            'timezone = "UTC"\n')
        (where / "lapaire.toml").write_text((ROOT / "config" / "lapaire.toml").read_text())
        (where / "accounting.toml").write_text("[accounting]\nvariance_threshold = 0\n")
        assert main(["simulate", "--game", "lapaire", "--rounds", "30", "--gaming-days", "3",
                     "--mispay-rate", "0.1", "--seed", "7", "--quiet", "--table", "T1",
                     "--db", f"sqlite:///{where / 'j.db'}", "--key",
                     str(where / "j.key")]) == 0
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("sim")
    simulate(where)
    return where


class Copy:
    """A copy of the simulated journal, opened (each test changes its own)."""

    def __init__(self, source: Path, to: Path) -> None:
        for name in ("j.db", "j.key", "accounting.toml"):
            shutil.copy(source / name, to / name)
        self.path = to / "j.db"
        self.settings = load_settings(to / "accounting.toml")
        self.open()

    def open(self) -> None:
        self.db = open_database(f"sqlite:///{self.path}")
        self.journal = Journal(self.db, load_key(self.path.parent / "j.key"))

    def gather(self, calendar: GamingCalendar = CAL, **kw: Any) -> MasterGame:
        return gather(self.journal, self.settings, calendar, by_shift=True, **kw)

    def summaries(self) -> dict[str, dict[str, Any]]:
        """Each gaming day's ``day.play`` payload as stored (read with sqlite3 and json)."""
        con = sqlite3.connect(self.path)
        try:
            rows = con.execute("SELECT payload FROM journal WHERE kind = 'day.play' "
                               "ORDER BY seq").fetchall()
        finally:
            con.close()
        return {p["gaming_day"]: p for p in (json.loads(r[0]) for r in rows)}


@pytest.fixture
def copy(simulated: Path, tmp_path: Path) -> Iterator[Copy]:
    c = Copy(simulated, tmp_path)
    yield c
    c.db.close()


def figures(rows: list[TableDay], settings: AccountingSettings) -> list[tuple[Any, ...]]:
    """Every figure of the rows: the report's JSON object, the exact play and the share of
    the theoretical win each shift prints."""
    return [(row_json(r, settings), r.play, r.theoretical_share) for r in rows]


def total(plays: list[Play]) -> Play:
    out = Play()
    for p in plays:
        out.add(p)
    return out


def test_each_shift_is_read_from_the_day_play_record_as_the_rounds_sum_it(copy: Copy) -> None:
    read = copy.gather()
    again = copy.gather(recompute=True)
    assert len(read.days) == 3 and len(read.shifts) == 3 * len(CAL.shifts)
    # Figure by figure, the rows read from the records are the rows summed from the rounds.
    assert figures(read.shifts, copy.settings) == figures(again.shifts, copy.settings)
    assert figures(read.days, copy.settings) == figures(again.days, copy.settings)
    stored = copy.summaries()
    for day in read.days:
        summary = read.ledgers["T1"].days[day.gaming_day].play
        assert summary is not None
        held = recorded_shifts(summary, day.gaming_day, CAL)
        assert held is not None, "every closed day's record holds its shifts"
        parts = read.shifts_of(day)
        assert [p.shift for p in parts] == [s.name for s in CAL.shifts]
        assert [p.play for p in parts] == [held[s.name] for s in CAL.shifts]
        assert all(p.play.rounds for p in parts), "30 rounds a day reach every shift"
        # Each day's shifts add up exactly to the day, theoretical win and shares too.
        assert total([p.play for p in parts]) == day.play
        assert sum(p.theoretical_win for p in parts) == day.theoretical_win
        # Stored as the station wrote it: version 3, whole numbers and exact text, the
        # calendar's shifts in its order with the time each covered.
        payload = stored[day.gaming_day.isoformat()]
        assert payload[VERSION_KEY] == 3
        assert [s["shift"] for s in payload["shifts"]] == ["Day", "Swing", "Graveyard"]
        spans = CAL.shifts_of(day.gaming_day)
        assert [datetime.fromisoformat(s["start"]) for s in payload["shifts"]] == [
            s.start for s in spans]
        assert [datetime.fromisoformat(s["end"]) for s in payload["shifts"]] == [
            s.end for s in spans]
        for key in ("rounds", "wagered", "returned", "paid", "computed_win",
                    "voided_returned"):
            assert sum(s[key] for s in payload["shifts"]) == payload[key], key
            assert all(type(s[key]) is int for s in payload["shifts"]), key
        assert sum(Fraction(s["theoretical"]) for s in payload["shifts"]) == Fraction(
            payload["theoretical"])
        assert canonical_json(payload)    # no float anywhere


def test_the_report_by_shift_reads_no_round_of_a_day_its_record_holds(copy: Copy) -> None:
    """With every round's record but its closing one taken out of a copy of the file, and
    the closing ones emptied of their meters, the report by shift is still the one summed from
    the rounds of the whole file: it read the ``day.play`` records alone. (The closing records
    stay: the report counts them, along their index, to know that no round closed after a
    day's record. Summing the rounds again there finds none.)"""
    whole = figures(copy.gather(recompute=True).shifts, copy.settings)
    copy.db.close()
    con = sqlite3.connect(copy.path)
    try:
        removed = con.execute("DELETE FROM journal WHERE round_no IS NOT NULL AND kind NOT "
                              "IN ('round.close', 'void')").rowcount
        con.execute("UPDATE journal SET payload = '{\"meters\":{}}' WHERE kind IN "
                    "('round.close', 'void')")
        con.execute("DELETE FROM rounds")
        con.execute("DELETE FROM meters")
        con.commit()
    finally:
        con.close()
    assert removed > 90 * 5
    copy.open()
    assert figures(copy.gather().shifts, copy.settings) == whole
    # Summed from the rounds, the emptied closing records are found out.
    with pytest.raises(JournalTampered):
        copy.gather(recompute=True)


def test_a_round_closed_after_the_record_has_its_day_summed_from_the_rounds(
        copy: Copy) -> None:
    before = copy.gather()
    last = before.days[-1].gaming_day
    recorded = recorded_shifts(before.ledgers["T1"].days[last].play, last, CAL)
    assert recorded is not None
    # A round played after the closer, still in the last gaming day (its last shift; the
    # soft count's records came after, in the next day).
    closer = before.ledgers["T1"].days[last].closer
    moment = CAL.day(last).end - timedelta(minutes=5)
    assert closer is not None and datetime.fromisoformat(closer.ts) < moment
    copy.journal.clock = SimClock(moment)
    assert simulate_lapaire(copy.journal, "T1", rounds=1, seed=1, quiet=True) == 1
    after = copy.gather()
    # That day's shifts are summed from its rounds: the late round is in its last shift.
    late = after.shifts_of(after.days[-1])
    assert [p.play.rounds for p in late] == [recorded[s.name].rounds + (s.name == "Graveyard")
                                             for s in CAL.shifts]
    assert late[-1].play != recorded["Graveyard"]
    assert after.days[-1].play.rounds == before.days[-1].play.rounds + 1
    assert total([p.play for p in late]) == after.days[-1].play
    # Every figure as summing every round again gives it; the other days unchanged.
    again = copy.gather(recompute=True)
    assert figures(after.shifts, copy.settings) == figures(again.shifts, copy.settings)
    assert (figures(after.shifts[:6], copy.settings)
            == figures(before.shifts[:6], copy.settings))


def test_a_version_2_record_is_read_and_its_day_summed_shift_by_shift_from_the_rounds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second day closed by a station before version 3 (its closer journals the day's
    play without ``shifts``, as version 2): the report reads that record for the day and
    sums the day's shifts from its rounds; the other days' shifts come from their records."""

    @dataclasses.dataclass(frozen=True, slots=True)
    class DayPlayedVersion2(DayPlayed):
        VERSION = 2

    day_played = TableAccounting.day_played
    closed: list[str] = []

    def as_before(self: TableAccounting, day: date) -> DayPlayed | None:
        played = day_played(self, day)
        if day.isoformat() not in closed:
            closed.append(day.isoformat())
        if played is None or closed.index(day.isoformat()) != 1:
            return played
        fields = {f.name: getattr(played, f.name) for f in dataclasses.fields(played)}
        return DayPlayedVersion2(**{**fields, "shifts": None})

    monkeypatch.setattr(TableAccounting, "day_played", as_before)
    (tmp_path / "made").mkdir()
    simulate(tmp_path / "made")
    monkeypatch.undo()
    c = Copy(tmp_path / "made", tmp_path)
    try:
        stored = c.summaries()
        second = stored[closed[1]]
        assert second[VERSION_KEY] == 2 and "shifts" not in second
        assert "voided_returned" in second
        assert [stored[d][VERSION_KEY] for d in (closed[0], closed[2])] == [3, 3]
        read = c.gather()
        summaries = {d.gaming_day.isoformat(): read.ledgers["T1"].days[d.gaming_day].play
                     for d in read.days}
        old = summaries[closed[1]]
        assert old is not None and old.shifts is None and old.voided_returned is not None
        assert recorded_shifts(old, read.days[1].gaming_day, CAL) is None
        assert all(recorded_shifts(summaries[d], date.fromisoformat(d), CAL) is not None
                   for d in (closed[0], closed[2]))
        again = c.gather(recompute=True)
        assert figures(read.shifts, c.settings) == figures(again.shifts, c.settings)
        parts = read.shifts_of(read.days[1])
        assert all(p.play.rounds for p in parts)
        assert total([p.play for p in parts]) == read.days[1].play
        assert main(["audit", "verify", "--db", f"sqlite:///{c.path}", "--key",
                     str(tmp_path / "j.key")]) == 0
    finally:
        c.db.close()


def test_shifts_no_longer_the_calendars_are_summed_from_the_rounds(copy: Copy) -> None:
    """A calendar whose shifts were renamed or moved since the days were closed: the
    records' shifts are not its shifts, so each is summed from the rounds."""
    for calendar in (
            GamingCalendar(zone=ZoneInfo("UTC"), shifts=(
                Shift("Morning", time(6)), Shift("Swing", time(14)),
                Shift("Graveyard", time(22)))),
            GamingCalendar(zone=ZoneInfo("UTC"), shifts=(
                Shift("Day", time(6)), Shift("Swing", time(16)), Shift("Graveyard", time(23)))),
            GamingCalendar(zone=ZoneInfo("UTC"), shifts=(
                Shift("Day", time(6)), Shift("Night", time(18))))):
        read = copy.gather(calendar)
        summary = read.ledgers["T1"].days[read.days[0].gaming_day].play
        assert recorded_shifts(summary, read.days[0].gaming_day, calendar) is None
        again = copy.gather(calendar, recompute=True)
        assert figures(read.shifts, copy.settings) == figures(again.shifts, copy.settings)
        assert [s.shift for s in read.shifts_of(read.days[0])] == [
            s.name for s in calendar.shifts]
        for day in read.days:
            assert total([p.play for p in read.shifts_of(day)]) == day.play


def test_the_command_prints_the_shifts_read_from_the_records(
        copy: Copy, simulated: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(simulated))
    capsys.readouterr()
    assert main(["report", "master-game", "--json", "--by-shift", "--db",
                 f"sqlite:///{copy.path}", "--key", str(copy.path.parent / "j.key")]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    again = copy.gather(recompute=True)
    assert printed == [json.loads(json.dumps(row_json(r, copy.settings))) for r in again.shifts]
    assert [p["shift"] for p in printed[:3]] == ["Day", "Swing", "Graveyard"]


def test_the_codec_reads_and_writes_every_version_of_the_record() -> None:
    spans = (("Day", "2026-03-01T06:00:00.000000+00:00", "2026-03-01T14:00:00.000000+00:00"),
             ("Swing", "2026-03-01T14:00:00.000000+00:00", "2026-03-01T22:00:00.000000+00:00"),
             ("Graveyard", "2026-03-01T22:00:00.000000+00:00",
              "2026-03-02T06:00:00.000000+00:00"))
    shifts = tuple({"shift": name, "start": start, "end": end, "rounds": n,
                    "wagered": 100 * n, "returned": 10 * n, "paid": 40 * n,
                    "computed_win": 50 * n, "theoretical": f"{7 * n}/3", "voided_returned": n}
                   for n, (name, start, end) in enumerate(spans, 1))
    now = DayPlayed("2026-03-01", 6, 600, 60, 240, 300, "14/1", 99, 6, shifts)
    payload = now.to_payload()
    assert payload[VERSION_KEY] == 3 and payload["shifts"] == [dict(s) for s in shifts]
    assert CODEC.decode("day.play", payload) == now
    assert CODEC.decode("day.play", payload).to_payload() == payload
    assert json.loads(canonical_json(payload)) == payload
    held = now.shift_plays()
    assert held is not None and [s.shift for s in held] == ["Day", "Swing", "Graveyard"]
    assert [s.to_json() for s in held] == list(shifts)
    # Version 2 (no shifts) and version 1 (no voids' returns either) read as before.
    v2 = {k: v for k, v in payload.items() if k != "shifts"} | {VERSION_KEY: 2}
    old = CODEC.decode("day.play", v2)
    assert isinstance(old, DayPlayed) and old.shifts is None and old.shift_plays() is None
    assert old.voided_returned == 6
    assert old.to_payload() == {**v2, VERSION_KEY: 3}
    v1 = {k: v for k, v in v2.items() if k not in (VERSION_KEY, "voided_returned")}
    first = CODEC.decode("day.play", v1)
    assert isinstance(first, DayPlayed)
    assert (first.voided_returned, first.shifts) == (None, None)
    # A shift that is not what the station writes is refused in words, by its place.
    bad = {**payload, "shifts": [*payload["shifts"][:2],
                                 {**payload["shifts"][2], "rounds": 3.0}]}
    wrong = CODEC.decode("day.play", bad)
    assert isinstance(wrong, DayPlayed)
    with pytest.raises(EventError, match=r"day.play record of 2026-03-01: its shift 3 has "
                                         r"no 'rounds' as the station writes it"):
        wrong.shift_plays()
    extra = {**payload, "shifts": [{**payload["shifts"][0], "tips": 5}]}
    odd = CODEC.decode("day.play", extra)
    assert isinstance(odd, DayPlayed)
    with pytest.raises(EventError, match=r"its shift 1 has a key it does not know \('tips'\)"):
        odd.shift_plays()
    with pytest.raises(EventError, match=r"'shifts' should be a list"):
        CODEC.decode("day.play", {**payload, "shifts": {"Day": 1}})


def test_every_accounting_record_of_the_simulated_days_reads_back_exactly(copy: Copy) -> None:
    con = sqlite3.connect(copy.path)
    try:
        rows = [(seq, kind, json.loads(p)) for seq, kind, p in con.execute(
            "SELECT seq, kind, payload FROM journal ORDER BY seq")]
    finally:
        con.close()
    decoded: Counter[str] = Counter()
    for seq, kind, payload in rows:
        if kind in KINDS:
            assert CODEC.decode(kind, payload).to_payload() == payload, (seq, kind)
            decoded[kind] += 1
    assert decoded["day.play"] == 3 and decoded["tray.close"] == 3
