#!/usr/bin/env bash
# Install (or update) Table Companion as a kiosk on Raspberry Pi OS Bookworm or Trixie, 64-bit.
#
#   sudo ./pi/install.sh            install, or update after a `git pull`; safe to run again
#   ./pi/install.sh --dry-run       print every step it would take and change nothing (any machine)
#   ./pi/install.sh --dry-run-fresh the same, planned as on a freshly flashed Pi
#   sudo ./pi/install.sh --with-broker   also make this Pi the café's Mosquitto broker (docs/cafe.md)
#
# What it sets up (docs/pi.md explains each part):
#   system packages   camera (picamera2, libcamera), zbar, lgpio, SDL2 + Mesa for the KMS display
#   /opt/companion    app/ a copy of this checkout, venv/ its Python environment (sees the system's
#                     picamera2), /usr/local/bin/companion to run it with the kiosk's settings
#   user companion    no login, in the video, render, input and gpio groups
#   /var/lib/companion   the data directory: games, settings (config.toml, also reachable as
#                     /etc/companion/config.toml), logs
#   logs              a size cap for the journal, rotation of the kiosk's log files (SD-card wear)
#   companion-kiosk.service   installed and enabled (starts at boot)
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# DESTDIR prefixes every file path the script looks at or writes; the tests use it to check the
# plan against a pretend machine. Leave it unset on a real Pi.
ROOT=${DESTDIR:-}
OPT=/opt/companion
APP=$OPT/app
VENV=$OPT/venv
DATA=/var/lib/companion
CONFIG=$DATA/config.toml
ETC_CONFIG=/etc/companion/config.toml
WRAPPER=/usr/local/bin/companion
JOURNALD_CONF=/etc/systemd/journald.conf.d/companion.conf
LOGROTATE_CONF=/etc/logrotate.d/companion
UNIT=companion-kiosk.service
UNIT_FILE=/etc/systemd/system/$UNIT
SERVICE_USER=companion
SERVICE_GROUPS=(video render input gpio)
# pygame is built here against the system's SDL2: the pygame wheels on PyPI leave out SDL's KMSDRM
# display driver, and without it the kiosk cannot draw on a Pi that runs no desktop.
PYGAME_BUILD_DEPS=(build-essential pkg-config python3-dev libsdl2-dev libsdl2-image-dev libsdl2-mixer-dev
                   libsdl2-ttf-dev libfreetype-dev libportmidi-dev libjpeg-dev libpng-dev)
# The packages every release shares; release_packages adds the ones whose names differ.
APT_PACKAGES=(
  python3 python3-venv python3-pip
  python3-picamera2 libcamera-ipa rpicam-apps-lite   # the Pi camera (picamera2 reaches it via libcamera)
  python3-lgpio                                      # GPIO buttons, LEDs and buzzer (lgpio; on Python 3.13
                                                     # the only lgpio: PyPI has no 3.13 wheel)
  libsdl2-2.0-0 libsdl2-image-2.0-0 libsdl2-mixer-2.0-0 libsdl2-ttf-2.0-0
  libgbm1 libegl1 libgles2 libgl1-mesa-dri libdrm2   # SDL's KMSDRM display through Mesa
  fonts-dejavu-core
  rsync logrotate
  "${PYGAME_BUILD_DEPS[@]}"
)
# Bookworm's apt picamera2 imports the apt simplejpeg, built for Debian's numpy 1.x; the venv's numpy 2
# needs a simplejpeg built for it, installed into the venv in front of the apt one (Trixie's is numpy 2).
SIMPLEJPEG=simplejpeg==1.8.2
RELEASES="bookworm trixie"
RELEASE=bookworm   # the release planned for: this machine's when it is one of RELEASES

release_packages() {
  case "$RELEASE" in
    # zbar's library was renamed in Trixie's 64-bit time_t transition; dpkg-query knows only the new name
    trixie) APT_PACKAGES+=(libzbar0t64) ;;           # the fallback QR decoder (pyzbar)
    *) APT_PACKAGES+=(libzbar0) ;;
  esac
}

DRY_RUN=0
WITH_BROKER=0
FRESH=0    # --dry-run-fresh: plan as on a freshly flashed Pi (no package, no user yet), whatever this machine has
usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
}
for arg in "$@"; do
  case "$arg" in
    --dry-run|-n) DRY_RUN=1 ;;
    --dry-run-fresh) DRY_RUN=1; FRESH=1 ;;
    --with-broker) WITH_BROKER=1 ;;
    --help|-h) usage; exit 0 ;;
    *) echo "install.sh: unknown option '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

step() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf '    warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# Run a command, or in a dry run print it (shell-quoted) instead.
run() {
  if [ "$DRY_RUN" = 1 ]; then
    printf '    $'
    printf ' %q' "$@"
    printf '\n'
  else
    "$@"
  fi
}

