"""Camera -> tracker, off the screen's thread.

The camera and the sticker decoder can take longer than one screen frame, so on the kiosk they run
in a worker thread and the screen picks up the newest reading (``threaded=True``). Tests, autoplay
and the benchmark run them inline (``threaded=False``): the same code, one reading per ``poll``.
Each ``expect`` starts a new generation; readings taken before it are dropped, so a proposal never
refers to a table the game has moved past.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

PREVIEW_WIDTH = 480     # the camera picture on screen never needs more pixels than this


@dataclass
class Reading:
    generation: int
    frame: np.ndarray | None = None         # RGB, at most PREVIEW_WIDTH wide
    scale: float = 1.0                      # preview pixels per camera pixel
    proposals: list = field(default_factory=list)
    detections: list = field(default_factory=list)
    lost: str | None = None                 # the camera stopped: what it said
    picture: np.ndarray | None = None       # the camera's own frame (what enrolment reads; not for drawing)


_NO_TABLE = object()        # expect(None): no tracker until the next layout


class TableFeed:
    def __init__(self, source, make_tracker, threaded: bool = True, on_frame=None):
        self.source = source
        self.make_tracker = make_tracker    # kind ("row", "grid", "rows", "board") -> a Tracker
        self._trackers: dict = {}
        self.tracker = None
        self.threaded = threaded
        self.on_frame = on_frame            # demo: called before each read (the simulated hands move)
        self._lock = threading.Lock()
        self._generation = 0
        self._pending_layout: object = None
        self._latest: Reading | None = None
        self._stop = threading.Event()
        self._answered = time.monotonic()  # when the camera last gave a picture or said it gives none
        self._thread = None
        self.camera_lost: str | None = None  # what the camera said when it last failed (the café's health)
        if threaded:
            self._thread = threading.Thread(target=self._run, name="table-feed", daemon=True)
            self._thread.start()

    def expect(self, layout) -> None:
        """The table the game expects now (after every confirmed action and at the start); None: no game
        on the table, the frames are only handed on (enrolment reads them)."""
        with self._lock:
            self._generation += 1
            self._pending_layout = layout if layout is not None else _NO_TABLE
            self._latest = None

    def poll(self) -> Reading | None:
        """The newest reading not yet handed out, or None."""
        if not self.threaded:
            once = self._read_once()
            self.camera_lost = once.lost
            return once
        with self._lock:
            reading, self._latest = self._latest, None
        if reading is not None and reading.generation != self._generation:
            return None
        return reading

    def _read_once(self) -> Reading:
        with self._lock:
            generation = self._generation
            layout, self._pending_layout = self._pending_layout, None
        if layout is _NO_TABLE:
            self.tracker = None
            self._trackers.clear()      # a box may be enrolled meanwhile: the next game's trackers know its faces
        elif layout is not None:
            kind = layout_kind(layout)
            if kind not in self._trackers:
                self._trackers[kind] = self.make_tracker(kind)
            tracker = self._trackers[kind]
            tracker.expect(layout)
            self.tracker = tracker
        if self.on_frame:
            self.on_frame()
        from companion.vision.sources import CameraLost

        try:
            frame = self.source.read()
        except CameraLost as e:
            return Reading(generation, lost=str(e) or "no picture")
        finally:
            self._answered = time.monotonic()
        if frame is None:
            return Reading(generation, lost="no picture")
        if self.tracker is None:
            proposals: list = []
            detections: list = []
        else:
            proposals = list(self.tracker.feed(frame))
            detections = list(getattr(self.tracker, "detections", []) or [])
        preview, scale = _preview(frame)
        return Reading(generation, preview, scale, proposals, detections, picture=frame)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                reading = self._read_once()
            except Exception as e:  # a decoder fault must not kill the feed; the screen says so
                reading = Reading(self._generation, lost=f"{type(e).__name__}: {e}")
            self.camera_lost = reading.lost
            with self._lock:
                if reading.generation == self._generation:
                    if self._latest is not None and self._latest.proposals and not reading.proposals:
                        # keep an unread proposal: it is the news; the picture can wait a frame
                        self._latest.frame = reading.frame
                    else:
                        self._latest = reading
            if reading.lost:
                time.sleep(0.5)

    def age(self) -> float:
        """Seconds since the camera last answered. Every capture has a time limit, so this stays
        small even while the camera is lost; it grows only if a camera call never returns (the
        service's watchdog then restarts the kiosk). Inline (``threaded=False``) the camera is read by
        the screen's own loop, whose hang the watchdog sees anyway: 0."""
        return time.monotonic() - self._answered if self.threaded else 0.0

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        close = getattr(self.source, "close", None)
        if close:
            close()


def layout_kind(layout) -> str:
    """row | grid | rows | board, from the layout's class (RowLayout, GridLayout, RowsLayout, BoardLayout)."""
    return getattr(layout, "kind", None) or type(layout).__name__.removesuffix("Layout").lower()


def _preview(frame: np.ndarray):
    import cv2

    from companion.vision.shrink import factor, shrink

    # the Pi camera sends its own small picture of the same moment (its lores stream); else shrink
    source = getattr(frame, "preview", None)
    if source is None:
        source = frame
    small = shrink(source, factor(source.shape[1], PREVIEW_WIDTH))
    if small.ndim == 2:
        rgb = cv2.cvtColor(small, cv2.COLOR_GRAY2RGB)
    else:
        rgb = cv2.cvtColor(small, cv2.COLOR_BGR2RGB)
    return rgb, small.shape[1] / frame.shape[1]
