"""`companion doctor`: every missing part is named with its fix; simulated hardware passes."""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections import namedtuple

import pytest

from companion import doctor
from companion.cli import main
from companion.config import Config


def by_name(checks):
    return {c.name: c for c in checks}


@pytest.fixture
def data(tmp_path, monkeypatch):
    d = tmp_path / "data"
    monkeypatch.setenv("COMPANION_DATA", str(d))
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "config.toml"))
    return d


def test_simulated_hardware_passes(data, capsys):
    # conftest: SDL_VIDEODRIVER=dummy, GPIOZERO_PIN_FACTORY=mock
    code = main(["doctor", "--camera", "virtual", "--pins", "mock"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "FAIL" not in out
    assert "Ready: every check passed" in out
    for name in ("settings", "camera", "decoder", "fallback decoder", "display", "buttons", "data directory",
                 "disk space", "game database"):
        assert f"  {name} " in out, name


def test_json_report(data, capsys):
    assert main(["doctor", "--camera", "virtual", "--pins", "mock", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    assert [c["name"] for c in doc["checks"]] == ["settings", "camera", "decoder", "fallback decoder", "display",
                                                  "buttons", "data directory", "disk space", "game database"]
    assert set(doc["checks"][0]) == {"name", "status", "detail", "fix"}


def test_this_machine_without_camera_or_gpio_says_what_to_fix(tmp_path):
    """As a person would run it here: no Pi camera, no GPIO pins, no screen, no test settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPIOZERO_PIN_FACTORY", "SDL_VIDEODRIVER", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(COMPANION_DATA=str(tmp_path / "data"), COMPANION_CONFIG=str(tmp_path / "config.toml"))
    (tmp_path / "config.toml").write_text('[camera]\nsource = "picamera2"\n')
    out = subprocess.run([sys.executable, "-m", "companion", "doctor", "--json"], capture_output=True, text=True,
                         env=env, timeout=120, cwd=tmp_path)
    assert out.returncode == 3, out.stderr      # not ready (1 is a bug's, as for every command)
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert checks["camera"]["status"] == "fail"
    assert checks["camera"]["detail"].startswith("picamera2: ")
    assert "pi/install.sh" not in checks["camera"]["detail"]       # the fix says it, once
    assert "picamera2" in checks["camera"]["fix"]
    assert checks["buttons"]["status"] == "fail"
    assert "BadPinFactory" in checks["buttons"]["detail"]
    assert "lgpio" in checks["buttons"]["fix"] and "--pins mock" in checks["buttons"]["fix"]
    assert checks["display"]["status"] == "fail" and "--display dummy" in checks["display"]["fix"]
    for name in ("decoder", "data directory", "disk space", "game database", "settings"):
        assert checks[name]["status"] == "ok", checks[name]
    assert all(c["fix"] for c in checks.values() if c["status"] != "ok")


def test_text_report_prints_each_fix(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    env.update(COMPANION_DATA=str(tmp_path / "data"), COMPANION_CONFIG=str(tmp_path / "config.toml"))
    out = subprocess.run([sys.executable, "-m", "companion", "doctor", "--camera", "usb:7"],
                         capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert out.returncode == 3
    lines = out.stdout.splitlines()
    camera = next(i for i, line in enumerate(lines) if line.startswith("  FAIL  camera"))
    assert "usb:7" in lines[camera]
    assert lines[camera + 1].strip().startswith("fix: plug the webcam in")
    assert "do what each 'fix:' says" in lines[-2]
    assert lines[-1].endswith("doctor --camera virtual --pins mock --display dummy")


def test_broken_settings_fail_and_the_rest_still_runs(data, tmp_path):
    (tmp_path / "config.toml").write_text("[buttons]\nnext = 99\n")
    checks = by_name(doctor.run_checks(camera="virtual", pins="mock"))
    assert checks["settings"].status == "fail"
    assert "buttons.next" in checks["settings"].detail
    assert checks["buttons"].status == "ok"       # defaults stand in


def test_two_things_on_one_pin(data):
    config = Config()
    config.outputs.buzzer = 17
    check = doctor.check_buttons(config, "mock")
    assert check.status == "fail"
    assert check.detail == "NEXT and buzzer on BCM 17"
    assert "own pin" in check.fix


def test_a_button_stuck_pressed_is_a_warning(data, monkeypatch):
    from companion.inputs import gpio

    class StuckNext(gpio.GpioButtons):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            self._devices[0].pin.drive_low()         # NEXT wired to GND for good

    monkeypatch.setattr(gpio, "GpioButtons", StuckNext)
    check = doctor.check_buttons(Config(), "mock")
    assert check.status == "warn"
    assert check.detail.startswith("NEXT read pressed")
    assert "GND" in check.fix


def test_mock_pins_leave_the_process_as_they_found_it(data):
    from gpiozero import Device
    before = Device.pin_factory
    assert doctor.check_buttons(Config(), "mock").status == "ok"
    assert Device.pin_factory is before


def test_data_directory_that_cannot_be_created(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("COMPANION_DATA", str(blocker / "data"))
    checks = doctor.check_data()
    assert [(c.name, c.status) for c in checks] == [("data directory", "fail")]
    assert "sudo -u companion companion doctor" in checks[0].fix


def test_full_disk(data, monkeypatch):
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: Usage(8_000_000_000, 7_950_000_000, 50_000_000))
    check = by_name(doctor.check_data())["disk space"]
    assert check.status == "fail"
    assert check.detail.startswith("50 MB free of 8,000 MB")
    assert "journalctl --vacuum-size" in check.fix
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: Usage(8_000_000_000, 7_700_000_000, 300_000_000))
    assert by_name(doctor.check_data())["disk space"].status == "warn"


def test_game_database(tmp_path):
    path = tmp_path / "games.sqlite"
    assert doctor.check_database(path).status == "ok"          # none yet
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, line TEXT)")
    con.commit()
    con.close()
    good = doctor.check_database(path)
    assert (good.status, good.detail) == ("ok", f"{path}: opens, 1 tables, intact")
    path.write_bytes(b"this is not a database" * 100)
    bad = doctor.check_database(path)
    assert bad.status == "fail"
    assert f"mv {path} {path}.broken" in bad.fix


def test_pyzbar_missing_is_a_warning_with_the_apt_package(monkeypatch):
    real_import = __import__

    def no_zbar(name, *args, **kwargs):
        if name.startswith("pyzbar"):
            raise ImportError("Unable to find zbar shared library")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr("builtins.__import__", no_zbar)
    checks = by_name(doctor.check_decoders())
    assert checks["decoder"].status == "ok"
    assert checks["fallback decoder"].status == "warn"
    assert checks["fallback decoder"].fix == "sudo apt-get install libzbar0"


def test_sdl_drivers_are_read_from_the_loaded_library():
    import pygame
    pygame.display.init()
    drivers = doctor.sdl_video_drivers()
    assert drivers is not None and "dummy" in drivers


@pytest.mark.skipif(shutil.which("systemctl") is None, reason="no systemctl")
def test_service_running_is_false_here():
    assert doctor.service_running() is False
