"""Shared test set-up. Qt runs offscreen so the suite needs no display."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from repo_paths import CONFIG_DIR, ROOT

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

__all__ = ["CONFIG_DIR", "ROOT"]

# Database fixtures for every test; the UI tests' station and window (overridable per module).
pytest_plugins = ["fixtures_db", "ui_support"]


#: What the heaviest test files take, in seconds of one worker's time, as measured in a whole
#: run (3 workers on 2 cores, a machine loaded by others: relative, not absolute). Only the
#: order matters: the heaviest files start first, so that none of them starts last and runs on
#: alone after the rest (test_users_chain.py and test_ui_run.py once ended a run ~100 s after
#: the other workers had finished). Measure again when a file's cost changes much:
#: ``pytest --durations=0`` summed per file.
HEAVY_FILES = {
    "test_installer_build.py": 500, "test_tamper_projections.py": 281, "test_ui_run.py": 235,
    "test_users_chain.py": 218, "test_bourre_recovery.py": 200, "test_fuzz_inputs.py": 159,
    "test_hw_crash_ack.py": 155, "test_reports_verification.py": 139,
    "test_speed_paths_wins.py": 134, "test_card_room.py": 129, "test_ui_fit.py": 125,
    "test_shift_tally.py": 120, "test_crash_recovery.py": 119, "test_ui_bourre.py": 113,
    "test_monitor_cli.py": 109, "test_monitor_tray.py": 102, "test_lapaire_math.py": 95,
    "test_pit.py": 89, "test_users.py": 85, "test_recall_model.py": 80,
    "test_recompute_raw.py": 80, "test_recall_regulator.py": 76, "test_lapaire_cli.py": 67,
    "test_apply_rebuilds.py": 66, "test_simulate_inject.py": 66, "test_ui_touch_only.py": 65,
    "test_hw_soak.py": 58,
}
#: A ``slow`` file not measured yet goes among the heaviest.
SLOW_UNMEASURED = 150


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """The heaviest test files first (then the rest as collected): with one worker per core and
    one more (scripts/test.sh), the longest files start at once instead of last, so the whole
    run ends sooner. A file's tests stay together, in their own order (a stable sort)."""

    weights: dict[Any, int] = {}
    for item in items:          # a file with a slow test weighs as a slow file, all of it
        slow = item.get_closest_marker("slow") is not None
        weight = HEAVY_FILES.get(item.path.name, SLOW_UNMEASURED if slow else 0)
        weights[item.path] = max(weights.get(item.path, 0), weight)
    items.sort(key=lambda item: -weights[item.path])


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After pytest-qt has closed a test's widgets and asked for their deletion: delete them.
    Outside a running event loop Qt never does, so every window of every earlier test would
    live on in the worker, and each style change would restyle all of them again.

    And once a test file is done (its module fixtures torn down): kill any emulator it left
    running, as a failed test can, before it loads the machine under every later test."""
    yield
    last_of_file = nextitem is None or nextitem.path != item.path
    if last_of_file and "hw_support" in sys.modules:
        sys.modules["hw_support"].kill_leftovers()
    if "PySide6.QtWidgets" in sys.modules:
        from PySide6.QtWidgets import QApplication

        from dealer_station.ui.app import delete_later_now

        app = QApplication.instance()
        if isinstance(app, QApplication):
            delete_later_now(app)


@pytest.fixture(autouse=True)
def _quick_pins(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """PINs hashed at a test's cost in this process (argon2id still, with little memory):
    the station's own cost, 0.2 s a hash, is what ``@pytest.mark.real_pin_cost`` tests use.
    Commands run as processes of their own keep the station's cost."""
    if request.node.get_closest_marker("real_pin_cost") is None:
        from dealer_station.app import fast_hasher

        monkeypatch.setattr("dealer_station.audit.users.default_hasher", fast_hasher)
