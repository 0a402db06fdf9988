#!/usr/bin/env bash
# Install the station on a table's PC as a kiosk (run as root).
#
#   installer/install.sh [--bundle DIR] [--config DIR] [--expect-hash HEX]
#                        [--prefix DIR] [--systemd-dir DIR] [--udev-dir DIR]
#                        [--user NAME] [--no-user] [--display wayland|x11] [--no-start]
#                        [--name CASINO/STATION]
#
# --bundle DIR      the one-folder build (default: dist/dealer-station beside this script's
#                   folder). It is checked against its manifest before and after copying.
# --config DIR      this table's configuration (*.toml); installed over what is there.
#                   Without it the bundle's default configuration is installed, never
#                   replacing a file already in /etc/dealer-station (the new default is left
#                   beside it as FILE.dist).
# --expect-hash HEX refuse a bundle whose overall hash is not HEX (the approved build's), and
#                   pin it: the station then stops at start if it finds any other build, and
#                   a later install.sh takes another bundle only with its --expect-hash.
# --prefix DIR      install into DIR as if it were / (an image being prepared, or a scratch
#                   folder for tests). Files name the final paths (/opt/..., /etc/...); with a
#                   prefix other than / no user is created, nothing is chowned and systemd and
#                   udev are not told: what would be done is printed and recorded.
# --systemd-dir, --udev-dir   where the unit and the udev rule go (default
#                   PREFIX/etc/systemd/system and PREFIX/etc/udev/rules.d).
# --user NAME       the service user (default dealer-station); --no-user: do not create it.
# --display         wayland (default: the cage kiosk compositor) or x11 (xinit).
# --no-start        enable the unit but do not start it now.
# --name CASINO/STATION   the name of the station's signing key, made at its first start beside
#                   the journal key (e.g. casino.example/pit3-t7): its checkpoints are signed
#                   as CASINO/TABLE for the regulator's witness (kept when run again).
#
# What goes where: /opt/dealer-station (the build, root-owned, read-only to the station),
# /etc/dealer-station (configuration and station.env, readable by the service user only),
# /var/lib/dealer-station (the journal: database and key, the service user's only),
# /usr/local/bin/dealer-station (the command, with station.env's settings),
# <systemd-dir>/dealer-station.service and <udev-dir>/70-dealer-station.rules.
# A record of what was done is written to /etc/dealer-station/install.log.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
BUNDLE=$HERE/../dist/dealer-station
CONFIG=
EXPECT=
PREFIX=/
SYSTEMD_DIR=
UDEV_DIR=
SERVICE_USER=dealer-station
NO_USER=0
DISPLAY_KIND=wayland
NO_START=0
NAME=

die() { echo "install.sh: error: $*" >&2; exit 2; }
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) BUNDLE=${2:?--bundle needs a folder}; shift 2 ;;
    --config) CONFIG=${2:?--config needs a folder}; shift 2 ;;
    --expect-hash) EXPECT=${2:?--expect-hash needs the approved overall hash}; shift 2 ;;
    --prefix) PREFIX=${2:?--prefix needs a folder}; shift 2 ;;
    --systemd-dir) SYSTEMD_DIR=${2:?--systemd-dir needs a folder}; shift 2 ;;
    --udev-dir) UDEV_DIR=${2:?--udev-dir needs a folder}; shift 2 ;;
    --user) SERVICE_USER=${2:?--user needs a name}; shift 2 ;;
    --no-user) NO_USER=1; shift ;;
    --display) DISPLAY_KIND=${2:?--display needs wayland or x11}; shift 2 ;;
    --no-start) NO_START=1; shift ;;
    --name) NAME=${2:?--name needs CASINO/STATION}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

case "$SERVICE_USER" in
  ''|-*|*[!a-z0-9_-]*) die "--user $SERVICE_USER: use lower-case letters, digits, '_' or '-'" ;;
esac
case "$DISPLAY_KIND" in wayland|x11) ;; *) die "--display must be wayland or x11" ;; esac
[ -d "$PREFIX" ] || die "--prefix $PREFIX is not a folder"
P=$(cd "$PREFIX" && pwd)
[ "$P" = / ] && P=
REAL=0
[ -z "$P" ] && REAL=1
if [ "$REAL" = 1 ] && [ "$(id -u)" != 0 ]; then
  die "installing into / needs root (sudo $0 ...), or use --prefix DIR for a staging folder"
