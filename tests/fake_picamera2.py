"""Stand-ins for the ``picamera2`` and ``libcamera`` modules (there is no Pi camera here).

They keep picamera2's names and call shapes (``Picamera2``, ``create_video_configuration``,
``capture_request(wait=False)`` giving a job whose ``get_result(timeout=...)`` raises TimeoutError,
``MappedArray``, ``autofocus_cycle``, ``cancel_all_and_flush``; libcamera's ``controls`` enums) and
record what the program asked for: the configuration, the controls, the autofocus cycles, the time
limit of every capture. ``World`` says what the camera does: how many frames each opening delivers
before it stalls (sends nothing, raises nothing, as a camera with a loose ribbon does), and what it
sees (``picture``), laid in its YUV420 buffers as libcamera lays them (rows padded to a stride).

    world = install(monkeypatch)             # sys.modules["picamera2"], ["libcamera"] for this test
    world.frames_per_open = [3, None]        # first opening: 3 frames, then a stall; then for ever
"""

from __future__ import annotations

import enum
import sys
import threading
import types

import numpy as np

# The controls of a Camera Module 3 (imx708), name -> (min, max, default), as picamera2 lists them.
MODULE_3_CONTROLS = {
    "AfMode": (0, 2, 0), "AfTrigger": (0, 1, 0), "AfSpeed": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0),
    "AeFlickerMode": (0, 1, 0), "AeFlickerPeriod": (100, 1000000, None), "ExposureTime": (9, 77193582, None),
}
FIXED_FOCUS_CONTROLS = {k: v for k, v in MODULE_3_CONTROLS.items() if not k.startswith(("Af", "Lens"))}


class AfModeEnum(enum.IntEnum):
    Manual = 0
    Auto = 1
    Continuous = 2


class AfTriggerEnum(enum.IntEnum):
    Start = 0
    Cancel = 1


class AeFlickerModeEnum(enum.IntEnum):
    Off = 0
    Manual = 1
    Auto = 2


class World:
    def __init__(self):
        self.cameras = [{"Model": "imx708_wide", "Num": 0}]
        self.controls = dict(MODULE_3_CONTROLS)
        self.frames_per_open: list[int | None] = [None]     # per opening: frames before a stall (None: never)
        self.picture: np.ndarray | None = None              # what the camera sees (BGR); None: a flat grey
        self.autofocus_result = True
        self.opened: list[Picamera2] = []

    @property
    def last(self) -> Picamera2:
        return self.opened[-1]


class Job:
    def __init__(self, result=None, stalled: bool = False, record=None):
        self._result = result
        self._stalled = stalled
        self._record = record

    def get_result(self, timeout=None):
        if self._record is not None:
            self._record.append(timeout)
        if self._stalled:
            if timeout is None:
                raise AssertionError("a capture without a time limit waits for ever on a stalled camera")
            threading.Event().wait(timeout)
            raise TimeoutError()
        return self._result


class CompletedRequest:
    def __init__(self, arrays: dict):
        self.arrays = arrays
        self.released = False

    def release(self):
        self.released = True


class MappedArray:
    def __init__(self, request: CompletedRequest, stream: str, reshape: bool = True, write: bool = True):
        self.request, self.stream = request, stream
        self.array = None

    def __enter__(self):
        self.array = self.request.arrays[self.stream]
        return self

    def __exit__(self, *exc):
        self.array = None


PADDING = 3        # the value of the bytes past each row's end (up to the stride) in the fake's buffers
FLAT_U, FLAT_V = 100, 160


