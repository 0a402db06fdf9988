#!/usr/bin/env bash
# Remove the station from a table's PC, keeping its journal (run as root).
#
#   installer/uninstall.sh [--prefix DIR] [--systemd-dir DIR] [--udev-dir DIR]
#                          [--user NAME] [--no-user] [--keep-user]
#
# Stops and disables the unit, then removes /opt/dealer-station, /etc/dealer-station,
# /usr/local/bin/dealer-station, the systemd unit, the udev rule and the service user.
# /var/lib/dealer-station is KEPT: the journal database and its key are the regulator's record
# (a later install.sh gives them to the service user again). Delete them only under the
# operator's retention rules.
#
# --prefix, --systemd-dir, --udev-dir: as for install.sh (with a prefix other than /, systemd
# and udev are not told and no user is removed: what would be done is printed).
# --keep-user / --no-user: leave the service user (default dealer-station) in place.
set -euo pipefail

PREFIX=/
SYSTEMD_DIR=
UDEV_DIR=
SERVICE_USER=dealer-station
KEEP_USER=0

die() { echo "uninstall.sh: error: $*" >&2; exit 2; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=${2:?--prefix needs a folder}; shift 2 ;;
    --systemd-dir) SYSTEMD_DIR=${2:?--systemd-dir needs a folder}; shift 2 ;;
    --udev-dir) UDEV_DIR=${2:?--udev-dir needs a folder}; shift 2 ;;
    --user) SERVICE_USER=${2:?--user needs a name}; shift 2 ;;
    --no-user|--keep-user) KEEP_USER=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
case "$SERVICE_USER" in
  ''|-*|*[!a-z0-9_-]*) die "--user $SERVICE_USER: use lower-case letters, digits, '_' or '-'" ;;
esac
[ -d "$PREFIX" ] || die "--prefix $PREFIX is not a folder"
P=$(cd "$PREFIX" && pwd)
[ "$P" = / ] && P=
REAL=0
[ -z "$P" ] && REAL=1
if [ "$REAL" = 1 ] && [ "$(id -u)" != 0 ]; then
  die "uninstalling from / needs root (sudo $0 ...)"
fi
SYSTEMD_DIR=${SYSTEMD_DIR:-$P/etc/systemd/system}
UDEV_DIR=${UDEV_DIR:-$P/etc/udev/rules.d}
UNIT=dealer-station.service
VAR=/var/lib/dealer-station

note() { echo "  $*"; }
would() { note "would run: $*"; }
run() { note "ran: $*"; "$@" || note "(that failed; going on)"; }
remove() {
  local path
  for path in "$@"; do
    if [ -e "$path" ] || [ -L "$path" ]; then rm -rf -- "$path"; note "removed ${path#"$P"}"; fi
  done
}

echo "uninstall.sh: removing the station from ${P:-/}"
if [ "$REAL" = 1 ] && [ -d /run/systemd/system ]; then
  run systemctl disable --now "$UNIT"
else
  would systemctl disable --now "$UNIT"
fi
remove "$SYSTEMD_DIR/$UNIT" "$UDEV_DIR/70-dealer-station.rules"
if [ "$REAL" = 1 ] && [ -d /run/systemd/system ]; then
  run systemctl daemon-reload
  run udevadm control --reload-rules
else
  would systemctl daemon-reload
  would udevadm control --reload-rules
fi
remove "$P/opt/dealer-station" "$P/opt/dealer-station.new" "$P/opt/dealer-station.old" \
       "$P/etc/dealer-station" "$P/usr/local/bin/dealer-station"

if [ "$KEEP_USER" = 1 ]; then
  note "kept the user $SERVICE_USER (--keep-user)"
elif [ "$REAL" = 1 ]; then
  if id -u "$SERVICE_USER" >/dev/null 2>&1; then run userdel "$SERVICE_USER"; fi
else
  would userdel "$SERVICE_USER"
fi

if [ -d "$P$VAR" ] && [ -n "$(ls -A "$P$VAR")" ]; then
  echo "uninstall.sh: done. KEPT the journal in $VAR:"
  (cd "$P$VAR" && ls -A | sed 's/^/    /')
else
  [ -d "$P$VAR" ] && rmdir "$P$VAR"
  echo "uninstall.sh: done (there was no journal to keep)."
fi
