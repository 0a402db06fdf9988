"""``dealer-station emulate`` in one process and ``dealer-station devices --watch`` in another:
what a person does in two terminals."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hw_support import ROOT, drain, start_emulator, stop_emulator

pytestmark = pytest.mark.timeout(60)


def cli(*args: str, timeout: float = 30, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout, input=stdin)


def test_monitor_prints_the_emulators_cards(tmp_path: Path) -> None:
    link = tmp_path / "dealer-shoe"
    emu = start_emulator("shoe", "--cards", "AS,KH,JK,10D", "--interval", "0.05",
                         "--link", str(link), "--no-input")
    output = drain(emu)
    try:
        assert f"(link {link})" in emu.first_line  # type: ignore[attr-defined]
        watch = cli("devices", "--watch", str(link), "--count", "4", "--baud", "9600")
    finally:
        stop_emulator(emu)
    assert watch.returncode == 0, watch.stderr
    lines = watch.stdout.splitlines()
    cards = [line for line in lines if " card " in line]
    assert [line.split(" card ")[1].split()[0] for line in cards] == ["AS", "KH", "JK", "10D"]
    assert all(re.match(r"\d\d:\d\d:\d\d\.\d\d\d  shoe   SHOE1 ", line) for line in cards)
    assert any("identified: model SIM-SHOE" in line for line in lines)
    assert any("connected: opened" in line for line in lines)
    assert "FAULT" not in watch.stdout
    assert any("dealt AS" in line for line in output)


def test_emulator_deals_on_enter_and_stops_when_stdin_closes(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    emu = start_emulator("shoe", "--seed", "3", "--link", str(link))
    output = drain(emu)
    watch = subprocess.Popen([sys.executable, "-m", "dealer_station", "devices", "--watch",
                              str(link), "--count", "2"], stdout=subprocess.PIPE, text=True,
                             cwd=ROOT)
    try:
        out_lines = []
        assert watch.stdout is not None
        for line in watch.stdout:                       # wait until the monitor is listening
            out_lines.append(line)
            if "identified" in line:
                break
        assert emu.stdin is not None
        emu.stdin.write("\n\n")
        emu.stdin.flush()
        rest, _ = watch.communicate(timeout=20)
        out_lines.extend(rest.splitlines())
        emu.stdin.close()                               # stdin closed: the emulator stops
        assert emu.wait(10) == 0
    finally:
        watch.kill()
        stop_emulator(emu)
    dealt = [line.split()[1] for line in output if line.startswith("dealt ")]
    seen = [line.split(" card ")[1].split()[0] for line in out_lines if " card " in line]
    assert len(dealt) == 2 and seen == dealt


def test_emulator_refuses_bad_arguments(tmp_path: Path) -> None:
    bad = cli("emulate", "shoe", "--faults", "rain=0.1")
    assert bad.returncode == 2
    assert "dealer-station emulate: error: unknown fault 'rain'" in bad.stderr
    assert "Traceback" not in bad.stderr
    taken = tmp_path / "a-file"
    taken.write_text("keep me")
    refused = cli("emulate", "shoe", "--link", str(taken), stdin="")
    assert refused.returncode == 2 and "is not a symlink" in refused.stderr
    assert taken.read_text() == "keep me"
    cards = cli("emulate", "shoe", "--cards", "AS,ZZ")
    assert cards.returncode == 2 and "unknown card code 'ZZ'" in cards.stderr
    baud = cli("emulate", "shoe", "--baud", "12345")
    assert baud.returncode == 2 and "--baud 12345" in baud.stderr


def test_emulator_count_stops_after_n_acknowledged_cards(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    emu = start_emulator("reader", "--game", "bourre", "--seed", "1", "--interval", "0",
                         "--count", "30", "--link", str(link), "--no-input", "--quiet")
    try:
        watch = cli("devices", "--watch", str(link), "--role", "reader", "--count", "30")
        assert emu.wait(20) == 0
    finally:
        stop_emulator(emu)
    assert watch.returncode == 0
    assert sum(" card " in line for line in watch.stdout.splitlines()) == 30


def test_monitor_refuses_a_bad_url_and_lists_ports() -> None:
    bad = cli("devices", "--watch", "bogus://nowhere")
    assert bad.returncode == 2 and "cannot be used" in bad.stderr
    listing = cli("devices")
    assert listing.returncode == 0 and listing.stdout.strip()


@pytest.mark.parametrize(("args", "says"), [
    (["--device-id", "bad id!"], "--device-id 'bad id!': a device id is 1-16 letters"),
    (["--device-id", "ANY"], "(and not ANY)"),
    (["--baud", "1234"], "--baud 1234: must be one of"),
    (["--count", "0"], "--count 0: must be at least 1"),
    (["--seconds", "-1"], "--seconds -1: must be above 0"),
])
def test_monitor_refuses_bad_arguments_before_opening_anything(args: list[str],
                                                               says: str) -> None:
    bad = cli("devices", "--watch", "sim://shoe", *args)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert bad.stderr.startswith("dealer-station devices: error: ") and says in bad.stderr
    assert "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1


def test_emulator_stamps_each_frame_it_writes(tmp_path: Path) -> None:
    """``--stamp``: a line per frame, the moment its last byte went to the line, on the
    system's monotonic clock (what bench_ui.py times the station from)."""
    import time

    link = tmp_path / "dealer-shoe"
    before = time.monotonic()
    emu = start_emulator("shoe", "--cards", "AS,KH", "--interval", "0.05", "--stamp",
                         "--link", str(link), "--no-input", "--quiet")
    output = drain(emu)
    try:
        watch = cli("devices", "--watch", str(link), "--count", "2", "--baud", "9600")
    finally:
        stop_emulator(emu)
    assert watch.returncode == 0, watch.stderr
    stamps = [re.fullmatch(r"wrote (\w+) seq (\d+) at (\d+\.\d{6})", line.strip())
              for line in output if line.startswith("wrote ")]
    assert stamps and all(stamps), output
    cards = [m for m in stamps if m is not None and m.group(1) == "CARD"]
    assert len(cards) >= 2
    times = [float(m.group(3)) for m in stamps if m is not None]
    assert before <= times[0] <= time.monotonic() and times == sorted(times)
