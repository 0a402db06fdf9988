"""Bad input never gets a traceback: each case a reviewer reproduced, run through the real
command, must end in one clear line naming what and where (exit 2), or in an error line of
strict JSON for ``settle``, and the output that was written must stay valid."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo_paths import CONFIG_DIR, ROOT

from dealer_station.cli.main import EXIT_BROKEN_PIPE, main

GOOD = {"game": "lapaire", "round_id": "r1", "cards": ["KH", "JK", "7S"],
        "wagers": [{"seat": 1, "bet": "straight", "values": ["K"], "amount": 10}]}


def strict_json(line: str) -> Any:
    """``line`` parsed as strict JSON: no NaN/Infinity, and text that UTF-8 can carry."""
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} is not JSON: {line[:200]}")

    line.encode("utf-8")  # a lone surrogate cannot be encoded
    return json.loads(line, parse_constant=refuse)


def run_proc(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], input=stdin,
                          capture_output=True, cwd=ROOT, timeout=120, check=False)


def run_main(args: list[str], capsys: pytest.CaptureFixture[str],
             stdin: str = "") -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(args)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


# --- settle: lone surrogates, numbers out of range ------------------------------------------

def test_settle_refuses_lone_surrogates_and_huge_numbers_and_goes_on() -> None:
    lines = [
        '{"game": "lapaire", "round_id": "\\ud800", "cards": ["KH", "JK", "7S"]}',
        '{"game": "lapaire", "round_id": 1e400, "cards": ["KH", "JK", "7S"]}',
        '{"game": "bourre", "hand_id": "x\\udfff"}',
        json.dumps({**GOOD, "wagers": [{**GOOD["wagers"][0], "note": "\uDBFF"}]}),
        '{"game": "lapaire", "round_id": -1E+999}',
        '{"game": "lapaire", "round_id": ' + "7" * 5000 + "}",
        '{"\\ud800": 1}',
        json.dumps({**GOOD, "round_id": "pair \U0001F600 and \\ud800 as text"},
                   ensure_ascii=True),
        json.dumps(GOOD),
    ]
    proc = run_proc(["settle"], ("\n".join(lines) + "\n").encode())
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == b""
    out = [strict_json(x) for x in proc.stdout.decode("utf-8").splitlines()]
    assert len(out) == len(lines)
    for n in (1, 3, 7):
        assert out[n - 1] == {"round_id": None, "line": n, "error": out[n - 1]["error"]}
        assert "half of a UTF-16 surrogate pair" in out[n - 1]["error"]
    assert out[0]["error"] == ("line 1: cannot be read (a string holds \\ud800, half of a "
                               "UTF-16 surrogate pair, which is not a character)")
    assert out[1]["error"] == ("line 2: cannot be read (the number 1e400 is out of range: a "
                               "JSON number here must be less than about 1.8e308 in size)")
    assert "surrogate" in out[3]["error"] and out[3]["line"] == 4
    assert "-1E+999 is out of range" in out[4]["error"]
    assert "5000 digits is too long" in out[5]["error"]
    # A pair of surrogates is one character, and an escaped backslash is plain text.
    assert out[7]["round_id"] == "pair \U0001F600 and \\ud800 as text"
    assert out[8]["total_win"] == 120


def test_settle_never_writes_an_answer_that_is_not_strict_json() -> None:
    from dealer_station.cli.settle import encode_answer

    for answer in ({"round_id": float("inf")}, {"round_id": float("nan")},
                   {"round_id": "\ud800"}, {"round_id": {1j}}):
        text, is_error = encode_answer(answer, 7)
        assert is_error
        assert strict_json(text)["line"] == 7
        assert "cannot be written as JSON" in strict_json(text)["error"]
    text, is_error = encode_answer({"round_id": "r", "total_win": 0}, 1)
    assert not is_error and strict_json(text) == {"round_id": "r", "total_win": 0}


def test_settle_closed_stdout_is_quiet() -> None:
    line = (json.dumps(GOOD) + "\n").encode() * 20_000
    proc = subprocess.run(
        f"{sys.executable} -m dealer_station settle | head -1", shell=True, input=line,
        capture_output=True, cwd=ROOT, timeout=120, check=False,
        executable="/bin/bash")
    assert proc.returncode == 0
    assert proc.stderr == b""
    assert strict_json(proc.stdout.decode())["round_id"] == "r1"


def test_broken_pipe_gives_the_conventional_status_without_a_message(
        tmp_path: Path) -> None:
    # PIPESTATUS shows the command's own status on the left of the pipe.
    line = (json.dumps(GOOD) + "\n") * 20_000
    (tmp_path / "in.jsonl").write_text(line)
    proc = subprocess.run(
        f"{sys.executable} -m dealer_station settle < in.jsonl | head -c 10 >/dev/null; "
        f"echo ${{PIPESTATUS[0]}}", shell=True, capture_output=True, cwd=tmp_path,
        timeout=120, check=False, executable="/bin/bash",
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.stdout.decode().strip() == str(EXIT_BROKEN_PIPE)
    assert proc.stderr == b""


# --- configuration files ---------------------------------------------------------------------

def _not_utf8(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "config"
    if not folder.exists():
        shutil.copytree(CONFIG_DIR, folder)
    path = folder / name
    path.write_bytes(path.read_bytes() + b"# caf\xe9\n")
    return path


def test_config_that_is_not_utf8_is_named(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    table = _not_utf8(tmp_path, "lapaire.toml")
    lines = table.read_bytes().count(b"\n")
    expected = f"{table}: not UTF-8 text: byte 0xe9 at line {lines}, column 6"
    for args in (["parsheet", "--config", str(table)], ["settle", "--config", str(table)],
                 ["simulate", "--config", str(table), "--rounds", "1",
                  "--db", f"sqlite:///{tmp_path}/j.db", "--key", str(tmp_path / "k")]):
        code, out, err = run_main(args, capsys)
        assert code == 2, args
        assert err.startswith(f"dealer-station {args[0]}: error: {expected}"), err
        assert out == ""
    profiles = _not_utf8(tmp_path, "bourre.toml")
    code, out, err = run_main(["settle", "--bourre-config", str(profiles)], capsys,
                              '{"game": "bourre", "hand_id": "h1"}\n')
    assert code == 1 and err == ""
    assert f"{profiles}: not UTF-8 text" in strict_json(out)["error"]


def test_doctor_names_the_file_that_is_not_utf8(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    table = _not_utf8(tmp_path, "lapaire.toml")
    skips = [x for c in ("key", "database", "journal", "devices", "clock", "software")
             for x in ("--skip", c)]
    code, out, err = run_main(["doctor", "--config", str(table.parent), *skips], capsys)
    assert code == 1
    assert f"FAIL  config    {table}: not UTF-8 text: byte 0xe9" in out
    assert "Traceback" not in err


def test_report_config_with_a_station_file_that_is_not_utf8(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, journal_copy: Path) -> None:
    station = _not_utf8(tmp_path, "station.toml")
    monkeypatch.setenv("DEALER_STATION_CONFIG", str(station.parent))
    code, _out, err = run_main(["report", "config", *store_args(journal_copy),
                                "--out", str(tmp_path / "c.pdf")], capsys)
    assert code == 2
    assert err.startswith(f"dealer-station report: error: {station}: not UTF-8 text")


def test_out_of_range_player_count_is_refused_at_once(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bourre.toml"
    text = (CONFIG_DIR / "bourre.toml").read_text(encoding="utf-8")
    path.write_text(text.replace("min_players = 2\n", "min_players = -100000000\n", 1),
                    encoding="utf-8")
    start = time.perf_counter()
    code, out, err = run_main(["settle", "--bourre-config", str(path)], capsys,
                              '{"game": "bourre", "hand_id": "h1"}\n')
    assert time.perf_counter() - start < 5
    assert code == 1 and err == ""
    assert strict_json(out)["error"] == (
        f"Bourré profiles cannot be loaded: {path}: profiles.tournament.min_players: must be "
        f"from 2 to 10, got -100000000")


def test_a_profile_built_in_code_with_absurd_sizes_is_refused_at_once() -> None:
    from dealer_station.games.bourre.rules.config import BourreProfile, ProfileError

    start = time.perf_counter()
    with pytest.raises(ProfileError, match="min_players: must be from 2 to 10"):
        BourreProfile(min_players=-100_000_000)
    with pytest.raises(ProfileError, match="max_players"):
        BourreProfile(max_players=100_000_000)
    assert time.perf_counter() - start < 1


def _int_leaves(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _int_leaves(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _int_leaves(v, (*path, i))
    elif isinstance(data, int) and not isinstance(data, bool):
        yield path


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for k in path[:-1]:
        data = data[k]
    data[path[-1]] = value


@pytest.mark.parametrize("value", [-100_000_000, 10**15])
def test_every_whole_number_in_both_configs_has_a_range(value: int) -> None:
    import copy
    import tomllib

    from dealer_station.games.bourre.rules.config import parse_bourre_profiles
    from dealer_station.games.lapaire.rules.config import parse_lapaire_config
    from dealer_station.tomlconfig import ConfigError

    for name, parse in (("lapaire.toml", parse_lapaire_config),
                        ("bourre.toml", parse_bourre_profiles)):
        data = tomllib.loads((CONFIG_DIR / name).read_text(encoding="utf-8"))
        leaves = list(_int_leaves(data))
        assert len(leaves) > 5
        for path in leaves:
            bad = copy.deepcopy(data)
            _set(bad, path, value)
            with pytest.raises(ConfigError) as info:
                parse(bad, name)
            assert info.value.file == name
            key = ".".join(str(p) for p in path if not isinstance(p, int))
            assert info.value.key.startswith(key.rsplit(".", 1)[0]), (path, info.value)
            reason = info.value.reason
            assert ("from" in reason and " to " in reason) or "positive" in reason, (
                path, reason)


# --- damaged journal databases ---------------------------------------------------------------

JOURNAL_COMMANDS = [
    ["audit", "verify"], ["audit", "replay"], ["audit", "meters"], ["audit", "events"],
    ["audit", "checkpoint"], ["recall"], ["report", "shift"], ["report", "recall"],
    ["report", "events"], ["report", "bourre-session"], ["report", "config"],
]


@pytest.fixture(scope="session")
def real_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real journal of 20 La Pair'e rounds made by ``dealer-station simulate``."""
    folder = tmp_path_factory.mktemp("journal")
    proc = run_proc(["simulate", "--rounds", "20", "--seed", "1", "--quiet",
                     "--db", f"sqlite:///{folder}/j.db", "--key", str(folder / "j.key")])
    assert proc.returncode == 0, proc.stderr
    return folder


