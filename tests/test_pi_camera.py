"""The Pi camera path on a stand-in picamera2 (tests/fake_picamera2.py): the streams and buffers it
asks for, focus and flicker from the settings, a time limit on every capture, and a camera that
stops sending pictures: CameraLost, a reconnect, and the kiosk saying "Camera lost" meanwhile."""

import time

import fake_picamera2
import numpy as np
import pygame
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.camera import open_source
from companion.config import Config
from companion.errors import BadInput
from companion.vision import sources
from companion.vision.sources import CameraLost, PiCameraDevice, lores_size


@pytest.fixture
def world(monkeypatch):
    return fake_picamera2.install(monkeypatch)


def test_a_yuv420_main_stream_a_small_lores_stream_and_three_buffers(world):
    dev = PiCameraDevice(0, 4608, 2592)
    config = world.last.configured
    assert config["main"] == {"format": "YUV420", "size": (4608, 2592)}
    assert config["lores"] == {"format": "YUV420", "size": (384, 216)}    # 4608x2592 / 12
    assert 2 <= config["buffer_count"] <= 3
    assert world.last.started and dev.name == "picamera2:0 (imx708_wide)"
    frame = dev.grab()
    assert frame.shape == (2592, 4608) and frame.dtype == np.uint8          # the Y plane: the grey frame
    assert frame.small.shape == (216, 384) and frame.preview.shape == (216, 384, 3)
    assert int(frame[0, 0]) == int(frame.small[0, 0])
    assert world.last.capture_timeouts == [sources.CAPTURE_TIMEOUT_S]       # every capture has a time limit
    dev.close()
    assert world.last.stopped and world.last.closed


def test_the_grey_frame_leaves_out_the_strides_padding(world):
    frame = PiCameraDevice(0, 1920, 1080).grab()
    assert frame.shape == (1080, 1920) and frame.flags.c_contiguous
    assert frame.preview.shape == (270, 480, 3)                             # 1920x1080 / 4
    assert (frame == frame[0, 0]).all()                                     # no U, V or padding bytes in it


