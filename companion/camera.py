"""The ``camera.source`` setting: which source it names. The sources themselves are the camera's
(companion/vision/sources.py) and the simulated table's (companion/sim/virtual_table.py); this module
sits above both, so neither imports the other.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from companion.errors import BadInput
from companion.vision import sources

SPEC_HELP = "camera.source must be picamera2[:N], usb[:N], files:PATH, virtual or auto"


class VirtualSource:
    """The virtual table as a camera; ``table.set_layout(...)`` changes what lies on it."""

    def __init__(self, width: int, height: int, seed: int = 0):
        from companion.sim.virtual_table import VirtualTable  # the scene generator: only when asked for

        self.table = VirtualTable(width, height, seed)
        self.size = (width, height)

    def read(self) -> np.ndarray | None:
        return self.table.read()

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"virtual table {self.size[0]}x{self.size[1]}"


def open_source(spec: str, *, width: int = 1920, height: int = 1080, clock: Callable[[], float] = time.monotonic,
                focus="auto", mains_hz: int = 50):
    """The source a ``camera.source`` setting names. Bad settings raise BadInput; a camera that is
    not there (yet) gives a source whose ``read()`` raises CameraLost until it is. ``focus`` and
    ``mains_hz`` (camera.focus, camera.mains_hz) reach the Pi camera."""
    pi = {"focus": focus, "mains_hz": mains_hz}
    text = (spec or "").strip()
    kind, sep, arg = text.partition(":")
    kind = kind.lower()
    if kind == "files":
        if not arg:
            raise BadInput("camera.source", "files: needs a path, e.g. files:/home/pi/table-photos")
        return sources.FileSource(arg)
    if kind == "virtual":
        if sep and arg:
            raise BadInput("camera.source", f"{text!r}: virtual takes no argument")
        return VirtualSource(min(width, 1920), min(height, 1080))
    if kind in ("usb", "picamera2"):
        index = _index(arg if sep else "", text)
        if kind == "usb":
            return sources.ReconnectingSource(f"usb:{index}", lambda: sources.UsbDevice(index, width, height),
                                              clock=clock)
        return sources.ReconnectingSource(f"picamera2:{index}",
                                          lambda: sources.PiCameraDevice(index, width, height, **pi), clock=clock)
    if kind == "auto" and not sep:
        return sources.ReconnectingSource("auto", lambda: sources.auto_device(width, height, **pi), clock=clock)
    raise BadInput("camera.source", f"{text!r} is not a camera; {SPEC_HELP}")


def _index(arg: str, text: str) -> int:
    if arg == "":
        return 0
    if not arg.isdigit() or len(arg) > 3:
        raise BadInput("camera.source", f"{text!r}: the camera number must be 0, 1, 2...; {SPEC_HELP}")
    return int(arg)