def _yuv420(size, value: int, stride_pad: int = 0, picture: np.ndarray | None = None) -> np.ndarray:
    """A YUV420 buffer as picamera2 maps it: (height * 3 / 2, stride) bytes, libcamera's I420 layout:
    the Y plane's rows, then the U plane's and the V plane's, each row half the stride, every row
    padded to its stride. Of ``picture`` (BGR, made this size; as the image processor converts it),
    else flat: Y ``value``, U and V ``FLAT_U``, ``FLAT_V``."""
    import cv2
    w, h = size
    if picture is not None:
        i420 = cv2.cvtColor(cv2.resize(picture, (w, h), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2YUV_I420)
    else:
        i420 = np.concatenate([np.full(w * h, value), np.full(w * h // 4, FLAT_U),
                               np.full(w * h // 4, FLAT_V)]).astype(np.uint8).reshape(-1, w)
    stride = w + stride_pad
    buf = np.full(h * 3 // 2 * stride, PADDING, np.uint8)
    buf[:h * stride].reshape(h, stride)[:, :w] = i420[:h]
    planes = buf[h * stride:].reshape(2, h // 2, stride // 2)
    planes[:, :, :w // 2] = i420.reshape(-1)[w * h:].reshape(2, h // 2, w // 2)
    return buf.reshape(h * 3 // 2, stride)


class Picamera2:
    world: World

    @classmethod
    def global_camera_info(cls):
        return list(cls.world.cameras)

    def __init__(self, camera_num: int = 0):
        self.camera_num = camera_num
        self.camera_controls = dict(self.world.controls)
        self.configured = None
        self.camera_config = None
        self.controls_set: list[dict] = []
        self.autofocus_cycles = 0
        self.capture_timeouts: list = []
        self.flushed = 0
        self.started = self.stopped = self.closed = False
        self.delivered = 0
        plan = self.world.frames_per_open
        self.stall_after = plan[min(len(self.world.opened), len(plan) - 1)]
        self.world.opened.append(self)

    @staticmethod
    def _stream(default_format, given):
        if given is None:
            return None
        stream = {"format": default_format, "size": (640, 480)} | dict(given)
        w, h = stream["size"]
        stream["size"] = (w - w % 2, h - h % 2)
        return stream

    def create_video_configuration(self, main=None, lores=None, raw=None, buffer_count=6, controls=None,
                                   display="main", encode="main", queue=True, **kw):
        return {"use_case": "video", "main": self._stream("XBGR8888", main or {}),
                "lores": self._stream("YUV420", lores), "raw": self._stream("SBGGR10_CSI2P", raw or {}),
                "buffer_count": buffer_count, "controls": dict(controls or {}),
                "display": display, "encode": encode, "queue": queue}

    def configure(self, config):
        if config["lores"] is not None:
            (mw, mh), (lw, lh) = config["main"]["size"], config["lores"]["size"]
            if lw > mw or lh > mh:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
        self.configured = config
        self.camera_config = config

    def start(self):
        self.started = True

    def set_controls(self, controls):
        self.controls_set.append(dict(controls))

    def autofocus_cycle(self, wait=None, signal_function=None):
        self.autofocus_cycles += 1
        self.set_controls({"AfMode": AfModeEnum.Auto, "AfTrigger": AfTriggerEnum.Start})
        return Job(self.world.autofocus_result)

    def capture_request(self, wait=None, signal_function=None, flush=None):
        if wait is not False:
            raise AssertionError("the program must not block on a capture without a time limit")
        if self.stall_after is not None and self.delivered >= self.stall_after:
            return Job(stalled=True, record=self.capture_timeouts)
        self.delivered += 1
        value = (len(self.world.opened) * 40 + self.delivered) % 256
        config = self.camera_config
        seen = self.world.picture
        arrays = {"main": _yuv420(config["main"]["size"], value, stride_pad=64, picture=seen)}
        if config["lores"] is not None:
            arrays["lores"] = _yuv420(config["lores"]["size"], value, stride_pad=32, picture=seen)
        return Job(CompletedRequest(arrays), record=self.capture_timeouts)

    def cancel_all_and_flush(self):
        self.flushed += 1

    def stop(self):
        self.stopped = True

    def close(self):
        self.closed = True


def install(monkeypatch) -> World:
    """Put the stand-ins in sys.modules for one test; returns the world they share."""
    world = World()
    camera = type("Picamera2", (Picamera2,), {"world": world})
    picamera2 = types.ModuleType("picamera2")
    picamera2.Picamera2, picamera2.MappedArray, picamera2.CompletedRequest = camera, MappedArray, CompletedRequest
    libcamera = types.ModuleType("libcamera")
    libcamera.controls = types.SimpleNamespace(AfModeEnum=AfModeEnum, AfTriggerEnum=AfTriggerEnum,
                                               AeFlickerModeEnum=AeFlickerModeEnum)
    monkeypatch.setitem(sys.modules, "picamera2", picamera2)
    monkeypatch.setitem(sys.modules, "libcamera", libcamera)
    return world
