"""Shared test set-up. Qt runs offscreen so the suite needs no display."""

from __future__ import annotations

import os
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


@pytest.fixture(autouse=True)
def _quick_pins(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """PINs hashed at a test's cost in this process (argon2id still, with little memory):
    the station's own cost, 0.2 s a hash, is what ``@pytest.mark.real_pin_cost`` tests use.
    Commands run as processes of their own keep the station's cost."""
    if request.node.get_closest_marker("real_pin_cost") is None:
        from dealer_station.app import fast_hasher

        monkeypatch.setattr("dealer_station.audit.users.default_hasher", fast_hasher)
