"""Where the frames come from: the Pi camera, a USB webcam, pictures on disk (the virtual table is
companion/sim's). ``companion.camera.open_source(spec)`` takes the ``camera.source`` setting:

- ``picamera2[:N]``: the Raspberry Pi camera through picamera2 (OpenCV cannot open it);
- ``usb[:N]``: a webcam through ``cv2.VideoCapture`` (``/dev/videoN``);
- ``files:PATH``: an image file, a folder of images or a glob, played in a loop;
- ``virtual``: the virtual table (a rendered scene of cards with stickers);
- ``auto``: the Pi camera if there is one, else the first video device that gives a picture.

Every source has ``read() -> frame | None`` (BGR; the Pi camera's is a grey ``CameraFrame`` that carries
its colour as chroma planes), ``close()`` and ``describe()``. A physical camera
that cannot be opened or stops sending pictures raises ``CameraLost`` from ``read()``; later reads
try to open it again, waiting longer after each failure (up to ``MAX_BACKOFF_S``), and return
frames as soon as it is back. So a pulled cable is a pause, never the end of the kiosk: the kiosk
shows the camera screen meanwhile. A setting that can never work (an unknown kind, a path with no
pictures) is bad input, raised at once.
"""

from __future__ import annotations

import glob as globlib
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from companion.errors import BadInput
from companion.words import counted

FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 5.0
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
FILES_HOLD = 3          # each picture is read this many times, so the tracker sees a still table
class CameraLost(Exception):
    """The camera gives no picture now (unplugged, not there, busy). It may come back."""


class Device(Protocol):
    """One open camera. ``grab`` returns a BGR frame or raises (OSError, RuntimeError...) when the
    camera stopped; the reconnecting source turns that into CameraLost."""

    def grab(self) -> np.ndarray: ...
    def close(self) -> None: ...


# -- reconnection ------------------------------------------------------------------------------------

class ReconnectingSource:
    """A physical camera behind an ``opener`` (-> Device, or raises why it cannot be opened)."""

    def __init__(self, spec: str, opener: Callable[[], Device], *, clock: Callable[[], float] = time.monotonic,
                 open_now: bool = True):
        self.spec = spec
        self._opener = opener
        self._clock = clock
        self._device: Device | None = None
        self._problem: str | None = None
        self._backoff = FIRST_BACKOFF_S
        self._next_try = 0.0
        self.reconnects = 0             # how often the camera came back (for the log and tests)
        if open_now:
            self._try_open()

    def _try_open(self) -> bool:
        try:
            self._device = self._opener()
        except Exception as e:  # each camera library fails in its own way; all mean "not there now"
            self._lost(_reason(e))
            return False
        if self._problem is not None:
            self.reconnects += 1
        self._problem = None
        self._backoff = FIRST_BACKOFF_S
        return True

    def _lost(self, reason: str) -> None:
        self._problem = reason
        self._next_try = self._clock() + self._backoff
        self._backoff = min(MAX_BACKOFF_S, self._backoff * 2)

    def read(self) -> np.ndarray | None:
        if self._device is None and (self._clock() < self._next_try or not self._try_open()):
            raise CameraLost(self._problem or "the camera is not open")
        device = self._device
        assert device is not None, "opened above"
        try:
            frame = device.grab()
        except Exception as e:  # as above: the camera went away mid-stream
            self._drop()
            self._lost(_reason(e))
            raise CameraLost(self._problem) from None
        return frame

    def _drop(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            try:
                device.close()
            except Exception:  # closing a camera that is gone may fail too; it is gone either way
                pass

    @property
    def lost(self) -> str | None:
        """Why the camera gives no picture now, or None while it does."""
        return self._problem

    def close(self) -> None:
        self._drop()

    def describe(self) -> str:
        what = getattr(self._device, "name", None) or self.spec
        return f"{what} (no picture: {self._problem})" if self._problem else what

    def settings(self) -> list[str]:
        """What the open camera did with the focus and flicker settings, in words (doctor shows it)."""
        return list(getattr(self._device, "said", []))


def _reason(e: BaseException) -> str:
    return str(e) or type(e).__name__


# -- USB webcams -------------------------------------------------------------------------------------

class UsbDevice:
    def __init__(self, index: int, width: int, height: int, capture_factory=None):
        import cv2
        self.index = index
        self.name = f"usb:{index} (/dev/video{index})"
        factory = capture_factory or (lambda i: cv2.VideoCapture(i, cv2.CAP_V4L2))
        if capture_factory is None and not Path(f"/dev/video{index}").exists():
            raise OSError(f"/dev/video{index} does not exist (no webcam plugged in as device {index})")
        self.cap = factory(index)
        if not self.cap.isOpened():
            self.cap.release()
            raise OSError(f"/dev/video{index} cannot be opened (busy, or not a camera)")
        if hasattr(self.cap, "set"):
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)

    def grab(self) -> np.ndarray:
        ok, frame = self.cap.read()
        if not ok or frame is None:
            raise OSError(f"/dev/video{self.index} stopped sending pictures (unplugged?)")
        return frame

    def close(self) -> None:
        self.cap.release()


