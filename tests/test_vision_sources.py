"""Camera sources: every kind of camera.source, and a camera that goes away and comes back."""

from itertools import pairwise

import cv2
import numpy as np
import pytest

from companion.camera import open_source
from companion.errors import BadInput
from companion.vision import sources
from companion.vision.sources import CameraLost, FileSource, ReconnectingSource, UsbDevice


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class FlakyCamera:
    """A camera on a cable: ``plugged`` says whether it is there; pictures are numbered."""

    def __init__(self):
        self.plugged = True
        self.opens = 0
        self.closed = 0
        self.n = 0

    def open(self):
        if not self.plugged:
            raise OSError("/dev/video0 does not exist")
        self.opens += 1
        return self

    def grab(self):
        if not self.plugged:
            raise OSError("stopped sending pictures")
        self.n += 1
        return np.full((4, 6, 3), self.n, np.uint8)

    def close(self):
        self.closed += 1


def test_a_camera_that_disappears_is_lost_then_found_again():
    cam, clock = FlakyCamera(), Clock()
    src = ReconnectingSource("usb:0", cam.open, clock=clock)
    assert src.read()[0, 0, 0] == 1
    cam.plugged = False
    with pytest.raises(CameraLost, match="stopped sending pictures"):
        src.read()
    assert cam.closed == 1 and src.lost
    with pytest.raises(CameraLost, match="stopped sending pictures"):   # too early to try again
        src.read()
    assert cam.opens == 1
    cam.plugged = True
    with pytest.raises(CameraLost):
        src.read()
    assert cam.opens == 1
    clock.t += sources.FIRST_BACKOFF_S
    frame = src.read()                                          # back: frames again, nothing fatal
    assert frame is not None and cam.opens == 2 and src.lost is None and src.reconnects == 1


def test_the_wait_between_attempts_grows_and_is_capped():
    cam, clock = FlakyCamera(), Clock()
    cam.plugged = False
    src = ReconnectingSource("usb:0", cam.open, clock=clock)
    attempts = []
    real_open = cam.open

    def counting():
        attempts.append(clock.t)
        return real_open()
    src._opener = counting
    for _ in range(400):
        clock.t += 0.25
        with pytest.raises(CameraLost):
            src.read()
    gaps = np.diff(attempts)
    assert gaps[0] <= 1.0 and gaps[-1] == pytest.approx(sources.MAX_BACKOFF_S, abs=0.25)
    assert all(b >= a - 1e-9 for a, b in pairwise(gaps))
    cam.plugged = True
    clock.t += sources.MAX_BACKOFF_S
    assert src.read() is not None


def test_a_camera_absent_at_start_is_not_fatal():
    cam, clock = FlakyCamera(), Clock()
    cam.plugged = False
    src = ReconnectingSource("usb:0", cam.open, clock=clock)
    with pytest.raises(CameraLost):
        src.read()
    assert "no picture" in src.describe()
    cam.plugged = True
    clock.t += 10
    assert src.read() is not None


class FakeCapture:
    def __init__(self, frames):
        self.frames = list(frames)
        self.released = False

    def isOpened(self):
        return True

    def set(self, *a):
        return True

    def read(self):
        if not self.frames:
            return False, None
        return True, self.frames.pop(0)

    def release(self):
        self.released = True


def test_usb_device_through_an_injected_capture():
    captures = []

    def factory(i):
        captures.append(FakeCapture([np.zeros((2, 2, 3), np.uint8)]))
        return captures[-1]
    clock = Clock()
    src = ReconnectingSource("usb:3", lambda: UsbDevice(3, 640, 480, capture_factory=factory), clock=clock)
    assert src.read().shape == (2, 2, 3)
    with pytest.raises(CameraLost, match="/dev/video3 stopped sending pictures"):
        src.read()
    assert captures[0].released
    clock.t += 1
    assert src.read() is not None and len(captures) == 2


