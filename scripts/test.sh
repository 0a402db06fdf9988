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
# The tests' journals, keys and scratch files live in memory where the machine has a tmpfs:
# every SQLite commit is durable (fsync'd), and on a disk that is most of what thousands of
# small test journals cost. A killed process loses nothing either way (the kernel keeps what
# was written); only a power cut differs, and no test cuts the power.
scratch=""
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  scratch=$(mktemp -d /dev/shm/dealer-station-tests.XXXXXX)
  chmod 711 "$scratch"     # the throwaway PostgreSQL runs as its own user inside it
  export TMPDIR=$scratch
  set -- --basetemp "$scratch/pytest" "$@"
  # Hundreds of processes the tests start (the workers, stations, the command line,
  # emulators) import the package. Where PYTHONDONTWRITEBYTECODE is set (CI machines often
  # set it) and a fresh clone has no bytecode, each of them would compile what it imports
  # again; the bytecode is kept here instead, in memory and outside the working tree, made
  # once and shared by every process. (On this 2-core machine the saving was within the
  # machine's hour-to-hour drift: 18.1 and 19.4 CPU-minutes with it, 19.0 without.)
  export PYTHONPYCACHEPREFIX=$scratch/pycache
  unset PYTHONDONTWRITEBYTECODE
  .venv/bin/python -m compileall -q -j 0 dealer_station tests > /dev/null
fi
status=0
# One worker per core and one more: many tests wait on something else for part of their time
# (a station's start-up in a process of its own, a device's heartbeat, a fixed --exit-after),
# and the extra worker runs while they wait (on 2 cores: 564 s with 2 workers, 530 s with 3).
# Each test file is kept on one worker (its module fixtures are made once), in the order
# collected: the heaviest first (conftest.py: HEAVY_FILES), so that the longest never start last
# (xdist's own order is by the number of tests in a file).
workers=$(( $(nproc 2>/dev/null || echo 1) + 1 ))
.venv/bin/python -m pytest -q -p no:cacheprovider -n "$workers" --dist loadfile \
  --no-loadscope-reorder "$@" || status=$?
[ -z "$scratch" ] || rm -rf "$scratch"
exit "$status"