def video_devices() -> list[int]:
    """The N of every /dev/videoN, in order."""
    found = []
    for p in Path("/dev").glob("video*"):
        m = re.fullmatch(r"video(\d+)", p.name)
        if m:
            found.append(int(m.group(1)))
    return sorted(found)


# -- the Raspberry Pi camera -------------------------------------------------------------------------

CAPTURE_TIMEOUT_S = 2.0     # a frame comes every 70 ms at 12 MP: 2 s without one is a stalled camera
AUTOFOCUS_TIMEOUT_S = 5.0   # focus = once: an autofocus cycle that has not ended by then is given up
BUFFERS = 3                 # one being filled, one waiting, one being copied out; each 12 MP buffer is
                            # ~33 MB of the Pi 4's 512 MB camera memory (YUV420 main + raw)
PREVIEW_WIDTH = 480         # the lores stream is at most this wide (the preview on screen: ui/table_feed.py)
FLICKER_PERIOD_US = {50: 10000, 60: 8333}   # lights on mains flicker at twice its frequency


class CameraFrame(np.ndarray):
    """The grey picture (the Y plane of the camera's YUV420 main stream) with the camera's own small
    picture of the same moment (its lores stream, scaled by the ISP): ``small`` (grey) for the motion
    check and ``preview`` (BGR) for the screen, so neither shrinks 12 MP on the CPU; and ``chroma``, the
    main stream's U and V planes (2 x height/2 x width/2, as the buffer lays them out): the colour card
    outlines need (vision/outlines.py: in grey, a pale card edge on a pale table is no edge), for a
    copy of a quarter of the grey frame's bytes each instead of a 12 MP colour conversion."""

    small: np.ndarray | None = None
    preview: np.ndarray | None = None
    chroma: np.ndarray | None = None


