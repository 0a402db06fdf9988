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


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """The slow tests first: with one worker per core (scripts/test.sh), the longest test
    files start at once instead of last, so the whole run ends sooner."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


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