fi
MAKE_USER=0
[ "$REAL" = 1 ] && [ "$NO_USER" = 0 ] && MAKE_USER=1
SYSTEMD_DIR=${SYSTEMD_DIR:-$P/etc/systemd/system}
UDEV_DIR=${UDEV_DIR:-$P/etc/udev/rules.d}

# The final paths, as the installed files name them.
OPT=/opt/dealer-station
ETC=/etc/dealer-station
VAR=/var/lib/dealer-station
BIN=/usr/local/bin/dealer-station
UNIT=dealer-station.service
RULES=70-dealer-station.rules

LOG=()
note() { echo "  $*"; LOG+=("$*"); }
would() { note "would run: $*"; }
run() { note "ran: $*"; "$@"; }

# --- the bundle: complete and unchanged? -------------------------------------------------------
[ -d "$BUNDLE" ] || die "no bundle at $BUNDLE (build it with installer/build.sh, or --bundle DIR)"
BUNDLE=$(cd "$BUNDLE" && pwd)
for f in dealer-station manifest.json SHA256SUMS; do
  [ -e "$BUNDLE/$f" ] || die "$BUNDLE/$f is missing: not a complete build"
done

# verify_tree DIR: every listed file has its hash, no file is unlisted, the overall hash is
# the manifest's; prints the overall hash.
verify_tree() {
  local dir=$1 bad listed present overall recorded
  bad=$(cd "$dir" && sha256sum --strict -c SHA256SUMS 2>/dev/null | grep -v ': OK$' || true)
  [ -z "$bad" ] || die "$dir does not match its manifest: $(echo "$bad" | head -n 5 | tr '\n' ';')"
  listed=$(cut -c67- "$dir/SHA256SUMS" | LC_ALL=C sort)
  present=$(cd "$dir" && find -L . -type f ! -path ./manifest.json ! -path ./SHA256SUMS \
            | sed 's|^\./||' | LC_ALL=C sort)
  if [ "$listed" != "$present" ]; then
    die "$dir holds files its manifest does not list: $(comm -13 <(echo "$listed") \
         <(echo "$present") | head -n 5 | tr '\n' ' ')"
  fi
  overall=$(sha256sum "$dir/SHA256SUMS" | cut -d' ' -f1)
  recorded=$(sed -n 's/^ *"overall": *"\([0-9a-f]\{64\}\)".*/\1/p' "$dir/manifest.json")
  [ "$overall" = "$recorded" ] || die "$dir/manifest.json names overall hash ${recorded:-none}, \
its SHA256SUMS hashes to $overall: the manifest was edited"
  echo "$overall"
}

echo "install.sh: checking the bundle $BUNDLE"
OVERALL=$(verify_tree "$BUNDLE")
if [ -n "$EXPECT" ] && [ "$EXPECT" != "$OVERALL" ]; then
  die "the bundle's overall hash is $OVERALL, not the approved $EXPECT: refusing to install it"
fi
echo "install.sh: bundle verified, overall hash $OVERALL"

# An installation pinned to an approved build (--expect-hash, kept in station.env) takes
# another build only when it is named as the newly approved one.
OLD_ENV=$P$ETC/station.env
OLD_DB=
PIN=$EXPECT
if [ -f "$OLD_ENV" ]; then
  OLD_DB=$(sed -n 's/^DEALER_STATION_DB=//p' "$OLD_ENV" | tail -n 1)
  [ -n "$NAME" ] || NAME=$(sed -n 's/^DEALER_STATION_NAME=//p' "$OLD_ENV" | tail -n 1)
  old_pin=$(sed -n 's/^DEALER_STATION_APPROVED_HASH=//p' "$OLD_ENV" | tail -n 1)
  if [ -z "$EXPECT" ] && [ -n "$old_pin" ]; then
    [ "$old_pin" = "$OVERALL" ] || die "this station is pinned to the approved build \
$old_pin ($ETC/station.env); this bundle is $OVERALL. If it is the newly approved build, \
run again with --expect-hash $OVERALL"
    PIN=$old_pin
  fi
fi