def yuv420_frame(buffer: np.ndarray, width: int, height: int) -> CameraFrame:
    """The grey frame and its chroma, copied out of a YUV420 (I420) buffer as picamera2 maps it:
    ``height * 3 / 2`` rows of ``stride`` bytes (each row padded to the stride), the Y plane's rows, then
    the U plane's and the V plane's, whose rows are half the stride long (libcamera's layout). Copied
    because the buffer goes back to the camera."""
    stride = buffer.shape[1]
    frame = np.array(buffer[:height, :width]).view(CameraFrame)
    planes = buffer.reshape(-1)[height * stride:height * stride + 2 * (height // 2) * (stride // 2)]
    frame.chroma = np.array(planes.reshape(2, height // 2, stride // 2)[:, :, :width // 2])
    return frame


def lores_size(width: int, height: int, max_width: int = PREVIEW_WIDTH) -> tuple[int, int]:
    """The lores stream's size: the main size divided by the smallest whole number that brings it to
    ``max_width`` or less, with even sides (YUV420). A whole-number ratio keeps its pixels on the main
    stream's grid; a size with no such divisor gets the nearest even size below."""
    k = max(1, -(-width // max_width))
    for n in range(k, k + 64):
        w, h = width // n, height // n
        if width % n == 0 and height % n == 0 and w % 2 == 0 and h % 2 == 0:
            return w, h
    w = width // k
    return w - w % 2, max(2, round(height * w / width) // 2 * 2)


def focus_text(focus) -> str:
    if focus == "auto":
        return "continuous autofocus"
    if focus == "once":
        return "one autofocus cycle at start, then locked"
    return f"fixed at {focus:g} cm (LensPosition {100 / focus:.2f} dioptres)"


def camera_controls(focus, mains_hz: int, available: dict, enums) -> tuple[dict, list[str]]:
    """The libcamera controls for the focus and flicker settings, only those the camera has
    (``available``: picamera2's ``camera_controls``, name -> (min, max, default)), and what was done,
    in words."""
    controls: dict = {}
    said = []
    if "AfMode" not in available:
        said.append(f"fixed-focus camera (camera.focus = {focus} has no effect)")
    elif focus == "auto":
        controls["AfMode"] = enums.AfModeEnum.Continuous
        said.append("focus: " + focus_text(focus))
    elif focus == "once":
        controls["AfMode"] = enums.AfModeEnum.Auto    # the cycle itself is triggered once started
        said.append("focus: " + focus_text(focus))
    elif "LensPosition" in available:
        low, high = (float(v) for v in available["LensPosition"][:2])
        dioptres = min(high, max(low, 100 / focus))
        controls["AfMode"] = enums.AfModeEnum.Manual
        controls["LensPosition"] = dioptres
        said.append(f"focus: fixed at {focus:g} cm (LensPosition {dioptres:.2f} dioptres"
                    + (f", the lens's limit {low:g}-{high:g}" if dioptres != 100 / focus else "") + ")")
    else:
        said.append(f"the camera cannot set its lens position (camera.focus = {focus:g} has no effect)")
    if mains_hz and "AeFlickerMode" in available and "AeFlickerPeriod" in available:
        controls["AeFlickerMode"] = enums.AeFlickerModeEnum.Manual
        controls["AeFlickerPeriod"] = FLICKER_PERIOD_US[mains_hz]
        said.append(f"flicker: exposure in steps of {FLICKER_PERIOD_US[mains_hz] / 1000:g} ms ({mains_hz} Hz mains)")
    elif mains_hz:
        said.append("flicker: this camera has no flicker control")
    return controls, said


PICAMERA2_ADVICE = "on the Pi, sudo ./pi/install.sh installs python3-picamera2; elsewhere use usb:N, files:PATH or " \
                   "virtual"


def _picamera2_module():
    try:
        import picamera2
    except ImportError as e:
        raise OSError(f"picamera2 is not installed for this Python ({e}): {PICAMERA2_ADVICE}") from None
    return picamera2


class PiCameraDevice:
    """The Pi camera through picamera2: a YUV420 main stream (its Y plane is the grey frame the
    decoder reads, its U and V planes go with it for card outlines), a lores stream for the motion
    check and the preview, ``BUFFERS`` buffers, focus and flicker set from the settings, and a time
    limit on every capture."""

    def __init__(self, index: int, width: int, height: int, *, focus="auto", mains_hz: int = 50,
                 timeout: float | None = None):
        picamera2 = _picamera2_module()
        from libcamera import controls as enums

        Picamera2 = picamera2.Picamera2
        self._mapped = picamera2.MappedArray
        self.timeout = CAPTURE_TIMEOUT_S if timeout is None else timeout
        cameras = Picamera2.global_camera_info()
        if index >= len(cameras):
            raise OSError(f"no Pi camera number {index} (libcamera lists {len(cameras)}): check the ribbon cable")
        self.name = f"picamera2:{index} ({cameras[index].get('Model', 'camera')})"
        self.cam = Picamera2(index)
        try:
            controls, self.said = camera_controls(focus, mains_hz, self.cam.camera_controls, enums)
            config = self.cam.create_video_configuration(
                main={"size": (width, height), "format": "YUV420"},
                lores={"size": lores_size(width, height), "format": "YUV420"},
                buffer_count=BUFFERS, controls=controls, display=None, encode=None)
            self.cam.configure(config)
            final = getattr(self.cam, "camera_config", None) or config     # the sizes libcamera settled on
            self.size = tuple(final["main"]["size"])
            self.lores = tuple(final["lores"]["size"])
            self.cam.start()
            if focus == "once" and "AfMode" in controls:
                self._focus_once(enums)
        except Exception:
            self.cam.close()
            raise

    def _focus_once(self, enums) -> None:
        import logging
        job = self.cam.autofocus_cycle(wait=False)
        try:
            focused = job.get_result(timeout=AUTOFOCUS_TIMEOUT_S)
        except TimeoutError:
            self._flush()
            focused = False
        if not focused:
            logging.getLogger(__name__).warning(
                "%s: the autofocus cycle did not find a sharp picture; the lens stays where it stopped "
                "(camera.focus = the camera's height in cm fixes it)", self.name)
            self.said.append("the autofocus cycle at start failed")

    def _flush(self) -> None:
        flush = getattr(self.cam, "cancel_all_and_flush", None)   # picamera2 0.3.20 and later
        if flush is not None:
            flush()

    def grab(self) -> np.ndarray:
        import cv2
        job = self.cam.capture_request(wait=False)
        try:
            request = job.get_result(timeout=self.timeout)
        except TimeoutError:
            self._flush()
            raise OSError(f"the Pi camera sent no picture for {self.timeout:g} s (stalled: check the ribbon "
                          "cable and the power supply)") from None
        try:
            (w, h), (lw, lh) = self.size, self.lores
            with self._mapped(request, "main") as m:
                frame = yuv420_frame(m.array, w, h)
            with self._mapped(request, "lores") as m:
                # I420 rows carry the stride's padding: converted whole, cut after
                frame.preview = cv2.cvtColor(m.array, cv2.COLOR_YUV2BGR_I420)[:, :lw]
                frame.small = np.array(m.array[:lh, :lw])
        finally:
            request.release()
        return frame

    def close(self) -> None:
        try:
            self.cam.stop()
        finally:
            self.cam.close()


def auto_device(width: int, height: int, **camera) -> Device:
    """The Pi camera if picamera2 lists one, else the first /dev/videoN that gives a picture (on a Pi 5
    several video nodes belong to the image processor and never give one)."""
    tried = []
    try:
        return PiCameraDevice(0, width, height, **camera)
    except Exception as e:  # no picamera2 or no Pi camera: look for a webcam
        tried.append(f"Pi camera: {_reason(e)}")
    for n in video_devices():
        try:
            dev = UsbDevice(n, width, height)
        except Exception as e:  # not a camera, or busy
            tried.append(f"/dev/video{n}: {_reason(e)}")
            continue
        try:
            dev.grab()
            return dev
        except Exception as e:  # opens but gives no picture
            dev.close()
            tried.append(f"/dev/video{n}: {_reason(e)}")
    if len(tried) == 1:
        tried.append("no /dev/video* device")
    raise OSError("no camera found; " + "; ".join(tried))


# -- pictures on disk --------------------------------------------------------------------------------

class FileSource:
    """Pictures from disk, in name order, in a loop; each is handed out ``hold`` times in a row."""

    def __init__(self, pattern: str, hold: int = FILES_HOLD):
        self.pattern = pattern
        self.paths = image_paths(pattern)
        self.hold = max(1, hold)
        self._count = 0
        self._cache: tuple[int, np.ndarray] | None = None

    def read(self) -> np.ndarray | None:
        import cv2
        i = (self._count // self.hold) % len(self.paths)
        self._count += 1
        if self._cache is not None and self._cache[0] == i:
            return self._cache[1].copy()
        path = self.paths[i]
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            raise CameraLost(f"{path} cannot be read as a picture (gone, or not an image)")
        self._cache = (i, frame)
        return frame.copy()

    def close(self) -> None:
        self._cache = None

    def describe(self) -> str:
        return f"files:{self.pattern} ({counted(len(self.paths), 'picture')})"


def image_paths(pattern: str) -> list[Path]:
    where = f"files:{pattern}"
    p = Path(pattern).expanduser()
    if p.is_dir():
        paths = sorted(x for x in p.iterdir() if x.suffix.lower() in IMAGE_SUFFIXES and x.is_file())
        if not paths:
            raise BadInput(where, f"the folder holds no pictures ({', '.join(IMAGE_SUFFIXES)})")
        return paths
    if p.is_file():
        return [p]
    if any(ch in pattern for ch in "*?["):
        paths = sorted(Path(x) for x in globlib.glob(str(p)) if Path(x).is_file())
        if not paths:
            raise BadInput(where, "no file matches this pattern")
        return paths
    raise BadInput(where, "no such file or folder")
