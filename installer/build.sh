#!/usr/bin/env bash
# Build the station as a PyInstaller one-folder bundle in dist/dealer-station, with its manifest.
#
#   installer/build.sh                 # build the committed HEAD (a clean export of it)
#   installer/build.sh --ref v1.2.0    # build another commit or tag
#   installer/build.sh --worktree      # build the working tree as it is (development only)
#   installer/build.sh --reassemble --dist DIR
#                                      # assemble again, into DIR, what the last build in
#                                      # BUILD_DIR analysed (its very sources; see below)
#
# Reproducible: the sources come from `git archive` of the commit (never from a working tree
# with local edits), the bundler and every run-time dependency are pinned
# (installer/requirements-build.txt, installer/requirements-lock.txt) in a build venv of their
# own, SOURCE_DATE_EPOCH is the commit's time, PYTHONHASHSEED is fixed, and PyInstaller runs
# with --noconfirm --clean (in two steps: see PyInstaller below). The last line printed is the
# bundle's overall hash.
#
# --reassemble is for the reproducibility check (installer/ci-build-check.sh): it keeps the
# last build's exported sources and PyInstaller's analysis of them (which modules, libraries and
# data files go in: the module graph, most of a build's time), and does the second step again:
# every module compiled to bytecode anew, the archive of them, the executable, the folder, the
# manifest. The bundle must then be the same as the last build's, file for file.
#
# Environment: PYTHON (the Python 3.11+ to build with, default python3), BUILD_DIR (the build's
# working folder, default build/), BUILD_VENV (default $BUILD_DIR/venv; kept between builds so
# the pinned packages are installed once), DIST_DIR (default dist/; --dist overrides it).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PYTHON=${PYTHON:-python3}
BUILD=${BUILD_DIR:-$ROOT/build}
VENV=${BUILD_VENV:-$BUILD/venv}
REF=HEAD
WORKTREE=0
REASSEMBLE=0
DIST=${DIST_DIR:-$ROOT/dist}
WORK=$BUILD/pyinstaller

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --ref) REF=${2:?--ref needs a commit or tag}; shift 2 ;;
    --worktree) WORKTREE=1; shift ;;
    --reassemble) REASSEMBLE=1; shift ;;
    --dist) DIST=${2:?--dist needs a folder}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "build: $*"; }
started=$(date +%s)

# --- the sources ------------------------------------------------------------------------------
SRC=$BUILD/src
BUILT_FROM=$BUILD/built-from     # what the last build exported: commit, date, version
ANALYSIS=$WORK/dealer-station/Analysis-00.toc
if [ "$REASSEMBLE" = 1 ]; then
  if [ "$WORKTREE" = 1 ] || [ "$REF" != HEAD ]; then
    echo "build.sh: --reassemble takes the last build's sources: no --ref or --worktree" >&2
    exit 2
  fi
  if [ ! -f "$BUILT_FROM" ] || [ ! -f "$ANALYSIS" ] || [ ! -d "$SRC" ]; then
    echo "build.sh: --reassemble: no earlier build in $BUILD to assemble again" >&2
    exit 2
  fi
  read -r COMMIT SOURCE_DATE_EPOCH VERSION < "$BUILT_FROM"
  say "sources: those of the last build, commit $COMMIT (assembled again from its analysis)"