# Copy a file into place when it is missing or different (mode, owner:group).
put() {
  local src=$1 dest=$2 mode=$3 owner=${4:-root:root}
  if [ -f "$ROOT$dest" ] && cmp -s "$src" "$ROOT$dest"; then
    note "$dest is up to date"
    return 1
  fi
  run install -D -m "$mode" -o "${owner%%:*}" -g "${owner##*:}" "$src" "$ROOT$dest"
}

check_system() {
  step "Checking the system"
  local codename="" arch="" rootfs="" refusal=""
  # shellcheck disable=SC1091
  codename=$(. "$ROOT/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-}") || true
  # the userland's architecture, not the kernel's: 32-bit Raspberry Pi OS runs a 64-bit kernel
  arch=$(dpkg --print-architecture 2>/dev/null) || arch=unknown
  rootfs=$(findmnt -n -o FSTYPE / 2>/dev/null) || rootfs=""
  if [ ! -f "$SRC/pyproject.toml" ] || [ ! -f "$SRC/companion/cli.py" ]; then
    die "$SRC is not a Table Companion checkout (no pyproject.toml / companion/cli.py)"
  fi
  note "source: $SRC"
  case " $RELEASES " in *" $codename "*) RELEASE=$codename ;; esac
  if [ "$arch" = armhf ]; then
    refusal="this is 32-bit Raspberry Pi OS (armhf programs, even on a 64-bit kernel): the kiosk's libraries have \
no 32-bit wheels and would build from source for hours. Flash Raspberry Pi OS (64-bit) (hardware/first-boot.md)"
  elif [ "$arch" != arm64 ] || [ "$codename" != "$RELEASE" ]; then
    refusal="this script is for Raspberry Pi OS Bookworm or Trixie, 64-bit (found ${codename:-unknown} on $arch)"
  elif [ "$rootfs" = overlay ]; then
    refusal="the root file system is the read-only overlay: what this script installs would vanish at the next \
reboot. Turn it off (sudo raspi-config nonint do_overlayfs 1, reboot), run this again, then turn it back on \
(sudo raspi-config nonint do_overlayfs 0, reboot); docs/pi.md, 'Read-only root'"
  fi
  if [ -z "$refusal" ]; then
    note "Raspberry Pi OS / Debian $codename, $arch: supported"
  elif [ "$FRESH" = 1 ]; then
    note "planning for a freshly flashed Raspberry Pi OS $(release_name) 64-bit (this machine: ${codename:-unknown} on $arch)"
  elif [ "$DRY_RUN" = 1 ]; then
    warn "a real run stops here: $refusal"
    note "the plan below is for a Raspberry Pi OS $(release_name) 64-bit Pi"
  else
    die "$refusal"
  fi
  if [ "$RELEASE" = trixie ]; then
    note "Trixie: Python 3.13; lgpio comes from apt (python3-lgpio), zbar as libzbar0t64"
  fi
  release_packages
  if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" -ne 0 ]; then
    die "run it as root: sudo $0 (or --dry-run to see what it would do)"
  fi
}

release_name() {
  case "$RELEASE" in trixie) echo Trixie ;; *) echo Bookworm ;; esac
}

install_packages() {
  step "Installing system packages"
  local missing=() pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    if [ "$FRESH" = 1 ] || ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    note "all ${#APT_PACKAGES[@]} packages are installed"
    return
  fi
  note "${#missing[@]} of ${#APT_PACKAGES[@]} packages missing"
  run apt-get update
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
}

create_user() {
  step "Creating the service user $SERVICE_USER"
  if [ "$FRESH" = 0 ] && id -u "$SERVICE_USER" >/dev/null 2>&1; then
    note "user $SERVICE_USER exists"
  else
    run useradd --system --user-group --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
      --comment "Table Companion kiosk" "$SERVICE_USER"
  fi
  local group
  for group in "${SERVICE_GROUPS[@]}"; do
    if [ "$FRESH" = 1 ]; then
      run usermod --append --groups "$group" "$SERVICE_USER"
    elif ! getent group "$group" >/dev/null; then
      warn "there is no '$group' group on this system (Raspberry Pi OS has one); skipped"
    elif id -nG "$SERVICE_USER" 2>/dev/null | tr ' ' '\n' | grep -qx "$group"; then
      note "$SERVICE_USER is in group $group"
    else
      run usermod --append --groups "$group" "$SERVICE_USER"
    fi
  done
}

create_data_dir() {
  step "Creating the data directory $DATA"
  run install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$ROOT$DATA"
}

copy_app() {
  step "Copying the program to $APP"
  if [ "$SRC" = "$ROOT$APP" ]; then
    note "running from $APP itself: nothing to copy"
    return
  fi
  run install -d -m 0755 "$ROOT$OPT"
  run rsync -a --delete --chown=root:root --chmod=go-w \
    --exclude=.git --exclude=.venv --exclude=__pycache__ --exclude='*.egg-info' \
    --exclude=.pytest_cache --exclude=.hypothesis "$SRC/" "$ROOT$APP/"
}

