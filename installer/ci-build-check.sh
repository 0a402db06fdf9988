#!/usr/bin/env bash
# CI: build the bundle from the commit, then use it as a table would and pass `doctor`.
#
#   installer/ci-build-check.sh [build.sh options]
#
# 1. installer/build.sh (a clean export of the commit, pinned PyInstaller, the manifest);
# 2. the bundle's own `emulate shoe` / `emulate reader` on pseudo-terminals (the simulated
#    devices), and a devices file naming them;
# 3. the bundle's station window offscreen on those devices for a few seconds: it must get
#    ready and journal its software check (integrity.ok);
# 4. the bundle's `doctor`: config, key, database, journal chain, both devices answering
#    QUERY, the software against its manifest (the clock is the CI machine's: skipped);
# 5. a copy of the bundle with one file changed: the station journals integrity.mismatch
#    naming it, and doctor fails naming it;
# 6. reproducible: the build assembled again into another folder from the same sources and
#    PyInstaller's analysis of them (build.sh --reassemble: every module compiled anew, the
#    archive, the executable, the folder and the manifest made again) has the same overall hash.
#    The analysis (the module graph: most of a build's time) is the one step not repeated; a
#    whole second build is `build.sh --dist OTHER` and a comparison of the two SHA256SUMS.
# Exit 0 when all of that holds; 77 when the bundler could not be installed; else 1.
# BUILD_DIR, BUILD_VENV and DIST_DIR say where build.sh works and puts the bundle.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
started=$(date +%s)
rc=0
bash installer/build.sh "$@" || rc=$?
[ "$rc" = 0 ] || exit "$rc"
built=$(date +%s)
BUNDLE=${DIST_DIR:-$ROOT/dist}/dealer-station
B=$BUNDLE/dealer-station

T=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "ci-build-check: FAILED: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "what the bundle holds"
for f in _internal/dealer_station/py.typed _internal/config/lapaire.toml \
         _internal/config/devices.toml _internal/dealer_station/audit/migrations/env.py \
         _internal/dealer_station/audit/migrations/versions/0001_journal.py; do
  grep -q "  $f\$" "$BUNDLE/SHA256SUMS" || fail "$f is not in the bundle's manifest"
done
if grep -q "__pycache__" "$BUNDLE/SHA256SUMS"; then fail "bytecode caches in the bundle"; fi

step "simulated devices from the bundle"
for role in shoe reader; do
  "$B" emulate "$role" --link "$T/$role" --no-input --quiet > "$T/$role.log" 2>&1 &
  PIDS+=($!)
done
for _ in $(seq 200); do
  [ -e "$T/shoe" ] && [ -e "$T/reader" ] && break
  sleep 0.1
done
[ -e "$T/shoe" ] && [ -e "$T/reader" ] || fail "the emulators did not start: $(cat "$T"/*.log)"
cat > "$T/devices.toml" <<TOML
[devices.shoe]
backend = "serial"
url = "$T/shoe"
device_id = "SHOE1"

[devices.reader]
backend = "serial"
url = "$T/reader"
device_id = "READER1"
TOML
STORE=(--db "sqlite:///$T/journal.db" --key "$T/journal.key")
export QT_QPA_PLATFORM=offscreen

step "the station, offscreen, on the simulated devices"
# A table's journal gets its first operator before the station's first start.
printf '2468\n2468\n' | "$B" users add olga --name "Olga Example" --role operator --pin-stdin \
  "${STORE[@]}" || fail "could not add the first operator"
"$B" run --devices "$T/devices.toml" "${STORE[@]}" --exit-after 3 2>&1 | tee "$T/run.log"
grep -q "station ready" "$T/run.log" || fail "the station did not get ready"
grep -q "devices: shoe serial $T/shoe, reader serial $T/reader" "$T/run.log" \
  || fail "the station did not open both devices"
"$B" audit events "${STORE[@]}" --kind integrity.ok | tee "$T/events.log"
grep -q "integrity.ok" "$T/events.log" || fail "no integrity.ok in the journal"

step "the game-protection monitor from the bundle (its statistics need scipy and numpy)"
"$B" monitor "${STORE[@]}" --json > "$T/monitor.log" 2>&1 || {
  cat "$T/monitor.log"; fail "the bundle's monitor did not run"; }

step "doctor"
"$B" doctor --devices "$T/devices.toml" "${STORE[@]}" --skip clock | tee "$T/doctor.log" \
  || fail "doctor did not pass"
grep -q "ok    shoe .*answered QUERY: SHOE1" "$T/doctor.log" || fail "the shoe did not answer"
grep -q "ok    reader .*answered QUERY: READER1" "$T/doctor.log" || fail "the reader did not answer"
grep -q "ok    software .*files match the manifest" "$T/doctor.log" || fail "software unchecked"

step "a changed file in a copy of the bundle"
COPY=$T/changed/dealer-station
mkdir -p "$T/changed"
cp -al "$BUNDLE" "$COPY"                       # hard links: cheap; the changed file is new
CHANGED=_internal/config/lapaire.toml
cp "$COPY/$CHANGED" "$T/changed.toml"
rm "$COPY/$CHANGED"
{ cat "$T/changed.toml"; echo "# changed after the build"; } > "$COPY/$CHANGED"
"$COPY/dealer-station" run "${STORE[@]}" --simulate --exit-after 1 > "$T/run2.log" 2>&1 \
  || fail "the changed copy did not run: $(cat "$T/run2.log")"
"$B" audit events "${STORE[@]}" --kind integrity.mismatch --json | tee "$T/mismatch.log"
grep -q "\"changed\": \[\"$CHANGED\"\]" "$T/mismatch.log" \
  || fail "no integrity.mismatch naming $CHANGED"
if "$COPY/dealer-station" doctor "${STORE[@]}" --skip devices --skip clock > "$T/doctor2.log"; then
  fail "doctor passed a changed bundle"
fi
grep "software" "$T/doctor2.log"
grep -q "FAIL  software .*changed: $CHANGED" "$T/doctor2.log" || fail "doctor did not name $CHANGED"

step "reproducible: the build assembled again, elsewhere, from its sources and analysis"
checked=$(date +%s)
first=$(sha256sum "$BUNDLE/SHA256SUMS" | cut -d' ' -f1)
bash installer/build.sh --reassemble --dist "$T/rebuild" > "$T/rebuild.log" 2>&1 \
  || fail "the second assembly failed: $(tail -n 20 "$T/rebuild.log")"
grep "^build: \(assembled again\|note: PyInstaller\)" "$T/rebuild.log" || true
second=$(sha256sum "$T/rebuild/dealer-station/SHA256SUMS" | cut -d' ' -f1)
[ "$first" = "$second" ] || fail "two builds differ: $first, then $second: \
$(diff "$BUNDLE/SHA256SUMS" "$T/rebuild/dealer-station/SHA256SUMS" | head -n 10)"
echo "both builds: overall hash $first"

echo "ci-build-check: passed (build $((built - started)) s, checks $((checked - built)) s, \
second assembly $(( $(date +%s) - checked )) s)"
