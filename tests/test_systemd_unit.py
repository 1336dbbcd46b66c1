"""The kiosk's systemd unit: it passes `systemd-analyze verify`, runs sandboxed, and has a watchdog."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "companion-kiosk.service"
EXEC = "/opt/companion/venv/bin/companion"


def parse_unit(text: str) -> dict[str, list[tuple[str, str]]]:
    """Sections -> (key, value) in order; systemd allows a key more than once (DeviceAllow=)."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
            continue
        key, _, value = line.partition("=")
        current.append((key.strip(), value.strip()))
    return sections


def values(section, key):
    return [v for k, v in section if k == key]


def one(section, key):
    found = values(section, key)
    assert len(found) == 1, f"{key}= appears {len(found)} times"
    return found[0]


@pytest.fixture(scope="module")
def unit():
    return parse_unit(UNIT.read_text())


@pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                    reason="systemd-analyze is not installed (apt-get install systemd)")
def test_systemd_analyze_verify_passes(tmp_path):
    # verify checks that ExecStart= exists, so point a copy of the unit at a stand-in executable
    exe = tmp_path / "venv" / "bin" / "companion"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    text = UNIT.read_text()
    assert text.count(EXEC) == 1
    copy = tmp_path / UNIT.name
    copy.write_text(text.replace(EXEC, str(exe)))
    out = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    ours = [line for line in (out.stdout + out.stderr).splitlines() if UNIT.name in line or str(copy) in line]
    assert out.returncode == 0, out.stderr
    assert ours == []            # verify reports unknown keys and bad values as warnings, still exit 0


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_verify_would_catch_a_bad_value(tmp_path):
    """The check above is not vacuous: a misspelt value is reported against the unit."""
    bad = tmp_path / UNIT.name
    bad.write_text(UNIT.read_text().replace(EXEC, "/bin/true").replace("ProtectSystem=strict", "ProtectSystem=strictt"))
    out = subprocess.run(["systemd-analyze", "verify", str(bad)], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    assert "Failed to parse protect system value" in out.stderr


def test_notify_and_watchdog(unit):
    s = unit["Service"]
    assert one(s, "Type") == "notify"
    assert one(s, "NotifyAccess") == "main"
    m = re.fullmatch(r"(\d+)s", one(s, "WatchdogSec"))
    assert m and 10 <= int(m.group(1)) <= 120
    assert one(s, "Restart") == "on-failure"
    assert one(s, "RestartPreventExitStatus") == "2"
    assert one(s, "ExecStart") == f"{EXEC} kiosk"


def test_runs_as_the_companion_user_on_the_display(unit):
    s = unit["Service"]
    assert one(s, "User") == "companion"
    env = dict(v.split("=", 1) for v in values(s, "Environment"))
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert env["COMPANION_DATA"] == "/var/lib/companion"
    assert env["COMPANION_CONFIG"] == "/var/lib/companion/config.toml"
    assert one(s, "StandardOutput") == "journal"
    assert one(s, "StandardError") == "journal"
    assert "getty@tty1.service" in values(unit["Unit"], "Conflicts")
    assert values(unit["Install"], "WantedBy") == ["multi-user.target"]


def test_hardening(unit):
    s = unit["Service"]
    assert one(s, "ProtectSystem") == "strict"
    assert one(s, "ReadWritePaths") == "/var/lib/companion"
    for key in ("NoNewPrivileges", "PrivateTmp", "ProtectHome", "RestrictSUIDSGID", "ProtectKernelTunables",
                "ProtectKernelModules", "ProtectControlGroups", "LockPersonality", "RestrictNamespaces"):
        assert one(s, key) == "yes", key
    assert one(s, "CapabilityBoundingSet") == ""
    assert set(one(s, "RestrictAddressFamilies").split()) == {"AF_UNIX", "AF_NETLINK"}
    assert values(s, "PrivateDevices") == []      # it would hide the camera, GPU and GPIO


def test_only_the_devices_it_needs(unit):
    s = unit["Service"]
    assert one(s, "DevicePolicy") == "closed"
    allowed = {v.split()[0]: v.split()[1] for v in values(s, "DeviceAllow")}
    assert allowed == {
        "char-drm": "rw", "char-video4linux": "rw", "char-media": "rw", "char-dma_heap": "rw",
        "char-vchiq": "rw", "char-gpiochip": "rw", "char-input": "r", "/dev/tty0": "rw", "/dev/tty1": "rw",
    }
