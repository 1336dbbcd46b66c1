#!/usr/bin/env bash
# The two commands of the README:
#   ./dev.sh demo   set up .venv if needed, then start the kiosk demo (virtual table + keyboard)
#   ./dev.sh test   set up .venv if needed, then run the whole test suite on pytest-xdist workers, one per
#                   core and one more, longest tests first (extra args go to pytest: -n 0 for one
#                   process, -m "not slow" without the slow tests)
set -euo pipefail
cd "$(dirname "$0")"

need_python() {
  for py in python3.13 python3.12 python3.11 python3; do
    # a pyenv shim of a version not selected is on PATH but fails, with a page of advice: not for the user
    if command -v "$py" >/dev/null && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$py"; return
    fi
  done
  echo "companion needs Python 3.11 or newer (python3 --version says $(python3 --version 2>&1))" >&2
  exit 1
}

install_zbar() {
  # pyzbar (the fallback decoder) needs the system's zbar library; zxing-cpp works without it.
  # grep reads all of it: with pipefail, grep -q's early exit would fail ldconfig (SIGPIPE) and the test
  if ldconfig -p 2>/dev/null | grep 'libzbar\.so\.0' >/dev/null; then return; fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  if command -v apt-get >/dev/null && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    echo "Installing libzbar0 (system library for the pyzbar decoder)..."
    $sudo apt-get install -y -qq libzbar0 >/dev/null 2>&1 \
      || { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq libzbar0 >/dev/null 2>&1; } \
      || echo "note: could not install libzbar0; the pyzbar fallback stays off (zxing-cpp still reads)."
  else
    echo "note: libzbar0 is missing; the pyzbar fallback stays off. Install it with: sudo apt-get install libzbar0"
  fi
}

install_cafe_tools() {
  # the café's tests run a real Mosquitto broker and drive Debian's own Chromium (nothing downloads a browser)
  if command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ]; then
    if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then return; fi
  fi
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
  local pkgs="mosquitto mosquitto-clients chromium chromium-driver"
  # tests/cafe_support.py: a missing part skips its tests on a developer's machine, fails them in CI
  local outcome="are skipped on this machine (with CI set they fail)"
  [ -z "${CI:-}" ] || outcome="fail (CI is set)"
  if command -v apt-get >/dev/null && { [ -z "$sudo" ] || sudo -n true 2>/dev/null; }; then
    echo "Installing $pkgs (the café's broker and the browser its page tests use)..."
    $sudo apt-get install -y -qq $pkgs >/dev/null 2>&1 \
      || { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq $pkgs >/dev/null 2>&1; } \
      || echo "note: could not install $pkgs; until they are, the café's broker and browser tests $outcome."
  else
    echo "note: the café's tests need: sudo apt-get install $pkgs; until then they $outcome."
  fi
}

test_workers() {
  # One worker per core and one more: the café's tests spend much of their time waiting for a broker,
  # a dashboard or a browser in other processes, and the extra worker runs other tests meanwhile
  # (2 idle cores: 274 s with 3 workers against 308 s with 2)
  echo $(( $(nproc) + 1 ))
}

setup() {
  install_zbar
  install_cafe_tools
  if [ ! -x .venv/bin/python ]; then
    echo "Creating .venv ..."
    "$(need_python)" -m venv .venv
  fi
  local want have
  want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
  have=$(cat .venv/.setup-stamp 2>/dev/null || true)
  if [ "$want" != "$have" ]; then
    echo "Installing companion and its pinned dependencies into .venv ..."
    # pip's and setuptools' notices (an editable install's warning box) go to a log, shown only if it fails
    local log=.venv/setup.log
    if ! { .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip \
           && .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]'; } >"$log" 2>&1; then
      cat "$log" >&2
      echo "Installing into .venv failed (above; also in $log)." >&2
      exit 1
    fi
    echo "$want" > .venv/.setup-stamp
  fi
}

case "${1:-}" in
  demo) shift; setup; exec .venv/bin/companion kiosk --demo --windowed "$@" ;;
  test) shift; setup; exec .venv/bin/python -m pytest -n "$(test_workers)" --dist load --maxschedchunk 1 "$@" ;;
  *) echo "usage: ./dev.sh demo | ./dev.sh test [pytest args]" >&2; exit 2 ;;
esac