else
  rm -rf "$SRC" "$BUILT_FROM"
  mkdir -p "$SRC"
  if [ "$WORKTREE" = 1 ] || ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    say "sources: the working tree $ROOT (not a commit: for development only)"
    COMMIT=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
    [ "$WORKTREE" = 1 ] && COMMIT="$COMMIT+worktree"
    tar -C "$ROOT" --exclude=./.git --exclude=./.venv --exclude=./build --exclude=./dist \
        --exclude='__pycache__' -cf - . | tar -C "$SRC" -xf -
    SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null \
                                             || date +%s)}
  else
    COMMIT=$(git -C "$ROOT" rev-parse --verify "$REF^{commit}")
    if [ "$REF" = HEAD ] && [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
      say "note: the working tree has uncommitted changes; they are NOT in this build"
    fi
    say "sources: commit $COMMIT (git archive)"
    git -C "$ROOT" archive --format=tar "$COMMIT" | tar -C "$SRC" -xf -
    SOURCE_DATE_EPOCH=$(git -C "$ROOT" log -1 --format=%ct "$COMMIT")
  fi
  VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$SRC/dealer_station/__init__.py")
fi
export SOURCE_DATE_EPOCH
export PYTHONHASHSEED=0
export PYTHONDONTWRITEBYTECODE=1
export DEALER_STATION_SRC=$SRC
say "version $VERSION, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"

# --- the build venv (pinned bundler and dependencies) -----------------------------------------
stamp=$VENV/.dealer-station-build
want=$(cat "$ROOT/installer/requirements-build.txt" "$ROOT/installer/requirements-lock.txt" \
       | sha256sum | cut -d' ' -f1)
if [ ! -x "$VENV/bin/python" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  say "preparing the build venv $VENV"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
      -r "$ROOT/installer/requirements-lock.txt" -r "$ROOT/installer/requirements-build.txt"
  then
    rm -rf "$VENV"
    echo "build: cannot install the pinned bundler and dependencies (see above)" >&2
    exit 77   # told apart from a failed build by installer/ci-build-check.sh
  fi
  echo "$want" > "$stamp"
fi
say "$("$VENV/bin/pyinstaller" --version | sed 's/^/PyInstaller /')"

# --- PyInstaller ------------------------------------------------------------------------------
rm -rf "$DIST/dealer-station"
# In two steps, each a process of its own: the analysis (which modules, libraries and data files
# go in: most of the time), saved in the work folder; then the assembly from what was saved
# (every module compiled, the archive, the executable, the folder). A process that has just
# walked the module graph compiles some modules to other, equivalent, bytes than one that has
# not (measured: the interned flag of "{" and "}" in 53 modules, a constant shared or not in
# one), so every bundle is assembled the one way, by a process that only assembles; and
# --reassemble repeats exactly that second step.
pyinstaller() {
  (cd "$SRC" && "$VENV/bin/pyinstaller" --noconfirm "$@" --log-level WARN \
      --distpath "$DIST" --workpath "$WORK" "$SRC/installer/dealer-station.spec")
}
if [ "$REASSEMBLE" = 0 ]; then
  DEALER_STATION_BUILD_STEP=analyse pyinstaller --clean
fi
# PyInstaller redoes a step whose output is missing and reuses the analysis (its inputs and
# files unchanged).
(cd "$WORK/dealer-station" && rm -rf PYZ-00.toc PYZ-00.pyz PKG-00.toc dealer-station.pkg \
    EXE-00.toc dealer-station COLLECT-00.toc localpycs)
analysed=$(stat -c %y "$ANALYSIS")
pyinstaller
if [ "$(stat -c %y "$ANALYSIS")" = "$analysed" ]; then
  [ "$REASSEMBLE" = 0 ] || say "assembled again from the last build's analysis"
else
  say "note: PyInstaller analysed the sources again at assembly (it found an input changed)"
fi
echo "$COMMIT $SOURCE_DATE_EPOCH $VERSION" > "$BUILT_FROM"
BUNDLE=$DIST/dealer-station
[ -x "$BUNDLE/dealer-station" ] || { echo "build: no executable in $BUNDLE" >&2; exit 1; }
# Stray bytecode caches are not part of the software.
find "$BUNDLE" -name __pycache__ -type d -prune -exec rm -rf {} +
# Same times on every file, so an archive of the bundle is byte-for-byte repeatable too.
find "$BUNDLE" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# --- the manifest -----------------------------------------------------------------------------
"$VENV/bin/python" "$SRC/installer/write_manifest.py" "$BUNDLE" --version "$VERSION" \
    --commit "$COMMIT" --source-date-epoch "$SOURCE_DATE_EPOCH"
touch -h -d "@$SOURCE_DATE_EPOCH" "$BUNDLE/manifest.json" "$BUNDLE/SHA256SUMS"
size=$(du -sh "$BUNDLE" | cut -f1)
say "bundle $BUNDLE ($size) built in $(( $(date +%s) - started )) s"
echo "overall hash: $(sha256sum "$BUNDLE/SHA256SUMS" | cut -d' ' -f1)"