# --- the configuration to install, and the udev names in it -------------------------------------
SRC_CONFIG=${CONFIG:-$BUNDLE/_internal/config}
[ -d "$SRC_CONFIG" ] || die "no configuration folder $SRC_CONFIG"
SRC_CONFIG=$(cd "$SRC_CONFIG" && pwd)
shopt -s nullglob
CONFIG_FILES=("$SRC_CONFIG"/*.toml)
shopt -u nullglob
[ ${#CONFIG_FILES[@]} -gt 0 ] || die "$SRC_CONFIG holds no *.toml configuration files"

# read_udev FILE: "role key value" lines from its [udev.shoe] / [udev.reader] tables. Only
# `key = "text"` lines are read there; anything else is refused, naming the file and line.
read_udev() {
  awk -v file="$1" '
    function fail(msg) { printf "%s: line %d: %s\n", file, NR, msg > "/dev/stderr"; bad = 1; exit 2 }
    { line = $0; sub(/\r$/, "", line) }
    line ~ /^[ \t]*(#.*)?$/ { next }
    line ~ /^[ \t]*\[/ {
      head = line; sub(/[ \t]*#.*$/, "", head); gsub(/^[ \t]+|[ \t]+$/, "", head)
      if (head ~ /^\[udev\.(shoe|reader)\]$/) { role = substr(head, 7, length(head) - 7); next }
      if (head ~ /^\[ *udev/) fail("udev tables are [udev.shoe] and [udev.reader], got " head)
      role = ""; next
    }
    role == "" { next }
    {
      if (match(line, /^[ \t]*[a-z_]+[ \t]*=[ \t]*"[^"\\]*"[ \t]*(#.*)?$/) == 0 &&
          match(line, /^[ \t]*[a-z_]+[ \t]*=[ \t]*\047[^\047]*\047[ \t]*(#.*)?$/) == 0)
        fail("in [udev." role "] write key = \"text\" (e.g. usb_vendor = \"0403\"), got: " line)
      key = line; sub(/^[ \t]*/, "", key); sub(/[ \t]*=.*$/, "", key)
      value = line; sub(/^[^=]*=[ \t]*/, "", value); q = substr(value, 1, 1)
      value = substr(value, 2); value = substr(value, 1, index(value, q) - 1)
      print role, key, value
    }' "$1"
}

STATION_TOML=$SRC_CONFIG/station.toml
declare -A UDEV=()
if [ -f "$STATION_TOML" ]; then
  udev_lines=$(read_udev "$STATION_TOML") || die "cannot read the [udev] tables (see above)"
  while read -r role key value; do
    [ -n "$role" ] || continue
    case "$key" in
      usb_vendor|usb_product)
        [[ "$value" =~ ^[0-9a-fA-F]{4}$ ]] || die "$STATION_TOML: udev.$role.$key: must be 4 \
hexadecimal digits as lsusb shows them (e.g. \"0403\"), got \"$value\""
        value=${value,,} ;;
      usb_serial)
        [[ "$value" =~ ^[A-Za-z0-9._:-]{1,64}$ ]] || die "$STATION_TOML: udev.$role.usb_serial: \
must be 1-64 letters, digits, '.', '_', ':' or '-', got \"$value\"" ;;
      *) die "$STATION_TOML: udev.$role.$key: unknown key (usb_vendor, usb_product, usb_serial)" ;;
    esac
    UDEV[$role.$key]=$value
  done <<< "$udev_lines"
fi
UDEV_ROLES=()
for role in shoe reader; do
  if [ -n "${UDEV[$role.usb_vendor]:-}${UDEV[$role.usb_product]:-}${UDEV[$role.usb_serial]:-}" ]; then
    for key in usb_vendor usb_product; do
      [ -n "${UDEV[$role.$key]:-}" ] || die "$STATION_TOML: udev.$role.$key: is required"
    done
    UDEV_ROLES+=("$role")
  fi
