"""``companion doctor``: is this machine ready to be the kiosk? Checks the settings file, the camera,
the QR decoders, the display, the GPIO buttons and lights, the data directory, the free disk space and
the game database, and for every problem says what to do about it.

Exit 0 when nothing failed (warnings allowed), 3 when a check failed (the machine is not ready: 1 stays
a bug's, 2 bad input's, as for every command). On the Pi run it as the service user with the service
stopped, so it sees what the kiosk will see:

    sudo systemctl stop companion-kiosk
    sudo -u companion companion doctor
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from companion.paths import command
from companion.store.log import MIN_FREE_MB
from companion.words import counted

OK, WARN, FAIL = "ok", "warn", "fail"
SERVICE = "companion-kiosk.service"
NOT_READY = 3                # the exit status when a check failed
HARDWARE = ("camera", "display", "buttons")
WITHOUT_HARDWARE = "--camera virtual --pins mock --display dummy"
LOW_FREE_MB = 500
CAMERA_TIMEOUT_S = 20
NO_SCREEN_DRIVERS = ("dummy", "offscreen")
STOP_SERVICE = f"the kiosk service is running and holds it: sudo systemctl stop {SERVICE}, run doctor again, " \
               f"then sudo systemctl start {SERVICE}"


@dataclass
class Check:
    name: str
    status: str
    detail: str
    fix: str = ""


def add_arguments(parser) -> None:
    parser.epilog = (f"Exit status: 0 when every check passed (warnings allowed), {NOT_READY} when one failed "
                     f"(1: a bug, 2: bad input). Without the kiosk's hardware (a laptop): {WITHOUT_HARDWARE}.")
    parser.add_argument("--camera", metavar="SOURCE",
                        help="camera to check: picamera2, usb:N, virtual, files:FOLDER, auto "
                             "(default: camera.source of the settings file)")
    parser.add_argument("--pins", choices=("auto", "mock"), default="auto",
                        help="GPIO pins: auto = the Pi's (gpiozero picks lgpio), mock = simulated pins")
    parser.add_argument("--display", metavar="DRIVER",
                        help="SDL video driver to check: kmsdrm (the Pi kiosk), x11, wayland, dummy "
                             "(default: $SDL_VIDEODRIVER, else SDL's own choice)")
    parser.add_argument("--json", action="store_true", help="one JSON document: {ok, checks: [...]}")


def run(args) -> int:
    checks = run_checks(camera=args.camera, pins=args.pins, display=args.display)
    ok = not any(c.status == FAIL for c in checks)
    if args.json:
        print(json.dumps({"ok": ok, "checks": [asdict(c) for c in checks]}, ensure_ascii=False, indent=2))
    else:
        print(report(checks))
    return 0 if ok else NOT_READY


def run_checks(*, camera: str | None = None, pins: str = "auto", display: str | None = None) -> list[Check]:
    from companion.config import Config, load_config
    from companion.errors import BadInput
    from companion.paths import config_file

    checks = []
    try:
        config = load_config()
        where = config_file()
        checks.append(Check("settings", OK, f"{where}" if where.exists() else f"{where} (not there: defaults)"))
    except BadInput as e:
        config = Config()
        checks.append(Check("settings", FAIL, str(e),
                            f"correct that line of {config_file()} (every key and its default: pi/config.toml); "
                            "the other checks below use the defaults"))
    checks.append(check_camera(camera or config.camera.source, config.camera))
    checks.extend(check_decoders())
    checks.append(check_display(display))
    checks.append(check_buttons(config, pins))
    checks.extend(check_data())
    return checks


def report(checks: list[Check]) -> str:
    from companion.paths import config_file
    lines = [f"Table Companion doctor (settings: {config_file()})", ""]
    width = max(len(c.name) for c in checks)
    for c in checks:
        mark = {OK: "ok  ", WARN: "WARN", FAIL: "FAIL"}[c.status]
        lines.append(f"  {mark}  {c.name:<{width}}  {c.detail}")
        if c.fix:
            lines.extend(textwrap.wrap(c.fix, 100, initial_indent=" " * (width + 10) + "fix: ",
                                       subsequent_indent=" " * (width + 15)))
    failed = sum(c.status == FAIL for c in checks)
    warned = sum(c.status == WARN for c in checks)
    lines.append("")
    if failed:
        me = command()
        lines.append(f"{failed} failed, {_warnings(warned)}: do what each 'fix:' says and run {me} doctor again.")
        if any(c.status == FAIL and c.name in HARDWARE for c in checks):
            lines.append(f"Without the kiosk's camera, screen and buttons (a laptop), check the rest with: "
                         f"{me} doctor {WITHOUT_HARDWARE}")
    else:
        lines.append(f"Ready: every check passed ({_warnings(warned)}).")
    return "\n".join(lines)


def _warnings(n: int) -> str:
    return "no warnings" if n == 0 else counted(n, "warning")


# -- camera ------------------------------------------------------------------------------------------

def service_running() -> bool:
    """Is the kiosk service running (and so holding the camera, the screen and the pins)?"""
    if not Path("/run/systemd/system").is_dir() or shutil.which("systemctl") is None:
        return False
    try:
        return subprocess.run(["systemctl", "is-active", "--quiet", SERVICE], timeout=5).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def camera_fix(source: str, error: str) -> str:
    if service_running():
        return "The camera is busy: " + STOP_SERVICE
    kind = source.split(":", 1)[0]
    low = error.lower()
    if "permission" in low:
        return "this user may not open the camera: add it to the video group (sudo usermod -aG video $USER, log in " \
               "again); the install script puts the companion user there"
    if kind == "picamera2" or kind == "auto":
        if "numpy" in low or "dtype size" in low:
            return "the system's simplejpeg was built for numpy 1: " \
                   "/opt/companion/venv/bin/pip install simplejpeg==1.8.2 " \
                   "(pi/install.sh does this)"
        if "alloc" in low or "cannot allocate memory" in low:
            return "the camera could not get its buffers (camera memory, CMA): choose a smaller picture ([camera] " \
                   f"width = 2304, height = 1296: {command()} plan-camera --capture 2304x1296 shows the stickers it " \
                   "needs), or on a Pi 4 give the camera more: dtoverlay=vc4-kms-v3d,cma-512 in " \
                   "/boot/firmware/config.txt, then reboot"
        if "no module named" in low:
            return "picamera2 is missing for this Python: sudo ./pi/install.sh installs python3-picamera2 and a venv " \
                   "that sees it (on a laptop use --camera usb:0 or virtual)"
        return "power off, check the camera ribbon is pushed fully home at both ends (contacts facing the right way, " \
               "latches closed), power on; `rpicam-hello --list-cameras` must list the camera; " \
               "/boot/firmware/config.txt needs camera_auto_detect=1 (the default)"
    if kind == "usb":
        return "plug the webcam in; `ls /dev/video*` must list it; if several are listed try usb:1, usb:2 " \
               "(camera.source in the settings file)"
    if kind == "files":
        return "the folder must exist and hold .png or .jpg pictures of the table"
    if kind == "virtual":
        return "the virtual table is part of the program: reinstall it (sudo ./pi/install.sh, or ./dev.sh on a laptop)"
    return "camera.source must be picamera2, usb:N, virtual, files:FOLDER or auto"


def check_camera(source: str, settings=None) -> Check:
    """Open the configured source the way the kiosk does (``settings``: the [camera] section: size,
    focus, mains frequency) and wait for one picture."""
    from companion.config import CameraSettings
    settings = settings or CameraSettings()
    result: list[Check] = []

    def attempt():
        try:
            result.append(_read_one_frame(source, settings))
        except Exception as e:  # any failure of any camera library is a failed check, said in words
            message = str(e) or type(e).__name__
            from companion.vision.sources import PICAMERA2_ADVICE
            said = message.replace(f": {PICAMERA2_ADVICE}", "")     # the fix below says it, once
            result.append(Check("camera", FAIL, f"{source}: {said}",
                                camera_fix(source, f"{type(e).__name__} {message}")))

    worker = threading.Thread(target=attempt, daemon=True, name="doctor-camera")
    worker.start()
    worker.join(CAMERA_TIMEOUT_S)
    if not result:
        return Check("camera", FAIL, f"{source}: no picture within {CAMERA_TIMEOUT_S} s", camera_fix(source, "timeout"))
    return result[0]


def _read_one_frame(source: str, settings) -> Check:
    from companion.camera import open_source

    cam = open_source(source, width=settings.width, height=settings.height, focus=settings.focus,
                      mains_hz=settings.mains_hz)
    try:
        frame, deadline = None, time.monotonic() + 10
        while frame is None and time.monotonic() < deadline:
            frame = cam.read()
            if frame is None:
                time.sleep(0.05)
        said = cam.settings() if hasattr(cam, "settings") else []
    finally:
        close = getattr(cam, "close", None)
        if close:
            close()
    if frame is None:
        return Check("camera", FAIL, f"{source}: opened, but no picture came in 10 s", camera_fix(source, "no frame"))
    h, w = frame.shape[:2]
    brightness = float(frame.mean())
    setup = "".join(f"; {s}" for s in said)      # what the Pi camera did with focus and flicker
    if brightness < 8:
        return Check("camera", WARN, f"{source}: {w}x{h}, but the picture is black (mean {brightness:.0f}/255){setup}",
                     "take the lens cap off, light the table; the camera must look down at the play area")
    if any("failed" in s for s in said):
        return Check("camera", WARN, f"{source}: a {w}x{h} picture{setup}",
                     "the lens may not be sharp: set camera.focus to the camera's height above the table in cm "
                     f"({command()} plan-camera --height-cm CM prints it), or to auto")
    return Check("camera", OK, f"{source}: a {w}x{h} picture{setup}")


# -- decoders ----------------------------------------------------------------------------------------

def test_sticker():
    """A generated sticker (QR of a card code), as a grey image with a quiet zone."""
    import numpy as np
    import segno
    rows = segno.make_qr("TC:DEMO:001", error="m").matrix_iter(scale=4, border=4)
    return np.array([[0 if dark else 255 for dark in row] for row in rows], dtype=np.uint8)


def check_decoders() -> list[Check]:
    image = test_sticker()
    return [
        _decoder_check("decoder", FAIL, _zxing_read, image, short="zxing-cpp",
                       misread_fix="reinstall the pinned zxing-cpp (sudo ./pi/install.sh, or ./dev.sh on a laptop)",
                       missing="zxing-cpp is not installed ({})",
                       missing_fix="install the program's dependencies: sudo ./pi/install.sh "
                                   "(or ./dev.sh on a laptop)"),
        _decoder_check("fallback decoder", WARN, _pyzbar_read, image, short="pyzbar",
                       misread_fix="reinstall libzbar0: sudo apt-get install --reinstall libzbar0",
                       missing="pyzbar cannot run ({}); zxing-cpp reads alone",
                       missing_fix="sudo apt-get install libzbar0"),
    ]


def _zxing_read(image) -> tuple[list[str], str]:
    """What zxing-cpp reads in ``image``, and the reader with its version."""
    import zxingcpp
    version = getattr(zxingcpp, "__version__", "")
    return [r.text for r in zxingcpp.read_barcodes(image)], f"zxing-cpp {version}".rstrip()


def _pyzbar_read(image) -> tuple[list[str], str]:
    from pyzbar import pyzbar
    return [d.data.decode() for d in pyzbar.decode(image)], "pyzbar with libzbar"


def _decoder_check(name: str, fault: str, read, image, short: str, misread_fix: str, missing: str,
                   missing_fix: str) -> Check:
    """A decoder passes when ``read`` (which imports it) gives back the test sticker's code; a misread or
    a failed import is ``fault``. ``short`` names the decoder in a misread, ``missing`` ({} for the
    import error) says what a failed import means."""
    try:
        texts, reader = read(image)
    except ImportError as e:
        return Check(name, fault, missing.format(e), missing_fix)
    if texts != ["TC:DEMO:001"]:
        return Check(name, fault, f"{short} read {texts} from a test sticker of TC:DEMO:001", misread_fix)
    return Check(name, OK, f"{reader} reads a test sticker")


# -- display -----------------------------------------------------------------------------------------

def sdl_video_drivers() -> list[str] | None:
    """The video drivers compiled into the SDL library pygame loaded (None if it cannot be found)."""
    import ctypes
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    paths = {line.split()[-1] for line in maps.splitlines() if "libSDL2-2" in line and line.split()[-1].startswith("/")}
    if not paths:
        return None
    try:
        sdl = ctypes.CDLL(sorted(paths)[0])
        sdl.SDL_GetVideoDriver.restype = ctypes.c_char_p
        return [sdl.SDL_GetVideoDriver(i).decode().lower() for i in range(sdl.SDL_GetNumVideoDrivers())]
    except (OSError, AttributeError):
        return None


def check_display(driver: str | None) -> Check:
    requested = driver or os.environ.get("SDL_VIDEODRIVER") or None
    if driver:
        os.environ["SDL_VIDEODRIVER"] = driver
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    drivers = sdl_video_drivers()
    no_kms = drivers is not None and "kmsdrm" not in drivers and sys.platform.startswith("linux")
    rebuild = ("pygame's SDL has no KMSDRM driver, so it cannot draw without a desktop (a PyPI wheel): on the Pi "
               "sudo ./pi/install.sh rebuilds pygame against the system's SDL2")
    try:
        pygame.display.init()
    except pygame.error as e:
        if requested and requested.lower() == "kmsdrm" and no_kms:
            fix = rebuild
        elif service_running():
            fix = "The screen is busy: " + STOP_SERVICE
        else:
            fix = ("connect the screen before power-on (DSI ribbon or HDMI); the user needs the video and render "
                   "groups; on a desktop run it from the desktop's terminal")
        return Check("display", FAIL, f"SDL video driver {requested or '(SDL’s choice)'}: {e}", fix)
    try:
        name = pygame.display.get_driver()
        sizes = pygame.display.get_desktop_sizes()
    finally:
        pygame.display.quit()
    size = f"{sizes[0][0]}x{sizes[0][1]}" if sizes else "no size"
    if name in NO_SCREEN_DRIVERS:
        if requested:
            return Check("display", OK, f"SDL driver '{name}' as asked: draws off screen (no display checked)")
        desktop = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        fix = ("connect a screen (on the Pi: the DSI ribbon or HDMI, before power-on)"
               + ("; " + rebuild if no_kms and not desktop else "")
               + "; to check the rest without a screen: --display dummy")
        return Check("display", FAIL, f"no screen: SDL fell back to its '{name}' driver", fix)
    if sizes and (sizes[0][0] < 800 or sizes[0][1] < 480):
        return Check("display", WARN, f"{name}, {size}: smaller than the 800x480 the kiosk is laid out for",
                     "use the official 7\" display (800x480) or a larger screen")
    return Check("display", OK, f"{name}, {size}")


# -- buttons, LEDs, buzzer ---------------------------------------------------------------------------

def check_buttons(config, pins: str = "auto") -> Check:
    from gpiozero import Device

    from companion.inputs.commands import CommandStream
    from companion.inputs.gpio import GpioButtons, Signals

    b, o = config.buttons, config.outputs
    used = {"NEXT": b.next, "UNDO": b.undo, "OK": b.ok, "MENU": b.menu,
            "green LED": o.led_green, "red LED": o.led_red, "buzzer": o.buzzer}
    by_pin: dict[int, list[str]] = {}
    for name, pin in used.items():
        by_pin.setdefault(pin, []).append(name)
    clash = [f"{' and '.join(names)} on BCM {pin}" for pin, names in by_pin.items() if len(names) > 1]
    if clash:
        return Check("buttons", FAIL, "; ".join(clash),
                     "give each button and light its own pin in [buttons] and [outputs] (hardware/wiring.md)")
    previous = Device.pin_factory
    if pins == "mock":
        from gpiozero.pins.mock import MockFactory
        Device.pin_factory = MockFactory()
    opened: list = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # gpiozero warns on each pin library it falls back from
            buttons = GpioButtons(b, CommandStream())
            opened.append(buttons)
            signals = Signals(o)
            opened.append(signals)
        factory = type(Device.pin_factory).__name__.replace("Factory", "")
        named = zip(("NEXT", "UNDO", "OK", "MENU"), buttons._devices, strict=True)
        stuck = [name for name, dev in named if dev.is_pressed]
        if stuck:
            return Check("buttons", WARN, f"{', '.join(stuck)} read pressed while nobody presses them ({factory})",
                         "each button goes between its pin and GND on the normally-open contact, never to 3.3 V "
                         "(hardware/wiring.md)")
        detail = (f"NEXT {b.next}, UNDO {b.undo}, OK {b.ok}, MENU {b.menu}, LEDs {o.led_green}/{o.led_red}, "
                  f"buzzer {o.buzzer} (BCM) on {factory} pins")
        if pins == "mock":
            return Check("buttons", OK, detail + ": simulated, no hardware checked")
        for device in (signals.green, signals.red, signals.buzzer):
            device.on()
        time.sleep(0.3)
        for device in (signals.green, signals.red, signals.buzzer):
            device.off()
        return Check("buttons", OK, detail + "; both LEDs lit and the buzzer beeped (if not: hardware/wiring.md)")
    except Exception as e:  # gpiozero raises several kinds; each means the kiosk would have no buttons
        return Check("buttons", FAIL, f"{type(e).__name__}: {e}", _gpio_fix(e))
    finally:
        for device in reversed(opened):
            device.close()
        if pins == "mock":
            Device.pin_factory.close()
            Device.pin_factory = previous


def _gpio_fix(e: Exception) -> str:
    name, text = type(e).__name__, str(e).lower()
    if service_running():
        return "The pins are busy: " + STOP_SERVICE
    if "permission" in text or isinstance(e, PermissionError):
        return "this user may not use the GPIO pins: sudo usermod -aG gpio $USER and log in again"
    if "inuse" in name.lower() or "in use" in text or "busy" in text:
        return "another program uses these pins: stop it, or choose other pins in [buttons]/[outputs]"
    if name == "BadPinFactory":
        return ("no GPIO pins here: on a Raspberry Pi the lgpio library comes with sudo ./pi/install.sh; "
                "on a laptop the keyboard stands in for the buttons (check with --pins mock)")
    return "check the wiring and pin numbers against hardware/wiring.md"


# -- data directory, disk, game database ---------------------------------------------------------------

def check_data(min_free_mb: int = MIN_FREE_MB) -> list[Check]:
    from companion.paths import data_dir
    try:
        data = data_dir()
    except OSError as e:
        where = os.environ.get("COMPANION_DATA", "the data directory")
        return [Check("data directory", FAIL, f"{where}: cannot create it: {e.strerror or e}", _data_fix(e))]
    out = []
    probe = data / f".doctor-{os.getpid()}"
    try:
        with open(probe, "wb") as f:
            f.write(b"companion doctor\n")
            f.flush()
            os.fsync(f.fileno())
        probe.unlink()
        out.append(Check("data directory", OK, f"{data}: writable"))
    except OSError as e:
        out.append(Check("data directory", FAIL, f"{data}: cannot write: {e.strerror or e}", _data_fix(e)))
    usage = shutil.disk_usage(data)
    free_mb = usage.free // 1_000_000
    text = f"{free_mb:,} MB free of {usage.total // 1_000_000:,} MB on {data}"
    free_fix = ("free space: sudo apt-get clean; sudo journalctl --vacuum-size=50M; remove old screenshots or "
                "files from the data directory; or use a larger SD card")
    if free_mb < min_free_mb:
        out.append(Check("disk space", FAIL, text + f" (needs {min_free_mb} MB)", free_fix))
    elif free_mb < LOW_FREE_MB:
        out.append(Check("disk space", WARN, text + " (low)", free_fix))
    else:
        out.append(Check("disk space", OK, text))
    out.append(check_database(data / "games.sqlite"))
    return out


def _data_fix(e: OSError) -> str:
    if getattr(e, "errno", None) == 30:     # EROFS
        return "the file system is read-only: with the overlay root, /var/lib/companion must be the data " \
               "partition (docs/pi.md, 'Read-only root')"
    return "run doctor as the kiosk's user (sudo -u companion companion doctor); if that fails too: " \
           "sudo chown -R companion:companion /var/lib/companion"


def check_database(path: Path) -> Check:
    if not path.exists():
        return Check("game database", OK, f"{path.name}: none yet (the kiosk creates it with the first game)")
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            result = con.execute("PRAGMA quick_check").fetchone()[0]
            tables = con.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error as e:
        result, tables = str(e), 0
    if result != "ok":
        return Check("game database", FAIL, f"{path}: {result}",
                     f"the kiosk cannot use it: stop the kiosk, move it aside (mv {path} {path}.broken) and start "
                     "the kiosk again; it begins a new one (games in the broken file are lost to the kiosk)")
    return Check("game database", OK, f"{path}: opens, {tables} tables, intact")
