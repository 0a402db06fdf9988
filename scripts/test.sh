#!/usr/bin/env bash
# Set up (first time) and run every check: lint, the layer contracts, and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
export QT_QPA_PLATFORM=offscreen
echo "== ruff"
.venv/bin/ruff check dealer_station tests benchmarks
echo "== import contracts"
.venv/bin/lint-imports
echo "== mypy (strict on the pure packages)"
.venv/bin/mypy dealer_station
echo "== pytest"
# One worker per core, each test file kept on one worker (its module fixtures are made once).
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n auto --dist loadfile "$@"
