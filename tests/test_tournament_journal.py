"""Tournaments journaled in their own chain: Bourré tables played on the station's engine,
random tournaments (a property), the chain verifies and the state rebuilt from the journal
equals the live one, and the command line's contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dealer_station.audit.db import open_database
from dealer_station.audit.journal import Journal
from dealer_station.audit.keys import create_key
from dealer_station.cli.main import main
from dealer_station.events.tournament import TableResult
from dealer_station.games.bourre import tournament_tables
from dealer_station.games.bourre.rules.config import BourreProfile
from dealer_station.tournament import journaled
from dealer_station.tournament.config import default_games
from dealer_station.tournament.errors import TournamentError
from dealer_station.tournament.simulate import simulate
from dealer_station.tournament.tournament import Tournament

GAMES = default_games()
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    db = open_database(f"sqlite:///{tmp_path / 'journal.db'}")
    return Journal(db, create_key(tmp_path / "journal.key"))


def test_a_bourre_table_is_played_on_the_bourre_engine_and_its_chips_add_up() -> None:
    import random

    played = tournament_tables.play_table(BourreProfile(), ["a", "b", "c", "d", "e"],
                                      random.Random(3), hands=12)
    assert played.hands >= 12 or min(played.chips.values()) == 0
    assert sum(played.chips.values()) + played.unawarded == 500
    assert played.chips != dict.fromkeys("abcde", 100)      # chips really moved


def test_a_bourre_tournament_is_fed_by_its_tables_sessions(journal: Journal,
                                                           tmp_path: Path) -> None:
    t = simulate(GAMES["bourre"], 23, 11, sink=journaled.sink(journal, "b23"), name="b23",
                 hands=8)
    results = [e for e in journaled.events(journal, "b23") if isinstance(e, TableResult)]
    assert [len(t.seating_chart(1)[i]) for i in range(5)] == [5, 5, 5, 4, 4]
    for e in results:
        players = t.seating_chart(e.round)[e.table - 1]
        assert sum(e.results.values()) + e.unawarded == 100 * len(players)
    assert t.places is not None and sorted(t.places) == sorted(t.entries)
    # Rules under which the chip check could never pass are refused before anything is played.
    rules = tmp_path / "bourre.toml"
    rules.write_text('[profiles.tournament]\ndescription = "short of chips"\n'
                     '[profiles.tournament.session]\nstarting_chips = 50\n')
    with pytest.raises(TournamentError, match="starts a session with 50 chips"):
        simulate(GAMES["bourre"], 5, 1, engine_config=rules)


def test_the_chain_verifies_and_the_journal_rebuilds_the_live_state(journal: Journal) -> None:
    for key, n in (("rummy", 13), ("euchre", 14), ("pedro", 10)):
        name = f"rebuild-{key}"
        t = simulate(GAMES[key], n, 4, sink=journaled.sink(journal, name), name=name)
        assert journal.verify_table(journaled.stream(name)).ok
        rebuilt = journaled.load(journal, name)
        assert rebuilt.snapshot() == t.snapshot()
        # every record carries who did it
        assert {r.actor for r in journal.records(journaled.stream(name))} == \
            {"simulator/director"}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(GAMES)), n=st.integers(4, 40), seed=st.integers(0, 10**6))
def test_random_tournaments_eliminate_everyone_but_the_winner_once(key: str, n: int,
                                                                   seed: int) -> None:
    game = GAMES[key]
    n -= n % game.team_size
    t = simulate(game, n, seed, hands=4)
    entries = sorted(t.entries)
    assert t.places is not None and sorted(t.places) == entries
    assert sorted(t.eliminated) == sorted(e for e in entries if e != t.places[0])
    assert len(set(t.eliminated)) == len(t.eliminated)
    assert list(t.places[1:]) == list(reversed(t.eliminated))
    rebuilt = Tournament.rebuild(_events_of(t, game.key, n, seed))
    assert rebuilt.snapshot() == t.snapshot()


def _events_of(t: Tournament, key: str, n: int, seed: int) -> list[object]:
    got: list[object] = []
    simulate(GAMES[key], n, seed, hands=4, sink=lambda events, _by: got.extend(events))
    return got


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_station", "tournament", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                               "QT_QPA_PLATFORM": "offscreen"})


@pytest.mark.parametrize("game", ["bourre", "euchre"])
def test_simulate_json_contract(game: str) -> None:
    run = _cli("simulate", "--game", game, "--players", "12", "--seed", "5", "--json",
               "--hands", "6")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert {"rounds", "tags", "eliminated", "places"} <= set(out)
    for rnd in out["rounds"]:
        assert set(rnd) == {"round", "tables"}
        for table in rnd["tables"]:
            assert {"table", "players", "results", "winners", "losers"} <= set(table)
            assert set(table["results"]) == set(table["players"])
    assert sorted(out["places"]) == sorted(out["tags"])
    assert out["eliminated"] == list(reversed(out["places"][1:]))
    assert out["journal"]["verified"] and out["journal"]["rebuilt_equals_live"]
    if game == "euchre":
        assert all(m["side"] in ("winners", "losers", "final") and len(m["teams"]) == 2
                   and m["winner"] in m["teams"] for m in out["bracket"])
        assert len(out["places"]) == 6                       # 12 people, 6 teams
    else:
        assert "bracket" not in out


@pytest.mark.parametrize(("args", "message"), [
    (["--game", "poker", "--players", "8"], "unknown game 'poker'"),
    (["--game", "rummy", "--players", "1"], "cannot fill one Rummy table"),
    (["--game", "euchre", "--players", "2"], "cannot fill one Euchre table"),
    (["--game", "pedro", "--players", "7"], "do not make whole teams"),
])
def test_simulate_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    run = _cli("simulate", *args)
    assert run.returncode == 2 and run.stdout == ""
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert "Traceback" not in run.stderr


def test_a_tournament_run_by_hand_at_the_command_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    store = ["--db", f"sqlite:///{tmp_path / 'j.db'}", "--key", str(tmp_path / 'j.key')]

    def run(*args: str) -> int:
        return main(["tournament", *args, *store])

    assert run("create", "spring", "--game", "rummy", "--seed", "1", "--by", "ann/director",
               "--reason", "spring social") == 0
    for p in ("amy", "bea", "cat", "dee", "eve"):
        assert run("register", "spring", p) == 0
    assert run("start", "spring") == 0
    assert run("register", "spring", "fay") == 2
    capsys.readouterr()
    assert run("seating", "spring") == 0
    lines = capsys.readouterr().out.splitlines()
    t1 = lines[1].split(": ")[1].split(", ")
    t2 = lines[2].split(": ")[1].split(", ")
    assert len(t1) == 3 and len(t2) == 2
    outsider = t2[0]
    chips = ["--chips", f"{t1[0]}=30", "--chips", f"{t1[1]}=15", "--chips", f"{t1[2]}=5"]
    assert run("result", "spring", "--table", "1", "--chips", f"{outsider}=1", *chips[2:]) == 2
    assert "did not play at this table" in capsys.readouterr().err
    assert run("result", "spring", "--table", "1", *chips[:4], "--chips", f"{t1[2]}=6") == 2
    assert "do not add up" in capsys.readouterr().err
    assert run("result", "spring", "--table", "1", *chips) == 0
    assert run("result", "spring", "--table", "1", *chips) == 2
    assert "already has its result" in capsys.readouterr().err
    assert run("close-round", "spring") == 2
    assert run("result", "spring", "--table", "2", "--chips", f"{t2[0]}=50",
               "--chips", f"{t2[1]}=0") == 0
    assert run("close-round", "spring") == 0
    capsys.readouterr()
    assert run("standings", "spring", "--json") == 0
    rows = {r["entry"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[t1[0]]["tags"] == 0 and rows[t1[2]]["tags"] == 1 and rows[t2[1]]["tags"] == 1
    assert run("disqualify", "spring", t2[1]) == 2
    assert run("disqualify", "spring", t2[1], "--reason", "foul language") == 0
    assert run("status", "spring") == 0
    capsys.readouterr()
    assert main(["audit", "verify", *store]) == 0
