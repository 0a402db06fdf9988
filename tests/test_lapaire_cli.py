"""``dealer-station settle`` and ``dealer-station parsheet`` run as real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from repo_paths import CONFIG_DIR, ROOT


def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.splitlines()]


GOOD = {"game": "lapaire", "round_id": "r1", "cards": ["KH", "JK", "7S"],
        "wagers": [{"seat": 1, "bet": "straight", "values": ["K"], "amount": 10}]}


def test_settle_good_rounds_exit_zero() -> None:
    second = {**GOOD, "round_id": "r2", "cards": ["2H", "2D", "9C"],
              "wagers": [{"seat": 3, "bet": "split", "values": ["8", "2"], "amount": 10},
                         {"seat": 3, "bet": "any_pair", "amount": 5}]}
    proc = run(["settle"], json.dumps(GOOD) + "\n" + json.dumps(second) + "\n")
    assert proc.returncode == 0, proc.stderr
    out = lines(proc.stdout)
    assert out == [
        {"round_id": "r1", "wagers": [{"seat": 1, "bet": "straight", "values": ["K"],
                                       "amount": 10, "result": "win", "win": 120, "stage": 1}],
         "total_win": 120, "total_lost": 0},
        {"round_id": "r2", "wagers": [
            {"seat": 3, "bet": "split", "values": ["8", "2"], "amount": 10, "result": "win",
             "win": 50, "stage": 1},
            {"seat": 3, "bet": "any_pair", "amount": 5, "result": "win", "win": 80,
             "stage": 2}],
         "total_win": 130, "total_lost": 0},
    ]
    assert proc.stderr == ""


def test_settle_bad_lines_give_error_lines_in_order_and_exit_one() -> None:
    stdin = "\n".join([
        json.dumps(GOOD),
        '{"game": "lapaire", "round_id": "r2", "cards": [',
        json.dumps({**GOOD, "round_id": "r3", "cards": ["KH", "KH", "2C"]}),
        json.dumps({**GOOD, "round_id": "r4", "game": "blackjack"}),
        "[1, 2]",
        "",
        json.dumps({**GOOD, "round_id": "r7"}),
        json.dumps({"round_id": "r8", "cards": ["KH", "JK", "7S"]}),
        '{"round_id": NaN}',
        "[" * 100_000,
    ]) + "\n"
    proc = run(["settle"], stdin)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    out = lines(proc.stdout)
    assert len(out) == 10
    assert [o["round_id"] for o in out] == ["r1", None, "r3", "r4", None, None, "r7", "r8",
                                            None, None]
    assert "wagers" in out[0] and "wagers" in out[6]
    assert out[1]["line"] == 2 and out[1]["error"].startswith("line 2: not valid JSON")
    assert "KH has already been dealt" in out[2]["error"]
    assert "unknown game 'blackjack'" in out[3]["error"]
    assert out[4]["error"] == "line 5: a round must be a JSON object, got list"
    assert out[5] == {"round_id": None, "line": 6, "error": "line 6: not valid JSON (empty line)"}
    assert '"game" is missing' in out[7]["error"]
    assert out[8]["error"] == "line 9: not valid JSON (NaN is not a JSON value)"
    assert out[9]["error"] == "line 10: not valid JSON (nested too deeply)"


def test_settle_bourre_lines_without_profiles_are_answered(tmp_path: Path) -> None:
    bourre = {"game": "bourre", "hand_id": "b1"}
    proc = run(["settle", "--bourre-config", str(tmp_path / "absent.toml")],
               json.dumps(bourre) + "\n" + json.dumps(GOOD) + "\n" + json.dumps(bourre) + "\n")
    out = lines(proc.stdout)
    assert [o.get("hand_id", o.get("round_id")) for o in out] == ["b1", "r1", "b1"]
    assert "Bourré" in out[0]["error"]  # no profiles file: answered, not a traceback
    assert out[2] == out[0]
    assert out[1]["total_win"] == 120
    assert proc.returncode == 1


def test_settle_dispatches_bourre_hands() -> None:
    import random

    from dealer_station.games.bourre.rules.random_play import random_bourre_record

    hand = {**random_bourre_record(random.Random(7), hand_id="h1"), "game": "bourre"}
    proc = run(["settle"], json.dumps(GOOD) + "\n" + json.dumps(hand) + "\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = lines(proc.stdout)
    assert out[0]["round_id"] == "r1" and out[1]["hand_id"] == "h1"
    assert "error" not in out[1]


def test_settle_with_another_table(tmp_path: Path) -> None:
    text = (CONFIG_DIR / "lapaire.toml").read_text(encoding="utf-8")
    table = tmp_path / "table.toml"
    table.write_text(text.replace('pays = "12 to 1"', 'pays = "11 to 1"'), encoding="utf-8")
    proc = run(["settle", "--config", str(table)], json.dumps(GOOD) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert lines(proc.stdout)[0]["total_win"] == 110


def test_settle_bad_table_file_exits_two(tmp_path: Path) -> None:
    text = (CONFIG_DIR / "lapaire.toml").read_text(encoding="utf-8")
    table = tmp_path / "table.toml"
    table.write_text(text.replace('values = ["7", "JK"]', 'values = ["7", "Q"]'),
                     encoding="utf-8")
    proc = run(["settle", "--config", str(table)], json.dumps(GOOD) + "\n")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == (
        f"dealer-station settle: error: {table}: wagers.split.spot[0].values: 7-Q is not a "
        f"split spot on the layout (a split covers two adjacent values, e.g. 2-3, 2-8, A-2 or "
        f"7-JK)")


def test_settle_empty_input() -> None:
    proc = run(["settle"], "")
    assert (proc.returncode, proc.stdout) == (0, "")


def test_parsheet_text() -> None:
    proc = run(["parsheet"])
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "bet" in out and "house edge" in out and "stdev" in out
    assert "straight  JK" in out and "25 to 1" in out
    assert "Mini Royal" in out and "No warnings" in out


def test_parsheet_json_and_warnings(tmp_path: Path) -> None:
    proc = run(["parsheet", "--json"])
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert all(set(r) == {"bet", "values", "probability", "rtp", "house_edge", "stdev"}
               for r in rows)
    k = next(r for r in rows if r["bet"] == "straight" and r["values"] == ["K"])
    assert abs(k["rtp"] - 26 / 27) < 1e-12 and abs(k["house_edge"] - 1 / 27) < 1e-12

    text = (CONFIG_DIR / "lapaire.toml").read_text(encoding="utf-8")
    table = tmp_path / "table.toml"
    table.write_text(text.replace('pays = "7 to 1"\noffered = false',
                                  'pays = "5 to 1"\noffered = true', 1), encoding="utf-8")
    proc = run(["parsheet", "--config", str(table)])
    assert proc.returncode == 0, proc.stderr
    assert "Split 7-JK: house edge 33.33% is above the warning threshold 15.00%" in proc.stdout