done
if [ ${#UDEV_ROLES[@]} = 2 ] \
   && [ "${UDEV[shoe.usb_vendor]}:${UDEV[shoe.usb_product]}:${UDEV[shoe.usb_serial]:-}" \
      = "${UDEV[reader.usb_vendor]}:${UDEV[reader.usb_product]}:${UDEV[reader.usb_serial]:-}" ]; then
  die "$STATION_TOML: udev: the shoe and the reader have the same vendor, product and serial: \
udev could not tell them apart; set usb_serial for each (udevadm info /dev/ttyUSB0 shows it)"
fi

echo "install.sh: installing into ${P:-/}"

# --- the service user ----------------------------------------------------------------------------
USERADD=(useradd --system --user-group --home-dir "$VAR" --no-create-home
         --shell /usr/sbin/nologin --groups dialout "$SERVICE_USER")
if [ "$MAKE_USER" = 1 ]; then
  if id -u "$SERVICE_USER" >/dev/null 2>&1; then
    run usermod -a -G dialout "$SERVICE_USER"
  else
    run "${USERADD[@]}"
  fi
else
  why=$([ "$REAL" = 1 ] && echo "--no-user" || echo "the prefix is not /")
  note "skipped ($why): ${USERADD[*]}"
fi
# own_as [-R] OWNER[:GROUP] PATH...: chown when the user is ours, else record what would be.
own_as() {
  local flags=()
  if [ "$1" = -R ]; then flags=(-R); shift; fi
  local who=$1; shift
  if [ "$MAKE_USER" = 1 ]; then
    chown "${flags[@]}" "$who" "$@"
  else
    would chown "${flags[@]}" "$who" "${@#"$P"}"
  fi
}

# --- the software ----------------------------------------------------------------------------------
mkdir -p "$P/opt"
rm -rf "$P$OPT.new"
cp -a "$BUNDLE" "$P$OPT.new"
[ "$(verify_tree "$P$OPT.new")" = "$OVERALL" ] || die "the copy in $P$OPT.new does not match"
if [ -e "$P$OPT" ]; then rm -rf "$P$OPT.old"; mv "$P$OPT" "$P$OPT.old"; fi
mv "$P$OPT.new" "$P$OPT"
rm -rf "$P$OPT.old"
chmod -R u+rwX,go+rX,go-w "$P$OPT"
if [ "$REAL" = 1 ]; then chown -R root:root "$P$OPT"; fi
note "installed the build in $OPT (overall hash $OVERALL)"

# --- the configuration ---------------------------------------------------------------------------
mkdir -p "$P$ETC"
chmod 0750 "$P$ETC"
own_as "root:$SERVICE_USER" "$P$ETC"
# place SOURCE NAME: install a configuration file, keeping a technician's edits.
place() {
  local src=$1 name=$2 dst=$P$ETC/$2
  if [ -e "$dst" ] && ! cmp -s "$src" "$dst"; then
    if [ -n "$CONFIG" ]; then
      cp -p "$dst" "$dst.old"
      note "replaced $ETC/$name (the previous one is $ETC/$name.old)"
    else
      install -m 0640 "$src" "$dst.dist"
      own_as "root:$SERVICE_USER" "$dst.dist"
      note "kept your $ETC/$name; the new default is $ETC/$name.dist"
      return
    fi
  fi
  install -m 0640 "$src" "$dst"
  own_as "root:$SERVICE_USER" "$dst"
  note "configuration $ETC/$name"
}
for f in "${CONFIG_FILES[@]}"; do place "$f" "$(basename "$f")"; done

if [ -n "$NAME" ] && ! [[ "$NAME" =~ ^[A-Za-z0-9._-]+/[A-Za-z0-9._/-]+$ ]]; then
  die "--name $NAME: give CASINO/STATION in letters, digits, '.', '_' and '-' (e.g. \
casino.example/pit3-t7)"
fi
# station.env is the installer's own: written each time, keeping a floor database's URL.
{
  echo "# The installed station's settings (written by install.sh; read by the systemd unit and"
  echo "# by $BIN). DEALER_STATION_DB may name a floor database"
  echo "# (postgresql+psycopg://user@host/db): install.sh keeps it when it runs again."
  echo "DEALER_STATION_CONFIG=$ETC"
  echo "DEALER_STATION_DB=${OLD_DB:-sqlite:///$VAR/journal.db}"
  echo "DEALER_STATION_KEY=$VAR/journal.key"
  if [ -n "$NAME" ]; then
    echo "# The station's signing key's name (its checkpoints are signed as CASINO/TABLE)."
    echo "DEALER_STATION_NAME=$NAME"
  fi
  if [ -n "$PIN" ]; then
    echo "# The approved build: the station stops at start if its software is any other."
    echo "DEALER_STATION_APPROVED_HASH=$PIN"
  fi
} > "$OLD_ENV"
chmod 0640 "$OLD_ENV"
own_as "root:$SERVICE_USER" "$OLD_ENV"
note "settings $ETC/station.env${PIN:+ (approved build $PIN)}"

# --- the journal's home and its key --------------------------------------------------------------
mkdir -p "$P$VAR"
chmod 0700 "$P$VAR"
# -R: a journal kept by an earlier uninstall belongs to this (maybe re-created) user again.
own_as -R "$SERVICE_USER:$SERVICE_USER" "$P$VAR"
KEY=$P$VAR/journal.key
if [ -e "$KEY" ] || [ -L "$KEY" ]; then
  mode=$(stat -c %a "$KEY")
  if [ "$mode" != 600 ]; then
    chmod 0600 "$KEY"
    note "WARNING: the journal key $VAR/journal.key was mode $mode (others could read it); \
now 0600. Tell the operator: a key others could read may have been copied"
  fi
  note "kept the existing journal key $VAR/journal.key (the journal depends on it)"
else
  # 32 random bytes as 64 hexadecimal digits, created private (umask) and never overwritten.
  secret=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
  [ ${#secret} = 64 ] || die "could not read 32 random bytes from /dev/urandom"
  (umask 077; set -o noclobber; printf '%s\n' "$secret" > "$KEY")
  unset secret
  chmod 0600 "$KEY"
  own_as "$SERVICE_USER:$SERVICE_USER" "$KEY"
  note "generated the journal key $VAR/journal.key (mode 0600)"
fi

# --- the command --------------------------------------------------------------------------------
mkdir -p "$(dirname "$P$BIN")"
cat > "$P$BIN" <<'EOF'
#!/bin/sh
# The installed station (written by install.sh), with the settings in @ETC@/station.env;
# a DEALER_STATION_* variable already set wins. E.g.: sudo dealer-station doctor
if [ -r @ETC@/station.env ]; then
  while IFS='=' read -r key value; do
    case "$key" in
      DEALER_STATION_*[!A-Z_]*) ;;
      DEALER_STATION_[A-Z]*)
        eval "isset=\${$key+x}"
        [ -n "$isset" ] || export "$key=$value" ;;
    esac
  done < @ETC@/station.env
fi
exec @OPT@/dealer-station "$@"
EOF
sed -i -e "s|@ETC@|$ETC|g" -e "s|@OPT@|$OPT|g" "$P$BIN"
chmod 0755 "$P$BIN"
note "command $BIN"

# --- udev: stable names for the shoe and the reader ----------------------------------------------
mkdir -p "$UDEV_DIR"
if [ ${#UDEV_ROLES[@]} -gt 0 ]; then
  {
    echo "# Written by install.sh from $ETC/station.toml ([udev.shoe], [udev.reader])."
    echo "# Stable names for the card shoe and card reader, whatever USB port they use."
    for role in "${UDEV_ROLES[@]}"; do
      serial=${UDEV[$role.usb_serial]:-}
      match="ATTRS{idVendor}==\"${UDEV[$role.usb_vendor]}\", ATTRS{idProduct}==\"${UDEV[$role.usb_product]}\""
      [ -n "$serial" ] && match="$match, ATTRS{serial}==\"$serial\""
      echo "SUBSYSTEM==\"tty\", $match, SYMLINK+=\"dealer-$role\", GROUP=\"dialout\", MODE=\"0660\""
    done
  } > "$UDEV_DIR/$RULES"
  chmod 0644 "$UDEV_DIR/$RULES"
  note "udev rule $UDEV_DIR/$RULES: /dev/dealer-{${UDEV_ROLES[*]}} by USB vendor/product/serial"
else
  rm -f "$UDEV_DIR/$RULES"
  note "no [udev.shoe] / [udev.reader] in station.toml: no udev rule (devices.toml must name \
the ports themselves, e.g. /dev/ttyUSB0)"
fi

# --- systemd: the station full-screen at boot, restarted if it dies ------------------------------
if [ "$DISPLAY_KIND" = wayland ]; then
  START="/usr/bin/cage -- $OPT/dealer-station run --fullscreen"
  QPA=wayland
  NEEDS="cage (apt-get install cage xwayland libwayland-cursor0 libwayland-egl1)"
  LIBS="libwayland-client.so.0 libwayland-cursor.so.0 libwayland-egl.so.1"
else
  START="/usr/bin/xinit $OPT/dealer-station run --fullscreen -- :0 vt1 -nolisten tcp -s 0 -dpms"
  QPA=xcb
  NEEDS="xinit and an X server (apt-get install xinit xserver-xorg libxcb-icccm4 libxcb-keysyms1)"
  LIBS="libxcb-icccm.so.4 libxcb-keysyms.so.1"
fi
mkdir -p "$SYSTEMD_DIR"
cat > "$SYSTEMD_DIR/$UNIT" <<EOF
# Written by install.sh. The dealer station as a kiosk: full-screen on tty1 at boot, alone on
# the screen (no desktop, no other program, no switching consoles), restarted whenever it
# stops. Needs $NEEDS.
# Kiosk note: nothing else should run on tty1 (this unit replaces its login prompt); keep
# the PC's firmware and boot loader locked, and leave no keyboard at the table.
[Unit]
Description=Dealer Station (table kiosk)
After=systemd-user-sessions.service plymouth-quit-wait.service systemd-udevd.service
After=getty@tty1.service
Conflicts=getty@tty1.service
# Never give up restarting.
StartLimitIntervalSec=0

[Service]
Type=simple
User=$SERVICE_USER
Group=$SERVICE_USER
SupplementaryGroups=dialout
EnvironmentFile=$ETC/station.env
Environment=QT_QPA_PLATFORM=$QPA
WorkingDirectory=$VAR
ExecStart=$START
Restart=always
RestartSec=2
# A login session on tty1 gives the station the screen, touch and keyboard devices.
PAMName=login
TTYPath=/dev/tty1
TTYReset=yes
TTYVHangup=yes
TTYVTDisallocate=yes
StandardInput=tty-fail
StandardOutput=journal
StandardError=journal
UtmpIdentifier=tty1
UtmpMode=user
# The station may write only its journal; its software and configuration are read-only.
NoNewPrivileges=yes
ProtectSystem=full
ProtectHome=yes
PrivateTmp=yes
ReadWritePaths=$VAR

[Install]
WantedBy=multi-user.target
EOF
chmod 0644 "$SYSTEMD_DIR/$UNIT"
note "systemd unit $SYSTEMD_DIR/$UNIT ($DISPLAY_KIND)"

if [ "$REAL" = 1 ] && [ ! -d /run/systemd/system ]; then
  note "systemd is not running on this computer: run these where it is:"
  REAL_SYSTEMD=0
else
  REAL_SYSTEMD=$REAL
fi
if [ "$REAL" = 1 ]; then
  command -v "${START%% *}" >/dev/null || note "WARNING: ${START%% *} is not installed: install $NEEDS"
  # The window's Qt platform plugin loads these from the system, not from the bundle.
  for lib in $LIBS; do
    if ! ldconfig -p 2>/dev/null | grep -q "$lib"; then
      note "WARNING: $lib is missing: the station's window cannot open; install $NEEDS"
    fi
  done
fi
if [ "$REAL_SYSTEMD" = 1 ]; then
  run systemctl daemon-reload
  run systemctl enable "$UNIT"
  if [ ${#UDEV_ROLES[@]} -gt 0 ]; then
    run udevadm control --reload-rules
    run udevadm trigger --subsystem-match=tty --action=add
  fi
  if [ "$NO_START" = 0 ]; then run systemctl restart "$UNIT"; else note "not started (--no-start)"; fi
else
  would systemctl daemon-reload
  would systemctl enable "$UNIT"
  [ ${#UDEV_ROLES[@]} -gt 0 ] && would udevadm control --reload-rules
  [ "$NO_START" = 0 ] && would systemctl restart "$UNIT"
fi

{
  echo "# install.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) into ${P:-/}"
  echo "bundle $BUNDLE"
  echo "overall $OVERALL"
  echo "user $SERVICE_USER"
  echo "display $DISPLAY_KIND"
  printf '%s\n' "${LOG[@]}"
} > "$P$ETC/install.log"
chmod 0640 "$P$ETC/install.log"
echo "install.sh: done. Overall hash $OVERALL (compare it with the approved build's)."
echo "install.sh: next, check the table: sudo -u $SERVICE_USER $BIN doctor"
