#!/usr/bin/env bash
# Set up (first time) and start the station on its embedded defaults:
# simulated devices, a demo table, SQLite in the platform's data directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec .venv/bin/dealer-station run --simulate "$@"
