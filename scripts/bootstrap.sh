#!/usr/bin/env bash
# Make the project-local .venv (and the system packages the station and its tests need).
# Idempotent and quick when nothing changed: the pip step is skipped while pyproject.toml's
# hash matches the stamp left by the last successful install.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
have() { dpkg -s "$1" >/dev/null 2>&1; }
# Qt offscreen/xcb needs these; the PostgreSQL server binaries back the journal's floor tests;
# poppler-utils renders report PDFs to PNG (and pdffonts checks them); qpdf --check checks
# their structure; xvfb lets a person watch the real window;
# cups-client gives `lp` for printing reports; DejaVu fonts print any name on paper; the
# libxcb-* libraries are what Qt's xcb platform (a real window, under X or Xvfb) loads.
for pkg in libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 \
           libglib2.0-0 postgresql poppler-utils qpdf xvfb cups-client fonts-dejavu-core \
           libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
           libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0 libxcb-xinerama0 \
           libxcb-xkb1; do
  have "$pkg" || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "bootstrap: installing system packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "bootstrap: missing system packages (install them as root): ${need_apt[*]}" >&2
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.dealer-station-installed
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ] || [ ! -x .venv/bin/dealer-station ]; then
  echo "bootstrap: installing dealer-station and its test tools into .venv"
  .venv/bin/python -m pip install -q --upgrade pip setuptools wheel
  .venv/bin/python -m pip install -q -e '.[test]'
  echo "$want" > "$stamp"
fi