python_env() {
  step "Setting up the Python environment $VENV"
  if [ -x "$ROOT$VENV/bin/python" ]; then
    note "$VENV exists"
  else
    # --system-site-packages: picamera2 and libcamera come from apt and cannot be pip-installed
    run python3 -m venv --system-site-packages "$ROOT$VENV"
  fi
  local pip=("$ROOT$VENV/bin/python" -m pip --disable-pip-version-check --no-input)
  # A pygame from a PyPI wheel carries its own SDL without KMSDRM: replace it with a local build.
  local wheel_pygame
  wheel_pygame=$(find "$ROOT$VENV"/lib/python3*/site-packages -maxdepth 1 -name pygame.libs 2>/dev/null || true)
  if [ -n "$wheel_pygame" ]; then
    note "pygame in $VENV is a PyPI wheel without KMSDRM: rebuilding it against the system's SDL2"
    run "${pip[@]}" install --force-reinstall --no-deps --no-binary pygame "$(pygame_pin)"
  fi
  note "building pygame for the system's SDL2 takes a few minutes the first time"
  run "${pip[@]}" install --no-binary pygame -e "$ROOT$APP"
  if [ "$RELEASE" = bookworm ]; then
    run "${pip[@]}" install "$SIMPLEJPEG"
  fi
  # The service cannot write next to the code (read-only system): compile it now.
  run "$ROOT$VENV/bin/python" -m compileall -q "$ROOT$APP/companion"
  put "$SRC/pi/companion" "$WRAPPER" 0755 || true
}

pygame_pin() {
  grep -o '"pygame==[^"]*"' "$SRC/pyproject.toml" | tr -d '"'
}

install_config() {
  step "Settings: $CONFIG"
  if [ -e "$ROOT$CONFIG" ]; then
    note "keeping the existing $CONFIG"
  else
    run install -m 0640 -o "$SERVICE_USER" -g "$SERVICE_USER" "$SRC/pi/config.toml" "$ROOT$CONFIG"
  fi
  if [ -L "$ROOT$ETC_CONFIG" ]; then
    note "$ETC_CONFIG -> $(readlink "$ROOT$ETC_CONFIG")"
  elif [ -e "$ROOT$ETC_CONFIG" ]; then
    warn "$ETC_CONFIG is a file of its own and is not read: the kiosk reads $CONFIG (copy your changes there)"
  else
    run install -d -m 0755 "$ROOT${ETC_CONFIG%/*}"
    run ln -s "$CONFIG" "$ROOT$ETC_CONFIG"
  fi
}

configure_logs() {
  step "Log rotation: the journal's cap and the kiosk's log files"
  if put "$SRC/pi/journald-companion.conf" "$JOURNALD_CONF" 0644; then
    run systemctl restart systemd-journald
  fi
  put "$SRC/pi/logrotate-companion" "$LOGROTATE_CONF" 0644 || true
}

install_service() {
  step "Installing and enabling $UNIT"
  put "$SRC/systemd/$UNIT" "$UNIT_FILE" 0644 || true
  run systemctl daemon-reload
  run systemctl enable "$UNIT"
  # an update: a kiosk that is running restarts on the new code (one that is stopped stays stopped)
  run systemctl try-restart "$UNIT"
}

install_broker() {
  # the café's broker: Debian's Mosquitto with no anonymous access and a per-table ACL
  step "The café's broker (Mosquitto)"
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends mosquitto mosquitto-clients
  put "$SRC/pi/mosquitto/companion-cafe.acl" /etc/mosquitto/companion.acl 0640 root:mosquitto || true
  if [ -e "$ROOT/etc/mosquitto/companion.passwd" ]; then
    note "keeping the existing logins in /etc/mosquitto/companion.passwd"
  else
    run install -m 0640 -o root -g mosquitto /dev/null "$ROOT/etc/mosquitto/companion.passwd"
  fi
  put "$SRC/pi/mosquitto/companion-cafe.conf" /etc/mosquitto/conf.d/companion-cafe.conf 0644 || true
  run systemctl enable mosquitto
  run systemctl restart mosquitto
  note "add a login per table and one for the dashboard, e.g.:"
  note "  sudo mosquitto_passwd /etc/mosquitto/companion.passwd T01"
  note "  sudo mosquitto_passwd /etc/mosquitto/companion.passwd dashboard && sudo systemctl reload mosquitto"
}

next_steps() {
  step "Done$([ "$DRY_RUN" = 1 ] && echo ' (dry run: nothing was changed)')"
  note "check the hardware:     sudo -u $SERVICE_USER companion doctor"
  note "start the kiosk now:    sudo systemctl start $UNIT   (it also starts at every boot)"
  note "its log:                journalctl -u $UNIT -f"
  note "settings:               sudo nano $ETC_CONFIG, then sudo systemctl restart $UNIT"
}

check_system
install_packages
create_user
create_data_dir
copy_app
python_env
install_config
configure_logs
install_service
if [ "$WITH_BROKER" = 1 ]; then install_broker; fi
next_steps