def test_usb_that_is_not_there_says_so():
    src = open_source("usb:7")
    with pytest.raises(CameraLost, match="/dev/video7"):
        src.read()
    src.close()


def test_picamera2_missing_here_is_a_clear_camera_lost():
    try:
        import picamera2  # noqa: F401
        pytest.skip("picamera2 is installed here")
    except ImportError:
        pass
    src = open_source("picamera2")
    with pytest.raises(CameraLost) as e:
        src.read()
    assert "picamera2 is not installed" in str(e.value) and "No module named" in str(e.value)


def test_auto_without_any_camera(monkeypatch):
    monkeypatch.setattr(sources, "video_devices", lambda: [])
    monkeypatch.setattr(sources, "PiCameraDevice", lambda *a, **k: (_ for _ in ()).throw(OSError("no Pi camera")))
    with pytest.raises(CameraLost, match="no camera found; Pi camera: no Pi camera; no /dev/video"):
        open_source("auto").read()


def test_auto_takes_the_first_video_device_that_gives_a_picture(monkeypatch):
    monkeypatch.setattr(sources, "video_devices", lambda: [0, 1, 19])
    monkeypatch.setattr(sources, "PiCameraDevice", lambda *a, **k: (_ for _ in ()).throw(OSError("no Pi camera")))

    class Dev:
        def __init__(self, n, w, h):
            if n == 0:
                raise OSError("not a camera")
            self.n = n

        def grab(self):
            if self.n == 1:
                raise OSError("no picture")
            return np.full((2, 2, 3), self.n, np.uint8)

        def close(self):
            pass
    monkeypatch.setattr(sources, "UsbDevice", Dev)
    assert open_source("auto").read()[0, 0, 0] == 19


def _write(path, value):
    cv2.imwrite(str(path), np.full((8, 10, 3), value, np.uint8))


def test_files_folder_loops_and_holds_each_picture(tmp_path):
    for i, v in enumerate((10, 20, 30)):
        _write(tmp_path / f"f{i}.png", v)
    (tmp_path / "notes.txt").write_text("not a picture")
    src = open_source(f"files:{tmp_path}")
    values = [int(src.read()[0, 0, 0]) for _ in range(3 * sources.FILES_HOLD + 1)]
    h = sources.FILES_HOLD
    assert values == [10] * h + [20] * h + [30] * h + [10]
    assert src.describe().endswith("(3 pictures)")


def test_files_single_file_and_glob(tmp_path):
    _write(tmp_path / "a.jpg", 50)
    _write(tmp_path / "b.png", 60)
    assert open_source(f"files:{tmp_path / 'a.jpg'}").read().shape == (8, 10, 3)
    src = FileSource(str(tmp_path / "*.png"), hold=1)
    assert [int(src.read()[0, 0, 0]) for _ in range(2)] == [60, 60]


def test_a_picture_that_vanished_is_camera_lost(tmp_path):
    _write(tmp_path / "a.png", 1)
    src = FileSource(str(tmp_path), hold=1)
    (tmp_path / "a.png").unlink()
    with pytest.raises(CameraLost, match="a.png"):
        src.read()


@pytest.mark.parametrize("spec, words", [
    ("webcam", "is not a camera"), ("usb:x", "camera number"), ("picamera2:-1", "camera number"),
    ("files:", "needs a path"), ("files:/nonexistent/x", "no such file"),
    ("files:/nonexistent/*.png", "no file matches"),
    ("auto:3", "is not a camera"), ("", "is not a camera")])
def test_bad_settings_are_bad_input(spec, words):
    with pytest.raises(BadInput) as e:
        open_source(spec)
    assert words in str(e.value)
    assert e.value.where.startswith(("camera.source", "files:"))


def test_empty_folder(tmp_path):
    with pytest.raises(BadInput, match="holds no pictures"):
        open_source(f"files:{tmp_path}")


def test_virtual_source_gives_frames():
    src = open_source("virtual")
    frame = src.read()
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
    assert "virtual" in src.describe()