@given(st.integers(320, 9000), st.integers(240, 6000))
def test_the_lores_size_is_a_whole_fraction_of_the_main_size_when_there_is_one(width, height):
    w, h = lores_size(width, height)
    assert w <= sources.PREVIEW_WIDTH and w % 2 == 0 and h % 2 == 0 and 2 <= h <= height
    k = -(-width // sources.PREVIEW_WIDTH)
    whole = [n for n in range(k, k + 64) if width % n == 0 and height % n == 0 and (width // n) % 2 == 0
             and (height // n) % 2 == 0]
    if whole:
        assert (w, h) == (width // whole[0], height // whole[0])


@pytest.mark.parametrize("focus, af_mode, lens", [("auto", "Continuous", None), ("once", "Auto", None),
                                                   (36.0, "Manual", 100 / 36), (5.0, "Manual", 15.0)])
def test_focus_from_the_settings(world, focus, af_mode, lens):
    dev = PiCameraDevice(0, 1920, 1080, focus=focus)
    controls = world.last.configured["controls"]
    assert controls["AfMode"] == fake_picamera2.AfModeEnum[af_mode]
    assert controls.get("LensPosition") == (pytest.approx(lens) if lens else None)
    assert world.last.autofocus_cycles == (1 if focus == "once" else 0)
    assert any(s.startswith("focus: ") for s in dev.said)
    if focus == 5.0:                            # 20 dioptres is past the lens: its nearest, said so
        assert "the lens's limit 0-15" in " ".join(dev.said)


def test_a_failed_autofocus_cycle_is_said_and_the_camera_still_reads(world):
    world.autofocus_result = False
    dev = PiCameraDevice(0, 1920, 1080, focus="once")
    assert "the autofocus cycle at start failed" in dev.said
    assert dev.grab() is not None


def test_a_fixed_focus_camera_gets_no_focus_controls(world):
    world.controls = dict(fake_picamera2.FIXED_FOCUS_CONTROLS)
    dev = PiCameraDevice(0, 1920, 1080, focus="once")
    controls = world.last.configured["controls"]
    assert not [k for k in controls if k.startswith(("Af", "Lens"))] and world.last.autofocus_cycles == 0
    assert "fixed-focus camera (camera.focus = once has no effect)" in dev.said


@pytest.mark.parametrize("mains, period", [(50, 10000), (60, 8333), (0, None)])
def test_flicker_from_the_mains_frequency(world, mains, period):
    PiCameraDevice(0, 1920, 1080, mains_hz=mains)
    controls = world.last.configured["controls"]
    if period is None:
        assert "AeFlickerMode" not in controls and "AeFlickerPeriod" not in controls
    else:
        assert controls["AeFlickerMode"] == fake_picamera2.AeFlickerModeEnum.Manual
        assert controls["AeFlickerPeriod"] == period


def test_a_camera_without_flicker_control_is_left_alone(world):
    world.controls = {k: v for k, v in world.controls.items() if not k.startswith("AeFlicker")}
    dev = PiCameraDevice(0, 1920, 1080)
    assert "AeFlickerMode" not in world.last.configured["controls"]
    assert "flicker: this camera has no flicker control" in dev.said


def test_a_stalled_camera_is_lost_then_reconnected(world, monkeypatch):
    monkeypatch.setattr(sources, "CAPTURE_TIMEOUT_S", 0.2)
    world.frames_per_open = [2, None]
    clock = [100.0]
    src = open_source("picamera2", width=640, height=480, focus=30, mains_hz=60, clock=lambda: clock[0])
    assert src.read() is not None and src.read() is not None
    with pytest.raises(CameraLost, match=r"sent no picture for 0\.2 s"):
        src.read()                                  # the third capture never comes: a time limit, not a hang
    first = world.opened[0]
    assert first.flushed == 1 and first.stopped and first.closed and first.capture_timeouts == [0.2] * 3
    clock[0] += sources.FIRST_BACKOFF_S
    frame = src.read()
    assert frame is not None and src.reconnects == 1 and len(world.opened) == 2
    assert world.last.configured["controls"]["AeFlickerPeriod"] == 8333   # the settings survive a reconnect
    assert src.settings() and src.settings()[0].startswith("focus: fixed at 30 cm")


def test_the_focus_setting_is_checked(tmp_path):
    from companion.config import load_config
    path = tmp_path / "c.toml"
    for text, want in (('"auto"', "auto"), ('"Once"', "once"), ("36", 36.0), ('"36"', 36.0), ("40.5", 40.5)):
        path.write_text(f"[camera]\nfocus = {text}\n")
        assert load_config(path).camera.focus == want
    for text in ('"sharp"', "2", "true", "9000"):
        path.write_text(f"[camera]\nfocus = {text}\n")
        with pytest.raises(BadInput, match=r"camera\.focus: must be auto, once or the camera's distance"):
            load_config(path)
    path.write_text("[camera]\nmains_hz = 55\n")
    with pytest.raises(BadInput, match=r"camera\.mains_hz"):
        load_config(path)


def test_the_feeds_age_is_part_of_the_watchdogs_health():
    from companion import app
    from companion.ui.table_feed import TableFeed

    class Hung:
        """A camera call that never returns (a libcamera hang no time limit can end)."""
        def __init__(self):
            import threading
            self.release = threading.Event()

        def read(self):
            self.release.wait(30)
            return None

        def close(self):
            self.release.set()

    class K:
        table = None
    k = K()
    assert app.healthy(k)                        # no camera: the loop alone
    source = Hung()
    k.table = TableFeed(source, app.make_tracker, threaded=True)
    try:
        assert app.healthy(k)
        k.table._answered -= app.FEED_STALE_S    # as if it had hung that long
        assert not app.healthy(k)
    finally:
        k.table.close()


def _to_the_table(k):
    from companion.inputs.commands import NEXT, OK, Command

    def press(kind):
        k.stream.post(Command(kind))
        k.step()
    press(OK)                                   # attract -> picker
    press(OK)                                   # the first game
    for _ in range(12):
        if k.stack.top.name != "players" or k.stack.top.rows()[k.stack.top.focus][0] == "start":
            break
        press(NEXT)
    press(OK)
    assert k.stack.top.name == "table", k.screen_key()


def test_the_kiosk_says_camera_lost_and_goes_on_when_the_camera_is_back(world, tmp_path):
    from companion import app
    from companion.store.log import GameLog
    from companion.ui.kiosk import Kiosk
    from companion.ui.table_feed import TableFeed

    pygame.font.init()
    config = Config()
    config.camera.source = "picamera2"
    feed = TableFeed(open_source("picamera2", width=1920, height=1080), app.make_tracker, threaded=True)
    k = Kiosk(pygame.Surface((800, 480)), config, store=GameLog(tmp_path / "games.sqlite"), table=feed)
    try:
        k.stack.push("attract")
        k.step()
        _to_the_table(k)

        def wait_for(pred, seconds):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                k.step()
                if pred():
                    return True
                time.sleep(0.02)
            return False
        assert wait_for(lambda: k.stack.top.preview is not None, 10)
        world.last.stall_after = world.last.delivered   # from now on nothing: a stalled camera
        assert wait_for(lambda: k.screen_key() == "fault:camera", 10), k.screen_key()
        assert "Camera lost" in k.texts()
        assert any("sent no picture for" in t for t in k.texts())
        assert wait_for(lambda: k.stack.top.name == "table", 10), k.screen_key()   # reconnected, by itself
        assert len(world.opened) == 2 and world.opened[0].closed and world.last.delivered > 0
        assert set(world.opened[0].capture_timeouts) == {sources.CAPTURE_TIMEOUT_S}
        assert app.healthy(k)
    finally:
        feed.close()


def test_doctor_reports_what_the_camera_did_with_focus_and_flicker(world):
    from companion.config import CameraSettings
    from companion.doctor import OK, WARN, check_camera
    check = check_camera("picamera2", CameraSettings(focus=36, mains_hz=60, width=4608, height=2592))
    assert check.status == OK, check
    assert check.detail == ("picamera2: a 4608x2592 picture; focus: fixed at 36 cm (LensPosition 2.78 dioptres); "
                            "flicker: exposure in steps of 8.333 ms (60 Hz mains)")
    world.autofocus_result = False
    check = check_camera("picamera2", CameraSettings(focus="once"))
    assert check.status == WARN and "the autofocus cycle at start failed" in check.detail
    assert "camera.focus to the camera's height" in check.fix


def test_a_camera_without_memory_for_its_buffers_gets_the_memory_fix(world, monkeypatch):
    from companion.doctor import FAIL, check_camera

    def no_memory(self, config):
        raise RuntimeError("Failed to allocate buffers: Cannot allocate memory")
    monkeypatch.setattr(fake_picamera2.Picamera2, "configure", no_memory)
    check = check_camera("picamera2")
    assert check.status == FAIL and "Failed to allocate buffers" in check.detail
    assert "camera memory, CMA" in check.fix and "dtoverlay=vc4-kms-v3d,cma-512" in check.fix


def test_the_chroma_planes_come_out_of_the_buffer_as_the_virtual_table_makes_them(world):
    """A real I420 buffer, every row padded to its stride, of a colour picture (half the picture's
    height odd: the U plane ends mid-row): the grey frame is its Y plane, ``chroma`` its U and V
    planes, no padding byte in either; the virtual table's Pi-like frames are the same pixels."""
    import cv2

    from companion.sim.virtual_table import camera_frame
    w, h = 1280, 722
    rng = np.random.default_rng(1)
    world.picture = cv2.resize(rng.integers(0, 256, (23, 41, 3), dtype=np.uint8), (w, h))
    frame = PiCameraDevice(0, w, h).grab()
    i420 = cv2.cvtColor(world.picture, cv2.COLOR_BGR2YUV_I420)
    assert frame.shape == (h, w) and (frame == i420[:h]).all()
    assert frame.chroma.shape == (2, h // 2, w // 2) and frame.chroma.flags.c_contiguous
    assert (frame.chroma.reshape(-1) == i420.reshape(-1)[w * h:]).all()
    assert frame.preview.shape[2] == 3 and frame.small.shape == frame.preview.shape[:2]
    same = camera_frame(world.picture)
    assert (same == frame).all() and (same.chroma == frame.chroma).all()
    world.picture = None
    flat = PiCameraDevice(0, 640, 480).grab()
    assert (flat.chroma[0] == fake_picamera2.FLAT_U).all() and (flat.chroma[1] == fake_picamera2.FLAT_V).all()


def test_pale_cards_on_pale_wood_are_outlined_from_the_pi_cameras_frames(world):
    """Enrolment's outlines from the Pi camera's grey frame and its chroma: every drawn card on the
    virtual table's wood is found, where the grey alone misses some (their pale edges on pale wood)."""
    from companion import enrol_cli
    from companion.cards.decks import get_deck
    from companion.vision.outlines import outlines
    table, lay, _shape = enrol_cli._virtual_hands(get_deck("DEMO"))
    lay([], "title")
    world.picture = table.picture()
    dev = PiCameraDevice(0, table.width, table.height)
    bare = dev.grab()
    lay(list(range(1, 7)), "title")
    world.picture = table.picture()
    frame = dev.grab()
    cards = [b for b in outlines(frame, bare) if b.problem is None]
    grey = [b for b in outlines(np.asarray(frame), np.asarray(bare)) if b.problem is None]
    assert len(cards) == 6 and len(grey) < 6
