"""``dealer-station run`` and ``dealer-station screenshots`` as a person starts them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

from dealer_station.app import DEMO_USERS, load_devices_file

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, timeout: float = 90, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "dealer_station", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False,
                          input=stdin)


def store(tmp_path: Path) -> list[str]:
    return ["--db", f"sqlite:///{tmp_path / 'journal.db'}", "--key",
            str(tmp_path / "journal.key")]


def test_run_simulate_starts_and_closes(tmp_path: Path) -> None:
    done = cli("run", "--simulate", "--exit-after", "1", *store(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "station ready in" in done.stdout
    assert "shoe simulated" in done.stdout and "reader simulated" in done.stdout
    for user, _name, role, pin in DEMO_USERS:
        assert f"{user} (PIN {pin}, {role})" in done.stdout
    # A second start finds the users and the journal as they were.
    again = cli("run", "--simulate", "--game", "bourre", "--table", "B1", "--exit-after",
                "0.5", *store(tmp_path))
    assert again.returncode == 0, again.stderr
    assert "table B1 (Bourré)" in again.stdout


def test_run_reads_the_devices_file(tmp_path: Path) -> None:
    devices = tmp_path / "devices.toml"
    devices.write_text('[devices.shoe]\nbackend = "simulated"\ndevice_id = "SHOE7"\n')
    # A table's journal with no users is refused, writing nothing; its first operator is
    # added before the first start.
    refused = cli("run", "--devices", str(devices), "--exit-after", "0.5", *store(tmp_path))
    assert refused.returncode == 2 and "has no users" in refused.stderr
    added = cli("users", "add", "olga", "--name", "Olga", "--role", "operator", "--pin-stdin",
                *store(tmp_path), stdin="2468\n2468\n")
    assert added.returncode == 0, added.stderr
    done = cli("run", "--devices", str(devices), "--exit-after", "0.5", *store(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "devices: shoe simulated" in done.stdout
    devices.write_text('[devices.shoe]\nbackend = "serial"\nbaudrate = 9601\n')
    bad = cli("run", "--devices", str(devices), "--exit-after", "0.5", *store(tmp_path))
    assert bad.returncode == 2
    assert "devices.shoe" in bad.stderr and "url" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_the_shipped_devices_file_names_both_devices() -> None:
    devices = load_devices_file(ROOT / "config" / "devices.toml")
    assert devices["shoe"].url == "/dev/dealer-shoe"
    assert devices["reader"].url == "/dev/dealer-reader"
    assert {d.backend for d in devices.values()} == {"serial"}


def _xvfb(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``dealer-station ARGS`` in a real X window (Qt's xcb platform) on a 1280x800 Xvfb
    screen, as the kiosk runs it; offscreen where Xvfb is not installed."""
    import shutil

    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    prefix: list[str] = []
    if shutil.which("xvfb-run") is not None:
        env["QT_QPA_PLATFORM"] = "xcb"
        prefix = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"]
    else:
        env["QT_QPA_PLATFORM"] = "offscreen"
    return subprocess.run([*prefix, sys.executable, "-m", "dealer_station", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)


def test_screenshots_are_written_at_1280x800(tmp_path: Path) -> None:
    # In a real X window when Xvfb is there (the set-up installs it): each screen drawn as a
    # table's screen draws it.
    done = _xvfb("screenshots", "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    names = sorted(p.name for p in tmp_path.glob("*.png"))
    assert set(names) >= {"bourre-name-keyboard.png", "bourre-play.png", "bourre-settled.png",
                     "fault-banner-long.png", "fault-banner.png",
                     "lapaire-7seats-betting.png", "lapaire-7seats-card1.png",
                     "lapaire-7seats-card2.png", "lapaire-7seats-card3.png",
                     "lapaire-betting.png", "lapaire-results.png", "lapaire-worst-card1-last.png",
                     "lapaire-worst-card1.png", "lapaire-worst-card2.png", "login.png",
                     "operator-limit-keypad.png", "operator-parsheet.png",
                     "supervisor-chips-keypad.png", "supervisor-chips.png",
                     "supervisor-event-detail.png", "supervisor-events.png",
                     "supervisor-reason-keyboard.png", "supervisor-reason.png",
                     "supervisor-recall.png"}
    for p in tmp_path.glob("*.png"):
        image = QImage(str(p))
        assert (image.width(), image.height()) == (1280, 800), p.name


def test_a_real_window_under_xvfb_fills_a_1280x800_screen(tmp_path: Path) -> None:
    """The station in a real X window (Qt's xcb platform, under Xvfb), full screen at the
    table's 1280x800, as the kiosk starts it: the set-up installs what that needs."""
    import shutil

    import pytest

    if shutil.which("xvfb-run") is None:
        pytest.skip("xvfb-run is not installed (scripts/bootstrap.sh installs it)")
    # (Each screen drawn in such a window: test_screenshots_are_written_at_1280x800.)
    started = _xvfb("run", "--simulate", "--fullscreen", "--exit-after", "1", *store(tmp_path))
    assert started.returncode == 0, started.stdout + started.stderr
    assert "station ready in" in started.stdout
