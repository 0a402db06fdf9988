"""Shared test set-up. Qt runs offscreen so the suite needs no display."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
CONFIG_DIR = ROOT / "config"

# Database fixtures for every test; the UI tests' station and window (overridable per module).
pytest_plugins = ["fixtures_db", "ui_support"]
