"""Shared test set-up. Qt runs offscreen so the suite needs no display."""

from __future__ import annotations

import os

from repo_paths import CONFIG_DIR, ROOT

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

__all__ = ["CONFIG_DIR", "ROOT"]

# Database fixtures for every test; the UI tests' station and window (overridable per module).
pytest_plugins = ["fixtures_db", "ui_support"]