def copy_journal(source: Path, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for f in source.iterdir():
        if f.is_file() and not f.name.endswith(".lock"):
            shutil.copy(f, dest / f.name)
    return dest


@pytest.fixture
def journal_copy(real_journal: Path, tmp_path: Path) -> Path:
    return copy_journal(real_journal, tmp_path / "journal")


def store_args(folder: Path) -> list[str]:
    return ["--db", f"sqlite:///{folder}/j.db", "--key", str(folder / "j.key")]


def _drop(table: str) -> Any:
    def damage(db: Path) -> None:
        with sqlite3.connect(db) as conn:
            conn.execute(f"DROP TABLE {table}")
    return damage


def _overwrite_middle(db: Path) -> None:
    """Overwrite the middle of the journal table's first page (bytes in the middle of the
    file that every command reads)."""
    with sqlite3.connect(db) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'journal'"
                            ).fetchone()[0]
    data = bytearray(db.read_bytes())
    start = (root - 1) * page_size
    data[start:start + page_size // 2] = b"Z" * (page_size // 2)
    db.write_bytes(bytes(data))


def _payload_not_json(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE journal SET payload = '{not json'")


DAMAGE = {"no journal table": _drop("journal"), "no rounds table": _drop("rounds"),
          "no meters table": _drop("meters"), "malformed pages": _overwrite_middle,
          "payloads not JSON": _payload_not_json}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_journal_gives_one_line_naming_the_database(
        damage: str, journal_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    DAMAGE[damage](journal_copy / "j.db")
    for command in JOURNAL_COMMANDS:
        extra = ["--out", str(journal_copy / "r.pdf")] if command[0] == "report" else []
        code, out, err = run_main([*command, *store_args(journal_copy), *extra], capsys)
        assert code in (0, 1, 2), (command, code)
        assert "Traceback" not in err
        if code == 2:
            assert err.startswith(f"dealer-station {command[0]}: error: "), (command, err)
            assert err.count("\n") == 1, err
        if damage in ("no journal table", "malformed pages") and command != ["audit",
                                                                             "checkpoint"]:
            assert code == 2, (command, out, err)
            assert (f"the journal database sqlite:///{journal_copy}/j.db cannot be read: "
                    in err), err
        if damage == "no journal table":
            assert err.rstrip().endswith("no such table: journal"), err


def test_database_failure_reasons() -> None:
    from sqlalchemy.exc import OperationalError

    from dealer_station.cli.main import database_failure

    orig = sqlite3.DatabaseError("database disk image is malformed\nmore")
    assert database_failure(OperationalError("SELECT 1", {}, orig)) == (
        "database disk image is malformed")
    assert database_failure(sqlite3.OperationalError("no such table: rounds")) == (
        "no such table: rounds")
    try:
        json.loads("{x")
    except json.JSONDecodeError as exc:
        assert database_failure(exc) == (
            "a record's payload is not JSON (Expecting property name enclosed in double "
            "quotes at column 2)")
    assert database_failure(KeyError("x")) is None


def test_a_bug_outside_the_journal_still_shows_its_traceback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import dealer_station.games.lapaire.cli.parsheet as parsheet

    def broken(_args: Any) -> int:
        raise KeyError("a defect")

    monkeypatch.setattr(parsheet, "run", broken)
    with pytest.raises(KeyError):
        main(["parsheet"])


# --- arguments -------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:",
                                 "sqlite:///file:x?mode=memory&uri=true"])
def test_simulate_refuses_an_in_memory_database_cleanly(url: str, tmp_path: Path) -> None:
    proc = run_proc(["simulate", "--rounds", "1", "--db", url, "--key",
                     str(tmp_path / "k")])
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert err.startswith(f"dealer-station simulate: error: --db {url}: an in-memory SQLite "
                          f"database cannot hold a simulation"), err
    assert err.count("\n") == 1, err


def test_recall_into_a_closed_pipe_is_quiet(real_journal: Path, tmp_path: Path) -> None:
    folder = copy_journal(real_journal, tmp_path / "j")
    args = " ".join(store_args(folder))
    proc = subprocess.run(
        f"{sys.executable} -m dealer_station recall --last 20 --records {args} | head -1; "
        f"echo status ${{PIPESTATUS[0]}}",
        shell=True, capture_output=True, cwd=ROOT, timeout=120, check=False,
        executable="/bin/bash")
    assert proc.stderr == b""
    first, status = proc.stdout.decode().splitlines()
    assert first.startswith("=== table T1 round 20")
    # 20 rounds with records may or may not outgrow the pipe's buffer: both ends are quiet.
    assert status in ("status 0", f"status {EXIT_BROKEN_PIPE}")
